//! Artifacts that run without the compiler: a PTX file with its launch manifest and weights
//! blob (`--target=nvptx --emit=ptx`), or a host shared object with a C header and a manifest
//! (`--target=host --emit=so`). The manifest (`<stem>.json`) is what `strata-exec` and
//! `strata_runtime` load.

use crate::compile::Compiled;
use melior::ir::attribute::{AttributeLike, IntegerAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, RegionLike, ValueLike};
use std::path::{Path, PathBuf};
use strata_ir::StrataContext;
use strata_runtime::manifest::TensorEntry;
use strata_runtime::{KernelArg, Launch, Manifest, Signature};

/// The files of an artifact: `<dir>/<stem>.<ext>` plus `<stem>.json` (and
/// `<stem>.weights.bin`, `<stem>.h`).
pub struct ArtifactPaths {
    pub main: PathBuf,
    pub manifest: PathBuf,
    pub weights: PathBuf,
    pub header: PathBuf,
}

impl ArtifactPaths {
    pub fn for_output(main: &Path) -> ArtifactPaths {
        let stem = main.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let stem = stem.strip_prefix("lib").filter(|_| main.extension().is_some_and(|e| e == "so")).unwrap_or(stem);
        let beside = |suffix: &str| main.with_file_name(format!("{stem}{suffix}"));
        ArtifactPaths {
            main: main.to_path_buf(),
            manifest: beside(".json"),
            weights: beside(".weights.bin"),
            header: beside(".h"),
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn base_manifest(name: &str, target: &str, signature: &Signature) -> Manifest {
    Manifest {
        name: name.to_owned(),
        target: target.to_owned(),
        entry: String::new(),
        library: None,
        ptx: None,
        chip: None,
        inputs: signature.inputs.iter().map(TensorEntry::from_spec).collect(),
        outputs: signature.outputs.iter().map(TensorEntry::from_spec).collect(),
        arena_bytes: signature.arena_bytes,
        arena_alignment: signature.arena_alignment,
        weights_bytes: 0,
        weights: None,
        kernels: Vec::new(),
    }
}

fn int_attribute(op: OperationRef<'_, '_>, name: &str) -> Option<i64> {
    op.attribute(name).ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|a| a.value())
}

/// The value of a constant index/integer operand.
fn constant(value: melior::ir::Value<'_, '_>) -> Option<i64> {
    let op = strata_ir::rewrite::defining_op(value)?;
    if strata_ir::ods::op_name(op) != "arith.constant" {
        return None;
    }
    int_attribute(op, "value")
}

/// The kernel launches of the GPU-lowered `@main`, in order, with each kernel parameter
/// mapped to its ABI buffer.
pub fn launches(compiled: &Compiled<'_>) -> Result<Vec<Launch>, String> {
    let main =
        strata_ir::rewrite::find_symbol(&compiled.module, "main").ok_or("error: the module has no @main function")?;
    let inputs = compiled.signature.inputs.len();
    let outputs = compiled.signature.outputs.len();
    let arena = int_attribute(main, "strata.arena_arg");
    let weights = int_attribute(main, "strata.weights_arg");
    let body = main.region(0).ok().and_then(|r| r.first_block()).ok_or("error: @main has no body")?;
    let mut launches = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = strata_ir::ods::op_name(current);
        if name != "gpu.launch_func" {
            if !matches!(name.as_str(), "func.return" | "arith.constant") && !name.starts_with("memref.") {
                return Err(format!(
                    "error: internal: '{name}' is left on the host after GPU lowering; only kernel launches may remain"
                ));
            }
            continue;
        }
        let kernel = current.attribute("kernel").map_err(|_| "error: internal: gpu.launch_func without a kernel")?;
        // The kernel's module: `@module::@function`.
        let root = unsafe { melior::StringRef::from_raw(mlir_sys::mlirSymbolRefAttrGetRootReference(kernel.to_raw())) };
        let kernel = root.as_str().map_err(|_| "error: internal: kernel name is not UTF-8")?.to_owned();
        // Operand segments: async deps, grid x/y/z, block x/y/z, cluster x/y/z, dynamic shared
        // memory, kernel operands, async object.
        let segments = current
            .attribute("operandSegmentSizes")
            .map_err(|_| "error: internal: gpu.launch_func without operand segments")?;
        let sizes: Vec<usize> = (0..unsafe { mlir_sys::mlirDenseArrayGetNumElements(segments.to_raw()) })
            .map(|i| unsafe { mlir_sys::mlirDenseI32ArrayGetElement(segments.to_raw(), i) } as usize)
            .collect();
        if sizes.len() < 12 || sizes[0] != 0 || sizes[7..11].iter().any(|&n| n != 0) {
            return Err(format!("error: internal: launch of {kernel} uses async tokens, clusters or dynamic shared memory, which the CUDA runtime does not support"));
        }
        let operand =
            |i: usize| current.operand(i).map_err(|_| format!("error: internal: launch of {kernel} lacks operand {i}"));
        let dims = |first: usize| -> Result<[u32; 3], String> {
            let mut out = [0u32; 3];
            for (k, slot) in out.iter_mut().enumerate() {
                *slot = constant(operand(first + k)?)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| format!("error: launch of {kernel}: grid and block sizes must be constants"))?;
            }
            Ok(out)
        };
        let (grid, block) = (dims(0)?, dims(3)?);
        let first = sizes[..11].iter().sum::<usize>();
        let mut args = Vec::new();
        for i in first..first + sizes[11] {
            let value = operand(i)?;
            let position = unsafe { mlir_sys::mlirValueIsABlockArgument(value.to_raw()) }
                .then(|| unsafe { mlir_sys::mlirBlockArgumentGetArgNumber(value.to_raw()) } as usize)
                .ok_or_else(|| format!("error: internal: kernel {kernel} takes a value computed on the host ({}); kernels may only take the ABI's buffers", value.r#type()))?;
            args.push(match position {
                p if p < inputs => KernelArg::Input(p),
                p if p < inputs + outputs => KernelArg::Output(p - inputs),
                p if Some(p as i64) == arena => KernelArg::Arena,
                p if Some(p as i64) == weights => KernelArg::Weights,
                p => {
                    return Err(format!(
                        "error: internal: kernel {kernel} takes argument {p} of @main, which is no ABI buffer"
                    ))
                }
            });
        }
        launches.push(Launch { kernel, grid, block, args });
    }
    Ok(launches)
}

/// Writes `<stem>.ptx`, `<stem>.json` and `<stem>.weights.bin` for a module compiled to the
/// `Gpu` stage; returns the manifest.
pub fn write_gpu(
    strata: &StrataContext,
    compiled: &Compiled<'_>,
    name: &str,
    chip: &str,
    paths: &ArtifactPaths,
) -> Result<Manifest, String> {
    let options = strata_codegen::PtxOptions::for_chip(chip).map_err(|e| format!("error: {e}"))?;
    let (ptx, _) = strata_codegen::emit_ptx(&compiled.module, &options).map_err(|e| format!("error: {e}"))?;
    let weights = strata_codegen::weights::blob(strata, &compiled.module).map_err(|e| format!("error: {e}"))?;
    let mut manifest = base_manifest(name, "nvptx", &compiled.signature);
    manifest.ptx = Some(file_name(&paths.main));
    manifest.chip = Some(chip.to_owned());
    manifest.kernels = launches(compiled)?;
    manifest.weights_bytes = weights.len();
    if !weights.is_empty() {
        manifest.weights = Some(file_name(&paths.weights));
        std::fs::write(&paths.weights, &weights)
            .map_err(|e| format!("error: cannot write {}: {e}", paths.weights.display()))?;
    }
    std::fs::write(&paths.main, ptx).map_err(|e| format!("error: cannot write {}: {e}", paths.main.display()))?;
    manifest.write(&paths.manifest).map_err(|e| format!("error: {e}"))?;
    Ok(manifest)
}

/// The C type of a runtime dtype, for the header's comments.
fn c_type(dtype: strata_runtime::DType) -> &'static str {
    use strata_runtime::DType::*;
    match dtype {
        F16 | BF16 | U16 => "uint16_t",
        F32 => "float",
        F64 => "double",
        I8 => "int8_t",
        I16 => "int16_t",
        I32 => "int32_t",
        I64 => "int64_t",
        U8 | Bool => "uint8_t",
        // One element per byte: sub-byte integers in the low bits, small floats as their code.
        I4 | I2 => "int8_t",
        U4 | U2 | F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F4E2M1 | F8E8M0 => "uint8_t",
        U32 => "uint32_t",
        U64 => "uint64_t",
    }
}

/// The C header of a host shared object: the entry point and the sizes of its buffers.
pub fn c_header(name: &str, signature: &Signature) -> String {
    let upper = name.to_uppercase();
    let mut text = format!(
        "/* Generated by strata: the C ABI of model '{name}' (see DESIGN.md). */\n#ifndef STRATA_{upper}_H\n#define STRATA_{upper}_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n\
/* Scratch memory for intermediates: one buffer of this size and alignment, owned by the\n   caller and reused across calls (not concurrently). */\n\
#define STRATA_{upper}_ARENA_BYTES ((size_t){})\n#define STRATA_{upper}_ARENA_ALIGNMENT ((size_t){})\n#define STRATA_{upper}_NUM_INPUTS {}\n#define STRATA_{upper}_NUM_OUTPUTS {}\n\n",
        signature.arena_bytes,
        signature.arena_alignment.max(1),
        signature.inputs.len(),
        signature.outputs.len()
    );
    for (kind, list) in [("input", &signature.inputs), ("output", &signature.outputs)] {
        for (i, spec) in list.iter().enumerate() {
            let count: usize = spec.shape.iter().product();
            text += &format!(
                "/* {kind} {i} '{}': {} {:?}, {count} x {} (row-major) */\n#define STRATA_{upper}_{}_{i}_ELEMENTS ((size_t){count})\n",
                spec.name,
                spec.dtype,
                spec.shape,
                c_type(spec.dtype),
                kind.to_uppercase()
            );
        }
    }
    text += &format!(
        "\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n\
/* Runs the model. weights: NULL (the weights are compiled into the library). arena: at least\n   STRATA_{upper}_ARENA_BYTES bytes aligned to STRATA_{upper}_ARENA_ALIGNMENT (NULL when 0).\n   inputs/outputs: one pointer per input/output, in the order above, each to a row-major\n   buffer of the listed element count, aligned to its element size. */\n\
void strata_{name}_run(const uint8_t *weights, uint8_t *arena, const void *const *inputs, void *const *outputs);\n\n\
#ifdef __cplusplus\n}}\n#endif\n\n#endif /* STRATA_{upper}_H */\n"
    );
    text
}

/// Writes a host shared object (linked by the system C compiler driver `cc -shared`), its C
/// header and its manifest, for a module compiled to the LLVM-dialect stage.
pub fn write_host(compiled: &Compiled<'_>, name: &str, paths: &ArtifactPaths) -> Result<Manifest, String> {
    let object =
        strata_codegen::emit(&compiled.module, strata_codegen::Emit::Object).map_err(|e| format!("error: {e}"))?;
    let temp = paths.main.with_extension("strata-tmp.o");
    std::fs::write(&temp, object).map_err(|e| format!("error: cannot write {}: {e}", temp.display()))?;
    let linker = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status =
        std::process::Command::new(&linker).arg("-shared").arg("-o").arg(&paths.main).arg(&temp).arg("-lm").status();
    let _ = std::fs::remove_file(&temp);
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(format!("error: linking {} with `{linker} -shared` failed ({s})", paths.main.display())),
        Err(e) => return Err(format!("error: cannot run the linker `{linker}` (set CC to a C compiler driver): {e}")),
    }
    std::fs::write(&paths.header, c_header(name, &compiled.signature))
        .map_err(|e| format!("error: cannot write {}: {e}", paths.header.display()))?;
    let mut manifest = base_manifest(name, "host", &compiled.signature);
    manifest.entry = compiled.entry.clone().unwrap_or_else(|| format!("strata_{name}_run"));
    manifest.library = Some(file_name(&paths.main));
    manifest.write(&paths.manifest).map_err(|e| format!("error: {e}"))?;
    Ok(manifest)
}
