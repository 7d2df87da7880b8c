//! `unique` and `unique_consecutive` of a flat list of values: runs of equal values (by
//! [`SortKey`]: `-0.0 == 0.0`; a NaN never equals anything, so every NaN is its own
//! run, as in PyTorch), the run's first value as its representative.

use super::SortKey;

/// The distinct values of `src` (every run of equal neighbours when `consecutive`,
/// else every distinct value, ascending, NaNs last), writing each element's run number
/// to `inverse` (same length as `src`); returns (values, counts).
pub fn unique<T: SortKey>(src: &[T], consecutive: bool, inverse: &mut [i64]) -> (Vec<T>, Vec<i64>) {
    let order: Vec<usize> = if consecutive {
        (0..src.len()).collect()
    } else {
        // (key, position) pairs are distinct: an unstable sort gives the stable order
        let mut p: Vec<(T::Key, usize)> =
            src.iter().enumerate().map(|(i, v)| (v.key(), i)).collect();
        p.sort_unstable();
        p.into_iter().map(|(_, i)| i).collect()
    };
    let (mut vals, mut counts) = (Vec::new(), Vec::new());
    let mut prev: Option<T> = None;
    for &i in &order {
        let v = src[i];
        let same = prev.is_some_and(|p| !p.is_nan() && !v.is_nan() && p.key() == v.key());
        if !same {
            vals.push(v);
            counts.push(0);
            prev = Some(v);
        }
        if let Some(c) = counts.last_mut() {
            *c += 1;
        }
        inverse[i] = vals.len() as i64 - 1;
    }
    (vals, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_like_pytorch() {
        // torch.unique / unique_consecutive of [2, 1, nan, 2, -0, 0, nan, 1, 3] (2.13)
        let x = [2.0f32, 1.0, f32::NAN, 2.0, -0.0, 0.0, f32::NAN, 1.0, 3.0];
        let mut inv = [0i64; 9];
        let (v, c) = unique(&x, false, &mut inv);
        assert_eq!(v.len(), 6);
        assert!(v[0] == 0.0 && v[0].is_sign_negative() && v[3] == 3.0 && v[4].is_nan());
        assert_eq!(inv, [2, 1, 4, 2, 0, 0, 5, 1, 3]);
        assert_eq!(c, vec![2, 2, 2, 1, 1, 1]);
        let (v, c) = unique(&x, true, &mut inv);
        assert_eq!(v.len(), 8);
        assert_eq!(inv, [0, 1, 2, 3, 4, 4, 5, 6, 7]);
        assert_eq!(c, vec![1, 1, 1, 1, 2, 1, 1, 1]);
    }
}
