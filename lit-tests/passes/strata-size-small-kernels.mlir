// strata-size-small-kernels (in strata-host-to-llvm, after the kernels are loop nests): the
// loops of the outlined kernels that do little work get `loop_annotation<unroll = disable>`,
// so that LLVM compiles them rolled. Work is loop iterations times the ops of the bodies,
// times the calls to the kernel; the smallest kernels are taken first, while each is under
// 2^17 operations and together they are at most 1% of all the kernels' work. A kernel whose
// trip counts are not constants is never taken, nor one split across threads (an OpenMP
// region, whose work counts all the same); loops already annotated keep theirs. In the other
// kernels, the outermost loop nests under 2^17 operations that do at most 1% of their kernel's
// work, or only store one value (fills), are kept rolled the same way.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(strata-size-small-kernels)' | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(strata-size-small-kernels)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: strata-opt %s --split-input-file -p 'builtin.module(strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM
// strata-host-to-llvm's two halves, as code generation in parts runs them (the first on the
// whole module, where every kernel's calls and work are seen; the second part by part):
// RUN: strata-opt %s --split-input-file -p 'builtin.module(strata-host-kernels-to-loops)' -o %t.mlir
// RUN: strata-opt %t.mlir --split-input-file -p 'builtin.module(strata-host-loops-to-llvm)' | FileCheck %s --check-prefix=LLVM

// CHECK: #[[ROLLED:.+]] = #llvm.loop_annotation<unroll = #[[UNROLL:.+]]>
// CHECK: #[[OWN:.+]] = #llvm.loop_annotation<unroll = #[[UNROLL]], licm = #{{.+}}>
module {
  func.func @main(%m: memref<65536xf32>, %n: index) {
    call @strata_kernel_0(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_1(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_2(%m, %n) : (memref<65536xf32>, index) -> ()
    call @strata_kernel_3(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_5(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_5(%m) : (memref<65536xf32>) -> ()
    return
  }
  // 64 x 65536 iterations of 4 ops: the model's time, unrolled as LLVM sees fit.
  // CHECK-LABEL: func.func private @strata_kernel_0
  // CHECK-NOT: loop_annotation
  // CHECK: return
  func.func private @strata_kernel_0(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c65536 = arith.constant 65536 : index
    scf.for %r = %c0 to %c64 step %c1 {
      scf.for %i = %c0 to %c65536 step %c1 {
        %x = memref.load %m[%i] : memref<65536xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %m[%i] : memref<65536xf32>
      }
    }
    return
  }
  // 3 x 16 iterations: kept rolled, both loops.
  // CHECK-LABEL: func.func private @strata_kernel_1
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: } {loop_annotation = #[[ROLLED]]}
  // CHECK: } {loop_annotation = #[[ROLLED]]}
  func.func private @strata_kernel_1(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    scf.for %r = %c0 to %c3 step %c1 {
      scf.for %i = %c0 to %c16 step %c1 {
        %x = memref.load %m[%i] : memref<65536xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %m[%i] : memref<65536xf32>
      }
    }
    return
  }
  // A trip count known only at run time: never taken for small.
  // CHECK-LABEL: func.func private @strata_kernel_2
  // CHECK-NOT: loop_annotation
  // CHECK: return
  func.func private @strata_kernel_2(%m: memref<65536xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %m[%i] : memref<65536xf32>
      memref.store %x, %m[%i] : memref<65536xf32>
    }
    return
  }
  // 4096 iterations by 8 lanes, one loop already annotated by the elementwise vectoriser
  // (which keeps its own) and one not.
  // CHECK-LABEL: func.func private @strata_kernel_3
  // CHECK: } {loop_annotation = #[[ROLLED]]}
  // CHECK: } {loop_annotation = #[[OWN]]}
  func.func private @strata_kernel_3(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32768 = arith.constant 32768 : index
    scf.for %i = %c0 to %c32768 step %c8 {
      %x = vector.load %m[%i] : memref<65536xf32>, vector<8xf32>
      vector.store %x, %m[%i] : memref<65536xf32>, vector<8xf32>
    }
    scf.for %i = %c0 to %c32768 step %c8 {
      %x = vector.load %m[%i] : memref<65536xf32>, vector<8xf32>
      vector.store %x, %m[%i] : memref<65536xf32>, vector<8xf32>
    } {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>, licm = <disable = true>>}
    return
  }
  // 40000 iterations of 3 ops: under 2^17 for one call, but it is called twice.
  // CHECK-LABEL: func.func private @strata_kernel_5
  // CHECK-NOT: loop_annotation
  // CHECK: return
  func.func private @strata_kernel_5(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40000 = arith.constant 40000 : index
    scf.for %i = %c0 to %c40000 step %c1 {
      %x = memref.load %m[%i] : memref<65536xf32>
      memref.store %x, %m[%i] : memref<65536xf32>
    }
    return
  }
}


// The annotation ends on each loop's latch branch.
// LLVM: #[[LROLLED:.+]] = #llvm.loop_annotation<unroll = #{{.+}}>
// LLVM-LABEL: llvm.func @strata_kernel_0
// LLVM-NOT: loop_annotation
// LLVM-LABEL: llvm.func @strata_kernel_1
// LLVM: llvm.br {{.*}} {loop_annotation = #[[LROLLED]]}
// LLVM: llvm.br {{.*}} {loop_annotation = #[[LROLLED]]}
// LLVM-LABEL: llvm.func @strata_kernel_2

// -----

// The same kernel as @strata_kernel_5 above, called once, but the model is smaller: past 1%
// of the model's work once the small kernel before it is counted.
module {
  func.func @main(%m: memref<65536xf32>) {
    call @strata_kernel_0(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_1(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_2(%m) : (memref<65536xf32>) -> ()
    return
  }
  // 256 x 65536 elements, one op each.
  func.func private @strata_kernel_0(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c65536 = arith.constant 65536 : index
    %c8 = arith.constant 8 : index
    scf.for %r = %c0 to %c64 step %c1 {
      scf.for %i = %c0 to %c65536 step %c8 {
        %x = vector.load %m[%i] : memref<65536xf32>, vector<8xf32>
        vector.store %x, %m[%i] : memref<65536xf32>, vector<8xf32>
      }
    }
    return
  }
  // CHECK-LABEL: func.func private @strata_kernel_1
  // CHECK: } {loop_annotation = #[[ROLLED]]}
  func.func private @strata_kernel_1(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c16 step %c1 {
      %x = memref.load %m[%i] : memref<65536xf32>
      memref.store %x, %m[%i] : memref<65536xf32>
    }
    return
  }
  // CHECK-LABEL: func.func private @strata_kernel_2
  // CHECK-NOT: loop_annotation
  // CHECK: return
  func.func private @strata_kernel_2(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40000 = arith.constant 40000 : index
    scf.for %i = %c0 to %c40000 step %c1 {
      %x = memref.load %m[%i] : memref<65536xf32>
      memref.store %x, %m[%i] : memref<65536xf32>
    }
    return
  }
}

// -----

// A model whose work is in a kernel split across threads (an OpenMP region).
module {
  func.func @main(%m: memref<65536xf32>) {
    call @strata_kernel_0(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_1(%m) : (memref<65536xf32>) -> ()
    return
  }
  // Split across threads: its work counts in the total, but it is never taken itself.
  // CHECK-LABEL: func.func private @strata_kernel_0
  // CHECK-NOT: loop_annotation
  // CHECK: return
  func.func private @strata_kernel_0(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c65536 = arith.constant 65536 : index
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%r) : index = (%c0) to (%c64) step (%c1) {
          scf.for %i = %c0 to %c65536 step %c1 {
            %x = memref.load %m[%i] : memref<65536xf32>
            memref.store %x, %m[%i] : memref<65536xf32>
          }
          omp.yield
        }
      }
      omp.terminator
    }
    return
  }
  // Small against the parallel kernel's work: taken.
  // CHECK-LABEL: func.func private @strata_kernel_1
  // CHECK: } {loop_annotation = #[[ROLLED]]}
  func.func private @strata_kernel_1(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c16 step %c1 {
      %x = memref.load %m[%i] : memref<65536xf32>
      memref.store %x, %m[%i] : memref<65536xf32>
    }
    return
  }
}

// -----

// In a kernel left to LLVM (here split across threads), the loop nests beside its work: one
// under 1% of the kernel's work, and a fill (stores of one value) under 2^17 operations
// however large its share, stay rolled; a nest that does more than 1% of the kernel's work and
// is not a fill is left to LLVM, as is the work itself.
module {
  func.func @main(%m: memref<65536xf32>, %n: memref<16x1000xf32>) {
    call @strata_kernel_0(%m, %n) : (memref<65536xf32>, memref<16x1000xf32>) -> ()
    return
  }
  // CHECK-LABEL: func.func private @strata_kernel_0
  func.func private @strata_kernel_0(%m: memref<65536xf32>, %n: memref<16x1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0.0 : f32
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%t) : index = (%c0) to (%c2) step (%c1) {
          // The work: 2 x 64 x 4096 iterations of 4 ops.
          // CHECK: scf.for
          // CHECK: scf.for
          // CHECK-NOT: loop_annotation
          // CHECK: {{^ *}}}{{$}}
          // CHECK-NEXT: {{^ *}}}{{$}}
          scf.for %r = %c0 to %c64 step %c1 {
            scf.for %i = %c0 to %c4096 step %c1 {
              %x = memref.load %m[%i] : memref<65536xf32>
              %y = arith.addf %x, %x : f32
              memref.store %y, %m[%i] : memref<65536xf32>
            }
          }
          // A fill, 2 x 16 x 1000 stores: ~3% of the kernel, rolled.
          // CHECK: scf.for
          // CHECK: scf.for
          // CHECK: } {loop_annotation = #[[ROLLED]]}
          // CHECK-NEXT: } {loop_annotation = #[[ROLLED]]}
          scf.for %r = %c0 to %c16 step %c1 {
            scf.for %i = %c0 to %c1000 step %c1 {
              memref.store %zero, %n[%r, %i] : memref<16x1000xf32>
            }
          }
          // A copy as large: ~4%, left to LLVM.
          // CHECK: scf.for
          // CHECK: scf.for
          // CHECK-NOT: loop_annotation
          // CHECK: {{^ *}}}{{$}}
          // CHECK-NEXT: {{^ *}}}{{$}}
          scf.for %r = %c0 to %c16 step %c1 {
            scf.for %i = %c0 to %c1000 step %c1 {
              %x = memref.load %m[%i] : memref<65536xf32>
              memref.store %x, %n[%r, %i] : memref<16x1000xf32>
            }
          }
          // 2 x 16 iterations of a copy, rolled.
          // CHECK: scf.for
          // CHECK: } {loop_annotation = #[[ROLLED]]}
          scf.for %i = %c0 to %c16 step %c1 {
            %x = memref.load %m[%i] : memref<65536xf32>
            memref.store %x, %m[%i] : memref<65536xf32>
          }
          omp.yield
        }
      }
      omp.terminator
    }
    return
  }
}

// -----

// A small kernel whose loop fills a register block lane by lane (a `vector.insert` at the
// loop's index): rolled, LLVM would keep the vector in memory and go through the stack for
// every lane (the raw-waveform network's first convolution ran 100x slower), so that loop is
// left to LLVM; the kernel's other loop is rolled.
// CHECK: #[[R2:.+]] = #llvm.loop_annotation
module {
  func.func @main(%m: memref<65536xf32>) {
    call @strata_kernel_0(%m) : (memref<65536xf32>) -> ()
    call @strata_kernel_1(%m) : (memref<65536xf32>) -> ()
    return
  }
  // CHECK-LABEL: func.func private @strata_kernel_0
  // CHECK: scf.for
  // CHECK: vector.insert
  // CHECK-NOT: loop_annotation
  // CHECK: vector.transfer_write
  // CHECK: scf.for
  // CHECK: } {loop_annotation = #[[R2]]}
  func.func private @strata_kernel_0(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c21 = arith.constant 21 : index
    %zero = arith.constant dense<0.0> : vector<21xf32>
    %v = scf.for %i = %c0 to %c21 step %c1 iter_args(%acc = %zero) -> (vector<21xf32>) {
      %x = memref.load %m[%i] : memref<65536xf32>
      %y = vector.insert %x, %acc [%i] : f32 into vector<21xf32>
      scf.yield %y : vector<21xf32>
    }
    vector.transfer_write %v, %m[%c0] {in_bounds = [true]} : vector<21xf32>, memref<65536xf32>
    scf.for %i = %c0 to %c21 step %c1 {
      %x = memref.load %m[%i] : memref<65536xf32>
      memref.store %x, %m[%i] : memref<65536xf32>
    }
    return
  }
  // The model's time.
  func.func private @strata_kernel_1(%m: memref<65536xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c65536 = arith.constant 65536 : index
    scf.for %r = %c0 to %c64 step %c1 {
      scf.for %i = %c0 to %c65536 step %c1 {
        %x = memref.load %m[%i] : memref<65536xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %m[%i] : memref<65536xf32>
      }
    }
    return
  }
}

// The five chunks together.
// STATS: (S) 5 kernels - kernels whose loops stay rolled
// STATS: (S) 2 nests - small loop nests of the other kernels kept rolled
