//! The op tables: one row per elementwise op, the single place an op is declared.
//!
//! Each table is a macro that hands its rows to a consumer macro (`unary_table!(m)`
//! expands `m! { rows }`), so every layer reads the fields it needs from the same rows:
//!
//! * `ops::unary` builds the `UnaryOp` enum, `name()`, the cost hint, the vector kernel
//!   choice, the per-type scalar function and the integer/bool dtype rules;
//! * `autograd::pointwise` builds the backward rules and which values they save;
//! * `python::arith` registers the Python methods, their in-place `_` variants and the
//!   module-level functions, and exports the rows to Python
//!   (`ferric._core._op_table()`), where nested tensors and the tests read their name
//!   lists instead of keeping copies.
//!
//! Fields of a unary row:
//! * `name`: PyTorch's op name (error messages, node names `<Name>Backward0`);
//! * `methods`: Python method names, `name / name_` when an in-place form exists; the
//!   first is the function name, the rest are aliases. Every method is also a module
//!   function (`ferric.tanh`); `fn_inplace` says whether the in-place form is too
//!   (`ferric.tanh_`);
//! * `cost`: rough work per element relative to an add (parallel-split threshold);
//! * `simd`: the `kernels::simd::Unary` vector kernel, if any;
//! * `float`: the scalar function (`T` is the element type, `f32` or `f64`);
//! * `ints` / `bools`: what integer / bool inputs do (`ops::unary::OnInt`, `OnBool`);
//! * `grad`: the backward rule, written as a formula over the incoming gradient `g`
//!   and either the saved input `x` or the saved output `y` (which one the rule names
//!   is what backward saves); `none` for ops without a gradient. Complex rules call a
//!   named function in `autograd::pointwise::rules`;
//! * `nested`: whether nested tensors apply it to their packed values;
//! * `doc`: one sentence saying what the op computes, and `ex`: an example input and
//!   the output ferric prints for it (`[]` for rows without methods). `python::arith`
//!   builds the docstrings of the function, the method, the in-place `_` form and the
//!   aliases from them (signature line, `doc`, `Args:`, `Example:`); the examples run as
//!   doctests in `tests/test_docstrings.py`.

/// Elementwise unary math (`ferric.exp`, `Tensor.tanh_`, ...) and predicates
/// (`isnan`, ...); see the module docs.
macro_rules! unary_table {
    ($m:ident) => { $m! { math: [
        Neg { name: "neg", methods: [neg / neg_, negative / negative_], fn_inplace: false,
            cost: 1, simd: [Neg], float: |x| -x,
            ints: Map(|v| v.wrapping_neg()), bools: Runtime(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are \
                 trying to invert a mask, use the `~` or `logical_not()` operator instead."),
            grad: [|g| -g], nested: true,
            doc: "Returns the negative of each element of ``input``.",
            ex: ["[1.5, -2.0, 0.0]", "tensor([-1.5000,  2.0000, -0.0000])"] }
        Abs { name: "abs", methods: [abs / abs_, absolute / absolute_], fn_inplace: false,
            cost: 1, simd: [Abs], float: |x| x.abs(),
            ints: Map(|v| v.wrapping_abs()), bools: Kernel("abs_cpu"),
            grad: [|g, x| g * un(Sign, x)], nested: true,
            doc: "Returns the absolute value of each element of ``input``.",
            ex: ["[-1.5, 2.0, -0.0]", "tensor([1.5000, 2.0000, 0.0000])"] }
        Sign { name: "sign", methods: [sign / sign_], fn_inplace: false,
            cost: 1, simd: [], float: |x| sign(x),
            ints: Map(|v| v.signum()), bools: Copy,
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Returns the sign (-1, 0 or 1) of each element of ``input``.",
            ex: ["[-1.5, 0.0, 2.0]", "tensor([-1.,  0.,  1.])"] }
        // `sgn` is `sign` for real tensors (its own node: SgnBackward0)
        Sgn { name: "sgn", methods: [sgn / sgn_], fn_inplace: false,
            cost: 1, simd: [], float: |x| sign(x),
            ints: Map(|v| v.signum()), bools: Copy,
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Returns the sign (-1, 0 or 1) of each element; for real tensors the same as :func:`ferric.sign`.",
            ex: ["[-1.5, 0.0, 2.0]", "tensor([-1.,  0.,  1.])"] }
        // the argument of a real number: pi for negative elements, NaN stays NaN
        Angle { name: "angle", methods: [angle], fn_inplace: false,
            cost: 1, simd: [],
            float: |x| if x.is_nan() { x } else if x < 0.0 { std::f64::consts::PI as T } else { 0.0 },
            ints: Float, bools: Float,
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Returns the angle (argument) of each element: pi for negative real elements, 0 otherwise.",
            ex: ["[-1.5, 0.0, 2.0]", "tensor([3.1416, 0.0000, 0.0000])"] }
        Floor { name: "floor", methods: [floor / floor_], fn_inplace: false,
            cost: 1, simd: [], float: |x| x.floor(),
            ints: Copy, bools: Kernel("floor_vml_cpu"),
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Returns the largest integer not greater than each element, in ``input``'s dtype.",
            ex: ["[-1.5, 0.5, 2.0]", "tensor([-2.,  0.,  2.])"] }
        Ceil { name: "ceil", methods: [ceil / ceil_], fn_inplace: false,
            cost: 1, simd: [], float: |x| x.ceil(),
            ints: Copy, bools: Kernel("ceil_vml_cpu"),
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Returns the smallest integer not less than each element, in ``input``'s dtype.",
            ex: ["[-1.5, 0.5, 2.0]", "tensor([-1.,  1.,  2.])"] }
        // `round(decimals=)` has its own binding; the row gives the kernel and the rule
        Round { name: "round", methods: [], fn_inplace: false,
            cost: 1, simd: [], float: |x| x.round_ties_even(),
            ints: Copy, bools: Kernel("round_vml_cpu"),
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Rounds each element to the nearest integer, halves to even.",
            ex: [] }
        Trunc { name: "trunc", methods: [trunc / trunc_, fix / fix_], fn_inplace: false,
            cost: 1, simd: [], float: |x| x.trunc(),
            ints: Copy, bools: Kernel("trunc_vml_cpu"),
            grad: [|g| zeros_like(g)], nested: true,
            doc: "Returns the integer part of each element, rounded towards zero.",
            ex: ["[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])"] }
        Frac { name: "frac", methods: [frac / frac_], fn_inplace: false,
            cost: 1, simd: [], float: |x| x - x.trunc(),
            ints: Kernel("frac_cpu"), bools: Kernel("frac_cpu"),
            grad: [|g| same(g)], nested: true,
            doc: "Returns the fractional part of each element: ``input - trunc(input)``.",
            ex: ["[-1.5, 0.25, 2.75]", "tensor([-0.5000,  0.2500,  0.7500])"] }
        Exp { name: "exp", methods: [exp / exp_], fn_inplace: true,
            cost: 4, simd: [Exp], float: |x| x.exp(),
            ints: Float, bools: Float,
            grad: [|g, y| g * y], nested: true,
            doc: "Returns the exponential of each element.",
            ex: ["[0.0, 1.0, -1.0]", "tensor([1.0000, 2.7183, 0.3679])"] }
        Exp2 { name: "exp2", methods: [exp2 / exp2_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.exp2(),
            ints: Float, bools: Float,
            grad: [|g, y| g * y * LN_2], nested: true,
            doc: "Returns 2 raised to the power of each element.",
            ex: ["[0.0, 1.0, -1.0]", "tensor([1.0000, 2.0000, 0.5000])"] }
        Expm1 { name: "expm1", methods: [expm1 / expm1_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.exp_m1(),
            ints: Float, bools: Float,
            grad: [|g, y| g * (y + 1.0)], nested: true,
            doc: "Returns ``exp(x) - 1`` of each element, accurate for small ``x``.",
            ex: ["[0.0, 1e-05, 1.0]", "tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])"] }
        Log { name: "log", methods: [log / log_], fn_inplace: false,
            cost: 4, simd: [Log], float: |x| x.ln(),
            ints: Float, bools: Float,
            grad: [|g, x| g / x], nested: true,
            doc: "Returns the natural logarithm of each element (NaN for negative elements).",
            ex: ["[1.0, 2.0, 10.0]", "tensor([0.0000, 0.6931, 2.3026])"] }
        Log2 { name: "log2", methods: [log2 / log2_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.log2(),
            ints: Float, bools: Float,
            grad: [|g, x| g / (x * LN_2)], nested: true,
            doc: "Returns the base-2 logarithm of each element.",
            ex: ["[1.0, 2.0, 10.0]", "tensor([0.0000, 1.0000, 3.3219])"] }
        Log10 { name: "log10", methods: [log10 / log10_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.log10(),
            ints: Float, bools: Float,
            grad: [|g, x| g / (x * LN_10)], nested: true,
            doc: "Returns the base-10 logarithm of each element.",
            ex: ["[1.0, 2.0, 10.0]", "tensor([0.0000, 0.3010, 1.0000])"] }
        Log1p { name: "log1p", methods: [log1p / log1p_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.ln_1p(),
            ints: Float, bools: Float,
            grad: [|g, x| g / (x + 1.0)], nested: true,
            doc: "Returns ``log(1 + x)`` of each element, accurate for small ``x``.",
            ex: ["[0.0, 1e-05, 1.0]", "tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])"] }
        Sqrt { name: "sqrt", methods: [sqrt / sqrt_], fn_inplace: false,
            cost: 2, simd: [Sqrt], float: |x| x.sqrt(),
            ints: Float, bools: Float,
            grad: [|g, y| g / (y * 2.0)], nested: true,
            doc: "Returns the square root of each element (NaN for negative elements).",
            ex: ["[0.0, 2.0, 9.0]", "tensor([0.0000, 1.4142, 3.0000])"] }
        Rsqrt { name: "rsqrt", methods: [rsqrt / rsqrt_], fn_inplace: false,
            cost: 2, simd: [Rsqrt], float: |x| 1.0 / x.sqrt(),
            ints: Float, bools: Float,
            grad: [|g, y| g * (y * y * y) * -0.5], nested: true,
            doc: "Returns the reciprocal of the square root of each element.",
            ex: ["[0.25, 2.0, 9.0]", "tensor([2.0000, 0.7071, 0.3333])"] }
        Square { name: "square", methods: [square / square_], fn_inplace: false,
            cost: 1, simd: [Square], float: |x| x * x,
            ints: Map(|v| v.wrapping_mul(v)), bools: Int,
            grad: [|g, x| g * x * 2.0], nested: true,
            doc: "Returns the square of each element.",
            ex: ["[-1.5, 2.0, 3.0]", "tensor([2.2500, 4.0000, 9.0000])"] }
        Reciprocal { name: "reciprocal", methods: [reciprocal / reciprocal_], fn_inplace: false,
            cost: 2, simd: [Reciprocal], float: |x| 1.0 / x,
            ints: Float, bools: Float,
            grad: [|g, y| -(g * (y * y))], nested: true,
            doc: "Returns ``1 / x`` of each element; integer inputs give a float result.",
            ex: ["[0.5, 2.0, -4.0]", "tensor([ 2.0000,  0.5000, -0.2500])"] }
        Sin { name: "sin", methods: [sin / sin_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.sin(),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Cos, x)], nested: true,
            doc: "Returns the sine of each element (in radians).",
            ex: ["[0.0, 1.0, 3.0]", "tensor([0.0000, 0.8415, 0.1411])"] }
        Cos { name: "cos", methods: [cos / cos_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.cos(),
            ints: Float, bools: Float,
            grad: [|g, x| -(g * un(Sin, x))], nested: true,
            doc: "Returns the cosine of each element (in radians).",
            ex: ["[0.0, 1.0, 3.0]", "tensor([ 1.0000,  0.5403, -0.9900])"] }
        Tan { name: "tan", methods: [tan / tan_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.tan(),
            ints: Float, bools: Float,
            grad: [|g, y| g * (y * y + 1.0)], nested: true,
            doc: "Returns the tangent of each element (in radians).",
            ex: ["[0.0, 1.0, 3.0]", "tensor([ 0.0000,  1.5574, -0.1425])"] }
        Asin { name: "asin", methods: [asin / asin_, arcsin / arcsin_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.asin(),
            ints: Float, bools: Float,
            grad: [|g, x| g / un(Sqrt, 1.0 - x * x)], nested: true,
            doc: "Returns the arcsine of each element (NaN outside [-1, 1]).",
            ex: ["[-1.0, 0.0, 0.5]", "tensor([-1.5708,  0.0000,  0.5236])"] }
        Acos { name: "acos", methods: [acos / acos_, arccos / arccos_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.acos(),
            ints: Float, bools: Float,
            grad: [|g, x| -(g / un(Sqrt, 1.0 - x * x))], nested: true,
            doc: "Returns the arccosine of each element (NaN outside [-1, 1]).",
            ex: ["[-1.0, 0.0, 0.5]", "tensor([3.1416, 1.5708, 1.0472])"] }
        Atan { name: "atan", methods: [atan / atan_, arctan / arctan_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.atan(),
            ints: Float, bools: Float,
            grad: [|g, x| g / (x * x + 1.0)], nested: true,
            doc: "Returns the arctangent of each element.",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([-0.7854,  0.0000,  1.1071])"] }
        Deg2rad { name: "deg2rad", methods: [deg2rad / deg2rad_], fn_inplace: true,
            cost: 1, simd: [], float: |x| x * (std::f64::consts::PI / 180.0) as T,
            ints: Float, bools: Float,
            grad: [|g| g * (PI / 180.0)], nested: true,
            doc: "Converts each element from degrees to radians.",
            ex: ["[180.0, 90.0, -45.0]", "tensor([ 3.1416,  1.5708, -0.7854])"] }
        Rad2deg { name: "rad2deg", methods: [rad2deg / rad2deg_], fn_inplace: true,
            cost: 1, simd: [], float: |x| x * (180.0 / std::f64::consts::PI) as T,
            ints: Float, bools: Float,
            grad: [|g| g * (180.0 / PI)], nested: true,
            doc: "Converts each element from radians to degrees.",
            ex: ["[3.14159265, 1.0, -0.5]", "tensor([180.0000,  57.2958, -28.6479])"] }
        Asinh { name: "asinh", methods: [asinh / asinh_, arcsinh / arcsinh_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.asinh(),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Rsqrt, x * x + 1.0)], nested: true,
            doc: "Returns the inverse hyperbolic sine of each element.",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([-0.8814,  0.0000,  1.4436])"] }
        Acosh { name: "acosh", methods: [acosh / acosh_, arccosh / arccosh_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.acosh(),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Rsqrt, x * x - 1.0)], nested: true,
            doc: "Returns the inverse hyperbolic cosine of each element (NaN below 1).",
            ex: ["[1.0, 2.0, 5.0]", "tensor([0.0000, 1.3170, 2.2924])"] }
        Atanh { name: "atanh", methods: [atanh / atanh_, arctanh / arctanh_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.atanh(),
            ints: Float, bools: Float,
            grad: [|g, x| g / (1.0 - x * x)], nested: true,
            doc: "Returns the inverse hyperbolic tangent of each element (NaN outside [-1, 1]).",
            ex: ["[-0.5, 0.0, 0.5]", "tensor([-0.5493,  0.0000,  0.5493])"] }
        Sinh { name: "sinh", methods: [sinh / sinh_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.sinh(),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Cosh, x)], nested: true,
            doc: "Returns the hyperbolic sine of each element.",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([-1.1752,  0.0000,  3.6269])"] }
        Cosh { name: "cosh", methods: [cosh / cosh_], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.cosh(),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Sinh, x)], nested: true,
            doc: "Returns the hyperbolic cosine of each element.",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([1.5431, 1.0000, 3.7622])"] }
        Tanh { name: "tanh", methods: [tanh / tanh_], fn_inplace: true,
            cost: 4, simd: [Tanh], float: |x| x.tanh(),
            ints: Float, bools: Float,
            grad: [|g, y| g * (1.0 - y * y)], nested: true,
            doc: "Returns the hyperbolic tangent of each element.",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([-0.7616,  0.0000,  0.9640])"] }
        Sigmoid { name: "sigmoid", methods: [sigmoid / sigmoid_], fn_inplace: true,
            cost: 4, simd: [Sigmoid], float: |x| 1.0 / (1.0 + (-x).exp()),
            ints: Float, bools: Float,
            grad: [|g, y| g * (y * (1.0 - y))], nested: true,
            doc: "Returns the logistic sigmoid ``1 / (1 + exp(-x))`` of each element.",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([0.2689, 0.5000, 0.8808])"] }
        // log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable both ways
        LogSigmoid { name: "logsigmoid", methods: [], fn_inplace: false,
            cost: 16, simd: [], float: |x| x.min(0.0) - (-x.abs()).exp().ln_1p(),
            ints: Kernel("log_sigmoid_cpu"), bools: Kernel("log_sigmoid_cpu"),
            grad: [|g, x| g * un(Sigmoid, -x)], nested: true,
            doc: "Returns ``log(sigmoid(x))`` of each element, computed without overflow.",
            ex: [] }
        // PyTorch's relu keeps NaN and -0
        Relu { name: "relu", methods: [relu / relu_], fn_inplace: true,
            cost: 1, simd: [Relu], float: |x| if x < 0.0 { 0.0 } else { x },
            ints: Map(|v| v.max(0)), bools: NotImplemented("Boolean inputs not supported for relu"),
            grad: [|g, y| rules::relu(g, y)], nested: true,
            doc: "Returns ``max(x, 0)`` of each element (NaN stays NaN).",
            ex: ["[-1.0, 0.0, 2.0]", "tensor([0., 0., 2.])"] }
        // x Phi(x) through erfc: no cancellation for negative x
        Gelu { name: "gelu", methods: [], fn_inplace: false,
            cost: 8, simd: [Gelu],
            float: |x| 0.5 * x * T::erfc_(-x * std::f64::consts::FRAC_1_SQRT_2 as T),
            ints: Kernel("GeluKernelImpl"), bools: Kernel("GeluKernelImpl"),
            grad: [|g, x| rules::gelu(g, x)], nested: true,
            doc: "Gaussian error linear unit.",
            ex: [] }
        // 0.5 x (1 + tanh(y)) = x sigmoid(2y), again without cancellation
        GeluTanh { name: "gelu", methods: [], fn_inplace: false,
            cost: 8, simd: [GeluTanh],
            float: |x| {
                let k = (2.0 / std::f64::consts::PI).sqrt() as T;
                x / (1.0 + (-2.0 * k * (x + 0.044715 * x * x * x)).exp())
            },
            ints: Kernel("GeluKernelImpl"), bools: Kernel("GeluKernelImpl"),
            grad: [|g, x| rules::gelu_tanh(g, x)], nested: true,
            doc: "Gaussian error linear unit.",
            ex: [] }
        Silu { name: "silu", methods: [], fn_inplace: false,
            cost: 4, simd: [Silu], float: |x| x / (1.0 + (-x).exp()),
            ints: Kernel("silu_cpu"), bools: Kernel("silu_cpu"),
            grad: [|g, x| rules::silu(g, x)], nested: true,
            doc: "Sigmoid linear unit ``x * sigmoid(x)``.",
            ex: [] }
        Mish { name: "mish", methods: [], fn_inplace: false,
            cost: 16, simd: [], float: |x| x * softplus_(x, 1.0, 20.0).tanh(),
            ints: Kernel("mish_cpu"), bools: Kernel("mish_cpu"),
            grad: [|g, x| rules::mish(g, x)], nested: true,
            doc: "Mish activation ``x * tanh(softplus(x))``.",
            ex: [] }
        Erf { name: "erf", methods: [erf / erf_], fn_inplace: false,
            cost: 8, simd: [Erf], float: |x| T::erf_(x),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Exp, -(x * x)) * (2.0 / PI.sqrt())], nested: true,
            doc: "Returns the error function of each element.",
            ex: ["[-1.0, 0.0, 0.5]", "tensor([-0.8427,  0.0000,  0.5205])"] }
        Erfc { name: "erfc", methods: [erfc / erfc_], fn_inplace: false,
            cost: 16, simd: [], float: |x| T::erfc_(x),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Exp, -(x * x)) * -(2.0 / PI.sqrt())], nested: true,
            doc: "Returns the complementary error function ``1 - erf(x)`` of each element.",
            ex: ["[-1.0, 0.0, 0.5]", "tensor([1.8427, 1.0000, 0.4795])"] }
        // Special functions (`kernels::special`, float64 inside; float32 rounds once).
        // Rows named `special_*` have no method: `ferric.special` calls them by name.
        Lgamma { name: "lgamma", methods: [lgamma / lgamma_], fn_inplace: false,
            cost: 32, simd: [], float: |x| via64(x, special::lgamma),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(Digamma, x)], nested: true,
            doc: "Returns the natural logarithm of the absolute value of the gamma function of each element.",
            ex: ["[0.5, 1.0, 4.0]", "tensor([0.5724, 0.0000, 1.7918])"] }
        Digamma { name: "digamma", methods: [digamma / digamma_], fn_inplace: false,
            cost: 32, simd: [], float: |x| via64(x, special::digamma),
            ints: Float, bools: Float,
            grad: [|g, x| rules::digamma(g, x)], nested: true,
            doc: "Returns the logarithmic derivative of the gamma function of each element.",
            ex: ["[0.5, 1.0, 4.0]", "tensor([-1.9635, -0.5772,  1.2561])"] }
        Erfinv { name: "erfinv", methods: [erfinv / erfinv_], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::erfinv),
            ints: Float, bools: Float,
            grad: [|g, y| un(Exp, y * y) * (0.5 * PI.sqrt()) * g], nested: true,
            doc: "Returns the inverse error function of each element (defined on (-1, 1)).",
            ex: ["[-0.5, 0.0, 0.5]", "tensor([-0.4769,  0.0000,  0.4769])"] }
        I0 { name: "i0", methods: [i0 / i0_], fn_inplace: true,
            cost: 64, simd: [], float: |x| via64(x, special::i0),
            ints: Float, bools: Float,
            grad: [|g, x| g * un(SpecialI1, x)], nested: true,
            doc: "Returns the zeroth-order modified Bessel function of the first kind of each element.",
            ex: ["[0.0, 1.0, 2.0]", "tensor([1.0000, 1.2661, 2.2796])"] }
        Sinc { name: "sinc", methods: [sinc / sinc_], fn_inplace: true,
            cost: 16, simd: [], float: |x| via64(x, special::sinc),
            ints: Float, bools: Float,
            grad: [|g, x| rules::sinc(g, x)], nested: true,
            doc: "Returns the normalized sinc ``sin(pi x) / (pi x)`` of each element (1 at 0).",
            ex: ["[0.0, 0.5, 1.0]", "tensor([1.0000e+00, 6.3662e-01, 3.8982e-17])"] }
        SpecialEntr { name: "special_entr", methods: [], fn_inplace: false,
            cost: 16, simd: [], float: |x| via64(x, special::entr),
            ints: Float, bools: Float,
            grad: [|g, x| g * -(1.0 + un(Log, x))], nested: true,
            doc: "Elementwise entropy ``-x log(x)``.",
            ex: [] }
        SpecialNdtri { name: "special_ndtri", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::ndtri),
            ints: Float, bools: Float,
            grad: [|g, y| g * (2.0 * PI).sqrt() * un(Exp, y * y * 0.5)], nested: true,
            doc: "Inverse of the standard normal CDF.",
            ex: [] }
        SpecialLogNdtr { name: "special_log_ndtr", methods: [], fn_inplace: false,
            cost: 32, simd: [], float: |x| via64(x, special::log_ndtr),
            ints: Float, bools: Float,
            grad: [|g, x| rules::log_ndtr(g, x)], nested: true,
            doc: "Log of the standard normal CDF.",
            ex: [] }
        SpecialErfcx { name: "special_erfcx", methods: [], fn_inplace: false,
            cost: 32, simd: [], float: |x| via64(x, special::erfcx),
            ints: Float, bools: Float,
            grad: [|g, x| rules::erfcx(g, x)], nested: true,
            doc: "Scaled complementary error function ``exp(x**2) erfc(x)``.",
            ex: [] }
        SpecialI0e { name: "special_i0e", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::i0e),
            ints: Float, bools: Float,
            grad: [|g, x| rules::i0e(g, x)], nested: true,
            doc: "Exponentially scaled modified Bessel function of order 0.",
            ex: [] }
        SpecialI1 { name: "special_i1", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::i1),
            ints: Float, bools: Float,
            grad: [|g, x| rules::i1(g, x)], nested: true,
            doc: "Modified Bessel function of the first kind of order 1.",
            ex: [] }
        SpecialI1e { name: "special_i1e", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::i1e),
            ints: Float, bools: Float,
            grad: [|g, x| rules::i1e(g, x)], nested: true,
            doc: "Exponentially scaled modified Bessel function of order 1.",
            ex: [] }
        // Bessel-type functions PyTorch does not differentiate (outputs never require
        // grad) and has no float16 / bfloat16 kernel for (`ops::unary::no_half_kernel`)
        SpecialAiryAi { name: "special_airy_ai", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::airy_ai),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Airy function Ai.",
            ex: [] }
        SpecialBesselJ0 { name: "special_bessel_j0", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::j0),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Bessel function of the first kind of order 0.",
            ex: [] }
        SpecialBesselJ1 { name: "special_bessel_j1", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::j1),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Bessel function of the first kind of order 1.",
            ex: [] }
        SpecialBesselY0 { name: "special_bessel_y0", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::y0),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Bessel function of the second kind of order 0.",
            ex: [] }
        SpecialBesselY1 { name: "special_bessel_y1", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::y1),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Bessel function of the second kind of order 1.",
            ex: [] }
        SpecialModifiedBesselI0 { name: "special_modified_bessel_i0", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::i0),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Modified Bessel function of the first kind of order 0.",
            ex: [] }
        SpecialModifiedBesselI1 { name: "special_modified_bessel_i1", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, special::i1),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Modified Bessel function of the first kind of order 1.",
            ex: [] }
        SpecialModifiedBesselK0 { name: "special_modified_bessel_k0", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::k0),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Modified Bessel function of the second kind of order 0.",
            ex: [] }
        SpecialModifiedBesselK1 { name: "special_modified_bessel_k1", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::k1),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Modified Bessel function of the second kind of order 1.",
            ex: [] }
        SpecialScaledModifiedBesselK0 { name: "special_scaled_modified_bessel_k0", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::k0e),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Exponentially scaled modified Bessel function of the second kind of order 0.",
            ex: [] }
        SpecialScaledModifiedBesselK1 { name: "special_scaled_modified_bessel_k1", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::k1e),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Exponentially scaled modified Bessel function of the second kind of order 1.",
            ex: [] }
        SpecialSphericalBesselJ0 { name: "special_spherical_bessel_j0", methods: [], fn_inplace: false,
            cost: 64, simd: [], float: |x| via64(x, bessel::spherical_j0),
            ints: Float, bools: Float,
            grad: [none], nested: false,
            doc: "Spherical Bessel function of the first kind of order 0.",
            ex: [] }
    ]
    // Predicates: bool results, no gradient, no in-place form. `test` is the float
    // test; `other` the answer for every integer or bool element; `doc` / `ex` as for
    // the math rows. Nested: yes.
    predicates: [
        IsNan { name: isnan, test: |v| v.is_nan(), other: false,
            doc: "Returns a bool tensor that is True where ``input`` is NaN.",
            ex: ["[1.0, float('nan'), float('inf')]", "tensor([False,  True, False])"] }
        IsInf { name: isinf, test: |v| v.is_infinite(), other: false,
            doc: "Returns a bool tensor that is True where ``input`` is positive or negative infinity.",
            ex: ["[1.0, float('-inf'), float('inf')]", "tensor([False,  True,  True])"] }
        IsPosInf { name: isposinf, test: |v| v == T::INFINITY, other: false,
            doc: "Returns a bool tensor that is True where ``input`` is positive infinity.",
            ex: ["[1.0, float('-inf'), float('inf')]", "tensor([False, False,  True])"] }
        IsNegInf { name: isneginf, test: |v| v == T::NEG_INFINITY, other: false,
            doc: "Returns a bool tensor that is True where ``input`` is negative infinity.",
            ex: ["[1.0, float('-inf'), float('inf')]", "tensor([False,  True, False])"] }
        IsFinite { name: isfinite, test: |v| v.is_finite(), other: true,
            doc: "Returns a bool tensor that is True where ``input`` is finite (not NaN or infinite).",
            ex: ["[1.0, float('nan'), float('inf')]", "tensor([ True, False, False])"] }
    ] } };
}

pub(crate) use unary_table;

// The binary table lives in its own file (`ops::binary_table`) to keep both short.
pub(crate) use crate::ops::binary_table::binary_table;
