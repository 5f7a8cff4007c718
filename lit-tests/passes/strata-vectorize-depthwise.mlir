// strata-vectorize-depthwise{vector-lanes threads} writes each f32 NCHW depthwise
// convolution on buffers as register-blocked vector loops with the output width in the lanes:
// per channel the 3 x 3 weights broadcast once; blocks of 8 output rows (4 at a width
// stride of 2) x one vector whose
// accumulators start from the output (the bias) or from a bias fill it folds, and take one load and one contractible
// multiply-add per tap and row; stride 2 along the width reads twice the lanes and keeps the
// even ones (masked to the row unless every whole block's reads stay inside it); the last partial vector of a row is masked, rows that do not fill a block run one
// at a time. With threads the channels of a big convolution are an scf.forall. A clamp that
// follows in place (ReLU6: an elementwise generic reading and writing the output, max and min
// against constants; a quantization, with 0-d buffers) is applied before the stores and its
// generic goes, and a cast of its result to bytes after it too; other generics stay.
// Max and sum pools take the same loops (a fill of the output with -inf or zero right before
// folded into their accumulators). Other convolutions (a width stride of 3) are left as
// they were.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-depthwise{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-depthwise{vector-lanes=16 threads=2})' | FileCheck %s --check-prefix=THREADS
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-depthwise{vector-lanes=16},strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

// 10 x 20 outputs: 8 rows in one block of eight accumulators, then 2 single rows; 16 columns
// whole, 4 masked.
// CHECK-LABEL: func.func @stride_one
// CHECK: scf.for %[[CH:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-9: vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK: scf.for %[[OH:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[OW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-8: vector.load %arg2[{{.*}}] : memref<1x4x10x20xf32>, vector<16xf32>
// CHECK-NOT: vector.load %arg2
// CHECK: vector.load %arg0[{{.*}}] : memref<1x4x12x22xf32>, vector<16xf32>
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK-COUNT-8: vector.store {{.*}}, %arg2[{{.*}}] : memref<1x4x10x20xf32>, vector<16xf32>
// CHECK-NOT: vector.store {{.*}}, %arg2[{{.*}}] : memref<1x4x10x20xf32>, vector<16xf32>
// CHECK: } {loop_annotation
// CHECK: vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.maskedload %arg2
// CHECK: vector.maskedstore %arg2
// CHECK: } {loop_annotation
// CHECK: scf.for
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// LLVM-LABEL: llvm.func @stride_one
// LLVM: llvm.intr.masked.load
// LLVM: llvm.fmul {{.*}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
func.func @stride_one(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x20xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  return
}

// Stride 2: each tap reads 32 elements (masked to the row) and keeps the even 16.
// CHECK-LABEL: func.func @stride_two
// CHECK: %[[WIDE:.*]] = vector.maskedload %arg0[{{.*}}], {{.*}} : memref<1x4x21x21xf32>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK: vector.shuffle %[[WIDE]], %[[WIDE]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// THREADS-LABEL: func.func @stride_two
// THREADS-NOT: scf.forall
func.func @stride_two(%x: memref<1x4x21x21xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x10xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : memref<1x4x21x21xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x10xf32>)
  return
}

// Stride 2 with whole column blocks: 20 outputs are a block of 16 and 4 masked. The block's
// widest read (columns 2-33 of 41) stays inside the row, so it loads unmasked; the partial
// block's reads are masked to the row.
// CHECK-LABEL: func.func @stride_two_inside
// CHECK: %[[WHOLE:.*]] = vector.load %arg0[{{.*}}] : memref<1x4x9x41xf32>, vector<32xf32>
// CHECK: vector.shuffle %[[WHOLE]], %[[WHOLE]] [0, 2, 4
// CHECK: vector.maskedload %arg0[{{.*}}], {{.*}} : memref<1x4x9x41xf32>, vector<32xi1>, vector<32xf32> into vector<32xf32>
func.func @stride_two_inside(%x: memref<1x4x9x41xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x4x20xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : memref<1x4x9x41xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x4x20xf32>)
  return
}

// Big enough (2^16 multiply-adds) to split its channels across threads: the channels its
// producer's threads wrote (2^19 for a stem's filter blocks).
// THREADS-LABEL: func.func @middle
// THREADS: scf.forall (%{{.*}}) in (16)
// THREADS-LABEL: func.func @big
// THREADS: scf.forall (%{{.*}}) in (64)
func.func @middle(%x: memref<1x16x30x30xf32>, %w: memref<16x3x3xf32>, %y: memref<1x16x28x28xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x16x30x30xf32>, memref<16x3x3xf32>) outs(%y : memref<1x16x28x28xf32>)
  return
}

func.func @big(%x: memref<1x64x34x34xf32>, %w: memref<64x3x3xf32>, %y: memref<1x64x32x32xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x64x34x34xf32>, memref<64x3x3xf32>) outs(%y : memref<1x64x32x32xf32>)
  return
}

// CHECK-LABEL: func.func @relu6
// CHECK: %[[HI:.*]] = arith.constant dense<6.000000e+00> : vector<16xf32>
// CHECK: %[[MAX:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: %[[MIN:.*]] = arith.minimumf %[[MAX]], %[[HI]] : vector<16xf32>
// CHECK: vector.store %[[MIN]], %arg2
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @relu6(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x20xf32>) {
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 6.0 : f32
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x10x20xf32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %lo : f32
    %1 = arith.minimumf %0, %hi : f32
    linalg.yield %1 : f32
  }
  return
}

// Any elementwise program of `arith` ops on the element and constants that follows in place
// runs on the accumulators: a HardSwish (MobileNetV3), the element read twice. One that reads
// something else (here a second buffer) stays a kernel of its own.
// CHECK-LABEL: func.func @hardswish
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant dense<0.166666672> : vector<16xf32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : vector<16xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[ACC:.*]], %[[SIXTH]] : vector<16xf32>
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %[[HALF]] : vector<16xf32>
// CHECK-NEXT: %[[U:.*]] = arith.minimumf %[[T]], %{{.*}} : vector<16xf32>
// CHECK-NEXT: %[[V:.*]] = arith.maximumf %[[U]], %{{.*}} : vector<16xf32>
// CHECK-NEXT: %[[H:.*]] = arith.mulf %[[ACC]], %[[V]] : vector<16xf32>
// CHECK-NEXT: vector.store %[[H]], %arg2
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK-LABEL: func.func @reads_another_buffer
// CHECK: linalg.generic
func.func @hardswish(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x20xf32>) {
  %sixth = arith.constant 0.166666672 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x10x20xf32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %sixth : f32
    %1 = arith.addf %0, %half : f32
    %2 = arith.minimumf %1, %one : f32
    %3 = arith.maximumf %2, %zero : f32
    %4 = arith.mulf %in, %3 : f32
    linalg.yield %4 : f32
  }
  return
}

func.func @reads_another_buffer(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x20xf32>, %z: memref<1x4x10x20xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %z : memref<1x4x10x20xf32>, memref<1x4x10x20xf32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  }
  return
}

// A QDQ activation's quantization (divided by a scale, rounded, clamped: the scale and bounds
// 0-d buffers, loaded once) runs on the accumulators too, and the cast of its result to bytes
// right after (the next convolution's pixels) with it: the bytes are stored through a signless
// view and, nothing reading the f32 result after the cast, only they. Bytes planned over the
// input the kernel still reads are not written by it: the quantization alone is applied, the
// cast stays.
// CHECK-LABEL: func.func @quantize_to_bytes
// CHECK: %[[BYTES:.*]] = memref.view %arg5[%c8192{{.*}}][] : memref<16384xi8> to memref<1x4x10x20xui8>
// CHECK: scf.execute_region
// CHECK: %[[S:.*]] = memref.load %arg2[] : memref<f32>
// CHECK-NEXT: %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK: %[[SIGNLESS:.*]] = builtin.unrealized_conversion_cast %[[BYTES]] : memref<1x4x10x20xui8> to memref<1x4x10x20xi8>
// CHECK: %[[D:.*]] = arith.divf %{{.*}}, %[[SV]] : vector<16xf32>
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]] : vector<16xf32>
// CHECK-NEXT: %[[LO:.*]] = arith.maximumf %[[R]], %{{.*}} : vector<16xf32>
// CHECK-NEXT: %[[HI:.*]] = arith.minimumf %[[LO]], %{{.*}} : vector<16xf32>
// CHECK-NEXT: %[[Q:.*]] = arith.fptoui %[[HI]] : vector<16xf32> to vector<16xi8>
// CHECK-NEXT: vector.store %[[Q]], %[[SIGNLESS]][{{.*}}] : memref<1x4x10x20xi8>, vector<16xi8>
// CHECK-NOT: vector.store %{{.*}}, %{{.*}} : memref<1x4x10x20xf32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @quantize_bytes_over_input
// CHECK: arith.minimumf
// CHECK-NEXT: vector.store %{{.*}} : memref<1x4x10x20xf32>, vector<16xf32>
// CHECK-NOT: arith.fptoui %{{.*}} : vector<16xf32>
// CHECK: linalg.generic
// CHECK: arith.fptoui %{{.*}} : f32 to i8
func.func @quantize_to_bytes(%xa: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %s: memref<f32>, %lo: memref<f32>, %hi: memref<f32>, %arena: memref<16384xi8>) {
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %y = memref.view %arena[%c0][] : memref<16384xi8> to memref<1x4x10x20xf32>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xa, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %s, %lo, %hi : memref<1x4x10x20xf32>, memref<f32>, memref<f32>, memref<f32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %sc: f32, %l: f32, %h: f32, %out: f32):
    %0 = arith.divf %in, %sc : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.maximumf %1, %l : f32
    %3 = arith.minimumf %2, %h : f32
    linalg.yield %3 : f32
  }
  %bytes = memref.view %arena[%c8192][] : memref<16384xi8> to memref<1x4x10x20xui8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x10x20xf32>) outs(%bytes : memref<1x4x10x20xui8>) {
  ^bb0(%in: f32, %out: ui8):
    %0 = arith.fptoui %in : f32 to i8
    %1 = builtin.unrealized_conversion_cast %0 : i8 to ui8
    linalg.yield %1 : ui8
  }
  return
}

func.func @quantize_bytes_over_input(%w: memref<4x3x3xf32>, %s: memref<f32>, %lo: memref<f32>, %hi: memref<f32>, %arena: memref<16384xi8>) {
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %x = memref.view %arena[%c0][] : memref<16384xi8> to memref<1x4x12x22xf32>
  %y = memref.view %arena[%c8192][] : memref<16384xi8> to memref<1x4x10x20xf32>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %s, %lo, %hi : memref<1x4x10x20xf32>, memref<f32>, memref<f32>, memref<f32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %sc: f32, %l: f32, %h: f32, %out: f32):
    %0 = arith.divf %in, %sc : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.maximumf %1, %l : f32
    %3 = arith.minimumf %2, %h : f32
    linalg.yield %3 : f32
  }
  %bytes = memref.view %arena[%c0][] : memref<16384xi8> to memref<1x4x10x20xui8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x10x20xf32>) outs(%bytes : memref<1x4x10x20xui8>) {
  ^bb0(%in: f32, %out: ui8):
    %0 = arith.fptoui %in : f32 to i8
    %1 = builtin.unrealized_conversion_cast %0 : i8 to ui8
    linalg.yield %1 : ui8
  }
  return
}

// A per-channel bias filled into the whole output just before the convolution (views between
// the two are fine) seeds the accumulators instead: the kernel takes the bias as an argument,
// loads and broadcasts it once per channel, never loads the output, and the fill goes. A fill
// into only part of the output (a border strip's slice) stays.
// CHECK-LABEL: func.func @bias_fill
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[CH:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[B:.*]] = memref.load %arg3[%[[CH]]] : memref<4xf32>
// CHECK: %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<16xf32>
// CHECK-NOT: vector.load %arg2
// CHECK: arith.addf %[[BV]], %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK: vector.store {{.*}}, %arg2
// CHECK-LABEL: func.func @bias_fill_part
// CHECK: linalg.generic
// CHECK: vector.load %{{.*}} : memref<1x4x10x20xf32, strided<[880, 220, 20, 1], offset: 20>>, vector<16xf32>
func.func @bias_fill(%x: memref<1x4x12x22xf32>, %w: memref<4x1x3x3xf32>, %y: memref<1x4x10x20xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<4xf32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %w3 = memref.collapse_shape %w [[0, 1], [2], [3]] : memref<4x1x3x3xf32> into memref<4x3x3xf32>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w3 : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  return
}
func.func @bias_fill_part(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x11x20xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<4xf32>) outs(%y : memref<1x4x11x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %part = memref.subview %y[0, 0, 1, 0] [1, 4, 10, 20] [1, 1, 1, 1] : memref<1x4x11x20xf32> to memref<1x4x10x20xf32, strided<[880, 220, 20, 1], offset: 20>>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%part : memref<1x4x10x20xf32, strided<[880, 220, 20, 1], offset: 20>>)
  return
}

// A generic that is not a clamp (an exp) stays after the kernel.
// CHECK-LABEL: func.func @not_a_clamp
// CHECK: vector.store
// CHECK: linalg.generic
// CHECK: math.exp
func.func @not_a_clamp(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x20xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x10x20xf32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// A max pool with a vector of outputs a row runs as two passes over each output row (its
// window, an i8 constant, is read for its shape only): the window's rows reduced into a row
// buffer on the stack (contiguous input vectors; the last one masked, its other lanes -inf),
// then the buffer's column taps. The maximum propagates NaN (a compare and a select each way,
// not arith.maximumf); the output's values (written before) join the maximum. A sum pool
// keeps the register blocks and adds.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT: memref.load %arg1
// CHECK: %[[ROW:.*]] = memref.alloca() {alignment = 64 : i64} : memref<48xf32>
// CHECK: vector.store %{{.*}}, %[[ROW]][%c32] : memref<48xf32>, vector<16xf32>
// CHECK: scf.for %[[OH:.*]] = %c0 to %c10 step %c1
// CHECK: %[[A:.*]] = vector.load %arg0[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x4x12x22xf32>, vector<16xf32>
// CHECK: %[[B:.*]] = vector.load %arg0[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x4x12x22xf32>, vector<16xf32>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[B]], %[[A]] : vector<16xf32>
// CHECK: %[[M:.*]] = arith.select %[[GT]], %[[B]], %[[A]] : vector<16xi1>, vector<16xf32>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[B]], %[[B]] : vector<16xf32>
// CHECK: arith.select %[[NAN]], %[[B]], %[[M]] : vector<16xi1>, vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[ROW]][%{{.*}}] : memref<48xf32>, vector<16xf32>
// CHECK: vector.maskedload %arg0[%c0, %{{.*}}, %{{.*}}, %c16]
// CHECK: vector.load %[[ROW]][%{{.*}}] : memref<48xf32>, vector<16xf32>
// CHECK: vector.load %arg2[
// CHECK: vector.store %{{.*}}, %arg2[%c0, %{{.*}}, %[[OH]], %{{.*}}] : memref<1x4x10x20xf32>, vector<16xf32>
// CHECK: vector.maskedstore %arg2[%c0, %{{.*}}, %[[OH]], %c16]
// CHECK-NOT: arith.maximumf
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK-LABEL: func.func @sum_pool
// CHECK: vector.maskedload %arg0
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: linalg.pooling_nchw_sum
func.func @max_pool(%x: memref<1x4x12x22xf32>, %window: memref<3x3xi8>, %y: memref<1x4x10x20xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %window : memref<1x4x12x22xf32>, memref<3x3xi8>) outs(%y : memref<1x4x10x20xf32>)
  return
}
func.func @sum_pool(%x: memref<1x4x20x20xf32>, %window: memref<2x2xi8>, %y: memref<1x4x10x10xf32>) {
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %window : memref<1x4x20x20xf32>, memref<2x2xi8>) outs(%y : memref<1x4x10x10xf32>)
  return
}

// At stride 2 the row pass reads twice a vector from the row buffer and keeps the even lanes.
// CHECK-LABEL: func.func @max_pool_stride_two
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<48xf32>
// CHECK: %[[W:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<48xf32>, vector<32xf32>
// CHECK: vector.shuffle %[[W]], %[[W]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK-NOT: vector.maskedstore
// CHECK: return
func.func @max_pool_stride_two(%x: memref<1x2x33x33xf32>, %window: memref<3x3xi8>, %y: memref<1x2x16x16xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %window : memref<1x2x33x33xf32>, memref<3x3xi8>) outs(%y : memref<1x2x16x16xf32>)
  return
}

// Rows narrower than a vector, and windows under 3 x 3, keep the register blocks (a row
// buffer's stores, reloads and borders cost more than they save), with the same
// NaN-propagating maximum.
// CHECK-LABEL: func.func @max_pool_narrow
// CHECK-NOT: memref.alloca
// CHECK: arith.cmpf uno
// CHECK-NOT: arith.maximumf
// CHECK: return
// CHECK-LABEL: func.func @max_pool_two_by_two
// CHECK-NOT: memref.alloca
// CHECK: arith.cmpf uno
// CHECK-NOT: arith.maximumf
// CHECK: return
func.func @max_pool_narrow(%x: memref<1x4x10x10xf32>, %window: memref<3x3xi8>, %y: memref<1x4x8x8xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %window : memref<1x4x10x10xf32>, memref<3x3xi8>) outs(%y : memref<1x4x8x8xf32>)
  return
}
func.func @max_pool_two_by_two(%x: memref<1x4x32x32xf32>, %window: memref<2x2xi8>, %y: memref<1x4x16x16xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %window : memref<1x4x32x32xf32>, memref<2x2xi8>) outs(%y : memref<1x4x16x16xf32>)
  return
}

// A fill of the pool's output with -inf right before it goes: the maximum starts from the
// window alone instead of loading what the fill wrote.
// CHECK-LABEL: func.func @max_pool_after_fill
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.load %arg2
// CHECK-NOT: vector.maskedload %arg2
// CHECK: vector.store %{{.*}}, %arg2
// CHECK: return
func.func @max_pool_after_fill(%x: memref<1x4x12x22xf32>, %window: memref<3x3xi8>, %y: memref<1x4x10x20xf32>) {
  %low = arith.constant 0xFF800000 : f32
  linalg.fill ins(%low : f32) outs(%y : memref<1x4x10x20xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %window : memref<1x4x12x22xf32>, memref<3x3xi8>) outs(%y : memref<1x4x10x20xf32>)
  return
}

// A depthwise convolution with implicit padding (strata-implicit-pads: a generic carrying
// strata.implicit_pads that reads its unpadded input in its body): output row 0 reads input rows 0
// and 1 only (row -1 is padding: its taps are left out); the first column block's taps left of
// the row take zero lanes (a shuffle with the zero vector), the others read the row masked to
// its end. Rows 0-3 (row 0 with the padding's taps left out, rows 1-3 inside: too few for a
// loop of blocks) run as one block at constant rows, four independent accumulators; row 4
// (reading row 9, padding) alone. No loop over the rows: one at a time, each row's taps were
// a chain of dependent multiply-adds.
// CHECK-LABEL: func.func @implicit_padding
// CHECK-NOT: vector.load %arg0[%{{.*}}, %{{.*}}, %cn1
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4 step %c1
// CHECK-NOT: scf.for
// CHECK: %[[ROW0:.*]] = vector.maskedload %arg0[{{.*}}], {{.*}} : memref<1x4x9x20xf32>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK: vector.shuffle %[[ROW0]], %cst{{.*}} [32, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29]
// CHECK-NOT: scf.for
// CHECK-COUNT-5: vector.maskedstore %arg2[{{.*}} : memref<1x4x5x10xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @implicit_padding(%x: memref<1x4x9x20xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x5x10xf32>) {
  %c19 = arith.constant 19 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%w : memref<4x3x3xf32>) outs(%y : memref<1x4x5x10xf32>) attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    %0 = linalg.index 1 : index
    %1 = linalg.index 2 : index
    %2 = linalg.index 3 : index
    %3 = linalg.index 4 : index
    %4 = linalg.index 5 : index
    %5 = arith.muli %1, %c2 : index
    %6 = arith.addi %5, %3 : index
    %7 = arith.subi %6, %c1 : index
    %8 = arith.maxsi %7, %c0 : index
    %9 = arith.minsi %8, %c8 : index
    %10 = arith.cmpi eq, %7, %9 : index
    %11 = arith.muli %2, %c2 : index
    %12 = arith.addi %11, %4 : index
    %13 = arith.subi %12, %c1 : index
    %14 = arith.maxsi %13, %c0 : index
    %15 = arith.minsi %14, %c19 : index
    %16 = arith.cmpi eq, %13, %15 : index
    %17 = arith.andi %10, %16 : i1
    %18 = memref.load %x[%c0, %0, %9, %15] : memref<1x4x9x20xf32>
    %19 = arith.select %17, %18, %cst : f32
    %20 = arith.mulf %19, %in : f32
    %21 = arith.addf %out, %20 : f32
    linalg.yield %21 : f32
  }
  return
}

// A full convolution over few channels with implicit padding (a stem: loops n, f, oh, ow, c,
// kh, kw; filter [F, C, KH, KW]): each input load feeds a block of filters (8 here, all of
// them; 2 rows), the input channels a loop carrying the accumulators, each tap's weight loaded
// and broadcast where it is used; one store per filter and row. The kernel rows every row of a
// block reads inside the input are a rolled loop in the channel loop, the others (the top
// padding's) written out before it: the first block, rows 0 and 1, reads kernel row 0 for row 1
// only, then kernel rows 1 and 2 in the loop; the blocks of the loop of rows all three.
// CHECK-LABEL: func.func @implicit_stem
// CHECK: %{{.*}}:16 = scf.for %{{.*}} = %c0{{.*}} to %c3 step %c1{{.*}} iter_args(
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}, %c0{{.*}}, %c0{{.*}}] : memref<8x3x3x3xf32>
// CHECK: vector.broadcast
// CHECK: %{{.*}}:16 = scf.for %[[KH:.*]] = %c1{{.*}} to %c3 step %c1{{.*}} iter_args(
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}, %[[KH]], %c0{{.*}}] : memref<8x3x3x3xf32>
// CHECK: scf.yield
// CHECK-NEXT: } {loop_annotation =
// CHECK: scf.yield
// CHECK-COUNT-16: vector.store
// CHECK: scf.for %{{.*}} = %c2{{.*}} to %c16 step %c2
// CHECK: %{{.*}}:16 = scf.for %{{.*}} = %c0{{.*}} to %c3 step %c1{{.*}} iter_args(
// CHECK: %{{.*}}:16 = scf.for %[[KH2:.*]] = %c0{{.*}} to %c3 step %c1{{.*}} iter_args(
// CHECK-NOT: memref.load %arg1[%{{.*}}, %{{.*}}, %c{{[0-9_]+}}, %c{{[0-9_]+}}]
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}, %[[KH2]], %c0{{.*}}] : memref<8x3x3x3xf32>
// CHECK: } {loop_annotation =
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @implicit_stem(%x: memref<1x3x32x32xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x16x16xf32>) {
  %c31 = arith.constant 31 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%w : memref<8x3x3x3xf32>) outs(%y : memref<1x8x16x16xf32>) attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    %0 = linalg.index 2 : index
    %1 = linalg.index 3 : index
    %2 = linalg.index 4 : index
    %3 = linalg.index 5 : index
    %4 = linalg.index 6 : index
    %5 = arith.muli %0, %c2 : index
    %6 = arith.addi %5, %3 : index
    %7 = arith.subi %6, %c1 : index
    %8 = arith.maxsi %7, %c0 : index
    %9 = arith.minsi %8, %c31 : index
    %10 = arith.cmpi eq, %7, %9 : index
    %11 = arith.muli %1, %c2 : index
    %12 = arith.addi %11, %4 : index
    %13 = arith.subi %12, %c1 : index
    %14 = arith.maxsi %13, %c0 : index
    %15 = arith.minsi %14, %c31 : index
    %16 = arith.cmpi eq, %13, %15 : index
    %17 = arith.andi %10, %16 : i1
    %18 = memref.load %x[%c0, %2, %9, %15] : memref<1x3x32x32xf32>
    %19 = arith.select %17, %18, %cst : f32
    %20 = arith.mulf %19, %in : f32
    %21 = arith.addf %out, %20 : f32
    linalg.yield %21 : f32
  }
  return
}

// A stem with enough work for two threads (2^19 multiply-adds) and row blocks for both splits
// its rows: each thread a range of the loop's row blocks (the first also the top padding's
// block), the filter blocks inside each row block as on one thread.
// CHECK-LABEL: func.func @stem_rows
// CHECK-NOT: scf.forall
// CHECK: return
// THREADS-LABEL: func.func @stem_rows
// THREADS: scf.forall (%[[T:.*]]) in (2) {
// THREADS: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0{{.*}} : index
// THREADS: scf.if %[[FIRST]] {
// THREADS: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// THREADS: %[[HI:.*]] = arith.minsi %{{.*}}, %c64{{.*}} : index
// THREADS: scf.for %[[ROW:.*]] = %{{.*}} to %[[HI]] step %c2
// THREADS-NOT: scf.forall
// THREADS: return
func.func @stem_rows(%x: memref<1x3x128x128xf32>, %w: memref<16x3x3x3xf32>, %y: memref<1x16x64x64xf32>) {
  %c127 = arith.constant 127 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%w : memref<16x3x3x3xf32>) outs(%y : memref<1x16x64x64xf32>) attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    %0 = linalg.index 2 : index
    %1 = linalg.index 3 : index
    %2 = linalg.index 4 : index
    %3 = linalg.index 5 : index
    %4 = linalg.index 6 : index
    %5 = arith.muli %0, %c2 : index
    %6 = arith.addi %5, %3 : index
    %7 = arith.subi %6, %c1 : index
    %8 = arith.maxsi %7, %c0 : index
    %9 = arith.minsi %8, %c127 : index
    %10 = arith.cmpi eq, %7, %9 : index
    %11 = arith.muli %1, %c2 : index
    %12 = arith.addi %11, %4 : index
    %13 = arith.subi %12, %c1 : index
    %14 = arith.maxsi %13, %c0 : index
    %15 = arith.minsi %14, %c127 : index
    %16 = arith.cmpi eq, %13, %15 : index
    %17 = arith.andi %10, %16 : i1
    %18 = memref.load %x[%c0, %2, %9, %15] : memref<1x3x128x128xf32>
    %19 = arith.select %17, %18, %cst : f32
    %20 = arith.mulf %19, %in : f32
    %21 = arith.addf %out, %20 : f32
    linalg.yield %21 : f32
  }
  return
}

// Width stride 3: left alone.
// CHECK-LABEL: func.func @stride_three
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// CHECK: (S) 22 convolutions
// CHECK: (S) 1 bias-fills
// CHECK: (S) 1 identity-fills
// CHECK: (S) 1 casts
func.func @stride_three(%x: memref<1x4x12x31xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x10x10xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 3]> : tensor<2xi64>} ins(%x, %w : memref<1x4x12x31xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x10xf32>)
  return
}
