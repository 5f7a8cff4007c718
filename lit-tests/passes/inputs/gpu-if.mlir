// An ONNX `If` whose branches are constants, as the importer lowers it: the condition is
// read from the model's input and selects which constant buffer is copied to the output.
module {
  memref.global "private" constant @then : memref<5xf32> = dense<[1.0, 2.0, 3.0, 4.0, 5.0]>
  memref.global "private" constant @else : memref<5xf32> = dense<[5.0, 4.0, 3.0, 2.0, 1.0]>
  func.func @main(%cond: memref<i1>, %res: memref<5xf32>) attributes {strata.input_names = ["cond"], strata.output_names = ["res"]} {
    %0 = memref.get_global @else : memref<5xf32>
    %1 = memref.get_global @then : memref<5xf32>
    %2 = memref.load %cond[] : memref<i1>
    %3 = arith.select %2, %1, %0 : memref<5xf32>
    linalg.copy ins(%3 : memref<5xf32>) outs(%res : memref<5xf32>)
    return
  }
}
