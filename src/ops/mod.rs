//! Tensor ops, one file per family. Each op validates its inputs, then calls a kernel.

pub mod binary;
pub mod index;
pub mod indexing;
pub mod movement;
pub mod unary;
