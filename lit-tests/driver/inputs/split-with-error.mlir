// Input for driver/split-input-file.mlir: the middle chunk is invalid (line 9).
func.func @ok() {
  return
}

// -----

func.func @broken() -> i32 {
  return
}

// -----

func.func @also_ok() {
  return
}
