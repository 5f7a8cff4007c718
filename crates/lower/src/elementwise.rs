//! Elementwise sg ops as one `linalg.generic` each, operands broadcast by their indexing maps
//! (NumPy rules: a size-1 dimension that broadcasts reads index 0), and the scalar arithmetic
//! they share with the other kernels.

use crate::kernel::{Body, Elem, Iter, Kernel, Map, TensorTy};
use strata_dialect_sg::{Arg, Elementwise, Program, ScalarOp};
use strata_ir::Error;

/// A scalar operation on values of one element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    Equal,
    Less,
    Greater,
}

/// `lhs op rhs` on scalars of type `elem` (the comparisons give `i1`).
pub fn binary(b: &mut Body, op: Binary, lhs: &str, rhs: &str, elem: &Elem) -> Result<String, Error> {
    let (float, int) = match op {
        Binary::Add => ("arith.addf", "arith.addi"),
        Binary::Sub => ("arith.subf", "arith.subi"),
        Binary::Mul => ("arith.mulf", "arith.muli"),
        Binary::Div => ("arith.divf", "arith.divsi"),
        Binary::Pow => ("math.powf", "math.ipowi"),
        Binary::Max => ("arith.maximumf", "arith.maxsi"),
        Binary::Min => ("arith.minimumf", "arith.minsi"),
        Binary::Equal => ("arith.cmpf oeq,", "arith.cmpi eq,"),
        Binary::Less => ("arith.cmpf olt,", "arith.cmpi slt,"),
        Binary::Greater => ("arith.cmpf ogt,", "arith.cmpi sgt,"),
    };
    if elem.is_int() && op == Binary::Div {
        return Ok(integer_division(b, lhs, rhs, elem, false));
    }
    if elem.is_float() {
        if op == Binary::Pow && elem.bits() < 32 {
            let (l, r) = (widen(b, lhs, elem), widen(b, rhs, elem));
            let p = b.emit(format_args!("math.powf {l}, {r} : f32"));
            return Ok(narrow(b, &p, elem));
        }
        Ok(b.emit(format_args!("{float} {lhs}, {rhs} : {elem}")))
    } else if elem.is_int() && elem.unsigned && matches!(op, Binary::Max | Binary::Min | Binary::Less | Binary::Greater)
    {
        let unsigned = match op {
            Binary::Max => "arith.maxui",
            Binary::Min => "arith.minui",
            Binary::Less => "arith.cmpi ult,",
            _ => "arith.cmpi ugt,",
        };
        Ok(b.emit(format_args!("{unsigned} {lhs}, {rhs} : {elem}")))
    } else if elem.is_int() || (elem.is_bool() && matches!(op, Binary::Equal)) {
        Ok(b.emit(format_args!("{int} {lhs}, {rhs} : {elem}")))
    } else if elem.is_bool() && matches!(op, Binary::Max | Binary::Add) {
        Ok(b.emit(format_args!("arith.ori {lhs}, {rhs} : i1")))
    } else if elem.is_bool() && matches!(op, Binary::Min | Binary::Mul) {
        Ok(b.emit(format_args!("arith.andi {lhs}, {rhs} : i1")))
    } else {
        Err(elem.unsupported(&format!("{op:?}")))
    }
}

/// `lhs / rhs` (or, with `remainder`, the remainder of truncating division) on integers,
/// defined everywhere: LLVM's division by zero, and signed `MIN / -1`, is undefined and traps on x86
/// (SIGFPE). A zero divisor divides by 1 instead (the result is `lhs`, the remainder 0; the
/// run-time check that `strata_frontend::checks` adds for the node reports the error through
/// the entry point's status), and a signed divisor of -1 negates (wrapping: `MIN / -1` is
/// `MIN`, the remainder 0), as two's-complement arithmetic would.
fn integer_division(b: &mut Body, lhs: &str, rhs: &str, elem: &Elem, remainder: bool) -> String {
    let (signed, unsigned) = if remainder { ("arith.remsi", "arith.remui") } else { ("arith.divsi", "arith.divui") };
    let zero = b.emit(format_args!("arith.constant 0 : {elem}"));
    let one = b.emit(format_args!("arith.constant 1 : {elem}"));
    let is_zero = b.emit(format_args!("arith.cmpi eq, {rhs}, {zero} : {elem}"));
    if elem.unsigned {
        let divisor = b.emit(format_args!("arith.select {is_zero}, {one}, {rhs} : {elem}"));
        return b.emit(format_args!("{unsigned} {lhs}, {divisor} : {elem}"));
    }
    let minus_one = b.emit(format_args!("arith.constant -1 : {elem}"));
    let is_minus_one = b.emit(format_args!("arith.cmpi eq, {rhs}, {minus_one} : {elem}"));
    let replaced = b.emit(format_args!("arith.ori {is_zero}, {is_minus_one} : i1"));
    let divisor = b.emit(format_args!("arith.select {replaced}, {one}, {rhs} : {elem}"));
    let quotient = b.emit(format_args!("{signed} {lhs}, {divisor} : {elem}"));
    if remainder {
        // x rem 1 is 0, as x rem -1.
        quotient
    } else {
        let negated = b.emit(format_args!("arith.subi {zero}, {lhs} : {elem}"));
        b.emit(format_args!("arith.select {is_minus_one}, {negated}, {quotient} : {elem}"))
    }
}

/// f16/bf16 values go through f32 for math functions that have no half-precision lowering.
fn widen(b: &mut Body, x: &str, elem: &Elem) -> String {
    if elem.bits() < 32 {
        b.emit(format_args!("arith.extf {x} : {elem} to f32"))
    } else {
        x.to_string()
    }
}

fn narrow(b: &mut Body, x: &str, elem: &Elem) -> String {
    if elem.bits() < 32 {
        b.emit(format_args!("arith.truncf {x} : f32 to {elem}"))
    } else {
        x.to_string()
    }
}

/// The least argument for which f32 `exp` is a normal float (`exp(-87)` is 1.65e-38): the
/// lowerings that can choose keep `exp`'s argument at or above it (softmax, sigmoid), since
/// each denormal result costs a microcode assist on x86 (masked attention rows: five times
/// the time of the whole softmax).
pub(crate) const EXP_NORMAL_FLOOR: f64 = -87.0;

/// `math.<name>(x)` on a float of type `elem`, through f32 for half precision.
pub fn math(b: &mut Body, name: &str, x: &str, elem: &Elem) -> Result<String, Error> {
    if !elem.is_float() {
        return Err(elem.unsupported(name));
    }
    let wide = widen(b, x, elem);
    let ty = if elem.bits() < 32 { "f32" } else { elem.name.as_str() };
    let y = b.emit(format_args!("math.{name} {wide} : {ty}"));
    Ok(narrow(b, &y, elem))
}

/// A scalar constant of type `elem`.
pub fn lit(b: &mut Body, value: f64, elem: &Elem) -> String {
    b.constant(&elem.literal(value), elem)
}

/// The result of one elementwise op over every kernel argument, broadcast to `out`.
pub fn map(
    k: &mut Kernel,
    args: usize,
    out: &TensorTy,
    f: impl FnOnce(&mut Body, &[String]) -> Result<String, Error>,
) -> Result<String, Error> {
    let init = k.empty(out);
    let names: Vec<String> = (0..args).map(|i| k.arg(i)).collect();
    let types: Vec<TensorTy> = (0..args).map(|i| k.arg_type(i).clone()).collect();
    let inputs: Vec<(&str, &TensorTy, Map)> =
        names.iter().zip(&types).map(|(n, t)| (n.as_str(), t, Map::broadcast(&t.shape, &out.shape))).collect();
    k.try_generic(&inputs, (&init, out, Map::identity(out.rank())), &vec![Iter::Parallel; out.rank()], f)
}

/// The scalar body of elementwise op `op` (its parameters included) on `args`, scalars of type
/// `elem` (the operands'; for `where`, its branches'). One arm per elementwise op: adding an
/// elementwise op to the IRDL file is a compile error here until it has its body.
pub fn scalar(b: &mut Body, op: ScalarOp, args: &[String], elem: &Elem) -> Result<String, Error> {
    let x = args[0].as_str();
    let name = op.kind.name();
    let float_only = || if elem.is_float() { Ok(()) } else { Err(elem.unsupported(name)) };
    let param = |i: usize| op.params.get(i);
    let binary_op = |which: Binary, b: &mut Body| binary(b, which, &args[0], &args[1], elem);
    match op.kind {
        Elementwise::Add => binary_op(Binary::Add, b),
        Elementwise::Sub => binary_op(Binary::Sub, b),
        Elementwise::Mul => binary_op(Binary::Mul, b),
        Elementwise::Div => binary_op(Binary::Div, b),
        Elementwise::Pow => binary_op(Binary::Pow, b),
        Elementwise::Max => binary_op(Binary::Max, b),
        Elementwise::Min => binary_op(Binary::Min, b),
        Elementwise::Equal => binary_op(Binary::Equal, b),
        Elementwise::Less => binary_op(Binary::Less, b),
        Elementwise::Greater => binary_op(Binary::Greater, b),
        Elementwise::Where => Ok(b.emit(format_args!("arith.select {}, {}, {} : {elem}", args[0], args[1], args[2]))),
        Elementwise::Neg if elem.is_float() => Ok(b.emit(format_args!("arith.negf {x} : {elem}"))),
        Elementwise::Neg if elem.is_int() => {
            let zero = lit(b, 0.0, elem);
            Ok(b.emit(format_args!("arith.subi {zero}, {x} : {elem}")))
        }
        Elementwise::Abs if elem.is_float() => Ok(b.emit(format_args!("math.absf {x} : {elem}"))),
        Elementwise::Abs if elem.is_int() && elem.unsigned => Ok(x.to_string()),
        Elementwise::Abs if elem.is_int() => Ok(b.emit(format_args!("math.absi {x} : {elem}"))),
        Elementwise::Neg | Elementwise::Abs => Err(elem.unsupported(name)),
        Elementwise::Relu => {
            let zero = lit(b, 0.0, elem);
            binary(b, Binary::Max, x, &zero, elem)
        }
        Elementwise::Reciprocal => {
            float_only()?;
            let one = lit(b, 1.0, elem);
            Ok(b.emit(format_args!("arith.divf {one}, {x} : {elem}")))
        }
        Elementwise::Ceil | Elementwise::Floor if !elem.is_float() => Ok(x.to_string()),
        Elementwise::Ceil => math(b, "ceil", x, elem),
        Elementwise::Floor => math(b, "floor", x, elem),
        Elementwise::Exp => math(b, "exp", x, elem),
        Elementwise::Sqrt => math(b, "sqrt", x, elem),
        Elementwise::Log => math(b, "log", x, elem),
        Elementwise::Erf => math(b, "erf", x, elem),
        Elementwise::Tanh => math(b, "tanh", x, elem),
        Elementwise::Sigmoid => {
            float_only()?;
            // exp(-x) at -x >= EXP_NORMAL_FLOOR: above x = 87 the result rounds to 1 in every
            // float format either way, and exp never produces a denormal.
            let neg = b.emit(format_args!("arith.negf {x} : {elem}"));
            let floor = lit(b, EXP_NORMAL_FLOOR, elem);
            let neg = b.emit(format_args!("arith.maximumf {neg}, {floor} : {elem}"));
            let e = math(b, "exp", &neg, elem)?;
            let one = lit(b, 1.0, elem);
            let den = b.emit(format_args!("arith.addf {one}, {e} : {elem}"));
            Ok(b.emit(format_args!("arith.divf {one}, {den} : {elem}")))
        }
        Elementwise::Not if elem.is_bool() => {
            let t = b.constant("true", elem);
            Ok(b.emit(format_args!("arith.xori {x}, {t} : i1")))
        }
        Elementwise::Not => Err(elem.unsupported(name)),
        Elementwise::Clip => {
            // Floats clamp even to infinite bounds (a no-op); integers skip an absent bound.
            let mut y = x.to_string();
            for (bound, op) in [(param(0), Binary::Max), (param(1), Binary::Min)] {
                if bound.is_finite() || elem.is_float() {
                    let c = lit(b, bound, elem);
                    y = binary(b, op, &y, &c, elem)?;
                }
            }
            Ok(y)
        }
        Elementwise::LeakyRelu => {
            float_only()?;
            let zero = lit(b, 0.0, elem);
            let alpha = lit(b, param(0), elem);
            let scaled = b.emit(format_args!("arith.mulf {alpha}, {x} : {elem}"));
            let negative = b.emit(format_args!("arith.cmpf olt, {x}, {zero} : {elem}"));
            Ok(b.emit(format_args!("arith.select {negative}, {scaled}, {x} : {elem}")))
        }
        Elementwise::Elu => {
            // In f32 for half precision, rounded once (as ONNX's reference computes it).
            float_only()?;
            let wide = Elem::new(if elem.bits() < 32 { "f32" } else { elem.name.as_str() });
            let w = widen(b, x, elem);
            let zero = lit(b, 0.0, &wide);
            let one = lit(b, 1.0, &wide);
            let alpha = lit(b, param(0), &wide);
            let e = b.emit(format_args!("math.exp {w} : {wide}"));
            let em1 = b.emit(format_args!("arith.subf {e}, {one} : {wide}"));
            let scaled = b.emit(format_args!("arith.mulf {alpha}, {em1} : {wide}"));
            let negative = b.emit(format_args!("arith.cmpf olt, {w}, {zero} : {wide}"));
            let y = b.emit(format_args!("arith.select {negative}, {scaled}, {w} : {wide}"));
            Ok(narrow(b, &y, elem))
        }
        Elementwise::HardSigmoid | Elementwise::HardSwish => {
            float_only()?;
            let swish = op.kind == Elementwise::HardSwish;
            let (alpha, beta) = if swish { (1.0 / 6.0, 0.5) } else { (param(0), param(1)) };
            let a = lit(b, alpha, elem);
            let c = lit(b, beta, elem);
            let ax = b.emit(format_args!("arith.mulf {a}, {x} : {elem}"));
            let t = b.emit(format_args!("arith.addf {ax}, {c} : {elem}"));
            let one = lit(b, 1.0, elem);
            let zero = lit(b, 0.0, elem);
            let lo = b.emit(format_args!("arith.minimumf {t}, {one} : {elem}"));
            let s = b.emit(format_args!("arith.maximumf {lo}, {zero} : {elem}"));
            Ok(if swish { b.emit(format_args!("arith.mulf {x}, {s} : {elem}")) } else { s })
        }
        Elementwise::Sin => math(b, "sin", x, elem),
        Elementwise::Cos => math(b, "cos", x, elem),
        Elementwise::Tan => math(b, "tan", x, elem),
        Elementwise::Asin => math(b, "asin", x, elem),
        Elementwise::Acos => math(b, "acos", x, elem),
        Elementwise::Atan => math(b, "atan", x, elem),
        Elementwise::Sinh => math(b, "sinh", x, elem),
        Elementwise::Cosh => math(b, "cosh", x, elem),
        Elementwise::Asinh => math(b, "asinh", x, elem),
        Elementwise::Acosh => math(b, "acosh", x, elem),
        Elementwise::Atanh => math(b, "atanh", x, elem),
        Elementwise::Round if !elem.is_float() => Ok(x.to_string()),
        Elementwise::Round => math(b, "roundeven", x, elem),
        Elementwise::Sign if elem.is_float() => {
            // NaN and zeros are their own sign.
            let (zero, one, minus) = (lit(b, 0.0, elem), lit(b, 1.0, elem), lit(b, -1.0, elem));
            let pos = b.emit(format_args!("arith.cmpf ogt, {x}, {zero} : {elem}"));
            let neg = b.emit(format_args!("arith.cmpf olt, {x}, {zero} : {elem}"));
            let t = b.emit(format_args!("arith.select {neg}, {minus}, {x} : {elem}"));
            Ok(b.emit(format_args!("arith.select {pos}, {one}, {t} : {elem}")))
        }
        Elementwise::Sign if elem.is_int() => {
            let (zero, one) = (lit(b, 0.0, elem), lit(b, 1.0, elem));
            let (gt, lt) = if elem.unsigned { ("ugt", "ult") } else { ("sgt", "slt") };
            let pos = b.emit(format_args!("arith.cmpi {gt}, {x}, {zero} : {elem}"));
            let neg = b.emit(format_args!("arith.cmpi {lt}, {x}, {zero} : {elem}"));
            let minus = b.constant("-1", elem);
            let t = b.emit(format_args!("arith.select {neg}, {minus}, {zero} : {elem}"));
            Ok(b.emit(format_args!("arith.select {pos}, {one}, {t} : {elem}")))
        }
        Elementwise::Sign => Err(elem.unsupported(name)),
        Elementwise::Softplus
        | Elementwise::Softsign
        | Elementwise::Mish
        | Elementwise::Selu
        | Elementwise::Celu
        | Elementwise::ThresholdedRelu
        | Elementwise::Shrink
        | Elementwise::Swish
        | Elementwise::Affine
        | Elementwise::ScaledTanh => {
            float_only()?;
            // Half precision computes in f32 and rounds once.
            let wide = Elem::new(if elem.bits() < 32 { "f32" } else { elem.name.as_str() });
            let w = widen(b, x, elem);
            let y = activation(b, op, &w, &wide)?;
            Ok(narrow(b, &y, elem))
        }
        Elementwise::RoundBf16 | Elementwise::RoundF16 => {
            float_only()?;
            if elem.name != "f32" {
                return Err(elem.unsupported(name));
            }
            let half = if matches!(op.kind, Elementwise::RoundBf16) { "bf16" } else { "f16" };
            let narrow = b.emit(format_args!("arith.truncf {x} : f32 to {half}"));
            Ok(b.emit(format_args!("arith.extf {narrow} : {half} to f32")))
        }
        Elementwise::IsNan => {
            float_only()?;
            Ok(b.emit(format_args!("arith.cmpf uno, {x}, {x} : {elem}")))
        }
        Elementwise::IsInf => {
            float_only()?;
            let mut found = b.constant("false", &Elem::new("i1"));
            for (flag, value) in [(param(0), f64::NEG_INFINITY), (param(1), f64::INFINITY)] {
                if flag != 0.0 {
                    let inf = lit(b, value, elem);
                    let hit = b.emit(format_args!("arith.cmpf oeq, {x}, {inf} : {elem}"));
                    found = b.emit(format_args!("arith.ori {found}, {hit} : i1"));
                }
            }
            Ok(found)
        }
        Elementwise::BitwiseNot if elem.is_int() => {
            let ones = b.constant("-1", elem);
            Ok(b.emit(format_args!("arith.xori {x}, {ones} : {elem}")))
        }
        Elementwise::BitwiseAnd | Elementwise::BitwiseOr | Elementwise::BitwiseXor if elem.is_int() => {
            let op = match op.kind {
                Elementwise::BitwiseAnd => "arith.andi",
                Elementwise::BitwiseOr => "arith.ori",
                _ => "arith.xori",
            };
            Ok(b.emit(format_args!("{op} {}, {} : {elem}", args[0], args[1])))
        }
        Elementwise::ShiftLeft | Elementwise::ShiftRight if elem.is_int() => {
            // Signed right shifts are arithmetic. A shift by a negative amount or by the
            // width or more (undefined in LLVM) leaves only the sign fill: -1 for a right
            // shift of a negative value, else 0. (An unsigned compare catches both.)
            let right = op.kind == Elementwise::ShiftRight;
            let shift = match (right, elem.unsigned) {
                (false, _) => "arith.shli",
                (true, true) => "arith.shrui",
                (true, false) => "arith.shrsi",
            };
            let (x, by) = (&args[0], &args[1]);
            let shifted = b.emit(format_args!("{shift} {x}, {by} : {elem}"));
            let width = lit(b, elem.bits() as f64, elem);
            let too_far = b.emit(format_args!("arith.cmpi uge, {by}, {width} : {elem}"));
            let zero = lit(b, 0.0, elem);
            let fill = if right && !elem.unsigned {
                let minus = b.constant("-1", elem);
                let negative = b.emit(format_args!("arith.cmpi slt, {x}, {zero} : {elem}"));
                b.emit(format_args!("arith.select {negative}, {minus}, {zero} : {elem}"))
            } else {
                zero
            };
            Ok(b.emit(format_args!("arith.select {too_far}, {fill}, {shifted} : {elem}")))
        }
        Elementwise::BitwiseNot
        | Elementwise::BitwiseAnd
        | Elementwise::BitwiseOr
        | Elementwise::BitwiseXor
        | Elementwise::ShiftLeft
        | Elementwise::ShiftRight => Err(elem.unsupported(name)),
        Elementwise::Mod => modulo(b, &args[0], &args[1], param(0) != 0.0, elem),
        Elementwise::Prelu => {
            let (l, slope) = (&args[0], &args[1]);
            let zero = lit(b, 0.0, elem);
            if elem.is_float() {
                let scaled = b.emit(format_args!("arith.mulf {slope}, {l} : {elem}"));
                let negative = b.emit(format_args!("arith.cmpf olt, {l}, {zero} : {elem}"));
                Ok(b.emit(format_args!("arith.select {negative}, {scaled}, {l} : {elem}")))
            } else if elem.is_int() && !elem.unsigned {
                let scaled = b.emit(format_args!("arith.muli {slope}, {l} : {elem}"));
                let negative = b.emit(format_args!("arith.cmpi slt, {l}, {zero} : {elem}"));
                Ok(b.emit(format_args!("arith.select {negative}, {scaled}, {l} : {elem}")))
            } else if elem.is_int() {
                Ok(l.clone())
            } else {
                Err(elem.unsupported(name))
            }
        }
        Elementwise::LogicalAnd | Elementwise::LogicalOr | Elementwise::LogicalXor if elem.is_bool() => {
            let op = match op.kind {
                Elementwise::LogicalAnd => "arith.andi",
                Elementwise::LogicalOr => "arith.ori",
                _ => "arith.xori",
            };
            Ok(b.emit(format_args!("{op} {}, {} : i1", args[0], args[1])))
        }
        Elementwise::LogicalAnd | Elementwise::LogicalOr | Elementwise::LogicalXor => Err(elem.unsupported(name)),
        Elementwise::GreaterOrEqual | Elementwise::LessOrEqual => {
            let greater = op.kind == Elementwise::GreaterOrEqual;
            let predicate = match (elem.is_float(), elem.unsigned || elem.is_bool(), greater) {
                (true, _, true) => "arith.cmpf oge,",
                (true, _, false) => "arith.cmpf ole,",
                (false, true, true) => "arith.cmpi uge,",
                (false, true, false) => "arith.cmpi ule,",
                (false, false, true) => "arith.cmpi sge,",
                (false, false, false) => "arith.cmpi sle,",
            };
            if !(elem.is_float() || elem.is_int() || elem.is_bool()) {
                return Err(elem.unsupported(name));
            }
            Ok(b.emit(format_args!("{predicate} {}, {} : {elem}", args[0], args[1])))
        }
        Elementwise::Gelu => {
            float_only()?;
            let half = lit(b, 0.5, elem);
            let one = lit(b, 1.0, elem);
            let inner = if param(0) == 0.0 {
                let r = lit(b, std::f64::consts::FRAC_1_SQRT_2, elem);
                let s = b.emit(format_args!("arith.mulf {x}, {r} : {elem}"));
                math(b, "erf", &s, elem)?
            } else {
                let c = lit(b, 0.044715, elem);
                let k = lit(b, (2.0 / std::f64::consts::PI).sqrt(), elem);
                let x2 = b.emit(format_args!("arith.mulf {x}, {x} : {elem}"));
                let x3 = b.emit(format_args!("arith.mulf {x2}, {x} : {elem}"));
                let cx3 = b.emit(format_args!("arith.mulf {c}, {x3} : {elem}"));
                let sum = b.emit(format_args!("arith.addf {x}, {cx3} : {elem}"));
                let arg = b.emit(format_args!("arith.mulf {k}, {sum} : {elem}"));
                math(b, "tanh", &arg, elem)?
            };
            let onep = b.emit(format_args!("arith.addf {one}, {inner} : {elem}"));
            let hx = b.emit(format_args!("arith.mulf {half}, {x} : {elem}"));
            Ok(b.emit(format_args!("arith.mulf {hx}, {onep} : {elem}")))
        }
    }
}

/// The smooth activations, on a float `x` of type `elem` (f32 or f64; half precision is
/// widened by the caller).
fn activation(b: &mut Body, op: ScalarOp, x: &str, elem: &Elem) -> Result<String, Error> {
    let param = |i: usize| op.params.get(i);
    let zero = lit(b, 0.0, elem);
    let one = lit(b, 1.0, elem);
    // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large |x|.
    let softplus = |b: &mut Body, x: &str| {
        let a = b.emit(format_args!("math.absf {x} : {elem}"));
        let na = b.emit(format_args!("arith.negf {a} : {elem}"));
        let e = b.emit(format_args!("math.exp {na} : {elem}"));
        let l = b.emit(format_args!("math.log1p {e} : {elem}"));
        let m = b.emit(format_args!("arith.maximumf {x}, {zero} : {elem}"));
        b.emit(format_args!("arith.addf {m}, {l} : {elem}"))
    };
    Ok(match op.kind {
        Elementwise::Softplus => softplus(b, x),
        Elementwise::Softsign => {
            let a = b.emit(format_args!("math.absf {x} : {elem}"));
            let d = b.emit(format_args!("arith.addf {one}, {a} : {elem}"));
            b.emit(format_args!("arith.divf {x}, {d} : {elem}"))
        }
        Elementwise::Mish => {
            let sp = softplus(b, x);
            let t = b.emit(format_args!("math.tanh {sp} : {elem}"));
            b.emit(format_args!("arith.mulf {x}, {t} : {elem}"))
        }
        Elementwise::Selu => {
            let (alpha, gamma) = (lit(b, param(0), elem), lit(b, param(1), elem));
            let e = b.emit(format_args!("math.exp {x} : {elem}"));
            let em1 = b.emit(format_args!("arith.subf {e}, {one} : {elem}"));
            let neg = b.emit(format_args!("arith.mulf {alpha}, {em1} : {elem}"));
            let positive = b.emit(format_args!("arith.cmpf ogt, {x}, {zero} : {elem}"));
            let y = b.emit(format_args!("arith.select {positive}, {x}, {neg} : {elem}"));
            b.emit(format_args!("arith.mulf {gamma}, {y} : {elem}"))
        }
        Elementwise::Celu => {
            let alpha = lit(b, param(0), elem);
            let q = b.emit(format_args!("arith.divf {x}, {alpha} : {elem}"));
            let e = b.emit(format_args!("math.exp {q} : {elem}"));
            let em1 = b.emit(format_args!("arith.subf {e}, {one} : {elem}"));
            let neg = b.emit(format_args!("arith.mulf {alpha}, {em1} : {elem}"));
            let lo = b.emit(format_args!("arith.minimumf {neg}, {zero} : {elem}"));
            let hi = b.emit(format_args!("arith.maximumf {x}, {zero} : {elem}"));
            b.emit(format_args!("arith.addf {hi}, {lo} : {elem}"))
        }
        Elementwise::ThresholdedRelu => {
            let alpha = lit(b, param(0), elem);
            let above = b.emit(format_args!("arith.cmpf ogt, {x}, {alpha} : {elem}"));
            b.emit(format_args!("arith.select {above}, {x}, {zero} : {elem}"))
        }
        Elementwise::Shrink => {
            let (bias, lambd) = (lit(b, param(0), elem), lit(b, param(1), elem));
            let minus_lambd = lit(b, -param(1), elem);
            let below = b.emit(format_args!("arith.cmpf olt, {x}, {minus_lambd} : {elem}"));
            let above = b.emit(format_args!("arith.cmpf ogt, {x}, {lambd} : {elem}"));
            let plus = b.emit(format_args!("arith.addf {x}, {bias} : {elem}"));
            let minus = b.emit(format_args!("arith.subf {x}, {bias} : {elem}"));
            let t = b.emit(format_args!("arith.select {above}, {minus}, {zero} : {elem}"));
            b.emit(format_args!("arith.select {below}, {plus}, {t} : {elem}"))
        }
        Elementwise::Swish => {
            let alpha = lit(b, param(0), elem);
            let ax = b.emit(format_args!("arith.mulf {alpha}, {x} : {elem}"));
            let n = b.emit(format_args!("arith.negf {ax} : {elem}"));
            let e = b.emit(format_args!("math.exp {n} : {elem}"));
            let d = b.emit(format_args!("arith.addf {one}, {e} : {elem}"));
            b.emit(format_args!("arith.divf {x}, {d} : {elem}"))
        }
        Elementwise::Affine => {
            let (alpha, beta) = (lit(b, param(0), elem), lit(b, param(1), elem));
            let ax = b.emit(format_args!("arith.mulf {alpha}, {x} : {elem}"));
            b.emit(format_args!("arith.addf {ax}, {beta} : {elem}"))
        }
        Elementwise::ScaledTanh => {
            let (alpha, beta) = (lit(b, param(0), elem), lit(b, param(1), elem));
            let bx = b.emit(format_args!("arith.mulf {beta}, {x} : {elem}"));
            let t = b.emit(format_args!("math.tanh {bx} : {elem}"));
            b.emit(format_args!("arith.mulf {alpha}, {t} : {elem}"))
        }
        other => return Err(format!("internal error: '{}' is not a smooth activation", other.name()).into()),
    })
}

/// `lhs mod rhs`: with `fmod` the C remainder (the dividend's sign), else Python's (the
/// divisor's sign; a non-zero remainder whose sign differs from the divisor's moves by it).
fn modulo(b: &mut Body, lhs: &str, rhs: &str, fmod: bool, elem: &Elem) -> Result<String, Error> {
    if elem.is_int() && elem.unsigned {
        return Ok(integer_division(b, lhs, rhs, elem, true));
    }
    let (wide, l, r) = if elem.is_float() {
        (Elem::new(if elem.bits() < 32 { "f32" } else { elem.name.as_str() }), widen(b, lhs, elem), widen(b, rhs, elem))
    } else if elem.is_int() {
        (elem.clone(), lhs.to_string(), rhs.to_string())
    } else {
        return Err(elem.unsupported("mod"));
    };
    let float = wide.is_float();
    let rem = if float {
        b.emit(format_args!("arith.remf {l}, {r} : {wide}"))
    } else {
        integer_division(b, &l, &r, &wide, true)
    };
    let y = if fmod {
        rem
    } else {
        let zero = lit(b, 0.0, &wide);
        let (ne, lt, add) = if float {
            ("arith.cmpf une,", "arith.cmpf olt,", "arith.addf")
        } else {
            ("arith.cmpi ne,", "arith.cmpi slt,", "arith.addi")
        };
        let nonzero = b.emit(format_args!("{ne} {rem}, {zero} : {wide}"));
        let rem_negative = b.emit(format_args!("{lt} {rem}, {zero} : {wide}"));
        let div_negative = b.emit(format_args!("{lt} {r}, {zero} : {wide}"));
        let differ = b.emit(format_args!("arith.xori {rem_negative}, {div_negative} : i1"));
        let adjust = b.emit(format_args!("arith.andi {nonzero}, {differ} : i1"));
        let moved = b.emit(format_args!("{add} {rem}, {r} : {wide}"));
        b.emit(format_args!("arith.select {adjust}, {moved}, {rem} : {wide}"))
    };
    Ok(if float { narrow(b, &y, elem) } else { y })
}

/// The scalar body of a fused program: its steps on `args` (the operands), of type `elem`.
pub fn program(b: &mut Body, program: &Program, args: &[String], elem: &Elem) -> Result<String, Error> {
    let mut results: Vec<String> = Vec::with_capacity(program.steps.len());
    for (op, operands) in &program.steps {
        let values: Vec<String> = operands
            .iter()
            .map(|a| match *a {
                Arg::Input(i) => args[i].clone(),
                Arg::Step(s) => results[s].clone(),
            })
            .collect();
        let value = scalar(b, *op, &values, elem)?;
        results.push(value);
    }
    results.last().cloned().ok_or_else(|| "an empty program".into())
}

/// Converts scalar `x` from `from` to `to` (ONNX Cast: floats round to nearest, float to
/// integer truncates toward zero, anything to bool tests "not zero").
pub fn cast(b: &mut Body, x: &str, from: &Elem, to: &Elem) -> Result<String, Error> {
    cast_saturating(b, x, from, to, true, crate::minifloat::E8M0Rounding::Up)
}

/// [`cast`], with ONNX's `saturate` for float8 targets (out-of-range values become the largest
/// finite value, else infinity or NaN) and `round_mode` for float8 E8M0 targets. Small floats (float8, float4) go through f32
/// ([`crate::minifloat`]); floats to integers narrower than 8 bits truncate toward zero and
/// wrap, as ONNX's reference does.
pub fn cast_saturating(
    b: &mut Body,
    x: &str,
    from: &Elem,
    to: &Elem,
    saturate: bool,
    rounding: crate::minifloat::E8M0Rounding,
) -> Result<String, Error> {
    if from == to {
        return Ok(x.to_string());
    }
    let f32 = Elem::new("f32");
    if let Some(format) = crate::minifloat::format(&from.name) {
        let wide = crate::minifloat::decode(b, x, &format);
        return cast_saturating(b, &wide, &f32, to, saturate, rounding);
    }
    if from.name == crate::minifloat::E8M0 {
        let wide = crate::minifloat::decode_e8m0(b, x);
        return cast_saturating(b, &wide, &f32, to, saturate, rounding);
    }
    if let Some(format) = crate::minifloat::format(&to.name) {
        let wide = cast_saturating(b, x, from, &f32, saturate, rounding)?;
        return Ok(crate::minifloat::encode(b, &wide, &format, saturate));
    }
    if to.name == crate::minifloat::E8M0 {
        let wide = cast_saturating(b, x, from, &f32, saturate, rounding)?;
        return Ok(crate::minifloat::encode_e8m0(b, &wide, saturate, rounding));
    }
    let unsupported = || Err(Error::unsupported(format!("cast from {from} to {to} is not lowered")));
    Ok(match (from.is_float(), from.is_bool(), to.is_float(), to.is_bool()) {
        (true, _, true, _) if from.bits() < to.bits() => b.emit(format_args!("arith.extf {x} : {from} to {to}")),
        (true, _, true, _) if from.bits() > to.bits() => b.emit(format_args!("arith.truncf {x} : {from} to {to}")),
        (true, _, true, _) => {
            // f16 <-> bf16: through f32.
            let wide = b.emit(format_args!("arith.extf {x} : {from} to f32"));
            b.emit(format_args!("arith.truncf {wide} : f32 to {to}"))
        }
        (true, _, _, true) => {
            let zero = lit(b, 0.0, from);
            b.emit(format_args!("arith.cmpf une, {x}, {zero} : {from}"))
        }
        (true, _, false, false) if to.is_int() && to.bits() < 8 => {
            let wide = b.emit(format_args!("arith.fptosi {x} : {from} to i32"));
            b.emit(format_args!("arith.trunci {wide} : i32 to {to}"))
        }
        (true, _, false, false) if to.is_int() => {
            let op = if to.unsigned { "arith.fptoui" } else { "arith.fptosi" };
            b.emit(format_args!("{op} {x} : {from} to {to}"))
        }
        (false, true, true, _) => b.emit(format_args!("arith.uitofp {x} : i1 to {to}")),
        (false, true, false, false) if to.is_int() => b.emit(format_args!("arith.extui {x} : i1 to {to}")),
        (false, false, true, _) if from.is_int() => {
            let op = if from.unsigned { "arith.uitofp" } else { "arith.sitofp" };
            b.emit(format_args!("{op} {x} : {from} to {to}"))
        }
        (false, false, _, true) if from.is_int() => {
            let zero = lit(b, 0.0, from);
            b.emit(format_args!("arith.cmpi ne, {x}, {zero} : {from}"))
        }
        (false, false, false, false) if from.is_int() && to.is_int() => {
            if from.bits() == to.bits() {
                return Ok(x.to_string()); // ui8 <-> i8: the same bits
            }
            let op = if from.bits() > to.bits() {
                "arith.trunci"
            } else if from.unsigned {
                "arith.extui"
            } else {
                "arith.extsi"
            };
            b.emit(format_args!("{op} {x} : {from} to {to}"))
        }
        _ => return unsupported(),
    })
}
