//! The binary op table: one row per elementwise binary op (see `ops::table` for how
//! the tables are consumed; the unary table and its field docs live there).

/// Elementwise binary ops with broadcasting and type promotion (`a + b`, `ferric.atan2`,
/// `a.eq(b)`, ...). Fields of a row:
/// * `name`: PyTorch's op name; `node`: the backward node's name;
/// * `kind`: `Arith` (result in the promoted dtype), `Compare` / `Logical` (bool
///   results; their element functions are `Kernel::predicate`), `Bitwise` (integers
///   and bool only);
/// * `dunders`: the operator methods, `[forward reflected in-place]` (the rich
///   comparisons `__eq__`... share one binding block in `python::arith`: PyO3 builds
///   one comparison slot from it);
/// * `methods`: named methods, `name / name_` with an in-place form; every method is
///   also a module function. `other: Tensor` makes them reject Python numbers as PyTorch
///   does. `add`, `sub`, `div` (`alpha=`, `rounding_mode=`) and `pow` have bindings of
///   their own;
/// * `cost`, `simd`: as for unary rows (`kernels::simd::Binary`);
/// * `float` / `int` / `bool`: the element function per dtype family (`T` is `f32` or
///   `f64`), unused for `Compare` and `Logical`;
/// * `grad`: `none`; or a formula per input, `a: |g, ...| ...; b: |g, ...| ...`, whose
///   parameters after `g` name the values it reads (`a`, `b`: the operands, saved only
///   when a needed gradient reads them); `unimplemented` for a node whose backward
///   raises PyTorch's "derivative for aten::<name> is not implemented"; or `custom` for
///   the rules in
///   `autograd::pointwise` that need more (pow's node names, max/min ties);
/// * `nested`: whether nested tensors apply it to their packed values;
/// * `doc` / `ex`: the docstring's sentence and example (`[a, b, printed output]`, `[]`
///   for rows without named methods), as for unary rows.
macro_rules! binary_table {
    ($m:ident) => { $m! {
        Add { name: "add", node: "AddBackward0", kind: Arith,
            dunders: [__add__ __radd__ __iadd__], methods: [], other: Number,
            cost: 1, simd: [Add], float: |a, b| a + b, int: |a, b| a.wrapping_add(b),
            bool: |a, b| a | b,
            grad: [a: |g| same(g); b: |g| same(g)], nested: true,
            doc: "Adds ``other`` to ``input`` elementwise.",
            ex: [] }
        Sub { name: "sub", node: "SubBackward0", kind: Arith,
            dunders: [__sub__ __rsub__ __isub__], methods: [], other: Number,
            cost: 1, simd: [Sub], float: |a, b| a - b, int: |a, b| a.wrapping_sub(b),
            bool: |a, b| a ^ b,
            grad: [a: |g| same(g); b: |g| -g], nested: true,
            doc: "Subtracts ``other`` from ``input`` elementwise.",
            ex: [] }
        Mul { name: "mul", node: "MulBackward0", kind: Arith,
            dunders: [__mul__ __rmul__ __imul__], methods: [mul / mul_, multiply], other: Number,
            cost: 1, simd: [Mul], float: |a, b| a * b, int: |a, b| a.wrapping_mul(b),
            bool: |a, b| a & b,
            grad: [a: |g, b| g * b; b: |g, a| g * a], nested: true,
            doc: "Multiplies ``input`` by ``other`` elementwise, with broadcasting and type promotion.",
            ex: ["[1.0, 2.0, 3.0]", "[2.0, 0.5, -1.0]", "tensor([ 2.,  1., -3.])"] }
        Div { name: "div", node: "DivBackward0", kind: Arith,
            dunders: [__truediv__ __rtruediv__ __itruediv__], methods: [true_divide], other: Number,
            cost: 1, simd: [Div], float: |a, b| a / b, int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, b| g / b; b: |g, a, b| -(g * a / (b * b))], nested: true,
            doc: "Divides ``input`` by ``other`` elementwise (true division).",
            ex: ["[1.0, 2.0, 3.0]", "[2.0, 0.5, -1.0]", "tensor([ 0.5000,  4.0000, -3.0000])"] }
        // PyTorch records a node whose backward raises (floor_divide has no derivative)
        FloorDiv { name: "floor_divide", node: "NotImplemented", kind: Arith,
            dunders: [__floordiv__ __rfloordiv__ __ifloordiv__],
            methods: [floor_divide / floor_divide_], other: Number,
            cost: 8, simd: [], float: |a, b| T::floor_div(a, b), int: floor_div_i64,
            bool: |a, _| a,
            grad: [unimplemented], nested: true,
            doc: "Divides ``input`` by ``other`` elementwise and rounds the quotient down.",
            ex: ["[7.0, -7.0, 5.0]", "[2.0, 2.0, -3.0]", "tensor([ 3., -4., -2.])"] }
        Rem { name: "remainder", node: "RemainderBackward0", kind: Arith,
            dunders: [__mod__ __rmod__ __imod__], methods: [remainder / remainder_], other: Number,
            cost: 8, simd: [], float: |a, b| T::py_rem(a, b), int: rem_i64, bool: |a, _| a,
            grad: [a: |g| same(g); b: |g, a, b| rules::remainder_b(g, a, b)], nested: true,
            doc: "Python-style modulus: the remainder of ``input / other`` with the sign of ``other``.",
            ex: ["[7.0, -7.0, 5.0]", "[2.0, 2.0, -3.0]", "tensor([ 1.,  1., -1.])"] }
        Fmod { name: "fmod", node: "FmodBackward0", kind: Arith,
            dunders: [], methods: [fmod / fmod_], other: Number,
            cost: 8, simd: [], float: |a, b| a % b,
            int: |a, b| if b == 0 { 0 } else { a.wrapping_rem(b) }, bool: |a, _| a,
            grad: [a: |g| same(g); b: |g, a, b| rules::fmod_b(g, a, b)], nested: true,
            doc: "C-style modulus: the remainder of ``input / other`` with the sign of ``input``.",
            ex: ["[7.0, -7.0, 5.0]", "[2.0, 2.0, -3.0]", "tensor([ 1., -1.,  2.])"] }
        Pow { name: "pow", node: "PowBackward1", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 8, simd: [], float: |a, b| a.powf(b), int: pow_i64, bool: |a, _| a,
            grad: [custom], nested: true,
            doc: "Raises ``input`` to the power ``other`` elementwise.",
            ex: [] }
        Maximum { name: "maximum", node: "MaximumBackward0", kind: Arith,
            dunders: [], methods: [maximum], other: Tensor,
            cost: 1, simd: [],
            float: |a, b| if a.is_nan() || b.is_nan() { T::NAN } else if a > b { a } else { b },
            int: |a, b| a.max(b), bool: |a, b| a | b,
            grad: [custom], nested: true,
            doc: "Elementwise maximum of ``input`` and ``other``; NaN if either is NaN.",
            ex: ["[1.0, 5.0, 3.0]", "[2.0, 4.0, 3.0]", "tensor([2., 5., 3.])"] }
        Minimum { name: "minimum", node: "MinimumBackward0", kind: Arith,
            dunders: [], methods: [minimum], other: Tensor,
            cost: 1, simd: [],
            float: |a, b| if a.is_nan() || b.is_nan() { T::NAN } else if a < b { a } else { b },
            int: |a, b| a.min(b), bool: |a, b| a & b,
            grad: [custom], nested: true,
            doc: "Elementwise minimum of ``input`` and ``other``; NaN if either is NaN.",
            ex: ["[1.0, 5.0, 3.0]", "[2.0, 4.0, 3.0]", "tensor([1., 4., 3.])"] }
        Atan2 { name: "atan2", node: "Atan2Backward0", kind: Arith,
            dunders: [], methods: [atan2 / atan2_, arctan2 / arctan2_], other: Tensor,
            cost: 8, simd: [], float: |a, b| a.atan2(b), int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| g * b / (a * a + b * b); b: |g, a, b| -(g * a / (a * a + b * b))],
            nested: true,
            doc: "Elementwise arctangent of ``input / other`` using the signs of both to pick the quadrant.",
            ex: ["[1.0, -1.0, 0.0]", "[1.0, 1.0, -1.0]", "tensor([ 0.7854, -0.7854,  3.1416])"] }
        // `kernels::pointwise` holds the element functions of the rows below; they
        // follow PyTorch's CPU kernels (signed zeros, NaN, shift counts out of range)
        Copysign { name: "copysign", node: "CopysignBackward0", kind: Arith,
            dunders: [], methods: [copysign / copysign_], other: Number,
            cost: 1, simd: [], float: |a, b| a.copysign(b), int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| rules::copysign_a(g, a, b); b: |g| zeros_like(g)],
            nested: true,
            doc: "Returns ``input`` with the magnitude of each element and the sign of ``other``.",
            ex: ["[1.0, -2.0, 3.0]", "[-1.0, 1.0, -0.0]", "tensor([-1.,  2., -3.])"] }
        Hypot { name: "hypot", node: "HypotBackward0", kind: Arith,
            dunders: [], methods: [hypot / hypot_], other: Tensor,
            cost: 8, simd: [], float: |a, b| a.hypot(b), int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| g * a / rules::hypot(a, b); b: |g, a, b| g * b / rules::hypot(a, b)],
            nested: true,
            doc: "Returns ``sqrt(input**2 + other**2)`` elementwise, without overflow.",
            ex: ["[3.0, 5.0, 0.0]", "[4.0, 12.0, 2.0]", "tensor([ 5., 13.,  2.])"] }
        Logaddexp { name: "logaddexp", node: "LogaddexpBackward0", kind: Arith,
            dunders: [], methods: [logaddexp], other: Tensor,
            cost: 16, simd: [], float: |a, b| T::logaddexp(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| g / (un(Exp, b - a) + 1.0); b: |g, a, b| g / (un(Exp, a - b) + 1.0)],
            nested: true,
            doc: "Returns ``log(exp(input) + exp(other))`` elementwise, computed without overflow.",
            ex: ["[0.0, 1.0, -100.0]", "[0.0, 2.0, -100.0]", "tensor([  0.6931,   2.3133, -99.3069])"] }
        Logaddexp2 { name: "logaddexp2", node: "Logaddexp2Backward0", kind: Arith,
            dunders: [], methods: [logaddexp2], other: Tensor,
            cost: 16, simd: [], float: |a, b| T::logaddexp2(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| g / (un(Exp2, b - a) + 1.0); b: |g, a, b| g / (un(Exp2, a - b) + 1.0)],
            nested: true,
            doc: "Returns ``log2(2**input + 2**other)`` elementwise, computed without overflow.",
            ex: ["[0.0, 1.0, -100.0]", "[0.0, 2.0, -100.0]", "tensor([  1.0000,   2.5850, -99.0000])"] }
        // NaN-ignoring maximum / minimum; a tie keeps `input` (a -0 / 0 tie too)
        Fmax { name: "fmax", node: "FmaxBackward0", kind: Arith,
            dunders: [], methods: [fmax], other: Tensor,
            cost: 1, simd: [], float: |a, b| T::fmax(a, b),
            int: |a, b| a.max(b), bool: |a, b| a | b,
            grad: [a: |g, a, b| rules::fmaxmin(g, a, b, true, true);
                   b: |g, a, b| rules::fmaxmin(g, a, b, true, false)],
            nested: true,
            doc: "Elementwise maximum of ``input`` and ``other``, ignoring NaN: where exactly one is NaN the other is taken.",
            ex: ["[1.0, float('nan'), 3.0]", "[2.0, 4.0, float('nan')]", "tensor([2., 4., 3.])"] }
        Fmin { name: "fmin", node: "FminBackward0", kind: Arith,
            dunders: [], methods: [fmin], other: Tensor,
            cost: 1, simd: [], float: |a, b| T::fmin(a, b),
            int: |a, b| a.min(b), bool: |a, b| a & b,
            grad: [a: |g, a, b| rules::fmaxmin(g, a, b, false, true);
                   b: |g, a, b| rules::fmaxmin(g, a, b, false, false)],
            nested: true,
            doc: "Elementwise minimum of ``input`` and ``other``, ignoring NaN: where exactly one is NaN the other is taken.",
            ex: ["[1.0, float('nan'), 3.0]", "[2.0, 4.0, float('nan')]", "tensor([1., 4., 3.])"] }
        // PyTorch: 0 where input < 0 (and NaN), `values` where input == 0, 1 where > 0;
        // both tensors must have the same dtype; backward raises
        Heaviside { name: "heaviside", node: "NotImplemented", kind: Arith,
            dunders: [], methods: [heaviside / heaviside_], other: Tensor,
            cost: 1, simd: [], float: |a, b| T::heaviside(a, b),
            int: |a, b| if a == 0 { b } else { i64::from(a > 0) }, bool: |a, b| a | b,
            grad: [unimplemented], nested: true,
            doc: "Heaviside step function: 0 where ``input`` is negative, 1 where positive, ``values`` (the second operand) where it is zero.",
            ex: ["[-1.5, 0.0, 2.0]", "[0.5]", "tensor([0.0000, 0.5000, 1.0000])"] }
        Gcd { name: "gcd", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [gcd / gcd_], other: Tensor,
            cost: 16, simd: [], float: |a, _| a, int: pointwise::gcd, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0).",
            ex: ["[12, -4, 0]", "[8, 6, 5]", "tensor([4, 2, 5])"] }
        Lcm { name: "lcm", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [lcm / lcm_], other: Tensor,
            cost: 16, simd: [], float: |a, _| a, int: pointwise::lcm, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise least common multiple of integer tensors (non-negative; 0 if either is 0).",
            ex: ["[12, -4, 0]", "[8, 6, 5]", "tensor([24, 12,  0])"] }
        // PyTorch's gradient: `grad` for input, zeros for other (a one-ulp step)
        Nextafter { name: "nextafter", node: "NextafterBackward0", kind: Arith,
            dunders: [], methods: [nextafter / nextafter_], other: Tensor,
            cost: 2, simd: [], float: |a, b| T::nextafter(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [a: |g| same(g); b: |g| zeros_like(g)], nested: true,
            doc: "Returns the next representable floating-point value after ``input`` towards ``other``.",
            ex: ["[1.0, 1.0, 0.0]", "[2.0, 0.0, 1.0]", "tensor([1.0000e+00, 1.0000e+00, 1.4013e-45])"] }
        // `input * 2**other`, as PyTorch computes it (integer inputs give float32)
        Ldexp { name: "ldexp", node: "LdexpBackward0", kind: Arith,
            dunders: [], methods: [ldexp / ldexp_], other: Tensor,
            cost: 8, simd: [], float: |a, b| a * b.exp2(), int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, b| g * un(Exp2, b);
                   b: |g, a, b| g * a * std::f64::consts::LN_2 * un(Exp2, b)],
            nested: true,
            doc: "Multiplies ``input`` by 2 to the power ``other`` elementwise.",
            ex: ["[1.0, 3.0, -0.5]", "[2, -1, 3]", "tensor([ 4.0000,  1.5000, -4.0000])"] }
        Xlogy { name: "xlogy", node: "XlogyBackward0", kind: Arith,
            dunders: [], methods: [xlogy / xlogy_], other: Number,
            cost: 16, simd: [], float: |a, b| via64(a, b, special::xlogy),
            int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| g * rules::xlogy_a(a, b); b: |g, a, b| g * a / b],
            nested: true,
            doc: "Computes ``input * log(other)`` elementwise, 0 where ``input`` is 0.",
            ex: ["[0.0, 1.0, 2.0]", "[0.0, 2.0, 3.0]", "tensor([0.0000, 0.6931, 2.1972])"] }
        // `ferric.special.xlog1py` / `zeta` (no method): called by name
        SpecialXlog1py { name: "special_xlog1py", node: "SpecialXlog1PyBackward0", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 16, simd: [], float: |a, b| via64(a, b, special::xlog1py),
            int: |a, _| a, bool: |a, _| a,
            grad: [a: |g, a, b| g * rules::xlog1py_a(a, b); b: |g, a, b| g * a / (b + 1.0)],
            nested: true,
            doc: "Computes ``input * log1p(other)``.",
            ex: [] }
        // the derivative in the order `s` is not implemented (PyTorch raises too)
        SpecialZeta { name: "special_zeta", node: "SpecialZetaBackward0", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 64, simd: [], float: |a, b| via64(a, b, special::zeta),
            int: |a, _| a, bool: |a, _| a,
            grad: [custom], nested: true,
            doc: "Hurwitz zeta function.",
            ex: [] }
        // `special.gammainc` / `gammaincc` (`igamma`, `igammac`): the gradient in `input`
        // (the shape `a`) is not implemented, as in PyTorch
        Igamma { name: "igamma", node: "IgammaBackward0", kind: Arith,
            dunders: [], methods: [igamma / igamma_], other: Tensor,
            cost: 64, simd: [], float: |a, b| via64(a, b, bessel::gammainc),
            int: |a, _| a, bool: |a, _| a,
            grad: [custom], nested: false,
            doc: "Regularized lower incomplete gamma function P(input, other).",
            ex: ["[1.0, 2.0, 3.0]", "[0.5, 1.0, 4.0]", "tensor([0.3935, 0.2642, 0.7619])"] }
        Igammac { name: "igammac", node: "IgammacBackward0", kind: Arith,
            dunders: [], methods: [igammac / igammac_], other: Tensor,
            cost: 64, simd: [], float: |a, b| via64(a, b, bessel::gammaincc),
            int: |a, _| a, bool: |a, _| a,
            grad: [custom], nested: false,
            doc: "Regularized upper incomplete gamma function Q(input, other).",
            ex: ["[1.0, 2.0, 3.0]", "[0.5, 1.0, 4.0]", "tensor([0.6065, 0.7358, 0.2381])"] }
        // The orthogonal polynomials `p(x, n)` (no gradient in PyTorch), evaluated in the
        // element type with PyTorch's algorithm (`kernels::poly`); called by name
        SpecialChebyshevT { name: "special_chebyshev_polynomial_t", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::chebyshev_t(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Chebyshev polynomial of the first kind T_n(input).",
            ex: [] }
        SpecialChebyshevU { name: "special_chebyshev_polynomial_u", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::chebyshev_u(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Chebyshev polynomial of the second kind U_n(input).",
            ex: [] }
        SpecialChebyshevV { name: "special_chebyshev_polynomial_v", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::chebyshev_v(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Chebyshev polynomial of the third kind V_n(input).",
            ex: [] }
        SpecialChebyshevW { name: "special_chebyshev_polynomial_w", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::chebyshev_w(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Chebyshev polynomial of the fourth kind W_n(input).",
            ex: [] }
        SpecialShiftedChebyshevT { name: "special_shifted_chebyshev_polynomial_t", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::shifted_chebyshev_t(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Shifted Chebyshev polynomial of the first kind T*_n(input).",
            ex: [] }
        SpecialShiftedChebyshevU { name: "special_shifted_chebyshev_polynomial_u", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::shifted_chebyshev_u(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Shifted Chebyshev polynomial of the second kind U*_n(input).",
            ex: [] }
        SpecialShiftedChebyshevV { name: "special_shifted_chebyshev_polynomial_v", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::shifted_chebyshev_v(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Shifted Chebyshev polynomial of the third kind V*_n(input).",
            ex: [] }
        SpecialShiftedChebyshevW { name: "special_shifted_chebyshev_polynomial_w", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::shifted_chebyshev_w(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Shifted Chebyshev polynomial of the fourth kind W*_n(input).",
            ex: [] }
        SpecialHermiteH { name: "special_hermite_polynomial_h", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::hermite_h(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Physicists' Hermite polynomial H_n(input).",
            ex: [] }
        SpecialHermiteHe { name: "special_hermite_polynomial_he", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::hermite_he(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Probabilists' Hermite polynomial He_n(input).",
            ex: [] }
        SpecialLaguerreL { name: "special_laguerre_polynomial_l", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::laguerre_l(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Laguerre polynomial L_n(input).",
            ex: [] }
        SpecialLegendreP { name: "special_legendre_polynomial_p", node: "NotDifferentiable", kind: Arith,
            dunders: [], methods: [], other: Number,
            cost: 32, simd: [], float: |a, b| poly::legendre_p(a, b),
            int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: false,
            doc: "Legendre polynomial P_n(input).",
            ex: [] }
        Eq { name: "eq", node: "NotDifferentiable", kind: Compare,
            dunders: [], methods: [eq], other: Number,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise ``input == other``, as a bool tensor.",
            ex: ["[1.0, 2.0, 3.0]", "[1.0, 5.0, 2.0]", "tensor([ True, False, False])"] }
        Ne { name: "ne", node: "NotDifferentiable", kind: Compare,
            dunders: [], methods: [ne, not_equal], other: Number,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise ``input != other``, as a bool tensor.",
            ex: ["[1.0, 2.0, 3.0]", "[1.0, 5.0, 2.0]", "tensor([False,  True,  True])"] }
        Lt { name: "lt", node: "NotDifferentiable", kind: Compare,
            dunders: [], methods: [lt, less], other: Number,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise ``input < other``, as a bool tensor.",
            ex: ["[1.0, 2.0, 3.0]", "[1.0, 5.0, 2.0]", "tensor([False,  True, False])"] }
        Le { name: "le", node: "NotDifferentiable", kind: Compare,
            dunders: [], methods: [le, less_equal], other: Number,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise ``input <= other``, as a bool tensor.",
            ex: ["[1.0, 2.0, 3.0]", "[1.0, 5.0, 2.0]", "tensor([ True,  True, False])"] }
        Gt { name: "gt", node: "NotDifferentiable", kind: Compare,
            dunders: [], methods: [gt, greater], other: Number,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise ``input > other``, as a bool tensor.",
            ex: ["[1.0, 2.0, 3.0]", "[1.0, 5.0, 2.0]", "tensor([False, False,  True])"] }
        Ge { name: "ge", node: "NotDifferentiable", kind: Compare,
            dunders: [], methods: [ge, greater_equal], other: Number,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise ``input >= other``, as a bool tensor.",
            ex: ["[1.0, 2.0, 3.0]", "[1.0, 5.0, 2.0]", "tensor([ True, False,  True])"] }
        LogicalAnd { name: "logical_and", node: "NotDifferentiable", kind: Logical,
            dunders: [], methods: [logical_and / logical_and_], other: Tensor,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise logical AND; nonzero elements count as True.",
            ex: ["[True, True, False]", "[True, False, False]", "tensor([ True, False, False])"] }
        LogicalOr { name: "logical_or", node: "NotDifferentiable", kind: Logical,
            dunders: [], methods: [logical_or / logical_or_], other: Tensor,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise logical OR; nonzero elements count as True.",
            ex: ["[True, True, False]", "[True, False, False]", "tensor([ True,  True, False])"] }
        LogicalXor { name: "logical_xor", node: "NotDifferentiable", kind: Logical,
            dunders: [], methods: [logical_xor], other: Tensor,
            cost: 1, simd: [], float: |a, _| a, int: |a, _| a, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Elementwise logical XOR; nonzero elements count as True.",
            ex: ["[True, True, False]", "[True, False, False]", "tensor([False,  True, False])"] }
        BitAnd { name: "bitwise_and", node: "NotDifferentiable", kind: Bitwise,
            dunders: [__and__ __rand__ __iand__], methods: [bitwise_and], other: Number,
            cost: 8, simd: [], float: |a, _| a, int: |a, b| a & b, bool: |a, b| a & b,
            grad: [none], nested: true,
            doc: "Elementwise bitwise AND of integer or bool tensors.",
            ex: ["[12, 10, 7]", "[10, 6, 1]", "tensor([8, 2, 1])"] }
        BitOr { name: "bitwise_or", node: "NotDifferentiable", kind: Bitwise,
            dunders: [__or__ __ror__ __ior__], methods: [bitwise_or], other: Number,
            cost: 8, simd: [], float: |a, _| a, int: |a, b| a | b, bool: |a, b| a | b,
            grad: [none], nested: true,
            doc: "Elementwise bitwise OR of integer or bool tensors.",
            ex: ["[12, 10, 7]", "[10, 6, 1]", "tensor([14, 14,  7])"] }
        BitXor { name: "bitwise_xor", node: "NotDifferentiable", kind: Bitwise,
            dunders: [__xor__ __rxor__ __ixor__], methods: [bitwise_xor], other: Number,
            cost: 8, simd: [], float: |a, _| a, int: |a, b| a ^ b, bool: |a, b| a ^ b,
            grad: [none], nested: true,
            doc: "Elementwise bitwise XOR of integer or bool tensors.",
            ex: ["[12, 10, 7]", "[10, 6, 1]", "tensor([ 6, 12,  6])"] }
        // shift counts out of range (negative, or at least the bit width) give 0 (left)
        // or the sign fill (right), as PyTorch's kernels do
        LeftShift { name: "bitwise_left_shift", node: "NotDifferentiable", kind: Bitwise,
            dunders: [__lshift__ __rlshift__ __ilshift__],
            methods: [bitwise_left_shift / bitwise_left_shift_], other: Number,
            cost: 8, simd: [], float: |a, _| a, int: pointwise::shl, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Shifts the bits of the integer tensor ``input`` left by ``other`` bits.",
            ex: ["[1, -3, 5]", "[2, 1, 0]", "tensor([ 4, -6,  5])"] }
        RightShift { name: "bitwise_right_shift", node: "NotDifferentiable", kind: Bitwise,
            dunders: [__rshift__ __rrshift__ __irshift__],
            methods: [bitwise_right_shift / bitwise_right_shift_], other: Number,
            cost: 8, simd: [], float: |a, _| a, int: pointwise::shr, bool: |a, _| a,
            grad: [none], nested: true,
            doc: "Shifts the bits of the integer tensor ``input`` right by ``other`` bits (arithmetic shift).",
            ex: ["[16, -16, 5]", "[2, 2, 0]", "tensor([ 4, -4,  5])"] }
    } };
}

pub(crate) use binary_table;
