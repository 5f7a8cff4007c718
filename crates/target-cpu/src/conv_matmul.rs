//! Part of `strata-cpu-schedule`: a 1x1 convolution that no register block takes becomes the
//! matmul it is, which the matmul schedules take whatever its shape.
//!
//! A pointwise convolution (1x1 filter, unit strides, one image, unpadded) computes
//! `out[f, p] = init[f, p] + sum_c w[f, c] * x[c, p]` over the `H * W` positions `p`: the
//! product of the `F x C` filter by the `C x (H * W)` input. The register blocks
//! (`strata_machine::conv_block`) need the filters or the output columns to fill whole vectors
//! (or half ones): a segmentation head's 5 classes over DeepLab's 33 x 33 map have neither,
//! and such a convolution ran as a loop nest, 53 us where the same product as a `MatMul` ran
//! in 3 (ONNX Runtime's convolution: 20). Rewritten on tensors as `collapse_shape`s of its
//! operands (views of the same buffers after bufferization), a `linalg.matmul` accumulating
//! into the collapsed initial value, and an `expand_shape` of the product, it goes to the
//! peeled register blocks and `strata-vectorize-matmul`'s masked partial ones. Each output's
//! sum still runs over the channels in order.

use melior::ir::operation::OperationLike;
use strata_ir::rewrite::collect;
use strata_ir::{PassContext, PassFailed};
use strata_lower::kernel::KernelCache;
use strata_lower::pads::Pad;

use crate::conv_flatten::pointwise;
use crate::conv_lanes::static_f32_operands;

/// Rewrites every f32 `linalg.conv_2d_nchw_fchw` left in `module` that is pointwise into a
/// matmul; returns how many. Run after the register blocks took theirs.
pub(crate) fn pointwise_as_matmuls(
    module: melior::ir::operation::OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
) -> Result<usize, PassFailed> {
    let mut kernels = KernelCache::default();
    let mut count = 0;
    for raw in collect(&module, |op| op.is("linalg.conv_2d_nchw_fchw")) {
        let op = raw.get();
        let Some((x, w, out)) = static_f32_operands(op, 4) else { continue };
        let padded = op.operand(0).ok().and_then(strata_ir::rewrite::defining_op).and_then(Pad::of).is_some();
        if !pointwise(op, [&x, &w, &out], padded) || x.shape[0] != 1 || op.result_count() != 1 {
            continue;
        }
        let ([c, h, wd], f) = ([x.shape[1], x.shape[2], x.shape[3]], w.shape[0]);
        let p = h * wd;
        let text = format!(
            "module {{\n  func.func @pointwise(%x: {x}, %w: {w}, %init: {out}) -> {out} {{\n    \
             %xc = tensor.collapse_shape %x [[0, 1], [2, 3]] : {x} into tensor<{c}x{p}xf32>\n    \
             %wc = tensor.collapse_shape %w [[0], [1, 2, 3]] : {w} into tensor<{f}x{c}xf32>\n    \
             %ic = tensor.collapse_shape %init [[0, 1], [2, 3]] : {out} into tensor<{f}x{p}xf32>\n    \
             %m = linalg.matmul ins(%wc, %xc : tensor<{f}x{c}xf32>, tensor<{c}x{p}xf32>) outs(%ic : tensor<{f}x{p}xf32>) -> tensor<{f}x{p}xf32>\n    \
             %r = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, {f}, {h}, {wd}] : tensor<{f}x{p}xf32> into {out}\n    \
             return %r : {out}\n  }}\n}}\n"
        );
        // Safety: `op` is a convolution of this module, replaced once and not used afterwards.
        unsafe { kernels.replace_op(cx, op, &text, "pointwise convolution as a matmul")? };
        count += 1;
    }
    Ok(count)
}
