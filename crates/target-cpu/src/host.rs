//! LLVM IR, assembly and object files for the host CPU, through inkwell: the LLVM-dialect
//! module is translated into an inkwell context, optimised with `default<O3>` for the host's
//! CPU name and features, and printed or compiled.
//!
//! The weights blob (`plan-weights`, `strata_ir::weights`) travels in the same output as one
//! exported byte array, `strata_<name>_weights`, given its bytes only after optimisation: LLVM
//! never sees them as constants to fold, and emitting them is a copy. The entry point uses it
//! when its caller passes null weights, so the object alone runs the model.

use crate::CodegenError;
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use melior::ir::attribute::{Attribute, StringAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Module, RegionLike};
use strata_ir::Op;

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// Optimised LLVM IR text.
    LlvmIr,
    /// Assembly text for the host.
    Assembly,
    /// A relocatable object file (position-independent, so it links into shared objects).
    Object,
}

/// The host's target machine: its triple, CPU name and features, at O3.
pub fn host_machine() -> Result<TargetMachine, CodegenError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(CodegenError::Llvm)?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| CodegenError::Llvm(e.to_string()))?;
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    target
        .create_target_machine(
            &triple,
            cpu.to_str().unwrap_or("generic"),
            features.to_str().unwrap_or(""),
            OptimizationLevel::Aggressive,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError::Llvm(format!("no target machine for {}", triple.as_str().to_string_lossy())))
}

/// What code compiled for this host depends on: the triple, the CPU name and its features
/// (a compile cache keys on it).
pub fn identity() -> String {
    let triple = TargetMachine::get_default_triple();
    format!(
        "{} {} {}",
        triple.as_str().to_string_lossy(),
        TargetMachine::get_host_cpu_name().to_string_lossy(),
        TargetMachine::get_host_cpu_features().to_string_lossy()
    )
}

/// Extra x86 tuning for Strata's loop nests: LLVM's AVX-512 cost model vectorises strided
/// loops with gathers and scatters, which made MobileNetV2 3.8x slower (182 ms against 48 ms,
/// Zen 4, one thread) than vectorising only contiguous loops.
pub const TUNING: &[&str] = &["+prefer-no-gather", "+prefer-no-scatter"];

/// Marks every function of `module` (LLVM dialect) with the host's CPU and features plus
/// [`TUNING`], as `target_cpu` / `target_features`. LLVM's per-function subtarget then
/// governs vectorisation the same way in the JIT and in emitted objects.
pub fn set_host_target(context: &melior::Context, module: &Module<'_>) -> Result<(), CodegenError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(CodegenError::Llvm)?;
    let cpu = TargetMachine::get_host_cpu_name().to_str().unwrap_or("generic").to_owned();
    let host = TargetMachine::get_host_cpu_features().to_str().unwrap_or("").to_owned();
    let features: Vec<String> = host
        .split(',')
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .chain(TUNING.iter().map(|f| f.to_string()))
        .collect();
    let quoted: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
    let features = Attribute::parse(context, &format!("#llvm.target_features<[{}]>", quoted.join(", ")))
        .ok_or_else(|| CodegenError::Llvm("cannot build the target_features attribute".into()))?;
    let cpu = StringAttribute::new(context, &cpu);
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if current.name().as_string_ref().as_str() == Ok("llvm.func")
            && current.region(0).ok().and_then(|r| r.first_block()).is_some()
        {
            let function = strata_ir::Op::of(&current);
            function.set_attribute("target_cpu", cpu.into());
            function.set_attribute("target_features", features);
        }
        op = current.next_in_block();
    }
    Ok(())
}

/// The weights blob an emitted object carries, and the entry point that falls back to it.
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedWeights<'a> {
    /// The entry point (`strata_<name>_run`), whose first argument is the weights pointer.
    pub entry: &'a str,
    /// The exported symbol of the blob (`strata_<name>_weights`).
    pub symbol: &'a str,
    pub bytes: &'a [u8],
    /// Byte alignment of the blob (the offsets `plan-weights` chose assume it).
    pub alignment: u32,
    /// The compiled model's signature (`strata_runtime::manifest::EmbeddedSignature` as JSON),
    /// exported as the NUL-terminated `signature_symbol` for loaders to check; empty: none.
    pub signature: &'a str,
    pub signature_symbol: &'a str,
}

/// Translates, optimises and emits `module` (LLVM dialect), with `weights` (when non-empty)
/// as an exported array its entry point falls back to.
pub fn emit(module: &Module<'_>, what: Emit, weights: Option<EmbeddedWeights<'_>>) -> Result<Vec<u8>, CodegenError> {
    emit_into(module, weights, true, |llvm, machine| to_bytes(llvm, machine, what))
}

/// Translates and optimises `module` (see [`optimise`]) and hands the result to `deliver`;
/// the weights array only declared unless `define_weights` (another object defines it:
/// [`weights_object`]).
fn emit_into<T>(
    module: &Module<'_>,
    weights: Option<EmbeddedWeights<'_>>,
    define_weights: bool,
    deliver: impl FnOnce(&inkwell::module::Module<'_>, &TargetMachine) -> Result<T, CodegenError>,
) -> Result<T, CodegenError> {
    let machine = host_machine()?;
    let context = Context::create();
    let llvm = translate(&context, &module.as_operation(), &machine)?;
    declare_exports(&context, &llvm, weights)?;
    let blob = weights.filter(|w| define_weights && !w.bytes.is_empty()).map(|w| (w.symbol, w.bytes));
    optimise(&llvm, &machine, Pipeline::Full, blob)?;
    deliver(&llvm, &machine)
}

/// The threads code generation may use: every core of this machine (at most 16).
pub fn codegen_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(16)
}

/// The pipeline that takes an outlined host module (after `strata-outline-kernels` and
/// `strata-chunk-calls`, still on buffers) to the LLVM dialect; [`finish_module`] follows it.
pub const TO_LLVM: &str = "builtin.module(strata-host-to-llvm)";

/// [`TO_LLVM`]'s first half, run by [`emit_objects`] on the whole module before it splits it.
const TO_LOOPS: &str = "builtin.module(strata-host-kernels-to-loops)";

/// [`TO_LLVM`]'s second half, run by [`emit_objects`] on each part.
const LOOPS_TO_LLVM: &str = "builtin.module(strata-host-loops-to-llvm)";

/// How the parts of an outlined host module (still on buffers: see [`TO_LLVM`]) become the LLVM
/// dialect in [`emit_objects`]: each part is lowered on the thread that compiles it, then
/// finished ([`finish_module`]); only the first gets the entry point. The serial part of a
/// compile shrinks by the lowering's module-wide passes (func-to-LLVM, the conversions: 0.3 s
/// of YOLOv8n's 0.6 s), which now run on every core, each on its part.
pub struct Lowering<'a> {
    pub strata: &'a strata_ir::StrataContext,
    /// The model's name (the entry point's symbols).
    pub model: &'a str,
    pub signature: crate::EntrySignature,
    /// Verify each part after every pass (else once lowered).
    pub verify_each: bool,
    /// Print each part's per-pass wall times to standard error, and its code generation's
    /// stages (lowering and translation, `default<O3>`, the object file).
    pub timing: bool,
    /// Warnings of the parts' passes, for the caller to report.
    pub warnings: std::sync::Mutex<Vec<strata_ir::Diagnostic>>,
}

/// What follows `strata-host-to-llvm` on a module (LLVM dialect) before LLVM takes it: the C
/// entry point around `@main` where `signature` is given (its symbol returned), the bf16
/// truncation helper, the host's CPU and features on every function ([`set_host_target`]) and
/// the kernels kept apart (`outline_kernels::mark`).
pub fn finish_module(
    strata: &strata_ir::StrataContext,
    module: &Module<'_>,
    model: &str,
    signature: Option<crate::EntrySignature>,
) -> Result<Option<String>, CodegenError> {
    let entry = signature.map(|signature| crate::add_entry(strata, module, "main", model, signature)).transpose()?;
    crate::bf16::define_truncation(strata, module).map_err(CodegenError::Entry)?;
    set_host_target(strata.mlir(), module)?;
    crate::outline_kernels::mark(strata.mlir(), module).map_err(CodegenError::Entry)?;
    Ok(entry)
}

/// Objects in `dir` for `module`, to be linked together by the C compiler driver with the
/// weights' object ([`weights_object`]), their paths returned: its outlined kernels
/// (`strata-outline-kernels`) spread over up to `jobs` LLVM modules of about equal size, each
/// translated, optimised at `default<O3>` and compiled on a thread of its own (this one among
/// them), the first with the entry point (one object when `jobs` is 1 or there is nothing to
/// split). With `lowering`, `module` is still on buffers and each part is lowered to the LLVM
/// dialect on its thread first; without, it is in the LLVM dialect. The weights array is only
/// declared: LLVM never holds the weights.
pub fn emit_objects(
    module: &Module<'_>,
    weights: Option<EmbeddedWeights<'_>>,
    jobs: usize,
    dir: &std::path::Path,
    lowering: Option<&Lowering<'_>>,
) -> Result<Vec<std::path::PathBuf>, CodegenError> {
    let path = |part: usize| dir.join(format!("part{part}.o"));
    if lowering.is_none() && (jobs <= 1 || crate::outline_kernels::kernels(module).is_empty()) {
        emit_into(module, weights, false, |llvm, machine| to_file(llvm, machine, &path(0)))?;
        return Ok(vec![path(0)]);
    }
    // A module on buffers is lowered as a copy (the caller's stays as it is), its kernels to
    // loops on the whole module (`strata-size-small-kernels` weighs each against all of them),
    // the rest of the way part by part.
    let looped = lowering.map(|lowering| lower_whole(lowering, module)).transpose()?;
    let module = looped.as_ref().unwrap_or(module);
    let kernels = crate::outline_kernels::kernels(module);
    let parts = jobs.min(kernels.len() + 1).max(1);
    // Each part is two groups of kernels, one per pipeline: `p` those [`Pipeline::Full`]
    // optimises, `parts + p` those of [`Pipeline::Vectorized`]; group 0 also holds the rest of
    // the module (the model function and the entry point: calls, compiled at about the cost of
    // vectorised code). The costliest kernel first into the part that costs least so far.
    let size = |op: Op| op.collect(|_| true).into_iter().map(lowered_size).sum::<usize>();
    let total = size(Op::of(&module.as_operation()));
    let mut sized: Vec<(usize, usize, Pipeline, String)> = kernels
        .iter()
        .map(|&k| {
            let (ops, pipeline) = (size(k), Pipeline::of(k));
            (ops * pipeline.cost_per_op(), ops, pipeline, k.symbol_name().unwrap_or_default())
        })
        .collect();
    let rest = total - sized.iter().map(|(_, n, ..)| n).sum::<usize>();
    sized.sort_by(|a, b| b.cmp(a));
    let groups = 2 * parts;
    let pipeline = |group: usize| if group < parts { Pipeline::Full } else { Pipeline::Vectorized };
    // Estimated ops and cost of each group.
    let (mut load, mut cost) = (vec![0usize; groups], vec![0usize; groups]);
    (load[0], cost[0]) = (rest, rest * Pipeline::Vectorized.cost_per_op());
    let mut group_of = std::collections::BTreeMap::new();
    for (c, n, kernel_pipeline, name) in sized {
        let part = (0..parts).min_by_key(|&p| cost[p] + cost[parts + p]).expect("at least one part");
        let group = if kernel_pipeline == Pipeline::Full { part } else { parts + part };
        load[group] += n;
        cost[group] += c;
        group_of.insert(name, group);
    }
    // The groups with code (the first always), the costliest first: the threads take them in
    // this order, so that the last ones taken are short.
    let mut order: Vec<usize> = (0..groups).filter(|&g| g == 0 || load[g] > 0).collect();
    order.sort_by_key(|&g| std::cmp::Reverse(cost[g]));
    let source = SendOp(Op::of(&module.as_operation()));
    let shared = lowering.map(SendLowering);
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Each thread takes the next part (the parts' sizes are estimates) and makes it from the
    // module on its own: a copy of the module stripped to the part (`keep_group`), translated
    // into the thread's LLVM context, optimised and compiled. Parts are translated side by
    // side, as MLIR's threaded pass managers translate modules of one context (IREE's
    // executables): only the copies are changed, the context's uniquing is locked.
    let compile_parts = || -> Result<Vec<(usize, std::path::PathBuf)>, CodegenError> {
        let machine = host_machine()?;
        let mut done = Vec::new();
        loop {
            let Some(&group) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) else {
                return Ok(done);
            };
            let context = Context::create();
            let start = std::time::Instant::now();
            let llvm = translate_part(&context, source, group, &group_of, &machine, shared.map(SendLowering::get))?;
            if group == 0 {
                declare_exports(&context, &llvm, weights)?;
            }
            let translated = start.elapsed();
            optimise(&llvm, &machine, pipeline(group), None)?;
            let optimised = start.elapsed();
            to_file(&llvm, &machine, &path(group))?;
            if shared.is_some_and(|lowering| lowering.get().timing) {
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                eprintln!(
                    "timing: codegen, part {group} of {} ({} estimated ops, {:?} pipeline): lower+translate \
                     {:.1} ms, optimise {:.1} ms, object {:.1} ms",
                    order.len(),
                    load[group],
                    pipeline(group),
                    ms(translated),
                    ms(optimised - translated),
                    ms(start.elapsed() - optimised)
                );
            }
            done.push((group, path(group)));
        }
    };
    // Each thread's diagnostics are its own (`DiagnosticSink::isolated`): a part's pass
    // manager takes only those of its part.
    let parent = strata_ir::DiagnosticSink::scope();
    let isolated = || match shared {
        Some(lowering) => lowering.get().strata.sink().isolated(parent, compile_parts),
        None => compile_parts(),
    };
    let mut files = std::thread::scope(|scope| -> Result<Vec<(usize, std::path::PathBuf)>, CodegenError> {
        let workers: Vec<_> = (1..jobs.min(order.len())).map(|_| scope.spawn(isolated)).collect();
        // This thread compiles parts too; every thread is joined before an error is returned.
        let mine = isolated();
        let mut files = Vec::with_capacity(order.len());
        for worker in workers {
            let done = worker
                .join()
                .unwrap_or_else(|_| Err(CodegenError::Llvm("a code generation thread panicked".into())))?;
            files.extend(done);
        }
        files.extend(mine?);
        Ok(files)
    })?;
    if files.len() != order.len() {
        return Err(CodegenError::Llvm(format!("{} of {} parts were compiled", files.len(), order.len())));
    }
    files.sort();
    Ok(files.into_iter().map(|(_, file)| file).collect())
}

/// About how many LLVM operations `op` becomes: one, or on buffers one per 1-D vector of its
/// widest n-D vector result (the lowering unrolls them). Counting ops alone, the parts of
/// ConvNeXt and ViT-tiny took 1.0 against 0.4 s.
fn lowered_size(op: Op) -> usize {
    let vectors = |value: strata_ir::Val| {
        let Some((dims, _)) = strata_ir::types::vector_shape(value.r#type()) else { return 1 };
        dims.iter().rev().skip(1).map(|&d| d.max(1) as usize).product()
    };
    op.results().into_iter().map(vectors).max().unwrap_or(1)
}

/// Part `group` of `module` translated into `context`: a copy of the module stripped to the
/// part ([`keep_group`]; with `lowering`, then lowered to the LLVM dialect and finished), its
/// kernels shared between the objects (external, hidden: not exported from the library).
fn translate_part<'ctx, 's>(
    context: &'ctx Context,
    module: SendOp,
    group: usize,
    group_of: &std::collections::BTreeMap<String, usize>,
    machine: &TargetMachine,
    lowering: Option<&Lowering<'s>>,
) -> Result<inkwell::module::Module<'ctx>, CodegenError> {
    let mut part = copy_of(module.0)?;
    keep_group(Op::of(&part.as_operation()), group, group_of).map_err(CodegenError::Translate)?;
    if let Some(lowering) = lowering {
        lower_part(lowering, &mut part, group)?;
    }
    let llvm = translate(context, &part.as_operation(), machine)?;
    drop(part);
    for function in llvm.get_functions() {
        let name = function.get_name().to_string_lossy();
        if crate::outline_kernels::is_kernel(&name) {
            function.set_linkage(inkwell::module::Linkage::External);
            function.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
        }
    }
    Ok(llvm)
}

/// A copy of `module` (outlined, on buffers) with its kernels lowered to loops ([`TO_LOOPS`]).
fn lower_whole<'c>(lowering: &Lowering<'c>, module: &Module<'_>) -> Result<Module<'c>, CodegenError> {
    let mut copy = copy_of(Op::of(&module.as_operation()))?;
    run_lowering(lowering, &mut copy, TO_LOOPS, "to-loops")?;
    Ok(copy)
}

/// A copy of the module `module`, of its own.
fn copy_of<'c>(module: Op) -> Result<Module<'c>, CodegenError> {
    Module::from_operation(module.clone_owned())
        .ok_or_else(|| CodegenError::Translate("a copy of the module is no module".into()))
}

/// Lowers `part` (its kernels loops, stripped to the kernels of `group`) to the LLVM dialect
/// ([`LOOPS_TO_LLVM`]) and finishes it ([`finish_module`]), with the entry point in the first.
fn lower_part<'c>(lowering: &Lowering<'c>, part: &mut Module<'c>, group: usize) -> Result<(), CodegenError> {
    run_lowering(lowering, part, LOOPS_TO_LLVM, &format!("to-llvm, part {group}"))?;
    let signature = (group == 0).then(|| lowering.signature.clone());
    finish_module(lowering.strata, part, lowering.model, signature)?;
    Ok(())
}

/// Runs `pipeline` on `module` with `lowering`'s options (verified after every pass, or once
/// at the end), its timing report labelled `label`, its warnings kept for the caller.
fn run_lowering<'c>(
    lowering: &Lowering<'c>,
    module: &mut Module<'c>,
    pipeline: &str,
    label: &str,
) -> Result<(), CodegenError> {
    let strata = lowering.strata;
    let failed = |e: strata_ir::IrError| CodegenError::Lowering(e.to_string());
    let options = strata_ir::PassManagerOptions { verify_each: lowering.verify_each, ..Default::default() };
    let mut pm = strata_ir::PassManager::parse(strata, pipeline, options).map_err(failed)?;
    // `module` is this thread's own copy; MLIR's context is threaded, and Strata's passes run
    // on its pool's threads anyway (function pipelines run in parallel).
    let report = pm.run(module, &mut std::io::sink()).map_err(failed)?;
    if lowering.timing {
        eprint!("timing: {label}\n{}", strata_ir::render_report(&report.timing));
    }
    if !lowering.verify_each {
        strata.verify(module.as_operation()).map_err(|diagnostics| {
            CodegenError::Lowering(diagnostics.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; "))
        })?;
    }
    if !report.warnings.is_empty() {
        lowering.warnings.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(report.warnings);
    }
    Ok(())
}

/// A [`Lowering`] for the code generation threads.
#[derive(Clone, Copy)]
struct SendLowering<'l, 's>(&'l Lowering<'s>);

impl<'l, 's> SendLowering<'l, 's> {
    /// The lowering (a method, so that closures capture the wrapper, not its field).
    fn get(self) -> &'l Lowering<'s> {
        self.0
    }
}

// Safety: the threads share the context only through its thread-safe parts: each lowers its
// own copy of the module (MLIR's context is created with threading on, and Strata's passes
// run on MLIR's pool threads anyway), diagnostics go to a mutex-guarded sink in a scope per
// thread, warnings to a mutex. The reference outlives the threads (scoped).
unsafe impl Send for SendLowering<'_, '_> {}
unsafe impl Sync for SendLowering<'_, '_> {}

/// The module the code generation threads copy their parts from.
#[derive(Clone, Copy)]
struct SendOp(Op);

// Safety: the threads only read the module (each copies it, `Operation::clone`) while the
// caller of `emit_objects` holds it unchanged; MLIR's context is created with threading on.
unsafe impl Send for SendOp {}
unsafe impl Sync for SendOp {}

/// Writes `weights.o`, a relocatable ELF object for the host's architecture whose one section,
/// `.rodata.<symbol>` (read-only, aligned), holds the bytes and defines the exported array
/// `weights.symbol` over them (with an empty `.note.GNU-stack`: no executable stack); returns
/// its path. Written from memory in one stream by the `object` crate: no assembler (`cc -c` of
/// an `.incbin` took 0.95 s for ResNet-50's 100 MB on the 2-core VM, mostly page faults,
/// beside the code generation threads).
pub fn weights_object(weights: EmbeddedWeights<'_>, dir: &std::path::Path) -> Result<std::path::PathBuf, CodegenError> {
    use object::write::{Object, Symbol, SymbolSection};
    use object::{Architecture, BinaryFormat, Endianness, SectionKind, SymbolFlags, SymbolKind, SymbolScope};
    let architecture = match std::env::consts::ARCH {
        "x86_64" => Architecture::X86_64,
        "aarch64" => Architecture::Aarch64,
        other => {
            return Err(CodegenError::Llvm(format!(
                "cannot write the weights' object for a {other} host: Strata writes x86-64 and AArch64 ELF objects"
            )))
        }
    };
    let mut file = Object::new(BinaryFormat::Elf, architecture, Endianness::Little);
    let section =
        file.add_section(Vec::new(), format!(".rodata.{}", weights.symbol).into_bytes(), SectionKind::ReadOnlyData);
    file.set_section_data(section, weights.bytes, u64::from(weights.alignment));
    file.add_symbol(Symbol {
        name: weights.symbol.as_bytes().to_vec(),
        value: 0,
        size: weights.bytes.len() as u64,
        kind: SymbolKind::Data,
        scope: SymbolScope::Dynamic,
        weak: false,
        section: SymbolSection::Section(section),
        flags: SymbolFlags::None,
    });
    let stack = file.add_section(Vec::new(), b".note.GNU-stack".to_vec(), SectionKind::Elf(object::elf::SHT_PROGBITS));
    file.section_mut(stack).flags = object::SectionFlags::Elf { sh_flags: 0 };
    let path = dir.join("weights.o");
    // The output's directory is the user's to fix (full, read-only).
    let io = |e: String| CodegenError::OutputPath(format!("cannot write the weights' object {}: {e}", path.display()));
    let out = std::fs::File::create(&path).map_err(|e| io(e.to_string()))?;
    file.write_stream(std::io::BufWriter::new(out)).map_err(|e| io(e.to_string()))?;
    Ok(path)
}

/// Makes `module` (a copy) the part of group `group`: the bodies of the kernels of other
/// groups go, and in every group but the first those of the other functions that hold code
/// (the model function and the entry point), and the definitions of exported globals (the
/// first group keeps them), leaving declarations.
fn keep_group(module: Op, group: usize, group_of: &std::collections::BTreeMap<String, usize>) -> Result<(), String> {
    let body = module.body(0).ok_or("the module has no body")?;
    let context = module.get().context();
    // Safety: the context outlives this call (it owns the module).
    let external = melior::ir::Attribute::parse(unsafe { context.to_ref() }, "#llvm.linkage<external>")
        .ok_or("cannot build the external linkage attribute")?;
    // Safety: as above.
    let private: melior::ir::Attribute = StringAttribute::new(unsafe { context.to_ref() }, "private").into();
    for op in body.ops() {
        let name = op.symbol_name().unwrap_or_default();
        let strip = if (op.is("llvm.func") || op.is("func.func")) && op.body(0).is_some() {
            match group_of.get(&name) {
                Some(&g) => g != group,
                // Helpers (internal, or `linkonce_odr` like MLIR's math functions) are copied
                // into every part that calls them; exported code (the entry point) stays in the
                // first. On buffers, the model function is the only other function with a body
                // (helpers come with the lowering, in every part).
                None => group != 0 && !copyable(op),
            }
        } else if op.is("llvm.mlir.global") {
            group != 0 && !copyable(op)
        } else {
            false
        };
        if strip {
            // Safety: the code of the stripped body is in another part; nothing here refers
            // into it.
            unsafe { strata_ir::rewrite::drop_body(op, 0) };
            if op.is("func.func") {
                // A declaration (private: MLIR's rule); lowered, an external one.
                op.set_attribute("sym_visibility", private);
                continue;
            }
            if op.is("llvm.mlir.global") {
                op.remove_attribute("value");
            }
            op.set_attribute("linkage", external);
        }
    }
    Ok(())
}

/// Whether a function or global may be defined in several objects of one library: local to its
/// module (private, internal) or merged by the linker (linkonce, weak, common).
fn copyable(op: Op) -> bool {
    op.get().attribute("linkage").is_ok_and(|a| {
        let text = a.to_string();
        ["private", "internal", "linkonce", "weak", "common"].iter().any(|l| text.contains(l))
    })
}

/// Below this many operations (LLVM dialect) a module compiles as one: a split saves less than
/// the objects' link and load cost (the node tests' models are a few hundred). Measured on two
/// cores, modules of 8.7k-19k ops (the zoo's small models, the 2k-node matmul ladder) were
/// ready 10-35% sooner split than in the JIT, the ladder's 15k ops 3x sooner (its `@main`, one
/// block of 2.7k calls, is superlinear in one module's instruction selection).
pub const SPLIT_MIN_OPS: usize = 6_000;

/// [`SPLIT_MIN_OPS`] for an outlined module still on buffers, whose lowering multiplies its
/// operations (vectors unrolled, memref descriptors): by 3 to 10 on the zoo's models, 5 to 6
/// on most (BERT-tiny 1.7k -> 11k, ResNet-18 5.6k -> 33k, YOLOv8n 24k -> 112k).
pub const SPLIT_MIN_OPS_ON_BUFFERS: usize = SPLIT_MIN_OPS / 6;

/// Whether `module` (LLVM dialect, or outlined and still on buffers) is worth compiling as
/// several objects on `jobs` threads.
pub fn worth_splitting(module: &Module<'_>, jobs: usize) -> bool {
    let on_buffers = strata_ir::Blk::of(&module.body()).ops().iter().any(|op| op.is("func.func"));
    let least = if on_buffers { SPLIT_MIN_OPS_ON_BUFFERS } else { SPLIT_MIN_OPS };
    jobs > 1
        && crate::outline_kernels::kernels(module).len() > 1
        && Op::of(&module.as_operation()).collect(|_| true).len() >= least
}

/// Translates `module` (LLVM dialect) into `context` for `machine`'s triple and layout.
fn translate<'ctx, 'c: 'a, 'a>(
    context: &'ctx Context,
    module: &impl OperationLike<'c, 'a>,
    machine: &TargetMachine,
) -> Result<inkwell::module::Module<'ctx>, CodegenError> {
    let raw = strata_ir::llvm::translate_module(module, context.raw().cast()).ok_or_else(|| {
        CodegenError::Translate("MLIR's translation returned nothing (an op outside the LLVM dialect?)".into())
    })?;
    // Safety: the translated module is new, owned by us and lives in `context`.
    let llvm = unsafe { inkwell::module::Module::new(raw as *mut _) };
    llvm.set_triple(&machine.get_triple());
    llvm.set_data_layout(&machine.get_target_data().get_data_layout());
    llvm.verify().map_err(|e| CodegenError::Llvm(format!("invalid LLVM IR after translation: {e}")))?;
    Ok(llvm)
}

/// How LLVM optimises a part of the host code ([`emit_objects`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pipeline {
    /// `default<O3>`.
    Full,
    /// [`VECTORIZED_PIPELINE`]: for kernels whose loops Strata's schedules vectorised.
    Vectorized,
}

/// What a kernel whose loops Strata's schedules vectorised needs of LLVM: its values promoted
/// to registers, its scalar arithmetic and addresses cleaned up, loop-invariant code hoisted,
/// the short loops left in the schedule (a filter's taps) unrolled. `default<O3>`'s inliner,
/// interprocedural passes, induction-variable rewriting and vectorisers find nothing to do in
/// such code, at a third of the host's compile time.
pub const VECTORIZED_PIPELINE: &str = "function(sroa,early-cse,instcombine,simplifycfg,loop-mssa(loop-rotate,licm),\
     loop(loop-unroll-full),sroa,gvn,instcombine,loop-mssa(licm),simplifycfg,vector-combine,instcombine,\
     loop-unroll<O3>,instcombine,loop-mssa(licm),simplifycfg)";

impl Pipeline {
    /// The kernel's pipeline: [`Pipeline::Vectorized`] when it computes on vectors and leaves
    /// nothing for LLVM's vectorisers (no linalg op, no store of a scalar), else
    /// [`Pipeline::Full`].
    pub fn of(kernel: Op) -> Pipeline {
        let (mut vectors, mut scalars) = (false, false);
        let is_vector = |value: strata_ir::Val| strata_ir::types::vector_shape(value.r#type()).is_some();
        kernel.collect(|op| {
            let name = op.name();
            let scalar_store =
                (name == "memref.store" || name == "llvm.store") && op.operand_count() > 0 && !is_vector(op.operand(0));
            scalars |= scalar_store || name.starts_with("linalg.");
            vectors |= op.results().into_iter().any(is_vector);
            false
        });
        if vectors && !scalars {
            Pipeline::Vectorized
        } else {
            Pipeline::Full
        }
    }

    /// The LLVM pass pipeline.
    pub fn passes(self) -> &'static str {
        match self {
            Pipeline::Full => "default<O3>",
            Pipeline::Vectorized => VECTORIZED_PIPELINE,
        }
    }

    /// About what one estimated operation ([`lowered_size`], counted on the kernels made loops)
    /// of a kernel costs to compile with this pipeline, relative. Measured on YOLOv8n's groups:
    /// 0.23 ms per operation through `default<O3>` (scalar loops, which LLVM unrolls and
    /// vectorises), 0.035 ms in vectorised kernels; on gated DeltaNet's, 0.11 and 0.03. Only a
    /// rough weight: the threads take the groups as they finish the last, and 5 instead of 3
    /// gave the same times (YOLOv8n, MobileNetV2, ResNet-50, gated DeltaNet).
    fn cost_per_op(self) -> usize {
        match self {
            Pipeline::Full => 3,
            Pipeline::Vectorized => 1,
        }
    }
}

/// Optimises `llvm` with `pipeline` and gives the weights array `weights.0` its bytes (only
/// now: the optimiser saw a declaration, nothing to fold).
fn optimise(
    llvm: &inkwell::module::Module<'_>,
    machine: &TargetMachine,
    pipeline: Pipeline,
    weights: Option<(&str, &[u8])>,
) -> Result<(), CodegenError> {
    llvm.run_passes(pipeline.passes(), machine, PassBuilderOptions::create())
        .map_err(|e| CodegenError::Llvm(e.to_string()))?;
    if let Some((symbol, bytes)) = weights {
        let blob = llvm
            .get_global(symbol)
            .ok_or_else(|| CodegenError::Llvm(format!("the weights array @{symbol} vanished in optimisation")))?;
        blob.set_initializer(&llvm.get_context().const_string(bytes, false));
    }
    Ok(())
}

/// `llvm` printed (IR) or compiled (assembly, object) into memory.
fn to_bytes(llvm: &inkwell::module::Module<'_>, machine: &TargetMachine, what: Emit) -> Result<Vec<u8>, CodegenError> {
    let kind = match what {
        Emit::LlvmIr => return Ok(llvm.print_to_string().to_bytes().to_vec()),
        Emit::Assembly => FileType::Assembly,
        Emit::Object => FileType::Object,
    };
    Ok(machine.write_to_memory_buffer(llvm, kind).map_err(|e| CodegenError::Llvm(e.to_string()))?.as_slice().to_vec())
}

/// `llvm` compiled into the object file `file` (streamed there: no copy of its weights in
/// memory beside the code generator's own).
fn to_file(
    llvm: &inkwell::module::Module<'_>,
    machine: &TargetMachine,
    file: &std::path::Path,
) -> Result<(), CodegenError> {
    machine.write_to_file(llvm, FileType::Object, file).map_err(|e| CodegenError::Llvm(e.to_string()))
}

/// Declares what the library exports beside its code: the signature, and the weights array
/// when there are weights.
fn declare_exports<'ctx>(
    context: &'ctx Context,
    llvm: &inkwell::module::Module<'ctx>,
    exports: Option<EmbeddedWeights<'_>>,
) -> Result<(), CodegenError> {
    let Some(exports) = exports else { return Ok(()) };
    declare_signature(context, llvm, exports);
    if !exports.bytes.is_empty() {
        declare_weights(context, llvm, exports)?;
    }
    Ok(())
}

/// Exports the model's signature as a NUL-terminated constant array (when it has one).
fn declare_signature<'ctx>(context: &'ctx Context, llvm: &inkwell::module::Module<'ctx>, exports: EmbeddedWeights<'_>) {
    if exports.signature.is_empty() {
        return;
    }
    let text = context.const_string(exports.signature.as_bytes(), true);
    let global = llvm.add_global(text.get_type(), None, exports.signature_symbol);
    global.set_initializer(&text);
    global.set_constant(true);
    global.set_linkage(inkwell::module::Linkage::External);
}

/// Declares the exported weights array (its bytes come after optimisation) and makes the entry
/// point use it when called with null weights: `w = weights ? weights : strata_<name>_weights`.
fn declare_weights<'ctx>(
    context: &'ctx Context,
    llvm: &inkwell::module::Module<'ctx>,
    weights: EmbeddedWeights<'_>,
) -> Result<(), CodegenError> {
    use inkwell::values::AsValueRef;
    let length = u32::try_from(weights.bytes.len())
        .map_err(|_| CodegenError::Llvm(format!("the weights ({} bytes) exceed 4 GiB", weights.bytes.len())))?;
    let blob = llvm.add_global(context.i8_type().array_type(length), None, weights.symbol);
    blob.set_constant(true);
    blob.set_linkage(inkwell::module::Linkage::External);
    blob.set_alignment(weights.alignment);
    let entry =
        llvm.get_function(weights.entry).ok_or_else(|| CodegenError::MissingFunction(weights.entry.to_owned()))?;
    let first = entry
        .get_first_basic_block()
        .and_then(|b| b.get_first_instruction())
        .ok_or_else(|| CodegenError::Entry(format!("{} has no body", weights.entry)))?;
    let given = entry
        .get_nth_param(0)
        .filter(|p| p.is_pointer_value())
        .ok_or_else(|| CodegenError::Entry(format!("{} takes no weights pointer", weights.entry)))?
        .into_pointer_value();
    let builder = context.create_builder();
    builder.position_before(&first);
    let missing = builder.build_is_null(given, "no_weights").map_err(|e| CodegenError::Llvm(e.to_string()))?;
    let chosen = builder
        .build_select(missing, blob.as_pointer_value(), given, "weights")
        .map_err(|e| CodegenError::Llvm(e.to_string()))?;
    // Every use of the argument reads the choice, but the choice's own operands.
    // Safety: values of this module; the two operands restored are the ones just replaced.
    unsafe {
        let raw = given.as_value_ref();
        inkwell::llvm_sys::core::LLVMReplaceAllUsesWith(raw, chosen.as_value_ref());
        inkwell::llvm_sys::core::LLVMSetOperand(chosen.as_value_ref(), 2, raw);
        inkwell::llvm_sys::core::LLVMSetOperand(missing.as_value_ref(), 0, raw);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(bytes: &[u8]) -> EmbeddedWeights<'_> {
        EmbeddedWeights {
            entry: "strata_m_run",
            symbol: "strata_m_weights",
            bytes,
            alignment: 64,
            signature: "",
            signature_symbol: "strata_m_signature",
        }
    }

    #[test]
    fn the_weights_object_defines_the_exported_aligned_array() {
        use object::{Object, ObjectSection, ObjectSymbol};
        let dir = tempfile::tempdir().unwrap();
        let bytes: Vec<u8> = (0..200u8).collect();
        let path = weights_object(weights(&bytes), dir.path()).unwrap();
        let data = std::fs::read(&path).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let symbol = file.symbols().find(|s| s.name() == Ok("strata_m_weights")).unwrap();
        assert!(symbol.is_global() && symbol.is_definition());
        assert_eq!(symbol.size(), 200);
        let section = file.section_by_index(symbol.section_index().unwrap()).unwrap();
        assert_eq!(section.name(), Ok(".rodata.strata_m_weights"));
        assert_eq!(section.align(), 64);
        assert_eq!(section.data().unwrap(), &bytes[..]);
        // No executable stack.
        assert!(file.section_by_name(".note.GNU-stack").is_some());
    }

    #[test]
    fn kernels_strata_vectorised_take_the_short_pipeline() {
        let strata = strata_ir::StrataContext::new(&[]).unwrap();
        let loop_of = |body: &str, tag: &str| {
            format!(
                "%c0{tag} = arith.constant 0 : index\n%c16{tag} = arith.constant 16 : index\n\
                 %c64{tag} = arith.constant 64 : index\nscf.for %i = %c0{tag} to %c64{tag} step %c16{tag} {{\n{body}\n}}\n\
                 return"
            )
        };
        let vector = "%v = vector.load %a[%i] : memref<64xf32>, vector<16xf32>\n\
                      %w = arith.addf %v, %v : vector<16xf32>\n\
                      vector.store %w, %a[%i] : memref<64xf32>, vector<16xf32>";
        let scalar = "%x = memref.load %a[%i] : memref<64xf32>\n%y = arith.addf %x, %x : f32\n\
                      memref.store %y, %a[%i] : memref<64xf32>";
        let bodies = [
            loop_of(vector, ""),
            loop_of(scalar, ""),
            // A vectorised loop beside one left to LLVM's vectorisers.
            format!("{}\n{}", loop_of(vector, "").trim_end_matches("return"), loop_of(scalar, "_")),
            "%z = arith.constant 0.0 : f32\nlinalg.fill ins(%z : f32) outs(%a : memref<64xf32>)\nreturn".to_owned(),
        ];
        let functions: Vec<String> = bodies
            .iter()
            .enumerate()
            .map(|(i, body)| format!("func.func private @strata_kernel_{i}(%a: memref<64xf32>) {{\n{body}\n}}"))
            .collect();
        let module = strata.parse(&format!("module {{\n{}\n}}", functions.join("\n")), "kernels").unwrap();
        let pipelines: Vec<Pipeline> = crate::outline_kernels::kernels(&module).into_iter().map(Pipeline::of).collect();
        assert_eq!(pipelines, [Pipeline::Vectorized, Pipeline::Full, Pipeline::Full, Pipeline::Full]);
        assert_eq!(Pipeline::Full.passes(), "default<O3>");
        // The text parses as LLVM's pass pipeline (a typo would fail every compile).
        let machine = host_machine().unwrap();
        let context = Context::create();
        let llvm = context.create_module("empty");
        for pipeline in [Pipeline::Full, Pipeline::Vectorized] {
            llvm.run_passes(pipeline.passes(), &machine, PassBuilderOptions::create()).unwrap();
        }
    }

    #[test]
    fn a_weights_object_that_cannot_be_written_is_an_output_error() {
        // A directory under a regular file cannot exist (root or not).
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let error = weights_object(weights(&[1, 2, 3]), &file).unwrap_err();
        assert!(matches!(error, CodegenError::OutputPath(_)), "{error:?}");
        assert!(error.to_string().contains("cannot write the weights' object"), "{error}");
    }
}
