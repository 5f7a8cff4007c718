// strata-vectorize-integer-matmul writes the sums of sg.quantized_matmul (ui8 rows times the
// packed i8 weight [N / 16, K / 4, 16, 4], i32 sums) as AVX-512 VNNI dot products on buffers:
// blocks of 4 rows x 4 vectors of 16 columns (fewer vectors in the last, narrower block) whose
// 16 accumulators the loop over K / 4 carries, per step a 64-byte load of each packed vector,
// each row's 4 bytes broadcast, and `vpdpbusd`. With the lowering's start (offsets into the
// sums) just before and its scaling (sums times scales into f32) just after, past the
// arena's views, both run in the registers and go; alone, the sums start from their buffer
// and are stored back into it; an i32 result (a MatMulInteger's) takes the start alone.
// The lowering holds the sums in the f32 result as their bits (bitcasts in and out), the
// scaling written over them; the i32 buffer form is taken too.
// sg.quantized_conv's form has the pixels packed (ui8, 16 to a register) and the filter rows
// (i8) broadcast, so vpdpbusd takes its operands the other way round; its offsets and scales
// are one per row, and the last register of pixels, partly past N, is stored with a mask. Its
// packing generic becomes two levels of shuffles (four 16-byte rows into one 64-byte store).
// When the pixels are a cast's (f32 to ui8, a QDQ activation's last step) just before it, past
// the padding's fill and copy, the shuffles read the f32 rows themselves (masked past the
// pixels) and convert them: the cast, fill and copy go, if the f32 rows and the packed output
// are apart in the arena and nothing reads the pixels afterwards.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-integer-matmul)' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-integer-matmul,strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM
// With threads, a big one's whole column blocks are an scf.forall; with fewer than two of
// them (7 x 7 pixels), its whole row blocks.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-integer-matmul{threads=2})' | FileCheck %s --check-prefix=THREADS
// With amx (hosts with AMX-INT8 whose kernel grants the tiles), products of at least 32 rows,
// 64 bytes of depth and whole tiles of columns run on tiles: blocks of 2 x 2 tiles of 16 x 16
// sums, each fed per step of depth (K in equal steps of at most 64 bytes: 96 as two of 48) by
// two tiles of rows read in place and two of the packed operand; the 8 rows past the last
// whole block as a tile moved back to end at the last row, so every tile has one shape. The
// tiles are stored where the sums go (the f32 result holding their bits) and the epilogue
// runs there, a row at a time; sums accumulated in their buffer start as tiles loaded from it
// and are stored back. Shallower, shorter or partly masked products keep the VNNI kernel.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-integer-matmul{amx=true})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-integer-matmul{amx=true},strata-host-to-llvm)' | FileCheck %s --check-prefix=TILES-LLVM

#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2 floordiv 4, d1 mod 16, d2 mod 4)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
#interleave = affine_map<(d0, d1, d2, d3) -> (d1 * 4 + d3, d0 * 16 + d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>

// 6 rows x 96 columns: a block of 4 rows, then one of the 2 left; 64 columns, then 32.
// CHECK-LABEL: func.func @fused
// CHECK: %[[OUT:.*]] = memref.view %arg4[%c2304][] : memref<4608xi8> to memref<6x96xf32>
// CHECK: scf.execute_region no_inline {
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<6x3x16x4xi8> into memref<6x3x64xi8>
// CHECK: vector.load %arg2[{{.*}}] : memref<96xi32>, vector<16xi32>
// CHECK: scf.for {{.*}} = %c0{{.*}} to %c3 step %c1{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>) {
// CHECK: vector.load {{.*}} : memref<6x3x64xi8>, vector<64xi8>
// CHECK: vector.load %arg0[{{.*}}] : memref<6x12xui8>, vector<4xui8>
// CHECK: vector.bitcast {{.*}} : vector<4xui8> to vector<1xi32>
// CHECK: vector.broadcast {{.*}} : i32 to vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: } {loop_annotation
// CHECK: vector.load %arg3[{{.*}}] : memref<96xf32>, vector<16xf32>
// CHECK: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: arith.mulf
// CHECK: vector.store {{.*}}, %[[OUT]][{{.*}}] : memref<6x96xf32>, vector<16xf32>
// CHECK: iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>) {
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @alone
// CHECK: vector.load %arg2[{{.*}}] : memref<4x32xi32>, vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: vector.store {{.*}}, %arg2[{{.*}}] : memref<4x32xi32>, vector<16xi32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @integer
// CHECK: vector.load %arg2[{{.*}}] : memref<32xi32>, vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: vector.store {{.*}}, %arg3[{{.*}}] : memref<4x32xi32>, vector<16xi32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @pixels
// CHECK: vector.load %arg0[{{.*}}] : memref<8x48xui8>, vector<16xui8>
// CHECK: vector.shuffle {{.*}} [0, 16, 1, 17, {{.*}}] : vector<16xui8>, vector<16xui8>
// CHECK: vector.shuffle {{.*}} [0, 1, 32, 33, {{.*}}] : vector<32xui8>, vector<32xui8>
// CHECK: vector.store {{.*}} : memref<3x2x64xui8>, vector<64xui8>
// CHECK: vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: memref.load %arg3[{{.*}}] : memref<12xi32>
// CHECK: vector.broadcast {{.*}} : i32 to vector<16xi32>
// CHECK: vector.load {{.*}} : memref<3x2x64xui8>, vector<64xui8>
// CHECK: vector.load %arg2[{{.*}}] : memref<12x8xi8>, vector<4xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: memref.load %arg4[{{.*}}] : memref<12xf32>
// CHECK: vector.maskedstore %arg5[{{.*}}], %{{.*}}, %{{.*}} : memref<12x35xf32>, vector<16xi1>, vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @pixels_alone
// CHECK: vector.maskedload %arg2[{{.*}}], %{{.*}}, %{{.*}} : memref<4x35xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: arith.bitcast %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: vector.maskedstore %arg2[{{.*}}], %{{.*}}, %{{.*}} : memref<4x35xf32>, vector<16xi1>, vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @from_floats
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: memref.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : memref<1x8x5x7xf32> into memref<8x35xf32>
// CHECK: vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.maskedload {{.*}} : memref<8x35xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: arith.fptoui {{.*}} : vector<16xf32> to vector<16xi8>
// CHECK: vector.shuffle
// CHECK: vector.bitcast {{.*}} : vector<16xi32> to vector<64xui8>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @read_later
// CHECK: linalg.generic
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: vector.load {{.*}} : memref<8x48xui8>, vector<16xui8>
// CHECK: memref.copy
// CHECK-LABEL: func.func @pixels_epilogue(
// CHECK-DAG: memref.collapse_shape %arg6 {{\[}}[0, 1], [2, 3]] : memref<1x12x5x7xf32> into memref<12x35xf32>
// CHECK-DAG: memref.load %arg5[] : memref<f32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: memref.load %arg4[%{{.*}}, %c0{{.*}}, %c0{{.*}}] : memref<12x1x1xf32>
// CHECK: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[Y:.*]] = arith.mulf
// CHECK: %[[RES:.*]] = vector.maskedload %{{.*}}[{{.*}}], %{{.*}}, %{{.*}} : memref<12x35xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: %[[B:.*]] = arith.addf %[[Y]], %{{.*}} : vector<16xf32>
// CHECK: %[[M:.*]] = arith.maximumf %[[B]], %{{.*}} : vector<16xf32>
// CHECK: %[[Q:.*]] = arith.divf %[[M]], %{{.*}} : vector<16xf32>
// CHECK: %[[R:.*]] = math.roundeven %[[Q]] : vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[R]], %[[RES]] : vector<16xf32>
// CHECK: vector.maskedstore %{{.*}}[{{.*}}], %{{.*}}, %[[SUM]] : memref<12x35xf32>, vector<16xi1>, vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @pixels_epilogue_cast(
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: 12 matmuls
// CHECK: 6 fused
// CHECK: 1 started
// CHECK: 2 epilogues
// CHECK: 3 interleaves
// CHECK: 1 from-floats
// LLVM-LABEL: llvm.func @fused
// LLVM: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// THREADS-LABEL: func.func @big
// THREADS: scf.forall (%{{.*}}) in (4) {
// THREADS: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// THREADS-LABEL: func.func @tall
// THREADS: scf.forall (%{{.*}}) in (80) {
// THREADS: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// THREADS: vector.maskedstore
// TILES-LABEL: func.func @fused(
// TILES: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// TILES-LABEL: func.func @fused_tiles
// TILES: %[[OUT:.*]] = memref.view %arg4[%c7680][] : memref<15360xi8> to memref<40x48xf32>
// TILES: scf.for %{{.*}} = %c0{{.*}} to %c32 step %c32 {
// TILES: amx.tile_zero : !amx.tile<16x16xi32>
// TILES: scf.for %{{.*}} = %c0{{.*}} to %c96 step %c48 iter_args({{.*}}) -> (!amx.tile<16x16xi32>, !amx.tile<16x16xi32>, !amx.tile<16x16xi32>, !amx.tile<16x16xi32>) {
// TILES: amx.tile_load %arg0[{{.*}}] : memref<40x96xui8> into !amx.tile<16x48xi8>
// TILES: amx.tile_load %{{.*}} : memref<3x24x64xi8> into !amx.tile<12x64xi8>
// TILES: amx.tile_muli %{{.*}} zext, %{{.*}}, %{{.*}} : !amx.tile<16x48xi8>, !amx.tile<12x64xi8>, !amx.tile<16x16xi32>
// TILES: amx.tile_store %[[OUT]][{{.*}}], %{{.*}} : memref<40x48xf32>, !amx.tile<16x16xi32>
// TILES: vector.load %arg2[{{.*}}] : memref<48xi32>, vector<16xi32>
// TILES: vector.load %arg3[{{.*}}] : memref<48xf32>, vector<16xf32>
// TILES: vector.load %[[OUT]][{{.*}}] : memref<40x48xf32>, vector<16xf32>
// TILES: arith.bitcast {{.*}} : vector<16xf32> to vector<16xi32>
// TILES: arith.sitofp
// TILES: vector.store {{.*}}, %[[OUT]][{{.*}}] : memref<40x48xf32>, vector<16xf32>
// The last 8 rows: one tile from row 24, all of whose sums are stored (again) and finished.
// TILES: arith.subi %c32, %c8 : index
// TILES-NOT: linalg.generic
// TILES-LABEL: func.func @big
// TILES: amx.tile_load %arg2[{{.*}}] : memref<64x256xi32> into !amx.tile<16x16xi32>
// TILES: scf.for %{{.*}} = %c0{{.*}} to %c256 step %c64 iter_args({{.*}}) -> (!amx.tile<16x16xi32>, !amx.tile<16x16xi32>, !amx.tile<16x16xi32>, !amx.tile<16x16xi32>) {
// TILES: amx.tile_load %arg0[{{.*}}] : memref<64x256xui8> into !amx.tile<16x64xi8>
// TILES: amx.tile_load %{{.*}}[{{.*}}, %c0{{.*}}] : memref<16x64x64xi8> into !amx.tile<16x64xi8>
// TILES: amx.tile_muli %{{.*}} zext, %{{.*}}, %{{.*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// TILES: amx.tile_store %arg2[{{.*}}], %{{.*}} : memref<64x256xi32>, !amx.tile<16x16xi32>
// TILES-NOT: vector.store
// TILES-LABEL: func.func @pixels(
// TILES: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// TILES-LABEL: func.func @tall(
// TILES: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// TILES-LABEL: func.func @tall_tiles
// TILES: amx.tile_load %arg2[{{.*}}] : memref<64x64xf32> into !amx.tile<16x16xi32>
// TILES: amx.tile_muli %{{.*}}, %{{.*}} zext, %{{.*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// TILES: amx.tile_store %arg2[{{.*}}], %{{.*}} : memref<64x64xf32>, !amx.tile<16x16xi32>
// On tiles, the epilogue after the scaling runs on each row's register of the stored tiles.
// TILES-LABEL: func.func @pixels_epilogue_tiles
// TILES: amx.tile_store
// TILES: scf.for %[[R:.*]] = %c0{{.*}} to %c16 step %c1
// TILES: %[[Y:.*]] = arith.addi %{{.*}}, %[[R]] : index
// TILES: %[[S:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// TILES: memref.load %arg4[%[[Y]], %c0{{.*}}, %c0{{.*}}] : memref<32x1x1xf32>
// TILES: %[[B:.*]] = arith.addf %[[S]], %{{.*}} : vector<16xf32>
// TILES: %[[N:.*]] = math.roundeven %[[B]] : vector<16xf32>
// TILES: vector.store %[[N]], %{{.*}}[%[[Y]], %{{.*}}] : memref<32x64xf32>, vector<16xf32>
// TILES-NOT: linalg.generic
// TILES: 4 on-tiles
// TILES-LLVM-LABEL: llvm.func @fused_tiles
// TILES-LLVM: llvm.call_intrinsic "llvm.x86.tdpbusd.internal"
// TILES-LLVM: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// TILES-LLVM-LABEL: llvm.func @tall_tiles
// TILES-LLVM: llvm.call_intrinsic "llvm.x86.tdpbsud.internal"
func.func @fused(%a: memref<6x12xui8>, %b: memref<6x3x16x4xi8>, %offsets: memref<96xi32>, %scales: memref<96xf32>, %arena: memref<4608xi8>) {
  %c0 = arith.constant 0 : index
  %sums = memref.view %arena[%c0][] : memref<4608xi8> to memref<6x96xi32>
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<96xi32>) outs(%sums : memref<6x96xi32>) {
  ^bb0(%in: i32, %o: i32):
    linalg.yield %in : i32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<6x12xui8>, memref<6x3x16x4xi8>) outs(%sums : memref<6x96xi32>) {
  ^bb0(%x: ui8, %w: i8, %acc: i32):
    %xs = builtin.unrealized_conversion_cast %x : ui8 to i8
    %xw = arith.extui %xs : i8 to i32
    %ww = arith.extsi %w : i8 to i32
    %p = arith.muli %xw, %ww : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  %c2304 = arith.constant 2304 : index
  %out = memref.view %arena[%c2304][] : memref<4608xi8> to memref<6x96xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%sums, %scales : memref<6x96xi32>, memref<96xf32>) outs(%out : memref<6x96xf32>) {
  ^bb0(%s: i32, %k: f32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    %y = arith.mulf %f, %k : f32
    linalg.yield %y : f32
  }
  return
}

// No start before it nor scaling after: the sums from and into their buffer.
func.func @alone(%a: memref<4x8xui8>, %b: memref<2x2x16x4xi8>, %c: memref<4x32xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xui8>, memref<2x2x16x4xi8>) outs(%c : memref<4x32xi32>) {
  ^bb0(%x: ui8, %w: i8, %acc: i32):
    %xs = builtin.unrealized_conversion_cast %x : ui8 to i8
    %xw = arith.extui %xs : i8 to i32
    %ww = arith.extsi %w : i8 to i32
    %p = arith.muli %xw, %ww : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// An i32 result (a MatMulInteger's): the start alone runs in the registers.
func.func @integer(%a: memref<4x8xui8>, %b: memref<2x2x16x4xi8>, %offsets: memref<32xi32>, %c: memref<4x32xi32>) {
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<32xi32>) outs(%c : memref<4x32xi32>) {
  ^bb0(%in: i32, %o: i32):
    linalg.yield %in : i32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xui8>, memref<2x2x16x4xi8>) outs(%c : memref<4x32xi32>) {
  ^bb0(%x: ui8, %w: i8, %acc: i32):
    %xs = builtin.unrealized_conversion_cast %x : ui8 to i8
    %xw = arith.extui %xs : i8 to i32
    %ww = arith.extsi %w : i8 to i32
    %p = arith.muli %xw, %ww : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// @fused with 40 rows of 96 bytes and 48 columns.
func.func @fused_tiles(%a: memref<40x96xui8>, %b: memref<3x24x16x4xi8>, %offsets: memref<48xi32>, %scales: memref<48xf32>, %arena: memref<15360xi8>) {
  %c0 = arith.constant 0 : index
  %sums = memref.view %arena[%c0][] : memref<15360xi8> to memref<40x48xi32>
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<48xi32>) outs(%sums : memref<40x48xi32>) {
  ^bb0(%in: i32, %o: i32):
    linalg.yield %in : i32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<40x96xui8>, memref<3x24x16x4xi8>) outs(%sums : memref<40x48xi32>) {
  ^bb0(%x: ui8, %w: i8, %acc: i32):
    %xs = builtin.unrealized_conversion_cast %x : ui8 to i8
    %xw = arith.extui %xs : i8 to i32
    %ww = arith.extsi %w : i8 to i32
    %p = arith.muli %xw, %ww : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  %c7680 = arith.constant 7680 : index
  %out = memref.view %arena[%c7680][] : memref<15360xi8> to memref<40x48xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%sums, %scales : memref<40x48xi32>, memref<48xf32>) outs(%out : memref<40x48xf32>) {
  ^bb0(%s: i32, %k: f32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    %y = arith.mulf %f, %k : f32
    linalg.yield %y : f32
  }
  return
}

// 64 x 256 x 256: enough work to split, 4 whole column blocks of 64.
func.func @big(%a: memref<64x256xui8>, %b: memref<16x64x16x4xi8>, %c: memref<64x256xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<64x256xui8>, memref<16x64x16x4xi8>) outs(%c : memref<64x256xi32>) {
  ^bb0(%x: ui8, %w: i8, %acc: i32):
    %xs = builtin.unrealized_conversion_cast %x : ui8 to i8
    %xw = arith.extui %xs : i8 to i32
    %ww = arith.extsi %w : i8 to i32
    %p = arith.muli %xw, %ww : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// sg.quantized_conv's lowering on buffers: 8 channels of 35 pixels (padded to 48) packed, then
// 12 output channels, the sums held as their bits in the f32 result, scaled over themselves.
func.func @pixels(%x: memref<8x48xui8>, %p: memref<3x2x16x4xui8>, %w: memref<12x8xi8>, %offsets: memref<12xi32>, %scales: memref<12xf32>, %out: memref<12x35xf32>) {
  linalg.generic {indexing_maps = [#interleave, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<8x48xui8>) outs(%p : memref<3x2x16x4xui8>) {
  ^bb0(%in: ui8, %o: ui8):
    linalg.yield %in : ui8
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<12xi32>) outs(%out : memref<12x35xf32>) {
  ^bb0(%in: i32, %o: f32):
    %f = arith.bitcast %in : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<12x8xi8>, memref<3x2x16x4xui8>) outs(%out : memref<12x35xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %s = arith.addi %acc, %m : i32
    %f = arith.bitcast %s : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%scales : memref<12xf32>) outs(%out : memref<12x35xf32>) {
  ^bb0(%k: f32, %held: f32):
    %s = arith.bitcast %held : f32 to i32
    %f = arith.sitofp %s : i32 to f32
    %y = arith.mulf %f, %k : f32
    linalg.yield %y : f32
  }
  return
}

// The sums alone (their bits in f32), from and into their buffer: masked loads and stores of
// the last register.
func.func @pixels_alone(%w: memref<4x8xi8>, %p: memref<3x2x16x4xui8>, %c: memref<4x35xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<4x8xi8>, memref<3x2x16x4xui8>) outs(%c : memref<4x35xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %s = arith.addi %acc, %m : i32
    %f = arith.bitcast %s : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// The cast of a QDQ activation into ui8, padded to whole 16-pixel registers, then packed: the
// packing reads the f32 rows (an argument) into the arena.
func.func @from_floats(%x: memref<1x8x5x7xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0 : i8
  %z = builtin.unrealized_conversion_cast %zero : i8 to ui8
  %u = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x8x5x7xui8>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x5x7xf32>) outs(%u : memref<1x8x5x7xui8>) {
  ^bb0(%in: f32, %o: ui8):
    %i = arith.fptoui %in : f32 to i8
    %v = builtin.unrealized_conversion_cast %i : i8 to ui8
    linalg.yield %v : ui8
  }
  %flat = memref.collapse_shape %u [[0, 1], [2, 3]] : memref<1x8x5x7xui8> into memref<8x35xui8>
  %padded = memref.view %arena[%c1024][] : memref<4096xi8> to memref<8x48xui8>
  linalg.fill ins(%z : ui8) outs(%padded : memref<8x48xui8>)
  %window = memref.subview %padded[0, 0] [8, 35] [1, 1] : memref<8x48xui8> to memref<8x35xui8, strided<[48, 1]>>
  linalg.copy ins(%flat : memref<8x35xui8>) outs(%window : memref<8x35xui8, strided<[48, 1]>>)
  %p = memref.view %arena[%c0][] : memref<4096xi8> to memref<3x2x16x4xui8>
  linalg.generic {indexing_maps = [#interleave, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<8x48xui8>) outs(%p : memref<3x2x16x4xui8>) {
  ^bb0(%in: ui8, %o: ui8):
    linalg.yield %in : ui8
  }
  return
}

// The same, but the padded pixels are read again afterwards: the cast, fill and copy stay.
func.func @read_later(%x: memref<1x8x5x7xf32>, %arena: memref<4096xi8>, %out: memref<8x48xui8>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0 : i8
  %z = builtin.unrealized_conversion_cast %zero : i8 to ui8
  %u = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x8x5x7xui8>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x5x7xf32>) outs(%u : memref<1x8x5x7xui8>) {
  ^bb0(%in: f32, %o: ui8):
    %i = arith.fptoui %in : f32 to i8
    %v = builtin.unrealized_conversion_cast %i : i8 to ui8
    linalg.yield %v : ui8
  }
  %flat = memref.collapse_shape %u [[0, 1], [2, 3]] : memref<1x8x5x7xui8> into memref<8x35xui8>
  %padded = memref.view %arena[%c1024][] : memref<4096xi8> to memref<8x48xui8>
  linalg.fill ins(%z : ui8) outs(%padded : memref<8x48xui8>)
  %window = memref.subview %padded[0, 0] [8, 35] [1, 1] : memref<8x48xui8> to memref<8x35xui8, strided<[48, 1]>>
  linalg.copy ins(%flat : memref<8x35xui8>) outs(%window : memref<8x35xui8, strided<[48, 1]>>)
  %p = memref.view %arena[%c0][] : memref<4096xi8> to memref<3x2x16x4xui8>
  linalg.generic {indexing_maps = [#interleave, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<8x48xui8>) outs(%p : memref<3x2x16x4xui8>) {
  ^bb0(%in: ui8, %o: ui8):
    linalg.yield %in : ui8
  }
  memref.copy %padded, %out : memref<8x48xui8> to memref<8x48xui8>
  return
}

// A QDQ activation after the convolution's scaling, over its result in place (through the
// expansion to NCHW): a per-channel bias, a clamp at a constant, a division by a scalar, a
// rounding, and a residual of the result's shape. The kernel applies it to its registers
// before the store (the residual's registers loaded from its collapsed rows, masked as the
// store is), and the generic goes.
func.func @pixels_epilogue(%w: memref<12x8xi8>, %p: memref<3x2x16x4xui8>, %offsets: memref<12xi32>, %scales: memref<12xf32>, %bias: memref<12x1x1xf32>, %s: memref<f32>, %res: memref<1x12x5x7xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<12x35xf32>
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<12xi32>) outs(%out : memref<12x35xf32>) {
  ^bb0(%in: i32, %o: f32):
    %f = arith.bitcast %in : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<12x8xi8>, memref<3x2x16x4xui8>) outs(%out : memref<12x35xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %sum = arith.addi %acc, %m : i32
    %f = arith.bitcast %sum : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%scales : memref<12xf32>) outs(%out : memref<12x35xf32>) {
  ^bb0(%k: f32, %held: f32):
    %b = arith.bitcast %held : f32 to i32
    %f = arith.sitofp %b : i32 to f32
    %y = arith.mulf %f, %k : f32
    linalg.yield %y : f32
  }
  %e = memref.expand_shape %out [[0, 1], [2, 3]] output_shape [1, 12, 5, 7] : memref<12x35xf32> into memref<1x12x5x7xf32>
  linalg.generic {indexing_maps = [#id4, #channel, #scalar, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %bias, %s, %res : memref<1x12x5x7xf32>, memref<12x1x1xf32>, memref<f32>, memref<1x12x5x7xf32>) outs(%e : memref<1x12x5x7xf32>) {
  ^bb0(%x: f32, %bi: f32, %sc: f32, %r: f32, %o: f32):
    %t = arith.addf %x, %bi : f32
    %u = arith.maximumf %t, %zero : f32
    %q = arith.divf %u, %sc : f32
    %n = math.roundeven %q : f32
    %y = arith.addf %n, %r : f32
    linalg.yield %y : f32
  }
  return
}

// The same activation followed by its cast to bytes (the next convolution's pixels): left for
// strata-fuse-casts to merge, which reads the result once and writes only the bytes.
func.func @pixels_epilogue_cast(%w: memref<12x8xi8>, %p: memref<3x2x16x4xui8>, %offsets: memref<12xi32>, %scales: memref<12xf32>, %s: memref<f32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<12x35xf32>
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<12xi32>) outs(%out : memref<12x35xf32>) {
  ^bb0(%in: i32, %o: f32):
    %f = arith.bitcast %in : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<12x8xi8>, memref<3x2x16x4xui8>) outs(%out : memref<12x35xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %sum = arith.addi %acc, %m : i32
    %f = arith.bitcast %sum : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%scales : memref<12xf32>) outs(%out : memref<12x35xf32>) {
  ^bb0(%k: f32, %held: f32):
    %b = arith.bitcast %held : f32 to i32
    %f = arith.sitofp %b : i32 to f32
    %y = arith.mulf %f, %k : f32
    linalg.yield %y : f32
  }
  %e = memref.expand_shape %out [[0, 1], [2, 3]] output_shape [1, 12, 5, 7] : memref<12x35xf32> into memref<1x12x5x7xf32>
  linalg.generic {indexing_maps = [#id4, #scalar, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %s : memref<1x12x5x7xf32>, memref<f32>) outs(%e : memref<1x12x5x7xf32>) {
  ^bb0(%x: f32, %sc: f32, %o: f32):
    %q = arith.divf %x, %sc : f32
    %n = math.roundeven %q : f32
    linalg.yield %n : f32
  }
  %bytes = memref.view %arena[%c2048][] : memref<4096xi8> to memref<1x12x5x7xui8>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e : memref<1x12x5x7xf32>) outs(%bytes : memref<1x12x5x7xui8>) {
  ^bb0(%in: f32, %o: ui8):
    %i = arith.fptoui %in : f32 to i8
    %v = builtin.unrealized_conversion_cast %i : i8 to ui8
    linalg.yield %v : ui8
  }
  return
}

// 320 output channels of 7 x 7 pixels (one block of 64 columns), 256 input channels: the rows
// are split.
func.func @tall(%w: memref<320x256xi8>, %p: memref<4x64x16x4xui8>, %c: memref<320x49xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<320x256xi8>, memref<4x64x16x4xui8>) outs(%c : memref<320x49xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %s = arith.addi %acc, %m : i32
    %f = arith.bitcast %s : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// @tall with 64 filters of 256 bytes and 64 pixels: whole tiles of columns.
func.func @tall_tiles(%w: memref<64x256xi8>, %p: memref<4x64x16x4xui8>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<64x256xi8>, memref<4x64x16x4xui8>) outs(%c : memref<64x64xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %s = arith.addi %acc, %m : i32
    %f = arith.bitcast %s : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// 32 filters of 64 input channels over 8 x 8 pixels: on AMX tiles, with a per-channel bias
// and a rounding after the scaling.
func.func @pixels_epilogue_tiles(%w: memref<32x64xi8>, %p: memref<4x16x16x4xui8>, %offsets: memref<32xi32>, %scales: memref<32xf32>, %bias: memref<32x1x1xf32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %out = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x64xf32>
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%offsets : memref<32xi32>) outs(%out : memref<32x64xf32>) {
  ^bb0(%in: i32, %o: f32):
    %f = arith.bitcast %in : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %p : memref<32x64xi8>, memref<4x16x16x4xui8>) outs(%out : memref<32x64xf32>) {
  ^bb0(%v: i8, %q: ui8, %held: f32):
    %qs = builtin.unrealized_conversion_cast %q : ui8 to i8
    %vw = arith.extsi %v : i8 to i32
    %qw = arith.extui %qs : i8 to i32
    %m = arith.muli %vw, %qw : i32
    %acc = arith.bitcast %held : f32 to i32
    %sum = arith.addi %acc, %m : i32
    %f = arith.bitcast %sum : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%scales : memref<32xf32>) outs(%out : memref<32x64xf32>) {
  ^bb0(%k: f32, %held: f32):
    %b = arith.bitcast %held : f32 to i32
    %f = arith.sitofp %b : i32 to f32
    %y = arith.mulf %f, %k : f32
    linalg.yield %y : f32
  }
  %e = memref.expand_shape %out [[0, 1], [2, 3]] output_shape [1, 32, 8, 8] : memref<32x64xf32> into memref<1x32x8x8xf32>
  linalg.generic {indexing_maps = [#id4, #channel, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %bias : memref<1x32x8x8xf32>, memref<32x1x1xf32>) outs(%e : memref<1x32x8x8xf32>) {
  ^bb0(%x: f32, %bi: f32, %o: f32):
    %t = arith.addf %x, %bi : f32
    %n = math.roundeven %t : f32
    linalg.yield %n : f32
  }
  return
}
