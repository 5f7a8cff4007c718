//! A wall-time tree, printed in the layout of MLIR's `-mlir-timing` report.

use std::fmt::Write;
use std::time::Duration;

/// One timed entry: a pass, a nested pipeline (`'func.func' Pipeline`), or a driver phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingNode {
    pub name: String,
    pub wall: Duration,
    pub children: Vec<TimingNode>,
}

impl TimingNode {
    /// A leaf.
    pub fn leaf(name: impl Into<String>, wall: Duration) -> Self {
        TimingNode { name: name.into(), wall, children: Vec::new() }
    }

    /// Adds a timed pass at `path` (nested pipeline anchors below the root) to `nodes`,
    /// reusing the last pipeline node when it has the same anchor (as MLIR merges
    /// adjacent nests) and adding the time to every enclosing pipeline.
    pub fn record(nodes: &mut Vec<TimingNode>, path: &[&str], name: &str, wall: Duration) {
        let Some((anchor, rest)) = path.split_first() else {
            nodes.push(TimingNode::leaf(name, wall));
            return;
        };
        let label = format!("'{anchor}' Pipeline");
        if nodes.last().is_none_or(|last| last.name != label) {
            nodes.push(TimingNode::leaf(label, Duration::ZERO));
        }
        let pipeline = nodes.last_mut().expect("pushed above");
        pipeline.wall += wall;
        TimingNode::record(&mut pipeline.children, rest, name, wall);
    }
}

/// Renders the report for `nodes`; the total is their sum.
pub fn render_report(nodes: &[TimingNode]) -> String {
    let total: Duration = nodes.iter().map(|n| n.wall).sum();
    let rule = "===-------------------------------------------------------------------------===";
    let mut out = String::new();
    let _ = writeln!(out, "{rule}\n{:>50}\n{rule}", "... Execution time report ...");
    let _ = writeln!(out, "  Total Execution Time: {:.4} seconds\n", total.as_secs_f64());
    let _ = writeln!(out, "  ----Wall Time----  ----Name----");
    fn walk(out: &mut String, nodes: &[TimingNode], total: Duration, depth: usize) {
        for node in nodes {
            line(out, node.wall, total, depth, &node.name);
            walk(out, &node.children, total, depth + 1);
        }
    }
    fn line(out: &mut String, wall: Duration, total: Duration, depth: usize, name: &str) {
        let percent = if total.is_zero() { 100.0 } else { 100.0 * wall.as_secs_f64() / total.as_secs_f64() };
        let _ = writeln!(out, "  {:>7.4} ({:>5.1}%)  {}{name}", wall.as_secs_f64(), percent, "  ".repeat(depth));
    }
    walk(&mut out, nodes, total, 0);
    line(&mut out, total, total, 0, "Total");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nests_and_sums() {
        let ms = Duration::from_millis;
        let mut nodes = vec![TimingNode::leaf("Parser", ms(1))];
        TimingNode::record(&mut nodes, &["func.func"], "cse", ms(2));
        TimingNode::record(&mut nodes, &["func.func"], "sg-verify", ms(3));
        TimingNode::record(&mut nodes, &[], "canonicalize", ms(4));
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes[1].wall, ms(5));
        assert_eq!(nodes[1].children.len(), 2);
        let report = render_report(&nodes);
        assert!(report.contains("  'func.func' Pipeline\n"), "{report}");
        assert!(report.contains("     cse\n") || report.contains("    cse\n"), "{report}");
        assert!(report.contains("0.0100 (100.0%)  Total"), "{report}");
    }
}
