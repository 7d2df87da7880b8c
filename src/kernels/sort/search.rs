//! Binary search of values in sorted rows (`searchsorted`, `bucketize`).
//!
//! Comparisons are the plain `>=` / `>` of the element type, so a NaN boundary or value
//! lands where PyTorch's kernel puts it (a NaN never compares true: a NaN value goes
//! after every boundary, and a search stepping onto a NaN boundary moves right).

/// For every value `vals[e]`, the number of boundaries of its row that go before it:
/// with `right == false` the first position whose boundary is `>=` the value, else the
/// first whose boundary is `>` it. Boundaries are rows of `m` (one row for every value
/// when `one_row`, else row `e / n` for value `e`), read through `sorter` (positions
/// into each row, all `< m`) when given. `out` has one slot per value.
#[allow(clippy::too_many_arguments)]
pub fn search_rows<T: PartialOrd + Copy>(
    bnd: &[T],
    m: usize,
    vals: &[T],
    n: usize,
    one_row: bool,
    sorter: Option<&[i64]>,
    right: bool,
    out: &mut [i64],
) {
    for (e, (&v, o)) in vals.iter().zip(out.iter_mut()).enumerate() {
        let r = if one_row || n == 0 { 0 } else { e / n };
        let base = r * m;
        let at = |i: usize| match sorter {
            Some(s) => bnd[base + s[base + i] as usize],
            None => bnd[base + i],
        };
        let (mut lo, mut hi) = (0, m);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let b = at(mid);
            // left: step right unless b >= v; right: unless b > v (NaN: step right)
            let go_right = match b.partial_cmp(&v) {
                Some(std::cmp::Ordering::Greater) => false,
                Some(std::cmp::Ordering::Equal) => right,
                _ => true,
            };
            if go_right {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        *o = lo as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_and_right_with_ties_and_nan() {
        let b = [1.0, 2.0, 2.0, 3.0, f64::NAN];
        let v = [0.0, 2.0, 2.5, f64::NAN, 5.0];
        let mut o = [0i64; 5];
        search_rows(&b, 5, &v, 5, true, None, false, &mut o);
        assert_eq!(o, [0, 1, 5, 5, 5]); // PyTorch 2.13's answers
        search_rows(&b, 5, &v, 5, true, None, true, &mut o);
        assert_eq!(o, [0, 5, 5, 5, 5]);
    }

    #[test]
    fn rows_and_sorter() {
        let b = [1i64, 3, 2, 4];
        let mut o = [0i64; 2];
        search_rows(&b, 2, &[2, 3], 1, false, None, false, &mut o);
        assert_eq!(o, [1, 1]);
        let mut o = [0i64; 1];
        search_rows(
            &[3.0, 1.0, 2.0],
            3,
            &[2.5],
            1,
            true,
            Some(&[1, 2, 0]),
            false,
            &mut o,
        );
        assert_eq!(o, [2]);
    }
}
