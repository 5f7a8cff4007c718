// A bf16 product whose weight is a bf16 initializer (here a Conv of a bf16 model fed from f32)
// and a one-step elementwise op of bf16 operands (the Relu) run in f32 between casts
// (`crate::half::bf16_products`): operands cast to f32 (the weights folded into f32
// constants), each result rounded to bf16 as the op's own rounding. A cast to bf16 whose f32
// source is cast straight back is `sg.round_bf16` on the source (the two casts as one
// elementwise op, fused into the convolution's epilogue; no bf16 value is made). The Relu of
// that rounded value is a bf16 value already, so its own rounding is left out
// (`Importer::track_half_exact`: the same bits). The run matches the f64 convolution rounded
// to bf16 exactly. `--disable half-in-f32` keeps them in bf16. A bf16 result that several ops
// read, each casting it back on its own (a residual block's output), is rounded once for all
// of them (bf16_shared: the Relu and the Add read one `sg.round_bf16`).
// RUN: strata compile %S/inputs/bf16_conv.onnx --emit=sg | FileCheck %s
// RUN: strata run %S/inputs/bf16_conv.onnx --no-cache --input x=%S/../driver/inputs/bf16_conv_x.npy --expect y=%S/../driver/inputs/bf16_conv_y.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=RUNOUT
// RUN: strata compile %S/inputs/bf16_conv.onnx --emit=sg --disable half-in-f32 | FileCheck %s --check-prefix=OFF
// RUN: strata compile %S/inputs/bf16_conv.onnx --emit=sg-opt | FileCheck %s --check-prefix=FUSED
// RUN: strata compile %S/inputs/bf16_shared.onnx --emit=sg | FileCheck %s --check-prefix=SHARED

// CHECK-NOT: bf16>
// CHECK: %[[X:.*]] = "sg.round_bf16"(%arg0) : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
// CHECK: %[[C:.*]] = "sg.conv2d"(%[[X]], %{{.*}}, %{{.*}}) {{.*}} : (tensor<1x4x5x5xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x5x5xf32>
// CHECK: %[[CW:.*]] = "sg.round_bf16"(%[[C]]) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
// CHECK: %[[R:.*]] = "sg.relu"(%[[CW]]) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
// CHECK-NOT: round_bf16
// CHECK: return %[[R]]
// FUSED: "sg.fused"(%{{.*}}) {epilogue = 1 : i64, program = "round_bf16(i0) relu(s0)"}

// RUNOUT: expect 'y': 0 of 200 elements outside

// OFF: "sg.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} : (tensor<1x4x5x5xbf16>, tensor<8x4x3x3xbf16>, tensor<8xbf16>) -> tensor<1x8x5x5xbf16>
// OFF: "sg.relu"(%{{.*}}) : (tensor<1x8x5x5xbf16>) -> tensor<1x8x5x5xbf16>

// SHARED: %[[C:.*]] = "sg.conv2d"
// SHARED-NEXT: %[[R:.*]] = "sg.round_bf16"(%[[C]])
// SHARED-NEXT: %[[RELU:.*]] = "sg.relu"(%[[R]])
// SHARED-NEXT: %[[SUM:.*]] = "sg.add"(%[[R]], %[[RELU]])
// SHARED-NEXT: %[[Y:.*]] = "sg.round_bf16"(%[[SUM]])
// SHARED-NEXT: return %[[Y]]
