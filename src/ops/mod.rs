//! Tensor ops, one file per family. Each op validates its inputs, then calls a kernel.

pub mod binary;
pub mod binary_table;
pub mod compute;
pub mod config;
pub mod conv;
pub mod index;
pub mod indexing;
pub mod join;
pub mod linalg;
pub mod matmul;
pub mod movement;
pub mod nn;
pub mod optim;
pub mod random;
pub mod reduce;
pub mod reduce_table;
pub mod search;
pub mod sort;
pub mod special;
pub mod table;
pub mod unary;
