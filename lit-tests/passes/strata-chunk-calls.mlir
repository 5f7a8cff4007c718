// strata-chunk-calls: a function that calls more than `calls` outlined kernels in a row calls
// them through functions of at most `calls` calls each (`strata_kernel_calls_<n>`: the code
// generator compiles them as kernels, in parallel and each small). A chunk takes the
// function's arguments with their attributes and its own copies of the constants the calls
// pass; constants between the calls do not end a run, any other op does (here a call with a
// result), and a run of one call stays in place. Constants only the moved calls used leave the
// function; a function with at most `calls` movable calls is left as it is.
// RUN: strata-opt %s -p 'builtin.module(strata-chunk-calls{calls=2})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-chunk-calls{calls=2})' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: strata-opt %s -p 'builtin.module(strata-chunk-calls)' | FileCheck %s --check-prefix=FEW
// RUN: strata-opt %s -p 'builtin.module(strata-chunk-calls{calls=2},strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

module {
  func.func private @strata_kernel_0(%a: memref<64xi8>, %o: index)
  func.func private @strata_kernel_1(%a: memref<64xi8>)
  func.func private @now() -> i64

  // CHECK-LABEL: func.func private @strata_kernel_calls_0(
  // CHECK-SAME:    %[[A:.*]]: memref<64xi8> {llvm.noalias})
  // CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT:    call @strata_kernel_0(%[[A]], %[[C0]])
  // CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
  // CHECK-NEXT:    call @strata_kernel_0(%[[A]], %[[C16]])
  // CHECK-NEXT:    return
  // CHECK-LABEL: func.func private @strata_kernel_calls_1(
  // CHECK-NEXT:    call @strata_kernel_1(
  // CHECK-NEXT:    arith.constant 0 : index
  // CHECK-NEXT:    call @strata_kernel_0(
  // CHECK-NEXT:    return
  // CHECK-LABEL: func.func private @strata_kernel_calls_2(
  // CHECK-NEXT:    call @strata_kernel_1(
  // CHECK-NEXT:    call @strata_kernel_1(
  // CHECK-NEXT:    return
  // CHECK-LABEL: func.func @main(
  // CHECK-SAME:    %[[M:.*]]: memref<64xi8> {llvm.noalias})
  // CHECK-NEXT:    call @strata_kernel_calls_0(%[[M]])
  // CHECK-NEXT:    call @strata_kernel_calls_1(%[[M]])
  // CHECK-NEXT:    %{{.*}} = call @now()
  // CHECK-NEXT:    call @strata_kernel_calls_2(%[[M]])
  // CHECK-NEXT:    arith.constant 32 : index
  // CHECK-NEXT:    call @strata_kernel_0(%[[M]], %{{.*}})
  // CHECK-NEXT:    return
  func.func @main(%arena: memref<64xi8> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    call @strata_kernel_0(%arena, %c0) : (memref<64xi8>, index) -> ()
    %c16 = arith.constant 16 : index
    call @strata_kernel_0(%arena, %c16) : (memref<64xi8>, index) -> ()
    call @strata_kernel_1(%arena) : (memref<64xi8>) -> ()
    call @strata_kernel_0(%arena, %c0) : (memref<64xi8>, index) -> ()
    %t = call @now() : () -> i64
    call @strata_kernel_1(%arena) : (memref<64xi8>) -> ()
    call @strata_kernel_1(%arena) : (memref<64xi8>) -> ()
    // A run of one call stays in place.
    %c32 = arith.constant 32 : index
    call @strata_kernel_0(%arena, %c32) : (memref<64xi8>, index) -> ()
    return
  }
}

// STATS: strata-chunk-calls
// STATS-DAG: 3 chunks
// STATS-DAG: 6 calls

// FEW-LABEL: func.func @main(
// FEW-NEXT:    arith.constant 0 : index
// FEW-NEXT:    call @strata_kernel_0(
// FEW-NOT:     strata_kernel_calls

// LLVM: llvm.func @strata_kernel_calls_0(
// LLVM: llvm.call @strata_kernel_0(
// LLVM: llvm.func @main(
// LLVM: llvm.call @strata_kernel_calls_0(
