// Loop order for the host: each convolution, matmul and pooling op that `strata-cpu-schedule`
// marked `strata.loop_order = "reduction_outer"` becomes a generic whose reduction (and
// kernel-window) loops run outside the output's spatial or column loops, so the innermost loop
// walks contiguous memory and LLVM's loop vectoriser can use SIMD. Unmarked ops keep MLIR's
// order (a dot product innermost), which is faster for 1x1 convolutions and narrow matmuls.
// Applied by `strata-cpu-schedule` through MLIR's transform interpreter.
module attributes {transform.with_named_sequence} {
  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // (n, f, oh, ow, c, kh, kw) -> (n, f, c, kh, kw, oh, ow)
    %conv = transform.structured.match ops{["linalg.conv_2d_nchw_fchw"]} attributes{strata.loop_order = "reduction_outer"} in %root : (!transform.any_op) -> !transform.any_op
    %conv_g = transform.structured.generalize %conv : (!transform.any_op) -> !transform.any_op
    %conv_i = transform.structured.interchange %conv_g iterator_interchange = [0, 1, 4, 5, 6, 2, 3] : (!transform.any_op) -> !transform.any_op
    // (n, g, f, oh, ow, c, kh, kw) -> (n, g, f, c, kh, kw, oh, ow)
    %gconv = transform.structured.match ops{["linalg.conv_2d_ngchw_gfchw"]} attributes{strata.loop_order = "reduction_outer"} in %root : (!transform.any_op) -> !transform.any_op
    %gconv_g = transform.structured.generalize %gconv : (!transform.any_op) -> !transform.any_op
    %gconv_i = transform.structured.interchange %gconv_g iterator_interchange = [0, 1, 2, 5, 6, 7, 3, 4] : (!transform.any_op) -> !transform.any_op
    // (n, oh, ow, c, kh, kw) -> (n, c, kh, kw, oh, ow)
    %dw = transform.structured.match ops{["linalg.depthwise_conv_2d_nchw_chw"]} attributes{strata.loop_order = "reduction_outer"} in %root : (!transform.any_op) -> !transform.any_op
    %dw_g = transform.structured.generalize %dw : (!transform.any_op) -> !transform.any_op
    %dw_i = transform.structured.interchange %dw_g iterator_interchange = [0, 3, 4, 5, 1, 2] : (!transform.any_op) -> !transform.any_op
    // (n, c, oh, ow, kh, kw) -> (n, c, kh, kw, oh, ow)
    %pool = transform.structured.match ops{["linalg.pooling_nchw_max", "linalg.pooling_nchw_sum"]} attributes{strata.loop_order = "reduction_outer"} in %root : (!transform.any_op) -> !transform.any_op
    %pool_g = transform.structured.generalize %pool : (!transform.any_op) -> !transform.any_op
    %pool_i = transform.structured.interchange %pool_g iterator_interchange = [0, 1, 4, 5, 2, 3] : (!transform.any_op) -> !transform.any_op
    // (m, n, k) -> (m, k, n)
    %mm = transform.structured.match ops{["linalg.matmul"]} attributes{strata.loop_order = "reduction_outer"} in %root : (!transform.any_op) -> !transform.any_op
    %mm_g = transform.structured.generalize %mm : (!transform.any_op) -> !transform.any_op
    %mm_i = transform.structured.interchange %mm_g iterator_interchange = [0, 2, 1] : (!transform.any_op) -> !transform.any_op
    // (b, m, n, k) -> (b, m, k, n)
    %bmm = transform.structured.match ops{["linalg.batch_matmul"]} attributes{strata.loop_order = "reduction_outer"} in %root : (!transform.any_op) -> !transform.any_op
    %bmm_g = transform.structured.generalize %bmm : (!transform.any_op) -> !transform.any_op
    %bmm_i = transform.structured.interchange %bmm_g iterator_interchange = [0, 1, 3, 2] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
