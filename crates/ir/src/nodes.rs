//! The ONNX nodes an op came from, read from its MLIR location: the importer gives every op a
//! name location per ONNX node (`loc("conv1")`), and fusion and bufferization keep them (fused
//! locations list every node of a fused kernel). The profile's counters and the arena plan's
//! table name kernels and buffers by them.

use melior::ir::Location;

/// The ONNX node names in `location` (a name location per node; fused locations list every
/// node of a fused kernel), in order, without repeats. Linear in the number of locations: a
/// fused kernel of thousands of nodes is read once.
pub fn node_names(location: Location<'_>, names: &mut Vec<String>) {
    let mut seen: std::collections::BTreeSet<String> = names.iter().cloned().collect();
    collect_names(location, names, &mut seen);
}

fn collect_names(location: Location<'_>, names: &mut Vec<String>, seen: &mut std::collections::BTreeSet<String>) {
    if location.is_name() {
        let name = location.name_value().as_string_ref().as_str().unwrap_or("?").to_owned();
        if seen.insert(name.clone()) {
            names.push(name);
        }
    } else if location.is_fused() {
        for part in crate::handle::fused_locations(location) {
            collect_names(part, names, seen);
        }
    } else if location.is_call_site() {
        collect_names(location.call_site_callee(), names, seen);
    }
}

/// Between the node names of a [`label`].
const SEPARATOR: &str = " + ";

/// The label of a kernel at `location`: its nodes' names, the first three and a count.
pub fn label(location: Location<'_>) -> String {
    let mut names = Vec::new();
    node_names(location, &mut names);
    match names.len() {
        0 => "(no ONNX node)".to_owned(),
        1..=3 => names.join(SEPARATOR),
        n => format!("{}{SEPARATOR}{} more", names[..3].join(SEPARATOR), n - 3),
    }
}

/// The parts of a [`label`], in order: its node names, except that a shortened label ends
/// with its count (`2 more`) and a label without nodes is its placeholder; neither names a
/// node.
pub fn label_names(label: &str) -> std::str::Split<'_, &'static str> {
    label.split(SEPARATOR)
}
