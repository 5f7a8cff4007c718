//! Type spelling for the scalar-or-vector f32 kernels that `strata-expand-bf16` and
//! `strata-approximate-math` write as MLIR text: one kernel text serves `f32` and every
//! `vector<...xf32>`.

/// `ty` with its element type replaced: `f32` -> `elem`, `vector<4x8xf32>` -> `vector<4x8xelem>`;
/// `None` for any other type.
pub(crate) fn with_element(ty: &str, elem: &str) -> Option<String> {
    if ty == "f32" {
        return Some(elem.to_owned());
    }
    let shape = ty.strip_prefix("vector<")?.strip_suffix("xf32>")?;
    Some(format!("vector<{shape}x{elem}>"))
}

/// The `arith.constant` operand text of `value` in `ty`: a splat for a vector type.
pub(crate) fn splat(value: &str, ty: &str) -> String {
    if ty.starts_with("vector<") {
        format!("dense<{value}> : {ty}")
    } else {
        format!("{value} : {ty}")
    }
}
