//! The GPU artifact: the PTX of every kernel, the weights blob, and the launch manifest (each
//! kernel launch of `@main` in order, with its grid, block and which ABI buffer each parameter
//! is), which `strata-runtime` loads without the compiler.

use melior::ir::attribute::IntegerAttribute;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Module, RegionLike, ValueLike};
use strata_ir::Error;
use strata_ir::StrataContext;
use strata_runtime::manifest::{file_name, ArtifactPaths};
use strata_runtime::{KernelArg, Launch, Manifest, Signature};

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
pub fn launches(module: &Module<'_>, signature: &Signature) -> Result<Vec<Launch>, Error> {
    let main = strata_ir::rewrite::find_symbol(module, "main").ok_or("the module has no @main function")?;
    let inputs = signature.inputs.len();
    let outputs = signature.outputs.len();
    let arena = strata_ir::attrs::ARENA_ARG.get(main);
    let weights = strata_ir::attrs::WEIGHTS_ARG.get(main);
    let body = main.region(0).ok().and_then(|r| r.first_block()).ok_or("@main has no body")?;
    let mut launches = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = strata_ir::ods::op_name(current);
        if name != "gpu.launch_func" {
            if !matches!(name.as_str(), "func.return" | "arith.constant") && !name.starts_with("memref.") {
                return Err(Error::internal(format!(
                    "'{name}' is left on the host after GPU lowering; only kernel launches may remain"
                )));
            }
            continue;
        }
        let kernel = current.attribute("kernel").map_err(|_| "gpu.launch_func without a kernel")?;
        // The kernel's module: `@module::@function`.
        let kernel = strata_ir::handle::symbol_root(kernel).ok_or("a launch's kernel is not a UTF-8 symbol")?;
        // Operand segments: async deps, grid x/y/z, block x/y/z, cluster x/y/z, dynamic shared
        // memory, kernel operands, async object.
        let segments =
            current.attribute("operandSegmentSizes").map_err(|_| "gpu.launch_func without operand segments")?;
        let sizes: Vec<usize> = strata_ir::handle::i32_array(segments)
            .ok_or("gpu.launch_func's operand segments are not an i32 array")?
            .into_iter()
            .map(|n| n.max(0) as usize)
            .collect();
        if sizes.len() < 12 || sizes[0] != 0 || sizes[7..11].iter().any(|&n| n != 0) {
            return Err(Error::internal(format!("launch of {kernel} uses async tokens, clusters or dynamic shared memory, which the CUDA runtime does not support")));
        }
        let operand = |i: usize| current.operand(i).map_err(|_| format!("launch of {kernel} lacks operand {i}"));
        let dims = |first: usize| -> Result<[u32; 3], Error> {
            let mut out = [0u32; 3];
            for (k, slot) in out.iter_mut().enumerate() {
                *slot = constant(operand(first + k)?)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| format!("launch of {kernel}: grid and block sizes must be constants"))?;
            }
            Ok(out)
        };
        let (grid, block) = (dims(0)?, dims(3)?);
        let first = sizes[..11].iter().sum::<usize>();
        let mut args = Vec::new();
        for i in first..first + sizes[11] {
            let value = operand(i)?;
            let position = strata_ir::Val::of(value).argument_number().ok_or_else(|| {
                format!(
                    "kernel {kernel} takes a value computed on the host ({}); kernels may only take the ABI's buffers",
                    value.r#type()
                )
            })?;
            args.push(match position {
                p if p < inputs => KernelArg::Input(p),
                p if p < inputs + outputs => KernelArg::Output(p - inputs),
                p if p == inputs + outputs && !signature.checks.is_empty() => KernelArg::Status,
                p if Some(p as i64) == arena => KernelArg::Arena,
                p if Some(p as i64) == weights => KernelArg::Weights,
                p => {
                    return Err(Error::internal(format!(
                        "kernel {kernel} takes argument {p} of @main, which is no ABI buffer"
                    )))
                }
            });
        }
        launches.push(Launch { kernel, grid, block, args });
    }
    Ok(launches)
}

/// Writes `<stem>.ptx`, `<stem>.json` and `<stem>.weights.bin` for a module compiled to the
/// `Gpu` stage; returns the manifest.
pub fn write(
    strata: &StrataContext,
    module: &Module<'_>,
    signature: &Signature,
    name: &str,
    chip: &str,
    paths: &ArtifactPaths,
) -> Result<Manifest, Error> {
    let options = crate::PtxOptions::for_chip(chip).map_err(|e| Error::invalid_input(e.to_string()))?;
    let (ptx, _) = crate::emit_ptx(module, &options).map_err(|e| Error::of(&e))?;
    let weights = strata_ir::weights::blob(strata, module)?;
    let mut manifest = Manifest::new(name, "nvptx", signature);
    manifest.ptx = Some(file_name(&paths.main));
    manifest.chip = Some(chip.to_owned());
    manifest.kernels = launches(module, signature)?;
    manifest.weights_bytes = weights.len();
    // The PTX carries the signature (launches included) its manifest must match, and the
    // manifest the digests of the PTX and the weights (`CudaModel::load` checks both).
    let ptx = strata_runtime::manifest::ptx_with_signature(&ptx, &manifest.embedded());
    let mut digests =
        strata_runtime::manifest::Digests { code: strata_runtime::manifest::sha256_hex(ptx.as_bytes()), weights: None };
    if !weights.is_empty() {
        manifest.weights = Some(file_name(&paths.weights));
        digests.weights = Some(strata_runtime::manifest::sha256_hex(&weights));
        strata_runtime::write_atomic(&paths.weights, &weights)
            .map_err(|e| format!("cannot write {}: {e}", paths.weights.display()))?;
    }
    manifest.sha256 = Some(digests);
    strata_runtime::write_atomic(&paths.main, ptx.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", paths.main.display()))?;
    manifest.write(&paths.manifest).map_err(|e| Error::of(&e))?;
    Ok(manifest)
}
