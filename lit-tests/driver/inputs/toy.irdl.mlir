// A user dialect for driver/irdl-file.mlir.
irdl.dialect @toy {
  irdl.operation @double {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }
}
