//! Generates the typed Rust API of the `sg` dialect from `sg.irdl.mlir`.
fn main() {
    strata_irdl_gen::build("sg.irdl.mlir");
}
