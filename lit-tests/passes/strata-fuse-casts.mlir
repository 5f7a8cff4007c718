// strata-fuse-casts: an elementwise kernel whose result only a cast reads writes the cast's
// result itself, on buffers after planning (a cast to unsigned integers that stays alone is
// still written through a signless view, so that the vectoriser takes it). A QDQ activation's quantization (x / scale,
// round, + zero point, clamp) and its cast to uint8 become one generic with the chain's inputs
// and body, then `arith.fptoui`, into the cast's output through a signless view (an
// unrealized cast of the memref), so the elementwise vectoriser takes it; the intermediate
// is never written. The chain may read the intermediate in place, and the cast may read it
// through an expand_shape (the fused kernel writes the output collapsed alike). Not taken when the
// intermediate is read after the cast, or when the cast's output overlaps an input of the
// chain in the arena (writing it could clobber what is still to be read).
// RUN: strata-opt %s -p 'builtin.module(strata-fuse-casts)' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-fuse-casts,strata-vectorize-elementwise{vector-lanes=16})' | FileCheck %s --check-prefix=VECTOR
// RUN: strata-opt %s -p 'builtin.module(strata-fuse-casts,strata-vectorize-elementwise{vector-lanes=16},strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @quantize
// CHECK: %[[Q:.*]] = memref.view %arg2[%c4096][] : memref<8192xi8> to memref<32x32xui8>
// CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %[[Q]] : memref<32x32xui8> to memref<32x32xi8>
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1, %arg1 : memref<32x32xf32>, memref<f32>, memref<f32>) outs(%[[S]] : memref<32x32xi8>) {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i8):
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.addf
// CHECK: %[[B:.*]] = arith.fptoui %{{.*}} : f32 to i8
// CHECK: linalg.yield %[[B]] : i8
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @in_place
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg0 : memref<32x32xf32>, memref<f32>) outs(%{{.*}} : memref<32x32xi8>)
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @reshaped
// CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<1x32x32xui8> to memref<1x32x32xi8>
// CHECK: %[[W:.*]] = memref.collapse_shape %[[S]] {{\[}}[0, 1], [2]] : memref<1x32x32xi8> into memref<32x32xi8>
// CHECK: linalg.generic {{.*}} outs(%[[W]] : memref<32x32xi8>)
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @read_later
// CHECK: outs(%{{.*}} : memref<32x32xf32>)
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<32x32xui8> to memref<32x32xi8>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<32x32xf32>) outs(%[[V]] : memref<32x32xi8>)
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK-LABEL: func.func @overlapping
// CHECK: outs(%{{.*}} : memref<32x32xf32>)
// CHECK: outs(%{{.*}} : memref<32x32xi8>)
// CHECK: 3 fused
// CHECK: 2 signless
// VECTOR-LABEL: func.func @quantize
// VECTOR: arith.divf {{.*}} : vector<16xf32>
// VECTOR: arith.fptoui {{.*}} : vector<16xf32> to vector<16xi8>
// VECTOR: vector.store {{.*}} : memref<{{.*}}xi8{{.*}}>, vector<16xi8>
// LLVM-LABEL: llvm.func @quantize
// LLVM: llvm.fptoui {{.*}} : vector<16xf32> to vector<16xi8>
// LLVM-NOT: unrealized_conversion_cast
func.func @quantize(%x: memref<32x32xf32>, %scale: memref<f32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #scalar, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %scale, %scale : memref<32x32xf32>, memref<f32>, memref<f32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %z: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    %r = math.roundeven %d : f32
    %y = arith.addf %r, %z : f32
    linalg.yield %y : f32
  }
  %q = memref.view %arena[%c4096][] : memref<8192xi8> to memref<32x32xui8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<32x32xf32>) outs(%q : memref<32x32xui8>) {
  ^bb0(%a: f32, %o: ui8):
    %b = arith.fptoui %a : f32 to i8
    %u = builtin.unrealized_conversion_cast %b : i8 to ui8
    linalg.yield %u : ui8
  }
  return
}

// The chain over its input in place (the input's last reader).
func.func @in_place(%scale: memref<f32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %scale : memref<32x32xf32>, memref<f32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  %q = memref.view %arena[%c4096][] : memref<8192xi8> to memref<32x32xui8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<32x32xf32>) outs(%q : memref<32x32xui8>) {
  ^bb0(%a: f32, %o: ui8):
    %b = arith.fptoui %a : f32 to i8
    %u = builtin.unrealized_conversion_cast %b : i8 to ui8
    linalg.yield %u : ui8
  }
  return
}

// The cast reads the chain's 2-D result as [1, 32, 32]: the fused kernel writes the cast's
// output collapsed the same way.
func.func @reshaped(%x: memref<32x32xf32>, %scale: memref<f32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %scale : memref<32x32xf32>, memref<f32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  %t3 = memref.expand_shape %t [[0, 1], [2]] output_shape [1, 32, 32] : memref<32x32xf32> into memref<1x32x32xf32>
  %q = memref.view %arena[%c4096][] : memref<8192xi8> to memref<1x32x32xui8>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t3 : memref<1x32x32xf32>) outs(%q : memref<1x32x32xui8>) {
  ^bb0(%a: f32, %o: ui8):
    %b = arith.fptoui %a : f32 to i8
    %u = builtin.unrealized_conversion_cast %b : i8 to ui8
    linalg.yield %u : ui8
  }
  return
}

// The intermediate is read again after the cast: both stay (the cast through its signless
// view).
func.func @read_later(%x: memref<32x32xf32>, %scale: memref<f32>, %arena: memref<8192xi8>, %out: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %scale : memref<32x32xf32>, memref<f32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  %q = memref.view %arena[%c4096][] : memref<8192xi8> to memref<32x32xui8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<32x32xf32>) outs(%q : memref<32x32xui8>) {
  ^bb0(%a: f32, %o: ui8):
    %b = arith.fptoui %a : f32 to i8
    %u = builtin.unrealized_conversion_cast %b : i8 to ui8
    linalg.yield %u : ui8
  }
  memref.copy %t, %out : memref<32x32xf32> to memref<32x32xf32>
  return
}

// The cast's output over the chain's input (planning may reuse the input's bytes once the
// chain has read them): both stay.
func.func @overlapping(%scale: memref<f32>, %arena: memref<12288xi8>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %x = memref.view %arena[%c0][] : memref<12288xi8> to memref<32x32xf32>
  %t = memref.view %arena[%c4096][] : memref<12288xi8> to memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %scale : memref<32x32xf32>, memref<f32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  %q = memref.view %arena[%c0][] : memref<12288xi8> to memref<32x32xui8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<32x32xf32>) outs(%q : memref<32x32xui8>) {
  ^bb0(%a: f32, %o: ui8):
    %b = arith.fptoui %a : f32 to i8
    %u = builtin.unrealized_conversion_cast %b : i8 to ui8
    linalg.yield %u : ui8
  }
  return
}
