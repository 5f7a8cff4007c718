//! The compilation pipeline, stage by stage: ONNX → `sg` → optimised `sg` → linalg on tensors
//! → buffers planned into one arena → LLVM dialect with the entry point → (LLVM IR, assembly,
//! object, or JIT). Each stage is a textual pipeline of registered passes, so
//! `strata-opt --pass-pipeline=...` reproduces any step.

use melior::ir::operation::OperationRef;
use melior::ir::Module;
use std::borrow::Cow;
use std::time::{Duration, Instant};
use strata_frontend::{import_owned, ImportOptions};
pub use strata_ir::ErrorKind;
use strata_ir::{PassManager, PassManagerOptions, SourceMap, StrataContext};
use strata_plan::report::PlanReport;
use strata_runtime::{DType, Signature, TensorSpec};

pub use crate::model::{compile_model, compile_model_cached, CacheUse, JitModel, ModelBytes, Profile};

/// Where compilation stops (what `--emit` prints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Stage {
    /// The imported graph (`sg` on tensors).
    Sg,
    /// After the graph-level passes.
    SgOpt,
    /// What the e-graph optimiser (fusion, views, in-place) makes of the optimised graph:
    /// allocations, launches, bytes copied and retained, before and after.
    RewriteReport,
    /// linalg/tensor/arith on tensors.
    Linalg,
    /// Buffers, planned into one arena.
    Memref,
    /// The LLVM dialect, with the entry point.
    LlvmDialect,
    /// Optimised LLVM IR for the host.
    LlvmIr,
    /// Host assembly.
    Asm,
    /// Host object file.
    Obj,
    /// Host shared object with the C entry point (plus a C header and a manifest beside it).
    So,
    /// NVVM kernels in `gpu.module`s, with the host function's launches (`--target=nvptx`).
    Gpu,
    /// PTX text (plus a launch manifest and the weights blob beside it; `--target=nvptx`).
    Ptx,
}

/// What the compiled code runs on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// The host CPU (JIT, object, shared object).
    #[default]
    Host,
    /// NVIDIA GPUs: PTX kernels and a launch manifest.
    Nvptx,
}

/// The stages' pipelines.
pub const SG_OPT: &str = "builtin.module(sg-verify,func.func(sg-compose-transposes,sg-fold-reshapes),canonicalize)";

/// The graph-level stage with the e-graph optimiser, told the target (the host's vector lanes
/// decide which convolutions run their epilogues in registers).
pub fn sg_opt_egraph_pipeline(target: Target, disable: &[Optimization]) -> String {
    let host = target == Target::Host;
    let target = match target {
        Target::Host => format!("target=host vector-lanes={}", strata_machine::Registers::host().lanes),
        Target::Nvptx => "target=nvptx".to_owned(),
    };
    // The host's convolutions accumulate onto a residual in its buffer; the GPU's kernels
    // start from their bias.
    let residuals = if host && !disable.contains(&Optimization::Residuals) { "sg-accumulate-residuals," } else { "" };
    // Reductions compute the programs they alone read (host only: the GPU's reductions map
    // one operand).
    let reduce = if host && !disable.contains(&Optimization::Fusion) { ",sg-fuse-reductions" } else { "" };
    let sink = graph_order(disable);
    let families: Vec<&str> = disable.iter().filter_map(|o| o.egraph_family()).collect();
    let disable = if families.is_empty() { String::new() } else { format!(" disable={}", families.join(",")) };
    format!(
        "builtin.module(sg-verify,sg-outline-branches,func.func(sg-compose-transposes,sg-fold-reshapes,sg-sink-reshapes),canonicalize,func.func(sg-fold-conv-affine,{residuals}sg-egraph-optimize{{{target}{disable}}},sg-fold-split-concats{reduce}{sink}),sg-inline-branches)"
    )
}

/// The graph-level stage without the e-graph optimiser ([`SG_OPT`], then the graph's order:
/// see [`graph_order`]).
pub fn sg_opt_pipeline(disable: &[Optimization]) -> String {
    match graph_order(disable).strip_prefix(',') {
        Some(passes) => format!("{},func.func({passes}))", SG_OPT.strip_suffix(')').expect("a module pipeline")),
        None => SG_OPT.to_owned(),
    }
}

/// The passes that order the graph's ops last in the graph-level stage, each after a comma,
/// unless disabled: `sg-schedule-memory` (the order with the lowest peak), then
/// `sg-sink-to-use` (work on constants next to its reader).
fn graph_order(disable: &[Optimization]) -> String {
    let mut passes = String::new();
    if !disable.contains(&Optimization::Order) {
        passes += ",sg-schedule-memory";
    }
    if !disable.contains(&Optimization::SinkToUse) {
        passes += ",sg-sink-to-use";
    }
    passes
}

/// An optimisation a user can turn off on its own (`--disable`): to see what it saves
/// (`cargo xtask bench memory`), or to get around a problem in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Optimization {
    /// Slices, transposes, reshapes and broadcasts read as strided views of their input.
    Views,
    /// Chains of elementwise ops run as one kernel (and inside the reduction that alone reads
    /// them: `sg-fuse-reductions`, host only).
    Fusion,
    /// Elementwise ops run inside the convolution or matmul that feeds them.
    Epilogues,
    /// Elementwise results written over an operand that dies there.
    InPlace,
    /// Padded values produced inside their padded buffer (no padded copy).
    PadsInPlace,
    /// Depthwise, grouped and 1-D convolutions and pools read their unpadded input: depthwise
    /// ones with the padding implicit in the host kernel (`strata-implicit-pads`), the others
    /// with windows cut at the borders (`strata-conv-borders`; 2-D full convolutions too where
    /// their padded input is at the peak); and a convolution over a padded
    /// graph input runs in bands over padded copies of their rows (`strata-band-input-pads`);
    /// host only.
    ConvBorders,
    /// A convolution and the pool or (depthwise) convolution that reads it run together in bands of
    /// output rows, each computing only the rows the next one reads (`strata-band-chains`);
    /// host only.
    Bands,
    /// A convolution reading a concatenation of channels runs as one convolution per part,
    /// each accumulating into the next, the first moved to where the peak is lowest, so the
    /// concatenation is never made; only where that lowers the estimated peak
    /// (`strata-split-concat-convs`); host only.
    ConcatConvs,
    /// A convolution whose filters exceed L2 runs block of input channels by block, each
    /// block's filters read from L2 for every tile (`strata-split-conv-channels`); host only.
    ConvChannels,
    /// A residual added to a convolution's result is the convolution's initial value, so the
    /// result takes the residual's buffer (`sg-accumulate-residuals`); a bias added to a
    /// matmul's result, the matmul's (`strata-matmul-accumulate`). Host only.
    Residuals,
    /// Work on constants and inputs alone (weights dequantized at run time) runs just before
    /// its first reader, not where the file lists it (`sg-sink-to-use`).
    SinkToUse,
    /// Independent ops run in the order with the lowest peak of live results, not
    /// necessarily the file's (`sg-schedule-memory`).
    Order,
    /// 3x3 stride-1 convolutions with many channels run as Winograd F(4x4, 3x3) or F(2x2, 3x3):
    /// 4x or 2.25x fewer multiply-adds, results that differ from the direct convolution's by
    /// rounding (`strata-winograd`; host only).
    Winograd,
    /// A QDQ model's products of a `uint8` activation and a constant 8-bit weight, and its 1x1
    /// convolutions, run on the quantized integers with dot-product instructions
    /// (`sg.quantized_matmul`, `sg.quantized_conv`, `strata-vectorize-integer-matmul`), not on
    /// the dequantized floats; hosts with AVX-512 VNNI only.
    IntegerMatmuls,
    /// A half-precision (f16) model computes in f32 between casts at its inputs and
    /// outputs, on the vectorised f32 kernels (`strata_frontend`'s `half`).
    HalfInF32,
    /// A model with little work in many kernels, under [`SMALL_MODEL_ITERATIONS`] loop
    /// iterations in at least [`SMALL_MODEL_KERNELS`] (`strata_lower::work`), is compiled for one
    /// thread whatever `--threads` asks: its data fits one core's caches, and on two its forks
    /// and the lines each core fetches from the other's cache cost more than the second core
    /// saves. Host only.
    SmallModels,
    /// The integer products of `integer-matmuls` run on AMX tiles (`tdpbusd`:
    /// a 16 x 16 block of sums per instruction, `strata-vectorize-integer-matmul{amx}`), not
    /// VNNI registers; hosts whose CPU has AMX-INT8 and whose kernel grants the tiles' state
    /// only. The sums are exact either way.
    AmxTiles,
}

impl Optimization {
    /// `list` sorted, without repeats: [`CompileOptions::disable`] as the cache key needs it.
    pub fn canonical(mut list: Vec<Optimization>) -> Vec<Optimization> {
        list.sort();
        list.dedup();
        list
    }

    /// The optimisation named `word` as `--disable` spells it (`in-place`), or why none is.
    pub fn parse(word: &str) -> Result<Optimization, String> {
        use clap::ValueEnum;
        Optimization::from_str(word, false).map_err(|_| {
            let known: Vec<String> = Optimization::value_variants()
                .iter()
                .filter_map(|o| o.to_possible_value().map(|v| v.get_name().to_owned()))
                .collect();
            format!("unknown optimisation '{word}'; one of: {}", known.join(", "))
        })
    }

    /// The e-graph's family of rules for this optimisation (`strata_egraph::rules::FAMILIES`).
    fn egraph_family(self) -> Option<&'static str> {
        match self {
            Optimization::Views => Some("views"),
            Optimization::Fusion => Some("fusion"),
            Optimization::Epilogues => Some("epilogues"),
            Optimization::InPlace => Some("in-place"),
            Optimization::PadsInPlace
            | Optimization::ConvBorders
            | Optimization::Bands
            | Optimization::ConcatConvs
            | Optimization::ConvChannels
            | Optimization::Residuals
            | Optimization::SinkToUse
            | Optimization::Order
            | Optimization::Winograd
            | Optimization::IntegerMatmuls
            | Optimization::HalfInF32
            | Optimization::SmallModels
            | Optimization::AmxTiles => None,
        }
    }
}

/// What the e-graph optimiser is told of `target` (as [`sg_opt_egraph_pipeline`] tells it).
pub fn egraph_target(target: Target) -> strata_egraph_mlir::Target {
    match target {
        Target::Host => strata_egraph_mlir::Target { registers: Some(strata_machine::Registers::host()) },
        Target::Nvptx => strata_egraph_mlir::Target { registers: None },
    }
}
/// sg to linalg on tensors; with `sections` (a host compiled for several threads) a
/// bidirectional recurrence's directions run side by side and a tree walk's rows in
/// parallel; with `gpu`, a tree walk is one walk per GPU thread.
pub fn linalg_pipeline(sections: bool, gpu: bool) -> String {
    format!(
        "builtin.module(func.func(sg-to-linalg{{sections={sections} gpu={gpu}}},strata-fold-constant-transposes),canonicalize,cse)"
    )
}
/// The host's kernels outlined, before their lowering (`strata_target_cpu::host::TO_LLVM`, on
/// the whole module, or on each part where they are compiled: [`compile_deferred`]).
pub const OUTLINE: &str = "builtin.module(strata-outline-kernels,strata-chunk-calls)";
/// The host's weights blob, before [`OUTLINE`]: every constant but splats and the smallest leaves
/// the code for one blob argument (`plan-weights`), which `strata_ir::weights` writes out.
pub const HOST_WEIGHTS: &str = "builtin.module(plan-weights{min-bytes=64 splats=false})";
pub const GPU: &str = "builtin.module(strata-gpu-to-nvvm)";

/// The memref stage, each optimisation unless `disabled`: on the `host`, a convolution and the
/// pool or convolution reading it run in bands (`strata-band-chains`); with the schedule, 3x3
/// stride-1 convolutions with many channels as Winograd (`strata-winograd`, its
/// kernel written by `strata-vectorize-winograd` after planning); on the host, depthwise and
/// grouped convolutions and pools split off their borders and convolutions over a padded graph
/// input run in bands (`strata-implicit-pads` with the schedule, then `strata-band-input-pads`,
/// then `strata-conv-borders`, which counts those bands); then the host schedule (unless
/// `schedule` is off; told the host's vector lanes), bufferization and arena planning two ways
/// keeping the smaller arena (`strata-bufferize-and-plan`; the plain way only when pads in
/// place are disabled), the matmuls'
/// register blocks after planning, a padded buffer's side columns filled by the loop that writes
/// its rows, after each row (`strata-ring-in-producer`), kernels split across `threads`
/// (`strata-parallelize`), the
/// elementwise kernels vectorised (`strata-vectorize-elementwise`), the next block of each row
/// a reduction loop reads row after row prefetched (`strata-prefetch-rows`), on several
/// threads a split convolution's input a few channels ahead where another core wrote it
/// (`strata-prefetch-channels`), the next block of
/// a packed filter prefetched while the current one is reused (`strata-prefetch-filters`),
/// cleanup (`canonicalize` without region simplification: its liveness walk over every region
/// of one big `@main` was 35% of the pass on a 10k-node model, and it changed no zoo model's
/// code; and bottom-up,
/// `top-down=false`, as every canonicalization of the host's buffers: the same code for every
/// zoo model, 5x faster on MobileNetV2's, 216 -> 46 ms); with `profile`,
/// cycle counters around every kernel (`strata-profile-kernels`).
pub fn memref_pipeline(
    strategy: &str,
    schedule: bool,
    profile: bool,
    threads: usize,
    host: bool,
    disabled: &[Optimization],
) -> String {
    let on = |optimization: Optimization| !disabled.contains(&optimization);
    let pads_in_place = on(Optimization::PadsInPlace);
    let (borders, bands) = (host && on(Optimization::ConvBorders), host && on(Optimization::Bands));
    let lanes = strata_machine::Registers::host().lanes;
    let mut early = Vec::new();
    if bands {
        early.push("strata-band-chains".to_owned());
    }
    // A matmul's bias as its initial value (tied to `--disable residuals`, as the
    // convolutions' accumulation onto a residual).
    if schedule && host && on(Optimization::Residuals) {
        early.push("strata-matmul-accumulate".to_owned());
    }
    if schedule && on(Optimization::Winograd) {
        early.push(format!("strata-winograd{{threads={threads}}}"));
    }
    if borders {
        // The host kernel's implicit padding needs the schedule that writes it; a stem it
        // takes reads the graph input itself, with no padded copy left to band.
        if schedule {
            early.push("strata-implicit-pads".to_owned());
        }
        early.extend(["strata-band-input-pads".to_owned(), "strata-conv-borders".to_owned()]);
    }
    // Last: the parts' padded copies would otherwise be where `strata-conv-borders` estimates
    // the peak, and it would split both convolutions for no byte the plan saves.
    if host && on(Optimization::ConcatConvs) {
        early.push("strata-split-concat-convs".to_owned());
    }
    if schedule && host && on(Optimization::ConvChannels) {
        early.push("strata-split-conv-channels".to_owned());
    }
    let early = if early.is_empty() { String::new() } else { format!("func.func({}),", early.join(",")) };
    let plan =
        format!("strata-bufferize-and-plan{{strategy={strategy} pads-in-place={pads_in_place} pad-rings={host} record-plan=true}}");
    let profile = if profile { ",strata-profile-kernels" } else { "" };
    let parallelize = format!("strata-parallelize{{threads={threads}}}");
    // Split kernels only: one thread's reads find this core's own lines.
    let channels = if threads > 1 { "strata-prefetch-channels," } else { "" };
    let amx = amx_tiles(host, disabled);
    if schedule {
        format!(
            "builtin.module({early}strata-cpu-schedule{{vector-lanes={lanes} threads={threads}}},strata-pack-weights,{plan},strata-vectorize-integer-matmul{{threads={threads} amx={amx}}},strata-fuse-casts,strata-vectorize-winograd,strata-cpu-vectorize{{threads={threads} vector-lanes={lanes}}},strata-vectorize-depthwise{{vector-lanes={lanes} threads={threads}}},strata-ring-in-producer,{parallelize},strata-vectorize-elementwise{{vector-lanes={lanes}}},strata-vectorize-reductions{{vector-lanes={lanes}}},strata-vectorize-matmul{{vector-lanes={lanes} threads={threads}}},strata-prefetch-rows{{threads={threads}}},{channels}strata-prefetch-filters,canonicalize{{region-simplify=disabled top-down=false}}{profile})"
        )
    } else {
        format!("builtin.module({early}{plan},{parallelize},canonicalize{profile})")
    }
}

/// Whether a host compile runs quantized products on AMX tiles: the host has them and
/// `amx-tiles` is not disabled.
fn amx_tiles(host: bool, disabled: &[Optimization]) -> bool {
    host && !disabled.contains(&Optimization::AmxTiles) && strata_machine::host_has_amx_int8()
}

/// How many 8-bit multiply-adds of a quantized product count one loop iteration in the
/// small-model rule ([`threads_for`]): 4 with VNNI (a lane's four a step), 16 on AMX tiles,
/// whose products take a fraction of the VNNI time: the dynamically quantized BERT-tiny (14.6M
/// iterations so counted) ran 0.84x as fast on two threads as on one, the QDQ speech encoder
/// (7.8M) 0.90x.
const AMX_BYTE_PRODUCTS: u64 = 16;

/// The threads to compile for when the user names none: every core of this machine.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Below this many loop iterations of its linalg ops (`strata_lower::work`, on the lowered
/// module), in at least [`SMALL_MODEL_KERNELS`] kernels, a host model is compiled for one
/// thread ([`Optimization::SmallModels`]). Measured on this project's 2-core machine (one
/// thread against two, both Strata): the models from 3 to 14 million in 20-102 kernels (the
/// YOLO-style, opset-11 and text detectors, the int8 CNNs, the raw-waveform TCN; 0.05-0.22 ms)
/// ran 0.78-0.92x as fast on two threads as on one, and ONNX Runtime's YOLO-style and opset-11
/// CNNs 0.67x and 0.90x; from 18 million (the iSTFT vocoder, the keyword spotter's 16k-sample
/// STFT, the CRNN) two threads gained 1.08-1.35x.
pub const SMALL_MODEL_ITERATIONS: u64 = 16_000_000;

/// The fewest kernels a model compiled for one thread by [`SMALL_MODEL_ITERATIONS`] has: what
/// two threads lose is at the kernels' boundaries (a kernel reading what another core wrote),
/// and a model of a few kernels has few. The `bench run` operators (1-8 kernels of 0.1-15
/// million iterations: a softmax, a batched attention product, a grouped convolution) ran up
/// to 1.36x ONNX Runtime's two-thread time on one thread, at most 0.98x on two.
pub const SMALL_MODEL_KERNELS: u64 = 16;

/// The threads to compile `module` (lowered to linalg) for, asked for `threads`: one where
/// the model does under [`SMALL_MODEL_ITERATIONS`] loop iterations in at least
/// [`SMALL_MODEL_KERNELS`] kernels, both known at compile time (unless `disabled`), with its
/// work.
pub fn threads_for(
    module: &Module<'_>,
    threads: usize,
    disabled: &[Optimization],
) -> (usize, strata_lower::work::Work) {
    let byte_products =
        if amx_tiles(true, disabled) { AMX_BYTE_PRODUCTS } else { strata_lower::work::VNNI_BYTE_PRODUCTS };
    let work = strata_lower::work::work(strata_ir::Op::of(&module.as_operation()), byte_products);
    // Only a count known at compile time: a model whose loops run a number of times known
    // only when it runs (a `Loop` node) may do far more.
    let small = work.exact && work.iterations < SMALL_MODEL_ITERATIONS && work.kernels >= SMALL_MODEL_KERNELS;
    if threads > 1 && small && !disabled.contains(&Optimization::SmallModels) {
        (1, work)
    } else {
        (threads, work)
    }
}

/// Why a command failed: the message as printed (rendered diagnostics, `error: ...`) and its
/// kind, which decides the exit status (`ErrorKind::exit_code`) and how the conformance runner
/// counts a case.
#[derive(Debug)]
pub struct CommandError {
    pub message: String,
    pub kind: ErrorKind,
    /// The ONNX node the error is about, when the importer knows it.
    pub node: Option<NodeRef>,
    /// Every unsupported op type with the nodes that use it (an unsupported-operators error).
    pub unsupported: std::collections::BTreeMap<String, Vec<String>>,
}

/// An ONNX node of the model, as errors name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRef {
    /// Position in the graph's node list.
    pub index: usize,
    /// Its name, or `<op_type>#<index>` where it has none.
    pub name: String,
    pub op_type: String,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CommandError { message: message.into(), kind, node: None, unsupported: Default::default() }
    }

    /// A file could not be read or written.
    pub fn io(message: impl Into<String>) -> Self {
        CommandError::new(ErrorKind::Io, message)
    }

    /// The model uses something Strata does not support yet (as opposed to invalid input or a
    /// Strata bug).
    pub fn is_unsupported(&self) -> bool {
        self.kind == ErrorKind::Unsupported
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A message the driver wrote itself (`error: ...`): about the user's input.
impl From<String> for CommandError {
    fn from(message: String) -> Self {
        CommandError::new(ErrorKind::InvalidInput, message)
    }
}

impl From<&str> for CommandError {
    fn from(message: &str) -> Self {
        CommandError::new(ErrorKind::InvalidInput, message)
    }
}

impl From<strata_ir::Error> for CommandError {
    fn from(error: strata_ir::Error) -> Self {
        CommandError::new(error.kind, format!("error: {error}"))
    }
}

impl From<strata_ir::IrError> for CommandError {
    fn from(error: strata_ir::IrError) -> Self {
        CommandError::new(error.kind(), error.render(&SourceMap::default()))
    }
}

impl From<strata_frontend::FrontendError> for CommandError {
    fn from(error: strata_frontend::FrontendError) -> Self {
        use strata_frontend::FrontendError;
        use strata_ir::HasKind;
        let mut command = CommandError::new(error.kind(), format!("error: {error}"));
        match error {
            FrontendError::Node { index, name, op_type, .. } => command.node = Some(NodeRef { index, name, op_type }),
            FrontendError::Unsupported { ops, .. } => command.unsupported = ops,
            _ => {}
        }
        command
    }
}

/// Compilation settings.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub import: ImportOptions,
    /// The model's name in symbols: `strata_<name>_run`.
    pub name: String,
    /// The arena planning strategy (see `strata plan --help`).
    pub strategy: String,
    /// Verify the IR after every pass; otherwise once at the end of each stage.
    pub verify_each: bool,
    /// Print each stage's per-pass wall-time tree to standard error (as `strata-opt
    /// --mlir-timing` does for one pipeline).
    pub timing: bool,
    /// Apply the host loop schedule (`strata-cpu-schedule`); off gives MLIR's default loop
    /// order (the baseline of `cargo xtask bench run`).
    pub schedule: bool,
    /// Rewrite the graph with the e-graph optimiser (fusion, views, in-place) before lowering.
    pub egraph: bool,
    /// What the code runs on.
    pub target: Target,
    /// Time every kernel with cycle counters (`strata-profile-kernels`; host only).
    pub profile: bool,
    /// Threads the host code is split for (`strata-parallelize` and the schedules' parallel
    /// tiles, run by OpenMP); 1 compiles sequential code that needs no OpenMP runtime.
    pub threads: usize,
    /// Optimisations turned off (sorted, without repeats, so the cache key is canonical).
    pub disable: Vec<Optimization>,
}

/// A module compiled up to some stage, with what the runtime needs to know.
pub struct Compiled<'c> {
    pub module: Module<'c>,
    pub signature: Signature,
    /// The entry-point symbol (set at the LLVM-dialect stage).
    pub entry: Option<String>,
    /// The entry point's signature while the module waits, outlined and on buffers, for its
    /// lowering to the LLVM dialect ([`compile_deferred`]); `None` once lowered.
    pub pending: Option<strata_target_cpu::EntrySignature>,
    /// Wall time of each stage reached.
    pub timings: Vec<(&'static str, Duration)>,
    /// The arena plan's lower bound in bytes (set at the memref stage).
    pub arena_lower_bound: Option<usize>,
    /// Warnings of the passes that ran (an optimisation that fell back, say), rendered.
    pub warnings: Vec<String>,
    /// With [`CompileOptions::profile`], the label of each kernel counter (set at the memref
    /// stage): the ONNX nodes' names and the ops timed.
    pub profile_labels: Vec<String>,
    /// The arena plan, each buffer named by its ONNX nodes (set at the memref stage).
    pub plan: Option<PlanReport>,
    /// The host's weights blob (set at the LLVM-dialect stage; empty when the model has none):
    /// the `weights` argument of the entry point, aligned as the code reads it, so that a
    /// model compiled in memory takes it without a copy.
    pub weights: strata_runtime::AlignedBytes,
}

impl Compiled<'_> {
    /// The entry-point symbol: the one the LLVM-dialect stage made, else `strata_<name>_run`.
    pub fn entry_symbol(&self, name: &str) -> String {
        self.entry.clone().unwrap_or_else(|| format!("strata_{name}_run"))
    }

    /// Writes the host shared object (with its weights), C header and manifest at `paths`, for
    /// a module compiled to the LLVM dialect (or left outlined on buffers: each part is lowered
    /// where it is compiled) under the model name `options.name`.
    pub fn write_shared_object(
        &mut self,
        strata: &StrataContext,
        options: &CompileOptions,
        paths: &strata_runtime::manifest::ArtifactPaths,
    ) -> Result<strata_target_cpu::artifact::Written, strata_ir::Error> {
        self.write_library(strata, options, paths, true)
    }

    /// [`Compiled::write_shared_object`], the weights and the plan inside the library only with
    /// `embed` (without, the caller passes the weights to the entry point itself); the parts'
    /// warnings, if it lowered them, go to [`Compiled::warnings`].
    pub(crate) fn write_library(
        &mut self,
        strata: &StrataContext,
        options: &CompileOptions,
        paths: &strata_runtime::manifest::ArtifactPaths,
        embed: bool,
    ) -> Result<strata_target_cpu::artifact::Written, strata_ir::Error> {
        let name = &options.name;
        let lowering = self.lowering(strata, options);
        let written = strata_target_cpu::artifact::write(
            &self.module,
            &self.signature,
            &self.entry_symbol(name),
            name,
            if embed { self.weights.as_slice() } else { &[] },
            paths,
            self.plan.as_ref().filter(|_| embed),
            lowering.as_ref(),
        );
        let warnings = lowering.map(|l| l.warnings.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner));
        self.warnings.extend(warnings.into_iter().flatten().map(|w| w.render(&SourceMap::default())));
        written
    }
}

/// Compiles ONNX bytes up to `stop` (host stages from `LlvmDialect` on all stop at the LLVM
/// dialect, GPU stages at `Gpu`; `strata_codegen` takes it from there). `progress` is told each
/// stage's name. Bytes given owned are freed once imported (the module holds the weights).
pub fn compile<'c>(
    strata: &'c StrataContext,
    bytes: Cow<'_, [u8]>,
    options: &CompileOptions,
    stop: Stage,
    progress: &mut dyn FnMut(&str),
) -> Result<Compiled<'c>, CommandError> {
    compile_until(strata, bytes, options, stop, false, progress)
}

/// [`compile`], the host's lowering to the LLVM dialect left to the caller if `defer`.
fn compile_until<'c>(
    strata: &'c StrataContext,
    bytes: Cow<'_, [u8]>,
    options: &CompileOptions,
    stop: Stage,
    defer: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Compiled<'c>, CommandError> {
    let mut timings = Vec::new();
    let start = Instant::now();
    progress("import");
    // The constants this compile makes from here on are its own to release (see below).
    let first_constant = strata_ir::resource::serial();
    // The GPU path keeps an ml operator's rows whole: its loops run from one thread.
    // Integer products with dot-product instructions where the host has them.
    let integer_products = options.target == Target::Host
        && strata_machine::host_has_avx512_vnni()
        && !options.disable.contains(&Optimization::IntegerMatmuls);
    let half_in_f32 = !options.disable.contains(&Optimization::HalfInF32);
    let import_options = ImportOptions {
        whole_rows: options.target == Target::Nvptx,
        integer_products,
        half_in_f32,
        ..options.import.clone()
    };
    let imported = import_owned(strata, bytes, &import_options)?;
    timings.push(("import", start.elapsed()));
    let signature = signature(&imported.interface)?;
    let node_ops = imported.node_ops;
    let imported_warnings = imported.warnings;
    let steps = imported.steps;
    let mut module = imported.module;
    // MLIR's bare-pointer calling convention rejects zero-sized memrefs at the boundary, and an
    // empty output carries no data: it leaves @main (the ABI keeps its pointer slot, unused).
    // Empty inputs are constants: the importer never makes them arguments.
    let empty = empty_outputs(&signature);
    if !empty.is_empty() {
        if options.target == Target::Nvptx {
            let output = &signature.outputs[empty[0]];
            return Err(strata_ir::Error::unsupported(format!(
                "output '{}' has no elements ({:?}); the GPU target has no empty outputs yet",
                output.name, output.shape
            ))
            .into());
        }
        strata_target_cpu::entry::drop_results(strata.mlir(), main_function(&module)?, &empty)
            .map_err(|e| CommandError::new(ErrorKind::Internal, format!("error: {e}")))?;
    }
    let mut compiled = Compiled {
        module,
        signature,
        entry: None,
        pending: None,
        timings,
        arena_lower_bound: None,
        warnings: imported_warnings,
        profile_labels: Vec::new(),
        plan: None,
        weights: strata_runtime::AlignedBytes::zeroed(0),
    };
    let gpu = options.target == Target::Nvptx;
    // The threads the host code is compiled for: the asked ones, or one for a small model
    // (`threads_for`, once the lowering has run).
    let mut threads = if gpu { 1 } else { options.threads };
    if gpu != matches!(stop, Stage::Gpu | Stage::Ptx) && stop > Stage::Memref {
        let target =
            if gpu { "nvptx (--emit=gpu or ptx)" } else { "host (--emit=llvm-dialect, llvm-ir, asm, obj or so)" };
        return Err(format!("error: --emit={stop:?} is not a stage of target {target}").to_lowercase().into());
    }
    let stages: [(Stage, &str, String); 4] = [
        // The rewrite report shows what the optimiser would do, on the graph before it.
        (
            Stage::SgOpt,
            "sg-opt",
            if options.egraph && stop != Stage::RewriteReport {
                sg_opt_egraph_pipeline(options.target, &options.disable)
            } else {
                sg_opt_pipeline(&options.disable)
            },
        ),
        (Stage::Linalg, "lower", linalg_pipeline(!gpu && options.threads > 1, gpu)),
        // Built once the model's work is known (`threads_for`, after the lowering).
        (Stage::Memref, "bufferize+plan", String::new()),
        if gpu {
            (Stage::Gpu, "to-gpu", GPU.to_string())
        } else {
            (Stage::LlvmDialect, "to-llvm", OUTLINE.to_string())
        },
    ];
    for (stage, name, pipeline) in stages {
        if stop < stage {
            return Ok(compiled);
        }
        progress(name);
        let start = Instant::now();
        module = compiled.module;
        if stage == Stage::LlvmDialect {
            // The weights leave the code before LLVM sees them (issue #19: translating and
            // optimising them as constants was most of a compile).
            // Its output is not verified on its own (a walk of the whole module, 0.34 s of the 10k
            // matmul ladder): invalid IR from it is caught by the stage's verify, after the
            // lowering; the blob is read from scratch modules verified by their pass manager.
            run_pipeline(strata, &mut module, HOST_WEIGHTS, "weights", options, &mut compiled.warnings, false)?;
            // The filters the schedule replaced by packed copies go back to the system before
            // the blob is written (ResNet-50: 100 MB), the rest once it holds them.
            strata_ir::resource::release_unreferenced(&module, first_constant);
            let mut blob = strata_runtime::AlignedBytes::zeroed(strata_ir::weights::size(&module));
            strata_ir::weights::blob_into(strata, &module, blob.as_mut_slice())?;
            compiled.weights = blob;
            strata_ir::weights::erase_placed(&module);
            strata_ir::resource::release_unreferenced(&module, first_constant);
        }
        // The outlined module is verified lowered ([`Compiled::lower`], or each part where it
        // is compiled).
        let verify = stage != Stage::LlvmDialect;
        let pipeline = if stage == Stage::Memref {
            // The host loop schedule only helps CPUs.
            memref_pipeline(
                &options.strategy,
                options.schedule && !gpu,
                options.profile && !gpu,
                threads,
                !gpu,
                &options.disable,
            )
        } else {
            pipeline
        };
        run_pipeline(strata, &mut module, &pipeline, name, options, &mut compiled.warnings, verify)?;
        if stage == Stage::Linalg && !gpu {
            let work;
            (threads, work) = threads_for(&module, options.threads, &options.disable);
            if threads < options.threads {
                compiled.warnings.push(format!(
                    "note: compiled for one thread, not {}: the model does {:.1}M loop iterations (under {}M) in {} \
                     kernels, where a second core costs more than it saves (`--disable small-models` compiles for {} \
                     anyway)\n",
                    options.threads,
                    work.iterations as f64 / 1e6,
                    SMALL_MODEL_ITERATIONS / 1_000_000,
                    work.kernels,
                    options.threads
                ));
            }
        }
        compiled.module = module;
        if stage == Stage::Memref {
            let main = main_function(&compiled.module)?;
            let int = |attribute: strata_ir::attrs::Int| attribute.get(main).map(|v| v as usize);
            compiled.signature.arena_bytes = int(strata_ir::attrs::ARENA_BYTES).unwrap_or(0);
            compiled.signature.arena_alignment = int(strata_ir::attrs::ARENA_ALIGNMENT).unwrap_or(1);
            compiled.arena_lower_bound = int(strata_ir::attrs::ARENA_LOWER_BOUND);
            compiled.profile_labels = strata_ir::attrs::PROFILE_KERNELS.get(main).unwrap_or_default();
            let in_order = Some(strata_plan::in_order::peaks(&steps));
            compiled.plan = strata_ir::attrs::ARENA_PLAN
                .take(main)
                .and_then(|json| serde_json::from_str(&json).ok())
                .map(|plan| PlanReport { in_order: in_order.clone(), ..with_onnx_ops(plan, &node_ops) });
            if compiled.plan.is_none() && strata_ir::attrs::ARENA_BYTES.get(main).is_none() {
                // Nothing to plan (every activation a view, fused, written in place or an
                // output): an empty arena, still measured against the in-order references.
                compiled.plan = Some(PlanReport {
                    strategy: "none".to_owned(),
                    arena_bytes: 0,
                    lower_bound: 0,
                    optimal: true,
                    time_ms: 0.0,
                    objects_bytes: None,
                    objects_bound: None,
                    note: Some("no buffer to plan".to_owned()),
                    classes: Vec::new(),
                    buffers: Vec::new(),
                    in_order,
                });
            }
        }
        if stage == Stage::LlvmDialect {
            compiled.pending = Some(strata_target_cpu::EntrySignature {
                inputs: compiled.signature.inputs.len(),
                outputs: compiled.signature.outputs.len(),
                empty_outputs: empty.clone(),
                weights: !compiled.weights.is_empty(),
                status: !compiled.signature.checks.is_empty(),
                tiles: strata_target_cpu::uses_tiles(&compiled.module),
            });
            compiled.timings.push((name, start.elapsed()));
            if !defer {
                compiled.lower(strata, options)?;
            }
            continue;
        }
        compiled.timings.push((name, start.elapsed()));
    }
    Ok(compiled)
}

impl<'c> Compiled<'c> {
    /// Lowers a module left outlined on buffers ([`compile_deferred`]) to the LLVM dialect as a
    /// whole, with its entry point (its time added to the `to-llvm` stage's); nothing if it is
    /// lowered already.
    pub fn lower(&mut self, strata: &'c StrataContext, options: &CompileOptions) -> Result<(), CommandError> {
        let Some(signature) = self.pending.take() else { return Ok(()) };
        let start = Instant::now();
        let pipeline = strata_target_cpu::host::TO_LLVM;
        run_pipeline(strata, &mut self.module, pipeline, "to-llvm", options, &mut self.warnings, true)?;
        let entry = strata_target_cpu::host::finish_module(strata, &self.module, &options.name, Some(signature))
            .map_err(|e| format!("error: {e}"))?;
        self.entry = entry;
        if let Some((_, time)) = self.timings.iter_mut().find(|(stage, _)| *stage == "to-llvm") {
            *time += start.elapsed();
        }
        Ok(())
    }

    /// How the parts of a module left on buffers become the LLVM dialect where they are
    /// compiled (`strata_target_cpu::host::emit_objects`); `None` once lowered.
    pub fn lowering<'s>(
        &self,
        strata: &'s StrataContext,
        options: &'s CompileOptions,
    ) -> Option<strata_target_cpu::host::Lowering<'s>> {
        self.pending.clone().map(|signature| strata_target_cpu::host::Lowering {
            strata,
            model: &options.name,
            signature,
            verify_each: options.verify_each,
            timing: options.timing,
            warnings: std::sync::Mutex::default(),
        })
    }
}

/// [`compile`] to the LLVM-dialect stage, but with the kernels only outlined, still on buffers
/// ([`Compiled::pending`]): the shared object's code generation lowers each part on the thread
/// that compiles it ([`Compiled::write_shared_object`]), and [`Compiled::lower`] lowers the
/// whole where one module is wanted (the JIT).
pub fn compile_deferred<'c>(
    strata: &'c StrataContext,
    bytes: Cow<'_, [u8]>,
    options: &CompileOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Compiled<'c>, CommandError> {
    compile_until(strata, bytes, options, Stage::LlvmDialect, true, progress)
}

/// `plan` with each buffer's op named by its ONNX nodes' op types (`Conv + Relu`), where its
/// name is a label of node names (see `strata_ir::nodes::label`); the MLIR op otherwise.
fn with_onnx_ops(mut plan: PlanReport, node_ops: &std::collections::BTreeMap<String, String>) -> PlanReport {
    for buffer in &mut plan.buffers {
        let mut types: Vec<&str> = Vec::new();
        for name in strata_ir::nodes::label_names(&buffer.id) {
            match node_ops.get(name) {
                Some(op) if !types.contains(&op.as_str()) => types.push(op),
                Some(_) => {}
                None => {
                    types.clear();
                    break;
                }
            }
        }
        if !types.is_empty() {
            buffer.op = Some(types.join(" + "));
        }
    }
    plan
}

/// Runs `pipeline` (stage `stage`) on `module`; unless every pass verified, verifies its
/// output when `verify_output` (a sub-step whose output the stage's own verify covers skips it).
fn run_pipeline<'c>(
    strata: &'c StrataContext,
    module: &mut Module<'c>,
    pipeline: &str,
    stage: &str,
    options: &CompileOptions,
    warnings: &mut Vec<String>,
    verify_output: bool,
) -> Result<(), CommandError> {
    let verify_each = options.verify_each;
    let mut pm = PassManager::parse(strata, pipeline, PassManagerOptions { verify_each, ..Default::default() })?;
    let report = pm.run(module, &mut std::io::stderr())?;
    if options.timing {
        let rss = crate::compile_cmd::peak_rss().map(|b| format!(" (peak RSS so far {:.1} MB)", b as f64 / 1e6));
        eprint!("timing: {stage}{}\n{}", rss.unwrap_or_default(), strata_ir::render_report(&report.timing));
    }
    if !verify_each && verify_output {
        // Once per stage: nothing invalid reaches the next stage or LLVM.
        strata.verify(module.as_operation()).map_err(|diagnostics| strata_ir::IrError::Verification {
            after: format!("the pipeline {pipeline}"),
            diagnostics,
        })?;
    }
    warnings.extend(report.warnings.iter().map(|w| w.render(&SourceMap::default())));
    Ok(())
}

/// The indices of the outputs with no elements (they are not results of the compiled `@main`).
fn empty_outputs(signature: &Signature) -> Vec<usize> {
    signature.outputs.iter().enumerate().filter(|(_, t)| t.shape.contains(&0)).map(|(i, _)| i).collect()
}

/// The model function `@main` (func or llvm dialect).
fn main_function<'c, 'a>(module: &'a Module<'c>) -> Result<OperationRef<'c, 'a>, String> {
    strata_ir::rewrite::find_symbol(module, "main").ok_or_else(|| "error: the module has no @main function".into())
}

/// The runtime's signature of an imported model (arena fields set at the memref stage).
fn signature(interface: &strata_frontend::Interface) -> Result<Signature, String> {
    let spec = |port: &strata_frontend::Port| -> Result<TensorSpec, String> {
        let dtype = DType::from_mlir(&port.element).ok_or_else(|| {
            format!("error: '{}' has element type {} which the runtime does not support", port.name, port.element)
        })?;
        Ok(TensorSpec { name: port.name.clone(), dtype, shape: port.shape.iter().map(|&d| d as usize).collect() })
    };
    Ok(Signature {
        inputs: interface.inputs.iter().map(spec).collect::<Result<_, _>>()?,
        outputs: interface.outputs.iter().map(spec).collect::<Result<_, _>>()?,
        arena_bytes: 0,
        arena_alignment: 1,
        checks: interface.checks.clone(),
    })
}
