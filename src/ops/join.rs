//! The join op family.
