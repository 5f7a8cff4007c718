// Quantized products big enough for AMX tiles (40 rows: a last row tile moved back over done
// rows; 128 bytes of depth; 48 and 64 columns: a partial column block), run against ONNX
// Runtime's outputs: a MatMulInteger after DynamicQuantizeLinear (i32 sums, exact on every
// path) and a QDQ MatMul with a per-column weight scale (its quantization fused into one
// kernel; exact against ONNX Runtime on tiles and with VNNI, within 1e-4 on hosts without
// VNNI, where the float product runs). On a host with AMX-INT8 these run on tiles; with
// `--disable amx-tiles` on VNNI registers; the same outputs, one and two threads.
// RUN: strata run %S/../frontend/inputs/matmul_integer_tiles.onnx --no-cache --input x=%S/inputs/matmul_integer_tiles_x.npy --expect y=%S/inputs/matmul_integer_tiles_y.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT
// RUN: strata run %S/../frontend/inputs/matmul_integer_tiles.onnx --no-cache --threads 2 --disable small-models --input x=%S/inputs/matmul_integer_tiles_x.npy --expect y=%S/inputs/matmul_integer_tiles_y.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT
// RUN: strata run %S/../frontend/inputs/matmul_integer_tiles.onnx --no-cache --disable amx-tiles --input x=%S/inputs/matmul_integer_tiles_x.npy --expect y=%S/inputs/matmul_integer_tiles_y.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT
// RUN: strata run %S/../frontend/inputs/matmul_integer_tiles.onnx --no-cache --input x=%S/inputs/matmul_integer_tiles_x.npy --expect z=%S/inputs/matmul_integer_tiles_z.npy --rtol 0 --atol 1e-4 | FileCheck %s --check-prefix=CLOSE
// RUN: strata run %S/../frontend/inputs/matmul_integer_tiles.onnx --no-cache --threads 2 --disable small-models --input x=%S/inputs/matmul_integer_tiles_x.npy --expect z=%S/inputs/matmul_integer_tiles_z.npy --rtol 0 --atol 1e-4 | FileCheck %s --check-prefix=CLOSE

// EXACT: expect 'y': 0 of 1920 elements outside atol 0 + rtol 0; max |error| 0.000e0
// CLOSE: expect 'z': 0 of 2560 elements outside atol 0.0001 + rtol 0
