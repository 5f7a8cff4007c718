// strata-sink-into-parallel (in strata-host-to-llvm, before convert-scf-to-openmp): the views,
// constants and index arithmetic an outermost scf.parallel reads from outside are copied into
// its body, so the OpenMP region captures the arena itself, not pointers derived from it that
// LLVM could no longer relate (its vectoriser then left split loops scalar). Values computed by
// anything else outside (a load) stay captured.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-sink-into-parallel))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-sink-into-parallel))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: strata-opt %s -p 'builtin.module(strata-host-to-llvm)' | FileCheck %s --check-prefix=OMP

// Two views of one arena, a nearest-neighbour upsample split in two: both views (and their
// offsets) are made inside the region; the loop bounds stay outside (the region's operands).
// CHECK-LABEL: func.func @upsample
// CHECK-SAME: (%[[ARENA:.+]]: memref<196608xi8>)
// CHECK: scf.parallel
// CHECK-DAG: %[[IN:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<196608xi8> to memref<16x16x16xf32>
// CHECK-DAG: %[[OUT:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<196608xi8> to memref<16x16x32xf32>
// CHECK: memref.load %[[IN]]
// CHECK: memref.store %{{.+}}, %[[OUT]]
// CHECK: scf.reduce
// OMP-LABEL: llvm.func @upsample
// OMP: %[[OFF:.+]] = llvm.mlir.constant(16384 : index) : i64
// OMP: omp.parallel {
// OMP-NOT: llvm.func
// OMP: llvm.getelementptr %{{.+}}[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
func.func @upsample(%arena: memref<196608xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c16384 = arith.constant 16384 : index
  %in = memref.view %arena[%c0][] : memref<196608xi8> to memref<16x16x16xf32>
  %out = memref.view %arena[%c16384][] : memref<196608xi8> to memref<16x16x32xf32>
  scf.parallel (%t) = (%c0) to (%c2) step (%c1) {
    %first = arith.muli %t, %c8 : index
    %last = arith.addi %first, %c8 : index
    scf.for %c = %first to %last step %c1 {
      scf.for %h = %c0 to %c16 step %c1 {
        scf.for %w = %c0 to %c32 step %c1 {
          %src = arith.divui %w, %c2 : index
          %v = memref.load %in[%c, %h, %src] : memref<16x16x16xf32>
          memref.store %v, %out[%c, %h, %w] : memref<16x16x32xf32>
        }
      }
    }
    scf.reduce
  }
  return
}

// A scalar loaded outside stays captured; the view it is loaded from is copied in only where
// the region reads it too.
// CHECK-LABEL: func.func @loaded_scale
// CHECK: %[[SCALE:.+]] = memref.load
// CHECK: scf.parallel
// CHECK: memref.view
// CHECK: arith.mulf %{{.+}}, %[[SCALE]]
func.func @loaded_scale(%arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4096 = arith.constant 4096 : index
  %scales = memref.view %arena[%c0][] : memref<8192xi8> to memref<4xf32>
  %scale = memref.load %scales[%c0] : memref<4xf32>
  %data = memref.view %arena[%c4096][] : memref<8192xi8> to memref<2x512xf32>
  scf.parallel (%t) = (%c0) to (%c2) step (%c1) {
    scf.for %i = %c0 to %c4096 step %c1 {
      %j = arith.remui %i, %c4096 : index
      %k = arith.divui %j, %c2 : index
      %v = memref.load %data[%t, %k] : memref<2x512xf32>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %data[%t, %k] : memref<2x512xf32>
    }
    scf.reduce
  }
  return
}

// A nested scf.parallel is left to the outer one (whose copies it reads).
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK: memref.view
// CHECK: scf.parallel
// CHECK-NOT: memref.view
// CHECK: return
func.func @nested(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 1.0 : f32
  %data = memref.view %arena[%c0][] : memref<4096xi8> to memref<2x16xf32>
  scf.parallel (%t) = (%c0) to (%c2) step (%c1) {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      memref.store %cst, %data[%t, %i] : memref<2x16xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// STATS: strata-sink-into-parallel
// STATS: 3 regions
