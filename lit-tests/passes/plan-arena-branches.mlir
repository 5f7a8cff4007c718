// plan-arena on an scf.if (an ONNX If on a condition computed at run time): the branches'
// own buffers are planned on the branches' timeline (both branches share them, only one
// runs), what a branch yields lives on after the if, and a value a branch yields unchanged
// keeps the buffer it is alive while the if's result is read.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena))' | FileCheck %s

// %t1 and %t2 overlap in the then branch (2 KiB); %e1, the else branch's, takes %t1's
// bytes; %t3 is yielded, so it is a buffer of the function beside that block: 3 KiB in all.
// CHECK-LABEL: func.func @branches
// CHECK-SAME: strata.arena_bytes = 3072 : i64
// CHECK: scf.if
// CHECK: %[[T1:.*]] = memref.view %{{.*}}[%[[AT:c[0-9]+]]][] : memref<3072xi8> to memref<256xf32>
// CHECK: memref.view {{.*}} : memref<3072xi8> to memref<256xf32>
// CHECK: memref.view {{.*}} : memref<3072xi8> to memref<256xf32>
// CHECK: } else {
// CHECK: memref.view %{{.*}}[%[[AT]]][] : memref<3072xi8> to memref<256xf32>
// CHECK-NOT: memref.alloc
func.func @branches(%c: i1, %x: memref<256xf32>, %y: memref<256xf32>) {
  %r = scf.if %c -> (memref<256xf32>) {
    %t1 = memref.alloc() : memref<256xf32>
    linalg.copy ins(%x : memref<256xf32>) outs(%t1 : memref<256xf32>)
    %t2 = memref.alloc() : memref<256xf32>
    linalg.copy ins(%t1 : memref<256xf32>) outs(%t2 : memref<256xf32>)
    %t3 = memref.alloc() : memref<256xf32>
    linalg.copy ins(%t2 : memref<256xf32>) outs(%t3 : memref<256xf32>)
    scf.yield %t3 : memref<256xf32>
  } else {
    %e1 = memref.alloc() : memref<256xf32>
    linalg.copy ins(%x : memref<256xf32>) outs(%e1 : memref<256xf32>)
    scf.yield %x : memref<256xf32>
  }
  linalg.copy ins(%r : memref<256xf32>) outs(%y : memref<256xf32>)
  return
}

// -----

// The then branch yields %a itself: %a stays alive to the add, so %b cannot take its bytes
// (nor those of %n, the else branch's result): three buffers live at the add.
// CHECK-LABEL: func.func @yield_outer
// CHECK-SAME: strata.arena_bytes = 3072 : i64
// CHECK-NOT: memref.alloc
func.func @yield_outer(%c: i1, %x: memref<256xf32>, %y: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.copy ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %r = scf.if %c -> (memref<256xf32>) {
    scf.yield %a : memref<256xf32>
  } else {
    %n = memref.alloc() : memref<256xf32>
    linalg.negf ins(%a : memref<256xf32>) outs(%n : memref<256xf32>)
    scf.yield %n : memref<256xf32>
  }
  %b = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.add ins(%r, %b : memref<256xf32>, memref<256xf32>) outs(%y : memref<256xf32>)
  return
}

// -----

// Each branch yields its own allocation at the same position: one of them is made, so the two
// share one buffer (1 KiB), beside %s, the then branch's scratch.
// CHECK-LABEL: func.func @paired
// CHECK-SAME: strata.arena_bytes = 2048 : i64
// CHECK: linalg.exp
// CHECK: %[[T:.*]] = memref.view %{{.*}}[%[[AT:c[0-9]+]]][] : memref<2048xi8> to memref<256xf32>
// CHECK: scf.yield %[[T]]
// CHECK: } else {
// CHECK: %[[E:.*]] = memref.view %{{.*}}[%[[AT]]][] : memref<2048xi8> to memref<256xf32>
// CHECK: scf.yield %[[E]]
// CHECK-NOT: memref.alloc
func.func @paired(%c: i1, %x: memref<256xf32>, %y: memref<256xf32>) {
  %r = scf.if %c -> (memref<256xf32>) {
    %s = memref.alloc() : memref<256xf32>
    linalg.exp ins(%x : memref<256xf32>) outs(%s : memref<256xf32>)
    %t = memref.alloc() : memref<256xf32>
    linalg.negf ins(%s : memref<256xf32>) outs(%t : memref<256xf32>)
    scf.yield %t : memref<256xf32>
  } else {
    %e = memref.alloc() : memref<256xf32>
    linalg.abs ins(%x : memref<256xf32>) outs(%e : memref<256xf32>)
    scf.yield %e : memref<256xf32>
  }
  linalg.copy ins(%r : memref<256xf32>) outs(%y : memref<256xf32>)
  return
}
