//! `sg.fused`: one `linalg.generic` for a fused elementwise program. An operand that is an
//! `sg.view` of a larger buffer is not copied: the generic reads the view's base directly,
//! through an affine map on the base's own axes when the view slices, transposes or broadcasts
//! it axis by axis, else through `offset + Σ d_k · stride_k` over the collapsed base. An
//! in-place kernel writes into its first operand (`outs` is that tensor), so one-shot
//! bufferization reuses its buffer; an epilogue's generic is marked `strata.epilogue` for the
//! host schedule, which runs it inside the tiles of the kernel that produced operand 0. A
//! reduced program (`reduce`) is one reducing generic whose body computes the element and
//! combines it (`crate::reduce::reduce_computed`): the elements are never stored.

use crate::kernel::{Iter, Kernel, Map, TensorTy};
use crate::ops::{tensor_type, Lowered};
use melior::ir::{Value, ValueLike};
use strata_dialect_sg::{Fused, Program, View};
use strata_ir::Error;

/// A view operand: the layout it reads its base with.
#[derive(Debug, PartialEq)]
pub(crate) struct Layout {
    pub offset: i64,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
}

/// The values a fused kernel takes: `fused`'s operands, each `sg.view` replaced by its base.
/// (Read when the kernel is inlined, so they are the values of that moment.)
pub fn operands<'c, 'a>(fused: Fused<'c, 'a>) -> Vec<Value<'c, 'a>> {
    fused.inputs().into_iter().map(|v| view_of(v).map_or(v, |view| view.input())).collect()
}

fn view_of<'c, 'a>(value: Value<'c, 'a>) -> Option<View<'c, 'a>> {
    strata_ir::rewrite::defining_op(value).and_then(View::cast)
}

/// The kernel of `fused`, over [`operands`].
pub fn kernel(fused: Fused<'_, '_>) -> Result<Lowered, Error> {
    let program: Program = fused.program().parse().map_err(|e| format!("'sg.fused' program: {e}"))?;
    let reduction = fused.reduction()?;
    let out = tensor_type(fused.output().r#type())?;
    // The loops: the result's, or the operands' when the program is reduced.
    let space = match (&reduction, fused.inputs().first()) {
        (Some(_), Some(first)) => tensor_type(first.r#type())?,
        (Some(_), None) => return Err("a reduced 'sg.fused' program needs an operand".into()),
        (None, _) => out.clone(),
    };
    let operands = operands(fused);
    let views: Vec<Option<Layout>> = fused
        .inputs()
        .into_iter()
        .map(|v| view_of(v).map(|view| Layout { offset: view.offset(), shape: view.sizes(), strides: view.strides() }))
        .collect();
    let types = operands.iter().map(|v| tensor_type(v.r#type())).collect::<Result<Vec<_>, _>>()?;
    let elem = out.elem.clone();
    let mut k = Kernel::new(types.clone());
    let rank = space.rank();
    let reduced: Vec<bool> = match &reduction {
        Some((_, axes)) => (0..rank).map(|d| axes.contains(&(d as i64))).collect(),
        None => vec![false; rank],
    };
    let mut inputs: Vec<(String, TensorTy, Map)> = Vec::new();
    for (i, (ty, view)) in types.iter().zip(&views).enumerate() {
        let arg = k.arg(i);
        match view {
            None => inputs.push((arg, ty.clone(), Map::identity(rank))),
            Some(layout) => {
                let walked: Vec<usize> =
                    (0..rank).filter(|&d| reduced[d] && layout.shape[d] > 1 && layout.strides[d] != 0).collect();
                inputs.push(read_view(&mut k, &arg, ty, layout, &walked, false));
            }
        }
    }
    let refs: Vec<(&str, &TensorTy, Map)> = inputs.iter().map(|(v, t, m)| (v.as_str(), t, m.clone())).collect();
    if let Some((how, _)) = reduction {
        // linalg takes each loop's extent from an operand axis that is the bare loop: when no
        // operand gives a reduced loop's (a size-1 axis, a view read through its collapsed
        // base), the program's elements are computed first and then reduced, as two ops would.
        let all: Vec<usize> = (0..rank).filter(|&d| reduced[d]).collect();
        let (value, ty) = if covered(&refs, &all) {
            crate::reduce::reduce_computed(&mut k, &refs, &space, &reduced, how, |b, block_args| {
                crate::elementwise::program(b, &program, block_args, &elem)
            })?
        } else {
            let init = k.empty(&space);
            let elements = k.try_generic(
                &refs,
                (&init, &space, Map::identity(rank)),
                &vec![Iter::Parallel; rank],
                |b, block_args| crate::elementwise::program(b, &program, block_args, &elem),
            )?;
            crate::reduce::reduce(&mut k, &elements, &space, &reduced, how)?
        };
        let result = crate::layout::reshape(&mut k, &value, &ty, &out);
        k.set_result(result, out);
        return Ok(Lowered { kernel: k, reads: crate::ops::Reads::ViewBases });
    }
    let epilogue = fused.epilogue() == Some(1);
    // In place: the output is the first operand's tensor (not a view of another buffer: at
    // tensor level that would be a copy), which bufferization then reuses. An epilogue always
    // writes over its kernel's result.
    let written = (epilogue || fused.in_place() == Some(1)) && views.first().is_some_and(Option::is_none);
    let init = if written { k.arg(0) } else { k.empty(&out) };
    let marker = if epilogue { strata_ir::attrs::EPILOGUE.in_dictionary() } else { "" };
    let result = k.try_generic_with_attributes(
        marker,
        &refs,
        (&init, &out, Map::identity(rank)),
        &vec![Iter::Parallel; rank],
        |b, block_args| crate::elementwise::program(b, &program, block_args, &elem),
    )?;
    k.set_result(result, out);
    Ok(Lowered { kernel: k, reads: crate::ops::Reads::ViewBases })
}

/// How a generic reads the view `layout` of `base` (a value of type `ty`): the operand, its
/// type and its map over the view's loops. On the base's own axes when the view is a per-axis
/// slice / transpose / broadcast of it (vectorises like any projected map), else over the
/// collapsed base; a view without such a map whose axes nest is read as its base sliced and
/// reshaped ([`MixedRadix`]), one bare loop an axis. `walked` are loops no output axis gives
/// the extent of (reduced ones): a per-axis map that does not give each as a whole axis gives
/// way to the reshaped base too, and so does one with offsets or steps when `projected`
/// (the reader vectorizes only projected maps: a copy). Only the last resort,
/// `offset + Σ d_k · stride_k` over the collapsed base, is not a per-axis map (a gather).
pub(crate) fn read_view(
    k: &mut Kernel,
    base: &str,
    ty: &TensorTy,
    layout: &Layout,
    walked: &[usize],
    projected: bool,
) -> (String, TensorTy, Map) {
    let per_axis = per_axis_map(&ty.shape, layout);
    let bare = |exprs: &Vec<String>| exprs.iter().all(|e| e == "0" || (e.starts_with('d') && !e.contains(' ')));
    let whole = per_axis.as_ref().is_some_and(|exprs| covers(exprs, walked) && (!projected || bare(exprs)));
    let flat = TensorTy::new(vec![ty.numel()], ty.elem.clone());
    if let Some(radix) = MixedRadix::of(ty.numel(), layout).filter(|_| !whole) {
        let collapsed = crate::layout::reshape(k, base, ty, &flat);
        let (value, sliced, exprs) = radix.emit(k, &collapsed, &flat);
        return (value, sliced, Map(exprs));
    }
    if let Some(exprs) = per_axis {
        return (base.to_owned(), ty.clone(), Map(exprs));
    }
    let collapsed = crate::layout::reshape(k, base, ty, &flat);
    let mut expr = layout.offset.to_string();
    for (d, stride) in layout.strides.iter().enumerate() {
        expr += &format!(" + d{d} * {stride}");
    }
    (collapsed, flat, Map(vec![expr]))
}

/// Whether each loop of `loops` is a bare result (`dK`) of `exprs`.
fn covers(exprs: &[String], loops: &[usize]) -> bool {
    loops.iter().all(|d| exprs.iter().any(|e| *e == format!("d{d}")))
}

/// Whether each loop of `loops` is a bare result of some operand's map.
fn covered(inputs: &[(&str, &TensorTy, Map)], loops: &[usize]) -> bool {
    loops.iter().all(|&d| inputs.iter().any(|(_, _, map)| covers(&map.0, &[d])))
}

/// A view whose walked axes nest (each one's stride a multiple of the next's, its elements
/// within that stride) read as a slice of its base reshaped: the flat base from the offset,
/// expanded to `[n_0, S_0 / S_1, ..., S_r]` (view axes by falling stride `S_i`, the last
/// factor only when `S_r > 1`), then sliced to each walked axis's size. Each walked view axis
/// is then a bare loop over a whole axis: linalg can take the loop's extent from it, which a
/// reduced loop needs (it has no output axis). Slices and reshapes of a buffer are views after
/// bufferization: nothing is copied.
#[derive(Debug, PartialEq)]
struct MixedRadix {
    /// Where the expanded line starts in the flat base: the view's offset rounded down to a
    /// multiple of the largest stride (the rest is in `starts`).
    offset: i64,
    /// The view axes walked, by falling stride.
    axes: Vec<usize>,
    /// The expanded shape.
    expanded: Vec<i64>,
    /// Where the slice starts on each expanded axis: the rest of the view's offset in the
    /// expanded shape's digits.
    starts: Vec<i64>,
    /// The sizes read of each expanded axis.
    sizes: Vec<i64>,
}

impl MixedRadix {
    fn of(numel: i64, layout: &Layout) -> Option<MixedRadix> {
        let mut axes: Vec<usize> =
            (0..layout.shape.len()).filter(|&k| layout.shape[k] > 1 && layout.strides[k] != 0).collect();
        axes.sort_by_key(|&k| std::cmp::Reverse(layout.strides[k]));
        let (&first, &last) = (axes.first()?, axes.last()?);
        if layout.strides[last] < 1 || layout.offset < 0 {
            return None;
        }
        let mut expanded = vec![layout.shape[first]];
        let mut sizes = vec![layout.shape[first]];
        let mut strides = vec![layout.strides[first]];
        for pair in axes.windows(2) {
            let (outer, inner) = (layout.strides[pair[0]], layout.strides[pair[1]]);
            let factor = outer / inner;
            if outer % inner != 0 || layout.shape[pair[1]] > factor {
                return None;
            }
            expanded.push(factor);
            sizes.push(layout.shape[pair[1]]);
            strides.push(inner);
        }
        if layout.strides[last] > 1 {
            expanded.push(layout.strides[last]);
            sizes.push(1);
            strides.push(1);
        }
        // The offset in the expanded shape's digits: whole rows of the outermost axis move the
        // line's start, the rest starts the slice inside each axis (where it still fits).
        let offset = layout.offset - layout.offset % strides[0];
        let mut rest = layout.offset % strides[0];
        let mut starts = vec![0; expanded.len()];
        for e in 1..expanded.len() {
            starts[e] = rest / strides[e];
            rest %= strides[e];
            if starts[e] + sizes[e] > expanded[e] {
                return None;
            }
        }
        let length: i64 = expanded.iter().product();
        (rest == 0 && offset + length <= numel).then_some(MixedRadix { offset, axes, expanded, starts, sizes })
    }

    /// The sliced, expanded base (from `flat`, the collapsed base of type `flat_ty`), its type
    /// and the map reading it over the view's loops.
    fn emit(&self, k: &mut Kernel, flat: &str, flat_ty: &TensorTy) -> (String, TensorTy, Vec<String>) {
        let length: i64 = self.expanded.iter().product();
        let list = crate::nn::list;
        let line = TensorTy::new(vec![length], flat_ty.elem.clone());
        let line_value = if length == flat_ty.numel() {
            flat.to_owned()
        } else {
            k.emit(format_args!("tensor.extract_slice {flat}[{}] [{length}] [1] : {flat_ty} to {line}", self.offset))
        };
        let expanded = TensorTy::new(self.expanded.clone(), flat_ty.elem.clone());
        let all = (0..self.expanded.len()).map(|d| d.to_string()).collect::<Vec<_>>().join(", ");
        let expanded_value = k.emit(format_args!(
            "tensor.expand_shape {line_value} [[{all}]] output_shape [{}] : {line} into {expanded}",
            list(&self.expanded)
        ));
        let sliced = TensorTy::new(self.sizes.clone(), flat_ty.elem.clone());
        let value = if self.sizes == self.expanded {
            expanded_value
        } else {
            let ones = vec![1; self.sizes.len()];
            k.emit(format_args!(
                "tensor.extract_slice {expanded_value}[{}] [{}] [{}] : {expanded} to {sliced}",
                list(&self.starts),
                list(&self.sizes),
                list(&ones)
            ))
        };
        let mut exprs: Vec<String> = self.axes.iter().map(|k| format!("d{k}")).collect();
        exprs.resize(self.sizes.len(), "0".to_owned());
        (value, sliced, exprs)
    }
}

/// Row-major strides of a contiguous tensor of `shape`.
fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    // An empty axis counts as one: no stride is zero.
    let extents: Vec<i64> = shape.iter().map(|&n| n.max(1)).collect();
    strata_ir::types::row_major_strides(&extents)
}

/// The view `layout` of a contiguous tensor of shape `base` as one affine expression per base
/// axis (`d_k * step + start`, or a constant `start`), when each view axis walks one base axis
/// (or none: a broadcast) and no base axis is walked twice.
fn per_axis_map(base: &[i64], layout: &Layout) -> Option<Vec<String>> {
    let strides = contiguous_strides(base);
    // The starts: the offset in row-major digits.
    let mut rest = layout.offset;
    let mut starts = vec![0i64; base.len()];
    for j in 0..base.len() {
        if strides[j] > 0 && base[j] > 1 {
            starts[j] = rest / strides[j];
            rest -= starts[j] * strides[j];
        }
    }
    if rest != 0 || starts.iter().zip(base).any(|(&s, &n)| s < 0 || s >= n.max(1)) {
        return None;
    }
    let mut walked: Vec<Option<(usize, i64)>> = vec![None; base.len()];
    for (k, (&size, &stride)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        if size == 1 || stride == 0 {
            continue;
        }
        // The base axis with the largest stride that divides this one.
        let j = (0..base.len())
            .filter(|&j| base[j] > 1 && walked[j].is_none() && stride % strides[j] == 0)
            .max_by_key(|&j| strides[j])?;
        let step = stride / strides[j];
        let last = starts[j] + (size - 1) * step;
        if !(0..base[j]).contains(&starts[j]) || !(0..base[j]).contains(&last) {
            return None;
        }
        // `d_k` alone tells linalg the axis has the loop's extent: only for a whole axis.
        if step == 1 && starts[j] == 0 && size != base[j] {
            return None;
        }
        walked[j] = Some((k, step));
    }
    Some(
        (0..base.len())
            .map(|j| match walked[j] {
                Some((k, 1)) if starts[j] == 0 => format!("d{k}"),
                Some((k, step)) => format!("d{k} * {step} + {}", starts[j]),
                None => starts[j].to_string(),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates a per-axis map (`d3 * 2 + 1`, `d0`, `5`) at `at`.
    fn eval(expr: &str, at: &[i64]) -> i64 {
        expr.split(" + ")
            .map(|term| match term.split_once(" * ") {
                Some((d, c)) => at[d[1..].parse::<usize>().unwrap()] * c.parse::<i64>().unwrap(),
                None if term.starts_with('d') => at[term[1..].parse::<usize>().unwrap()],
                None => term.parse().unwrap(),
            })
            .sum()
    }

    #[test]
    fn per_axis_maps_address_the_same_elements() {
        let base = [2i64, 6, 5];
        let layouts = [
            // x[1:2, 2:6:2, :]
            Layout { offset: 40, shape: vec![1, 2, 5], strides: vec![30, 10, 1] },
            // transposed (2, 0, 1)
            Layout { offset: 0, shape: vec![5, 2, 6], strides: vec![1, 30, 5] },
            // x[:, 0:3, :]: a partial axis from 0 cannot be a bare `d1`
            Layout { offset: 0, shape: vec![2, 3, 5], strides: vec![30, 5, 1] },
        ];
        let mut mapped = 0;
        for layout in &layouts {
            let Some(exprs) = per_axis_map(&base, layout) else { continue };
            mapped += 1;
            let strides = contiguous_strides(&base);
            let shape = &layout.shape;
            for i in 0..shape[0] {
                for j in 0..shape[1] {
                    for k in 0..shape[2] {
                        let at = [i, j, k];
                        let index: Vec<i64> = exprs.iter().map(|e| eval(e, &at)).collect();
                        assert!(
                            index.iter().zip(&base).all(|(&x, &n)| (0..n).contains(&x)),
                            "{exprs:?} leaves the base at {at:?}"
                        );
                        let address: i64 = index.iter().zip(&strides).map(|(x, s)| x * s).sum();
                        let expected = layout.offset + at.iter().zip(&layout.strides).map(|(a, s)| a * s).sum::<i64>();
                        assert_eq!(address, expected, "{exprs:?} at {at:?}");
                    }
                }
            }
        }
        assert_eq!(mapped, 2, "the slice with steps and the transpose map per axis; a partial axis from 0 does not");
        // A broadcast of a per-channel bias reads it on its own axis.
        let bias = Layout { offset: 0, shape: vec![1, 4, 3, 3], strides: vec![0, 1, 0, 0] };
        assert_eq!(per_axis_map(&[4, 1, 1], &bias).unwrap(), vec!["d1", "0", "0"]);
    }

    #[test]
    fn mixed_radix_reads_address_the_view() {
        // (numel, layout): the STFT power's transposed parts, a strided slice, an inner stride.
        let cases = [
            (50, Layout { offset: 0, shape: vec![1, 5, 4, 2], strides: vec![50, 1, 5, 20] }),
            (64, Layout { offset: 3, shape: vec![3, 2], strides: vec![16, 4] }),
            (40, Layout { offset: 1, shape: vec![2, 3, 1], strides: vec![12, 2, 0] }),
            // Columns 5..8 of a 2 x 10 base: the last row ends inside the base.
            (20, Layout { offset: 5, shape: vec![2, 3], strides: vec![10, 1] }),
            // Channels 1..3 of 4 x 3 x 5, transposed to 5 x 2 x 3 (columns, channels, rows).
            (60, Layout { offset: 15, shape: vec![5, 2, 3], strides: vec![1, 15, 5] }),
        ];
        for (numel, layout) in &cases {
            let radix = MixedRadix::of(*numel, layout).expect("nested axes");
            let strides = contiguous_strides(&radix.expanded);
            assert!(radix.offset + radix.expanded.iter().product::<i64>() <= *numel);
            let count: i64 = layout.shape.iter().product();
            for flat in 0..count {
                // The view index of `flat` (row-major over the view's shape).
                let mut at = vec![0; layout.shape.len()];
                let mut rest = flat;
                for d in (0..at.len()).rev() {
                    at[d] = rest % layout.shape[d];
                    rest /= layout.shape[d];
                }
                let expected = layout.offset + at.iter().zip(&layout.strides).map(|(a, s)| a * s).sum::<i64>();
                // The sliced axes read at the walked view axes' indices (0 on the others).
                let mut index = vec![0; radix.sizes.len()];
                for (e, &k) in radix.axes.iter().enumerate() {
                    index[e] = at[k];
                    assert!(at[k] < radix.sizes[e], "{layout:?}: axis {k} beyond its slice");
                }
                let address = radix.offset
                    + index.iter().zip(&radix.starts).zip(&strides).map(|((i, o), s)| (i + o) * s).sum::<i64>();
                assert_eq!(address, expected, "{layout:?} at {at:?}");
            }
        }
        // Axes that overlap, an offset whose digits overflow an axis, or a last row past the
        // base, do not nest.
        assert_eq!(MixedRadix::of(50, &Layout { offset: 0, shape: vec![4, 4], strides: vec![2, 1] }), None);
        assert_eq!(MixedRadix::of(20, &Layout { offset: 8, shape: vec![2, 3], strides: vec![10, 1] }), None);
        assert_eq!(MixedRadix::of(20, &Layout { offset: 15, shape: vec![2, 3], strides: vec![10, 1] }), None);
    }
}
