// Every error the sg verifier (IRDL + Rust) reports, with its exact message.
// RUN: strata-opt %s --split-input-file --verify-diagnostics

func.func @conv_bad_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'sg.conv2d' op filter has 2 input channels but input has 3 channels in 1 group(s) (expected 3)}}
  %0 = "sg.conv2d"(%x, %w) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_bad_output(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error@+1 {{'sg.conv2d' op result shape [1x4x8x8] does not match the convolution, [1x4x6x6]}}
  %0 = "sg.conv2d"(%x, %w) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// A bias is per filter, or an initial value of the result's shape.
func.func @conv_bad_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4x6x1xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'sg.conv2d' op bias must have shape [4] or the result's shape [1x4x6x6], got [1x4x6x1]}}
  %0 = "sg.conv2d"(%x, %w, %b) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4x6x1xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// All problems of one op are reported, not just the first.
func.func @conv_bad_attributes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+3 {{'sg.conv2d' op 'strides' must be 2 positive values, got [0, 1]}}
  // expected-error@+2 {{'sg.conv2d' op 'pads' must be 4 non-negative values [top, left, bottom, right], got [-1, 0, 0, 0]}}
  // expected-error@+1 {{'sg.conv2d' op 'group' must be >= 1, got 0}}
  %0 = "sg.conv2d"(%x, %w) {strides = array<i64: 0, 1>, pads = array<i64: -1, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_missing_attribute(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'sg.conv2d' op attribute "group" is expected but not provided}}
  %0 = "sg.conv2d"(%x, %w) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<7x5xf32>) -> tensor<4x5xf32> {
  // expected-error@+1 {{'sg.matmul' op contraction sizes differ: [4x8] x [7x5]}}
  %0 = "sg.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<7x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @add_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'sg.add' op operand shapes [2x3] and [3x2] do not broadcast}}
  %0 = "sg.add"(%a, %b) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @add_mixed_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'sg.add' op element types differ: f32 and f16 (insert an explicit cast)}}
  %0 = "sg.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @relu_type_change(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error@+1 {{expected 'tensor<4xf32>' but got 'tensor<4xf16>'}}
  %0 = "sg.relu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @dynamic_shape(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error@+2 {{'sg.exp' op operand #0 must be a ranked tensor with a static shape, but has type tensor<?x4xf32> (sg requires static shapes)}}
  // expected-error@+1 {{'sg.exp' op result #0 must be a ranked tensor with a static shape}}
  %0 = "sg.exp"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @slice_out_of_range(%x: tensor<16x32xf32>) -> tensor<9x18xf32> {
  // expected-error@+1 {{'sg.slice' op dimension 1: need 0 <= start <= end <= 32, got start 2, end 40}}
  %0 = "sg.slice"(%x) {starts = array<i64: 1, 2>, ends = array<i64: 10, 40>, steps = array<i64: 1, 1>} : (tensor<16x32xf32>) -> tensor<9x18xf32>
  return %0 : tensor<9x18xf32>
}

// -----

func.func @slice_down_out_of_range(%x: tensor<16x32xf32>) -> tensor<16x16xf32> {
  // expected-error@+1 {{'sg.slice' op dimension 1 (negative step): need -1 <= end <= start < 32, got start 32, end -1}}
  %0 = "sg.slice"(%x) {starts = array<i64: 0, 32>, ends = array<i64: 16, -1>, steps = array<i64: 1, -2>} : (tensor<16x32xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @slice_wrong_result(%x: tensor<16x32xf32>) -> tensor<9x9xf32> {
  // expected-error@+1 {{'sg.slice' op result shape [9x9] does not match the slice, [9x18]}}
  %0 = "sg.slice"(%x) {starts = array<i64: 1, 2>, ends = array<i64: 10, 20>, steps = array<i64: 1, 1>} : (tensor<16x32xf32>) -> tensor<9x9xf32>
  return %0 : tensor<9x9xf32>
}

// -----

func.func @transpose_not_a_permutation(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'sg.transpose' op 'perm' [0, 0] is not a permutation of 0..2}}
  %0 = "sg.transpose"(%x) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error@+1 {{'sg.reshape' op cannot reshape [2x3] (6 elements) to [7] (7 elements)}}
  %0 = "sg.reshape"(%x) : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @view_out_of_bounds(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'sg.view' op reads element 16 but the operand [4x4] holds only 16 elements}}
  %0 = "sg.view"(%x) {offset = 1 : i64, sizes = array<i64: 4, 4>, strides = array<i64: 4, 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @view_sizes_mismatch(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'sg.view' op 'sizes' [2, 3] must equal the result shape [2x2]}}
  %0 = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 2, 3>, strides = array<i64: 4, 1>} : (tensor<4x4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unregistered operation 'sg.frobnicate' found in dialect ('sg') that does not allow unknown operations}}
  %0 = "sg.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'sg.softmax' op 'axis' 2 must be in 0..2}}
  %0 = "sg.softmax"(%x) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @clip_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.clip' op 'min' 6 is greater than 'max' 0}}
  %0 = "sg.clip"(%x) {min = 6.0 : f64, max = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @layer_norm_scale(%x: tensor<2x5x16xf32>, %s: tensor<5x16xf32>) -> tensor<2x5x16xf32> {
  // expected-error@+1 {{'sg.layer_norm' op scale shape [5x16] must be the normalised shape [16]}}
  %0 = "sg.layer_norm"(%x, %s) {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x5x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
  return %0 : tensor<2x5x16xf32>
}

// -----

func.func @pool_shape(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32> {
  // expected-error@+1 {{'sg.max_pool' op result shape [1x4x3x3] does not match the pooling, [1x4x4x4]}}
  %0 = "sg.max_pool"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = 0 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

func.func @global_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32> {
  // expected-error@+1 {{'sg.global_average_pool' op result shape [1x4x8x1] must be [1x4x1x1]}}
  %0 = "sg.global_average_pool"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32>
  return %0 : tensor<1x4x8x1xf32>
}

// -----

func.func @concat_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'sg.concat' op operands [2x3] and [3x3] differ outside axis 1}}
  %0 = "sg.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @reduce_axes(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'sg.reduce_sum' op 'axes' [1, 1] must be sorted, distinct and in 0..2, and 'keepdims' 0 or 1}}
  %0 = "sg.reduce_sum"(%x) {axes = array<i64: 1, 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @gather_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'sg.gather' op indices must be i64 or i32, got f32}}
  %0 = "sg.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @compare_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.less' op the result must be an i1 tensor, got f32}}
  %0 = "sg.less"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @max_pool_indices_type(%x: tensor<1x1x4x4xf32>, %y: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xi32> {
  // expected-error@+1 {{'sg.max_pool_indices' op the result must be a static i64 tensor, got tensor<1x1x2x2xi32>}}
  %0 = "sg.max_pool_indices"(%x, %y) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}

// -----

func.func @pad_wrap_empty(%x: tensor<2x0xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'sg.pad' op an empty dimension of [2x0] cannot be padded from its own elements (mode 3)}}
  %0 = "sg.pad"(%x) {pads = array<i64: 0, 1, 0, 1>, mode = 3 : i64, value = 0.0 : f64} : (tensor<2x0xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x9xf32> {
  // expected-error@+1 {{'sg.pad' op reflect pads [0, 3, 0, 3] must be smaller than the dimensions [2x3]}}
  %0 = "sg.pad"(%x) {pads = array<i64: 0, 3, 0, 3>, mode = 1 : i64, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// Attribute kinds IRDL leaves open are checked from the op table.
func.func @conv_i32_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'sg.conv2d' op attribute 'strides' must be an array<i64: ...>}}
  %0 = "sg.conv2d"(%x, %w) {strides = array<i32: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @cast_saturate_kind(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  // expected-error@+1 {{'sg.cast' op attribute 'saturate' must be an integer}}
  %0 = "sg.cast"(%x) {saturate = "no"} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @fused_bad_program(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.fused' op 'program' is not a fused program: step 0: 'relu' takes 1 operands, got 2}}
  %0 = "sg.fused"(%x) {program = "relu(i0,i0)"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_reads_too_few(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.fused' op 'program' reads 1 inputs but the op has 2 operands}}
  %0 = "sg.fused"(%x, %y) {program = "relu(i0)"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_mixed_types(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.fused' op 'program' uses less whose operands and result differ in element type}}
  %0 = "sg.fused"(%x, %y) {program = "less(i0,i1)"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_result_type(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'sg.fused' op the result must have the operands' type tensor<4xf32> (it has no 'reduce')}}
  %0 = "sg.fused"(%x) {program = "relu(i0)"} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fused_unknown_reduction(%x: tensor<4x2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.fused' op 'reduce' must be one of reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod, reduce_l2, not 'sum'}}
  %0 = "sg.fused"(%x) {program = "relu(i0)", reduce = "sum", axes = array<i64: 1>} : (tensor<4x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_reduced_shape(%x: tensor<4x2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'sg.fused' op result shape [2] does not match the reduction, [4]}}
  %0 = "sg.fused"(%x) {program = "relu(i0)", reduce = "reduce_sum", axes = array<i64: 1>} : (tensor<4x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fused_reduced_in_place(%x: tensor<4x2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'sg.fused' op a reduction is neither in place nor an epilogue}}
  %0 = "sg.fused"(%x) {program = "relu(i0)", reduce = "reduce_sum", axes = array<i64: 1>, in_place = 1 : i64} : (tensor<4x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The strata.* attributes stages hand each other are declared (strata_ir::attrs).
// expected-error@+1 {{'func.func' op attribute 'strata.arena_bytez' is not a declared strata hand-off}}
func.func @misspelled_hand_off() attributes {strata.arena_bytez = 64 : i64} {
  return
}

// -----

// expected-error@+1 {{'func.func' op attribute 'strata.arena_bytes' must be Int, got "64"}}
func.func @hand_off_of_the_wrong_kind() attributes {strata.arena_bytes = "64"} {
  return
}

// -----

func.func @bitcast_width(%x: tensor<3xf32>) -> tensor<3xi16> {
  // expected-error@+1 {{'sg.bitcast' op result element i16 must have the operand element's width (f32)}}
  %0 = "sg.bitcast"(%x) : (tensor<3xf32>) -> tensor<3xi16>
  return %0 : tensor<3xi16>
}

// -----

func.func @tree_walk_nodes(%x: tensor<2x3xf32>, %nodes: tensor<5x3xi64>, %roots: tensor<3xi64>) -> tensor<2x3xi64> {
  // expected-error@+1 {{'sg.tree_walk' op nodes must be [nodes, 4] with a node, got [5x3]}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 2 : i64, modes = 1 : i64} : (tensor<2x3xf32>, tensor<5x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @tree_walk_result(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>) -> tensor<3x2xi64> {
  // expected-error@+1 {{'sg.tree_walk' op the result [3x2] must be [rows, trees] of x [2x3] and roots [3]}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 2 : i64, modes = 1 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// -----

func.func @tree_walk_modes(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>) -> tensor<2x3xi64> {
  // expected-error@+1 {{'sg.tree_walk' op 'modes' 0x100 must name comparisons 0 to 5 (bits 0-5, at least one) and NaN handling (bit 8) only}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 2 : i64, modes = 0x100 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @tree_walk_depth(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>) -> tensor<2x3xi64> {
  // expected-error@+1 {{'sg.tree_walk' op 'depth' must be at least 0, got -1}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = -1 : i64, modes = 1 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @tree_walk_types(%x: tensor<2x3xf16>, %nodes: tensor<5x4xi32>, %roots: tensor<3xi64>) -> tensor<2x3xi64> {
  // expected-error@+2 {{'sg.tree_walk' op x must be f32 or f64, got f16}}
  // expected-error@+1 {{'sg.tree_walk' op nodes and roots must be i64}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 2 : i64, modes = 1 : i64} : (tensor<2x3xf16>, tensor<5x4xi32>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @tree_walk_leaves(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>, %leaves: tensor<4x2xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'sg.tree_walk' op leaves must be [nodes, columns] of nodes [5x4], got [4x2]}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 2 : i64, modes = 1 : i64, aggregate = 0 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @tree_walk_sums(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>, %leaves: tensor<5x2xf32>) -> tensor<2x3xf32> {
  // expected-error@+2 {{'sg.tree_walk' op the result [2x3] must be [rows, leaf columns] of x [2x3] and leaves [5x2]}}
  // expected-error@+1 {{'sg.tree_walk' op 'aggregate' must be 0 (sum), 1 (minimum) or 2 (maximum), got 3}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 2 : i64, modes = 1 : i64, aggregate = 3 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>, tensor<5x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @tree_walk_sum_type(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>, %leaves: tensor<5x2xf32>) -> tensor<2x2xi64> {
  // expected-error@+1 {{'sg.tree_walk' op leaves must be f32 or f64 and the result of their type, got f32 and i64}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 2 : i64, modes = 1 : i64, aggregate = 0 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>, tensor<5x2xf32>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @tree_walk_aggregate(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>) -> tensor<2x3xi64> {
  // expected-error@+1 {{'sg.tree_walk' op 'aggregate' needs leaves to aggregate}}
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 2 : i64, modes = 1 : i64, aggregate = 0 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
