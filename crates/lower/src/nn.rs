//! Convolution, matrix product and windowed pooling, as linalg named ops where one exists:
//! `conv_2d_nchw_fchw`, `depthwise_conv_2d_nchw_chw`, `conv_2d_ngchw_gfchw` (other groups),
//! `matmul`, `batch_matmul`, `pooling_nchw_max` / `pooling_nchw_sum`. Padding is an explicit
//! `tensor.pad`; the accumulator starts as the broadcast bias (or zero).

use crate::kernel::{Elem, Iter, Kernel, Map, TensorTy};
use crate::layout::reshape;
use strata_ir::Error;

/// `values` comma-separated, for shapes, offsets and attributes in kernel text.
pub fn list(values: &[i64]) -> String {
    values.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// The `dilations` and `strides` attribute dictionary of a 2-D windowed linalg op
/// (convolutions and pools), as kernel text.
pub fn window_attributes(strides: &[i64], dilations: &[i64]) -> String {
    format!(
        "{{dilations = dense<[{}]> : tensor<2xi64>, strides = dense<[{}]> : tensor<2xi64>}}",
        list(dilations),
        list(strides)
    )
}

/// A windowed op's two-value attribute `name` (`strides`, `dilations`): `[1, 1]` when absent,
/// `None` when it is not two integers.
pub fn pair_attribute(op: strata_ir::Op, name: &str) -> Option<[i64; 2]> {
    match op.attribute(name) {
        None => Some([1, 1]),
        Some(a) => <[i64; 2]>::try_from(strata_ir::handle::dense_ints(a)?).ok(),
    }
}

/// `input` padded on H and W by `[top, left, bottom, right]` with `fill`.
fn pad_hw(k: &mut Kernel, input: &str, ty: &TensorTy, pads: [i64; 4], fill: &str) -> (String, TensorTy) {
    if pads.iter().all(|&p| p == 0) {
        return (input.to_string(), ty.clone());
    }
    let out =
        ty.with_shape(vec![ty.shape[0], ty.shape[1], ty.shape[2] + pads[0] + pads[2], ty.shape[3] + pads[1] + pads[3]]);
    // The fill in the tensor's stored type (unsigned types are not signless).
    let value = k.stored_constant(fill, &ty.elem);
    let padded = k.emit(format_args!(
        "tensor.pad {input} low[0, 0, {}, {}] high[0, 0, {}, {}] {{\n    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n      tensor.yield {value} : {}\n    }} : {ty} to {out}",
        pads[0], pads[1], pads[2], pads[3], ty.elem.storage()
    ));
    (padded, out)
}

/// A pooling window, whose shape alone matters (the pooling ops and the index kernel never
/// read its elements): a constant, not a `tensor.empty`, which bufferization would give a
/// buffer of its own in the arena, live beside the pool's input and output (ResNet-18's peak).
fn window_shape(k: &mut Kernel, kernel: &[i64]) -> (String, TensorTy) {
    let ty = TensorTy::new(kernel.to_vec(), Elem::new("i8"));
    (k.emit(format_args!("arith.constant dense<0> : {ty}")), ty)
}

/// The windows of a 2-D pooling: kernel size, strides, dilations (two entries each) and pads
/// `[top, left, bottom, right]`.
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    pub kernel: &'a [i64],
    pub strides: &'a [i64],
    pub pads: &'a [i64],
    pub dilations: &'a [i64],
}

impl Window<'_> {
    /// High padding so that every window of the result fits: ceil_mode windows may run past the
    /// padded input (they only see the pad value there).
    fn fitting_pads(&self, ty: &TensorTy, out: &TensorTy) -> [i64; 4] {
        let Window { kernel, strides, pads, dilations } = *self;
        let need = |axis: usize| (out.shape[2 + axis] - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1;
        let high = |axis: usize| pads[2 + axis].max(need(axis) - ty.shape[2 + axis] - pads[axis]);
        [pads[0], pads[1], high(0), high(1)]
    }
}

pub fn conv2d(
    k: &mut Kernel,
    strides: &[i64],
    pads: &[i64],
    dilations: &[i64],
    group: i64,
    has_bias: bool,
    out: &TensorTy,
) -> Result<String, Error> {
    let x_ty = k.arg_type(0).clone();
    let w_ty = k.arg_type(1).clone();
    let elem = x_ty.elem.clone();
    // Floats, and signed integers (quantized convolutions accumulate in i32).
    if !(elem.is_float() || (elem.is_int() && !elem.unsigned)) {
        return Err(elem.unsupported("conv2d"));
    }
    let x = k.arg(0);
    let w = k.arg(1);
    let kernel = [w_ty.shape[2], w_ty.shape[3]];
    let pads = Window { kernel: &kernel, strides, pads, dilations }.fitting_pads(&x_ty, out);
    let (xp, xp_ty) = pad_hw(k, &x, &x_ty, pads, &elem.literal(0.0));
    let acc = accumulator(out);
    let full = has_bias && k.arg_type(2).rank() == 4;
    let init = if full && k.arg_type(2).elem == acc.elem {
        // An initial value of the result's shape (a residual, `sg-accumulate-residuals`): the
        // convolution accumulates onto it, in its buffer where it dies here.
        k.arg(2)
    } else if full {
        let (bias, bias_ty) = (k.arg(2), k.arg_type(2).clone());
        let empty = k.empty(&acc);
        k.try_generic(
            &[(&bias, &bias_ty, Map::identity(4))],
            (&empty, &acc, Map::identity(4)),
            &[Iter::Parallel; 4],
            |b, a| crate::elementwise::cast(b, &a[0], &elem, &acc.elem),
        )?
    } else if has_bias {
        let (bias, bias_ty) = (k.arg(2), k.arg_type(2).clone());
        let empty = k.empty(&acc);
        k.try_generic(
            &[(&bias, &bias_ty, Map::dims([1]))],
            (&empty, &acc, Map::identity(4)),
            &[Iter::Parallel; 4],
            |b, a| crate::elementwise::cast(b, &a[0], &elem, &acc.elem),
        )?
    } else {
        k.filled(&acc.elem.literal(0.0), &acc)
    };
    let attrs = window_attributes(strides, dilations);
    let (channels, filters) = (x_ty.shape[1], w_ty.shape[0]);
    let conv = if group == 1 {
        k.emit(format_args!(
            "linalg.conv_2d_nchw_fchw {attrs} ins({xp}, {w} : {xp_ty}, {w_ty}) outs({init} : {acc}) -> {acc}"
        ))
    } else if group == channels && filters == channels {
        let wc_ty = w_ty.with_shape(vec![filters, kernel[0], kernel[1]]);
        let wc = k.emit(format_args!("tensor.collapse_shape {w} [[0, 1], [2], [3]] : {w_ty} into {wc_ty}"));
        k.emit(format_args!("linalg.depthwise_conv_2d_nchw_chw {attrs} ins({xp}, {wc} : {xp_ty}, {wc_ty}) outs({init} : {acc}) -> {acc}"))
    } else {
        let g = group;
        let xg_ty = xp_ty.with_shape(vec![xp_ty.shape[0], g, channels / g, xp_ty.shape[2], xp_ty.shape[3]]);
        let wg_ty = w_ty.with_shape(vec![g, filters / g, w_ty.shape[1], kernel[0], kernel[1]]);
        let og_ty = acc.with_shape(vec![acc.shape[0], g, filters / g, acc.shape[2], acc.shape[3]]);
        let xg = k.emit(format_args!(
            "tensor.expand_shape {xp} [[0], [1, 2], [3], [4]] output_shape [{}] : {xp_ty} into {xg_ty}",
            list(&xg_ty.shape)
        ));
        let wg = k.emit(format_args!(
            "tensor.expand_shape {w} [[0, 1], [2], [3], [4]] output_shape [{}] : {w_ty} into {wg_ty}",
            list(&wg_ty.shape)
        ));
        let og = k.emit(format_args!(
            "tensor.expand_shape {init} [[0], [1, 2], [3], [4]] output_shape [{}] : {acc} into {og_ty}",
            list(&og_ty.shape)
        ));
        let conv = k.emit(format_args!(
            "linalg.conv_2d_ngchw_gfchw {attrs} ins({xg}, {wg} : {xg_ty}, {wg_ty}) outs({og} : {og_ty}) -> {og_ty}"
        ));
        k.emit(format_args!("tensor.collapse_shape {conv} [[0], [1, 2], [3], [4]] : {og_ty} into {acc}"))
    };
    rounded(k, conv, &acc, out)
}

/// The accumulator of a product into `out`: f32 for half-precision floats (the named ops
/// promote their operands to the accumulator's type), else `out` itself.
fn accumulator(out: &TensorTy) -> TensorTy {
    if out.elem.is_float() && out.elem.bits() < 32 {
        out.with_elem(Elem::new("f32"))
    } else {
        out.clone()
    }
}

/// `value` (of type `acc`) as `out`: rounded once when the accumulator is wider.
fn rounded(k: &mut Kernel, value: String, acc: &TensorTy, out: &TensorTy) -> Result<String, Error> {
    if acc.elem == out.elem {
        return Ok(value);
    }
    let (empty, rank) = (k.empty(out), out.rank());
    k.try_generic(
        &[(&value, acc, Map::identity(rank))],
        (&empty, out, Map::identity(rank)),
        &vec![Iter::Parallel; rank],
        |b, a| crate::elementwise::cast(b, &a[0], &acc.elem, &out.elem),
    )
}

pub fn matmul(k: &mut Kernel, out: &TensorTy) -> Result<String, Error> {
    let (a_ty, b_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone());
    let elem = a_ty.elem.clone();
    if !(elem.is_float() || elem.is_int()) || elem.unsigned {
        return Err(elem.unsupported("matmul"));
    }
    // Half-precision products accumulate in f32, rounded once at the end.
    let result = accumulator(out);
    let acc_elem = result.elem.clone();
    let (a, b) = (k.arg(0), k.arg(1));
    let zero = acc_elem.literal(0.0);
    let (ra, rb, ro) = (a_ty.rank(), b_ty.rank(), out.rank());
    let (m, kk, n) = (a_ty.shape[ra - 2], a_ty.shape[ra - 1], b_ty.shape[rb - 1]);
    let product = if rb == 2 {
        let batch: i64 = a_ty.shape[..ra - 2].iter().product();
        let a2_ty = a_ty.with_shape(vec![batch * m, kk]);
        let o2_ty = result.with_shape(vec![batch * m, n]);
        let a2 = reshape(k, &a, &a_ty, &a2_ty);
        let acc = k.filled(&zero, &o2_ty);
        let product =
            k.emit(format_args!("linalg.matmul ins({a2}, {b} : {a2_ty}, {b_ty}) outs({acc} : {o2_ty}) -> {o2_ty}"));
        reshape(k, &product, &o2_ty, &result)
    } else if ra == rb && a_ty.shape[..ra - 2] == b_ty.shape[..rb - 2] {
        let batch: i64 = a_ty.shape[..ra - 2].iter().product();
        let a3_ty = a_ty.with_shape(vec![batch, m, kk]);
        let b3_ty = b_ty.with_shape(vec![batch, kk, n]);
        let o3_ty = result.with_shape(vec![batch, m, n]);
        let a3 = reshape(k, &a, &a_ty, &a3_ty);
        let b3 = reshape(k, &b, &b_ty, &b3_ty);
        let acc = k.filled(&zero, &o3_ty);
        let product = k.emit(format_args!(
            "linalg.batch_matmul ins({a3}, {b3} : {a3_ty}, {b3_ty}) outs({acc} : {o3_ty}) -> {o3_ty}"
        ));
        reshape(k, &product, &o3_ty, &result)
    } else {
        // Loops: the result's dimensions, then the contraction dimension.
        let red = ro;
        let operand_map = |ty: &TensorTy, row: String, col: String| {
            let lead = ro - ty.rank();
            let mut exprs: Vec<String> = (0..ty.rank() - 2)
                .map(|d| {
                    if ty.shape[d] == 1 && out.shape[lead + d] != 1 {
                        "0".to_string()
                    } else {
                        format!("d{}", lead + d)
                    }
                })
                .collect();
            exprs.push(row);
            exprs.push(col);
            Map(exprs)
        };
        let a_map = operand_map(&a_ty, format!("d{}", ro - 2), format!("d{red}"));
        let b_map = operand_map(&b_ty, format!("d{red}"), format!("d{}", ro - 1));
        let acc = k.filled(&zero, &result);
        let mut iterators = vec![Iter::Parallel; ro];
        iterators.push(Iter::Reduction);
        let (mul, add) = if elem.is_float() { ("arith.mulf", "arith.addf") } else { ("arith.muli", "arith.addi") };
        k.try_generic(
            &[(&a, &a_ty, a_map), (&b, &b_ty, b_map)],
            (&acc, &result, Map::dims(0..ro)),
            &iterators,
            |bd, v| {
                let x = crate::elementwise::cast(bd, &v[0], &elem, &acc_elem)?;
                let y = crate::elementwise::cast(bd, &v[1], &elem, &acc_elem)?;
                let p = bd.emit(format_args!("{mul} {x}, {y} : {acc_elem}"));
                Ok(bd.emit(format_args!("{add} {}, {p} : {acc_elem}", v[2])))
            },
        )?
    };
    rounded(k, product, &result, out)
}

/// `sg.quantized_matmul`: the i32 sums start from `offsets` (broadcast over the rows), add
/// every product of the zero-extended `ui8` left operand and the sign-extended `i8` right
/// operand read through its packing (`[n / 16, k / 4, n % 16, k % 4]`): the result, or with
/// scales (a fourth operand) f32 times them, written over the sums (which an f32 tensor then
/// holds as their bits). Two or three generics: the host's
/// `strata-vectorize-integer-matmul` turns the sums into dot-product instructions and folds
/// the others into its registers.
pub fn quantized_matmul(k: &mut Kernel, out: &TensorTy) -> Result<String, Error> {
    let (a_ty, b_ty, o_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone(), k.arg_type(2).clone());
    let s_ty = (k.arg_count() > 3).then(|| k.arg_type(3).clone());
    let packed = b_ty.rank() == 4 && b_ty.shape[2] == 16 && b_ty.shape[3] == 4;
    let (ra, n) = (a_ty.rank(), out.shape.last().copied().unwrap_or(0));
    let result = if s_ty.is_some() { "f32" } else { "i32" };
    let well_typed = a_ty.elem.storage() == "ui8"
        && b_ty.elem.storage() == "i8"
        && o_ty.elem.storage() == "i32"
        && s_ty.as_ref().is_none_or(|s| s.elem.storage() == "f32" && s.shape == [n])
        && out.elem.storage() == result;
    if !packed || ra < 2 || !well_typed || o_ty.shape != [n] || b_ty.shape[0] * 16 != n {
        return Err(Error::unsupported(format!(
            "a quantized matmul of {a_ty} and {b_ty} (offsets {o_ty}, scales {s_ty:?}) to {out}"
        )));
    }
    let (a, b, offsets) = (k.arg(0), k.arg(1), k.arg(2));
    let (m, kk) = (a_ty.shape[ra - 2], a_ty.shape[ra - 1]);
    let rows: i64 = a_ty.shape[..ra - 2].iter().product::<i64>() * m;
    let a2_ty = a_ty.with_shape(vec![rows, kk]);
    let a2 = reshape(k, &a, &a_ty, &a2_ty);
    let scaled = s_ty.is_some();
    let sums = packed_sums(k, (&a2, &a2_ty), (&b, &b_ty), (&offsets, &o_ty), (n, Along::Columns), scaled);
    let acc_ty = TensorTy::new(vec![rows, n], Elem::new(if scaled { "f32" } else { "i32" }));
    let Some(s_ty) = s_ty else {
        return Ok(reshape(k, &sums, &acc_ty, out));
    };
    let scales = k.arg(3);
    let scaled = scaled_sums(k, (&sums, &acc_ty), (&scales, &s_ty), Along::Columns);
    Ok(reshape(k, &scaled, &acc_ty, out))
}

/// Which index of an integer product's sums its per-output offsets and scales go with.
#[derive(Clone, Copy, PartialEq)]
enum Along {
    /// The rows' (`sg.quantized_conv`: one per output channel).
    Rows,
    /// The columns' (`sg.quantized_matmul`).
    Columns,
}

impl Along {
    /// The map reading a vector of one value per row or column, over the sums' two loops.
    fn map(self) -> Map {
        Map::dims([if self == Along::Rows { 0 } else { 1 }])
    }
}

/// The i32 sums `[M, n]` of the 8-bit `lhs` `[M, K]` and `packed` (`[ceil(n / 16), K / 4,
/// 16, 4]`), starting from `offsets` (one per row or column): two generics, the start (a copy)
/// and the sums (each product of the zero-extended `ui8` and the sign-extended `i8` operand,
/// whichever the two are), as `strata-vectorize-integer-matmul` finds them. With `bits`, the
/// sums are held in an f32 tensor as their bits (`arith.bitcast` in and out of each step), so
/// that the scaling can overwrite them in place ([`scaled_sums`]): no i32 buffer beside the
/// result.
fn packed_sums(
    k: &mut Kernel,
    (lhs, lhs_ty): (&str, &TensorTy),
    (packed, packed_ty): (&str, &TensorTy),
    (offsets, o_ty): (&str, &TensorTy),
    (n, along): (i64, Along),
    bits: bool,
) -> String {
    let acc_ty = TensorTy::new(vec![lhs_ty.shape[0], n], Elem::new(if bits { "f32" } else { "i32" }));
    let empty = k.empty(&acc_ty);
    let parallel = [Iter::Parallel, Iter::Parallel];
    let init = k.generic(&[(offsets, o_ty, along.map())], (&empty, &acc_ty, Map::identity(2)), &parallel, |bd, v| {
        if bits {
            bd.emit(format_args!("arith.bitcast {} : i32 to f32", v[0]))
        } else {
            v[0].clone()
        }
    });
    let packing = Map(["d1 floordiv 16", "d2 floordiv 4", "d1 mod 16", "d2 mod 4"].map(String::from).to_vec());
    let extend = |elem: &Elem| if elem.unsigned { "arith.extui" } else { "arith.extsi" };
    let (lhs_ext, packed_ext) = (extend(&lhs_ty.elem), extend(&packed_ty.elem));
    k.generic(
        &[(lhs, lhs_ty, Map::dims([0, 2])), (packed, packed_ty, packing)],
        (&init, &acc_ty, Map::dims([0, 1])),
        &[Iter::Parallel, Iter::Parallel, Iter::Reduction],
        |bd, v| {
            let x = bd.emit(format_args!("{lhs_ext} {} : i8 to i32", v[0]));
            let y = bd.emit(format_args!("{packed_ext} {} : i8 to i32", v[1]));
            let p = bd.emit(format_args!("arith.muli {x}, {y} : i32"));
            if !bits {
                return bd.emit(format_args!("arith.addi {}, {p} : i32", v[2]));
            }
            let acc = bd.emit(format_args!("arith.bitcast {} : f32 to i32", v[2]));
            let sum = bd.emit(format_args!("arith.addi {acc}, {p} : i32"));
            bd.emit(format_args!("arith.bitcast {sum} : i32 to f32"))
        },
    )
}

/// The sums (i32 bits in f32, [`packed_sums`]) as f32 times `scales` (one per row or column),
/// in place: one generic whose output is the sums.
fn scaled_sums(
    k: &mut Kernel,
    (sums, acc_ty): (&str, &TensorTy),
    (scales, s_ty): (&str, &TensorTy),
    along: Along,
) -> String {
    k.generic(
        &[(scales, s_ty, along.map())],
        (sums, acc_ty, Map::identity(2)),
        &[Iter::Parallel, Iter::Parallel],
        |bd, v| {
            let i = bd.emit(format_args!("arith.bitcast {} : f32 to i32", v[1]));
            let x = bd.emit(format_args!("arith.sitofp {i} : i32 to f32"));
            bd.emit(format_args!("arith.mulf {x}, {} : f32", v[0]))
        },
    )
}

/// `sg.quantized_conv`: the input `ui8 [1, C, H, W]` as `[C, H * W]` (padded with zeros to
/// whole 16-pixel blocks) packed `[ceil(H * W / 16), C / 4, 16, 4]` by a generic of its own
/// (its map `(d1 * 4 + d3, d0 * 16 + d2)`: the host's `strata-vectorize-integer-matmul`
/// interleaves it in registers), then the product of the weight `i8 [O, C]` and the packed
/// pixels as [`quantized_matmul`]'s, the offsets and scales along the rows (the output
/// channels): the pixels are in the 16 lanes, each output channel's four weights broadcast.
pub fn quantized_conv(k: &mut Kernel, out: &TensorTy) -> Result<String, Error> {
    let [x_ty, w_ty, o_ty, s_ty] = [0, 1, 2, 3].map(|i| k.arg_type(i).clone());
    let well_typed = [&x_ty, &w_ty, &o_ty, &s_ty, out].map(|t| t.elem.storage()) == ["ui8", "i8", "i32", "f32", "f32"];
    let (c, o) = (x_ty.shape.get(1).copied().unwrap_or(0), w_ty.shape[0]);
    if !well_typed || x_ty.rank() != 4 || x_ty.shape[0] != 1 || w_ty.shape != [o, c] || c % 4 != 0 {
        return Err(Error::unsupported(format!("a quantized 1x1 convolution of {x_ty} and {w_ty} to {out}")));
    }
    let pixels = x_ty.shape[2] * x_ty.shape[3];
    let blocks = (pixels + 15) / 16;
    let flat_ty = x_ty.with_shape(vec![c, pixels]);
    let input = k.arg(0);
    let flat = reshape(k, &input, &x_ty, &flat_ty);
    let padded_ty = x_ty.with_shape(vec![c, blocks * 16]);
    let padded = if blocks * 16 == pixels {
        flat
    } else {
        let zeros = k.filled("0", &padded_ty);
        k.emit(format_args!(
            "tensor.insert_slice {flat} into {zeros}[0, 0] [{c}, {pixels}] [1, 1] : {flat_ty} into {padded_ty}"
        ))
    };
    let packed_ty = x_ty.with_shape(vec![blocks, c / 4, 16, 4]);
    let empty = k.empty(&packed_ty);
    let interleave = Map(vec!["d1 * 4 + d3".into(), "d0 * 16 + d2".into()]);
    let packed = k.generic(
        &[(&padded, &padded_ty, interleave)],
        (&empty, &packed_ty, Map::identity(4)),
        &[Iter::Parallel; 4],
        |_, v| v[0].clone(),
    );
    let (weight, offsets, scales) = (k.arg(1), k.arg(2), k.arg(3));
    let sums = packed_sums(k, (&weight, &w_ty), (&packed, &packed_ty), (&offsets, &o_ty), (pixels, Along::Rows), true);
    let acc_ty = TensorTy::new(vec![o, pixels], Elem::new("f32"));
    let scaled = scaled_sums(k, (&sums, &acc_ty), (&scales, &s_ty), Along::Rows);
    Ok(reshape(k, &scaled, &acc_ty, out))
}

pub fn max_pool(k: &mut Kernel, window: Window, out: &TensorTy) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    if !(elem.is_float() || elem.is_int()) {
        return Err(elem.unsupported("max_pool"));
    }
    let x = k.arg(0);
    if elem.unsigned {
        // Unsigned order is signed order with the sign bit flipped: flip, pool signed, flip back.
        let signed = Elem::new(elem.name.clone());
        let sign = signed.literal(-(2f64.powi(signed.bits() as i32 - 1)));
        let flip = |k: &mut Kernel, value: &str, from: &TensorTy, to: &TensorTy| {
            let empty = k.empty(to);
            let rank = from.rank();
            k.generic(
                &[(value, from, Map::identity(rank))],
                (&empty, to, Map::identity(rank)),
                &vec![Iter::Parallel; rank],
                |b, a| {
                    // The generic hands over and takes signless scalars.
                    let sign = b.constant(&sign, &signed);
                    b.emit(format_args!("arith.xori {}, {sign} : {signed}", a[0]))
                },
            )
        };
        let (signed_in, signed_out) = (ty.with_elem(signed.clone()), out.with_elem(signed.clone()));
        let flipped = flip(k, &x, &ty, &signed_in);
        let pooled = signed_max_pool(k, &flipped, &signed_in, window, &signed_out);
        return Ok(flip(k, &pooled, &signed_out, out));
    }
    Ok(signed_max_pool(k, &x, &ty, window, out))
}

/// MaxPool's Indices: per window, the smallest row-major index into the N x C x H x W input
/// (padding not counted) of an element equal to the window's maximum (`values`, operand 1):
/// the first maximum in window order, as ONNX and ONNX Runtime take it. One reduction over
/// the window's taps; taps in the padding never count. A window whose maximum is NaN has no
/// equal element and reports i64::MAX. `column_major` (storage_order 1) then renumbers each
/// plane's position as w * H + h.
pub fn max_pool_indices(k: &mut Kernel, window: Window, column_major: bool, out: &TensorTy) -> Result<String, Error> {
    let Window { kernel, strides, pads, dilations } = window;
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    if !(elem.is_float() || elem.is_int()) {
        return Err(elem.unsupported("max_pool_indices"));
    }
    let (x, values, values_ty) = (k.arg(0), k.arg(1), k.arg_type(1).clone());
    let fitted = window.fitting_pads(&ty, &values_ty);
    // Padded taps are excluded by position, so any fill would do: the pool's own (the lowest
    // value) lets the two share the padded input.
    let fill = if elem.unsigned { elem.literal(0.0) } else { elem.lowest() };
    let (xp, xp_ty) = pad_hw(k, &x, &ty, fitted, &fill);
    let (window, window_ty) = window_shape(k, kernel);
    let init = k.filled(&i64::MAX.to_string(), out);
    let tap = |axis: usize| format!("d{} * {} + d{} * {}", 2 + axis, strides[axis], 4 + axis, dilations[axis]);
    let inputs = [
        (xp.as_str(), &xp_ty, Map(vec!["d0".into(), "d1".into(), tap(0), tap(1)])),
        (values.as_str(), &values_ty, Map::dims([0, 1, 2, 3])),
        (window.as_str(), &window_ty, Map::dims([4, 5])),
    ];
    let iterators = [Iter::Parallel, Iter::Parallel, Iter::Parallel, Iter::Parallel, Iter::Reduction, Iter::Reduction];
    let (channels, height, width) = (ty.shape[1], ty.shape[2], ty.shape[3]);
    let row_major = k.generic(&inputs, (&init, out, Map::identity(4)), &iterators, |b, a| {
        let equal = if elem.is_float() {
            b.emit(format_args!("arith.cmpf oeq, {}, {} : {elem}", a[0], a[1]))
        } else {
            b.emit(format_args!("arith.cmpi eq, {}, {} : {elem}", a[0], a[1]))
        };
        let mut inside = equal;
        let mut position = Vec::new();
        for axis in 0..2 {
            let (o, t) = (b.index(2 + axis), b.index(4 + axis));
            let stride = b.emit(format_args!("arith.constant {} : index", strides[axis]));
            let dilation = b.emit(format_args!("arith.constant {} : index", dilations[axis]));
            let begin = b.emit(format_args!("arith.constant {} : index", pads[axis]));
            let from = b.emit(format_args!("arith.muli {o}, {stride} : index"));
            let step = b.emit(format_args!("arith.muli {t}, {dilation} : index"));
            let padded = b.emit(format_args!("arith.addi {from}, {step} : index"));
            // The tap in input coordinates; inside when begin <= padded < begin + extent.
            let at = b.emit(format_args!("arith.subi {padded}, {begin} : index"));
            let end = b.emit(format_args!("arith.constant {} : index", pads[axis] + [height, width][axis]));
            let low = b.emit(format_args!("arith.cmpi sge, {padded}, {begin} : index"));
            let high = b.emit(format_args!("arith.cmpi slt, {padded}, {end} : index"));
            let both = b.emit(format_args!("arith.andi {low}, {high} : i1"));
            inside = b.emit(format_args!("arith.andi {inside}, {both} : i1"));
            position.push(at);
        }
        // ((n * C + c) * H + h) * W + w
        let (n, c) = (b.index(0), b.index(1));
        let (cs, hs, ws) = (
            b.emit(format_args!("arith.constant {channels} : index")),
            b.emit(format_args!("arith.constant {height} : index")),
            b.emit(format_args!("arith.constant {width} : index")),
        );
        let nc = b.emit(format_args!("arith.muli {n}, {cs} : index"));
        let nc = b.emit(format_args!("arith.addi {nc}, {c} : index"));
        let nch = b.emit(format_args!("arith.muli {nc}, {hs} : index"));
        let nch = b.emit(format_args!("arith.addi {nch}, {} : index", position[0]));
        let flat = b.emit(format_args!("arith.muli {nch}, {ws} : index"));
        let flat = b.emit(format_args!("arith.addi {flat}, {} : index", position[1]));
        let flat = b.emit(format_args!("arith.index_cast {flat} : index to i64"));
        let none = b.emit(format_args!("arith.constant {} : i64", i64::MAX));
        let candidate = b.emit(format_args!("arith.select {inside}, {flat}, {none} : i64"));
        b.emit(format_args!("arith.minsi {}, {candidate} : i64", a[3]))
    });
    if !column_major {
        return Ok(row_major);
    }
    // The first maximum is the smallest row-major index; renumber it column major.
    let empty = k.empty(out);
    Ok(k.generic(
        &[(&row_major, out, Map::identity(4))],
        (&empty, out, Map::identity(4)),
        &[Iter::Parallel; 4],
        |b, a| {
            let i = a[0].clone();
            let plane = b.emit(format_args!("arith.constant {} : i64", height * width));
            let w_size = b.emit(format_args!("arith.constant {width} : i64"));
            let h_size = b.emit(format_args!("arith.constant {height} : i64"));
            let base = b.emit(format_args!("arith.divsi {i}, {plane} : i64"));
            let base = b.emit(format_args!("arith.muli {base}, {plane} : i64"));
            let within = b.emit(format_args!("arith.subi {i}, {base} : i64"));
            let h = b.emit(format_args!("arith.divsi {within}, {w_size} : i64"));
            let w = b.emit(format_args!("arith.remsi {within}, {w_size} : i64"));
            let wh = b.emit(format_args!("arith.muli {w}, {h_size} : i64"));
            let moved = b.emit(format_args!("arith.addi {wh}, {h} : i64"));
            let moved = b.emit(format_args!("arith.addi {base}, {moved} : i64"));
            // A window without an equal element keeps its marker.
            let none = b.emit(format_args!("arith.constant {} : i64", i64::MAX));
            let found = b.emit(format_args!("arith.cmpi ne, {i}, {none} : i64"));
            b.emit(format_args!("arith.select {found}, {moved}, {none} : i64"))
        },
    ))
}

/// `linalg.pooling_nchw_max` over the input padded with the type's lowest value (signed order).
fn signed_max_pool(k: &mut Kernel, x: &str, ty: &TensorTy, window: Window, out: &TensorTy) -> String {
    let Window { kernel, strides, dilations, .. } = window;
    let elem = ty.elem.clone();
    let pads = window.fitting_pads(ty, out);
    let (xp, xp_ty) = pad_hw(k, x, ty, pads, &elem.lowest());
    let (window, window_ty) = window_shape(k, kernel);
    let init = k.filled(&elem.lowest(), out);
    let attrs = window_attributes(strides, dilations);
    k.emit(format_args!(
        "linalg.pooling_nchw_max {attrs} ins({xp}, {window} : {xp_ty}, {window_ty}) outs({init} : {out}) -> {out}"
    ))
}

/// Average pooling: a sum pool over the zero-padded input, divided by the number of window
/// taps (dilated) inside the input (or inside input + pads when `count_include_pad`).
pub fn average_pool(k: &mut Kernel, window: Window, count_include_pad: bool, out: &TensorTy) -> Result<String, Error> {
    let Window { kernel, strides, pads, dilations } = window;
    let ty = k.arg_type(0).clone();
    let elem: Elem = ty.elem.clone();
    if !elem.is_float() {
        return Err(elem.unsupported("average_pool"));
    }
    let x = k.arg(0);
    let padded = window.fitting_pads(&ty, out);
    let (xp, xp_ty) = pad_hw(k, &x, &ty, padded, &elem.literal(0.0));
    let (window, window_ty) = window_shape(k, kernel);
    let init = k.filled(&elem.literal(0.0), out);
    let attrs = window_attributes(strides, dilations);
    let sum = k.emit(format_args!(
        "linalg.pooling_nchw_sum {attrs} ins({xp}, {window} : {xp_ty}, {window_ty}) outs({init} : {out}) -> {out}"
    ));
    let empty = k.empty(out);
    Ok(k.generic(&[(&sum, out, Map::identity(4))], (&empty, out, Map::identity(4)), &[Iter::Parallel; 4], |b, a| {
        let mut count = String::new();
        for axis in 0..2 {
            // Taps start + t*d for t in [0, kernel) that fall in the counted range [lo, hi):
            // t from ceil((lo - start) / d) (at least 0) to floor((hi - 1 - start) / d) (at most
            // kernel - 1); both divisions are on non-negative numerators.
            let (lo, hi) = if count_include_pad {
                (-pads[axis], ty.shape[2 + axis] + pads[2 + axis])
            } else {
                (0, ty.shape[2 + axis])
            };
            let c = |b: &mut crate::kernel::Body, v: i64| b.emit(format_args!("arith.constant {v} : index"));
            let i = b.index(2 + axis);
            let stride = c(b, strides[axis]);
            let begin = c(b, pads[axis]);
            let scaled = b.emit(format_args!("arith.muli {i}, {stride} : index"));
            let start = b.emit(format_args!("arith.subi {scaled}, {begin} : index"));
            let (lo, hi, zero, one, minus_one) = (c(b, lo), c(b, hi), c(b, 0), c(b, 1), c(b, -1));
            let (d, d_less_one, last_tap) = (c(b, dilations[axis]), c(b, dilations[axis] - 1), c(b, kernel[axis] - 1));
            let before = b.emit(format_args!("arith.subi {lo}, {start} : index"));
            let before = b.emit(format_args!("arith.maxsi {before}, {zero} : index"));
            let rounded = b.emit(format_args!("arith.addi {before}, {d_less_one} : index"));
            let first = b.emit(format_args!("arith.divsi {rounded}, {d} : index"));
            let top = b.emit(format_args!("arith.subi {hi}, {start} : index"));
            let top = b.emit(format_args!("arith.subi {top}, {one} : index"));
            let top = b.emit(format_args!("arith.maxsi {top}, {minus_one} : index"));
            let shifted = b.emit(format_args!("arith.addi {top}, {d} : index"));
            let last = b.emit(format_args!("arith.divsi {shifted}, {d} : index"));
            let last = b.emit(format_args!("arith.subi {last}, {one} : index"));
            let last = b.emit(format_args!("arith.minsi {last}, {last_tap} : index"));
            let span = b.emit(format_args!("arith.subi {last}, {first} : index"));
            let span = b.emit(format_args!("arith.addi {span}, {one} : index"));
            let extent = b.emit(format_args!("arith.maxsi {span}, {zero} : index"));
            count =
                if count.is_empty() { extent } else { b.emit(format_args!("arith.muli {count}, {extent} : index")) };
        }
        let wide = b.emit(format_args!("arith.index_cast {count} : index to i64"));
        let divisor = b.emit(format_args!("arith.sitofp {wide} : i64 to {elem}"));
        b.emit(format_args!("arith.divf {}, {divisor} : {elem}", a[0]))
    }))
}
