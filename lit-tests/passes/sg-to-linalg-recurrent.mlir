// Recurrent layers lower to one scf.for over the time steps: the input projection of every
// step is one matmul before the loop (the biases its initial value), each step adds the
// recurrent product onto its row of it and runs one generic for all gates, writing the carried
// states in place and inserting its output row. Both products read their weights transposed,
// `[K, G * H]` (transposed once, before the loop; strata-fold-constant-transposes does it at
// compile time for constant weights), so they are plain matmuls with the gates contiguous.
// After bufferization no buffer is allocated inside the loop (buffer-loop-hoisting), so the
// planner sees every buffer.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize)' | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @lstm
// CHECK: %[[WT:.*]] = linalg.transpose ins(%{{.*}} : tensor<20x4xf32>) outs(%{{.*}} : tensor<4x20xf32>) permutation = [1, 0]
// CHECK: %[[RT:.*]] = linalg.transpose ins(%{{.*}} : tensor<20x5xf32>) outs(%{{.*}} : tensor<5x20xf32>) permutation = [1, 0]
// Every LSTM gate takes both biases: their sum, one add (no per-column choice, which kept the
// host from vectorising it).
// CHECK: ^bb0(%[[WB:.*]]: f32, %[[RB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[WB]], %[[RB]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[PROJ:.*]] = linalg.matmul ins(%collapsed, %[[WT]] : tensor<6x4xf32>, tensor<4x20xf32>)
// CHECK: %[[STEPS:.*]] = tensor.expand_shape %[[PROJ]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}})
// CHECK:   %[[ROW:.*]] = tensor.extract_slice %[[STEPS]][%[[T]], 0, 0] [1, 2, 20]
// CHECK:   %[[G:.*]] = linalg.matmul ins(%[[H]], %[[RT]] : tensor<2x5xf32>, tensor<5x20xf32>) outs(%[[ROW]] : tensor<2x20xf32>)
// CHECK:   %[[CELL:.*]]:3 = linalg.generic {{.*}}outs(%[[H]], %[[C]], %{{.*}} : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>)
// CHECK:   math.tanh
// CHECK:   %[[INS:.*]] = tensor.insert_slice %[[CELL]]#2 into %[[Y]][%[[T]], 0, 0]
// CHECK:   scf.yield %[[CELL]]#0, %[[CELL]]#1, %[[INS]]

// In reverse the step counts down. The GRU's hidden gate takes its input bias alone (its
// recurrent one goes with its recurrent product): the bias picks by column.
// CHECK-LABEL: func.func @gru_reverse
// CHECK: linalg.index 1 : index
// CHECK: arith.select
// CHECK: scf.for %[[I:.*]] = %{{.*}} to
// CHECK: arith.subi %{{.*}}, %[[I]] : index

// BUF-LABEL: func.func @lstm
// BUF: memref.alloc() {{.*}} : memref<2x20xf32>
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF-LABEL: func.func @gru_reverse
func.func @lstm(%x: tensor<3x2x4xf32>, %w: tensor<1x20x4xf32>, %r: tensor<1x20x5xf32>, %b: tensor<1x40xf32>, %lens: tensor<2xi32>, %h0: tensor<1x2x5xf32>, %c0: tensor<1x2x5xf32>, %p: tensor<1x15xf32>) -> (tensor<3x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>) {
  %y, %yh, %yc = "sg.lstm"(%x, %w, %r, %b, %lens, %h0, %c0, %p) {hidden_size = 5 : i64, direction = 0 : i64, activations = "sigmoid,tanh,tanh", input_forget = 0 : i64} : (tensor<3x2x4xf32>, tensor<1x20x4xf32>, tensor<1x20x5xf32>, tensor<1x40xf32>, tensor<2xi32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x15xf32>) -> (tensor<3x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>)
  return %y, %yh, %yc : tensor<3x1x2x5xf32>, tensor<1x2x5xf32>, tensor<1x2x5xf32>
}

func.func @gru_reverse(%x: tensor<3x2x4xf32>, %w: tensor<1x15x4xf32>, %r: tensor<1x15x5xf32>, %b: tensor<1x30xf32>, %lens: tensor<2xi32>, %h0: tensor<1x2x5xf32>) -> tensor<3x1x2x5xf32> {
  %y, %yh = "sg.gru"(%x, %w, %r, %b, %lens, %h0) {hidden_size = 5 : i64, direction = 1 : i64, activations = "sigmoid,tanh", linear_before_reset = 0 : i64} : (tensor<3x2x4xf32>, tensor<1x15x4xf32>, tensor<1x15x5xf32>, tensor<1x30xf32>, tensor<2xi32>, tensor<1x2x5xf32>) -> (tensor<3x1x2x5xf32>, tensor<1x2x5xf32>)
  return %y : tensor<3x1x2x5xf32>
}
