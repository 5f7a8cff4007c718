//! A small builder for the MLIR text of one lowered op: a private `func.func` whose arguments
//! are the sg op's operands and whose result is its result, written with linalg, tensor,
//! arith and math ops. `sg-to-linalg` parses each distinct kernel once and splices its body
//! in place of every op that produced it.
//!
//! Values are named `%vN` in the function body and `%sN` inside `linalg.generic` bodies (one
//! [`Body`] emitter each), so nested builders never clash.

use std::fmt::{self, Write};
use strata_ir::Error;

/// Element type of a tensor. Scalar arithmetic is signless (`arith` takes no other integers):
/// an unsigned ONNX type (`ui8`) is the signless `i8` with `unsigned` set, which picks the
/// unsigned operations (`divui`, `maxui`, `cmpi ult`, `uitofp`, ...). Tensors keep the stored
/// type (`tensor<4xui8>`); scalars cross between the two with
/// `builtin.unrealized_conversion_cast`, which vanishes once both are LLVM's `i8`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elem {
    /// The signless spelling (`f32`, `i64`, `i8` for `ui8`, `i1`).
    pub name: String,
    pub unsigned: bool,
}

impl Elem {
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        match name.strip_prefix('u') {
            Some(signless) if signless.starts_with('i') => Elem { name: signless.to_owned(), unsigned: true },
            _ => Elem { name, unsigned: false },
        }
    }
    /// The spelling of the stored type (`ui8` for unsigned).
    pub fn storage(&self) -> String {
        if self.unsigned {
            format!("u{}", self.name)
        } else {
            self.name.clone()
        }
    }
    pub fn is_float(&self) -> bool {
        matches!(self.name.as_str(), "f16" | "bf16" | "f32" | "f64")
    }
    /// float8 / float4 formats: stored and moved, computed through casts only.
    pub fn is_small_float(&self) -> bool {
        crate::minifloat::format(&self.name).is_some() || self.name == crate::minifloat::E8M0
    }
    pub fn is_bool(&self) -> bool {
        self.name == "i1"
    }
    /// Signless integers other than `i1` (ONNX's signed integers).
    pub fn is_int(&self) -> bool {
        self.name.starts_with('i') && !self.is_bool()
    }
    pub fn bits(&self) -> u32 {
        if let Some(format) = crate::minifloat::format(&self.name) {
            return format.bits();
        }
        match self.name.as_str() {
            "bf16" => 16,
            crate::minifloat::E8M0 => 8,
            name => name.trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(0),
        }
    }
    /// The error for an element type a kernel does not handle.
    pub fn unsupported(&self, what: &str) -> Error {
        Error::unsupported(format!(
            "{what} on element type {} is not lowered (supported: f16, bf16, f32, f64, integers, i1)",
            self.storage()
        ))
    }

    /// A literal of this type for `value` (integers truncate toward zero; `i1` is "not zero").
    pub fn literal(&self, value: f64) -> String {
        if self.is_float() || (self.is_small_float() && value.is_finite()) {
            // MLIR rounds a decimal literal to the small formats itself.
            float_literal(value, self)
        } else if self.is_bool() {
            (value != 0.0).to_string()
        } else {
            if self.unsigned {
                // Clamped to [0, 2^bits - 1], written as the signless bit pattern.
                let max = if self.bits() >= 64 { u64::MAX } else { (1u64 << self.bits()) - 1 };
                let v = (value.trunc().max(0.0) as u64).min(max);
                let signed = if self.bits() >= 64 {
                    v as i64
                } else if v >= 1u64 << (self.bits() - 1) {
                    v as i64 - (1i64 << self.bits())
                } else {
                    v as i64
                };
                return signed.to_string();
            }
            let (lo, hi) =
                (self.lowest().parse::<i64>().unwrap_or(i64::MIN), self.highest().parse::<i64>().unwrap_or(i64::MAX));
            format!("{}", (value.trunc() as i64).clamp(lo, hi))
        }
    }

    /// The lowest value of this type (`-inf` for floats): the identity of `max`.
    pub fn lowest(&self) -> String {
        if self.is_float() {
            float_literal(f64::NEG_INFINITY, self)
        } else if self.is_bool() {
            "false".into()
        } else if self.unsigned {
            "0".into()
        } else {
            format!("{}", if self.bits() >= 64 { i64::MIN } else { -(1i64 << (self.bits() - 1)) })
        }
    }

    /// The highest value of this type (`+inf` for floats): the identity of `min`.
    pub fn highest(&self) -> String {
        if self.is_float() {
            float_literal(f64::INFINITY, self)
        } else if self.is_bool() {
            "true".into()
        } else if self.unsigned {
            // All ones: the bit pattern of the unsigned maximum in the signless type.
            "-1".into()
        } else {
            format!("{}", if self.bits() >= 64 { i64::MAX } else { (1i64 << (self.bits() - 1)) - 1 })
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A float literal MLIR parses back to the same value of type `elem`: decimal when finite
/// (`1.5e0`), the bit pattern for infinities and NaN.
fn float_literal(value: f64, elem: &Elem) -> String {
    if value.is_finite() {
        let text = format!("{value:e}");
        return if text.contains('.') { text } else { text.replacen('e', ".0e", 1) };
    }
    let bits: u64 = match elem.name.as_str() {
        "f64" => value.to_bits(),
        "f32" => u64::from((value as f32).to_bits()),
        "f16" => u64::from(half::f16::from_f64(value).to_bits()),
        _ => u64::from(half::bf16::from_f64(value).to_bits()),
    };
    format!("{bits:#x}")
}

/// A ranked tensor type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorTy {
    pub shape: Vec<i64>,
    pub elem: Elem,
}

impl TensorTy {
    pub fn new(shape: Vec<i64>, elem: Elem) -> Self {
        TensorTy { shape, elem }
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    pub fn numel(&self) -> i64 {
        self.shape.iter().product()
    }
    /// The same element type with another shape.
    pub fn with_shape(&self, shape: Vec<i64>) -> TensorTy {
        TensorTy { shape, elem: self.elem.clone() }
    }
    pub fn with_elem(&self, elem: Elem) -> TensorTy {
        TensorTy { shape: self.shape.clone(), elem }
    }
}

impl fmt::Display for TensorTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        for dim in &self.shape {
            write!(f, "{dim}x")?;
        }
        write!(f, "{}>", self.elem.storage())
    }
}

/// Iterator kind of a `linalg.generic` loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iter {
    Parallel,
    Reduction,
}

impl Iter {
    /// One iterator per dimension: a reduction where `reduced` holds.
    pub fn reducing(reduced: &[bool]) -> Vec<Iter> {
        reduced.iter().map(|&r| if r { Iter::Reduction } else { Iter::Parallel }).collect()
    }
}

/// An affine map over a generic's loops `d0..dN`, given as its result expressions.
#[derive(Clone, Debug)]
pub struct Map(pub Vec<String>);

impl Map {
    /// `(d0, ..., dN-1) -> (d0, ..., dN-1)`.
    pub fn identity(rank: usize) -> Map {
        Map((0..rank).map(|d| format!("d{d}")).collect())
    }
    /// The loops listed in `dims`, in order.
    pub fn dims(dims: impl IntoIterator<Item = usize>) -> Map {
        Map(dims.into_iter().map(|d| format!("d{d}")).collect())
    }
    /// The map reading an operand of shape `shape` broadcast (NumPy rules, right-aligned)
    /// to `out`: size-1 dimensions that broadcast read index 0.
    pub fn broadcast(shape: &[i64], out: &[i64]) -> Map {
        let lead = out.len() - shape.len();
        Map(shape
            .iter()
            .enumerate()
            .map(|(k, &size)| if size == 1 && out[lead + k] != 1 { "0".to_string() } else { format!("d{}", lead + k) })
            .collect())
    }
    pub(crate) fn render(&self, loops: usize) -> String {
        let dims: Vec<String> = (0..loops).map(|d| format!("d{d}")).collect();
        format!("affine_map<({}) -> ({})>", dims.join(", "), self.0.join(", "))
    }
}

/// The body of one kernel function under construction.
pub struct Kernel {
    args: Vec<TensorTy>,
    code: Body,
    results: Vec<(String, TensorTy)>,
}

impl Kernel {
    pub fn new(args: Vec<TensorTy>) -> Self {
        Kernel { args, code: Body::new("%v", "    "), results: Vec::new() }
    }

    /// Argument `index` (an sg operand).
    pub fn arg(&self, index: usize) -> String {
        format!("%a{index}")
    }

    pub fn arg_type(&self, index: usize) -> &TensorTy {
        &self.args[index]
    }

    /// How many arguments the kernel has (an optional sg operand that is absent is none).
    pub fn arg_count(&self) -> usize {
        self.args.len()
    }

    /// Emits `%vN = <rhs>` and returns `%vN`.
    pub fn emit(&mut self, rhs: impl fmt::Display) -> String {
        self.code.emit(rhs)
    }

    pub fn constant(&mut self, literal: &str, elem: &Elem) -> String {
        self.code.constant(literal, elem)
    }

    pub fn empty(&mut self, ty: &TensorTy) -> String {
        self.emit(format_args!("tensor.empty() : {ty}"))
    }

    /// A scalar constant of the stored element type (cast from signless when unsigned).
    pub fn stored_constant(&mut self, literal: &str, elem: &Elem) -> String {
        let scalar = self.code.constant(literal, elem);
        self.code.to_storage(&scalar, elem)
    }

    /// A new tensor of type `ty` filled with `literal`.
    pub fn filled(&mut self, literal: &str, ty: &TensorTy) -> String {
        let scalar = self.stored_constant(literal, &ty.elem);
        let empty = self.empty(ty);
        self.emit(format_args!("linalg.fill ins({scalar} : {}) outs({empty} : {ty}) -> {ty}", ty.elem.storage()))
    }

    /// Argument `arg` inserted at offsets `low` into a new tensor of type `ty` filled with
    /// `literal` (a pad in destination-passing style: the argument's producer may then write
    /// into the filled tensor, see `eliminate-empty-tensors`).
    pub fn padded_into_filled(&mut self, arg: usize, literal: &str, low: &[i64], ty: &TensorTy) -> String {
        let filled = self.filled(literal, ty);
        let (source, source_ty) = (self.arg(arg), self.arg_type(arg).clone());
        let ones = vec![1; source_ty.rank()];
        let list = crate::nn::list;
        self.emit(format_args!(
            "tensor.insert_slice {source} into {filled}[{}] [{}] [{}] : {source_ty} into {ty}",
            list(low),
            list(&source_ty.shape),
            list(&ones)
        ))
    }

    /// A `linalg.generic` with one result. `body` gets the block arguments (inputs, then the
    /// output) and returns the yielded value.
    pub fn generic(
        &mut self,
        inputs: &[(&str, &TensorTy, Map)],
        output: (&str, &TensorTy, Map),
        iterators: &[Iter],
        body: impl FnOnce(&mut Body, &[String]) -> String,
    ) -> String {
        self.generic_with_attributes("", inputs, output, iterators, body)
    }

    /// [`Kernel::generic`] carrying extra (discardable) attributes, `attributes` the inside of
    /// their dictionary (`strata.epilogue`), or none when empty.
    pub fn generic_with_attributes(
        &mut self,
        attributes: &str,
        inputs: &[(&str, &TensorTy, Map)],
        output: (&str, &TensorTy, Map),
        iterators: &[Iter],
        body: impl FnOnce(&mut Body, &[String]) -> String,
    ) -> String {
        let loops = iterators.len();
        let maps: Vec<String> =
            inputs.iter().map(|(_, _, m)| m.render(loops)).chain([output.2.render(loops)]).collect();
        let iterators: Vec<&str> =
            iterators.iter().map(|i| if *i == Iter::Parallel { "\"parallel\"" } else { "\"reduction\"" }).collect();
        let ins: Vec<&str> = inputs.iter().map(|(v, _, _)| *v).collect();
        let in_types: Vec<String> = inputs.iter().map(|(_, t, _)| t.to_string()).collect();
        let mut block = Body::new("%s", "      ");
        let mut args: Vec<String> = Vec::new();
        let mut params: Vec<String> = Vec::new();
        for (k, (_, ty, _)) in inputs.iter().enumerate() {
            args.push(block.from_storage(&format!("%in{k}"), &ty.elem));
            params.push(format!("%in{k}: {}", ty.elem.storage()));
        }
        args.push(block.from_storage("%out", &output.1.elem));
        params.push(format!("%out: {}", output.1.elem.storage()));
        let yielded = body(&mut block, &args);
        let yielded = block.to_storage(&yielded, &output.1.elem);
        let ins_clause = if inputs.is_empty() {
            String::new()
        } else {
            format!(" ins({} : {})", ins.join(", "), in_types.join(", "))
        };
        let attrs_clause = if attributes.is_empty() { String::new() } else { format!(" attrs = {{{attributes}}}") };
        self.emit(format_args!(
            "linalg.generic {{indexing_maps = [{}], iterator_types = [{}]}}{ins_clause} outs({} : {}){attrs_clause} {{\n    ^bb0({}):\n{}      linalg.yield {yielded} : {}\n    }} -> {}",
            maps.join(", "),
            iterators.join(", "),
            output.0,
            output.1,
            params.join(", "),
            block.text,
            output.1.elem.storage(),
            output.1,
        ))
    }

    /// [`Kernel::generic`] whose body may fail (an element type it cannot handle).
    pub fn try_generic(
        &mut self,
        inputs: &[(&str, &TensorTy, Map)],
        output: (&str, &TensorTy, Map),
        iterators: &[Iter],
        body: impl FnOnce(&mut Body, &[String]) -> Result<String, Error>,
    ) -> Result<String, Error> {
        self.try_generic_with_attributes("", inputs, output, iterators, body)
    }

    /// [`Kernel::try_generic`] with extra attributes (see [`Kernel::generic_with_attributes`]).
    pub fn try_generic_with_attributes(
        &mut self,
        attributes: &str,
        inputs: &[(&str, &TensorTy, Map)],
        output: (&str, &TensorTy, Map),
        iterators: &[Iter],
        body: impl FnOnce(&mut Body, &[String]) -> Result<String, Error>,
    ) -> Result<String, Error> {
        let mut failure = None;
        let result = self.generic_with_attributes(attributes, inputs, output, iterators, |b, a| {
            body(b, a).unwrap_or_else(|e| {
                failure = Some(e);
                "%out".into()
            })
        });
        failure.map_or(Ok(result), Err)
    }

    /// Sets the value the kernel returns.
    pub fn set_result(&mut self, value: String, ty: TensorTy) {
        self.results = vec![(value, ty)];
    }

    /// Sets the values the kernel returns (an op with several results).
    pub fn set_results(&mut self, results: Vec<(String, TensorTy)>) {
        self.results = results;
    }

    /// Appends `text` (whole lines, indented by the caller) to the body: ops whose results
    /// the caller names itself (`%loop:3 = scf.for ...`).
    pub fn push_lines(&mut self, text: &str) {
        self.code.text.push_str(text);
    }

    /// Where the body ends now, for [`Kernel::take_since`].
    pub fn mark(&self) -> usize {
        self.code.text.len()
    }

    /// Removes and returns the text emitted since `mark`: ops to be placed in a region of an op
    /// built afterwards (their values keep their names, so nothing after the region may use them).
    pub fn take_since(&mut self, mark: usize) -> String {
        self.code.text.split_off(mark)
    }

    /// The kernel as a private function named `name`.
    pub fn function(&self, name: &str) -> String {
        assert!(!self.results.is_empty(), "set_result before function");
        let params: Vec<String> = self.args.iter().enumerate().map(|(i, t)| format!("%a{i}: {t}")).collect();
        let values: Vec<&str> = self.results.iter().map(|(v, _)| v.as_str()).collect();
        let types: Vec<String> = self.results.iter().map(|(_, t)| t.to_string()).collect();
        let signature = if types.len() == 1 { types[0].clone() } else { format!("({})", types.join(", ")) };
        format!(
            "  func.func private @{name}({}) -> {signature} {{\n{}    return {} : {}\n  }}\n",
            params.join(", "),
            self.code.text,
            values.join(", "),
            types.join(", ")
        )
    }
}

/// `arith.constant` of a literal (booleans are spelled `true`/`false`, without a type).
fn constant_rhs(literal: &str, elem: &Elem) -> String {
    if elem.is_bool() {
        format!("arith.constant {literal}")
    } else {
        format!("arith.constant {literal} : {elem}")
    }
}

/// A sequence of ops under construction: a kernel's function body (values `%vN`) or the
/// scalar body of a `linalg.generic` (values `%sN`, so the two never clash).
pub struct Body {
    text: String,
    next: usize,
    prefix: &'static str,
    indent: &'static str,
}

impl Body {
    pub(crate) fn new(prefix: &'static str, indent: &'static str) -> Self {
        Body { text: String::new(), next: 0, prefix, indent }
    }

    /// The ops emitted so far.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Emits `<prefix>N = <rhs>` and returns the value's name.
    pub fn emit(&mut self, rhs: impl fmt::Display) -> String {
        self.emit_results("", rhs)
    }

    /// Emits `<prefix>N:count = <rhs>` (an op with `count` results) and returns `<prefix>N`.
    pub fn emit_n(&mut self, count: usize, rhs: impl fmt::Display) -> String {
        self.emit_results(&format!(":{count}"), rhs)
    }

    /// Emits `<prefix>N<results> = <rhs>`; `<prefix>N`.
    fn emit_results(&mut self, results: &str, rhs: impl fmt::Display) -> String {
        let name = format!("{}{}", self.prefix, self.next);
        self.next += 1;
        let _ = writeln!(self.text, "{}{name}{results} = {rhs}", self.indent);
        name
    }

    pub fn constant(&mut self, literal: &str, elem: &Elem) -> String {
        self.emit(constant_rhs(literal, elem))
    }

    /// `value` of the stored type as its signless twin (unsigned elements only).
    pub fn from_storage(&mut self, value: &str, elem: &Elem) -> String {
        if elem.unsigned {
            self.emit(format_args!("builtin.unrealized_conversion_cast {value} : {} to {elem}", elem.storage()))
        } else {
            value.to_string()
        }
    }

    /// A signless `value` as the stored type (unsigned elements only).
    pub fn to_storage(&mut self, value: &str, elem: &Elem) -> String {
        if elem.unsigned {
            self.emit(format_args!("builtin.unrealized_conversion_cast {value} : {elem} to {}", elem.storage()))
        } else {
            value.to_string()
        }
    }

    /// The current iteration index of loop `dim`.
    pub fn index(&mut self, dim: usize) -> String {
        self.emit(format_args!("linalg.index {dim} : index"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals_parse_back() {
        let f32 = Elem::new("f32");
        assert_eq!(f32.literal(1.0), "1.0e0");
        assert_eq!(f32.literal(-0.25), "-2.5e-1");
        assert_eq!(f32.lowest(), "0xff800000");
        assert_eq!(Elem::new("f16").highest(), "0x7c00");
        assert_eq!(Elem::new("i8").lowest(), "-128");
        assert_eq!(Elem::new("i64").highest(), i64::MAX.to_string());
        assert_eq!(Elem::new("i32").literal(-2.7), "-2");
    }

    #[test]
    fn broadcast_maps_read_index_zero() {
        assert_eq!(Map::broadcast(&[4, 1, 1], &[2, 4, 5, 5]).0, ["d1", "0", "0"]);
        assert_eq!(Map::broadcast(&[1], &[1]).0, ["d0"]);
        assert_eq!(TensorTy::new(vec![], Elem::new("f32")).to_string(), "tensor<f32>");
    }
}

/// Below this many bytes of text to parse, [`KernelCache::parse_all`] leaves them to one
/// thread (about 2 ms of parsing).
const PARALLEL_PARSE_BYTES: usize = 1 << 15;

/// The context shared by the threads of [`KernelCache::parse_all`].
#[derive(Clone, Copy)]
struct SharedContext<'c>(&'c strata_ir::StrataContext);

impl<'c> SharedContext<'c> {
    /// The context (a method, so that closures capture the wrapper, not its field).
    fn get(self) -> &'c strata_ir::StrataContext {
        self.0
    }
}

// Safety: the threads only parse into the context (see `KernelCache::parse_all`): MLIR's
// context is threaded and has every dialect loaded, and the diagnostic sink is locked and
// scoped per thread.
unsafe impl Send for SharedContext<'_> {}
unsafe impl Sync for SharedContext<'_> {}

/// A parsed module handed from the thread that parsed it to the cache.
struct SendModule<'c>(melior::ir::Module<'c>);

// Safety: a module no other thread refers to; moving it moves only the owning pointer.
unsafe impl Send for SendModule<'_> {}

/// Kernels parsed once per distinct text: each is a module holding one function, ready for
/// [`strata_ir::rewrite::inline_call`].
#[derive(Default)]
pub struct KernelCache<'c> {
    modules: std::collections::BTreeMap<String, melior::ir::Module<'c>>,
}

impl<'c> KernelCache<'c> {
    /// The function parsed from `text` (a module with one function), parsing it on first use.
    pub fn function(
        &mut self,
        strata: &'c strata_ir::StrataContext,
        text: &str,
        source: &str,
    ) -> strata_ir::Result<strata_ir::Op> {
        use melior::ir::BlockLike;
        if !self.modules.contains_key(text) {
            self.modules.insert(text.to_owned(), strata.parse(text, source)?);
        }
        let module = &self.modules[text];
        Ok(strata_ir::Op::of(&module.body().first_operation().expect("a kernel module holds its function")))
    }

    /// Parses the `texts` not parsed yet (distinct ones once), on every core: what the
    /// schedules write as text is parsed at about 20 MB/s (MobileNetV2's depthwise kernels, 14
    /// distinct texts of 27-240 KB, 65 ms on one core). A text that does not parse is left out:
    /// [`function`](Self::function) parses it again on first use and reports why.
    ///
    /// Parsing into one context from several threads is what MLIR's context is made for when
    /// threading is on and no dialect loads meanwhile: `StrataContext::new` loads every
    /// dialect up front, the uniquers of types, attributes and locations lock, and each thread's
    /// diagnostics are captured in a scope of its own (`DiagnosticSink::isolated`).
    pub fn parse_all<'t>(
        &mut self,
        strata: &'c strata_ir::StrataContext,
        texts: impl IntoIterator<Item = &'t str>,
        source: &str,
    ) {
        let mut todo: Vec<&str> = texts.into_iter().filter(|t| !self.modules.contains_key(*t)).collect();
        todo.sort_unstable();
        todo.dedup();
        let bytes: usize = todo.iter().map(|t| t.len()).sum();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(todo.len());
        // A thread costs tens of microseconds; a few small kernels parse in less.
        if threads < 2 || bytes < PARALLEL_PARSE_BYTES {
            return;
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let shared = SharedContext(strata);
        let parent = strata_ir::DiagnosticSink::scope();
        let parse = || {
            let strata = shared.get();
            strata.sink().isolated(parent, || {
                let mut parsed = Vec::new();
                while let Some(&text) = todo.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    if let Ok(module) = strata.parse(text, source) {
                        parsed.push((text, SendModule(module)));
                    }
                    // Whatever it reported is reported again by `function`.
                    strata.sink().take();
                }
                parsed
            })
        };
        let parsed: Vec<(&str, SendModule<'c>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (1..threads).map(|_| scope.spawn(parse)).collect();
            let mut parsed = parse();
            for worker in workers {
                // A thread that panicked parsed nothing kept: `function` parses its texts.
                parsed.extend(worker.join().unwrap_or_default());
            }
            parsed
        });
        for (text, module) in parsed {
            self.modules.insert(text.to_owned(), module.0);
        }
    }

    /// Replaces `op` by the function parsed from `text`, inlined with `op`'s operands as its
    /// arguments and its results taking `op`'s uses; a kernel that does not parse is reported
    /// at `op` as an internal error (`what` names the kernel).
    ///
    /// # Safety
    /// `op` must not be used after this call.
    pub unsafe fn replace_op(
        &mut self,
        cx: &mut strata_ir::PassContext<'c>,
        op: melior::ir::operation::OperationRef<'_, '_>,
        text: &str,
        what: &str,
    ) -> Result<(), strata_ir::PassFailed> {
        let op = strata_ir::Op::of(&op);
        unsafe { self.replace_op_with(cx, op, &op.operands(), text, what) }
    }

    /// [`KernelCache::replace_op`] with the function's arguments bound to `operands` instead of
    /// `op`'s own.
    ///
    /// # Safety
    /// `op` must not be used after this call; `operands` are defined before `op`.
    pub unsafe fn replace_op_with(
        &mut self,
        cx: &mut strata_ir::PassContext<'c>,
        op: strata_ir::Op,
        operands: &[strata_ir::Val],
        text: &str,
        what: &str,
    ) -> Result<(), strata_ir::PassFailed> {
        match self.function(cx.strata(), text, what) {
            Ok(function) => {
                unsafe { strata_ir::rewrite::inline_call_with(function, op, operands) };
                Ok(())
            }
            Err(error) => Err(cx.fail(
                op.get(),
                &Error::internal(format!(
                    "the {what} does not parse (a Strata bug; please report it):\n{error}\n{text}"
                )),
            )),
        }
    }

    /// How many distinct kernels were parsed.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }
}
