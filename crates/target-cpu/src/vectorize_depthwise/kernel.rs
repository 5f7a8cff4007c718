//! The text of `strata-vectorize-depthwise`'s kernels: one function per convolution or pool, its
//! blocks of rows and columns written out or in loops as the pass's documentation describes.

use super::{index_constant, At, Depthwise, Reduce, Seed};
use crate::depthwise_fusion::{nan_max, Epilogue};
use crate::text_kernels::ROLLED;

impl Depthwise {
    /// The kernel function (MLIR text) for operand types `types` (input, filter, output); `epilogue` (see
    /// [`crate::depthwise_fusion::epilogue`]) is applied to the accumulators before they are stored.
    /// `start`: where the accumulators start (the output's values, a per-channel bias that is
    /// the kernel's fourth argument, `memref<C x f32>`, see [`crate::depthwise_fusion::bias_fill`], or the reduction's
    /// identity, see [`crate::depthwise_fusion::identity_fill`]).
    pub(super) fn function(
        &self,
        types: &[String],
        lanes: i64,
        threads: i64,
        epilogue: Option<&Epilogue>,
        start: Seed,
    ) -> String {
        let seeded = start == Seed::Bias;
        // A stem on several threads splits its rows (the filter blocks inside each row block,
        // as on one thread) where its loop of row blocks gives every thread two or more: the
        // full convolutions reading it next split rows too, and read what their core wrote
        // (split by filter blocks, half of their reads came from the other core: the text
        // detector's stem and the two convolutions after it 0.031, 0.035, 0.022 -> 0.027,
        // 0.032, 0.019 ms on two threads).
        let row_split = threads > 1 && self.full && self.groups == 1 && self.row_blocks(lanes) >= 2 * threads;
        let parallel = threads > 1 && !row_split;
        let [n, c, oh, ow] = [self.output[0], self.output[1], self.output[2], self.output[3]];
        let [ih, iw] = [self.input[2], self.input[3]];
        let [kh, kw] = self.window();
        let [sh, sw] = self.strides;
        let [dh, dw] = self.dilations;
        let [pt, pl] = self.pads;
        let (filters, rows_per_block) =
            self.block_shape(strata_machine::Registers::for_lanes(lanes).accumulators, parallel);
        let lanes = self.lanes(lanes);
        let wide = lanes * sw;
        let vt = format!("vector<{lanes}xf32>");
        let mt = format!("vector<{lanes}xi1>");
        let (ow_main, ow_tail) = (ow / lanes * lanes, ow % lanes);
        let (xt, wt, yt) = (&types[0], &types[1], &types[2]);
        let groups = c / filters;
        let constants =
            std::cell::RefCell::new(std::collections::BTreeSet::from([0, 1, lanes, groups, sh, sw, rows_per_block]));
        // The index constant `k`, declared at the top of the function.
        let cst = |k: i64| -> String {
            constants.borrow_mut().insert(k);
            index_constant(k)
        };
        let mut s = String::new();
        let batch = if n > 1 {
            s += &format!("    scf.for %n = %c0 to {} step %c1 {{\n", cst(n));
            "%n"
        } else {
            "%c0"
        };
        // One iteration per channel (depthwise) or block of filters (full): outermost, or, for
        // a full convolution on one thread, inside each row block, so that the rows of the
        // input a block reads are read again by the next filters while still in the cache
        // (outermost, MobileNetV2's 32-filter stem read its 600 KB input from memory four times:
        // 0.33 ms in the model against 0.20 alone).
        // A grouped convolution's blocks read channels of their own: outermost (the same speed
        // as inside the row blocks on ResNeXt's, a little faster).
        let inner_groups = self.full && !parallel && self.groups == 1;
        let group = std::cell::Cell::new(0usize);
        // The block's filters: the channel itself, or `filters` from `%g * filters`.
        let filter = |j: i64| {
            let g = group.get();
            if self.full {
                format!("%f{g}_{j}")
            } else {
                format!("%g{g}")
            }
        };
        let open_group = |s: &mut String, indent: &str| {
            group.set(group.get() + 1);
            let g = group.get();
            if parallel {
                *s += &format!("{indent}scf.forall (%g{g}) in ({groups}) {{\n");
            } else {
                *s += &format!("{indent}scf.for %g{g} = %c0 to {} step %c1 {{\n", cst(groups));
            }
            let inner = format!("{indent}  ");
            if self.full {
                *s += &format!("{inner}%fbase{g} = arith.muli %g{g}, {} : index\n", cst(filters));
                for j in 0..filters {
                    *s += &format!("{inner}%f{g}_{j} = arith.addi %fbase{g}, {} : index\n", cst(j));
                }
                if self.groups > 1 {
                    // The block's group's first input channel (a block lies in one group).
                    let (per_group, channels) = (c / self.groups, self.filter[1]);
                    *s += &format!(
                        "{inner}%cq{g} = arith.divui %fbase{g}, {} : index\n{inner}%cb{g} = arith.muli %cq{g}, {} : index\n",
                        cst(per_group),
                        cst(channels)
                    );
                }
            }
            if seeded {
                for j in 0..filters {
                    *s += &format!(
                        "{inner}%bs{g}_{j} = memref.load %bias[{}] : {}\n{inner}%bv{g}_{j} = vector.broadcast %bs{g}_{j} : f32 to {vt}\n",
                        filter(j),
                        types[3]
                    );
                }
            }
            // A depthwise channel's weights, broadcast once (a pool has none); a full
            // convolution's are read where they are used (too many to hold).
            if self.reduce == Reduce::Weighted && !self.full {
                for a in 0..kh {
                    for b in 0..kw {
                        *s += &format!(
                            "{inner}%ws{a}_{b} = memref.load %w[%g{g}, {}, {}] : {wt}\n{inner}%wv{a}_{b} = vector.broadcast %ws{a}_{b} : f32 to {vt}\n",
                            cst(a),
                            cst(b)
                        );
                    }
                }
            }
            inner
        };
        if !inner_groups {
            let _ = open_group(&mut s, "    ");
        }
        let mut id = 0usize;
        // A block of `rows` output rows from `row` by one vector of columns from `col`, for each
        // of the block's filters; `tail`: the row's last, partial vector (stores masked).
        let mut block = |s: &mut String, rows: i64, row: &At, col: &At, tail: bool, indent: &str| {
            id += 1;
            let b = id;
            let mask = tail.then(|| {
                *s += &format!("{indent}%m{b} = vector.create_mask {} : {mt}\n", cst(ow_tail));
                format!("%m{b}")
            });
            let col_value = match col {
                At::Static(k) => cst(*k),
                At::Dynamic(v) => v.clone(),
            };
            // Accumulators (by filter, then row) seeded from the output (which holds the
            // bias), or from the bias.
            let mut acc: Vec<Vec<String>> = vec![Vec::new(); filters as usize];
            let mut out_rows: Vec<String> = Vec::new();
            for r in 0..rows {
                let out_row = match row {
                    At::Static(k) => cst(k + r),
                    At::Dynamic(v) => {
                        *s += &format!("{indent}%oh{b}_{r} = arith.addi {v}, {} : index\n", cst(r));
                        format!("%oh{b}_{r}")
                    }
                };
                for j in 0..filters {
                    let seed = format!("%a{b}_{j}_{r}_0");
                    let f = filter(j);
                    match &mask {
                        _ if seeded => acc[j as usize].push(format!("%bv{}_{j}", group.get())),
                        _ if start == Seed::Identity => {
                            acc[j as usize].push(if self.reduce == Reduce::Max { "%ninf" } else { "%zero" }.to_owned())
                        }
                        None => {
                            *s += &format!(
                                "{indent}{seed} = vector.load %y[{batch}, {f}, {out_row}, {col_value}] : {yt}, {vt}\n"
                            );
                            acc[j as usize].push(seed);
                        }
                        Some(m) => {
                            *s += &format!("{indent}{seed} = vector.maskedload %y[{batch}, {f}, {out_row}, {col_value}], {m}, %zero : {yt}, {mt}, {vt} into {vt}\n");
                            acc[j as usize].push(seed);
                        }
                    }
                }
                out_rows.push(out_row);
            }
            let mut steps = vec![vec![0usize; rows as usize]; filters as usize];
            // Filter `j`'s accumulators (`chains`, by row) take the tap's input vectors `rows`
            // (row, value) times `weight`: a multiply-add, a pool's maximum or sum.
            let reduce = self.reduce;
            let accumulate = |s: &mut String,
                              chains: &mut Vec<String>,
                              steps: &mut Vec<usize>,
                              j: usize,
                              rows: &[(i64, String)],
                              weight: &str| {
                for (r, x) in rows {
                    let r = *r as usize;
                    steps[r] += 1;
                    let step = steps[r];
                    let (prev, next) = (chains[r].clone(), format!("%a{b}_{j}_{r}_{step}"));
                    *s += &match reduce {
                        Reduce::Weighted => format!(
                            "{indent}%p{b}_{j}_{r}_{step} = arith.mulf {x}, {weight} fastmath<contract> : {vt}\n{indent}{next} = arith.addf {prev}, %p{b}_{j}_{r}_{step} fastmath<contract> : {vt}\n"
                        ),
                        // linalg.pooling_nchw_max's own maximum (NaN propagates).
                        Reduce::Max => nan_max(indent, &next, &prev, x, &vt, &mt),
                        Reduce::Sum => format!("{indent}{next} = arith.addf {prev}, {x} : {vt}\n"),
                    };
                    chains[r] = next;
                }
            };
            if let At::Dynamic(v) = col {
                // The input column of the block's first output at tap 0 (padding included).
                *s += &format!("{indent}%iw{b} = arith.muli {v}, %c{sw} : index\n");
            }
            // A full convolution's input channels: a rolled loop carrying the accumulators,
            // so that each tap's weights (one per filter) are read where they are used. Loaded
            // out of the loops (they do not change along them), the hundreds a block reads
            // were spilled to the stack as whole vectors.
            let outer_indent = indent;
            let inner = format!("{indent}  ");
            let (indent, input_channel, filter_channel) = if self.full {
                let (result, bounds) = (format!("%r{b}"), ["%c0".to_owned(), cst(self.filter[1])]);
                open_carried(s, indent, &mut acc, &vt, [&result, &format!("%ci{b}"), &format!("%i{b}")], bounds);
                let channel = if self.groups > 1 {
                    *s += &format!("{inner}%cx{b} = arith.addi %ci{b}, %cb{} : index\n", group.get());
                    format!("%cx{b}")
                } else {
                    format!("%ci{b}")
                };
                (inner.as_str(), channel, format!("%ci{b}"))
            } else {
                let channel = format!("%g{}", group.get());
                (indent, channel.clone(), channel)
            };
            // A full convolution's block takes the kernel rows that every row of the block
            // reads inside the input (all of them in the loop of rows) as a rolled loop carrying
            // the accumulators, the taps of one kernel row an iteration, and the others (at the
            // padding) written out before and after it, so that each row still sums its taps
            // in order. A stem's blocks, every tap written out, were a fifth of a small
            // detector's code, which LLVM compiled for a sixth of its time.
            let inside = |a: i64| {
                (0..rows).all(|r| match row {
                    At::Static(k) => (0..ih).contains(&((k + r) * sh + a * dh - pt)),
                    At::Dynamic(_) => true,
                })
            };
            let (lo, hi) = match (0..kh).find(|&a| inside(a)) {
                Some(lo) => (lo, (lo..kh).find(|&a| !inside(a)).unwrap_or(kh)),
                None => (0, 0),
            };
            // Rolled, the block loads each kernel row's input rows again where LLVM shared the
            // rows that its rows' windows have in common: only where that costs at most a
            // quarter more loads (a stride-2 stem's 2 rows: 6 loads of rows where 5 would do; a
            // stride-1 convolution's 4 rows 12 instead of 6 ran 10% slower).
            let distinct: std::collections::BTreeSet<i64> =
                (0..rows).flat_map(|r| (lo..hi).map(move |a| r * sh + a * dh)).collect();
            let shared_loads = 4 * rows * (hi - lo) <= 5 * distinct.len() as i64;
            // The kernel rows in order: `None` for the rolled loop over `lo..hi`.
            let kernel_rows: Vec<Option<i64>> = if self.full && hi - lo >= 2 && shared_loads {
                (0..lo).map(Some).chain([None]).chain((hi..kh).map(Some)).collect()
            } else {
                (0..kh).map(Some).collect()
            };
            let taps_indent = indent;
            let mut row_bases: Vec<String> = Vec::new();
            let window_indent = format!("{indent}  ");
            for kernel_row in kernel_rows {
                let rolled = kernel_row.is_none();
                let indent = if rolled {
                    // Each row's input row at kernel row 0 (before the top padding).
                    row_bases = (0..rows)
                        .map(|r| match row {
                            At::Static(k) => cst((k + r) * sh - pt),
                            At::Dynamic(_) => {
                                *s += &format!(
                                    "{indent}%ihb{b}_{r}a = arith.muli {}, %c{sh} : index\n{indent}%ihb{b}_{r} = arith.subi %ihb{b}_{r}a, {} : index\n",
                                    out_rows[r as usize],
                                    cst(pt)
                                );
                                format!("%ihb{b}_{r}")
                            }
                        })
                        .collect();
                    let names = [&format!("%kr{b}"), &format!("%kh{b}"), &format!("%k{b}")];
                    open_carried(s, indent, &mut acc, &vt, names, [cst(lo), cst(hi)]);
                    *s += &format!("{window_indent}%khd{b} = arith.muli %kh{b}, {} : index\n", cst(dh));
                    window_indent.as_str()
                } else {
                    taps_indent
                };
                let a = kernel_row.unwrap_or(0);
                // The kernel row's index in the filter: constant, or the rolled loop's.
                let kernel_index = if rolled { format!("%kh{b}") } else { cst(a) };
                for t in 0..kw {
                    let tap = if rolled { format!("k_{t}") } else { format!("{a}_{t}") };
                    // Where the tap's vector comes from: a whole read at a loop's column, or a
                    // read at a constant column, masked to the row, with the lanes left of the
                    // row (the implicit padding) shuffled in from zeros.
                    let (column, valid, lanes_at) = match col {
                        At::Dynamic(_) => {
                            *s += &format!("{indent}%iw{b}_{tap} = arith.addi %iw{b}, {} : index\n", cst(t * dw - pl));
                            (format!("%iw{b}_{tap}"), wide, None)
                        }
                        At::Static(k) => {
                            let start = k * sw + t * dw - pl;
                            let low = start.max(0);
                            let valid = (iw - low).clamp(0, wide);
                            if valid == 0 {
                                continue;
                            }
                            let at: Vec<i64> = (0..lanes).map(|l| start + l * sw - low).collect();
                            let shuffled = start < 0 || sw > 1;
                            (cst(low), valid, shuffled.then_some(at))
                        }
                    };
                    // A full convolution's weight of this tap for filter `j`, read where it is
                    // used: every row's input vector is loaded first, then each filter's weight
                    // feeds its rows' multiply-adds (all weights first kept 8 of them live beside
                    // 24 accumulators, and the rows' vectors spilled).
                    let weight = |s: &mut String, j: i64| -> String {
                        if !self.full {
                            return format!("%wv{a}_{t}");
                        }
                        let w = format!("%w{b}_{j}_{tap}");
                        *s += &format!(
                                "{indent}{w}s = memref.load %w[{}, {}, {kernel_index}, {}] : {wt}\n{indent}{w} = vector.broadcast {w}s : f32 to {vt}\n",
                                filter(j),
                                filter_channel,
                                cst(t)
                            );
                        w
                    };
                    let mut loaded: Vec<(i64, String)> = Vec::new();
                    for r in 0..rows {
                        let input_row = match row {
                            _ if rolled => {
                                *s += &format!(
                                    "{indent}%ih{b}_{tap}_{r} = arith.addi {}, %khd{b} : index\n",
                                    row_bases[r as usize]
                                );
                                format!("%ih{b}_{tap}_{r}")
                            }
                            At::Static(k) => {
                                let i = (k + r) * sh + a * dh - pt;
                                if i < 0 || i >= ih {
                                    continue;
                                }
                                cst(i)
                            }
                            At::Dynamic(_) => {
                                *s += &format!(
                                        "{indent}%ih{b}_{tap}_{r}a = arith.muli {}, %c{sh} : index\n{indent}%ih{b}_{tap}_{r} = arith.addi %ih{b}_{tap}_{r}a, {} : index\n",
                                        out_rows[r as usize],
                                        cst(a * dh - pt)
                                    );
                                format!("%ih{b}_{tap}_{r}")
                            }
                        };
                        let x = format!("%x{b}_{tap}_{r}");
                        // Lanes outside the row: the padding (a maximum's -inf).
                        let pass = match (self.reduce == Reduce::Max, sw > 1) {
                            (true, true) => "%ninfw",
                            (true, false) => "%ninf",
                            (false, true) => "%zerow",
                            (false, false) => "%zero",
                        };
                        let load = if valid < wide {
                            *s += &format!(
                                "{indent}%lm{b}_{tap}_{r} = vector.create_mask {} : vector<{wide}xi1>\n",
                                cst(valid)
                            );
                            format!(
                                    "vector.maskedload %x[{batch}, {input_channel}, {input_row}, {column}], %lm{b}_{tap}_{r}, {pass} : {xt}, vector<{wide}xi1>, vector<{wide}xf32> into vector<{wide}xf32>"
                                )
                        } else {
                            format!("vector.load %x[{batch}, {input_channel}, {input_row}, {column}] : {xt}, vector<{wide}xf32>")
                        };
                        match &lanes_at {
                            // Lanes before the row read the zero vector (the second operand).
                            Some(at) => {
                                let picks: Vec<String> =
                                    at.iter().map(|&i| if i < 0 { wide } else { i }.to_string()).collect();
                                let second = if at.iter().any(|&i| i < 0) { pass.to_owned() } else { format!("{x}w") };
                                *s += &format!(
                                        "{indent}{x}w = {load}\n{indent}{x} = vector.shuffle {x}w, {second} [{}] : vector<{wide}xf32>, vector<{wide}xf32>\n",
                                        picks.join(", ")
                                    );
                            }
                            None if sw > 1 => {
                                let even: Vec<String> = (0..lanes).map(|l| (l * sw).to_string()).collect();
                                *s += &format!(
                                        "{indent}{x}w = {load}\n{indent}{x} = vector.shuffle {x}w, {x}w [{}] : vector<{wide}xf32>, vector<{wide}xf32>\n",
                                        even.join(", ")
                                    );
                            }
                            None => *s += &format!("{indent}{x} = {load}\n"),
                        }
                        loaded.push((r, x));
                        if !self.full {
                            // A depthwise channel: the row's multiply-add right after its load.
                            let w = weight(s, 0);
                            accumulate(s, &mut acc[0], &mut steps[0], 0, &std::mem::take(&mut loaded), &w);
                        }
                    }
                    for j in 0..filters {
                        if loaded.is_empty() {
                            break;
                        }
                        let w = weight(s, j);
                        let (j, rows) = (j as usize, &loaded);
                        accumulate(s, &mut acc[j], &mut steps[j], j, rows, &w);
                    }
                }
                if rolled {
                    close_carried(s, [indent, taps_indent], &mut acc, &vt, &format!("%kr{b}"));
                }
            }
            let indent = outer_indent;
            if self.full {
                close_carried(s, [&inner, indent], &mut acc, &vt, &format!("%r{b}"));
            }
            for r in 0..rows {
                for (j, chains) in acc.iter().enumerate() {
                    let value = chains[r as usize].clone();
                    let name = format!("{b}_{j}_{r}");
                    let result = match epilogue {
                        Some(epilogue) => epilogue.apply(s, indent, &name, &value, &vt),
                        None => value.clone(),
                    };
                    let (out_row, f) = (&out_rows[r as usize], filter(j as i64));
                    if let Some(epilogue) = epilogue {
                        // Its cast to bytes, into their own output.
                        let indices = format!("{batch}, {f}, {out_row}, {col_value}");
                        let masked = mask.as_deref().map(|m| (m, mt.as_str()));
                        *s += &epilogue.store_bytes((indent, &name), (&result, &vt, lanes), &indices, masked);
                    }
                    match &mask {
                        _ if epilogue.is_some_and(|e| !e.stores_result()) => {}
                        None => *s += &format!(
                            "{indent}vector.store {result}, %y[{batch}, {f}, {out_row}, {col_value}] : {yt}, {vt}\n"
                        ),
                        Some(m) => {
                            *s += &format!("{indent}vector.maskedstore %y[{batch}, {f}, {out_row}, {col_value}], {m}, {result} : {yt}, {mt}, {vt}\n")
                        }
                    }
                }
            }
        };
        // The column blocks of `rows` rows from `row`: those reading padding or past the row
        // each on its own, the others in a loop; then the partial block.
        let (c0, c1) = self.plain_columns(lanes);
        let mut loops = 0usize;
        let mut columns = |s: &mut String, rows: i64, row: &At, outer: &str| {
            let opened = inner_groups.then(|| open_group(s, outer));
            let indent = opened.as_deref().unwrap_or(outer);
            for k in 0..ow / lanes {
                if k == c0 && c1 > c0 {
                    loops += 1;
                    let v = format!("%ow{loops}");
                    *s += &format!(
                        "{indent}scf.for {v} = {} to {} step %c{lanes} {{\n",
                        cst(c0 * lanes),
                        cst(c1 * lanes)
                    );
                    block(s, rows, row, &At::Dynamic(v), false, &format!("{indent}  "));
                    *s += &format!("{indent}}} {ROLLED}\n");
                }
                if (c0..c1).contains(&k) {
                    continue;
                }
                block(s, rows, row, &At::Static(k * lanes), false, indent);
            }
            if ow_tail > 0 {
                block(s, rows, row, &At::Static(ow_main), true, indent);
            }
            if inner_groups {
                *s += &format!("{outer}}} {ROLLED}\n");
            }
        };
        // Rows whose windows lie inside the input in blocks in a loop; the others (reading
        // padding, and the loop's remainder) in blocks at constant rows, each row leaving out
        // the taps that read padding. One row at a time, each block was one chain of dependent
        // multiply-adds: a 7 x 7 map's seven rows, all of them, ran at the adds' latency.
        // The first rows up to a whole block take the top padding's rows with them.
        let (top, blocks) = self.row_loop(rows_per_block);
        let (top, rows_main) = if blocks == 0 { (oh, oh) } else { (top, top + blocks * rows_per_block) };
        let fixed = |from: i64, to: i64| (from..to).step_by(rows_per_block as usize).map(move |r| (r, to));
        // With the rows split, thread `%rt` takes the loop's row blocks from `top + %rt * per`
        // (a share each), the first thread also the rows before the loop and the last those
        // after it.
        let (outer, indent) = ("      ", if row_split { "          " } else { "      " });
        if row_split {
            s += &format!("{outer}scf.forall (%rt) in ({threads}) {{\n{outer}  %rfirst = arith.cmpi eq, %rt, %c0 : index\n{outer}  scf.if %rfirst {{\n");
        }
        for (first, to) in fixed(0, top) {
            columns(&mut s, rows_per_block.min(to - first), &At::Static(first), indent);
        }
        let (lo, hi, loop_indent) = if row_split {
            let per = (blocks + threads - 1) / threads * rows_per_block;
            s += &format!(
                "{outer}  }}\n{outer}  %rlo0 = arith.muli %rt, {} : index\n{outer}  %rlo = arith.addi %rlo0, {} : index\n{outer}  %rhi0 = arith.addi %rlo, {} : index\n{outer}  %rhi = arith.minsi %rhi0, {} : index\n",
                cst(per),
                cst(top),
                cst(per),
                cst(rows_main)
            );
            ("%rlo".to_owned(), "%rhi".to_owned(), format!("{outer}  "))
        } else {
            (cst(top), cst(rows_main), outer.to_owned())
        };
        if blocks > 0 {
            s += &format!("{loop_indent}scf.for %ohb = {lo} to {hi} step %c{rows_per_block} {{\n");
            columns(&mut s, rows_per_block, &At::Dynamic("%ohb".to_owned()), &format!("{loop_indent}  "));
            s += &format!("{loop_indent}}} {ROLLED}\n");
        }
        if row_split {
            s += &format!(
                "{outer}  %rlast = arith.cmpi eq, %rt, {} : index\n{outer}  scf.if %rlast {{\n",
                cst(threads - 1)
            );
        }
        for (first, to) in fixed(rows_main, oh) {
            columns(&mut s, rows_per_block.min(to - first), &At::Static(first), indent);
        }
        if row_split {
            s += &format!("{outer}  }}\n{outer}}}\n");
        }
        if !inner_groups {
            s += "    }\n";
        }
        if n > 1 {
            s += "    }\n";
        }
        s += "    return\n  }\n}\n";
        let bias = if seeded { format!(", %bias: {}", types[3]) } else { String::new() };
        let more = epilogue.map(Epilogue::arguments).unwrap_or_default();
        let mut head =
            format!("module {{\n  func.func private @depthwise(%x: {xt}, %w: {wt}, %y: {yt}{bias}{more}) {{\n");
        for &k in constants.borrow().iter() {
            head += &format!("    {} = arith.constant {k} : index\n", index_constant(k));
        }
        head += &format!("    %zero = arith.constant dense<0.000000e+00> : {vt}\n");
        // What a maximum's window reads outside the input (a sum's or a convolution's: zero).
        if self.reduce == Reduce::Max {
            head += &format!("    %ninf = arith.constant dense<{}> : {vt}\n", self.reduce.identity_literal());
        }
        head += &epilogue.map(|e| e.head(&vt)).unwrap_or_default();
        if sw > 1 {
            let name = if self.reduce == Reduce::Max { "ninfw" } else { "zerow" };
            let value = self.reduce.identity_literal();
            head += &format!("    %{name} = arith.constant dense<{value}> : vector<{wide}xf32>\n");
        }
        head + &s
    }
}

/// Opens `result:N = scf.for iv = lo to hi step 1` carrying the accumulators `acc` (by filter,
/// then row; `names` = `[result, iv, argument prefix]`): inside, each chain continues from its
/// iteration argument `prefix_k`.
fn open_carried(
    s: &mut String,
    indent: &str,
    acc: &mut [Vec<String>],
    vt: &str,
    names: [&String; 3],
    [lo, hi]: [String; 2],
) {
    let [result, iv, prefix] = names;
    let carried: Vec<&String> = acc.iter().flatten().collect();
    let args: Vec<String> = carried.iter().enumerate().map(|(k, seed)| format!("{prefix}_{k} = {seed}")).collect();
    *s += &format!(
        "{indent}{result}:{} = scf.for {iv} = {lo} to {hi} step %c1 iter_args({}) -> ({}) {{\n",
        carried.len(),
        args.join(", "),
        vec![vt; carried.len()].join(", ")
    );
    for (k, chain) in acc.iter_mut().flatten().enumerate() {
        *chain = format!("{prefix}_{k}");
    }
}

/// Closes the loop [`open_carried`] opened as `result` (rolled), yielding the chains (at
/// `indents[0]`, the brace at `indents[1]`): after it, each chain continues from the loop's
/// result.
fn close_carried(s: &mut String, indents: [&str; 2], acc: &mut [Vec<String>], vt: &str, result: &str) {
    let carried: Vec<&String> = acc.iter().flatten().collect();
    *s += &format!(
        "{}scf.yield {} : {}\n{}}} {ROLLED}\n",
        indents[0],
        carried.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
        vec![vt; carried.len()].join(", "),
        indents[1]
    );
    for (k, chain) in acc.iter_mut().flatten().enumerate() {
        *chain = format!("{result}#{k}");
    }
}
