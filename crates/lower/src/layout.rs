//! Data-movement sg ops: reshape, transpose, slice, concat, gather, expand, tile, pad, view.
//! Reshapes and contiguous slices become tensor ops that bufferize to memref views (no copy);
//! the rest are `linalg` ops or `linalg.generic`s that compute their source index.

use crate::kernel::{Iter, Kernel, Map, TensorTy};

/// `value` (of type `from`) reshaped to `to` (same element count, row-major order):
/// `tensor.collapse_shape` to one dimension, then `tensor.expand_shape`.
pub fn reshape(k: &mut Kernel, value: &str, from: &TensorTy, to: &TensorTy) -> String {
    if from.shape == to.shape {
        return value.to_string();
    }
    let all = |rank: usize| format!("[{}]", (0..rank).map(|d| d.to_string()).collect::<Vec<_>>().join(", "));
    let sizes = |ty: &TensorTy| ty.shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    // Rank 0 <-> all-ones shapes: an empty reassociation.
    if from.rank() == 0 {
        return k.emit(format_args!("tensor.expand_shape {value} [] output_shape [{}] : {from} into {to}", sizes(to)));
    }
    if to.rank() == 0 {
        return k.emit(format_args!("tensor.collapse_shape {value} [] : {from} into {to}"));
    }
    let flat = TensorTy::new(vec![from.numel()], from.elem.clone());
    let mut current = value.to_string();
    if from.rank() > 1 {
        current = k.emit(format_args!("tensor.collapse_shape {current} [{}] : {from} into {flat}", all(from.rank())));
    }
    if to.rank() > 1 {
        current = k.emit(format_args!(
            "tensor.expand_shape {current} [{}] output_shape [{}] : {flat} into {to}",
            all(to.rank()),
            sizes(to)
        ));
    }
    current
}

pub fn transpose(k: &mut Kernel, perm: &[i64], out: &TensorTy) -> String {
    let init = k.empty(out);
    let input = k.arg(0);
    let in_ty = k.arg_type(0).clone();
    let perm: Vec<String> = perm.iter().map(i64::to_string).collect();
    k.emit(format_args!(
        "linalg.transpose ins({input} : {in_ty}) outs({init} : {out}) permutation = [{}]",
        perm.join(", ")
    ))
}

/// Positive steps: `tensor.extract_slice` (a strided view after bufferization). A negative
/// step reads `start + i * step` through a `linalg.generic`.
pub fn slice(k: &mut Kernel, starts: &[i64], steps: &[i64], out: &TensorTy) -> String {
    let input = k.arg(0);
    let in_ty = k.arg_type(0).clone();
    let list = crate::nn::list;
    if steps.iter().all(|&s| s > 0) {
        // An empty result may start anywhere (even past the end); extract_slice wants 0.
        let starts: Vec<i64> = if out.numel() == 0 { vec![0; starts.len()] } else { starts.to_vec() };
        let starts = starts.as_slice();
        return k.emit(format_args!(
            "tensor.extract_slice {input}[{}] [{}] [{}] : {in_ty} to {out}",
            list(starts),
            list(&out.shape),
            list(steps)
        ));
    }
    gather_by_index(k, out, |b, d| {
        let i = b.index(d);
        let step = b.emit(format_args!("arith.constant {} : index", steps[d]));
        let start = b.emit(format_args!("arith.constant {} : index", starts[d]));
        let offset = b.emit(format_args!("arith.muli {i}, {step} : index"));
        b.emit(format_args!("arith.addi {start}, {offset} : index"))
    })
}

/// A `linalg.generic` over `out` whose element is `arg0[index(b, d) for each input dim d]`.
fn gather_by_index(
    k: &mut Kernel,
    out: &TensorTy,
    index: impl Fn(&mut crate::kernel::Body, usize) -> String,
) -> String {
    let init = k.empty(out);
    let input = k.arg(0);
    let in_ty = k.arg_type(0).clone();
    k.generic(&[], (&init, out, Map::identity(out.rank())), &vec![Iter::Parallel; out.rank()], |b, _| {
        let indices: Vec<String> = (0..in_ty.rank()).map(|d| index(b, d)).collect();
        let value = b.emit(format_args!("tensor.extract {input}[{}] : {in_ty}", indices.join(", ")));
        b.from_storage(&value, &in_ty.elem)
    })
}

/// Two tensors joined along `axis`: two `tensor.insert_slice`s into one result.
pub fn concat(k: &mut Kernel, axis: usize, out: &TensorTy) -> String {
    let init = k.empty(out);
    let (lhs, rhs) = (k.arg(0), k.arg(1));
    let (lhs_ty, rhs_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone());
    let list = crate::nn::list;
    let ones = vec![1; out.rank()];
    let zeros = vec![0; out.rank()];
    let mut offsets = zeros.clone();
    offsets[axis] = lhs_ty.shape[axis];
    // An empty operand adds nothing (and an insert at the end of the axis is out of bounds).
    if rhs_ty.numel() == 0 && lhs_ty.numel() == 0 {
        return init;
    }
    if rhs_ty.numel() == 0 {
        return k.emit(format_args!(
            "tensor.insert_slice {lhs} into {init}[{}] [{}] [{}] : {lhs_ty} into {out}",
            list(&zeros),
            list(&lhs_ty.shape),
            list(&ones)
        ));
    }
    if lhs_ty.numel() == 0 {
        return k.emit(format_args!(
            "tensor.insert_slice {rhs} into {init}[{}] [{}] [{}] : {rhs_ty} into {out}",
            list(&zeros),
            list(&rhs_ty.shape),
            list(&ones)
        ));
    }
    let first = k.emit(format_args!(
        "tensor.insert_slice {lhs} into {init}[{}] [{}] [{}] : {lhs_ty} into {out}",
        list(&zeros),
        list(&lhs_ty.shape),
        list(&ones)
    ));
    k.emit(format_args!(
        "tensor.insert_slice {rhs} into {first}[{}] [{}] [{}] : {rhs_ty} into {out}",
        list(&offsets),
        list(&rhs_ty.shape),
        list(&ones)
    ))
}

/// `data` gathered along `axis` at `indices`; negative indices count from the end and
/// out-of-range ones are clamped (ONNX leaves them undefined; Strata never reads outside).
pub fn gather(k: &mut Kernel, axis: usize, out: &TensorTy) -> String {
    let init = k.empty(out);
    let (data, indices) = (k.arg(0), k.arg(1));
    let (data_ty, idx_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone());
    let q = idx_ty.rank();
    let dim = data_ty.shape[axis];
    k.generic(
        &[(&indices, &idx_ty, Map::dims(axis..axis + q))],
        (&init, out, Map::identity(out.rank())),
        &vec![Iter::Parallel; out.rank()],
        |b, a| {
            let raw = b.emit(format_args!("arith.index_cast {} : {} to index", a[0], idx_ty.elem));
            let zero = b.emit("arith.constant 0 : index");
            let size = b.emit(format_args!("arith.constant {dim} : index"));
            let last = b.emit(format_args!("arith.constant {} : index", (dim - 1).max(0)));
            let wrapped = b.emit(format_args!("arith.addi {raw}, {size} : index"));
            let negative = b.emit(format_args!("arith.cmpi slt, {raw}, {zero} : index"));
            let index = b.emit(format_args!("arith.select {negative}, {wrapped}, {raw} : index"));
            let low = b.emit(format_args!("arith.maxsi {index}, {zero} : index"));
            let index = b.emit(format_args!("arith.minsi {low}, {last} : index"));
            let coords: Vec<String> = (0..data_ty.rank())
                .map(|d| {
                    if d < axis {
                        b.index(d)
                    } else if d == axis {
                        index.clone()
                    } else {
                        b.index(d + q - 1)
                    }
                })
                .collect();
            let value = b.emit(format_args!("tensor.extract {data}[{}] : {data_ty}", coords.join(", ")));
            b.from_storage(&value, &data_ty.elem)
        },
    )
}

/// Broadcast to the result shape.
pub fn expand(k: &mut Kernel, out: &TensorTy) -> String {
    let init = k.empty(out);
    let input = k.arg(0);
    let in_ty = k.arg_type(0).clone();
    k.generic(
        &[(&input, &in_ty, Map::broadcast(&in_ty.shape, &out.shape))],
        (&init, out, Map::identity(out.rank())),
        &vec![Iter::Parallel; out.rank()],
        |_, a| a[0].clone(),
    )
}

/// Each dimension repeated: element `i` reads `i mod size`.
pub fn tile(k: &mut Kernel, out: &TensorTy) -> String {
    let in_ty = k.arg_type(0).clone();
    gather_by_index(k, out, |b, d| {
        let i = b.index(d);
        let size = b.emit(format_args!("arith.constant {} : index", in_ty.shape[d]));
        b.emit(format_args!("arith.remui {i}, {size} : index"))
    })
}

/// Padding: mode 0 is `tensor.pad` with `value`; 1 (reflect), 2 (edge) and 3 (wrap) are the
/// input inserted into the interior and copies into the borders ([`pad_by_regions`]) with
/// `regions` (a host), else they compute the source index of every element.
pub fn pad(k: &mut Kernel, pads: &[i64], mode: i64, value: f64, out: &TensorTy, regions: bool) -> String {
    let rank = out.rank();
    let in_ty = k.arg_type(0).clone();
    if regions && mode != 0 {
        if let Some(padded) = pad_by_regions(k, pads, mode, out) {
            return padded;
        }
    }
    if mode == 0 {
        let input = k.arg(0);
        let list = crate::nn::list;
        let fill = k.stored_constant(&in_ty.elem.literal(value), &in_ty.elem);
        let idx: Vec<String> = (0..rank).map(|d| format!("%i{d}: index")).collect();
        return k.emit(format_args!(
            "tensor.pad {input} low[{}] high[{}] {{\n    ^bb0({}):\n      tensor.yield {fill} : {}\n    }} : {in_ty} to {out}",
            list(&pads[..rank]),
            list(&pads[rank..]),
            idx.join(", "),
            in_ty.elem.storage()
        ));
    }
    gather_by_index(k, out, |b, d| {
        let i = b.index(d);
        if pads[d] == 0 && pads[d + rank] == 0 {
            // An axis without padding reads where it writes.
            return i;
        }
        if mode == 3 {
            // Wrap: (i - begin) mod n, kept non-negative by adding a multiple of n first.
            let n = in_ty.shape[d].max(1);
            let lift = b.emit(format_args!("arith.constant {} : index", (n - pads[d] % n) % n));
            let size = b.emit(format_args!("arith.constant {n} : index"));
            let lifted = b.emit(format_args!("arith.addi {i}, {lift} : index"));
            return b.emit(format_args!("arith.remui {lifted}, {size} : index"));
        }
        let begin = b.emit(format_args!("arith.constant {} : index", pads[d]));
        let zero = b.emit("arith.constant 0 : index");
        let last = b.emit(format_args!("arith.constant {} : index", in_ty.shape[d] - 1));
        let shifted = b.emit(format_args!("arith.subi {i}, {begin} : index"));
        if mode == 2 {
            let low = b.emit(format_args!("arith.maxsi {shifted}, {zero} : index"));
            return b.emit(format_args!("arith.minsi {low}, {last} : index"));
        }
        // Reflect: -j below the start, 2 * last - j past the end.
        let mirrored = b.emit(format_args!("arith.subi {zero}, {shifted} : index"));
        let below = b.emit(format_args!("arith.maxsi {shifted}, {mirrored} : index"));
        let twice = b.emit(format_args!("arith.addi {last}, {last} : index"));
        let folded = b.emit(format_args!("arith.subi {twice}, {below} : index"));
        b.emit(format_args!("arith.minsi {below}, {folded} : index"))
    })
}

/// Reflect (1), edge (2) or wrap (3) padding as regions of the padded tensor: the input
/// inserted into the interior, then each border region (up to 3^k - 1 of them for k padded
/// axes: sides and corners) a copy of the interior through one affine index per axis:
/// mirrored for reflect, a constant for edge, shifted for wrap. Each is a plain vectorised
/// copy; computing every element's source index instead was a scalar gather over the whole
/// padded tensor (a style-transfer network's five reflection pads: 1.87 -> 1.30 ms, the same
/// bits).
///
/// So that the input's producer can write straight into the interior (`strata-choose-in-place`
/// decides where that pays), nothing reads the input but its insertion, and no op reads and
/// writes the padded buffer at once: every border is first *staged*, read from the padded
/// tensor's interior through its index into a small tensor of its own, then copied into its
/// border (the next border staged from the padded tensor as it is then: each stage lives only
/// until its copy, so one small buffer serves them all). Reading the input after its insertion was
/// a conflict to One-Shot Bufferize once the producer wrote into the interior (it copied the
/// input back out), and a copy from the interior straight into a border (one op reading and
/// writing one buffer) made it copy the whole padded tensor. A stage has a leading unit axis,
/// so its write is a generic whose two maps differ: an identity copy would be erased by
/// canonicalisation, and `eliminate-empty-tensors` would fold the stage back into the border
/// through a `linalg.copy` or an `insert_slice` (both subset insertions to it). The stages
/// cost a second copy of the borders (a style-transfer network: 8.52 -> 6.77 MB of arena, 16.6
/// -> 15.6 ms, the same bits: its upsampling writes into its padded buffer). `None` where an amount
/// is negative or a wrap amount reaches past the input (the per-element form handles those;
/// the verifier keeps reflect amounts within the input).
fn pad_by_regions(k: &mut Kernel, pads: &[i64], mode: i64, out: &TensorTy) -> Option<String> {
    let rank = out.rank();
    let in_ty = k.arg_type(0).clone();
    let fits = (0..rank).all(|d| {
        let (lo, hi, n) = (pads[d], pads[d + rank], in_ty.shape[d]);
        lo >= 0
            && hi >= 0
            && n >= 1
            && match mode {
                1 => lo < n && hi < n,
                2 => true,
                3 => lo <= n && hi <= n,
                _ => false,
            }
    });
    if !fits {
        return None;
    }
    // Per axis, its regions: where they start in the result, their size, the part of the
    // input's axis they read (`from`, `reads` long), and the index into that part of a
    // region's position `t` (`None`: the interior, `t` itself). A plain index reads a part as
    // long as the region (linalg infers the loop's extent from it).
    struct Region {
        at: i64,
        size: i64,
        index: Option<String>,
        from: i64,
        reads: i64,
    }
    let regions: Vec<Vec<Region>> = (0..rank)
        .map(|d| {
            let (lo, hi, n) = (pads[d], pads[d + rank], in_ty.shape[d]);
            let mut axis = Vec::new();
            if lo > 0 {
                // Reflect: t reads input row lo - t, of rows 1..=lo; edge: row 0; wrap: n - lo + t.
                let (index, from, reads) = match mode {
                    1 => (format!("{} - d{}", lo - 1, d + 1), 1, lo),
                    2 => ("0".to_owned(), 0, 1),
                    _ => (format!("d{}", d + 1), n - lo, lo),
                };
                axis.push(Region { at: 0, size: lo, index: Some(index), from, reads });
            }
            axis.push(Region { at: lo, size: n, index: None, from: 0, reads: n });
            if hi > 0 {
                // Reflect: t reads input row n - 2 - t, of rows n - 1 - hi..=n - 2; edge: row
                // n - 1; wrap: t.
                let (index, from, reads) = match mode {
                    1 => (format!("{} - d{}", hi - 1, d + 1), n - 1 - hi, hi),
                    2 => ("0".to_owned(), n - 1, 1),
                    _ => (format!("d{}", d + 1), 0, hi),
                };
                axis.push(Region { at: lo + n, size: hi, index: Some(index), from, reads });
            }
            axis
        })
        .collect();
    let list = crate::nn::list;
    let ones = list(&vec![1; rank]);
    let input = k.arg(0);
    let dest = k.empty(out);
    let interior = k.emit(format_args!(
        "tensor.insert_slice {input} into {dest}[{}] [{}] [{ones}] : {in_ty} into {out}",
        list(&pads[..rank]),
        list(&in_ty.shape)
    ));
    // Every combination of one region per axis but the interior's, the first axis outermost:
    // each staged from the interior as it is now, then written. A stage's leading unit axis
    // makes its write a generic whose maps differ (an identity copy canonicalisation erases;
    // `eliminate-empty-tensors` follows a `linalg.copy` or an `insert_slice`).
    let unit = Map(std::iter::once("0".to_owned()).chain((0..rank).map(|d| format!("d{d}"))).collect());
    let mut padded = interior;
    let mut choice = vec![0usize; rank];
    loop {
        let picked: Vec<&Region> = (0..rank).map(|d| &regions[d][choice[d]]).collect();
        if picked.iter().any(|region| region.index.is_some()) {
            let map = Map(picked
                .iter()
                .enumerate()
                .map(|(d, region)| region.index.clone().unwrap_or_else(|| format!("d{}", d + 1)))
                .collect());
            let from: Vec<i64> = picked.iter().enumerate().map(|(d, region)| pads[d] + region.from).collect();
            let read: Vec<i64> = picked.iter().map(|region| region.reads).collect();
            let source_ty = in_ty.with_shape(read.clone());
            let source = k.emit(format_args!(
                "tensor.extract_slice {padded}[{}] [{}] [{ones}] : {out} to {source_ty}",
                list(&from),
                list(&read)
            ));
            let sizes: Vec<i64> = picked.iter().map(|region| region.size).collect();
            let staged_ty = out.with_shape(std::iter::once(1).chain(sizes.iter().copied()).collect());
            let init = k.empty(&staged_ty);
            let stage = k.generic(
                &[(&source, &source_ty, map)],
                (&init, &staged_ty, Map::identity(rank + 1)),
                &vec![Iter::Parallel; rank + 1],
                |_, a| a[0].clone(),
            );
            let region_ty = out.with_shape(sizes.clone());
            let offsets: Vec<i64> = picked.iter().map(|region| region.at).collect();
            let (offsets, sizes) = (list(&offsets), list(&sizes));
            let slice = k.emit(format_args!(
                "tensor.extract_slice {padded}[{offsets}] [{sizes}] [{ones}] : {out} to {region_ty}"
            ));
            let copy = k.generic(
                &[(&stage, &staged_ty, unit.clone())],
                (&slice, &region_ty, Map::identity(rank)),
                &vec![Iter::Parallel; rank],
                |_, a| a[0].clone(),
            );
            padded = k.emit(format_args!(
                "tensor.insert_slice {copy} into {padded}[{offsets}] [{sizes}] [{ones}] : {region_ty} into {out}"
            ));
        }
        // The next combination, the last axis fastest.
        let Some(d) = (0..rank).rev().find(|&d| choice[d] + 1 < regions[d].len()) else { break };
        choice[d] += 1;
        choice[d + 1..].iter_mut().for_each(|c| *c = 0);
    }
    Some(padded)
}

/// `storage[offset + sum(i_k * strides[k])]` of the operand's row-major storage: a copy
/// reading the view as a fused kernel reads a view operand (`crate::fused::read_view`: the
/// base's own axes, or its storage sliced and reshaped so each view axis is one axis), so
/// the copy vectorizes as a (transposing, broadcasting) elementwise copy. Only a view whose
/// axes do not nest is read through one index over the storage.
pub fn view(k: &mut Kernel, offset: i64, strides: &[i64], out: &TensorTy) -> String {
    let in_ty = k.arg_type(0).clone();
    let input = k.arg(0);
    let layout = crate::fused::Layout { offset, shape: out.shape.clone(), strides: strides.to_vec() };
    let (value, ty, map) = crate::fused::read_view(k, &input, &in_ty, &layout, &[], true);
    let init = k.empty(out);
    k.generic(
        &[(&value, &ty, map)],
        (&init, out, Map::identity(out.rank())),
        &vec![Iter::Parallel; out.rank()],
        |_, args| args[0].clone(),
    )
}
