// The `sg` ("strata graph") dialect: ONNX-level tensor ops with static shapes.
//
// Structure lives here (operand, result and attribute names and kinds); IRDL loads it into
// the MLIR context at run time. What IRDL cannot express (shape relations, attribute ranges)
// is checked by the Rust verifier in `src/verify.rs`. `build.rs` reads this file and
// generates the typed Rust builders and accessors, so adding an op is one entry here (plus
// its shape rule in `verify.rs` when it has one).
//
// Each constraint variable is its own `irdl.base` unless two slots must have the same type:
// an SSA constraint value is a unification variable (also across a variadic operand's values).
//
// `strata-irdl-gen` also reads two kinds of comment lines. `// traits: <class>` above an op
// gives its class: `elementwise` (operands broadcast to the result; each result element a
// scalar function of the operands' elements, parameterised by the op's attributes; variants
// `(compare)` with an i1 result, `(select)` with an i1 first operand, `(bool)` all i1),
// `reduction` (over `axes`, with `keepdims`) or `view` (the result's elements are the
// operand's, moved). `// irdl.optional_attributes {...}` inside an op declares attributes that
// may be absent (IRDL makes every declared attribute required); the Rust verifier checks their
// kind when present.
irdl.dialect @sg {
  // 2-D convolution, NCHW input, FCHW filter (C = input channels / group).
  // pads = [top, left, bottom, right]; group >= 1 divides C and F.
  irdl.operation @conv2d {
    %input = irdl.base "!builtin.tensor"
    %filter = irdl.base "!builtin.tensor"
    %bias = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %strides = irdl.base "#builtin.dense_array"
    %pads = irdl.base "#builtin.dense_array"
    %dilations = irdl.base "#builtin.dense_array"
    %group = irdl.base "#builtin.integer"
    irdl.operands(input: %input, filter: %filter, bias: optional %bias)
    irdl.results(output: %output)
    irdl.attributes {"strides" = %strides, "pads" = %pads, "dilations" = %dilations, "group" = %group}
  }

  // Matrix product with NumPy semantics: batch dimensions broadcast.
  irdl.operation @matmul {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // A product of 8-bit integers with a constant right operand packed for dot-product
  // instructions (a QDQ model's MatMul, a MatMulInteger): `output[..., m, n] = offsets[n] +
  // sum_k lhs[..., m, k] * rhs[n / 16, k / 4, n % 16, k % 4]`, with lhs `ui8` (zero-extended),
  // rhs `i8` (sign-extended), offsets `i32 [N]` (the zero points' share), the sum exact in
  // i32: the result (i32); with scales (`f32 [N]`), `f32(that) * scales[n]` (f32).
  irdl.operation @quantized_matmul {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %offsets = irdl.base "!builtin.tensor"
    %scales = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs, offsets: %offsets, scales: optional %scales)
    irdl.results(output: %output)
  }

  // A 1x1 convolution (stride 1, no padding, one group, batch 1) of 8-bit integers, a QDQ
  // model's pointwise convolution: `output[0, o, h, w] = f32(offsets[o] + sum_c weight[o, c] *
  // input[0, c, h, w]) * scales[o]`, with input `ui8 [1, C, H, W]` (zero-extended; C a
  // multiple of 4), weight `i8 [O, C]` (sign-extended), offsets `i32 [O]` (the zero points'
  // share), scales `f32 [O]`, the sum exact in i32, the output f32 `[1, O, H, W]`.
  irdl.operation @quantized_conv {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    %offsets = irdl.base "!builtin.tensor"
    %scales = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight, offsets: %offsets, scales: %scales)
    irdl.results(output: %output)
  }

  // Elementwise sum with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @add {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Elementwise difference with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @sub {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Elementwise product with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @mul {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Elementwise quotient (integer division truncates) with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @div {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Elementwise power lhs^rhs with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @pow {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Elementwise maximum with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @max {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Elementwise minimum with ONNX (NumPy) broadcasting.
  // traits: elementwise
  irdl.operation @min {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // The smallest integral value >= x (floats; integers unchanged); result type equals operand type.
  // traits: elementwise
  irdl.operation @ceil {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // The largest integral value <= x (floats; integers unchanged); result type equals operand type.
  // traits: elementwise
  irdl.operation @floor {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // -x; result type equals operand type.
  // traits: elementwise
  irdl.operation @neg {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // |x|; result type equals operand type.
  // traits: elementwise
  irdl.operation @abs {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // 1/x; result type equals operand type.
  // traits: elementwise
  irdl.operation @reciprocal {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // square root; result type equals operand type.
  // traits: elementwise
  irdl.operation @sqrt {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // natural logarithm; result type equals operand type.
  // traits: elementwise
  irdl.operation @log {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // error function; result type equals operand type.
  // traits: elementwise
  irdl.operation @erf {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // hyperbolic tangent; result type equals operand type.
  // traits: elementwise
  irdl.operation @tanh {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // 1 / (1 + e^-x); result type equals operand type.
  // traits: elementwise
  irdl.operation @sigmoid {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // max(x, 0); result type equals operand type.
  // traits: elementwise
  irdl.operation @relu {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // e^x; result type equals operand type.
  // traits: elementwise
  irdl.operation @exp {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // min(max(x, min), max).
  // traits: elementwise
  irdl.operation @clip {
    %t = irdl.base "!builtin.tensor"
    %min = irdl.base "#builtin.float"
    %max = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"min" = %min, "max" = %max}
  }

  // x if x >= 0 else alpha * x.
  // traits: elementwise
  irdl.operation @leaky_relu {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha}
  }

  // x if x >= 0 else alpha * (e^x - 1).
  // traits: elementwise
  irdl.operation @elu {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha}
  }

  // max(0, min(1, alpha * x + beta)).
  // traits: elementwise
  irdl.operation @hard_sigmoid {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    %beta = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha, "beta" = %beta}
  }

  // x * max(0, min(1, x / 6 + 1 / 2)).
  // traits: elementwise
  irdl.operation @hard_swish {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // x * Phi(x): approximate = 0 uses erf, 1 the tanh approximation.
  // traits: elementwise
  irdl.operation @gelu {
    %t = irdl.base "!builtin.tensor"
    %approximate = irdl.base "#builtin.integer"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"approximate" = %approximate}
  }

  // sin(x) (float).
  // traits: elementwise
  irdl.operation @sin {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // cos(x) (float).
  // traits: elementwise
  irdl.operation @cos {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // tan(x) (float).
  // traits: elementwise
  irdl.operation @tan {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // asin(x) (float).
  // traits: elementwise
  irdl.operation @asin {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // acos(x) (float).
  // traits: elementwise
  irdl.operation @acos {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // atan(x) (float).
  // traits: elementwise
  irdl.operation @atan {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // sinh(x) (float).
  // traits: elementwise
  irdl.operation @sinh {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // cosh(x) (float).
  // traits: elementwise
  irdl.operation @cosh {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // asinh(x) (float).
  // traits: elementwise
  irdl.operation @asinh {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // acosh(x) (float).
  // traits: elementwise
  irdl.operation @acosh {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // atanh(x) (float).
  // traits: elementwise
  irdl.operation @atanh {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // -1, 0 or 1 by the sign of x (0 for NaN's sign-less zero; NaN stays NaN).
  // traits: elementwise
  irdl.operation @sign {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // x rounded to the nearest integer, halves to even (float).
  // traits: elementwise
  irdl.operation @round {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // log(1 + e^x), computed without overflow (float).
  // traits: elementwise
  irdl.operation @softplus {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // x / (1 + |x|) (float).
  // traits: elementwise
  irdl.operation @softsign {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // x * tanh(softplus(x)) (float).
  // traits: elementwise
  irdl.operation @mish {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // gamma * x if x > 0 else gamma * alpha * (e^x - 1) (float).
  // traits: elementwise
  irdl.operation @selu {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    %gamma = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha, "gamma" = %gamma}
  }

  // max(0, x) + min(0, alpha * (e^(x / alpha) - 1)) (float).
  // traits: elementwise
  irdl.operation @celu {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha}
  }

  // x if x > alpha else 0 (float).
  // traits: elementwise
  irdl.operation @thresholded_relu {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha}
  }

  // x + bias if x < -lambd, x - bias if x > lambd, else 0.
  // traits: elementwise
  irdl.operation @shrink {
    %t = irdl.base "!builtin.tensor"
    %bias = irdl.base "#builtin.float"
    %lambd = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"bias" = %bias, "lambd" = %lambd}
  }

  // x * sigmoid(alpha * x) (float).
  // traits: elementwise
  irdl.operation @swish {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha}
  }

  // x rounded to bfloat16's precision (nearest, ties to even), kept in x's float type: the
  // cast to bf16 and back as one elementwise op, so it fuses where the casts would not.
  // traits: elementwise
  irdl.operation @round_bf16 {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // x rounded to float16's precision and range (nearest, ties to even; overflow to infinity),
  // kept in x's float type: the cast to f16 and back as one elementwise op.
  // traits: elementwise
  irdl.operation @round_f16 {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // Whether x is NaN (float input); the result is i1.
  // traits: elementwise(compare)
  irdl.operation @is_nan {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    irdl.results(output: %output)
  }

  // Whether x is +infinity (detect_positive != 0) or -infinity (detect_negative != 0); the result is i1.
  // traits: elementwise(compare)
  irdl.operation @is_inf {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %detect_negative = irdl.base "#builtin.integer"
    %detect_positive = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"detect_negative" = %detect_negative, "detect_positive" = %detect_positive}
  }

  // ~x (integers).
  // traits: elementwise
  irdl.operation @bitwise_not {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // lhs & rhs with broadcasting (integers).
  // traits: elementwise
  irdl.operation @bitwise_and {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs | rhs with broadcasting (integers).
  // traits: elementwise
  irdl.operation @bitwise_or {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs ^ rhs with broadcasting (integers).
  // traits: elementwise
  irdl.operation @bitwise_xor {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs << rhs with broadcasting (integers; a shift by a negative amount or by the width or more gives 0).
  // traits: elementwise
  irdl.operation @shift_left {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs >> rhs with broadcasting (integers; arithmetic for signed ones; a shift by a negative amount or by
  // the width or more gives the sign fill: -1 for a negative signed lhs, else 0).
  // traits: elementwise
  irdl.operation @shift_right {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Remainder with broadcasting: fmod = 1 has the dividend's sign (C fmod; floats need it), fmod = 0 the divisor's (integers; Python's %).
  // traits: elementwise
  irdl.operation @mod {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %fmod = irdl.base "#builtin.integer"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
    irdl.attributes {"fmod" = %fmod}
  }

  // lhs if lhs >= 0 else rhs * lhs, rhs (the slope) broadcast to lhs.
  // traits: elementwise
  irdl.operation @prelu {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs and rhs with broadcasting (i1).
  // traits: elementwise(bool)
  irdl.operation @logical_and {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs or rhs with broadcasting (i1).
  // traits: elementwise(bool)
  irdl.operation @logical_or {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs xor rhs with broadcasting (i1).
  // traits: elementwise(bool)
  irdl.operation @logical_xor {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs >= rhs elementwise with broadcasting; the result is i1.
  // traits: elementwise(compare)
  irdl.operation @greater_or_equal {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs <= rhs elementwise with broadcasting; the result is i1.
  // traits: elementwise(compare)
  irdl.operation @less_or_equal {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // alpha * x + beta (float; the Affine activation of recurrent layers).
  // traits: elementwise
  irdl.operation @affine {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    %beta = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha, "beta" = %beta}
  }

  // alpha * tanh(beta * x) (float; the ScaledTanh activation of recurrent layers).
  // traits: elementwise
  irdl.operation @scaled_tanh {
    %t = irdl.base "!builtin.tensor"
    %alpha = irdl.base "#builtin.float"
    %beta = irdl.base "#builtin.float"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"alpha" = %alpha, "beta" = %beta}
  }

  // exp(x) / sum(exp(x)) along `axis` (non-negative, below the rank).
  irdl.operation @softmax {
    %t = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"axis" = %axis}
  }

  // log(softmax(x)) along `axis`.
  irdl.operation @log_softmax {
    %t = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"axis" = %axis}
  }

  // Normalises over dimensions axis..rank: (x - mean) / sqrt(var + epsilon) * scale + bias;
  // scale and bias have the normalised shape; the result has the input's type.
  irdl.operation @layer_norm {
    %input = irdl.base "!builtin.tensor"
    %scale = irdl.base "!builtin.tensor"
    %bias = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    %epsilon = irdl.base "#builtin.float"
    irdl.operands(input: %input, scale: %scale, bias: optional %bias)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis, "epsilon" = %epsilon}
  }

  // Mean over all spatial dimensions of an N x C x ... input: N x C x 1 x ... x 1.
  irdl.operation @global_average_pool {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    irdl.results(output: %output)
  }

  // Maximum over all spatial dimensions: N x C x 1 x ... x 1.
  irdl.operation @global_max_pool {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    irdl.results(output: %output)
  }

  // 2-D max pooling of NCHW; pads = [top, left, bottom, right]; ceil_mode 0 or 1.
  irdl.operation @max_pool {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %kernel = irdl.base "#builtin.dense_array"
    %strides = irdl.base "#builtin.dense_array"
    %pads = irdl.base "#builtin.dense_array"
    %dilations = irdl.base "#builtin.dense_array"
    %ceil = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"kernel" = %kernel, "strides" = %strides, "pads" = %pads, "dilations" = %dilations, "ceil_mode" = %ceil}
  }

  // ONNX MaxPool's Indices for the same windows as @max_pool: per window, where its first
  // maximum in window order lies in the whole N x C x H x W input (padding not counted):
  // ((n * C + c) * H + h) * W + w for storage_order 0 (row major), (n * C + c) * H * W +
  // w * H + h for 1 (column major). `values` is the @max_pool result of those windows; the
  // result has its shape, with i64 elements.
  irdl.operation @max_pool_indices {
    %input = irdl.base "!builtin.tensor"
    %values = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %kernel = irdl.base "#builtin.dense_array"
    %strides = irdl.base "#builtin.dense_array"
    %pads = irdl.base "#builtin.dense_array"
    %dilations = irdl.base "#builtin.dense_array"
    %ceil = irdl.base "#builtin.integer"
    %order = irdl.base "#builtin.integer"
    irdl.operands(input: %input, values: %values)
    irdl.results(output: %output)
    irdl.attributes {"kernel" = %kernel, "strides" = %strides, "pads" = %pads, "dilations" = %dilations, "ceil_mode" = %ceil, "storage_order" = %order}
  }

  // 2-D average pooling of NCHW; count_include_pad 0 or 1 says whether padding counts; the
  // divisor counts the window's (dilated) taps that fall inside the counted range.
  irdl.operation @average_pool {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %kernel = irdl.base "#builtin.dense_array"
    %strides = irdl.base "#builtin.dense_array"
    %pads = irdl.base "#builtin.dense_array"
    %dilations = irdl.base "#builtin.dense_array"
    %ceil = irdl.base "#builtin.integer"
    %count = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"kernel" = %kernel, "strides" = %strides, "pads" = %pads, "dilations" = %dilations, "ceil_mode" = %ceil, "count_include_pad" = %count}
  }

  // Takes entries of `data` along `axis` at integer `indices` (embedding lookup):
  // result shape = data[:axis] + indices + data[axis+1:]; negative indices count from the end.
  irdl.operation @gather {
    %data = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    irdl.operands(data: %data, indices: %indices)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis}
  }

  // Element type conversion (same shape): floats round to nearest, float to integer
  // truncates toward zero, to i1 tests "not zero". Float8 targets: `saturate` 0 makes values
  // out of range infinity or NaN (absent or 1: the largest finite value); float8 E8M0
  // targets: `round_mode` 0 up (absent), 1 down, 2 nearest.
  irdl.operation @cast {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %flag = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    // irdl.optional_attributes {"saturate" = %flag, "round_mode" = %flag}
  }

  // The same bits read as another element type of the same width (same shape): an f32's
  // bits as an i32 and back (ONNX BitCast).
  irdl.operation @bitcast {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    irdl.results(output: %output)
  }

  // Two tensors joined along `axis` (other dimensions equal). ONNX's N-ary Concat is a
  // left-to-right chain of these: IRDL binds one type to all elements of a variadic operand,
  // so differently shaped inputs cannot share one variadic slot.
  irdl.operation @concat {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis}
  }

  // The sum over the sorted, distinct `axes`; keepdims = 1 keeps them as size 1.
  // traits: reduction
  irdl.operation @reduce_sum {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    %keepdims = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axes" = %axes, "keepdims" = %keepdims}
  }

  // The mean over the sorted, distinct `axes`; keepdims = 1 keeps them as size 1.
  // traits: reduction
  irdl.operation @reduce_mean {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    %keepdims = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axes" = %axes, "keepdims" = %keepdims}
  }

  // The maximum over the sorted, distinct `axes`; keepdims = 1 keeps them as size 1.
  // traits: reduction
  irdl.operation @reduce_max {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    %keepdims = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axes" = %axes, "keepdims" = %keepdims}
  }

  // The minimum over the sorted, distinct `axes`; keepdims = 1 keeps them as size 1.
  // traits: reduction
  irdl.operation @reduce_min {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    %keepdims = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axes" = %axes, "keepdims" = %keepdims}
  }

  // The product over the sorted, distinct `axes`; keepdims = 1 keeps them as size 1.
  // traits: reduction
  irdl.operation @reduce_prod {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    %keepdims = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axes" = %axes, "keepdims" = %keepdims}
  }

  // The square root of the sum of squares over the sorted, distinct `axes`; keepdims = 1 keeps them as size 1.
  // traits: reduction
  irdl.operation @reduce_l2 {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    %keepdims = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axes" = %axes, "keepdims" = %keepdims}
  }

  // lhs == rhs elementwise with broadcasting; the result is i1.
  // traits: elementwise(compare)
  irdl.operation @equal {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs < rhs elementwise with broadcasting; the result is i1.
  // traits: elementwise(compare)
  irdl.operation @less {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // lhs > rhs elementwise with broadcasting; the result is i1.
  // traits: elementwise(compare)
  irdl.operation @greater {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Logical negation of an i1 tensor.
  // traits: elementwise(bool)
  irdl.operation @not {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }

  // condition ? lhs : rhs elementwise, the three operands broadcast together.
  // traits: elementwise(select)
  irdl.operation @where {
    %condition = irdl.base "!builtin.tensor"
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(condition: %condition, lhs: %lhs, rhs: %rhs)
    irdl.results(output: %output)
  }

  // Broadcast of the operand to the result shape (ONNX Expand).
  // traits: view
  irdl.operation @expand {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    irdl.results(output: %output)
  }

  // The operand repeated `repeats[d]` times along each dimension d.
  irdl.operation @tile {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %repeats = irdl.base "#builtin.dense_array"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"repeats" = %repeats}
  }

  // Padding: pads = [begin_0, ..., begin_n, end_0, ..., end_n] (non-negative); mode 0 fills
  // with `value`, 1 reflects (pads below the dimension), 2 repeats the edge, 3 wraps around
  // (index modulo the dimension).
  irdl.operation @pad {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %pads = irdl.base "#builtin.dense_array"
    %mode = irdl.base "#builtin.integer"
    %value = irdl.base "#builtin.float"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"pads" = %pads, "mode" = %mode, "value" = %value}
  }

  // Normalises each (N, C) plane of an N x C x ... input, then scale[C] and bias[C].
  irdl.operation @instance_norm {
    %t = irdl.base "!builtin.tensor"
    %scale = irdl.base "!builtin.tensor"
    %bias = irdl.base "!builtin.tensor"
    %epsilon = irdl.base "#builtin.float"
    irdl.operands(input: %t, scale: %scale, bias: %bias)
    irdl.results(output: %t)
    irdl.attributes {"epsilon" = %epsilon}
  }

  // Strided slice over every dimension: starts/ends/steps have one entry per dimension,
  // already clamped to the shape (the importer normalises ONNX's axes and negative indices).
  // traits: view
  irdl.operation @slice {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %starts = irdl.base "#builtin.dense_array"
    %ends = irdl.base "#builtin.dense_array"
    %steps = irdl.base "#builtin.dense_array"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"starts" = %starts, "ends" = %ends, "steps" = %steps}
  }

  // Dimension permutation: output dim i = input dim perm[i].
  // traits: view
  irdl.operation @transpose {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %perm = irdl.base "#builtin.dense_array"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"perm" = %perm}
  }

  // Same elements, new static shape (given by the result type).
  // traits: view
  irdl.operation @reshape {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    irdl.results(output: %output)
  }

  // Strided view of the operand's storage (row-major, in elements): element [i0, i1, ...]
  // of the result is storage[offset + sum(i_k * strides[k])]. Shares storage: no copy.
  // traits: view
  irdl.operation @view {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %offset = irdl.base "#builtin.integer"
    %sizes = irdl.base "#builtin.dense_array"
    %strides = irdl.base "#builtin.dense_array"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"offset" = %offset, "sizes" = %sizes, "strides" = %strides}
  }

  // A fused elementwise kernel: `program`, the flat steps of `strata_sg_kinds::Program` in
  // text ("mul(i0,i1) add(s0,i2) clip<0.0,6.0>(s1)": input `iK` is operand K, `sK` the result
  // of step K, the last step's is the result), computes each result element from the operands'
  // elements at the same index. Every operand has the result's type; an operand that is an
  // `sg.view` of a larger buffer is read through the view's base (the lowering folds the view
  // into the kernel's indexing, no copy). `in_place` = 1: the result is written into operand
  // 0's storage (its last reader). `epilogue` = 1: operand 0 is a kernel's result and the
  // program its epilogue, which the host schedule runs inside the kernel's tiles.
  // `reduce` = a reduction op's name (`reduce_sum`, `reduce_mean`, ...): the program's
  // elements are not stored but reduced over `axes` as that op would reduce them (the result
  // keeps the axes as size 1 when its rank is the operands'); the operands then share one type
  // and the result is the reduction's (`sg-fuse-reductions`).
  irdl.operation @fused {
    %t = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    %program = irdl.base "#builtin.string"
    %flag = irdl.base "#builtin.integer"
    %reduce = irdl.base "#builtin.string"
    %axes = irdl.base "#builtin.dense_array"
    irdl.operands(inputs: variadic %t)
    irdl.results(output: %result)
    irdl.attributes {"program" = %program}
    // irdl.optional_attributes {"in_place" = %flag, "epilogue" = %flag, "reduce" = %reduce, "axes" = %axes}
  }
  // Recurrent layers over a sequence (ONNX LSTM, GRU and RNN with layout 0; every operand
  // given, the importer supplying ONNX's defaults): x [T, N, I], w [D, G*H, I], r [D, G*H, H],
  // b [D, 2*G*H] (input then recurrent biases), sequence_lens [N] (i32: steps at or past a
  // sequence's length keep its state and output zeros), initial_h [D, N, H]; G gates (LSTM 4:
  // i, o, f, c; GRU 3: z, r, h; RNN 1), D directions. direction: 0 forward, 1 reverse, 2 both.
  // activations: the gate activations per direction, comma-separated elementwise op texts
  // (`sigmoid,tanh,tanh`). clip (optional): pre-activations are clamped to [-clip, clip].
  // Results y [T, D, N, H] and y_h [D, N, H] (LSTM also y_c [D, N, H]).
  irdl.operation @lstm {
    %x = irdl.base "!builtin.tensor"
    %w = irdl.base "!builtin.tensor"
    %r = irdl.base "!builtin.tensor"
    %b = irdl.base "!builtin.tensor"
    %lens = irdl.base "!builtin.tensor"
    %h0 = irdl.base "!builtin.tensor"
    %c0 = irdl.base "!builtin.tensor"
    %p = irdl.base "!builtin.tensor"
    %y = irdl.base "!builtin.tensor"
    %y_h = irdl.base "!builtin.tensor"
    %y_c = irdl.base "!builtin.tensor"
    %hidden = irdl.base "#builtin.integer"
    %direction = irdl.base "#builtin.integer"
    %activations = irdl.base "#builtin.string"
    %input_forget = irdl.base "#builtin.integer"
    %clip = irdl.base "#builtin.float"
    irdl.operands(x: %x, w: %w, r: %r, b: %b, sequence_lens: %lens, initial_h: %h0, initial_c: %c0, p: %p)
    irdl.results(y: %y, y_h: %y_h, y_c: %y_c)
    irdl.attributes {"hidden_size" = %hidden, "direction" = %direction, "activations" = %activations, "input_forget" = %input_forget}
    // irdl.optional_attributes {"clip" = %clip}
  }

  // GRU (see @lstm): gates z, r, h; linear_before_reset != 0 applies the reset gate after
  // the recurrent product of the hidden gate (and its bias) instead of before it.
  irdl.operation @gru {
    %x = irdl.base "!builtin.tensor"
    %w = irdl.base "!builtin.tensor"
    %r = irdl.base "!builtin.tensor"
    %b = irdl.base "!builtin.tensor"
    %lens = irdl.base "!builtin.tensor"
    %h0 = irdl.base "!builtin.tensor"
    %y = irdl.base "!builtin.tensor"
    %y_h = irdl.base "!builtin.tensor"
    %hidden = irdl.base "#builtin.integer"
    %direction = irdl.base "#builtin.integer"
    %activations = irdl.base "#builtin.string"
    %linear = irdl.base "#builtin.integer"
    %clip = irdl.base "#builtin.float"
    irdl.operands(x: %x, w: %w, r: %r, b: %b, sequence_lens: %lens, initial_h: %h0)
    irdl.results(y: %y, y_h: %y_h)
    irdl.attributes {"hidden_size" = %hidden, "direction" = %direction, "activations" = %activations, "linear_before_reset" = %linear}
    // irdl.optional_attributes {"clip" = %clip}
  }

  // A simple recurrent layer (see @lstm): one gate.
  irdl.operation @rnn {
    %x = irdl.base "!builtin.tensor"
    %w = irdl.base "!builtin.tensor"
    %r = irdl.base "!builtin.tensor"
    %b = irdl.base "!builtin.tensor"
    %lens = irdl.base "!builtin.tensor"
    %h0 = irdl.base "!builtin.tensor"
    %y = irdl.base "!builtin.tensor"
    %y_h = irdl.base "!builtin.tensor"
    %hidden = irdl.base "#builtin.integer"
    %direction = irdl.base "#builtin.integer"
    %activations = irdl.base "#builtin.string"
    %clip = irdl.base "#builtin.float"
    irdl.operands(x: %x, w: %w, r: %r, b: %b, sequence_lens: %lens, initial_h: %h0)
    irdl.results(y: %y, y_h: %y_h)
    irdl.attributes {"hidden_size" = %hidden, "direction" = %direction, "activations" = %activations}
    // irdl.optional_attributes {"clip" = %clip}
  }
  // ONNX GatherElements: output[i] = input[i with axis replaced by indices[i]]; indices (i64
  // or i32, negative from the end) and the result have one shape.
  irdl.operation @gather_elements {
    %input = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    irdl.operands(input: %input, indices: %indices)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis}
  }

  // ONNX GatherND with batch_dims: the result takes, for each index tuple (the indices'
  // last dimension), the slice of input it addresses.
  irdl.operation @gather_nd {
    %input = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %batch = irdl.base "#builtin.integer"
    irdl.operands(input: %input, indices: %indices)
    irdl.results(output: %output)
    irdl.attributes {"batch_dims" = %batch}
  }

  // A forest of binary decision trees walked for every row of `x` [N, F] (f32 or f64) and
  // every tree at once (the ai.onnx.ml tree ensembles): the result [N, T] (i64) is the node
  // each row reaches in each tree after at most `depth` steps from the tree's root (`roots`
  // [T], i64). `nodes` [S, 4] (i64) holds one record per node, so a step reads one cache
  // line: column 0 the feature (the column of x the node tests) plus 2^32 times its flags
  // (bits 0-2 the comparison x <= split (0), < (1), >= (2), > (3), == (4), != (5); bit 3 set
  // when a NaN feature goes the true way, otherwise NaN compares false except with !=),
  // column 1 the split value's bits (an f32's in the low 32 bits when x is f32, an f64's),
  // columns 2 and 3 the next node when the comparison holds and when it does not; a leaf
  // names itself for both. `modes`: bit k set when some node uses comparison k, bit 8 when
  // some node sends NaN the true way. Node and feature numbers are clamped into range.
  // With `leaves` [S, K] (f32 or f64) the walk aggregates instead: the result [N, K] (the
  // leaves' type) is, for each row and column k, the trees' `leaves[reached node, k]` summed
  // (`aggregate` 0, from 0, tree after tree in order), their minimum (1) or their maximum (2):
  // the ensemble's scores without a [N, T] buffer of reached nodes.
  irdl.operation @tree_walk {
    %x = irdl.base "!builtin.tensor"
    %nodes = irdl.base "!builtin.tensor"
    %roots = irdl.base "!builtin.tensor"
    %leaves = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %depth = irdl.base "#builtin.integer"
    %modes = irdl.base "#builtin.integer"
    %aggregate = irdl.base "#builtin.integer"
    irdl.operands(x: %x, nodes: %nodes, roots: %roots, leaves: optional %leaves)
    irdl.results(output: %output)
    irdl.attributes {"depth" = %depth, "modes" = %modes}
    // irdl.optional_attributes {"aggregate" = %aggregate}
  }

  // ONNX ScatterElements: a copy of input with updates written at indices along axis, in
  // order; reduction 0 none, 1 add, 2 mul, 3 max, 4 min.
  irdl.operation @scatter_elements {
    %input = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    %updates = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    %reduction = irdl.base "#builtin.integer"
    irdl.operands(input: %input, indices: %indices, updates: %updates)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis, "reduction" = %reduction}
  }

  // ONNX ScatterND: a copy of input with each update slice written where its index tuple
  // points, in order; reduction as @scatter_elements.
  irdl.operation @scatter_nd {
    %input = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    %updates = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %reduction = irdl.base "#builtin.integer"
    irdl.operands(input: %input, indices: %indices, updates: %updates)
    irdl.results(output: %output)
    irdl.attributes {"reduction" = %reduction}
  }

  // The index of the largest (largest = 1) or smallest element along axis (the first one,
  // or the last with select_last_index = 1); the result is i64, keepdims as a reduction.
  irdl.operation @arg_extreme {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    %keep = irdl.base "#builtin.integer"
    %last = irdl.base "#builtin.integer"
    %largest = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis, "keepdims" = %keep, "select_last_index" = %last, "largest" = %largest}
  }

  // The positions of the k largest (largest = 1) or smallest elements along axis, best
  // first, of equal ones the lower position first: ONNX TopK's indices (its values are a
  // gather of these). The result is i64, the input's shape with k along axis.
  irdl.operation @top_k {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    %k = irdl.base "#builtin.integer"
    %largest = irdl.base "#builtin.integer"
    irdl.operands(input: %input)
    irdl.results(output: %output)
    irdl.attributes {"axis" = %axis, "k" = %k, "largest" = %largest}
  }

  // ONNX CumSum (product = 0) and CumProd (product = 1) along axis; exclusive leaves out the
  // element itself, reverse accumulates from the end.
  irdl.operation @cumulative {
    %t = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    %exclusive = irdl.base "#builtin.integer"
    %reverse = irdl.base "#builtin.integer"
    %product = irdl.base "#builtin.integer"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"axis" = %axis, "exclusive" = %exclusive, "reverse" = %reverse, "product" = %product}
  }

  // ONNX Einsum of one or two operands over explicit subscripts (`ij,jk->ik`, no ellipsis:
  // the importer writes it out, and splits more operands into pairs): the product of the
  // operands, summed over the letters the output does not list.
  irdl.operation @einsum {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %equation = irdl.base "#builtin.string"
    irdl.operands(lhs: %lhs, rhs: optional %rhs)
    irdl.results(output: %output)
    irdl.attributes {"equation" = %equation}
  }
}
