//! Lifetime-free handles on IR objects: the one place outside `context`/`pass_manager` where
//! Strata calls MLIR's C API directly.
//!
//! Rust passes collect ops first and rewrite them afterwards, move ops between blocks, clone
//! and erase them: work that melior's borrow-checked `OperationRef<'c, 'a>` makes awkward
//! (mutation needs `&mut`, and a reference cannot outlive the walk that found it). An [`Op`],
//! [`Val`] or [`Blk`] is instead a copyable non-owning handle, like MLIR's C++
//! `Operation *` and `Value`.
//!
//! **Contract.** A handle is valid while the IR it points into lives: handles are made inside
//! a pass (or a builder) from the IR it was given and are never stored beyond it. The only
//! operation that invalidates handles, [`Op::erase`], is `unsafe`. A detached op (from
//! [`Op::clone_detached`]) is owned by the caller until a block takes it
//! ([`Blk::append`], [`Blk::insert_before`]) or it is erased.
//!
//! Everything else is the melior API: [`Op::get`], [`Val::get`] and [`Blk::get`] give the
//! melior reference to use it (builders, attribute wrappers, printing).

use melior::ir::attribute::{IntegerAttribute, StringAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use melior::ir::{Attribute, AttributeLike, BlockRef, Location, Type, TypeLike, Value, ValueLike};
use melior::StringRef;
use mlir_sys as sys;

/// A handle on an operation.
#[derive(Clone, Copy, Debug)]
pub struct Op(sys::MlirOperation);

/// A handle on an SSA value (an op result or a block argument).
#[derive(Clone, Copy, Debug)]
pub struct Val(sys::MlirValue);

/// A handle on a block.
#[derive(Clone, Copy, Debug)]
pub struct Blk(sys::MlirBlock);

impl PartialEq for Op {
    fn eq(&self, other: &Self) -> bool {
        self.0.ptr == other.0.ptr
    }
}
impl Eq for Op {}
impl PartialEq for Val {
    fn eq(&self, other: &Self) -> bool {
        self.0.ptr == other.0.ptr
    }
}
impl Eq for Val {}
impl PartialEq for Blk {
    fn eq(&self, other: &Self) -> bool {
        self.0.ptr == other.0.ptr
    }
}
impl Eq for Blk {}

/// The locations a fused location fuses, read in one call (melior's `fused_location(i)` copies
/// them all for each index: quadratic over a fused kernel of thousands of nodes).
pub fn fused_locations<'c>(location: Location<'c>) -> Vec<Location<'c>> {
    let count = location.fused_num_locations();
    let mut raw = vec![sys::MlirLocation { ptr: std::ptr::null() }; count];
    // Safety: `raw` has room for the `count` locations the C API writes.
    unsafe { sys::mlirLocationFusedGetLocations(location.to_raw(), raw.as_mut_ptr()) };
    raw.into_iter().map(|r| unsafe { Location::from_raw(r) }).collect()
}

fn op_option(raw: sys::MlirOperation) -> Option<Op> {
    (!raw.ptr.is_null()).then_some(Op(raw))
}

fn block_option(raw: sys::MlirBlock) -> Option<Blk> {
    (!raw.ptr.is_null()).then_some(Blk(raw))
}

impl Op {
    /// The handle of a melior operation (reference or owned).
    pub fn of<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Op {
        Op(op.to_raw())
    }

    /// The melior reference, for builders, attribute wrappers and printing.
    pub fn get<'c, 'a>(self) -> OperationRef<'c, 'a> {
        // Safety: the handle is valid (module contract); the lifetimes are the caller's to keep.
        unsafe { OperationRef::from_raw(self.0) }
    }

    /// The C API handle, for code that hands the op to another C API (inkwell, a pass manager).
    pub fn raw(self) -> sys::MlirOperation {
        self.0
    }

    /// The op's full name (`sg.relu`).
    pub fn name(self) -> String {
        crate::ods::op_name(self.get())
    }

    /// Whether the op is named `name`.
    pub fn is(self, name: &str) -> bool {
        self.get().name().as_string_ref().as_str().is_ok_and(|n| n == name)
    }

    pub fn operand_count(self) -> usize {
        unsafe { sys::mlirOperationGetNumOperands(self.0) as usize }
    }

    /// Operand `index` (panics when out of range, like indexing a slice).
    pub fn operand(self, index: usize) -> Val {
        assert!(index < self.operand_count(), "operand {index} of a {}-operand op", self.operand_count());
        Val(unsafe { sys::mlirOperationGetOperand(self.0, index as isize) })
    }

    pub fn operands(self) -> Vec<Val> {
        (0..self.operand_count()).map(|i| self.operand(i)).collect()
    }

    /// Makes operand `index` read `value`.
    pub fn set_operand(self, index: usize, value: Val) {
        assert!(index < self.operand_count(), "operand {index} of a {}-operand op", self.operand_count());
        unsafe { sys::mlirOperationSetOperand(self.0, index as isize, value.0) }
    }

    pub fn result_count(self) -> usize {
        unsafe { sys::mlirOperationGetNumResults(self.0) as usize }
    }

    /// Result `index` (panics when out of range).
    pub fn result(self, index: usize) -> Val {
        assert!(index < self.result_count(), "result {index} of a {}-result op", self.result_count());
        Val(unsafe { sys::mlirOperationGetResult(self.0, index as isize) })
    }

    pub fn results(self) -> Vec<Val> {
        (0..self.result_count()).map(|i| self.result(i)).collect()
    }

    pub fn region_count(self) -> usize {
        unsafe { sys::mlirOperationGetNumRegions(self.0) as usize }
    }

    /// The first block of region `index`, if the op has that region and it has a block.
    pub fn body(self, index: usize) -> Option<Blk> {
        if index >= self.region_count() {
            return None;
        }
        block_option(unsafe { sys::mlirRegionGetFirstBlock(sys::mlirOperationGetRegion(self.0, index as isize)) })
    }

    /// The op that contains this one.
    pub fn parent(self) -> Option<Op> {
        op_option(unsafe { sys::mlirOperationGetParentOperation(self.0) })
    }

    /// The nearest enclosing op named `name`.
    pub fn ancestor(self, name: &str) -> Option<Op> {
        let mut current = self.parent();
        while let Some(op) = current {
            if op.is(name) {
                return Some(op);
            }
            current = op.parent();
        }
        None
    }

    /// The op of `block` that is this one or holds it, at any depth (`None` when neither).
    pub fn ancestor_in(self, block: Blk) -> Option<Op> {
        let mut op = self;
        loop {
            if op.block() == Some(block) {
                return Some(op);
            }
            op = op.parent()?;
        }
    }

    /// Whether this op is nested, at any depth, inside `ancestor`.
    pub fn is_inside(self, ancestor: Op) -> bool {
        let mut current = self.parent();
        while let Some(op) = current {
            if op == ancestor {
                return true;
            }
            current = op.parent();
        }
        false
    }

    /// The block holding the op (`None` for a detached op).
    pub fn block(self) -> Option<Blk> {
        block_option(unsafe { sys::mlirOperationGetBlock(self.0) })
    }

    /// The next op in the same block.
    pub fn next(self) -> Option<Op> {
        op_option(unsafe { sys::mlirOperationGetNextInBlock(self.0) })
    }

    /// Whether any result of the op is used.
    pub fn has_uses(self) -> bool {
        self.results().into_iter().any(Val::has_uses)
    }

    /// Moves the op (from wherever it is) right before `anchor`.
    pub fn move_before(self, anchor: Op) {
        unsafe { sys::mlirOperationMoveBefore(self.0, anchor.0) }
    }

    /// Takes the op out of its block; the caller owns it until a block takes it again.
    pub fn detach(self) {
        unsafe { sys::mlirOperationRemoveFromParent(self.0) }
    }

    /// A deep copy of the op, detached (see the module contract).
    pub fn clone_detached(self) -> Op {
        Op(unsafe { sys::mlirOperationClone(self.0) })
    }

    /// A deep copy of the op as an owned melior operation (freed when dropped).
    pub fn clone_owned<'c>(self) -> melior::ir::Operation<'c> {
        // Safety: the clone is a new, detached op that the returned value owns.
        unsafe { melior::ir::Operation::from_raw(sys::mlirOperationClone(self.0)) }
    }

    /// Attribute `name` (inherent or discardable).
    pub fn attribute<'c>(self, name: &str) -> Option<Attribute<'c>> {
        let raw = unsafe { sys::mlirOperationGetAttributeByName(self.0, StringRef::new(name).to_raw()) };
        (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
    }

    /// The indexing maps of a linalg structured op (named or generic: named ops compute
    /// theirs), one affine map per operand; `None` for any other op.
    pub fn indexing_maps<'c>(self) -> Option<Attribute<'c>> {
        if !self.name().starts_with("linalg.") {
            return None;
        }
        // Safety: the C API answers null for an op that is not a linalg structured op.
        let raw = unsafe { sys::mlirLinalgGetIndexingMapsAttribute(self.0) };
        (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
    }

    /// Attribute `name` as an integer, if it is one.
    pub fn int_attribute(self, name: &str) -> Option<i64> {
        // Tested first: a failed `try_from` prints the attribute into its error (a float or a
        // vector constant, each time a trip count is asked of one).
        let attribute = self.attribute(name).filter(|a| a.is_integer())?;
        IntegerAttribute::try_from(attribute).ok().map(|a| a.value())
    }

    /// The op's symbol name (`sym_name`), if it has one.
    pub fn symbol_name(self) -> Option<String> {
        StringAttribute::try_from(self.attribute("sym_name")?).ok().map(|s| s.value().to_owned())
    }

    /// Sets attribute `name` (inherent or discardable) to `value`.
    pub fn set_attribute(self, name: &str, value: Attribute<'_>) {
        unsafe { sys::mlirOperationSetAttributeByName(self.0, StringRef::new(name).to_raw(), value.to_raw()) }
    }

    /// Removes attribute `name`; whether it was there.
    pub fn remove_attribute(self, name: &str) -> bool {
        unsafe { sys::mlirOperationRemoveAttributeByName(self.0, StringRef::new(name).to_raw()) }
    }

    pub fn location<'c>(self) -> Location<'c> {
        unsafe { Location::from_raw(sys::mlirOperationGetLocation(self.0)) }
    }

    /// Gives this op and every op nested in it `location`.
    pub fn set_location_deep(self, location: Location<'_>) {
        self.get().walk(WalkOrder::PreOrder, |nested| {
            unsafe { sys::mlirOperationSetLocation(nested.to_raw(), location.to_raw()) };
            WalkResult::Advance
        });
    }

    /// Every op nested in this one (pre-order, itself included) for which `select` holds.
    /// Collect first, then rewrite: a walk must not see ops erased under it.
    pub fn collect(self, mut select: impl FnMut(Op) -> bool) -> Vec<Op> {
        let mut found = Vec::new();
        self.get().walk(WalkOrder::PreOrder, |op| {
            let op = Op(op.to_raw());
            if select(op) {
                found.push(op);
            }
            WalkResult::Advance
        });
        found
    }

    /// Frees the op (detaching it first if a block holds it).
    ///
    /// # Safety
    /// Every handle or melior reference to the op, or to anything nested in it, dangles
    /// afterwards and must not be used.
    pub unsafe fn erase(self) {
        unsafe { sys::mlirOperationDestroy(self.0) }
    }
}

impl Val {
    /// The handle of a raw C API value.
    pub(crate) fn from_raw(raw: sys::MlirValue) -> Val {
        Val(raw)
    }

    /// The handle of a melior value (result, block argument or plain value).
    pub fn of<'c: 'a, 'a>(value: impl ValueLike<'c>) -> Val {
        Val(value.to_raw())
    }

    /// The melior value, for builders.
    pub fn get<'c, 'a>(self) -> Value<'c, 'a> {
        // Safety: the handle is valid (module contract).
        unsafe { Value::from_raw(self.0) }
    }

    pub fn raw(self) -> sys::MlirValue {
        self.0
    }

    pub fn r#type<'c>(self) -> Type<'c> {
        unsafe { Type::from_raw(sys::mlirValueGetType(self.0)) }
    }

    /// The op that defines the value; `None` for a block argument.
    pub fn owner(self) -> Option<Op> {
        unsafe { sys::mlirValueIsAOpResult(self.0) }.then(|| Op(unsafe { sys::mlirOpResultGetOwner(self.0) }))
    }

    /// The block whose argument this is; `None` for an op result.
    pub fn owner_block(self) -> Option<Blk> {
        unsafe { sys::mlirValueIsABlockArgument(self.0) }
            .then(|| block_option(unsafe { sys::mlirBlockArgumentGetOwner(self.0) }))
            .flatten()
    }

    /// The argument's position in its block; `None` for an op result.
    pub fn argument_number(self) -> Option<usize> {
        unsafe { sys::mlirValueIsABlockArgument(self.0) }
            .then(|| unsafe { sys::mlirBlockArgumentGetArgNumber(self.0) } as usize)
    }

    pub fn has_uses(self) -> bool {
        !unsafe { sys::mlirValueGetFirstUse(self.0) }.ptr.is_null()
    }

    /// The value of an integer or `index` `arith.constant`, if this is one's result.
    pub fn constant_int(self) -> Option<i64> {
        self.owner().filter(|op| op.is("arith.constant"))?.int_attribute("value")
    }

    /// The op owning each use, one entry per use (an op using the value twice appears twice).
    pub fn users(self) -> Vec<Op> {
        self.uses().into_iter().map(|(owner, _)| owner).collect()
    }

    /// Each use as (owner, operand index), in use-list order: an op using the value twice
    /// appears twice, once per operand.
    pub fn uses(self) -> Vec<(Op, usize)> {
        let mut uses = Vec::new();
        unsafe {
            let mut using = sys::mlirValueGetFirstUse(self.0);
            while !using.ptr.is_null() {
                uses.push((Op(sys::mlirOpOperandGetOwner(using)), sys::mlirOpOperandGetOperandNumber(using) as usize));
                using = sys::mlirOpOperandGetNextUse(using);
            }
        }
        uses
    }

    /// Makes every use of this value use `with` instead.
    pub fn replace_all_uses_with(self, with: Val) {
        unsafe { sys::mlirValueReplaceAllUsesOfWith(self.0, with.0) }
    }

    /// Makes the uses of this value by ops nested in `root` (at any depth) use `with` instead.
    pub fn replace_uses_inside(self, root: Op, with: Val) {
        for (user, index) in self.uses() {
            if user.is_inside(root) {
                user.set_operand(index, with);
            }
        }
    }
}

impl<'c, 'a> From<Value<'c, 'a>> for Val {
    fn from(value: Value<'c, 'a>) -> Val {
        Val(value.to_raw())
    }
}

impl<'c, 'a> From<melior::ir::operation::OperationResult<'c, 'a>> for Val {
    fn from(value: melior::ir::operation::OperationResult<'c, 'a>) -> Val {
        Val(value.to_raw())
    }
}

impl<'c, 'a> From<melior::ir::block::BlockArgument<'c, 'a>> for Val {
    fn from(value: melior::ir::block::BlockArgument<'c, 'a>) -> Val {
        Val(value.to_raw())
    }
}

impl Blk {
    /// The handle of a raw C API block.
    pub(crate) fn from_raw(raw: sys::MlirBlock) -> Blk {
        Blk(raw)
    }

    /// The handle of a melior block.
    pub fn of<'c: 'a, 'a>(block: &impl BlockLike<'c, 'a>) -> Blk {
        Blk(block.to_raw())
    }

    /// The melior reference.
    pub fn get<'c, 'a>(self) -> BlockRef<'c, 'a> {
        unsafe { BlockRef::from_raw(self.0) }
    }

    /// The op whose region holds the block (`None` for a detached block).
    pub fn parent(self) -> Option<Op> {
        op_option(unsafe { sys::mlirBlockGetParentOperation(self.0) })
    }

    pub fn first(self) -> Option<Op> {
        op_option(unsafe { sys::mlirBlockGetFirstOperation(self.0) })
    }

    /// The block's terminator, if its last op is one.
    pub fn terminator(self) -> Option<Op> {
        op_option(unsafe { sys::mlirBlockGetTerminator(self.0) })
    }

    /// The block's ops, in order.
    pub fn ops(self) -> Vec<Op> {
        std::iter::successors(self.first(), |op| op.next()).collect()
    }

    /// The block's ops before its terminator, in order.
    pub fn ops_before_terminator(self) -> Vec<Op> {
        let terminator = self.terminator();
        std::iter::successors(self.first(), |op| op.next()).take_while(|&op| Some(op) != terminator).collect()
    }

    pub fn argument_count(self) -> usize {
        unsafe { sys::mlirBlockGetNumArguments(self.0) as usize }
    }

    /// Argument `index` (panics when out of range).
    pub fn argument(self, index: usize) -> Val {
        assert!(index < self.argument_count(), "argument {index} of a {}-argument block", self.argument_count());
        Val(unsafe { sys::mlirBlockGetArgument(self.0, index as isize) })
    }

    /// Appends a detached op; the block owns it from then on.
    pub fn append(self, op: Op) {
        unsafe { sys::mlirBlockAppendOwnedOperation(self.0, op.0) }
    }

    /// Inserts a detached op before `anchor` (an op of this block); the block owns it.
    pub fn insert_before(self, anchor: Op, op: Op) {
        unsafe { sys::mlirBlockInsertOwnedOperationBefore(self.0, anchor.0, op.0) }
    }
}

/// The elements of an integer elements attribute (`dense<...>`, splats expanded), if it is one
/// of 1-, 8-, 16-, 32- or 64-bit elements (`i1` as 0 and 1). Each element is read at its own
/// width: the 64-bit reader misreads narrower storage (`i32`, bit-packed `i1`).
pub fn dense_ints(attribute: Attribute<'_>) -> Option<Vec<i64>> {
    let raw = attribute.to_raw();
    unsafe {
        if !sys::mlirAttributeIsADenseIntElements(raw) {
            return None;
        }
        let count = sys::mlirElementsAttrGetNumElements(raw) as isize;
        let element = sys::mlirShapedTypeGetElementType(sys::mlirAttributeGetType(raw));
        // The readers index a splat like any other attribute.
        let read: unsafe fn(sys::MlirAttribute, isize) -> i64 = match sys::mlirIntegerTypeGetWidth(element) {
            1 => |raw, i| i64::from(sys::mlirDenseElementsAttrGetBoolValue(raw, i)),
            8 => |raw, i| i64::from(sys::mlirDenseElementsAttrGetInt8Value(raw, i)),
            16 => |raw, i| i64::from(sys::mlirDenseElementsAttrGetInt16Value(raw, i)),
            32 => |raw, i| i64::from(sys::mlirDenseElementsAttrGetInt32Value(raw, i)),
            64 => |raw, i| sys::mlirDenseElementsAttrGetInt64Value(raw, i),
            _ => return None,
        };
        Some((0..count).map(|i| read(raw, i)).collect())
    }
}

/// The elements of a `array<i32: ...>` attribute, if it is one.
pub fn i32_array(attribute: Attribute<'_>) -> Option<Vec<i32>> {
    let raw = attribute.to_raw();
    unsafe {
        if !sys::mlirAttributeIsADenseI32Array(raw) {
            return None;
        }
        Some((0..sys::mlirDenseArrayGetNumElements(raw)).map(|i| sys::mlirDenseI32ArrayGetElement(raw, i)).collect())
    }
}

/// The root name of a symbol reference attribute (`@outer::@inner` → `outer`), if it is one.
pub fn symbol_root(attribute: Attribute<'_>) -> Option<String> {
    let raw = attribute.to_raw();
    unsafe {
        if !sys::mlirAttributeIsASymbolRef(raw) {
            return None;
        }
        StringRef::from_raw(sys::mlirSymbolRefAttrGetRootReference(raw)).as_str().ok().map(str::to_owned)
    }
}

/// One result of an affine map, as [`map_results`] classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapResult {
    /// A plain loop dimension.
    Dim(usize),
    /// The constant 0 (a unit dimension read at index 0: a broadcast).
    Zero,
    /// Anything else (a sum, a product, another constant).
    Other,
}

/// For an array of affine maps (a linalg op's `indexing_maps`): for each map, the loop
/// dimension each of its results reads (`None` where a result is not a plain dimension).
pub fn map_dims(attribute: Attribute<'_>) -> Option<Vec<Vec<Option<usize>>>> {
    Some(
        map_results(attribute)?
            .into_iter()
            .map(|map| map.into_iter().map(|r| if let MapResult::Dim(d) = r { Some(d) } else { None }).collect())
            .collect(),
    )
}

/// For an array of affine maps (a linalg op's `indexing_maps`): each map's results classified.
pub fn map_results(attribute: Attribute<'_>) -> Option<Vec<Vec<MapResult>>> {
    let classify = |term: MapTerm| match term {
        MapTerm::Dim(d, 0) => MapResult::Dim(d),
        MapTerm::Const(0) => MapResult::Zero,
        _ => MapResult::Other,
    };
    Some(map_terms(attribute)?.into_iter().map(|map| map.into_iter().map(classify).collect()).collect())
}

/// One result of an affine map, as [`map_terms`] reads it: a loop dimension plus a constant,
/// a constant alone, or anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapTerm {
    /// `d + c` (`c` may be 0).
    Dim(usize, i64),
    /// A constant.
    Const(i64),
    /// Anything else (a product, a sum of dimensions, a symbol).
    Other,
}

/// For an array of affine maps (a linalg op's `indexing_maps`): each map's results as
/// [`MapTerm`]s (a sliced view read through its offsets: `d1 + 64`).
pub fn map_terms(attribute: Attribute<'_>) -> Option<Vec<Vec<MapTerm>>> {
    let raw = attribute.to_raw();
    // Safety: every accessor is called on an attribute, map or expression of the kind it
    // checks first.
    unsafe {
        let constant = |expr: sys::MlirAffineExpr| {
            sys::mlirAffineExprIsAConstant(expr).then(|| sys::mlirAffineConstantExprGetValue(expr))
        };
        let dim = |expr: sys::MlirAffineExpr| {
            sys::mlirAffineExprIsADim(expr).then(|| sys::mlirAffineDimExprGetPosition(expr) as usize)
        };
        let term = |expr: sys::MlirAffineExpr| {
            if let Some(d) = dim(expr) {
                return MapTerm::Dim(d, 0);
            }
            if let Some(c) = constant(expr) {
                return MapTerm::Const(c);
            }
            if sys::mlirAffineExprIsAAdd(expr) {
                let (lhs, rhs) = (sys::mlirAffineBinaryOpExprGetLHS(expr), sys::mlirAffineBinaryOpExprGetRHS(expr));
                match (dim(lhs), constant(rhs), dim(rhs), constant(lhs)) {
                    (Some(d), Some(c), ..) | (.., Some(d), Some(c)) => return MapTerm::Dim(d, c),
                    _ => {}
                }
            }
            MapTerm::Other
        };
        if !sys::mlirAttributeIsAArray(raw) {
            return None;
        }
        (0..sys::mlirArrayAttrGetNumElements(raw))
            .map(|i| {
                let element = sys::mlirArrayAttrGetElement(raw, i);
                if !sys::mlirAttributeIsAAffineMap(element) {
                    return None;
                }
                let map = sys::mlirAffineMapAttrGetValue(element);
                Some(
                    (0..sys::mlirAffineMapGetNumResults(map))
                        .map(|r| term(sys::mlirAffineMapGetResult(map, r)))
                        .collect(),
                )
            })
            .collect()
    }
}

/// The affine map of an affine map attribute (`affine.apply`'s `map`), if it is one.
pub fn affine_map<'c>(attribute: Attribute<'c>) -> Option<melior::ir::AffineMap<'c>> {
    let raw = attribute.to_raw();
    // Safety: the value is read only from an attribute checked to be an affine map.
    unsafe {
        sys::mlirAttributeIsAAffineMap(raw)
            .then(|| melior::ir::AffineMap::from_raw(sys::mlirAffineMapAttrGetValue(raw)))
    }
}

/// Whether a memref layout attribute is the identity affine map.
pub fn is_identity_layout(layout: Attribute<'_>) -> bool {
    let raw = layout.to_raw();
    unsafe { sys::mlirAttributeIsAAffineMap(raw) && sys::mlirAffineMapIsIdentity(sys::mlirAffineMapAttrGetValue(raw)) }
}

/// The bytes a buffer of static ranked tensor type `ty` takes (elements narrower than a byte,
/// `i1`, a byte each); `None` for other types, dynamic shapes, or elements without a width.
pub fn tensor_bytes(ty: Type<'_>) -> Option<u64> {
    static_bytes(&crate::types::ranked_tensor(ty)?)
}

/// [`tensor_bytes`] for a static memref type (whatever its layout: the elements it holds).
pub fn memref_bytes(ty: Type<'_>) -> Option<u64> {
    static_bytes(&crate::types::memref(ty)?)
}

fn static_bytes<'c>(shaped: &impl melior::ir::r#type::ShapedTypeLike<'c>) -> Option<u64> {
    use melior::ir::r#type::DimSize;
    let mut elements = 1u64;
    for i in 0..shaped.rank() {
        match shaped.dim_size(i).ok()? {
            DimSize::Static(n) => elements *= n,
            _ => return None,
        }
    }
    Some(elements * bit_width(shaped.element())?.div_ceil(8))
}

/// The bit width of an integer or float type (`None` for other types).
pub fn bit_width(ty: Type<'_>) -> Option<u64> {
    let raw = ty.to_raw();
    unsafe {
        if sys::mlirTypeIsAInteger(raw) {
            Some(sys::mlirIntegerTypeGetWidth(raw) as u64)
        } else if sys::mlirTypeIsAFloat(raw) {
            Some(sys::mlirFloatTypeGetWidth(raw) as u64)
        } else {
            None
        }
    }
}
