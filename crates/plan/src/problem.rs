//! The planning problem: buffers with sizes, alignments and half-open lifetimes.

use crate::PlanError;
use std::path::Path;

/// Which memory a buffer lives in. Only activations and workspace go into the arena; the
/// other classes are reported beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryClass {
    /// Weights and constants: one static blob.
    Constant,
    /// Graph inputs and outputs, owned by the caller (the ABI).
    Io,
    /// Intermediate tensors: planned into the arena.
    Activation,
    /// Scratch memory of one op: planned into the arena.
    Workspace,
}

impl MemoryClass {
    /// Whether buffers of this class are placed in the arena.
    pub fn in_arena(self) -> bool {
        matches!(self, MemoryClass::Activation | MemoryClass::Workspace)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryClass::Constant => "constant",
            MemoryClass::Io => "io",
            MemoryClass::Activation => "activation",
            MemoryClass::Workspace => "workspace",
        }
    }
}

/// One buffer to place. Its lifetime is half-open: live from op `lower` up to, not
/// including, op `upper`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub id: String,
    pub size: u64,
    /// Offsets must be multiples of this (a power of two, >= 1).
    pub align: u64,
    pub lower: u64,
    pub upper: u64,
    pub class: MemoryClass,
    /// Index of a buffer this one may share memory with exactly (in-place execution): the
    /// partner dies at the op that produces this buffer. Both get the same offset.
    pub inplace: Option<usize>,
}

impl Buffer {
    /// An activation buffer with alignment 1.
    pub fn new(id: impl Into<String>, lower: u64, upper: u64, size: u64) -> Self {
        Buffer { id: id.into(), size, align: 1, lower, upper, class: MemoryClass::Activation, inplace: None }
    }

    /// Whether the two lifetimes intersect.
    pub fn overlaps_in_time(&self, other: &Buffer) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }
}

/// A set of buffers to plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    pub buffers: Vec<Buffer>,
    /// The capacity the instance was published with (from a MiniMalloc file name), if any.
    pub capacity: Option<u64>,
    /// With a dependency DAG, planning is parallel-aware: memory is shared only between
    /// buffers whose uses the DAG already orders (see [`crate::dag`]).
    pub dag: Option<crate::dag::OpDag>,
    /// The arena is allocated in whole multiples of this many bytes (0 or 1: any size), so
    /// plans whose arenas round up to the same multiple take the same memory: the exact
    /// solver stops once no smaller multiple can hold the buffers. The runtime allocates
    /// 64-byte blocks; MiniMalloc's instances count bytes.
    pub granule: u64,
}

impl Problem {
    pub fn new(buffers: Vec<Buffer>) -> Self {
        Problem { buffers, capacity: None, dag: None, granule: 1 }
    }

    /// The bytes an arena of `bytes` takes when allocated (see [`Problem::granule`]).
    pub fn allocated(&self, bytes: u64) -> u64 {
        align_up(bytes, self.granule.max(1))
    }

    /// Checks sizes, lifetimes, alignments and in-place partners, and that every plan's arena
    /// size fits in a `u64` (the arena buffers' sizes and alignment paddings sum within it),
    /// so no strategy can overflow computing one.
    pub fn check(&self) -> Result<(), PlanError> {
        // Every arena of these buffers then fits in 2^63 bytes, and the strategies' offset
        // arithmetic (an offset plus a size, rounded up to an alignment) cannot overflow.
        let mut total = 0u64;
        for buffer in self.buffers.iter().filter(|b| b.class.in_arena()) {
            let padded = buffer.size.checked_add(buffer.align.saturating_sub(1));
            total = match padded.and_then(|p| total.checked_add(p)).filter(|&t| t <= MAX_ARENA) {
                Some(total) => total,
                None => {
                    return Err(PlanError::InvalidBuffer {
                        id: buffer.id.clone(),
                        message: "the arena buffers' sizes (with alignment) sum past 2^63 bytes".into(),
                    })
                }
            };
        }
        for (index, buffer) in self.buffers.iter().enumerate() {
            let bad = |message: String| PlanError::InvalidBuffer { id: buffer.id.clone(), message };
            if buffer.lower >= buffer.upper {
                return Err(bad(format!("empty lifetime [{}, {})", buffer.lower, buffer.upper)));
            }
            if !buffer.align.is_power_of_two() {
                return Err(bad(format!("alignment {} is not a power of two", buffer.align)));
            }
            if let Some(partner) = buffer.inplace {
                let Some(other) = self.buffers.get(partner).filter(|_| partner != index) else {
                    return Err(bad(format!("in-place partner #{partner} does not exist")));
                };
                if other.size != buffer.size || other.align != buffer.align {
                    return Err(bad(format!("in-place partner '{}' has another size or alignment", other.id)));
                }
            }
        }
        Ok(())
    }

    /// Reads a MiniMalloc CSV: a header naming `id,lower,upper,size` (any order; `begin`/
    /// `start` for lower, `buffer`/`buffer_id` for id, `end` as an inclusive upper) and
    /// optionally `alignment`. The capacity is taken from a file name like `A.1048576.csv`.
    pub fn from_csv_path(path: &Path) -> Result<Problem, PlanError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| PlanError::Io { path: path.display().to_string(), message: e.to_string() })?;
        let mut problem = Problem::from_csv(&text).map_err(|e| match e {
            PlanError::Csv { line, message, .. } => PlanError::Csv { file: path.display().to_string(), line, message },
            other => other,
        })?;
        problem.capacity = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".csv"))
            .and_then(|n| n.rsplit('.').next())
            .and_then(|c| c.parse().ok());
        Ok(problem)
    }

    /// Parses MiniMalloc CSV text (see [`Problem::from_csv_path`]).
    pub fn from_csv(text: &str) -> Result<Problem, PlanError> {
        let err = |line: u64, message: String| PlanError::Csv { file: "<text>".into(), line, message };
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
        let headers = reader.headers().map_err(|e| err(1, e.to_string()))?.clone();
        let column = |names: &[&str]| headers.iter().position(|h| names.contains(&h));
        let id = column(&["id", "buffer", "buffer_id"]);
        let lower = column(&["lower", "begin", "start"]).ok_or_else(|| err(1, "no 'lower' column".into()))?;
        let (upper, inclusive) = match (column(&["upper"]), column(&["end"])) {
            (Some(u), _) => (u, false),
            (None, Some(e)) => (e, true),
            _ => return Err(err(1, "no 'upper' (or 'end') column".into())),
        };
        let size = column(&["size"]).ok_or_else(|| err(1, "no 'size' column".into()))?;
        let align = column(&["alignment"]);
        let mut buffers = Vec::new();
        for (index, record) in reader.records().enumerate() {
            let line = index as u64 + 2;
            let record = record.map_err(|e| err(line, e.to_string()))?;
            let number = |column: usize, what: &str| -> Result<u64, PlanError> {
                let text = record.get(column).unwrap_or("");
                text.parse().map_err(|_| err(line, format!("{what} '{text}' is not a non-negative integer")))
            };
            let mut buffer = Buffer::new(
                id.and_then(|c| record.get(c)).map_or_else(|| index.to_string(), str::to_owned),
                number(lower, "lower")?,
                number(upper, "upper")?
                    .checked_add(u64::from(inclusive))
                    .ok_or_else(|| err(line, "'end' is the largest integer: the lifetime has no end".into()))?,
                number(size, "size")?,
            );
            if let Some(c) = align {
                buffer.align = number(c, "alignment")?.max(1);
            }
            buffers.push(buffer);
        }
        let problem = Problem::new(buffers);
        problem.check()?;
        Ok(problem)
    }

    /// Writes the problem (and offsets, if given) as MiniMalloc CSV.
    pub fn to_csv(&self, offsets: Option<&[u64]>) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["id", "lower", "upper", "size"];
        if offsets.is_some() {
            header.push("offset");
        }
        writer.write_record(&header).expect("in-memory write");
        for (index, b) in self.buffers.iter().enumerate() {
            let mut row = vec![b.id.clone(), b.lower.to_string(), b.upper.to_string(), b.size.to_string()];
            if let Some(offsets) = offsets {
                row.push(offsets[index].to_string());
            }
            writer.write_record(&row).expect("in-memory write");
        }
        String::from_utf8(writer.into_inner().expect("in-memory write")).expect("csv is utf-8")
    }

    /// Whether buffers `a` and `b` may never share memory: their lifetimes intersect, or
    /// (parallel-aware) the DAG does not order them.
    pub fn conflict(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.buffers[a], &self.buffers[b]);
        self.lifetimes_conflict((x.lower, x.upper), (y.lower, y.upper))
    }

    /// Whether buffers with these half-open lifetimes may never share memory (see
    /// [`Problem::conflict`]).
    pub fn lifetimes_conflict(&self, (l1, u1): (u64, u64), (l2, u2): (u64, u64)) -> bool {
        (l1 < u2 && l2 < u1) || self.dag.as_ref().is_some_and(|dag| !dag.may_share((l1, u1), (l2, u2)))
    }

    /// Indices of the buffers that go into the arena.
    pub fn arena_buffers(&self) -> Vec<usize> {
        (0..self.buffers.len()).filter(|&i| self.buffers[i].class.in_arena()).collect()
    }

    /// The end of the last lifetime.
    pub fn horizon(&self) -> u64 {
        self.buffers.iter().map(|b| b.upper).max().unwrap_or(0)
    }
}

/// The largest arena a problem may need (its padded sizes' sum; [`Problem::check`]).
pub const MAX_ARENA: u64 = 1 << 63;

/// Rounds `value` up to a multiple of `align` (a power of two).
pub fn align_up(value: u64, align: u64) -> u64 {
    value.next_multiple_of(align)
}
