//! The reduce op family.
