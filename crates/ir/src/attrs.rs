//! The `strata.*` discardable attributes: what one stage leaves on the IR for a later one,
//! declared once here with their kind and meaning. Stages read and write them only through
//! these typed declarations; [`verify`] (run by `StrataContext::verify` on every op) rejects an
//! undeclared `strata.*` attribute or one of the wrong kind, so a misspelled or stale hand-off
//! fails at the next verification instead of silently meaning nothing.

use melior::ir::attribute::{ArrayAttribute, Attribute, AttributeLike, IntegerAttribute, StringAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::IntegerType;

/// What a hand-off attribute holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Present or absent (`unit`).
    Flag,
    /// An integer (`3 : i64`).
    Int,
    /// A string.
    Text,
    /// An array of strings.
    Texts,
    /// An array of integers (`array<i64: 1, 2>`).
    Ints,
}

/// A declared hand-off attribute.
#[derive(Clone, Copy, Debug)]
pub struct HandOff {
    pub name: &'static str,
    pub kind: Kind,
    /// Which op carries it, who writes and who reads it.
    pub doc: &'static str,
}

/// An integer hand-off.
#[derive(Clone, Copy, Debug)]
pub struct Int(pub &'static str);

/// A flag hand-off (a unit attribute).
#[derive(Clone, Copy, Debug)]
pub struct Flag(pub &'static str);

/// A string hand-off.
#[derive(Clone, Copy, Debug)]
pub struct Text(pub &'static str);

/// A string-array hand-off.
#[derive(Clone, Copy, Debug)]
pub struct Texts(pub &'static str);

/// An integer-array hand-off.
#[derive(Clone, Copy, Debug)]
pub struct Ints(pub &'static str);

macro_rules! hand_offs {
    ($($(#[doc = $doc:literal])+ $id:ident: $ty:ident = $name:literal;)*) => {
        $($(#[doc = $doc])+ pub const $id: $ty = $ty($name);)*

        /// Every declared hand-off.
        pub const ALL: &[HandOff] = &[$(HandOff { name: $name, kind: Kind::$ty, doc: concat!($($doc),+) }),*];
    };
}

hand_offs! {
    /// On `@main` (the importer): the ONNX names of the arguments, in order.
    INPUT_NAMES: Texts = "strata.input_names";
    /// On `@main` (the importer): the ONNX names of the results, in order.
    OUTPUT_NAMES: Texts = "strata.output_names";
    /// On `@main` (import): the run-time checks' messages, by status code - 1; `@main`
    /// returns their status as its last result.
    STATUS_CHECKS: Texts = "strata.status_checks";
    /// On a planned function (`plan-arena`): the position of the arena argument.
    ARENA_ARG: Int = "strata.arena_arg";
    /// On a planned function (`plan-arena`): the arena's size in bytes.
    ARENA_BYTES: Int = "strata.arena_bytes";
    /// On a planned function (`plan-arena`): the arena's alignment in bytes.
    ARENA_ALIGNMENT: Int = "strata.arena_alignment";
    /// On a planned function (`plan-arena`): the plan's lower bound in bytes.
    ARENA_LOWER_BOUND: Int = "strata.arena_lower_bound";
    /// On a planned function (`plan-arena`): the strategy that made the plan.
    ARENA_STRATEGY: Text = "strata.arena_strategy";
    /// On a planned function (`plan-arena`): the plan as `strata_plan::report::PlanReport`
    /// JSON, each buffer named by its ONNX nodes and the op that writes it first; read by the
    /// driver into manifests and the Python package's plan table.
    ARENA_PLAN: Text = "strata.arena_plan";
    /// On a function (`plan-weights`): the position of the weights blob argument.
    WEIGHTS_ARG: Int = "strata.weights_arg";
    /// On the module (`plan-weights`): the weights blob's size in bytes.
    WEIGHTS_BYTES: Int = "strata.weights_bytes";
    /// On the module (`plan-weights`): the weights blob's alignment in bytes.
    WEIGHTS_ALIGNMENT: Int = "strata.weights_alignment";
    /// On a constant `memref.global` (`plan-weights`): its offset in the weights blob, from
    /// which `strata_ir::weights::blob` writes the blob.
    WEIGHTS_OFFSET: Int = "strata.weights_offset";
    /// On a `linalg.generic` (`sg-to-linalg`, from `sg.fused` with `epilogue = 1`): the
    /// epilogue of the kernel that produced its first operand; the host schedule runs it in
    /// that kernel's tiles.
    EPILOGUE: Flag = "strata.epilogue";
    /// On a register-blocked convolution generic (`strata-cpu-schedule`): its block,
    /// `THxTWxTF` (`f`: filters outermost, `e`: with an epilogue, `p`: parallel tiles), matched by the generated
    /// `cpu-conv` script.
    CONV_TILES: Text = "strata.conv_tiles";
    /// On an epilogue generic (`strata-cpu-schedule`): the block of its convolution.
    CONV_EPILOGUE: Text = "strata.conv_epilogue";
    /// On a blocked convolution's initialisation (`strata-cpu-schedule`): fused into its tiles.
    CONV_INIT: Flag = "strata.conv_init";
    /// On a matmul of a batch matmul split across threads, or of one thread's column slice of
    /// a matmul (`strata-cpu-schedule`): one iteration of an `scf.forall` of the function, and
    /// still a kernel of its own for the passes that vectorise kernels (not a tile of one).
    BATCH_ITEM: Flag = "strata.batch_item";
    /// On a convolution, matmul or pool (`strata-cpu-schedule`): `reduction_outer` or
    /// `vectorize`, matched by the `cpu-loop-order` and `cpu-vectorize` scripts.
    LOOP_ORDER: Text = "strata.loop_order";
    /// On a matmul to vectorise (`strata-cpu-vectorize`): its cache tiles, `MxNxK` (`p`
    /// appended: its (m, n) tiles run in parallel).
    CACHE_TILES: Text = "strata.cache_tiles";
    /// On a top-level linalg op (`strata-parallelize`): how many threads split each of its
    /// loops, `AxBx...` (0: not split), matched by the generated script that tiles it; with
    /// ` before N #i` when the split loop is cut at N first (the rest runs on one thread).
    PARALLEL: Text = "strata.parallel";
    /// On top-level linalg ops split alike (`strata-parallelize`, set and removed within the
    /// pass): the kernels of one group, consecutive and each iteration reading only what the
    /// same iteration of the others writes, whose `scf.forall`s merge into one (one fork).
    PARALLEL_GROUP: Int = "strata.parallel_group";
    /// On an elementwise generic (`strata-vectorize-elementwise`): its tile sizes, one vector
    /// along the innermost loop, `AxBx...` (0: not tiled), matched by the generated script.
    VECTOR_TILE: Text = "strata.vector_tile";
    /// On an `scf.forall` (`sg-to-linalg`, a bidirectional recurrence compiled for several
    /// threads): its iterations are independent sections (one per direction) run side by side;
    /// `plan-arena` gives their scratch memory of their own, the host passes treat the kernels
    /// inside as kernels of the function.
    SECTIONS: Flag = "strata.sections";
    /// On a `linalg.generic` (`strata-implicit-pads`, on tensors; read by
    /// `strata-vectorize-depthwise` on buffers): a convolution (depthwise, or full over few
    /// input channels) of the value its body reads (`tensor.extract`, `memref.load`) with
    /// implicit zero padding, `[stride h, stride w, dilation h, dilation w, padding top, padding
    /// left]`; its operands are the filter and the output.
    IMPLICIT_PADS: Ints = "strata.implicit_pads";
    /// On a `linalg.generic` (`strata-winograd`, on tensors; replaced by
    /// `strata-vectorize-winograd` on buffers): a 3x3 stride-1 convolution of its padded input
    /// and filter run as Winograd F(m x m, 3x3), `[m, band tile rows, scratch slots, threads
    /// splitting a band]`; its operands are the padded input, the filter, the transformed
    /// filter, the scratch and the output.
    WINOGRAD: Ints = "strata.winograd";
    /// On a `tensor.extract_slice` (`strata-choose-in-place{mark=true}`, before
    /// `eliminate-empty-tensors`): a slice the program had; the slices without it afterwards
    /// are the destinations the elimination gave producers.
    SLICE_BEFORE_ELIMINATION: Flag = "strata.slice_before_elimination";
    /// On a `tensor.extract_slice` (`strata-choose-in-place{mark-overwritten=true}`): made by
    /// `eliminate-empty-tensors` as the destination of a producer whose own was a
    /// `tensor.empty`, and kept: the producer writes it without reading it. Read and removed
    /// by `strata-pad-rings`.
    OVERWRITTEN_SLICE: Flag = "strata.overwritten_slice";
    /// On a function (`strata-choose-in-place{mark=true}`): its slices are marked.
    SLICES_MARKED: Flag = "strata.slices_marked";
    /// On a private function (`sg-outline-branches`): a branch of an `scf.if` made a
    /// function for the function passes; `sg-inline-branches` puts it back and erases it.
    OUTLINED_BRANCH: Flag = "strata.outlined_branch";
    /// On `@main` (`strata-profile-kernels`): each kernel counter's label, `<ONNX nodes>\t<ops
    /// timed>`, in counter order; read by `strata run --profile`.
    PROFILE_KERNELS: Texts = "strata.profile_kernels";
}

/// Sets a discardable integer attribute `name` on `op` (a pass's own transient mark, removed
/// before the pass ends: the declared ones have their [`Int`]).
pub fn set_int(op: OperationRef<'_, '_>, name: &str, value: i64) {
    let context = op.context();
    let context = unsafe { context.to_ref() };
    set(op, name, IntegerAttribute::new(IntegerType::new(context, 64).into(), value).into());
}

/// Sets a discardable attribute on `op`.
fn set(op: OperationRef<'_, '_>, name: &str, value: Attribute<'_>) {
    // Safety: `op` is a live operation; MLIR copies the name.
    unsafe {
        mlir_sys::mlirOperationSetDiscardableAttributeByName(
            op.to_raw(),
            melior::StringRef::new(name).to_raw(),
            value.to_raw(),
        )
    };
}

impl Int {
    pub fn get(self, op: OperationRef<'_, '_>) -> Option<i64> {
        IntegerAttribute::try_from(op.attribute(self.0).ok()?).ok().map(|a| a.value())
    }

    pub fn set(self, op: OperationRef<'_, '_>, value: i64) {
        let context = op.context();
        let context = unsafe { context.to_ref() };
        set(op, self.0, IntegerAttribute::new(IntegerType::new(context, 64).into(), value).into());
    }
}

impl Flag {
    pub fn is_set(self, op: OperationRef<'_, '_>) -> bool {
        op.attribute(self.0).is_ok()
    }

    pub fn set(self, op: OperationRef<'_, '_>) {
        // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
        let context_ref = op.context();
        let context = unsafe { context_ref.to_ref() };
        set(op, self.0, Attribute::unit(context));
    }
}

impl Text {
    pub fn get(self, op: OperationRef<'_, '_>) -> Option<String> {
        StringAttribute::try_from(op.attribute(self.0).ok()?).ok().map(|a| a.value().to_owned())
    }

    pub fn set(self, op: OperationRef<'_, '_>, value: &str) {
        // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
        let context_ref = op.context();
        let context = unsafe { context_ref.to_ref() };
        set(op, self.0, StringAttribute::new(context, value).into());
    }

    /// Reads and removes the attribute (a hand-off to the driver that the printed IR should
    /// not carry on).
    pub fn take(self, op: OperationRef<'_, '_>) -> Option<String> {
        let value = self.get(op)?;
        // Safety: `op` is a live operation; MLIR copies the name.
        unsafe {
            mlir_sys::mlirOperationRemoveDiscardableAttributeByName(
                op.to_raw(),
                melior::StringRef::new(self.0).to_raw(),
            )
        };
        Some(value)
    }

    /// The attribute as it is written inside an attribute dictionary (`name = "value"`), for
    /// IR built as text.
    pub fn in_dictionary(self, value: &str) -> String {
        format!("{} = \"{value}\"", self.0)
    }
}

impl Texts {
    pub fn get(self, op: OperationRef<'_, '_>) -> Option<Vec<String>> {
        let array = ArrayAttribute::try_from(op.attribute(self.0).ok()?).ok()?;
        (0..array.len())
            .map(|i| {
                array.element(i).ok().and_then(|e| StringAttribute::try_from(e).ok()).map(|s| s.value().to_owned())
            })
            .collect()
    }

    pub fn set(self, op: OperationRef<'_, '_>, values: &[String]) {
        // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
        let context_ref = op.context();
        let context = unsafe { context_ref.to_ref() };
        let elements: Vec<Attribute> = values.iter().map(|v| StringAttribute::new(context, v).into()).collect();
        set(op, self.0, ArrayAttribute::new(context, &elements).into());
    }
}

impl Ints {
    pub fn get(self, op: OperationRef<'_, '_>) -> Option<Vec<i64>> {
        crate::ods::i64_array(op, self.0)
    }

    /// The attribute as it is written inside an attribute dictionary, for IR built as text.
    pub fn in_dictionary(self, values: &[i64]) -> String {
        let values: Vec<String> = values.iter().map(i64::to_string).collect();
        format!("{} = array<i64: {}>", self.0, values.join(", "))
    }
}

impl Flag {
    /// The attribute as it is written inside an attribute dictionary, for IR built as text.
    pub fn in_dictionary(self) -> &'static str {
        self.0
    }
}

/// Checks `op`'s `strata.*` attributes: each must be declared and of its kind. Pushes one
/// message per problem.
pub fn verify(op: OperationRef<'_, '_>, problems: &mut Vec<String>) {
    // The discardable attributes only, where every `strata.*` one is: `op.attributes()` would
    // rebuild the op's dictionary of inherent attributes for every attribute it reads.
    // SAFETY: `op` is a live operation and `index` below its count of discardable attributes.
    let count = unsafe { mlir_sys::mlirOperationGetNumDiscardableAttributes(op.to_raw()) };
    for index in 0..count {
        let named = unsafe { mlir_sys::mlirOperationGetDiscardableAttribute(op.to_raw(), index) };
        // SAFETY: the name and the value belong to `op`'s context, alive as long as `op`.
        let (identifier, value) =
            unsafe { (melior::ir::Identifier::from_raw(named.name), Attribute::from_raw(named.attribute)) };
        let Ok(name) = identifier.as_string_ref().as_str() else { continue };
        if !name.starts_with("strata.") {
            continue;
        }
        let Some(declared) = ALL.iter().find(|h| h.name == name) else {
            problems.push(format!("attribute '{name}' is not a declared strata hand-off (see strata_ir::attrs)"));
            continue;
        };
        let ok = match declared.kind {
            Kind::Flag => value.is_unit(),
            Kind::Int => IntegerAttribute::try_from(value).is_ok(),
            Kind::Text => StringAttribute::try_from(value).is_ok(),
            Kind::Ints => melior::ir::attribute::DenseI64ArrayAttribute::try_from(value).is_ok(),
            Kind::Texts => ArrayAttribute::try_from(value).is_ok_and(|a| {
                (0..a.len()).all(|i| a.element(i).ok().is_some_and(|e| StringAttribute::try_from(e).is_ok()))
            }),
        };
        if !ok {
            problems.push(format!("attribute '{name}' must be {:?}, got {value}", declared.kind));
        }
    }
}

/// Marks every argument of the function `func` `bufferization.writable = false`: One-Shot
/// Bufferize then never writes into a caller's buffer (a loop carrying an input, say, gets a
/// copy of it). The arguments of `@main` are the caller's inputs, read-only to the model.
pub fn read_only_arguments(func: OperationRef<'_, '_>) {
    let Ok(region) = func.region(0) else { return };
    let Some(entry) = melior::ir::RegionLike::first_block(&region) else { return };
    let count = melior::ir::BlockLike::argument_count(&entry);
    // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
    let context_ref = func.context();
    let context = unsafe { context_ref.to_ref() };
    let text = format!("[{}]", vec!["{bufferization.writable = false}"; count].join(", "));
    let Some(value) = Attribute::parse(context, &text) else { return };
    // Safety: `func` is a live operation; `arg_attrs` is func.func's inherent attribute.
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(
            func.to_raw(),
            melior::StringRef::new("arg_attrs").to_raw(),
            value.to_raw(),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_unique_and_namespaced() {
        let mut names: Vec<&str> = ALL.iter().map(|h| h.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        assert!(ALL.iter().all(|h| h.name.starts_with("strata.") && !h.doc.is_empty()));
        assert_eq!(ARENA_BYTES.0, "strata.arena_bytes");
        assert_eq!(LOOP_ORDER.in_dictionary("vectorize"), "strata.loop_order = \"vectorize\"");
    }
}
