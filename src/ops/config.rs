//! What the kernels chose at run time, for introspection (`ferric.show_config()`, tests).
//! The bindings read it here: they call ops, never kernels.

use crate::kernels::simd;

/// The instruction-set level the elementwise kernels run at, e.g. `"avx2+fma"`.
pub fn simd_level() -> &'static str {
    simd::level()
}

/// Every level this CPU supports, lowest first.
pub fn simd_levels() -> Vec<&'static str> {
    simd::supported().iter().map(|l| l.name()).collect()
}
