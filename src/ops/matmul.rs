//! The matmul op family.
