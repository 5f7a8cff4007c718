// plan-arena{parallel-aware}: memory is shared only between buffers whose uses the op
// dependency graph already orders. %t1 dies at op 2 and %t2 is produced at op 4, but op 4
// does not depend on op 2 (the two halves are independent), so sharing would serialise them.
// RUN: strata-opt %s -p 'builtin.module(func.func(plan-arena{strategy=offsets-greedy-by-size}))' | FileCheck %s --check-prefix=SEQ
// RUN: strata-opt %s -p 'builtin.module(func.func(plan-arena{strategy=offsets-greedy-by-size parallel-aware=true}))' | FileCheck %s --check-prefix=PAR
// Every strategy is parallel-aware, the default exact solver included.
// RUN: strata-opt %s -p 'builtin.module(func.func(plan-arena{parallel-aware=true}))' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s -p 'builtin.module(func.func(plan-arena{strategy=min-cost-flow parallel-aware=true}))' | FileCheck %s --check-prefix=PAR

// SEQ: strata.arena_bytes = 256 : i64
// PAR: strata.arena_bytes = 512 : i64
func.func @halves(%out1: memref<64xf32>, %out2: memref<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %t1 = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%t1 : memref<64xf32>)
  linalg.copy ins(%t1 : memref<64xf32>) outs(%out1 : memref<64xf32>)
  %t2 = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%t2 : memref<64xf32>)
  linalg.copy ins(%t2 : memref<64xf32>) outs(%out2 : memref<64xf32>)
  return
}
