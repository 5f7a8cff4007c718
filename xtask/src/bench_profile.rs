//! `cargo xtask bench run --profile`: each model's kernels (`strata run --profile`, one thread)
//! beside what ONNX Runtime's profiler gives the same ONNX nodes (one intra-op thread), so what
//! is slower than ONNX Runtime shows kernel by kernel, not only model by model.
//!
//! A kernel is matched to the ONNX nodes its label names (`conv_268 + relu6_271`); ONNX
//! Runtime names a node it fused after one of them, with a suffix for its blocked layout
//! (`relu6_271_nchwc`) or the fusion's name (`matmul_71/MatMulAddFusion`). Its nodes that no
//! kernel names (layout reorders, reshapes it copies) are counted apart.

use std::collections::BTreeMap;

/// One kernel of Strata's profile.
#[derive(Debug, PartialEq)]
pub struct Kernel {
    /// Mean milliseconds per run.
    pub ms: f64,
    /// The ONNX nodes it computes, `a + b`.
    pub nodes: String,
}

/// The kernels of `profile.csv` (`strata run --profile --output-dir`), the hottest first.
pub fn strata_kernels(csv: &str) -> Result<Vec<Kernel>, String> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let mut kernels = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("profile.csv: {e}"))?;
        let ms = record.get(0).and_then(|ms| ms.parse().ok()).ok_or("profile.csv: a row without its time")?;
        kernels.push(Kernel { ms, nodes: record.get(2).unwrap_or_default().to_owned() });
    }
    Ok(kernels)
}

/// ONNX Runtime's node times (`bench_ort.py ... --nodes`): name -> (op type, median ms).
pub fn ort_nodes(text: &str) -> BTreeMap<String, (String, f64)> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.strip_prefix("node\t")?.split('\t');
            let (name, op, ms) = (fields.next()?, fields.next()?, fields.next()?.parse().ok()?);
            Some((name.to_owned(), (op.to_owned(), ms)))
        })
        .collect()
}

/// Whether ONNX Runtime's node `name` is the ONNX node `node`: the same name, or it with the
/// suffix of a node rewritten into the blocked layout (`relu6_271_nchwc`) or the fusion that
/// made it (`matmul_71/MatMulAddFusion`).
fn is_node(name: &str, node: &str) -> bool {
    let base = name.split_once('/').map_or(name, |(base, _)| base);
    base == node || base.strip_suffix("_nchwc") == Some(node)
}

/// The table: the `rows` hottest kernels with ONNX Runtime's time for their nodes, then the
/// kernels slower than ONNX Runtime's nodes, most first.
pub fn table(kernels: &[Kernel], mut ort: BTreeMap<String, (String, f64)>, rows: usize) -> String {
    // Each kernel's ONNX Runtime time: its nodes' times, each node counted once.
    let matched: Vec<Option<f64>> = kernels
        .iter()
        .map(|kernel| {
            let times: Vec<f64> = kernel
                .nodes
                .split(" + ")
                .filter_map(|node| {
                    let name = ort.keys().find(|name| is_node(name, node))?.clone();
                    ort.remove(&name).map(|(_, ms)| ms)
                })
                .collect();
            (!times.is_empty()).then(|| times.iter().sum())
        })
        .collect();
    // (`+ 0.0`: an empty sum is -0.0.)
    let strata: f64 = kernels.iter().map(|k| k.ms).sum::<f64>() + 0.0;
    let found: f64 = matched.iter().flatten().sum::<f64>() + 0.0;
    let left: f64 = ort.values().map(|(_, ms)| ms).sum::<f64>() + 0.0;
    if found + left == 0.0 {
        let mut out =
            format!("one thread: Strata's kernels {strata:.3} ms a run\n{:>10}  kernel (ONNX nodes)\n", "Strata ms");
        for kernel in kernels.iter().take(rows) {
            out += &format!("{:>10.4}  {}\n", kernel.ms, kernel.nodes);
        }
        return out;
    }
    let mut out = format!(
        "one thread: Strata's kernels {strata:.3} ms a run, ONNX Runtime's nodes {:.3} ms ({found:.3} in the \
         nodes Strata's kernels name, {left:.3} in {} others{})\n",
        found + left,
        ort.len(),
        if ort.is_empty() {
            String::new()
        } else {
            let mut others: Vec<_> = ort.iter().collect();
            others.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
            let named: Vec<String> = others.iter().take(3).map(|(name, (op, _))| format!("{name} {op}")).collect();
            format!(": {}", named.join(", "))
        }
    );
    let line = |kernel: &Kernel, ort: Option<f64>| match ort {
        Some(ort) => format!("{:>10.4} {ort:>10.4} {:>7.2}x  {}\n", kernel.ms, kernel.ms / ort, kernel.nodes),
        None => format!("{:>10.4} {:>10} {:>8}  {}\n", kernel.ms, "-", "-", kernel.nodes),
    };
    out += &format!("{:>10} {:>10} {:>8}  kernel (ONNX nodes)\n", "Strata ms", "ORT ms", "ratio");
    for (kernel, ort) in kernels.iter().zip(&matched).take(rows) {
        out += &line(kernel, *ort);
    }
    let mut slower: Vec<(&Kernel, f64)> =
        kernels.iter().zip(&matched).filter_map(|(k, ort)| ort.filter(|&ort| k.ms > ort).map(|ort| (k, ort))).collect();
    slower.sort_by(|a, b| (b.0.ms - b.1).total_cmp(&(a.0.ms - a.1)));
    if !slower.is_empty() {
        let lost: f64 = slower.iter().map(|(k, ort)| k.ms - ort).sum();
        out +=
            &format!("slower than ONNX Runtime's nodes ({} kernels, {lost:.3} ms a run), most first:\n", slower.len());
        for (kernel, ort) in slower.iter().take(rows.min(8)) {
            out += &line(kernel, Some(*ort));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{ort_nodes, strata_kernels, table, Kernel};

    #[test]
    fn kernels_meet_the_nodes_they_name() {
        let csv = "ms_per_run,percent,nodes,ops\n0.300000,60.0,\"conv_2 + relu_3\",\"scf.for\"\n\
                   0.100000,20.0,\"conv_5\",\"scf.for, \"\"x\"\"\"\n0.100000,20.0,\"gap_9\",\"\"\n";
        let kernels = strata_kernels(csv).unwrap();
        assert_eq!(kernels[1], Kernel { ms: 0.1, nodes: "conv_5".into() });
        let ort = ort_nodes(
            "node\trelu_3_nchwc\tConv\t0.25\nnode\tconv_5/FusedConv\tConv\t0.05\nnode\tReorderOutput\tReorderOutput\t0.01\nother",
        );
        let text = table(&kernels, ort, 12);
        // conv_2 + relu_3 is ORT's fused relu_3_nchwc; gap_9 has no node there.
        assert!(text.contains("ONNX Runtime's nodes 0.310 ms (0.300 in the nodes"), "{text}");
        assert!(text.contains("0.010 in 1 others: ReorderOutput ReorderOutput"), "{text}");
        assert!(text.contains("    0.3000     0.2500    1.20x  conv_2 + relu_3"), "{text}");
        assert!(text.contains("    0.1000          -        -  gap_9"), "{text}");
        // Slower: conv_5 by 0.05 first, then conv_2 + relu_3 by 0.05 (equal: either order).
        let slower = text.split("slower than ONNX Runtime's nodes (2 kernels, 0.100 ms a run)").nth(1).unwrap();
        assert!(slower.contains("2.00x  conv_5") && slower.contains("1.20x  conv_2 + relu_3"), "{text}");
        // Without ONNX Runtime's nodes: Strata's kernels alone.
        let alone = table(&kernels, Default::default(), 2);
        assert_eq!(
            alone,
            "one thread: Strata's kernels 0.500 ms a run\n Strata ms  kernel (ONNX nodes)\n    0.3000  conv_2 + relu_3\n    0.1000  conv_5\n"
        );
    }
}
