//! Generates the typed MLIR API of the `sg` dialect (`ops.rs`) from `sg.irdl.mlir`; the op
//! table it uses comes from `strata-sg-kinds`, generated from the same file.
fn main() {
    strata_irdl_gen::build_ops("sg.irdl.mlir");
}
