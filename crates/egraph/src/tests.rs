use crate::interp::{run_extracted, run_graph};
use crate::*;
use proptest::prelude::*;
use strata_sg_kinds::{Elementwise, ScalarOp};

const F32: u64 = 4;

/// The seed example: x1 = input; x2 = conv(x1); x3 = x2[1:10, 2:20]; x4 = x3ᵀ; x5 = relu(x4);
/// x6 = exp(x5). Returns the graph and the node indices x1..x6.
fn seed() -> (Graph, [usize; 6]) {
    let mut g = Graph::default();
    let x1 = g.add(Op::Input(0), &[], &[64, 64], F32);
    let x2 = g.add(Op::Kernel("conv".into()), &[x1], &[64, 128], F32);
    let x3 = g.add(Op::Slice { starts: vec![1, 2], steps: vec![1, 1] }, &[x2], &[9, 18], F32);
    let x4 = g.add(Op::Transpose { perm: vec![1, 0] }, &[x3], &[18, 9], F32);
    let x5 = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Relu)), &[x4], &[18, 9], F32);
    let x6 = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Exp)), &[x5], &[18, 9], F32);
    (g, [x1, x2, x3, x4, x5, x6])
}

fn run(g: &Graph) -> Outcome {
    optimize(g, &Limits::for_graph(g.nodes.len()), &Weights::default()).expect("optimizes")
}

/// Same outputs, bit for bit, as the unrewritten graph on pseudo-random inputs.
fn assert_same_values(g: &Graph, outcome: &Outcome) {
    assert_same_values_with(g, outcome, &[]);
}

/// [`assert_same_values`] with these constants.
fn assert_same_values_with(g: &Graph, outcome: &Outcome, constants: &[Vec<f32>]) {
    let inputs: Vec<Vec<f32>> = g
        .nodes
        .iter()
        .filter(|n| matches!(n.op, Op::Input(_)))
        .map(|n| (0..n.elements()).map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.125).collect())
        .collect();
    let want = run_graph(g, &inputs, constants);
    let got = run_extracted(g, &outcome.program, &inputs, constants);
    let bits =
        |v: &Vec<Vec<f32>>| v.iter().map(|o| o.iter().map(|x| x.to_bits()).collect::<Vec<_>>()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want), "program {:#?}", outcome.program.steps);
}

#[test]
fn seed_chain_needs_two_buffers_and_two_launches() {
    let (mut g, [.., x6]) = seed();
    g.outputs = vec![x6];
    let outcome = run(&g);
    assert_eq!((outcome.before.allocations, outcome.before.launches), (6, 5));
    assert_eq!(outcome.before.bytes_copied, 2 * 9 * 18 * 4);
    assert_eq!(
        (outcome.after.allocations, outcome.after.launches, outcome.after.bytes_copied),
        (2, 2, 0),
        "{:#?}",
        outcome.program.steps
    );
    // relu and exp fused, written in place through the transposed slice view of x2.
    let fused: Vec<&Step> = outcome.program.steps.iter().filter(|s| matches!(s, Step::Fused { .. })).collect();
    assert_eq!(fused.len(), 1);
    let Step::Fused { program, in_place, .. } = fused[0] else { unreachable!() };
    assert_eq!((program.to_string().as_str(), *in_place), ("relu(i0) exp(s0)", true));
    assert!(outcome
        .program
        .steps
        .iter()
        .any(|s| matches!(s, Step::View { layout, .. } if layout.strides == vec![1, 128] && layout.offset == 130)));
    assert_same_values(&g, &outcome);
}

/// Each optimisation turned off on its own (`--disable`) takes away what it saves on the
/// seed example, and only that; the program still computes the same values.
#[test]
fn each_family_turned_off_on_its_own() {
    let (mut g, [.., x6]) = seed();
    g.outputs = vec![x6];
    let without = |families: &[&str]| {
        let skip = crate::rules::family_rules(families).expect("known families");
        let outcome =
            optimize(&g, &Limits { skip, ..Limits::for_graph(g.nodes.len()) }, &Weights::default()).expect("optimizes");
        assert_same_values(&g, &outcome);
        let fired = |rule: &str| outcome.rules_fired.get(rule).copied().unwrap_or(0);
        for (family, rules) in crate::rules::FAMILIES {
            if families.contains(family) {
                assert!(rules.iter().all(|r| fired(r) == 0), "{family} is off but fired: {:?}", outcome.rules_fired);
            }
        }
        (outcome.after.allocations, outcome.after.launches)
    };
    assert_eq!(without(&[]), (2, 2));
    // No views: the slice and the transpose are copies (two more buffers, two more kernels).
    assert_eq!(without(&["views"]), (4, 4));
    // No fusion: relu and exp are two kernels, still in place over the view.
    assert_eq!(without(&["fusion"]).1, 3);
    // No in-place write: the fused kernel writes a buffer of its own.
    assert_eq!(without(&["in-place"]), (3, 2));
    assert_eq!(without(&["views", "fusion", "epilogues", "in-place"]), (6, 5));
    let unknown = crate::rules::family_rules(&["views", "loops"]).expect_err("unknown family");
    assert_eq!(unknown, "unknown optimisation 'loops' (known: views, fusion, epilogues, in-place)");
}

#[test]
fn a_second_reader_of_the_slice_keeps_the_write_in_place() {
    let (mut g, [_, _, x3, _, _, x6]) = seed();
    let x7 = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Neg)), &[x3], &[9, 18], F32);
    g.outputs = vec![x6, x7];
    let outcome = run(&g);
    assert_eq!((outcome.before.allocations, outcome.before.launches), (7, 6));
    assert_eq!(
        (outcome.after.allocations, outcome.after.launches, outcome.after.bytes_copied),
        (3, 3, 0),
        "{:#?}",
        outcome.program.steps
    );
    assert!(outcome.program.steps.iter().any(|s| matches!(s, Step::Fused { in_place: true, .. })));
    assert_same_values(&g, &outcome);
}

#[test]
fn an_output_is_never_overwritten() {
    let (mut g, [_, x2, .., x6]) = seed();
    g.outputs = vec![x6, x2];
    let outcome = run(&g);
    assert_eq!((outcome.before.allocations, outcome.before.launches), (6, 5));
    assert_eq!(
        (outcome.after.allocations, outcome.after.launches, outcome.after.bytes_copied),
        (3, 2, 0),
        "{:#?}",
        outcome.program.steps
    );
    assert!(outcome.program.steps.iter().all(|s| !matches!(s, Step::Fused { in_place: true, .. })));
    assert!(outcome.repairs.refused >= 1, "the in-place choice was refused by the validator");
    assert_same_values(&g, &outcome);
}

#[test]
fn a_conv_after_the_transpose_reads_one_gathered_copy() {
    let (mut g, [_, _, _, x4, ..]) = seed();
    g.nodes.truncate(4);
    let x5 = g.add(Op::Kernel("conv2".into()), &[x4], &[18, 9], F32);
    g.outputs = vec![x5];
    let outcome = run(&g);
    assert_eq!((outcome.before.allocations, outcome.before.launches, outcome.before.bytes_copied), (5, 4, 2 * 648));
    assert_eq!(
        (outcome.after.allocations, outcome.after.launches, outcome.after.bytes_copied),
        (4, 3, 648),
        "{:#?}",
        outcome.program.steps
    );
    assert_same_values(&g, &outcome);
}

#[test]
fn a_long_elementwise_chain_stays_small() {
    let mut g = Graph::default();
    let mut x = g.add(Op::Input(0), &[], &[32, 32], F32);
    x = g.add(Op::Kernel("k".into()), &[x], &[32, 32], F32);
    let ops = [
        ScalarOp::new(Elementwise::Relu),
        ScalarOp::new(Elementwise::Exp),
        ScalarOp::new(Elementwise::Neg),
        ScalarOp::new(Elementwise::Tanh),
    ];
    for i in 0..200 {
        x = g.add(Op::Elementwise(ops[i % ops.len()]), &[x], &[32, 32], F32);
    }
    g.outputs = vec![x];
    let start = std::time::Instant::now();
    let outcome = run(&g);
    eprintln!("200-op chain: {} e-nodes, {:.1} ms", outcome.enodes, start.elapsed().as_secs_f64() * 1e3);
    assert!(outcome.enodes <= 5000, "{} e-nodes", outcome.enodes);
    assert!(outcome.enodes <= 8 * g.nodes.len() + 64);
    // The whole chain is one kernel written in place over the kernel's result.
    assert_eq!((outcome.after.allocations, outcome.after.launches), (2, 2), "{:?}", outcome.stop);
    assert_same_values(&g, &outcome);
}

#[test]
fn a_chain_longer_than_one_kernel_is_cut_into_full_kernels() {
    // 1000 elementwise ops: kernels of at most 256 steps each, every op in one of them (not one
    // kernel of 256 steps after 744 unfused ones).
    let mut g = Graph::default();
    let mut x = g.add(Op::Input(0), &[], &[2, 3], F32);
    let ops = [ScalarOp::new(Elementwise::Neg), ScalarOp::new(Elementwise::Relu)];
    for i in 0..1000 {
        x = g.add(Op::Elementwise(ops[i % ops.len()]), &[x], &[2, 3], F32);
    }
    g.outputs = vec![x];
    let outcome = run(&g);
    assert_eq!(outcome.after.launches, 1000_u64.div_ceil(256), "{:?}", outcome.stop);
    assert!(outcome.enodes <= 8 * g.nodes.len() + 64, "{} e-nodes", outcome.enodes);
    assert_same_values(&g, &outcome);
}

#[test]
fn a_residual_ladder_fuses_through_values_read_twice() {
    // y = y + relu(-y), 300 times: every y is read twice, both times by the next rung, so the
    // ladder is kernels of at most 256 steps (not one kernel per rung); a cut inside a rung
    // leaves the rung's first op a small kernel of its own.
    let mut g = Graph::default();
    let mut y = g.add(Op::Input(0), &[], &[2, 3], F32);
    for _ in 0..300 {
        let n = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Neg)), &[y], &[2, 3], F32);
        let r = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Relu)), &[n], &[2, 3], F32);
        y = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Add)), &[y, r], &[2, 3], F32);
    }
    g.outputs = vec![y];
    let outcome = run(&g);
    let full = 900_u64.div_ceil(256);
    assert!((full..=2 * full).contains(&outcome.after.launches), "{} launches", outcome.after.launches);
    assert_same_values(&g, &outcome);
}

#[test]
fn a_value_read_by_two_kernels_is_not_fused() {
    // s = sigmoid(x) read by two different kernels (one of them an output): it stays its own
    // kernel (fusing it would compute it twice).
    let mut g = Graph::default();
    let x = g.add(Op::Input(0), &[], &[4], F32);
    let s = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Sigmoid)), &[x], &[4], F32);
    let a = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Mul)), &[x, s], &[4], F32);
    let b = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Neg)), &[s], &[4], F32);
    g.outputs = vec![a, b];
    let outcome = run(&g);
    assert_eq!(outcome.after.launches, 3, "{:#?}", outcome.program.steps);
    assert_same_values(&g, &outcome);
}

#[test]
fn silu_is_one_kernel() {
    // x * sigmoid(x) with x computed by an elementwise op: x is read twice by the Mul's kernel.
    let mut g = Graph::default();
    let i = g.add(Op::Input(0), &[], &[4], F32);
    let x = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Neg)), &[i], &[4], F32);
    let s = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Sigmoid)), &[x], &[4], F32);
    let y = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Mul)), &[x, s], &[4], F32);
    g.outputs = vec![y];
    let outcome = run(&g);
    assert_eq!(outcome.after.launches, 1, "{:#?}", outcome.program.steps);
    assert_same_values(&g, &outcome);
}

#[test]
fn a_square_of_a_computed_value_is_one_kernel() {
    // d = x - y, then d * d (a variance's squares, as exporters write them): the Mul reads d
    // through both its operands, so d vanishes into the Mul's kernel as into `x * sigmoid(x)`'s.
    let mut g = Graph::default();
    let x = g.add(Op::Input(0), &[], &[4], F32);
    let y = g.add(Op::Input(1), &[], &[4], F32);
    let d = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Sub)), &[x, y], &[4], F32);
    let sq = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Mul)), &[d, d], &[4], F32);
    g.outputs = vec![sq];
    let outcome = run(&g);
    assert_eq!(outcome.after.launches, 1, "{:#?}", outcome.program.steps);
    assert_same_values(&g, &outcome);
}

#[test]
fn a_conv_epilogue_takes_scale_and_activation() {
    // x -> conv -> * per-column scale (a broadcast constant) -> clip(0, 6): one launch.
    let mut g = Graph::default();
    let x = g.add(Op::Input(0), &[], &[8, 16], F32);
    let conv = g.add(Op::Kernel("conv".into()), &[x], &[8, 16], F32);
    let scale = g.add(Op::Constant(0), &[], &[1, 16], F32);
    let wide = g.add(Op::Broadcast, &[scale], &[8, 16], F32);
    let scaled = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Mul)), &[conv, wide], &[8, 16], F32);
    let relu6 = g.add(Op::Elementwise(ScalarOp::with(Elementwise::Clip, &[0.0, 6.0])), &[scaled], &[8, 16], F32);
    g.outputs = vec![relu6];
    // Without the epilogue: the conv's buffer, the fused kernel written over it.
    let outcome = run(&g);
    assert_eq!((outcome.after.allocations, outcome.after.launches), (2, 2), "{:#?}", outcome.program.steps);
    g.epilogue_kernels.insert(conv);
    let outcome = run(&g);
    assert_eq!((outcome.before.allocations, outcome.before.launches), (5, 4));
    assert_eq!(
        (outcome.after.allocations, outcome.after.launches, outcome.after.bytes_copied),
        (2, 1, 0),
        "{:#?}",
        outcome.program.steps
    );
    let Some(Step::Epilogue { program, extras, .. }) =
        outcome.program.steps.iter().find(|s| matches!(s, Step::Epilogue { .. }))
    else {
        panic!("no epilogue: {:#?}", outcome.program.steps)
    };
    assert_eq!(program.to_string(), "mul(i0,i1) clip<0.0,6.0>(s0)");
    assert!(
        matches!(outcome.program.steps[extras[0]], Step::View { .. }),
        "the scale is read through its broadcast view"
    );
    assert!(outcome.rules_fired.contains_key("fuse-epilogue"));
    let constants = vec![(0..16).map(|i| i as f32 * 0.5).collect::<Vec<f32>>()];
    assert_same_values_with(&g, &outcome, &constants);
    // A kernel result that is also an output must exist: no epilogue.
    g.outputs.push(conv);
    let outcome = run(&g);
    assert!(outcome.program.steps.iter().all(|s| !matches!(s, Step::Epilogue { .. })), "{:#?}", outcome.program.steps);
    assert_same_values_with(&g, &outcome, &constants);
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A random graph of movement and elementwise ops over a kernel's result.
fn random_graph(seed: u64) -> Graph {
    let mut rng = Rng(seed);
    let mut g = Graph::default();
    let dims = [1 + rng.below(5) as i64, 1 + rng.below(6) as i64, 1 + rng.below(4) as i64];
    let x = g.add(Op::Input(0), &[], &dims, F32);
    let first = g.add(Op::Kernel("k".into()), &[x], &dims, F32);
    if rng.below(2) == 0 {
        g.epilogue_kernels.insert(first);
    }
    let mut values = vec![first];
    for _ in 0..(3 + rng.below(8)) {
        let a = values[rng.below(values.len() as u64) as usize];
        let shape = g.nodes[a].shape.clone();
        let node = match rng.below(8) {
            7 => {
                // Another kernel, which may take an epilogue.
                let k = g.add(Op::Kernel("k2".into()), &[a], &shape, F32);
                if rng.below(2) == 0 {
                    g.epilogue_kernels.insert(k);
                }
                if rng.below(2) == 0 {
                    // Often followed by an activation, as convolutions are.
                    values.push(k);
                    g.add(Op::Elementwise(ScalarOp::with(Elementwise::Clip, &[0.0, 6.0])), &[k], &shape, F32)
                } else {
                    k
                }
            }
            0 => {
                let starts: Vec<i64> = shape.iter().map(|&n| rng.below(n as u64) as i64).collect();
                let steps: Vec<i64> = shape.iter().map(|_| 1 + rng.below(2) as i64).collect();
                let out: Vec<i64> =
                    shape.iter().zip(&starts).zip(&steps).map(|((n, s), k)| (n - s + k - 1) / k).collect();
                g.add(Op::Slice { starts, steps }, &[a], &out, F32)
            }
            1 => {
                let mut perm: Vec<usize> = (0..shape.len()).collect();
                perm.rotate_left(1 + rng.below(shape.len() as u64 - 1).min(shape.len() as u64 - 1) as usize);
                let out: Vec<i64> = perm.iter().map(|&p| shape[p]).collect();
                g.add(Op::Transpose { perm }, &[a], &out, F32)
            }
            2 => {
                // Merge the last two axes, or split the first off a 1.
                let out = if rng.below(2) == 0 { vec![shape[0], shape[1] * shape[2]] } else { shape.clone() };
                let out = if out.len() == 2 { vec![out[0], out[1], 1] } else { out };
                g.add(Op::Reshape, &[a], &out, F32)
            }
            3 => {
                let mut out = shape.clone();
                let axis = rng.below(3) as usize;
                if shape[axis] != 1 {
                    continue;
                }
                out[axis] = 3;
                g.add(Op::Broadcast, &[a], &out, F32)
            }
            4 | 5 => {
                let ops = [
                    ScalarOp::new(Elementwise::Relu),
                    ScalarOp::new(Elementwise::Exp),
                    ScalarOp::new(Elementwise::Neg),
                    ScalarOp::new(Elementwise::Sigmoid),
                    ScalarOp::with(Elementwise::Clip, &[0.0, 6.0]),
                    ScalarOp::new(Elementwise::HardSwish),
                ];
                g.add(Op::Elementwise(ops[rng.below(6) as usize]), &[a], &shape, F32)
            }
            _ => {
                let same: Vec<usize> = values.iter().copied().filter(|&v| g.nodes[v].shape == shape).collect();
                let b = same[rng.below(same.len() as u64) as usize];
                let ops = [
                    ScalarOp::new(Elementwise::Add),
                    ScalarOp::new(Elementwise::Mul),
                    ScalarOp::new(Elementwise::Sub),
                    ScalarOp::new(Elementwise::Max),
                ];
                g.add(Op::Elementwise(ops[rng.below(4) as usize]), &[a, b], &shape, F32)
            }
        };
        values.push(node);
    }
    let last = *values.last().expect("a value");
    g.outputs = vec![last];
    if rng.below(2) == 0 {
        let extra = values[rng.below(values.len() as u64) as usize];
        if extra != last {
            g.outputs.push(extra);
        }
    }
    g
}

/// Issue #20's DenseNet block: `t = relu(cat); c = conv(t); cat = concat(cat, c)`. The
/// validator refuses one in-place relu per layer: the repairs now converge (as many as the
/// e-graph's in-place writes), and past a given limit extraction drops every in-place write and
/// still returns a valid, value-preserving program.
#[test]
fn concat_chains_never_fail_to_optimize() {
    for (layers, repairs) in [(9usize, None), (10, None), (16, None), (58, None), (10, Some(0)), (16, Some(0))] {
        let mut g = Graph::default();
        let mut cat = g.add(Op::Input(0), &[], &[1, 2, 2, 2], F32);
        for _ in 0..layers {
            let shape = g.nodes[cat].shape.clone();
            let t = g.add(Op::Elementwise(ScalarOp::new(Elementwise::Relu)), &[cat], &shape, F32);
            let c = g.add(Op::Kernel("conv".into()), &[t], &[1, 2, 2, 2], F32);
            let mut joined = shape.clone();
            joined[1] += 2;
            cat = g.add(Op::Kernel("concat".into()), &[cat, c], &joined, F32);
        }
        g.outputs = vec![cat];
        let mut limits = Limits::for_graph(g.nodes.len());
        limits.repairs = repairs.unwrap_or(limits.repairs);
        let outcome = optimize(&g, &limits, &Weights::default()).expect("optimizes");
        // With the default limit every chain converges, each layer's refused write banned in one
        // round (their storages differ); with no repairs allowed, none does, and it falls back.
        assert_eq!(outcome.repairs.dropped_in_place, repairs.is_some(), "{layers} layers: {:?}", outcome.repairs);
        assert_eq!(outcome.repairs.refused, layers - 1, "{layers} layers: {:?}", outcome.repairs);
        if repairs.is_none() {
            // The layers' refusals (one each, on storages of their own) are one round; each
            // round used to ban one, extracting the whole program again every time.
            assert_eq!(outcome.repairs.rounds, 1, "{layers} layers: {:?}", outcome.repairs);
            // Every layer but the last keeps one buffer and one kernel beside its in-place
            // writes (as one refusal a round gave).
            assert_eq!(
                (outcome.after.allocations, outcome.after.launches),
                (3 * layers as u64 + 1, 3 * layers as u64),
                "{layers}"
            );
        }
        assert_same_values(&g, &outcome);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every rewrite preserves values bit for bit (views and in-place exactly; fusion applies
    /// the same operations in the same order), and never costs more than the unrewritten graph.
    #[test]
    fn rewritten_programs_compute_the_same_values(seed in any::<u64>()) {
        let g = random_graph(seed);
        let outcome = run(&g);
        assert_same_values(&g, &outcome);
        let w = Weights::default();
        prop_assert!(w.cost(&outcome.after) <= w.cost(&outcome.before) + 1e-6, "{:?} vs {:?}", outcome.after, outcome.before);
        prop_assert!(outcome.enodes <= 8 * g.nodes.len() + 64);
        prop_assert!(outcome.enodes <= 4 * crate::egraph::build(&g).0.total_number_of_nodes());
    }
}

/// The property test's generator reaches epilogues, in-place writes and views (so it checks
/// them).
#[test]
fn random_graphs_reach_every_kind_of_step() {
    let (mut epilogues, mut in_place, mut views) = (0, 0, 0);
    for seed in 0..300 {
        let g = random_graph(seed);
        let outcome = run(&g);
        for step in &outcome.program.steps {
            match step {
                Step::Epilogue { .. } => epilogues += 1,
                Step::Fused { in_place: true, .. } => in_place += 1,
                Step::View { .. } => views += 1,
                _ => {}
            }
        }
    }
    assert!(epilogues > 20 && in_place > 20 && views > 20, "epilogues {epilogues}, in place {in_place}, views {views}");
}

/// An isolation forest's ending: 24 per-tree sums `d_t + c_t` added up. Fusing every tree's
/// addition into the total would keep all 48 inputs live until the end; a kernel reads at most
/// `MAX_FUSED_OPERANDS` (16) inputs, so the trees' sums stay kernels of their own where that
/// bound is reached, and the values are the same.
#[test]
fn fusion_stops_at_the_operand_bound() {
    let mut g = Graph::default();
    let add = || Op::Elementwise(ScalarOp::new(Elementwise::Add));
    let mut total = None;
    for t in 0..24 {
        let d = g.add(Op::Input(2 * t), &[], &[64, 1], F32);
        let c = g.add(Op::Input(2 * t + 1), &[], &[64, 1], F32);
        let path = g.add(add(), &[d, c], &[64, 1], F32);
        total = Some(match total {
            None => path,
            Some(sum) => g.add(add(), &[sum, path], &[64, 1], F32),
        });
    }
    g.outputs = vec![total.expect("24 trees")];
    let outcome = run(&g);
    let widest = outcome
        .program
        .steps
        .iter()
        .filter_map(|s| if let Step::Fused { args, .. } = s { Some(args.len()) } else { None })
        .max();
    assert!(widest.is_some_and(|w| w <= 16), "a kernel reads {widest:?} operands: {:#?}", outcome.program.steps);
    assert_same_values(&g, &outcome);
}
