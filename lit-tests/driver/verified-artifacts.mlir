// An artifact is checked before it runs: its manifest is parsed strictly (bare file names, the
// model's own entry point, a power-of-two alignment, SHA-256 digests), the code and weights
// must hash to the manifest's digests, and the signature compiled into the code (the library's
// `strata_<name>_signature`, the PTX's `// strata-signature` line) must equal the manifest's.
// Each edit below is refused with an error naming the file and what differs; nothing runs.
// RUN: rm -rf %t && mkdir -p %t/ok && strata compile %S/../frontend/inputs/conv_relu.onnx -o %t/ok/libm.so
// RUN: strata-exec run %t/ok/m.json --input x=%S/inputs/conv_relu_x.npy --repeat 1 | FileCheck %s --check-prefix=OK
// RUN: nm -D %t/ok/libm.so | FileCheck %s --check-prefix=SYMBOLS
// The library is the same bytes from every compile (its soname is its file name, not the
// temporary path it is linked at), so concurrent compiles to one path leave a library that
// matches its manifest whichever finishes last:
// RUN: mkdir -p %t/again && strata compile %S/../frontend/inputs/conv_relu.onnx -o %t/again/libm.so
// RUN: cmp %t/ok/libm.so %t/again/libm.so
// RUN: readelf -d %t/ok/libm.so | FileCheck %s --check-prefix=SONAME
// SONAME: (SONAME) Library soname: [libm.so]
// Where GNU gold is on the PATH the library is linked with it; a gold that fails leaves the
// default linker to link it, and the library runs.
// RUN: mkdir -p %t/fakebin %t/gold && printf '#!/bin/sh\nexit 1\n' > %t/fakebin/ld.gold && chmod +x %t/fakebin/ld.gold
// RUN: env PATH=%t/fakebin:$PATH strata compile %S/../frontend/inputs/conv_relu.onnx -o %t/gold/libm.so
// RUN: strata-exec run %t/gold/m.json --input x=%S/inputs/conv_relu_x.npy --repeat 1 | FileCheck %s --check-prefix=OK
// A shape edited in the manifest:
// RUN: cp -r %t/ok %t/shape && sed -i '0,/^        1,$/s//        100,/' %t/shape/m.json
// RUN: not strata-exec run %t/shape/m.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// The arena size edited:
// RUN: cp -r %t/ok %t/arena && sed -i 's/"arena_bytes": [0-9]*/"arena_bytes": 1/' %t/arena/m.json
// RUN: not strata-exec run %t/arena/m.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=ARENA
// The library changed after compiling (one byte appended):
// RUN: cp -r %t/ok %t/bytes && printf 'x' >> %t/bytes/libm.so
// RUN: not strata-exec run %t/bytes/m.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=BYTES
// Another model's library under this manifest (its digest and name edited to match):
// RUN: mkdir -p %t/other && strata compile %S/../frontend/inputs/gemm.onnx --name conv_relu -o %t/other/libm.so
// RUN: sed "s/\"code\": \"[0-9a-f]*\"/\"code\": \"$(sha256sum %t/other/libm.so | cut -c1-64)\"/" %t/ok/m.json > %t/other/m.json
// RUN: not strata-exec run %t/other/m.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=OTHER
// A library outside the manifest's folder, an entry point that is not the model's, a
// malformed digest, a symbolic link, a named pipe:
// RUN: cp -r %t/ok %t/escape && sed -i 's#"library": "libm.so"#"library": "../ok/libm.so"#' %t/escape/m.json
// RUN: not strata-exec run %t/escape/m.json 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: cp -r %t/ok %t/entry && sed -i 's#"entry": "[a-z_]*"#"entry": "abort"#' %t/entry/m.json
// RUN: not strata-exec run %t/entry/m.json 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: cp -r %t/ok %t/digest && sed -i 's/"code": "[0-9a-f]*"/"code": "00"/' %t/digest/m.json
// RUN: not strata-exec run %t/digest/m.json 2>&1 | FileCheck %s --check-prefix=DIGEST
// RUN: cp -r %t/ok %t/link && mv %t/link/libm.so %t/link/real.so && ln -s real.so %t/link/libm.so
// RUN: not strata-exec run %t/link/m.json 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: cp -r %t/ok %t/fifo && rm %t/fifo/libm.so && mkfifo %t/fifo/libm.so
// RUN: not strata-exec run %t/fifo/m.json 2>&1 | FileCheck %s --check-prefix=FIFO
// On PTX, the launches are part of the signature, and the weights file has its digest. The
// checks come before the GPU is looked for, so they run on a machine without one.
// RUN: strata compile %S/../frontend/inputs/layout.onnx --target=nvptx -o %t/ok/g.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/ok/g.ptx
// RUN: cp -r %t/ok %t/grid && sed -i '0,/^        256,$/s//        512,/' %t/grid/g.json
// RUN: not strata-exec run %t/grid/g.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: cp -r %t/ok %t/weights && printf 'x' | dd of=%t/weights/g.weights.bin bs=1 seek=7 conv=notrunc status=none
// RUN: not strata-exec run %t/weights/g.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=WEIGHTS

// OK: output 'y': float32 [1, 4, 4, 4]
// SYMBOLS: R strata_conv_relu_signature
// SHAPE: error: {{.*}}shape/libm.so does not match its manifest: 'inputs[0].shape[0]': the manifest says 100, the code was compiled for 1; the manifest was edited or belongs to another build
// ARENA: error: {{.*}}arena/libm.so does not match its manifest: 'arena_bytes': the manifest says 1, the code was compiled for
// BYTES: error: {{.*}}bytes/libm.so has SHA-256 {{[0-9a-f]+}}, its manifest says {{[0-9a-f]+}}: the file changed after compiling
// OTHER: error: {{.*}}other/libm.so does not match its manifest: 'arena_bytes': the manifest says {{[0-9]+}}, the code was compiled for 20;
// ESCAPE: error: {{.*}}escape/m.json: 'library' "../ok/libm.so" must be a file name beside the manifest (no folder, no '..')
// ENTRY: error: {{.*}}entry/m.json: entry point "abort" is not the model's 'strata_conv_relu_run'
// DIGEST: error: {{.*}}digest/m.json: the code digest "00" is not a SHA-256 in hex
// LINK: error: cannot read {{.*}}link/libm.so: it is a symbolic link
// FIFO: error: {{.*}}fifo/libm.so is not a regular file
// PTX: // strata-signature {"format":1,"name":"layout","target":"nvptx","entry":"","chip":"sm_80","inputs":[{"name":"x","dtype":"float32","shape":[2,16,32]}]
// GRID: error: {{.*}}grid/g.ptx does not match its manifest: 'kernels[0].block[0]': the manifest says 512, the code was compiled for 256
// WEIGHTS: error: {{.*}}weights/g.weights.bin has SHA-256 {{[0-9a-f]+}}, its manifest says
