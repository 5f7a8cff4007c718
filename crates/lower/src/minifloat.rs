//! Casts to and from the small float formats (float8 E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ and
//! float4 E2M1FN) as integer arithmetic in a kernel body. LLVM has no such types (MLIR's LLVM
//! lowering stores them as `i8` / `i4`), and MLIR 22 expands only f4E2M1FN and f8E8M0FNU, so
//! every format is handled here the same way:
//!
//! - **decode** (format to f32, exact): sign, exponent and mantissa fields; a normal number's
//!   f32 bits are assembled directly, a subnormal is `mantissa * 2^(1 - bias - M)`; NaN and
//!   infinity codes per format.
//! - **encode** (f32 to format): round to nearest even at the format's precision with
//!   `roundeven(|x| * 2^(M - e))`, where `e` is |x|'s exponent clamped to the format's
//!   smallest normal exponent (so subnormals round at their fixed spacing); the code is then
//!   `((e + bias - 1) << M) + q`, which also carries a mantissa overflow into the exponent.
//!   Codes past the largest finite value saturate (ONNX `saturate=1`, and always for float4)
//!   or become the format's infinity / NaN. Matches ONNX's reference (ml_dtypes), including
//!   FNUZ's unsigned zero and float4's NaN (negative zero).
//!
//! float8 E8M0 (`f8E8M0FNU`: an unsigned power of two, 2^(code - 127), NaN at 0xFF) has no
//! sign or mantissa and its own rounding modes ([`E8M0Rounding`]): [`decode_e8m0`] and
//! [`encode_e8m0`], following ONNX's `to_float8e8m0`.

use crate::kernel::Body;

/// A small float format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Format {
    /// The MLIR type name.
    pub name: &'static str,
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    pub bias: i32,
    /// The largest finite magnitude code.
    pub max_code: u32,
    /// What a magnitude past `max_code` becomes without saturation (an infinity or NaN code,
    /// before the sign is added); `None` where the format always saturates.
    pub overflow_code: Option<u32>,
    /// The code of NaN (sign added unless `unsigned_zero`); `None`: NaN encodes as -0.
    pub nan_code: Option<u32>,
    /// FNUZ formats: one zero, and 0x80 (negative zero's place) is NaN.
    pub unsigned_zero: bool,
    /// IEEE-style infinities (all-ones exponent, zero mantissa).
    pub has_infinity: bool,
}

impl Format {
    pub fn bits(&self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }
}

pub const FORMATS: [Format; 5] = [
    Format {
        name: "f8E4M3FN",
        exponent_bits: 4,
        mantissa_bits: 3,
        bias: 7,
        max_code: 0x7E,
        overflow_code: Some(0x7F),
        nan_code: Some(0x7F),
        unsigned_zero: false,
        has_infinity: false,
    },
    Format {
        name: "f8E4M3FNUZ",
        exponent_bits: 4,
        mantissa_bits: 3,
        bias: 8,
        max_code: 0x7F,
        overflow_code: Some(0x80),
        nan_code: Some(0x80),
        unsigned_zero: true,
        has_infinity: false,
    },
    Format {
        name: "f8E5M2",
        exponent_bits: 5,
        mantissa_bits: 2,
        bias: 15,
        max_code: 0x7B,
        overflow_code: Some(0x7C),
        nan_code: Some(0x7E),
        unsigned_zero: false,
        has_infinity: true,
    },
    Format {
        name: "f8E5M2FNUZ",
        exponent_bits: 5,
        mantissa_bits: 2,
        bias: 16,
        max_code: 0x7F,
        overflow_code: Some(0x80),
        nan_code: Some(0x80),
        unsigned_zero: true,
        has_infinity: false,
    },
    Format {
        name: "f4E2M1FN",
        exponent_bits: 2,
        mantissa_bits: 1,
        bias: 1,
        max_code: 0x7,
        overflow_code: None,
        nan_code: None,
        unsigned_zero: false,
        has_infinity: false,
    },
];

/// The format of an MLIR element type name, if it is one of the small floats.
pub fn format(name: &str) -> Option<Format> {
    FORMATS.iter().copied().find(|f| f.name == name)
}

/// The MLIR name of float8 E8M0.
pub const E8M0: &str = "f8E8M0FNU";

/// How a value between two powers of two becomes float8 E8M0 (ONNX Cast's `round_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum E8M0Rounding {
    /// Away from zero: any fraction takes the next power (the default).
    Up,
    /// Toward zero: the exponent as it is.
    Down,
    /// To the nearer power, ties up (ONNX's guard/round/sticky rule).
    Nearest,
}

impl E8M0Rounding {
    /// From the `round_mode` attribute's code (0 up, 1 down, 2 nearest).
    pub fn from_code(code: i64) -> Option<E8M0Rounding> {
        match code {
            0 => Some(E8M0Rounding::Up),
            1 => Some(E8M0Rounding::Down),
            2 => Some(E8M0Rounding::Nearest),
            _ => None,
        }
    }
}

/// `x` (f8E8M0FNU) as f32: 2^(code - 127); code 0 is the f32 subnormal 2^-127; 0xFF is NaN.
pub fn decode_e8m0(b: &mut Body, x: &str) -> String {
    let raw = b.emit(format_args!("arith.bitcast {x} : {E8M0} to i8"));
    let code = b.emit(format_args!("arith.extui {raw} : i8 to i32"));
    let c23 = int(b, 23, "i32");
    let normal_bits = b.emit(format_args!("arith.shli {code}, {c23} : i32"));
    let zero = int(b, 0, "i32");
    let is_zero = b.emit(format_args!("arith.cmpi eq, {code}, {zero} : i32"));
    let smallest = int(b, 0x0040_0000, "i32");
    let bits = b.emit(format_args!("arith.select {is_zero}, {smallest}, {normal_bits} : i32"));
    let value = b.emit(format_args!("arith.bitcast {bits} : i32 to f32"));
    let all_ones = int(b, 0xFF, "i32");
    let is_nan = b.emit(format_args!("arith.cmpi eq, {code}, {all_ones} : i32"));
    let nan = b.emit("arith.constant 0x7FC00000 : f32");
    b.emit(format_args!("arith.select {is_nan}, {nan}, {value} : f32"))
}

/// `x` (f32) as f8E8M0FNU: the f32 exponent field (the sign is dropped), plus one when
/// `rounding` says the fraction goes up; NaN and infinities become 0xFF. With `saturate`, the
/// largest exponent (0xFE) never rounds up into NaN.
pub fn encode_e8m0(b: &mut Body, x: &str, saturate: bool, rounding: E8M0Rounding) -> String {
    let bits = b.emit(format_args!("arith.bitcast {x} : f32 to i32"));
    let c23 = int(b, 23, "i32");
    let shifted = b.emit(format_args!("arith.shrui {bits}, {c23} : i32"));
    let byte = int(b, 0xFF, "i32");
    let exponent = b.emit(format_args!("arith.andi {shifted}, {byte} : i32"));
    let special = b.emit(format_args!("arith.cmpi eq, {exponent}, {byte} : i32"));
    let bit_set = |b: &mut Body, mask: i64| {
        let m = int(b, mask, "i32");
        let masked = b.emit(format_args!("arith.andi {bits}, {m} : i32"));
        let zero = int(b, 0, "i32");
        b.emit(format_args!("arith.cmpi ne, {masked}, {zero} : i32"))
    };
    let up = match rounding {
        E8M0Rounding::Down => None,
        E8M0Rounding::Up => Some(bit_set(b, 0x7F_FFFF)),
        E8M0Rounding::Nearest => {
            // Guard bit, and then round, sticky or a "least significant" bit (a normal value).
            let guard = bit_set(b, 0x40_0000);
            let rest = bit_set(b, 0x3F_FFFF);
            let zero = int(b, 0, "i32");
            let normal = b.emit(format_args!("arith.cmpi ugt, {exponent}, {zero} : i32"));
            let either = b.emit(format_args!("arith.ori {rest}, {normal} : i1"));
            Some(b.emit(format_args!("arith.andi {guard}, {either} : i1")))
        }
    };
    let mut code = exponent.clone();
    if let Some(mut up) = up {
        if saturate {
            let top = int(b, 0xFE, "i32");
            let below_top = b.emit(format_args!("arith.cmpi ne, {exponent}, {top} : i32"));
            up = b.emit(format_args!("arith.andi {up}, {below_top} : i1"));
        }
        let step = b.emit(format_args!("arith.extui {up} : i1 to i32"));
        code = b.emit(format_args!("arith.addi {exponent}, {step} : i32"));
    }
    let code = b.emit(format_args!("arith.select {special}, {byte}, {code} : i32"));
    let narrow = b.emit(format_args!("arith.trunci {code} : i32 to i8"));
    b.emit(format_args!("arith.bitcast {narrow} : i8 to {E8M0}"))
}

fn int(b: &mut Body, value: i64, ty: &str) -> String {
    b.emit(format_args!("arith.constant {value} : {ty}"))
}

/// `x` (of the format's type) as f32.
pub fn decode(b: &mut Body, x: &str, f: &Format) -> String {
    let (width, m, e) = (f.bits(), f.mantissa_bits, f.exponent_bits);
    let raw = b.emit(format_args!("arith.bitcast {x} : {} to i{width}", f.name));
    let code = b.emit(format_args!("arith.extui {raw} : i{width} to i32"));
    let field = |b: &mut Body, shift: u32, bits: u32| {
        let s = int(b, shift as i64, "i32");
        let shifted = b.emit(format_args!("arith.shrui {code}, {s} : i32"));
        let mask = int(b, (1 << bits) - 1, "i32");
        b.emit(format_args!("arith.andi {shifted}, {mask} : i32"))
    };
    let sign = field(b, e + m, 1);
    let exponent = field(b, m, e);
    let mantissa = field(b, 0, m);
    // Normal: f32 bits (exponent - bias + 127) << 23 | mantissa << (23 - M).
    let rebias = int(b, 127 - f.bias as i64, "i32");
    let biased = b.emit(format_args!("arith.addi {exponent}, {rebias} : i32"));
    let c23 = int(b, 23, "i32");
    let high = b.emit(format_args!("arith.shli {biased}, {c23} : i32"));
    let shift = int(b, 23 - m as i64, "i32");
    let low = b.emit(format_args!("arith.shli {mantissa}, {shift} : i32"));
    let bits = b.emit(format_args!("arith.ori {high}, {low} : i32"));
    let normal = b.emit(format_args!("arith.bitcast {bits} : i32 to f32"));
    // Subnormal: mantissa * 2^(1 - bias - M).
    let units = b.emit(format_args!("arith.uitofp {mantissa} : i32 to f32"));
    let step = b.emit(format_args!("arith.constant {:.15e} : f32", 2f64.powi(1 - f.bias - m as i32)));
    let subnormal = b.emit(format_args!("arith.mulf {units}, {step} : f32"));
    let zero = int(b, 0, "i32");
    let is_subnormal = b.emit(format_args!("arith.cmpi eq, {exponent}, {zero} : i32"));
    let magnitude = b.emit(format_args!("arith.select {is_subnormal}, {subnormal}, {normal} : f32"));
    let negated = b.emit(format_args!("arith.negf {magnitude} : f32"));
    let one = int(b, 1, "i32");
    let negative = b.emit(format_args!("arith.cmpi eq, {sign}, {one} : i32"));
    let mut value = b.emit(format_args!("arith.select {negative}, {negated}, {magnitude} : f32"));
    let nan = b.emit("arith.constant 0x7FC00000 : f32");
    if f.has_infinity {
        // All-ones exponent: infinity (zero mantissa) or NaN.
        let all_ones = int(b, (1 << e) - 1, "i32");
        let special = b.emit(format_args!("arith.cmpi eq, {exponent}, {all_ones} : i32"));
        let infinity = b.emit("arith.constant 0x7F800000 : f32");
        let minus_infinity = b.emit("arith.constant 0xFF800000 : f32");
        let signed_infinity = b.emit(format_args!("arith.select {negative}, {minus_infinity}, {infinity} : f32"));
        let is_infinity = b.emit(format_args!("arith.cmpi eq, {mantissa}, {zero} : i32"));
        let special_value = b.emit(format_args!("arith.select {is_infinity}, {signed_infinity}, {nan} : f32"));
        value = b.emit(format_args!("arith.select {special}, {special_value}, {value} : f32"));
    } else if let Some(code_of_nan) = f.nan_code {
        // FN: the all-ones magnitude; FNUZ: 0x80 exactly.
        let is_nan = if f.unsigned_zero {
            let c = int(b, code_of_nan as i64, "i32");
            b.emit(format_args!("arith.cmpi eq, {code}, {c} : i32"))
        } else {
            let mask = int(b, (1 << (e + m)) - 1, "i32");
            let magnitude_code = b.emit(format_args!("arith.andi {code}, {mask} : i32"));
            let c = int(b, code_of_nan as i64, "i32");
            b.emit(format_args!("arith.cmpi eq, {magnitude_code}, {c} : i32"))
        };
        value = b.emit(format_args!("arith.select {is_nan}, {nan}, {value} : f32"));
    }
    value
}

/// `x` (f32) in the format, rounded to nearest even; `saturate` clamps out-of-range values
/// (infinities included) to the largest finite value.
pub fn encode(b: &mut Body, x: &str, f: &Format, saturate: bool) -> String {
    let (width, m) = (f.bits(), f.mantissa_bits as i64);
    let emin = 1 - f.bias as i64;
    let bits = b.emit(format_args!("arith.bitcast {x} : f32 to i32"));
    let c31 = int(b, 31, "i32");
    let sign = b.emit(format_args!("arith.shrui {bits}, {c31} : i32"));
    let is_nan = b.emit(format_args!("arith.cmpf uno, {x}, {x} : f32"));
    let absolute = b.emit(format_args!("math.absf {x} : f32"));
    // Clamped far above every format's range (so the arithmetic below stays finite) and NaN
    // made 0 (its code is chosen at the end).
    let big = b.emit("arith.constant 1.048576e+06 : f32");
    let clamped = b.emit(format_args!("arith.minimumf {absolute}, {big} : f32"));
    let zero_f = b.emit("arith.constant 0.0 : f32");
    let a = b.emit(format_args!("arith.select {is_nan}, {zero_f}, {clamped} : f32"));
    let a_bits = b.emit(format_args!("arith.bitcast {a} : f32 to i32"));
    let c23 = int(b, 23, "i32");
    let biased = b.emit(format_args!("arith.shrui {a_bits}, {c23} : i32"));
    let c127 = int(b, 127, "i32");
    let exponent = b.emit(format_args!("arith.subi {biased}, {c127} : i32"));
    let lowest = int(b, emin, "i32");
    let e = b.emit(format_args!("arith.maxsi {exponent}, {lowest} : i32"));
    // 2^(M - e) as f32 bits ((M - e + 127) << 23).
    let top = int(b, m + 127, "i32");
    let scale_exponent = b.emit(format_args!("arith.subi {top}, {e} : i32"));
    let scale_bits = b.emit(format_args!("arith.shli {scale_exponent}, {c23} : i32"));
    let scale = b.emit(format_args!("arith.bitcast {scale_bits} : i32 to f32"));
    let units = b.emit(format_args!("arith.mulf {a}, {scale} : f32"));
    let rounded = b.emit(format_args!("math.roundeven {units} : f32"));
    let q = b.emit(format_args!("arith.fptosi {rounded} : f32 to i32"));
    let rebias = int(b, f.bias as i64 - 1, "i32");
    let field = b.emit(format_args!("arith.addi {e}, {rebias} : i32"));
    let cm = int(b, m, "i32");
    let shifted = b.emit(format_args!("arith.shli {field}, {cm} : i32"));
    let code = b.emit(format_args!("arith.addi {shifted}, {q} : i32"));
    let max_code = int(b, f.max_code as i64, "i32");
    let over = b.emit(format_args!("arith.cmpi sgt, {code}, {max_code} : i32"));
    let overflow = match (saturate, f.overflow_code) {
        (false, Some(c)) => int(b, c as i64, "i32"),
        _ => max_code.clone(),
    };
    let mut magnitude = b.emit(format_args!("arith.select {over}, {overflow}, {code} : i32"));
    if let Some(nan) = f.nan_code {
        let nan = int(b, nan as i64, "i32");
        magnitude = b.emit(format_args!("arith.select {is_nan}, {nan}, {magnitude} : i32"));
    }
    // The sign bit, except on a FNUZ zero (there is one zero) or FNUZ NaN (0x80 already).
    let sign_shift = int(b, width as i64 - 1, "i32");
    let sign_bit = b.emit(format_args!("arith.shli {sign}, {sign_shift} : i32"));
    let sign_bit = if f.unsigned_zero {
        let zero = int(b, 0, "i32");
        let is_zero = b.emit(format_args!("arith.cmpi eq, {magnitude}, {zero} : i32"));
        b.emit(format_args!("arith.select {is_zero}, {zero}, {sign_bit} : i32"))
    } else if f.nan_code.is_none() {
        // No NaN code (float4): NaN becomes negative zero, as ml_dtypes does.
        let one = int(b, 1, "i32");
        let nan_sign = b.emit(format_args!("arith.shli {one}, {sign_shift} : i32"));
        b.emit(format_args!("arith.select {is_nan}, {nan_sign}, {sign_bit} : i32"))
    } else {
        sign_bit
    };
    let full = b.emit(format_args!("arith.ori {magnitude}, {sign_bit} : i32"));
    let narrow = b.emit(format_args!("arith.trunci {full} : i32 to i{width}"));
    b.emit(format_args!("arith.bitcast {narrow} : i{width} to {}", f.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_consistent() {
        for f in FORMATS {
            assert!(f.max_code < 1 << (f.bits() - 1), "{}", f.name);
            assert_eq!(format(f.name), Some(f));
        }
        assert_eq!(format("f8E4M3FN").unwrap().bits(), 8);
        assert_eq!(format("f4E2M1FN").unwrap().bits(), 4);
        assert_eq!(format("f32"), None);
    }
}
