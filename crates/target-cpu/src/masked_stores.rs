//! `strata-split-masked-stores{split}`: a 1-D `vector.maskedstore` whose mask is a constant
//! prefix (the first `n` lanes: a row's last partial vector in a convolution or pool block)
//! becomes a `vector.store` of those `n` lanes (`vector.extract_strided_slice`), which LLVM
//! writes as whole stores of 4, 2 and 1 lanes. No mask left: no lane is written that the masked
//! store would not write.
//!
//! AVX2's masked store (`vmaskmovps` to memory) is microcoded on AMD's cores: about 16 cycles
//! on this Zen3 machine where the three plain stores of a 7-lane prefix take 4 (a C loop of
//! each). Masked loads cost what plain loads do there and stay. With AVX-512 a masked store is
//! one `vmovups` under a mask register, cheaper than the split: `split=auto` (the pipeline's)
//! splits unless the host has AVX-512; `always` and `never` decide regardless of the host.
//!
//! Part of `strata-host-to-llvm`, after `convert-vector-to-scf` (the transfers lowered to 1-D
//! ops) and canonicalization (the masks folded to constants).

use melior::ir::operation::{OperationLike, OperationRef};
use strata_ir::rewrite::collect;
use strata_ir::{OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

use crate::vector_ops::{build, build_void, vector_shape};

pub static INFO: PassInfo = PassInfo {
    name: "strata-split-masked-stores",
    summary: "1-D masked stores of a constant lane prefix as plain stores of the prefix (masked stores are microcoded on AMD)",
    anchor: "func.func",
    options: &[OptionInfo {
        name: "split",
        kind: OptionKind::Enum(&["auto", "always", "never"]),
        default: "auto",
        help: "auto: split unless the host has AVX-512 (whose masked stores are cheap)",
    }],
    statistics: &[
        StatisticInfo { name: "split", help: "masked stores written as stores of their lane prefix" },
        StatisticInfo { name: "erased", help: "masked stores of no lane, erased" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    let split = match options.string("split") {
        "always" => true,
        "never" => false,
        _ => strata_machine::Registers::host().lanes < 16,
    };
    Box::new(SplitMaskedStores { split })
}

struct SplitMaskedStores {
    split: bool,
}

impl Pass for SplitMaskedStores {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        if !self.split {
            return Ok(());
        }
        let context = cx.strata().mlir();
        for store in collect(&func, |op| op.is("vector.maskedstore")) {
            let count = store.operand_count();
            // base, indices..., mask, value
            if count < 3 {
                continue;
            }
            let (mask, value) = (store.operand(count - 2), store.operand(count - 1));
            let Some((dims, element)) = vector_shape(value.r#type()) else { continue };
            let [lanes] = dims[..] else { continue };
            let Some(prefix) = constant_prefix(mask, lanes) else { continue };
            if prefix == 0 {
                // Safety: a store has no results; nothing refers to it.
                unsafe { store.erase() };
                cx.bump("erased", 1);
                continue;
            }
            let part = if prefix == lanes {
                value
            } else {
                let slice =
                    [("offsets", "[0]".to_owned()), ("sizes", format!("[{prefix}]")), ("strides", "[1]".to_owned())];
                let ty = format!("vector<{prefix}x{element}>");
                let Some(part) = build(context, store, "vector.extract_strided_slice", &[value], &ty, &slice) else {
                    continue;
                };
                part
            };
            let operands: Vec<Val> = std::iter::once(part).chain((0..count - 2).map(|i| store.operand(i))).collect();
            if build_void(store, "vector.store", &operands).is_none() {
                continue;
            }
            // Safety: replaced by the plain store; a store has no results.
            unsafe { store.erase() };
            cx.bump("split", 1);
        }
        Ok(())
    }
}

/// How many leading lanes of `lanes` the constant `mask` sets, when it sets exactly a prefix
/// (`vector.constant_mask [n]`, or an `arith.constant` of `true`s then `false`s).
fn constant_prefix(mask: Val, lanes: i64) -> Option<i64> {
    let op = mask.owner()?;
    if op.is("vector.constant_mask") {
        let sizes = strata_ir::ods::i64_array(op.get(), "mask_dim_sizes")?;
        return match sizes[..] {
            [n] if (0..=lanes).contains(&n) => Some(n),
            _ => None,
        };
    }
    if op.is("arith.constant") {
        let bits = strata_ir::handle::dense_ints(op.get().attribute("value").ok()?)?;
        let prefix = bits.iter().take_while(|&&b| b != 0).count();
        return (bits.len() == lanes as usize && bits[prefix..].iter().all(|&b| b == 0)).then_some(prefix as i64);
    }
    None
}
