//! Max pools as two passes over each output row, the kernel `strata-vectorize-depthwise` writes
//! for those with a window of at least 3 x 3 and a vector of outputs a row: the window's rows
//! reduced into one row first (a maximum of whole input vectors down the rows), then that
//! row's columns (a maximum of the window's column taps, read from it at the stride).
//!
//! A KH x KW window then costs `KH - 1 + KW - 1` maximums an output instead of `KH x KW - 1`
//! (3 x 3: 4 against 8; YOLO's 5 x 5: 8 against 24), and the rows are read as contiguous
//! vectors at any stride: only the row pass reads strided, from a row buffer in the first-level
//! cache. ResNet's 3 x 3 stride-2 pool over 64 x 112 x 112 read 9 stride-2 vectors an output
//! vector in the depthwise kernel's register blocks (0.086 ms alone); here 4.5 contiguous
//! ones and 3 from the row buffer.
//!
//! The row buffer is a stack allocation, one per thread (with threads, the channels are one
//! contiguous share per thread, each with its own slot of one allocation), the input's columns
//! at an offset rounded up to whole vectors, the padding on either side the maximum's identity
//! (-inf), written once per buffer: the implicit padding of `strata-implicit-pads` costs
//! nothing here, and the output rows whose windows reach past the input's rows leave those rows
//! out. The maximum propagates NaN ([`nan_max`]).

use crate::depthwise_fusion::{nan_max, Epilogue};
use crate::vectorize_depthwise::index_constant;

/// A max pool over f32 NCHW: input `[n, c, ih, iw]` (read from column `-pads[1]` and row
/// `-pads[0]`, -inf outside it), window `[kh, kw]`, output `[n, c, oh, ow]`; width stride 1 or 2.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RowPool {
    pub input: [i64; 4],
    pub output: [i64; 4],
    pub window: [i64; 2],
    pub strides: [i64; 2],
    pub dilations: [i64; 2],
    pub pads: [i64; 2],
}

impl RowPool {
    /// The input rows output row `o` reads (the window's taps inside the input).
    fn taps(&self, o: i64) -> Vec<i64> {
        let ([_, _, ih, _], [kh, _], [sh, _], [dh, _], [pt, _]) =
            (self.input, self.window, self.strides, self.dilations, self.pads);
        (0..kh).map(|a| o * sh - pt + a * dh).filter(|&i| (0..ih).contains(&i)).collect()
    }

    /// The output rows whose every tap lies inside the input, `[first, end)`: a loop; the
    /// others are written at constant rows.
    fn inner_rows(&self) -> (i64, i64) {
        let [kh, _] = self.window;
        let oh = self.output[2];
        let first = (0..oh).find(|&o| self.taps(o).len() as i64 == kh).unwrap_or(oh);
        let end = (first..oh).take_while(|&o| self.taps(o).len() as i64 == kh).last().map_or(first, |o| o + 1);
        (first, end)
    }

    /// The kernel function (MLIR text) for operand types `types` (input, window, output),
    /// `lanes` wide: `threads` above 1 split the channels; `epilogue` applied before the
    /// stores; `seeded`, the output's values (an identity written before) taken into the
    /// maximum.
    pub(crate) fn function(
        &self,
        types: &[String],
        lanes: i64,
        threads: i64,
        epilogue: Option<&Epilogue>,
        seeded: bool,
    ) -> String {
        let [n, c, _, iw] = self.input;
        let [_, _, oh, ow] = self.output;
        let [_, kw] = self.window;
        let [_, sw] = self.strides;
        let [_, dw] = self.dilations;
        let [_, pl] = self.pads;
        let lanes = lanes.min((ow as u64).next_power_of_two() as i64);
        let wide = lanes * sw;
        let (xt, wt, yt) = (&types[0], &types[1], &types[2]);
        let vt = format!("vector<{lanes}xf32>");
        let mt = format!("vector<{lanes}xi1>");
        // The row buffer: input column `i` at `base + i`, output column `o`'s tap `b` at
        // `o * sw + b * dw + shift`.
        let round = |v: i64| (v + lanes - 1) / lanes * lanes;
        let base = round(pl);
        let shift = base - pl;
        let (iw_main, iw_tail) = (iw / lanes * lanes, iw % lanes);
        let (ow_main, ow_tail) = (ow / lanes * lanes, ow % lanes);
        let written = base + round(iw);
        let read = shift + (round(ow) - lanes) * sw + (kw - 1) * dw + wide;
        let size = round(written.max(read));
        // With threads, a buffer each in one allocation (the thread's slot a view of it: an
        // allocation inside the parallel loop would be per iteration, in an `alloca_scope`
        // that the loops inside it cannot be lowered in).
        let rt = if threads > 1 {
            format!("memref<{size}xf32, strided<[1], offset: ?>>")
        } else {
            format!("memref<{size}xf32>")
        };
        let mut constants = std::collections::BTreeSet::from([0, 1, lanes, c, base, shift, sw]);
        // The padding on either side of a row buffer: -inf, written once (the passes write
        // only the columns between).
        let borders = |s: &mut String, constants: &mut std::collections::BTreeSet<i64>, indent: &str| {
            for at in (0..base).chain(written..size).step_by(lanes as usize) {
                constants.insert(at);
                *s += &format!("{indent}vector.store %ninf, %row[%c{at}] : {rt}, {vt}\n");
            }
        };
        let mut s = String::new();
        if threads == 1 {
            s += &format!("    %row = memref.alloca() {{alignment = 64 : i64}} : {rt}\n");
            borders(&mut s, &mut constants, "    ");
        } else {
            let all = threads * size;
            s += &format!("    %rows = memref.alloca() {{alignment = 64 : i64}} : memref<{all}xf32>\n");
        }
        let batch = if n > 1 {
            constants.insert(n);
            s += &format!("    scf.for %n = %c0 to %c{n} step %c1 {{\n");
            "%n"
        } else {
            "%c0"
        };
        // One row buffer a thread: with threads, the channels in one contiguous share each (an
        // `scf.forall` over the threads, as the producer's channels were split), each
        // iteration on its own slot of the allocation.
        if threads > 1 {
            let share = (c + threads - 1) / threads;
            constants.insert(share);
            s += &format!("    scf.forall (%t) in ({threads}) {{\n");
            constants.insert(size);
            s += &format!("      %rb = arith.muli %t, %c{size} : index\n");
            s += &format!(
                "      %row = memref.subview %rows[%rb] [{size}] [1] : memref<{}xf32> to {rt}\n",
                threads * size
            );
            borders(&mut s, &mut constants, "      ");
            s += &format!(
                "      %gs = arith.muli %t, %c{share} : index\n      %gn = arith.addi %gs, %c{share} : index\n"
            );
            s += &format!("      %ge = arith.minsi %gn, %c{c} : index\n");
            s += "      scf.for %g = %gs to %ge step %c1 {\n";
        } else {
            s += &format!("    scf.for %g = %c0 to %c{c} step %c1 {{\n");
        }
        let mut id = 0usize;
        // One output row: `taps` its input rows (constants, or offsets from `%oh` times the
        // stride), then its columns.
        let mut output_row = |s: &mut String,
                              constants: &mut std::collections::BTreeSet<i64>,
                              row: Row,
                              indent: &str| {
            id += 1;
            let r = id;
            let (out_row, inputs): (String, Vec<String>) = match &row {
                Row::Static(o) => {
                    let taps = self.taps(*o);
                    constants.insert(*o);
                    constants.extend(&taps);
                    (format!("%c{o}"), taps.iter().map(|i| format!("%c{i}")).collect())
                }
                Row::Dynamic => {
                    let ([kh, _], [sh, _], [dh, _], [pt, _]) = (self.window, self.strides, self.dilations, self.pads);
                    constants.insert(sh);
                    *s += &format!("{indent}%ib{r} = arith.muli %oh, %c{sh} : index\n");
                    let rows = (0..kh)
                        .map(|a| {
                            let k = a * dh - pt;
                            *s += &format!("{indent}%i{r}_{a} = arith.addi %ib{r}, {} : index\n", index(constants, k));
                            format!("%i{r}_{a}")
                        })
                        .collect();
                    ("%oh".to_owned(), rows)
                }
            };
            // Down the rows, one input vector at a time, into the row buffer.
            let column_pass = |s: &mut String, column: &str, tail: bool, indent: &str, tag: &str| {
                let name = format!("%v{r}{tag}");
                if inputs.is_empty() {
                    *s += &format!("{indent}%at{r}{tag} = arith.addi {column}, %c{base} : index\n");
                    *s += &format!("{indent}vector.store %ninf, %row[%at{r}{tag}] : {rt}, {vt}\n");
                    return;
                }
                let mut chain = String::new();
                for (a, input) in inputs.iter().enumerate() {
                    let x = format!("{name}_{a}");
                    if tail {
                        *s += &format!(
                            "{indent}{x} = vector.maskedload %x[{batch}, %g, {input}, {column}], %tail, %ninf : {xt}, {mt}, {vt} into {vt}\n"
                        );
                    } else {
                        *s += &format!("{indent}{x} = vector.load %x[{batch}, %g, {input}, {column}] : {xt}, {vt}\n");
                    }
                    chain = if a == 0 {
                        x
                    } else {
                        let next = format!("{name}_{a}x");
                        *s += &nan_max(indent, &next, &chain, &x, &vt, &mt);
                        next
                    };
                }
                *s += &format!("{indent}%at{r}{tag} = arith.addi {column}, %c{base} : index\n");
                *s += &format!("{indent}vector.store {chain}, %row[%at{r}{tag}] : {rt}, {vt}\n");
            };
            if iw_main > 0 {
                constants.insert(iw_main);
                *s += &format!("{indent}scf.for %j{r} = %c0 to %c{iw_main} step %c{lanes} {{\n");
                column_pass(s, &format!("%j{r}"), false, &format!("{indent}  "), "");
                *s += &format!("{indent}}}\n");
            }
            if iw_tail > 0 {
                column_pass(s, &format!("%c{iw_main}"), true, indent, "t");
            }
            // Along the row buffer: the window's column taps of each output vector.
            let row_pass = |s: &mut String,
                            constants: &mut std::collections::BTreeSet<i64>,
                            column: &str,
                            tail: bool,
                            indent: &str,
                            tag: &str| {
                let name = format!("%h{r}{tag}");
                *s += &format!("{indent}{name}s = arith.muli {column}, %c{sw} : index\n");
                let mut chain = String::new();
                for b in 0..kw {
                    let at = b * dw + shift;
                    constants.insert(at);
                    let x = format!("{name}_{b}");
                    *s += &format!("{indent}{x}i = arith.addi {name}s, %c{at} : index\n");
                    if sw > 1 {
                        let even: Vec<String> = (0..lanes).map(|l| (l * sw).to_string()).collect();
                        *s += &format!("{indent}{x}w = vector.load %row[{x}i] : {rt}, vector<{wide}xf32>\n");
                        *s += &format!(
                            "{indent}{x} = vector.shuffle {x}w, {x}w [{}] : vector<{wide}xf32>, vector<{wide}xf32>\n",
                            even.join(", ")
                        );
                    } else {
                        *s += &format!("{indent}{x} = vector.load %row[{x}i] : {rt}, {vt}\n");
                    }
                    chain = if b == 0 {
                        x
                    } else {
                        let next = format!("{name}_{b}x");
                        *s += &nan_max(indent, &next, &chain, &x, &vt, &mt);
                        next
                    };
                }
                let at = format!("[{batch}, %g, {out_row}, {column}]");
                if seeded {
                    let old = format!("{name}o");
                    if tail {
                        *s += &format!(
                            "{indent}{old} = vector.maskedload %y{at}, %otail, %ninf : {yt}, {mt}, {vt} into {vt}\n"
                        );
                    } else {
                        *s += &format!("{indent}{old} = vector.load %y{at} : {yt}, {vt}\n");
                    }
                    let next = format!("{name}y");
                    *s += &nan_max(indent, &next, &old, &chain, &vt, &mt);
                    chain = next;
                }
                let result = match epilogue {
                    Some(epilogue) => epilogue.apply(s, indent, &format!("{r}{tag}"), &chain, &vt),
                    None => chain,
                };
                if tail {
                    *s += &format!("{indent}vector.maskedstore %y{at}, %otail, {result} : {yt}, {mt}, {vt}\n");
                } else {
                    *s += &format!("{indent}vector.store {result}, %y{at} : {yt}, {vt}\n");
                }
            };
            if ow_main > 0 {
                constants.insert(ow_main);
                *s += &format!("{indent}scf.for %o{r} = %c0 to %c{ow_main} step %c{lanes} {{\n");
                row_pass(s, constants, &format!("%o{r}"), false, &format!("{indent}  "), "");
                *s += &format!("{indent}}}\n");
            }
            if ow_tail > 0 {
                row_pass(s, constants, &format!("%c{ow_main}"), true, indent, "t");
            }
        };
        let (first, end) = self.inner_rows();
        let indent = "        ";
        for o in 0..first {
            output_row(&mut s, &mut constants, Row::Static(o), indent);
        }
        if end > first {
            constants.extend([first, end]);
            s += &format!("{indent}scf.for %oh = %c{first} to %c{end} step %c1 {{\n");
            output_row(&mut s, &mut constants, Row::Dynamic, &format!("{indent}  "));
            s += &format!("{indent}}}\n");
        }
        for o in end.max(first)..oh {
            output_row(&mut s, &mut constants, Row::Static(o), indent);
        }
        s += if threads > 1 { "      }\n    }\n" } else { "    }\n" };
        if n > 1 {
            s += "    }\n";
        }
        s += "    return\n  }\n}\n";
        let mut head = format!("module {{\n  func.func private @depthwise(%x: {xt}, %w: {wt}, %y: {yt}) {{\n");
        constants.extend([iw_tail, ow_tail]);
        for k in constants {
            head += &format!("    {} = arith.constant {k} : index\n", index_constant(k));
        }
        if iw_tail > 0 {
            head += &format!("    %tail = vector.create_mask %c{iw_tail} : {mt}\n");
        }
        if ow_tail > 0 {
            head += &format!("    %otail = vector.create_mask %c{ow_tail} : {mt}\n");
        }
        head += &format!("    %ninf = arith.constant dense<0xFF800000> : {vt}\n");
        for (k, value) in epilogue.iter().flat_map(|e| &e.constants).enumerate() {
            head += &format!("    %ep{k} = arith.constant dense<{value}> : {vt}\n");
        }
        head + &s
    }
}

/// An output row: a constant one (its taps known), or the loop's `%oh` (all taps inside).
enum Row {
    Static(i64),
    Dynamic,
}

/// The name of index constant `k`, registered in `constants`.
fn index(constants: &mut std::collections::BTreeSet<i64>, k: i64) -> String {
    constants.insert(k);
    index_constant(k)
}
