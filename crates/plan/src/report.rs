//! Running a strategy by name, validating its plan, and reporting it: a table row, JSON, and
//! an SVG memory timeline (x: op index, y: offset, one rectangle per buffer).

use crate::bounds::{max_load, shared_objects_bound};
use crate::exact::{self, Budget};
use crate::objects::ObjectStrategy;
use crate::offsets::{objects_to_offsets, OffsetPlan, OffsetStrategy};
use crate::problem::{MemoryClass, Problem};
use crate::validate::{validate_objects, validate_offsets};
use crate::PlanError;
use std::time::Instant;

/// Every strategy, by its command-line name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A shared-object strategy; the arena lays its objects end to end.
    Objects(ObjectStrategy),
    /// A greedy offset strategy.
    Offsets(OffsetStrategy),
    /// The exact solver.
    Exact,
}

impl Strategy {
    pub fn all() -> Vec<Strategy> {
        let mut all: Vec<Strategy> = ObjectStrategy::ALL.iter().map(|&s| Strategy::Objects(s)).collect();
        all.push(Strategy::Offsets(OffsetStrategy::GreedyBySize));
        all.push(Strategy::Offsets(OffsetStrategy::GreedyByBreadth));
        all.push(Strategy::Exact);
        all
    }

    pub fn name(self) -> String {
        match self {
            Strategy::Objects(s) => s.name().to_owned(),
            Strategy::Offsets(OffsetStrategy::GreedyBySize) => "offsets-greedy-by-size".into(),
            Strategy::Offsets(OffsetStrategy::GreedyByBreadth) => "offsets-greedy-by-breadth".into(),
            Strategy::Offsets(OffsetStrategy::Objects(s)) => s.name().to_owned(),
            Strategy::Exact => "exact".into(),
        }
    }

    pub fn names() -> Vec<String> {
        Strategy::all().into_iter().map(Strategy::name).collect()
    }

    /// Whether `problem` is beyond the strategy's documented size limit, and why. The limits
    /// keep every strategy within about a second and a few hundred megabytes on this class of
    /// machine; [`plan`] refuses a problem beyond them and `strata plan` skips the strategy
    /// and says so. Counted in arena buffers:
    /// - `min-cost-flow`: 500 (a reuse edge per ordered pair, an SPFA per augmentation);
    /// - `greedy-by-size` and `greedy-best` (shared objects): 2,000 (TFLite's priority
    ///   update re-scans every unassigned buffer against every object after each step);
    /// - `greedy-by-breadth` (shared objects): 20,000 (one live set per start time);
    /// - with a dependency DAG (parallel-aware), every offset strategy and the exact solver:
    ///   20,000 (placement and validation compare every pair);
    /// - `naive`, `equality`, `greedy-in-order`, the offset strategies and the exact solver
    ///   have none: they run in O(n log n) plus the overlap pairs (the exact search itself
    ///   bounds its lists and stops at its budget, see [`crate::exact::solve`]).
    pub fn beyond_limit(self, problem: &Problem) -> Option<String> {
        let n = problem.buffers.iter().filter(|b| b.class.in_arena()).count();
        let object_limit = |s: ObjectStrategy| match s {
            ObjectStrategy::MinCostFlow => Some((500, "a reuse edge per ordered pair of buffers")),
            ObjectStrategy::GreedyBySize | ObjectStrategy::GreedyBest => {
                Some((2_000, "each step re-scans every unassigned buffer against every object"))
            }
            ObjectStrategy::GreedyByBreadth => Some((20_000, "one live set per start time")),
            ObjectStrategy::Naive | ObjectStrategy::Equality | ObjectStrategy::GreedyInOrder => None,
        };
        let dag_limit = problem.dag.is_some().then_some((20_000, "parallel-aware placement compares every pair"));
        let limit = match self {
            Strategy::Objects(s) | Strategy::Offsets(OffsetStrategy::Objects(s)) => object_limit(s),
            Strategy::Offsets(_) | Strategy::Exact => dag_limit,
        };
        let (limit, why) = limit?;
        (n > limit).then(|| {
            format!(
                "'{}' is limited to {limit} arena buffers ({why}) and this problem has {n}: use \
                 offsets-greedy-by-size or exact",
                self.name()
            )
        })
    }

    pub fn parse(name: &str) -> Result<Strategy, PlanError> {
        Strategy::all()
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| PlanError::UnknownStrategy(name.to_owned()))
    }
}

/// A validated plan with its bounds and measurements.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlanReport {
    pub strategy: String,
    pub arena_bytes: u64,
    /// Max-load bound (or the better bound the exact solver proved).
    pub lower_bound: u64,
    /// Whether `arena_bytes` is proved optimal.
    pub optimal: bool,
    pub time_ms: f64,
    /// For shared-object strategies: total object bytes and the positional-maxima bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects_bound: Option<u64>,
    /// What the strategy left undone and why (the exact solver beyond its size limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Bytes per memory class (constants and I/O are outside the arena).
    pub classes: Vec<ClassTotal>,
    pub buffers: Vec<BufferPlacement>,
    /// For a model: what its activations need run node by node in the file's order, the
    /// references the arena is measured against (set by the driver from the ONNX graph).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_order: Option<crate::in_order::InOrderPeaks>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClassTotal {
    pub class: MemoryClass,
    pub buffers: usize,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BufferPlacement {
    pub id: String,
    /// What computes the buffer, where the planner was told: `plan-arena` records the first
    /// op other than an initialising `linalg.fill` that uses it (for a model, the driver puts
    /// the ONNX op types of its nodes, `Conv + Relu`); CSV problems have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    pub size: u64,
    pub lower: u64,
    pub upper: u64,
    pub class: MemoryClass,
    /// The index (in `buffers`) of the buffer whose bytes this one takes over in place: an
    /// input of the op that computes this one, dead at that op. The two share their bytes at
    /// that one op, on purpose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_place_of: Option<usize>,
}

impl PlanReport {
    /// Relative distance to the lower bound.
    pub fn gap(&self) -> f64 {
        if self.lower_bound == 0 {
            0.0
        } else {
            (self.arena_bytes as f64 - self.lower_bound as f64) / self.lower_bound as f64
        }
    }

    /// The offsets of the plan, per buffer.
    pub fn offsets(&self) -> Vec<Option<u64>> {
        self.buffers.iter().map(|b| b.offset).collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialise")
    }
}

/// Runs `strategy`, validates the plan, and reports it.
pub fn plan(problem: &Problem, strategy: Strategy, budget: Budget) -> Result<PlanReport, PlanError> {
    problem.check()?;
    if let Some(reason) = strategy.beyond_limit(problem) {
        return Err(PlanError::TooLarge(reason));
    }
    let start = Instant::now();
    let bound = max_load(problem);
    let invalid = |violations| PlanError::InvalidPlan { strategy: strategy.name(), violations };
    let mut note = None;
    let (offsets, lower_bound, optimal, objects): (OffsetPlan, u64, bool, Option<(u64, u64)>) = match strategy {
        Strategy::Objects(s) => {
            let objects = s.run(problem);
            validate_objects(problem, &objects).map_err(invalid)?;
            let offsets = objects_to_offsets(problem, &objects);
            let optimal = offsets.arena == bound;
            (offsets, bound, optimal, Some((objects.total(), shared_objects_bound(problem))))
        }
        Strategy::Offsets(s) => {
            let offsets = s.run(problem);
            let optimal = offsets.arena == bound;
            (offsets, bound, optimal, None)
        }
        Strategy::Exact => {
            let result = exact::solve(problem, budget);
            note = result.note;
            (result.plan, result.lower_bound, result.optimal, None)
        }
    };
    let time_ms = start.elapsed().as_secs_f64() * 1000.0;
    validate_offsets(problem, &offsets).map_err(invalid)?;
    let mut classes: Vec<ClassTotal> = Vec::new();
    for b in &problem.buffers {
        match classes.iter_mut().find(|c| c.class == b.class) {
            Some(total) => {
                total.buffers += 1;
                total.bytes += b.size;
            }
            None => classes.push(ClassTotal { class: b.class, buffers: 1, bytes: b.size }),
        }
    }
    classes.sort_by_key(|c| c.class);
    let buffers = problem
        .buffers
        .iter()
        .zip(&offsets.offsets)
        .map(|(b, &offset)| BufferPlacement {
            id: b.id.clone(),
            op: None,
            offset,
            size: b.size,
            lower: b.lower,
            upper: b.upper,
            class: b.class,
            in_place_of: b.inplace,
        })
        .collect();
    Ok(PlanReport {
        strategy: strategy.name(),
        arena_bytes: offsets.arena,
        lower_bound,
        optimal,
        time_ms,
        objects_bytes: objects.map(|o| o.0),
        objects_bound: objects.map(|o| o.1),
        note,
        classes,
        buffers,
        in_order: None,
    })
}

/// A fixed-width table of `report`'s buffers, by offset then start: offset, size, lifetime,
/// memory class, op and name (`strata plan model.onnx --buffers`).
pub fn render_buffers(report: &PlanReport) -> String {
    let mut rows: Vec<&BufferPlacement> = report.buffers.iter().collect();
    rows.sort_by_key(|b| (b.offset.map_or(-1, i128::from), b.lower));
    let mut out = format!("{:>10} {:>10} {:>13}  {:<10} {:<24} name\n", "offset", "size", "live", "class", "op");
    for b in rows {
        let offset = b.offset.map_or_else(|| "-".to_owned(), |o| o.to_string());
        let live = format!("[{},{})", b.lower, b.upper);
        let op = b.op.as_deref().unwrap_or("");
        out += &format!("{offset:>10} {:>10} {live:>13}  {:<10} {op:<24} {}\n", b.size, b.class.as_str(), b.id);
    }
    out
}

/// A fixed-width table of reports (one row each).
pub fn render_table(reports: &[PlanReport]) -> String {
    let mut out = format!(
        "{:<26} {:>12} {:>12} {:>8} {:>8} {:>10} {:>14}\n",
        "strategy", "arena bytes", "lower bound", "gap", "optimal", "time ms", "objects/bound"
    );
    for r in reports {
        let objects = match (r.objects_bytes, r.objects_bound) {
            (Some(o), Some(b)) => format!("{o}/{b}"),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "{:<26} {:>12} {:>12} {:>7.2}% {:>8} {:>10.3} {:>14}\n",
            r.strategy,
            r.arena_bytes,
            r.lower_bound,
            100.0 * r.gap(),
            if r.optimal { "proved" } else { "-" },
            r.time_ms,
            objects
        ));
    }
    out
}

/// The op index where the most arena bytes are live, and those bytes (the first such op).
pub fn peak(report: &PlanReport) -> (u64, u64) {
    // Live bytes over [lower, upper): at each time the buffers ending there leave before the
    // ones starting there join (-1 sorts first).
    let mut events: Vec<(u64, i8, u64)> = Vec::new();
    for b in report.buffers.iter().filter(|b| b.class.in_arena() && b.upper > b.lower) {
        events.push((b.lower, 1, b.size));
        events.push((b.upper, -1, b.size));
    }
    events.sort_unstable();
    let (mut live, mut best) = (0u64, (0, 0));
    for (t, sign, size) in events {
        if sign > 0 {
            live += size;
            if live > best.1 {
                best = (t, live);
            }
        } else {
            live -= size;
        }
    }
    best
}

/// The memory-timeline picture: x is the op index, y the offset; one rectangle per arena
/// buffer, coloured by class, with a tooltip naming the buffer, its size and lifetime; the
/// peak of live bytes marked by a red line, and for a model the peak of its nodes run one by
/// one with views and in-place writes ([`crate::in_order`]) by a dashed line.
pub fn render_svg(report: &PlanReport) -> String {
    use svg::node::element::{Line, Rectangle, Text, Title};
    use svg::Document;
    let (width, height, margin) = (1000.0, 600.0, 50.0);
    let horizon = report.buffers.iter().map(|b| b.upper).max().unwrap_or(1).max(1) as f64;
    let reference = report.in_order.as_ref().map(|p| p.views_in_place);
    let top = report.arena_bytes.max(reference.unwrap_or(0)).max(1) as f64;
    let x = |t: u64| margin + (width - 2.0 * margin) * t as f64 / horizon;
    let y = |o: u64| height - margin - (height - 2.0 * margin) * o as f64 / top;
    let mut document = Document::new()
        .set("viewBox", (0, 0, width, height))
        .set("width", width)
        .set("height", height)
        .set("font-family", "sans-serif")
        .set("font-size", 12);
    document = document.add(
        Text::new(format!(
            "{}: arena {} B, lower bound {} B ({:+.2}%)",
            report.strategy,
            report.arena_bytes,
            report.lower_bound,
            100.0 * report.gap()
        ))
        .set("x", margin)
        .set("y", 25),
    );
    for (x1, y1, x2, y2) in
        [(margin, height - margin, width - margin, height - margin), (margin, margin, margin, height - margin)]
    {
        document =
            document.add(Line::new().set("x1", x1).set("y1", y1).set("x2", x2).set("y2", y2).set("stroke", "black"));
    }
    document = document
        .add(Text::new("op index").set("x", width / 2.0).set("y", height - 15.0))
        .add(Text::new("offset").set("x", 5).set("y", margin - 8.0))
        .add(Text::new("0").set("x", margin).set("y", height - margin + 15.0))
        .add(
            Text::new(format!("{}", horizon as u64))
                .set("x", width - margin)
                .set("y", height - margin + 15.0)
                .set("text-anchor", "end"),
        )
        .add(Text::new(format!("{} B", report.arena_bytes)).set("x", margin + 4.0).set("y", margin + 12.0));
    for b in &report.buffers {
        let Some(offset) = b.offset else { continue };
        let colour = match b.class {
            MemoryClass::Activation => "#4e79a7",
            MemoryClass::Workspace => "#f28e2b",
            MemoryClass::Io => "#59a14f",
            MemoryClass::Constant => "#bab0ac",
        };
        let rect = Rectangle::new()
            .set("x", x(b.lower))
            .set("y", y(offset + b.size))
            .set("width", (x(b.upper) - x(b.lower)).max(0.5))
            .set("height", (y(offset) - y(offset + b.size)).max(0.5))
            .set("fill", colour)
            .set("fill-opacity", 0.8)
            .set("stroke", "white")
            .set("stroke-width", 0.5)
            .add(Title::new(format!(
                "{}{} ({}): {} bytes at offset {}, live in ops [{}, {})",
                b.id,
                b.op.as_ref().map_or(String::new(), |op| format!(" [{op}]")),
                b.class.as_str(),
                b.size,
                offset,
                b.lower,
                b.upper
            )));
        document = document.add(rect);
    }
    let (at, live) = peak(report);
    if live > 0 {
        let (px, py) = (x(at) + 0.5 * (x(at + 1) - x(at)), y(live));
        document = document
            .add(
                Line::new()
                    .set("x1", px)
                    .set("y1", height - margin)
                    .set("x2", px)
                    .set("y2", py)
                    .set("stroke", "#e15759"),
            )
            .add(
                Text::new(format!("peak: {live} B live at op {at}"))
                    .set("x", px + 4.0)
                    .set("y", (py - 6.0).max(margin - 8.0))
                    .set("fill", "#e15759"),
            );
    }
    if let Some(reference) = reference.filter(|&r| r > 0) {
        let ry = y(reference);
        document = document
            .add(
                Line::new()
                    .set("x1", margin)
                    .set("y1", ry)
                    .set("x2", width - margin)
                    .set("y2", ry)
                    .set("stroke", "black")
                    .set("stroke-dasharray", "6 4"),
            )
            .add(
                Text::new(format!("ONNX nodes one by one, with views and in-place writes: {reference} B"))
                    .set("x", width - margin)
                    .set("y", ry - 4.0)
                    .set("text-anchor", "end"),
            );
    }
    document.to_string()
}
