//! How much work a module does, counted in loop iterations of its linalg ops: each op's
//! iteration space (the product of its loops' extents, read from its indexing maps and its
//! operands' static shapes), times the trips of the loops around it, summed. A convolution's
//! multiply-adds, a matmul's, an elementwise op's elements and a reduction's steps all count
//! one an iteration, but for products of 8-bit integers, whose multiply-adds count one per
//! `byte_products` ([`VNNI_BYTE_PRODUCTS`], a VNNI lane's four a step, as quantized products run
//! on every host that imports them as such; more where AMX tiles run them): a coarse measure of run time, enough to tell a model that takes tens of
//! microseconds from one that takes milliseconds, and how many kernels run (the driver
//! compiles a model of many kernels and little work for one thread: `strata_driver::compile`'s
//! `threads_for`).

use strata_ir::{Blk, Op, Val};

/// What a module's linalg ops do when it runs: their loop iterations, and how many of them
/// run (each op once per trip of the loops around it); `exact` unless some count is only a
/// lower bound (a dynamic extent, a loop whose trips are not known at compile time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    pub iterations: u64,
    pub kernels: u64,
    pub exact: bool,
}

impl Default for Work {
    fn default() -> Work {
        Work { iterations: 0, kernels: 0, exact: true }
    }
}

impl Work {
    fn add(self, other: Work) -> Work {
        Work {
            iterations: self.iterations.saturating_add(other.iterations),
            kernels: self.kernels.saturating_add(other.kernels),
            exact: self.exact && other.exact,
        }
    }

    fn times(self, trips: Option<u64>) -> Work {
        let n = trips.unwrap_or(1);
        Work {
            iterations: self.iterations.saturating_mul(n),
            kernels: self.kernels.saturating_mul(n),
            exact: self.exact && trips.is_some(),
        }
    }
}

/// The work of every linalg op in `op`'s regions (on tensors or buffers). A loop whose extent
/// no operand gives (a dynamic shape) counts once; an `scf.for` with constant bounds
/// multiplies what its body does by its trips, an `scf.forall` by its static bounds', a branch
/// or a function counts its regions once; other loops (`scf.while`, bounds known only at run
/// time) count their bodies once, and the result is not [`Work::exact`]. `byte_products`
/// multiply-adds of 8-bit integers count one iteration.
pub fn work(op: Op, byte_products: u64) -> Work {
    (0..op.region_count())
        .filter_map(|r| op.body(r))
        .map(|b| block_work(b, byte_products))
        .fold(Work::default(), Work::add)
}

fn block_work(block: Blk, byte_products: u64) -> Work {
    block.ops().into_iter().map(|op| op_work(op, byte_products)).fold(Work::default(), Work::add)
}

fn op_work(op: Op, byte_products: u64) -> Work {
    if let Some(maps) = op.indexing_maps() {
        let (iterations, exact) = linalg_iterations(op, maps);
        let iterations = if byte_product(op) { iterations.div_ceil(byte_products.max(1)) } else { iterations };
        return Work { iterations, kernels: 1, exact };
    }
    if op.region_count() == 0 {
        return Work::default();
    }
    work(op, byte_products).times(trips(op))
}

/// The 8-bit products a step of an integer product's sums takes with VNNI (`vpdpbusd`'s four
/// a lane): [`work`]'s `byte_products` where the products do not run on AMX tiles.
pub const VNNI_BYTE_PRODUCTS: u64 = 4;

/// Whether the linalg op `op` sums products of 8-bit integers: a reduction whose inputs are
/// all 8-bit integers (a quantized matmul's or convolution's sums; the dynamically quantized
/// transformers' `MatMulInteger`s).
fn byte_product(op: Op) -> bool {
    let reduces = op.attribute("iterator_types").is_some_and(|t| t.to_string().contains("reduction"));
    let inputs = op.operand_count().saturating_sub(1);
    reduces
        && inputs > 0
        && (0..inputs).all(|i| {
            let ty = op.operand(i).r#type();
            strata_ir::types::tensor_element_name(ty)
                .or_else(|| strata_ir::types::memref_element_name(ty))
                .is_some_and(|e| matches!(e.as_str(), "i8" | "ui8" | "si8"))
        })
}

/// How many times `op`'s regions run each time `op` does: an `scf.for`'s trip count, the
/// product of an `scf.forall`'s trip counts, once for a branch, a region or a function;
/// `None` when not known at compile time.
fn trips(op: Op) -> Option<u64> {
    match op.name().as_str() {
        "scf.for" => trip_count(op.operand(0), op.operand(1), op.operand(2)),
        "scf.forall" => {
            let array = |name: &str| strata_ir::ods::i64_array(op.get(), name);
            let (lower, upper, step) = (array("staticLowerBound")?, array("staticUpperBound")?, array("staticStep")?);
            lower.iter().zip(&upper).zip(&step).try_fold(1u64, |total, ((&l, &u), &s)| {
                if [l, u, s].contains(&strata_ir::ods::DYNAMIC) {
                    return None;
                }
                Some(total.saturating_mul(steps(l, u, s)?))
            })
        }
        "scf.while" => None,
        _ => Some(1),
    }
}

/// The trip count of a loop from `lower` to `upper` by `step`, when all three are constants.
pub fn trip_count(lower: Val, upper: Val, step: Val) -> Option<u64> {
    steps(lower.constant_int()?, upper.constant_int()?, step.constant_int()?)
}

/// The steps from `lower` to `upper` by `step` (none for a step that is not positive).
fn steps(lower: i64, upper: i64, step: i64) -> Option<u64> {
    (step > 0).then(|| u64::try_from(upper.saturating_sub(lower).max(0)).unwrap_or(0).div_ceil(step as u64))
}

/// The product of a linalg op's loop extents, each the size of an operand dimension its
/// indexing maps read it by, and whether every loop had one (else it counts 1: a dynamic
/// shape, or a loop no operand dimension gives whole).
fn linalg_iterations(op: Op, maps: melior::ir::Attribute<'_>) -> (u64, bool) {
    let Some(maps) = strata_ir::handle::map_dims(maps) else { return (0, false) };
    let loops = maps.iter().flatten().flatten().map(|&d| d + 1).max().unwrap_or(0);
    let mut extents = vec![None::<i64>; loops];
    for (i, dims) in maps.iter().enumerate().take(op.operand_count()) {
        let Ok(shape) = crate::ops::static_shape(op.operand(i).r#type()) else { continue };
        for (dim, extent) in dims.iter().zip(shape) {
            if let Some(d) = *dim {
                extents[d] = Some(extents[d].map_or(extent, |e| e.max(extent)));
            }
        }
    }
    let exact = extents.iter().all(Option::is_some);
    let product = extents
        .into_iter()
        .fold(1u64, |total, extent| total.saturating_mul(u64::try_from(extent.unwrap_or(1).max(0)).unwrap_or(0)));
    (product, exact)
}

#[cfg(test)]
mod tests {
    use super::{work, Work, VNNI_BYTE_PRODUCTS};
    use strata_ir::{Op, StrataContext};

    fn work_of(text: &str) -> Work {
        weighted_work_of(text, VNNI_BYTE_PRODUCTS)
    }

    fn weighted_work_of(text: &str, byte_products: u64) -> Work {
        let strata = StrataContext::new(&[strata_dialect_sg::DIALECT]).expect("the sg dialect loads");
        let module = strata.parse(text, "work.mlir").expect("parses");
        work(Op::of(&module.as_operation()), byte_products)
    }

    #[test]
    fn named_ops_count_their_iteration_space() {
        // 8 x 16 outputs of 32 multiply-adds each, and a fill of the 8 x 16.
        let matmul =
            "func.func @f(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}";
        assert_eq!(work_of(matmul).iterations, 8 * 16 * 32 + 8 * 16);
        // A 3x3 convolution: 1 x 4 x 6 x 6 outputs, 2 x 3 x 3 taps each.
        let conv = "func.func @f(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>, %y: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) outs(%y : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}";
        assert_eq!(work_of(conv).iterations, 4 * 6 * 6 * 2 * 3 * 3);
    }

    #[test]
    fn byte_products_count_four_multiply_adds_a_step() {
        let product = "#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @f(%a: tensor<8x32xui8>, %b: tensor<32x16xi8>, %c: tensor<8x16xi32>) -> tensor<8x16xi32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} ins(%a, %b : tensor<8x32xui8>, tensor<32x16xi8>) outs(%c : tensor<8x16xi32>) {
  ^bb0(%x: ui8, %w: i8, %acc: i32):
    %xs = builtin.unrealized_conversion_cast %x : ui8 to i8
    %xw = arith.extui %xs : i8 to i32
    %ww = arith.extsi %w : i8 to i32
    %p = arith.muli %xw, %ww : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<8x16xi32>
  return %r : tensor<8x16xi32>
}";
        assert_eq!(work_of(product).iterations, 8 * 16 * 32 / 4);
        assert_eq!(weighted_work_of(product, 16).iterations, 8 * 16 * 32 / 16);
    }

    #[test]
    fn loops_multiply_what_they_run() {
        // A generic reduction of 4 x 10 inside a loop of 5 steps.
        let looped = "#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @f(%x: tensor<4x10xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %y) -> (tensor<4xf32>) {
    %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = [\"parallel\", \"reduction\"]} ins(%x : tensor<4x10xf32>) outs(%acc : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}";
        let looped = work_of(looped);
        assert_eq!((looped.iterations, looped.kernels, looped.exact), (5 * 4 * 10, 5, true));
    }

    #[test]
    fn unknown_trips_and_extents_make_a_lower_bound() {
        let dynamic =
            "func.func @f(%a: tensor<?x32xf32>, %b: tensor<32x16xf32>, %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x16xf32>) outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}";
        let dynamic = work_of(dynamic);
        assert_eq!((dynamic.iterations, dynamic.exact), (16 * 32, false));
        let looped = "func.func @f(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %s = linalg.copy ins(%acc : tensor<4xf32>) outs(%acc : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}";
        let looped = work_of(looped);
        assert_eq!((looped.iterations, looped.kernels, looped.exact), (4, 1, false));
    }
}
