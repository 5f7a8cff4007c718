//! Generates the `sg` op table (`kinds.rs`) from the dialect's IRDL file.
fn main() {
    strata_irdl_gen::build_kinds("../sg/sg.irdl.mlir");
}
