// Register-blocked, vectorised convolutions for the host (on tensors, before bufferization):
// each filter-lane convolution generic that `strata-cpu-schedule` wrote (see
// crates/lower/src/conv_lanes.rs; marked `strata.conv_tiles = "THxTWxTF"`) is tiled into
// blocks of TH x TW output positions by TF filters, with its bias or zero initialisation
// fused into the tile (the CONVS line is replaced by one such tiling per block size, generated
// by the pass), then into single (c, kh, kw) reduction steps. Unit dimensions are folded away
// inside the tiles (only there: the other ops keep their shapes), the tiles vectorised (one vector<TF x f32> FMA per position and step: the body's mul and add
// carry `fastmath<contract>`), and the accumulator's read and write hoisted out of the
// reduction loops so that it stays in registers. Applied by `strata-cpu-schedule`; the
// vectors are lowered after bufferization by `strata-cpu-vectorize`.
module attributes {transform.with_named_sequence} {
  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // CONVS
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // The untiled initialisations are dead now: drop them before matching their tiled copies.
    transform.foreach %f : !transform.any_op {
    ^bb0(%fn: !transform.any_op):
      transform.apply_dce to %fn : !transform.any_op
    }
    %init = transform.structured.match attributes{strata.conv_init} in %root : (!transform.any_op) -> !transform.any_op
    // FOLD: in each tile (the op around its reduction loops), unit dimensions are folded
    // away, so that the tile's generic reads plain vectors:
    //   transform.apply_patterns to <parent> { fold_unit_extent_dims_via_slices, canonicalization }
    transform.structured.vectorize %init : !transform.any_op
    // VECTORIZE
    transform.foreach %f : !transform.any_op {
    ^bb0(%fn: !transform.any_op):
      transform.apply_patterns to %fn {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %fn : !transform.any_op
      %loops = transform.structured.match ops{["scf.for"]} in %fn : (!transform.any_op) -> !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
      transform.apply_patterns to %fn {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }
}
