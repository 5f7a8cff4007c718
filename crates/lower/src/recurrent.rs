//! `sg.lstm`, `sg.gru` and `sg.rnn`: one `scf.for` over the time steps per direction.
//!
//! The input projection of every step is hoisted out of the loop into one contraction
//! (`[T*N, I] x [G*H, I]^T`, the input biases as its initial value), so each step only adds
//! the recurrent product of the previous hidden state (`[N, H] x [G*H, H]^T`) and runs one
//! `linalg.generic` that applies the gate arithmetic, the activations, the peepholes and the
//! sequence-length mask to all gates at once, writing the new states and the step's output
//! row. The loop carries the hidden state (and the cell state), and the output sequence, into
//! which each step inserts its row: what one step allocates is one step's gates.
//!
//! Steps at or past a sequence's length keep its states and output zeros; in reverse the loop
//! runs from the last step down, so each sequence starts at its own last valid step.

use crate::elementwise::{lit, scalar};
use crate::kernel::{Body, Elem, Kernel, TensorTy};
use std::fmt::Write;
use strata_dialect_sg::ScalarOp;
use strata_ir::Error;

/// Which recurrent cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Gates i, o, f, c; `input_forget` couples f = 1 - i.
    Lstm { input_forget: bool },
    /// Gates z, r, h.
    Gru { linear_before_reset: bool },
    /// One gate.
    Rnn,
}

impl Cell {
    fn gates(self) -> i64 {
        match self {
            Cell::Lstm { .. } => 4,
            Cell::Gru { .. } => 3,
            Cell::Rnn => 1,
        }
    }

    fn activations_per_direction(self) -> usize {
        match self {
            Cell::Lstm { .. } => 3,
            Cell::Gru { .. } => 2,
            Cell::Rnn => 1,
        }
    }
}

/// A recurrent op's attributes.
pub struct Recurrent {
    pub cell: Cell,
    pub hidden: i64,
    /// 0 forward, 1 reverse, 2 bidirectional.
    pub direction: i64,
    /// The activations, `activations_per_direction` for each direction in order.
    pub activations: Vec<ScalarOp>,
    pub clip: Option<f64>,
}

/// Parses the `activations` attribute (comma-separated elementwise op texts).
pub fn activations(text: &str) -> Result<Vec<ScalarOp>, Error> {
    text.split(',')
        .map(|a| a.trim().parse::<ScalarOp>().map_err(|e| Error::invalid_input(format!("activation '{a}': {e}"))))
        .collect()
}

/// Names the SSA values of the loop text.
struct Names {
    prefix: String,
    next: usize,
}

impl Names {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%{}{}", self.prefix, self.next)
    }
}

/// `lhs [M, K] x rhs [K, G]` accumulated onto `init [M, G]`: a `linalg.matmul`, which the
/// host vectorises (register-blocked when `M` and `G` allow, else `G` innermost).
fn contraction(lhs: (&str, &TensorTy), rhs: (&str, &TensorTy), init: (&str, &TensorTy)) -> String {
    format!(
        "linalg.matmul ins({}, {} : {}, {}) outs({} : {}) -> {}",
        lhs.0, rhs.0, lhs.1, rhs.1, init.0, init.1, init.1
    )
}

/// A `linalg.generic` over `[N, H]` with several outputs: `inputs` (value, type, map result
/// expressions over d0 = n, d1 = j), `outputs` (their initial values, of type `out`), `body`
/// getting the inputs' then the outputs' block arguments and returning the yielded values.
/// The states are outputs initialised with the loop's carried states, so the new states are
/// written where the old ones were (one-shot bufferization needs them equivalent).
fn cell_generic(
    results: &str,
    inputs: &[(String, TensorTy, String)],
    outputs: &[String],
    out: &TensorTy,
    body: impl FnOnce(&mut Body, &[String]) -> Result<Vec<String>, Error>,
) -> Result<String, Error> {
    let mut maps: Vec<String> = inputs.iter().map(|(_, _, m)| format!("affine_map<(d0, d1) -> ({m})>")).collect();
    maps.extend(outputs.iter().map(|_| "affine_map<(d0, d1) -> (d0, d1)>".to_owned()));
    let mut b = Body::new("%s", "  ");
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (k, (_, ty, _)) in inputs.iter().enumerate() {
        params.push(format!("%in{k}: {}", ty.elem.storage()));
        args.push(format!("%in{k}"));
    }
    for k in 0..outputs.len() {
        params.push(format!("%out{k}: {}", out.elem.storage()));
        args.push(format!("%out{k}"));
    }
    let yielded = body(&mut b, &args)?;
    let ins: Vec<&str> = inputs.iter().map(|(v, _, _)| v.as_str()).collect();
    let in_types: Vec<String> = inputs.iter().map(|(_, t, _)| t.to_string()).collect();
    let out_types = vec![out.to_string(); outputs.len()];
    Ok(format!(
        "{results} = linalg.generic {{indexing_maps = [{}], iterator_types = [\"parallel\", \"parallel\"]}} ins({} : {}) outs({} : {}) {{\n^bb0({}):\n{}  linalg.yield {} : {}\n}} -> ({})\n",
        maps.join(", "),
        ins.join(", "),
        in_types.join(", "),
        outputs.join(", "),
        out_types.join(", "),
        params.join(", "),
        b.text(),
        yielded.join(", "),
        vec![out.elem.storage(); outputs.len()].join(", "),
        out_types.join(", ")
    ))
}

/// Applies activation `op`, after clamping to `[-clip, clip]` when given.
fn activate(b: &mut Body, op: ScalarOp, x: &str, clip: Option<f64>, elem: &Elem) -> Result<String, Error> {
    let x = match clip {
        Some(c) => {
            let (lo, hi) = (lit(b, -c, elem), lit(b, c, elem));
            let up = b.emit(format_args!("arith.maximumf {x}, {lo} : {elem}"));
            b.emit(format_args!("arith.minimumf {up}, {hi} : {elem}"))
        }
        None => x.to_owned(),
    };
    scalar(b, op, &[x], elem)
}

/// The kernel of a recurrent op: `k`'s arguments are the op's operands; returns its results
/// (y, y_h and for the LSTM y_c).
///
/// With `sections` (a host compiled for several threads), the two directions of a bidirectional
/// layer whose directions share their activations run side by side: an `scf.forall` over the
/// directions marked `strata.sections`, each direction a case of an `scf.index_switch` on it
/// (its weights sliced and transposed at compile time as in the sequential form), writing its
/// part of the outputs. The planner gives each case's scratch its own memory.
pub fn lower(k: &mut Kernel, spec: &Recurrent, outs: &[TensorTy], sections: bool) -> Result<Vec<String>, Error> {
    let x_ty = k.arg_type(0).clone();
    let elem = x_ty.elem.clone();
    if !(elem.is_float() && elem.bits() >= 32) {
        return Err(elem.unsupported("recurrent layers (f32 and f64 are lowered)"));
    }
    let (t, n, i) = (x_ty.shape[0], x_ty.shape[1], x_ty.shape[2]);
    let h = spec.hidden;
    let g = spec.cell.gates();
    let gh = g * h;
    let directions = if spec.direction == 2 { 2 } else { 1 };
    let per = spec.cell.activations_per_direction();
    if spec.activations.len() != per * directions as usize {
        return Err(
            format!("{} activations given, {} needed", spec.activations.len(), per * directions as usize).into()
        );
    }
    let ty = |shape: Vec<i64>| TensorTy::new(shape, elem.clone());
    let (nh_ty, y_ty, gates_ty) = (ty(vec![n, h]), ty(vec![t, n, h]), ty(vec![n, gh]));
    let lens_ty = k.arg_type(4).clone();
    let lstm = matches!(spec.cell, Cell::Lstm { .. });

    let x2_ty = ty(vec![t * n, i]);
    let x2 = k.emit(format_args!("tensor.collapse_shape %a0 [[0, 1], [2]] : {x_ty} into {x2_ty}"));
    let zero = elem.literal(0.0);
    let mut y_all = k.filled(&zero, &outs[0]);
    let mut yh_all = k.filled(&zero, &outs[1]);
    let mut yc_all = if lstm { Some(k.filled(&zero, &outs[2])) } else { None };
    let index = |k: &mut Kernel, v: i64| k.emit(format_args!("arith.constant {v} : index"));
    let (c0, c1, ct) = (index(k, 0), index(k, 1), index(k, t));
    let last = index(k, t - 1);

    // One direction's loop and what leads to it: its output sequence, last hidden state and
    // (LSTM) last cell state.
    let direction = |k: &mut Kernel, d: i64| -> Result<(String, String, Option<String>), Error> {
        let reverse = spec.direction == 1 || d == 1;
        let acts = &spec.activations[d as usize * per..(d as usize + 1) * per];
        let (w_ty, r_ty, b_ty) = (k.arg_type(1).clone(), k.arg_type(2).clone(), k.arg_type(3).clone());
        let h0_ty = k.arg_type(5).clone();
        let slice3 = |k: &mut Kernel, arg: &str, from: &TensorTy, rows: i64, cols: i64| {
            k.emit(format_args!(
                "tensor.extract_slice {arg}[{d}, 0, 0] [1, {rows}, {cols}] [1, 1, 1] : {from} to {}",
                ty(vec![rows, cols])
            ))
        };
        // The weights `[G * H, K]` transposed to `[K, G * H]` (once per direction, outside the
        // time loop; a constant weight is transposed at compile time), so that each product
        // is a plain matmul with the gates contiguous.
        let transposed = |k: &mut Kernel, value: String, rows: i64, cols: i64| {
            let empty = k.emit(format_args!("tensor.empty() : {}", ty(vec![cols, rows])));
            k.emit(format_args!(
                "linalg.transpose ins({value} : {}) outs({empty} : {}) permutation = [1, 0]",
                ty(vec![rows, cols]),
                ty(vec![cols, rows])
            ))
        };
        let wd = slice3(k, "%a1", &w_ty, gh, i);
        let wd = transposed(k, wd, gh, i);
        let rd = slice3(k, "%a2", &r_ty, gh, h);
        let rd = transposed(k, rd, gh, h);
        let h0 = slice3(k, "%a5", &h0_ty, n, h);
        let bd = k.emit(format_args!(
            "tensor.extract_slice %a3[{d}, 0] [1, {}] [1, 1] : {b_ty} to {}",
            2 * gh,
            ty(vec![2 * gh])
        ));
        let (c_init, pd): (Option<String>, Option<String>) = if lstm {
            let c_ty = k.arg_type(6).clone();
            let p_ty = k.arg_type(7).clone();
            let c = slice3(k, "%a6", &c_ty, n, h);
            let p = k.emit(format_args!(
                "tensor.extract_slice %a7[{d}, 0] [1, {}] [1, 1] : {p_ty} to {}",
                3 * h,
                ty(vec![3 * h])
            ));
            (Some(c), Some(p))
        } else {
            (None, None)
        };
        // The input biases (plus the recurrent ones, except the GRU's hidden gate whose
        // recurrent bias goes with its recurrent product) broadcast over [T * N, G * H]:
        // the contraction's initial value.
        let gru_h_start = if matches!(spec.cell, Cell::Gru { .. }) { 2 * h } else { gh };
        let proj_ty = ty(vec![t * n, gh]);
        let init = k.emit(format_args!("tensor.empty() : {proj_ty}"));
        let bias_ty = ty(vec![gh]);
        let wb = k.emit(format_args!("tensor.extract_slice {bd}[0] [{gh}] [1] : {} to {bias_ty}", ty(vec![2 * gh])));
        let rb = k.emit(format_args!("tensor.extract_slice {bd}[{gh}] [{gh}] [1] : {} to {bias_ty}", ty(vec![2 * gh])));
        // Every gate takes both biases but the GRU's hidden one, which the body picks by its
        // column; without that choice the body is one add, which the host vectorises (with
        // `linalg.index` it stayed a loop nest that LLVM unrolled whole: a 20 x 512 bias of a
        // CRNN's LSTM became 9K lines of IR per direction and layer, 1.7 s of the model's
        // 2 s of code generation).
        let body = if gru_h_start < gh {
            format!("      %j = linalg.index 1 : index\n      %limit = arith.constant {gru_h_start} : index\n      %with = arith.cmpi slt, %j, %limit : index\n      %sum = arith.addf %wb, %rb : {elem}\n      %b = arith.select %with, %sum, %wb : {elem}\n      linalg.yield %b : {elem}\n")
        } else {
            format!("      %b = arith.addf %wb, %rb : {elem}\n      linalg.yield %b : {elem}\n")
        };
        let bias = k.emit(format_args!(
            "linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}} ins({wb}, {rb} : {bias_ty}, {bias_ty}) outs({init} : {proj_ty}) {{\n    ^bb0(%wb: {elem}, %rb: {elem}, %o: {elem}):\n{body}    }} -> {proj_ty}"
        ));
        let w_slice_ty = ty(vec![i, gh]);
        let projected = k.emit(contraction((&x2, &x2_ty), (&wd, &w_slice_ty), (&bias, &proj_ty)));
        let proj3_ty = ty(vec![t, n, gh]);
        let projected = k.emit(format_args!(
            "tensor.expand_shape {projected} [[0, 1], [2]] output_shape [{t}, {n}, {gh}] : {proj_ty} into {proj3_ty}"
        ));
        let y0 = k.filled(&zero, &y_ty);
        let vec_ty = ty(vec![h]);
        let peepholes: Vec<String> = match &pd {
            Some(p) => (0..3)
                .map(|g| {
                    k.emit(format_args!(
                        "tensor.extract_slice {p}[{}] [{h}] [1] : {} to {vec_ty}",
                        g * h,
                        ty(vec![3 * h])
                    ))
                })
                .collect(),
            None => Vec::new(),
        };
        // The GRU hidden gate's recurrent bias, at [G*H + 2H] in b.
        let rb_h = matches!(spec.cell, Cell::Gru { .. }).then(|| {
            k.emit(format_args!(
                "tensor.extract_slice {bd}[{}] [{h}] [1] : {} to {vec_ty}",
                gh + 2 * h,
                ty(vec![2 * gh])
            ))
        });

        // The loop over the steps.
        let mut names = Names { prefix: format!("L{d}_"), next: 0 };
        let results = names.fresh();
        let (hv, cv, yv, iv) = (names.fresh(), names.fresh(), names.fresh(), names.fresh());
        let mut body = String::new();
        let step = if reverse {
            let s = names.fresh();
            let _ = writeln!(body, "  {s} = arith.subi {last}, {iv} : index");
            s
        } else {
            iv.clone()
        };
        let step_i32 = names.fresh();
        let _ = writeln!(body, "  {step_i32} = arith.index_cast {step} : index to i32");
        let xt = names.fresh();
        let _ = writeln!(
            body,
            "  {xt} = tensor.extract_slice {projected}[{step}, 0, 0] [1, {n}, {gh}] [1, 1, 1] : {proj3_ty} to {gates_ty}"
        );
        let r_slice_ty = ty(vec![h, gh]);
        let y_row_init = names.fresh();
        let _ = writeln!(body, "  {y_row_init} = tensor.empty() : {nh_ty}");
        // The cell's outputs: the carried states (updated where they are), then the output row.
        let mut empties = vec![hv.clone()];
        if lstm {
            empties.push(cv.clone());
        }
        empties.push(y_row_init.clone());
        let cell_results = names.fresh();
        let count = empties.len();
        let lens = ("%a4".to_owned(), lens_ty.clone(), "d0".to_owned());
        // Column block `g` ([N, H]) of a [N, width] tensor, as a slice in the loop body.
        let gate_slice = |body: &mut String, names: &mut Names, src: &str, width: i64, g: i64| {
            let v = names.fresh();
            let _ = writeln!(
                body,
                "  {v} = tensor.extract_slice {src}[0, {}] [{n}, {h}] [1, 1] : {} to {nh_ty}",
                g * h,
                ty(vec![n, width])
            );
            (v, nh_ty.clone(), "d0, d1".to_owned())
        };
        let vector = |v: &String| (v.clone(), vec_ty.clone(), "d1".to_owned());
        let valid = |b: &mut Body, len: &str| b.emit(format_args!("arith.cmpi slt, {step_i32}, {len} : i32"));
        let clip = spec.clip;
        let generic = match spec.cell {
            Cell::Lstm { input_forget } => {
                let gates = names.fresh();
                let _ =
                    writeln!(body, "  {gates} = {}", contraction((&hv, &nh_ty), (&rd, &r_slice_ty), (&xt, &gates_ty)));
                let mut inputs: Vec<_> = (0..4).map(|g| gate_slice(&mut body, &mut names, &gates, gh, g)).collect();
                inputs.push(lens.clone());
                inputs.extend(peepholes.iter().map(vector));
                cell_generic(&format!("{cell_results}:{count}"), &inputs, &empties, &nh_ty, |b, a| {
                    let (gi, go, gf, gc, len, pi, po, pf, hp, cp) =
                        (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9]);
                    let (f, g_act, h_act) = (acts[0], acts[1], acts[2]);
                    let one = lit(b, 1.0, &elem);
                    let ic = b.emit(format_args!("arith.mulf {pi}, {cp} : {elem}"));
                    let ipre = b.emit(format_args!("arith.addf {gi}, {ic} : {elem}"));
                    let i_gate = activate(b, f, &ipre, clip, &elem)?;
                    let f_gate = if input_forget {
                        b.emit(format_args!("arith.subf {one}, {i_gate} : {elem}"))
                    } else {
                        let fc = b.emit(format_args!("arith.mulf {pf}, {cp} : {elem}"));
                        let fpre = b.emit(format_args!("arith.addf {gf}, {fc} : {elem}"));
                        activate(b, f, &fpre, clip, &elem)?
                    };
                    let candidate = activate(b, g_act, gc, clip, &elem)?;
                    let kept = b.emit(format_args!("arith.mulf {f_gate}, {cp} : {elem}"));
                    let added = b.emit(format_args!("arith.mulf {i_gate}, {candidate} : {elem}"));
                    let c_new = b.emit(format_args!("arith.addf {kept}, {added} : {elem}"));
                    let oc = b.emit(format_args!("arith.mulf {po}, {c_new} : {elem}"));
                    let opre = b.emit(format_args!("arith.addf {go}, {oc} : {elem}"));
                    let o_gate = activate(b, f, &opre, clip, &elem)?;
                    let hc = scalar(b, h_act, std::slice::from_ref(&c_new), &elem)?;
                    let h_new = b.emit(format_args!("arith.mulf {o_gate}, {hc} : {elem}"));
                    let ok = valid(b, len);
                    let zero = lit(b, 0.0, &elem);
                    let h_keep = b.emit(format_args!("arith.select {ok}, {h_new}, {hp} : {elem}"));
                    let c_keep = b.emit(format_args!("arith.select {ok}, {c_new}, {cp} : {elem}"));
                    let y = b.emit(format_args!("arith.select {ok}, {h_new}, {zero} : {elem}"));
                    Ok(vec![h_keep, c_keep, y])
                })?
            }
            Cell::Rnn => {
                let gates = names.fresh();
                let _ =
                    writeln!(body, "  {gates} = {}", contraction((&hv, &nh_ty), (&rd, &r_slice_ty), (&xt, &gates_ty)));
                let inputs = vec![(gates.clone(), gates_ty.clone(), "d0, d1".into()), lens.clone()];
                cell_generic(&format!("{cell_results}:{count}"), &inputs, &empties, &nh_ty, |b, a| {
                    let h_new = activate(b, acts[0], &a[0], clip, &elem)?;
                    let ok = valid(b, &a[1]);
                    let zero = lit(b, 0.0, &elem);
                    let h_keep = b.emit(format_args!("arith.select {ok}, {h_new}, {} : {elem}", a[2]));
                    let y = b.emit(format_args!("arith.select {ok}, {h_new}, {zero} : {elem}"));
                    Ok(vec![h_keep, y])
                })?
            }
            Cell::Gru { linear_before_reset } => {
                let (f, g_act) = (acts[0], acts[1]);
                if linear_before_reset {
                    // r * (H R_h^T + Rb_h): one recurrent product for all gates.
                    let zeros = names.fresh();
                    let zero_scalar = names.fresh();
                    let _ = writeln!(body, "  {zero_scalar} = arith.constant {} : {elem}", elem.literal(0.0));
                    let empty = names.fresh();
                    let _ = writeln!(body, "  {empty} = tensor.empty() : {gates_ty}");
                    let _ = writeln!(
                        body,
                        "  {zeros} = linalg.fill ins({zero_scalar} : {elem}) outs({empty} : {gates_ty}) -> {gates_ty}"
                    );
                    let rec = names.fresh();
                    let _ = writeln!(
                        body,
                        "  {rec} = {}",
                        contraction((&hv, &nh_ty), (&rd, &r_slice_ty), (&zeros, &gates_ty))
                    );
                    let mut inputs: Vec<_> = (0..3).map(|g| gate_slice(&mut body, &mut names, &xt, gh, g)).collect();
                    inputs.extend((0..3).map(|g| gate_slice(&mut body, &mut names, &rec, gh, g)));
                    inputs.push(vector(rb_h.as_ref().expect("a GRU has a hidden bias")));
                    inputs.push(lens.clone());
                    cell_generic(&format!("{cell_results}:{count}"), &inputs, &empties, &nh_ty, |b, a| {
                        let (xz, xr, xh, hz, hr, hh, rb, len, hp) =
                            (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8]);
                        let zpre = b.emit(format_args!("arith.addf {xz}, {hz} : {elem}"));
                        let z = activate(b, f, &zpre, clip, &elem)?;
                        let rpre = b.emit(format_args!("arith.addf {xr}, {hr} : {elem}"));
                        let r = activate(b, f, &rpre, clip, &elem)?;
                        let hb = b.emit(format_args!("arith.addf {hh}, {rb} : {elem}"));
                        let reset = b.emit(format_args!("arith.mulf {r}, {hb} : {elem}"));
                        let hpre = b.emit(format_args!("arith.addf {xh}, {reset} : {elem}"));
                        let candidate = activate(b, g_act, &hpre, clip, &elem)?;
                        gru_update(b, &z, &candidate, hp, len, &valid, &elem)
                    })?
                } else {
                    // r * H first, then its product with R_h.
                    let zr_ty = ty(vec![n, 2 * h]);
                    let (xzr, rzr) = (names.fresh(), names.fresh());
                    let _ = writeln!(
                        body,
                        "  {xzr} = tensor.extract_slice {xt}[0, 0] [{n}, {}] [1, 1] : {gates_ty} to {zr_ty}",
                        2 * h
                    );
                    let _ = writeln!(
                        body,
                        "  {rzr} = tensor.extract_slice {rd}[0, 0] [{h}, {}] [1, 1] : {r_slice_ty} to {}",
                        2 * h,
                        ty(vec![h, 2 * h])
                    );
                    let zr = names.fresh();
                    let _ = writeln!(
                        body,
                        "  {zr} = {}",
                        contraction((&hv, &nh_ty), (&rzr, &ty(vec![h, 2 * h])), (&xzr, &zr_ty))
                    );
                    let reset_h = names.fresh();
                    let empty = names.fresh();
                    let _ = writeln!(body, "  {empty} = tensor.empty() : {nh_ty}");
                    let reset_inputs = vec![
                        gate_slice(&mut body, &mut names, &zr, 2 * h, 1),
                        (hv.clone(), nh_ty.clone(), "d0, d1".into()),
                    ];
                    body += &cell_generic(&format!("{reset_h}:1"), &reset_inputs, &[empty], &nh_ty, |b, a| {
                        let r = activate(b, f, &a[0], clip, &elem)?;
                        Ok(vec![b.emit(format_args!("arith.mulf {r}, {} : {elem}", a[1]))])
                    })?;
                    let (xh, rh) = (names.fresh(), names.fresh());
                    let _ = writeln!(
                        body,
                        "  {xh} = tensor.extract_slice {xt}[0, {}] [{n}, {h}] [1, 1] : {gates_ty} to {nh_ty}",
                        2 * h
                    );
                    let _ = writeln!(
                        body,
                        "  {rh} = tensor.extract_slice {rd}[0, {}] [{h}, {h}] [1, 1] : {r_slice_ty} to {}",
                        2 * h,
                        ty(vec![h, h])
                    );
                    let hidden = names.fresh();
                    let _ = writeln!(
                        body,
                        "  {hidden} = {}",
                        contraction((&format!("{reset_h}#0"), &nh_ty), (&rh, &ty(vec![h, h])), (&xh, &nh_ty))
                    );
                    let inputs = vec![
                        gate_slice(&mut body, &mut names, &zr, 2 * h, 0),
                        (hidden.clone(), nh_ty.clone(), "d0, d1".into()),
                        vector(rb_h.as_ref().expect("a GRU has a hidden bias")),
                        lens.clone(),
                    ];
                    cell_generic(&format!("{cell_results}:{count}"), &inputs, &empties, &nh_ty, |b, a| {
                        let z = activate(b, f, &a[0], clip, &elem)?;
                        let hpre = b.emit(format_args!("arith.addf {}, {} : {elem}", a[1], a[2]));
                        let candidate = activate(b, g_act, &hpre, clip, &elem)?;
                        gru_update(b, &z, &candidate, &a[4], &a[3], &valid, &elem)
                    })?
                }
            }
        };
        body += &generic;
        let y_row = format!("{cell_results}#{}", count - 1);
        let inserted = names.fresh();
        let _ = writeln!(
            body,
            "  {inserted} = tensor.insert_slice {y_row} into {yv}[{step}, 0, 0] [1, {n}, {h}] [1, 1, 1] : {nh_ty} into {y_ty}"
        );
        let mut carried = vec![(hv.clone(), h0.clone(), nh_ty.clone(), format!("{cell_results}#0"))];
        if lstm {
            carried.push((
                cv.clone(),
                c_init.clone().expect("an LSTM has a cell state"),
                nh_ty.clone(),
                format!("{cell_results}#1"),
            ));
        }
        carried.push((yv.clone(), y0.clone(), y_ty.clone(), inserted.clone()));
        let iter_args: Vec<String> = carried.iter().map(|(v, init, _, _)| format!("{v} = {init}")).collect();
        let types: Vec<String> = carried.iter().map(|(_, _, t, _)| t.to_string()).collect();
        let yields: Vec<&str> = carried.iter().map(|(_, _, _, y)| y.as_str()).collect();
        let indented: String = body.lines().map(|l| format!("      {l}\n")).collect();
        k.push_lines(&format!(
            "    {results}:{} = scf.for {iv} = {c0} to {ct} step {c1} iter_args({}) -> ({}) {{\n{indented}      scf.yield {} : {}\n    }}\n",
            carried.len(),
            iter_args.join(", "),
            types.join(", "),
            yields.join(", "),
            types.join(", ")
        ));
        let last_state = |k: usize| format!("{results}#{k}");
        Ok((last_state(carried.len() - 1), last_state(0), lstm.then(|| last_state(1))))
    };
    let together = sections && directions == 2 && spec.activations[..per] == spec.activations[per..];
    if together {
        let mark = k.mark();
        let second = direction(k, 1)?;
        let second_code = k.take_since(mark);
        let first = direction(k, 0)?;
        let first_code = k.take_since(mark);
        let mut types = vec![y_ty.to_string(), nh_ty.to_string()];
        let mut inits = vec![format!("%sections_y = {y_all}"), format!("%sections_h = {yh_all}")];
        if let Some(yc) = &yc_all {
            types.push(nh_ty.to_string());
            inits.push(format!("%sections_c = {yc}"));
        }
        let yields = |(y, h, c): &(String, String, Option<String>)| {
            let mut values = vec![y.clone(), h.clone()];
            values.extend(c.clone());
            format!("scf.yield {} : {}", values.join(", "), types.join(", "))
        };
        let mut inserts = format!(
            "        tensor.parallel_insert_slice %sections#0 into %sections_y[0, %direction, 0, 0] [{t}, 1, {n}, {h}] [1, 1, 1, 1] : {y_ty} into {}\n        tensor.parallel_insert_slice %sections#1 into %sections_h[%direction, 0, 0] [1, {n}, {h}] [1, 1, 1] : {nh_ty} into {}\n",
            outs[0], outs[1]
        );
        if yc_all.is_some() {
            inserts += &format!(
                "        tensor.parallel_insert_slice %sections#2 into %sections_c[%direction, 0, 0] [1, {n}, {h}] [1, 1, 1] : {nh_ty} into {}\n",
                outs[2]
            );
        }
        let out_types: Vec<String> = outs.iter().take(types.len()).map(|t| t.to_string()).collect();
        let count = types.len();
        k.push_lines(&format!(
            "    %directions:{count} = scf.forall (%direction) in (2) shared_outs({}) -> ({}) {{\n      %sections:{count} = scf.index_switch %direction -> {}\n      case 1 {{\n{second_code}        {}\n      }}\n      default {{\n{first_code}        {}\n      }}\n      scf.forall.in_parallel {{\n{inserts}      }}\n    }} {{{}}}\n",
            inits.join(", "),
            out_types.join(", "),
            types.join(", "),
            yields(&second),
            yields(&first),
            strata_ir::attrs::SECTIONS.0
        ));
        return Ok((0..count).map(|r| format!("%directions#{r}")).collect());
    }
    for d in 0..directions {
        let (y_dir, h_last, c_last) = direction(k, d)?;
        y_all = k.emit(format_args!(
            "tensor.insert_slice {y_dir} into {y_all}[0, {d}, 0, 0] [{t}, 1, {n}, {h}] [1, 1, 1, 1] : {y_ty} into {}",
            outs[0]
        ));
        yh_all = k.emit(format_args!(
            "tensor.insert_slice {h_last} into {yh_all}[{d}, 0, 0] [1, {n}, {h}] [1, 1, 1] : {nh_ty} into {}",
            outs[1]
        ));
        if let (Some(yc), Some(c_last)) = (yc_all.as_mut(), c_last) {
            *yc = k.emit(format_args!(
                "tensor.insert_slice {c_last} into {yc}[{d}, 0, 0] [1, {n}, {h}] [1, 1, 1] : {nh_ty} into {}",
                outs[2]
            ));
        }
    }
    let mut results = vec![y_all, yh_all];
    results.extend(yc_all);
    Ok(results)
}

/// The GRU's new state `(1 - z) * candidate + z * h_prev`, masked by the sequence length.
fn gru_update(
    b: &mut Body,
    z: &str,
    candidate: &str,
    h_prev: &str,
    len: &str,
    valid: &dyn Fn(&mut Body, &str) -> String,
    elem: &Elem,
) -> Result<Vec<String>, Error> {
    let one = lit(b, 1.0, elem);
    let keep = b.emit(format_args!("arith.subf {one}, {z} : {elem}"));
    let fresh = b.emit(format_args!("arith.mulf {keep}, {candidate} : {elem}"));
    let old = b.emit(format_args!("arith.mulf {z}, {h_prev} : {elem}"));
    let h_new = b.emit(format_args!("arith.addf {fresh}, {old} : {elem}"));
    let ok = valid(b, len);
    let zero = lit(b, 0.0, elem);
    let h_keep = b.emit(format_args!("arith.select {ok}, {h_new}, {h_prev} : {elem}"));
    let y = b.emit(format_args!("arith.select {ok}, {h_new}, {zero} : {elem}"));
    Ok(vec![h_keep, y])
}
