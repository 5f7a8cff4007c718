// Every import error: one error listing all unsupported ops with their nodes, symbolic
// shapes with the --input-shape hint, opsets, malformed protobuf, inconsistent shapes (with
// the node's index, name and op type), bad --input-shape text, and the unsupported corners of
// newer operators (random dropout masks, 3-D pooling indices, an unknown E8M0 rounding, running
// statistics outside training mode, a Compress condition or a growing Loop's trip count
// computed at run time, a sequence as a graph output), and external data outside the model's
// directory or past the end of its file (a model file is untrusted); graphs ONNX's checker
// refuses (a value defined twice, in a branch too, a repeated graph input or output, an
// attribute of the wrong type, unknown or missing, inputs of two element types that the
// operator binds to one type parameter), constant indices out of range, and
// constants computed at import past --max-constant-bytes. Never a panic.
// RUN: not strata import %S/inputs/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=UNSUPPORTED
// RUN: not strata import %S/inputs/symbolic.onnx 2>&1 | FileCheck %s --check-prefix=SYMBOLIC
// RUN: strata import %S/inputs/symbolic.onnx --input-shape x=3x4 | FileCheck %s --check-prefix=FIXED
// RUN: not strata import %S/inputs/too_old.onnx 2>&1 | FileCheck %s --check-prefix=OPSET
// RUN: not strata import %S/inputs/malformed.onnx 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not strata import %S/inputs/bad_shapes.onnx 2>&1 | FileCheck %s --check-prefix=SHAPES
// RUN: not strata import %S/inputs/symbolic.onnx --input-shape x=3xq 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not strata import %S/inputs/missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not strata import %S/inputs/invalid_dropout.onnx 2>&1 | FileCheck %s --check-prefix=DROPOUT
// RUN: not strata import %S/inputs/invalid_pool_indices.onnx 2>&1 | FileCheck %s --check-prefix=INDICES
// RUN: not strata import %S/inputs/invalid_round_mode.onnx 2>&1 | FileCheck %s --check-prefix=ROUNDING
// RUN: not strata import %S/inputs/invalid_bn_running.onnx 2>&1 | FileCheck %s --check-prefix=RUNNING
// RUN: not strata import %S/inputs/invalid_compress.onnx 2>&1 | FileCheck %s --check-prefix=COMPRESS
// RUN: not strata import %S/inputs/invalid_sequence_output.onnx 2>&1 | FileCheck %s --check-prefix=SEQUENCE
// RUN: not strata import %S/inputs/invalid_loop_growing.onnx 2>&1 | FileCheck %s --check-prefix=GROWING
// RUN: not strata import %S/inputs/invalid_col2im.onnx 2>&1 | FileCheck %s --check-prefix=COL2IM
// RUN: not strata import %S/inputs/external_escape.onnx 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: not strata import %S/inputs/external_absolute.onnx 2>&1 | FileCheck %s --check-prefix=ABSOLUTE
// RUN: not strata import %S/inputs/external_short.onnx 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not strata import %S/inputs/invalid_ssa.onnx 2>&1 | FileCheck %s --check-prefix=SSA
// RUN: not strata import %S/inputs/invalid_ssa_branch.onnx 2>&1 | FileCheck %s --check-prefix=SSABRANCH
// RUN: not strata import %S/inputs/invalid_input_twice.onnx 2>&1 | FileCheck %s --check-prefix=INPUTTWICE
// RUN: not strata import %S/inputs/invalid_output_twice.onnx 2>&1 | FileCheck %s --check-prefix=OUTPUTTWICE
// RUN: not strata import %S/inputs/invalid_attribute_type.onnx 2>&1 | FileCheck %s --check-prefix=ATTRTYPE
// RUN: not strata import %S/inputs/invalid_attribute_unknown.onnx 2>&1 | FileCheck %s --check-prefix=ATTRUNKNOWN
// RUN: not strata import %S/inputs/invalid_attribute_missing.onnx 2>&1 | FileCheck %s --check-prefix=ATTRMISSING
// RUN: not strata import %S/inputs/invalid_gather_constant.onnx 2>&1 | FileCheck %s --check-prefix=GATHERCONST
// RUN: not strata import %S/inputs/invalid_input_types.onnx 2>&1 | FileCheck %s --check-prefix=INPUTTYPES
// RUN: not strata import %S/inputs/composite.onnx --max-constant-bytes=8 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not strata compile %S/inputs/composite.onnx --max-constant-bytes=0 2>&1 | FileCheck %s --check-prefix=BUDGETZERO
// RUN: strata import %S/inputs/composite.onnx --max-constant-bytes=4096 | FileCheck %s --check-prefix=BUDGETOK

// UNSUPPORTED: error: {{.*}}unsupported.onnx: unsupported operators (nothing was imported):
// UNSUPPORTED-NEXT: Bernoulli: 2 node(s): bernoulli0, bernoulli1
// UNSUPPORTED-NEXT: RandomUniformLike: 1 node(s): RandomUniformLike#4
// UNSUPPORTED-NEXT: com.example::Gelu: 1 node(s): gelu0
// UNSUPPORTED-NOT: panicked

// SYMBOLIC: error: {{.*}}symbolic.onnx: input 'x' has a symbolic or unknown dimension 'batch': pass its shape with --input-shape x=1x3x224x224 (for example)

// FIXED: func.func @main(%{{.*}}: tensor<3x4xf32>) -> tensor<3x4xf32>
// FIXED: "sg.relu"

// OPSET: error: {{.*}}too_old.onnx: default-domain opset 9: these operators have no definition at this opset that Strata imports:
// OPSET-NEXT: Celu: imported from opset 12 on (1 node(s): celu0)
// OPSET-NEXT: Mod: imported from opset 10 on (2 node(s): Mod#0, Mod#2)

// MALFORMED: error: {{.*}}malformed.onnx: not a valid ONNX model: failed to decode Protobuf message

// SHAPES: error: {{.*}}bad_shapes.onnx: node #0 'mm_bad' (MatMul): contraction sizes differ: [2, 3] x [4, 5]

// FLAG: error: invalid value 'x=3xq' for '--input-shape <NAME=DIMS>': 'q' in 'x=3xq' is not a dimension

// MISSING: error: cannot read {{.*}}missing.onnx: No such file or directory

// DROPOUT: error: {{.*}}invalid_dropout.onnx: node #0 'dropout_random' (Dropout): unsupported: Dropout in training mode with a ratio other than a constant 0 (a random mask); training_mode = false, or ratio 0, is the identity

// INDICES: error: {{.*}}invalid_pool_indices.onnx: node #0 'pool3d' (MaxPool): unsupported: the Indices output of a 3-D MaxPool (1-D and 2-D have it)

// ROUNDING: error: {{.*}}invalid_round_mode.onnx: node #0 'cast_e8m0' (Cast): round_mode 'sideways' is not one of up, down, nearest

// RUNNING: error: {{.*}}invalid_bn_running.onnx: node #0 'bn_inference' (BatchNormalization): running_mean and running_var are outputs only in training mode (training_mode = 1)

// COL2IM: error: {{.*}}invalid_col2im.onnx: node #0 'fold_short' (Col2Im): 10 block positions in the columns [1, 12, 10], but image_shape [6, 6], block_shape [2, 3], strides [2, 1], dilations [1, 1] and pads [0, 0, 0, 0] give [3, 4]
// COMPRESS: error: {{.*}}invalid_compress.onnx: node #0 'compress_runtime' (Compress): unsupported: the condition 'keep' is computed at run time; a static-shape compiler needs it at import (freeze the inputs it depends on with --freeze-input)

// SEQUENCE: error: {{.*}}invalid_sequence_output.onnx: unsupported: 'pieces' is a sequence, used here as a tensor (sequences are resolved at import: they cannot be graph outputs, If results or run-time loop values)

// GROWING: error: {{.*}}invalid_loop_growing.onnx: node #0 'grow_runtime' (Loop): unsupported: carried value 'acc_out' changes from [2] FLOAT to [4] FLOAT in one iteration (such a Loop is unrolled at import, which needs its trip count and condition known then: freeze the inputs they depend on with --freeze-input)

// ESCAPE: error: {{.*}}external_escape.onnx: tensor 'w': external data '../../../../../../etc/passwd': the location must be a path inside the model's directory (no absolute path, no '..')
// ABSOLUTE: error: {{.*}}external_absolute.onnx: tensor 'w': external data '/etc/passwd': the location must be a path inside the model's directory (no absolute path, no '..')
// SHORT: error: {{.*}}external_short.onnx: tensor 'w': external data 'external.weights': the file has 81920 bytes, the tensor needs bytes 81910..81926

// SSA: error: {{.*}}invalid_ssa.onnx: node #1 'second' (Neg): output 'y' is already defined by node #0 'first' (Relu): every value must be defined once (single static assignment)
// SSABRANCH: error: {{.*}}invalid_ssa_branch.onnx: node #0 'branch' (If): in subgraph 'then_branch', node #0 'relu_again' (Relu): output 'x' is already defined by an enclosing graph
// INPUTTWICE: error: {{.*}}invalid_input_twice.onnx: graph input 'x' is listed twice
// OUTPUTTWICE: error: {{.*}}invalid_output_twice.onnx: graph output 'y' is listed twice: outputs need distinct names
// ATTRTYPE: error: {{.*}}invalid_attribute_type.onnx: node #0 'leaky' (LeakyRelu): attribute 'alpha' of LeakyRelu must be a float (FLOAT), got an int (INT)
// ATTRUNKNOWN: error: {{.*}}invalid_attribute_unknown.onnx: node #0 'relu' (Relu): Relu (opset 17) has no attribute 'slope' (its attributes: none)
// INPUTTYPES: error: {{.*}}invalid_input_types.onnx: node #0 'project' (MatMul): inputs 'x' (FLOAT) and 'w64' (DOUBLE) must have one element type: MatMul binds both to its type parameter T (convert one with a Cast node)
// ATTRMISSING: error: {{.*}}invalid_attribute_missing.onnx: node #0 'concat' (Concat): Concat requires attribute 'axis' (an int), which the node does not give
// GATHERCONST: error: {{.*}}invalid_gather_constant.onnx: node #0 'pick' (Gather): constant index 3 in 'picks' is out of range for a dimension of size 3 (valid: -3 to 2)

// BUDGET: error: {{.*}}composite.onnx: node #4 'triu' (Trilu): the constants computed at import would reach 16 bytes with 'triu::const1' (12 bytes), over the budget of 8 bytes: raise --max-constant-bytes if the model is trusted
// BUDGETZERO: error: invalid value '0' for '--max-constant-bytes <BYTES>'
// BUDGETOK: func.func @main
