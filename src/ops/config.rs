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

/// `FERRIC_SIMD` as the kernels read it: `(value, level)` where `level` names the level
/// the value caps to, or None when the value names no level; `(None, None)` when unset.
pub fn simd_env() -> (Option<String>, Option<&'static str>) {
    match simd::env_cap() {
        simd::EnvCap::Unset => (None, None),
        simd::EnvCap::Cap { level, value } => (Some(value.clone()), Some(level.name())),
        simd::EnvCap::Invalid(v) => (Some(v.clone()), None),
    }
}
