//! `strata-frontend` imports ONNX models into the `sg` dialect: protobuf decoded by prost
//! (types generated from ONNX's own `onnx.proto` by the pure-Rust `protox` compiler), static
//! shapes inferred for every value, weights attached as `dense_resource` blobs (never inline
//! text), every node located as `loc("<node name>"("model.onnx":<node index>:0))`. It never
//! lowers or optimises: it produces `sg` and nothing else.

mod attention;
mod checks;
mod composite;
mod control;
mod conv;
mod conv_transpose;
mod deform_conv;
mod det;
pub mod error;
mod expand;
mod fold;
mod grid_sample;
mod half;
mod import;
mod indexing;
mod layout;
mod legacy;
mod loops;
mod loss;
mod math;
mod ml;
mod nn;
mod ops;
mod quant;
mod recurrent;
mod resize;
mod roi_align;
mod select;
mod sequence;
mod spectral;
mod stateful;
pub mod onnx {
    //! The ONNX protobuf types (generated).
    #![allow(clippy::all, missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}
mod schemas;
mod shapes;
mod support;
mod tensor;
mod training;
mod validate;

/// The entry point of the fuzz target (`fuzz/fuzz_targets/import.rs`) and of the corpus
/// regression test.
#[doc(hidden)]
pub mod fuzzing;

#[cfg(test)]
mod tests;

pub use error::FrontendError;
pub use import::{
    import, import_owned, inline_bytes, ImportOptions, Imported, Interface, Port, DEFAULT_MAX_CONSTANT_BYTES,
};
pub use support::{shape_operands, supported_ops, OPSETS};
