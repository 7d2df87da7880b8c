//! The random op family.
