// A reader that stops early (`| head -1`; here `| true`, gone before the first line) ends
// the writer quietly, by SIGPIPE, as it ends `cat`: no panic on the broken pipe.
// RUN: (strata-opt %s | true; echo "status $?") 2>&1 | FileCheck %s
// RUN: (strata plan %S/inputs/chain-600.csv --strategy greedy-by-size | true; echo "status $?") 2>&1 | FileCheck %s

// CHECK-NOT: panicked
// CHECK: status {{(0|141)$}}
func.func @written_to_a_closed_pipe() {
  return
}
