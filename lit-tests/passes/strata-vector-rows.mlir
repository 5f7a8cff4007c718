// strata-vector-rows: a 2-D vector.from_elements made of whole rows (each row all the results
// of one vector.to_elements, in order) becomes ub.poison and one vector.insert per row, which
// convert-vector-to-llvm lowers to one llvm.insertvalue per row instead of an
// extractelement/insertelement per element. Other from_elements (a transpose's interleaved
// elements, rows out of order, a row taken from two vectors) stay as they are.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-vector-rows))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-vector-rows))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[A:.*]]: vector<4xf32>, %[[B:.*]]: vector<4xf32>)
// CHECK: %[[P:.*]] = ub.poison : vector<3x4xf32>
// CHECK: %[[R0:.*]] = vector.insert %[[A]], %[[P]] [0] : vector<4xf32> into vector<3x4xf32>
// CHECK: %[[R1:.*]] = vector.insert %[[B]], %[[R0]] [1] : vector<4xf32> into vector<3x4xf32>
// CHECK: %[[R2:.*]] = vector.insert %[[A]], %[[R1]] [2] : vector<4xf32> into vector<3x4xf32>
// CHECK-NOT: vector.to_elements
// CHECK-NOT: vector.from_elements
// CHECK: return %[[R2]]
func.func @rows(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<3x4xf32> {
  %x:4 = vector.to_elements %a : vector<4xf32>
  %y:4 = vector.to_elements %b : vector<4xf32>
  %m = vector.from_elements %x#0, %x#1, %x#2, %x#3, %y#0, %y#1, %y#2, %y#3, %x#0, %x#1, %x#2, %x#3 : vector<3x4xf32>
  return %m : vector<3x4xf32>
}

// CHECK-LABEL: func.func @transposed
// CHECK: vector.from_elements
func.func @transposed(%a: vector<2xf32>, %b: vector<2xf32>) -> vector<2x2xf32> {
  %x:2 = vector.to_elements %a : vector<2xf32>
  %y:2 = vector.to_elements %b : vector<2xf32>
  %m = vector.from_elements %x#0, %y#0, %x#1, %y#1 : vector<2x2xf32>
  return %m : vector<2x2xf32>
}

// CHECK-LABEL: func.func @mixed
// CHECK: vector.from_elements
func.func @mixed(%a: vector<2xf32>, %b: vector<2xf32>) -> vector<2x2xf32> {
  %x:2 = vector.to_elements %a : vector<2xf32>
  %y:2 = vector.to_elements %b : vector<2xf32>
  %m = vector.from_elements %x#0, %y#1, %y#0, %y#1 : vector<2x2xf32>
  return %m : vector<2x2xf32>
}

// CHECK-LABEL: func.func @to_elements_kept
// CHECK: %[[E:.*]]:2 = vector.to_elements
// CHECK: vector.insert
// CHECK: arith.addf %[[E]]#0, %[[E]]#1
func.func @to_elements_kept(%a: vector<2xf32>) -> (vector<1x2xf32>, f32) {
  %x:2 = vector.to_elements %a : vector<2xf32>
  %m = vector.from_elements %x#0, %x#1 : vector<1x2xf32>
  %s = arith.addf %x#0, %x#1 : f32
  return %m, %s : vector<1x2xf32>, f32
}

// STATS: (S) 3 rows - vector.from_elements rebuilt from row inserts

// Rank 3: the rows in order of their (i, j) positions.
// CHECK-LABEL: func.func @rank3
// CHECK: vector.insert %arg0, %{{.*}} [0, 0] : vector<2xf32> into vector<2x2x2xf32>
// CHECK: vector.insert %arg1, %{{.*}} [0, 1] : vector<2xf32> into vector<2x2x2xf32>
// CHECK: vector.insert %arg1, %{{.*}} [1, 0] : vector<2xf32> into vector<2x2x2xf32>
// CHECK: vector.insert %arg0, %{{.*}} [1, 1] : vector<2xf32> into vector<2x2x2xf32>
// CHECK-NOT: vector.from_elements
func.func @rank3(%a: vector<2xf32>, %b: vector<2xf32>) -> vector<2x2x2xf32> {
  %x:2 = vector.to_elements %a : vector<2xf32>
  %y:2 = vector.to_elements %b : vector<2xf32>
  %m = vector.from_elements %x#0, %x#1, %y#0, %y#1, %y#0, %y#1, %x#0, %x#1 : vector<2x2x2xf32>
  return %m : vector<2x2x2xf32>
}
