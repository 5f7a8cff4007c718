// The vector lowering after `cpu-vectorize.mlir` (both applied by `strata-cpu-vectorize`):
// contractions to outer products to FMAs, permuted transfers to minor-identity ones plus
// transposes, shape casts and n-D broadcasts to 1-D vectors. It runs on the ops the pass marked
// `strata.lower_vectors` only: the top-level ops of the model function that hold such a vector
// op (a function where one stands at its top level). The rest of the function has nothing for
// these patterns, and the greedy driver's walks over all of it were most of the pass's time
// (YOLOv8n: 0.13 of 0.17 s for the lowering of 6% of its operations).
module attributes {transform.with_named_sequence} {
  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // The transfers stay transfers here (`convert-vector-to-scf` and `convert-vector-to-llvm`
    // lower them): `lower_transfer` fails on every n-D transfer, and the interpreter's listener
    // prints each failure's op with a fresh `AsmState` and verifier run; on MobileNetV2 that was
    // 60 of this script's 90 ms, for the same LLVM IR in the end.
    %marked = transform.structured.match attributes{strata.lower_vectors} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %marked {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // Apart, and without canonicalization: the canonicalizer folds the convolutions' lowered
    // broadcasts back (vector.from_elements of one scalar) and the two never settle.
    transform.apply_patterns to %marked {
      transform.apply_patterns.vector.lower_broadcast
    } : !transform.any_op
    transform.yield
  }
}
