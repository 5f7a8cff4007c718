"""Generates Strata's model zoo with onnx.helper (random He-initialised weights, fixed seed),
in the configurations `../shared/notes/peers.md` measured ONNX Runtime and IREE on, so later
benchmarks compare like with like:

- mobilenetv2.onnx: MobileNetV2 (width 1.0, 224x224, 1000 classes): inverted residuals,
  depthwise convolutions, Clip(0, 6) as ReLU6, BatchNorm folded into the Conv biases (as
  torch.onnx.export does), GlobalAveragePool -> Flatten -> Gemm head.
- resnet18.onnx: ResNet-18 (224x224): Conv -> BatchNormalization -> Relu, MaxPool, basic
  blocks with projection shortcuts, GlobalAveragePool -> Flatten -> Gemm.
- bert_tiny.onnx: a 2-layer transformer encoder (hidden 128, 2 heads, intermediate 512,
  sequence 128, vocabulary 30522): Gather embeddings, MatMul+Add, Reshape/Transpose,
  Softmax with an additive attention mask, LayerNormalization, GELU via Erf.

Smaller models (a few MB at most), each standing for a class of models users bring as
their exporters emit them; each draws from its own generator, so the three above stay unchanged:

- crnn_ocr.onnx: a CRNN text recognizer (PaddleOCR / CRNN-style, 1x1x32x128 grey image):
  Conv -> BatchNormalization -> Relu and MaxPool stages (the last ones 2x1) down to height 1,
  Squeeze + Transpose to [T=32, N, C], two bidirectional LSTM layers (hidden 48, bias B, no
  initial states) each followed by Transpose + Reshape [T, 2, N, H] -> [T, N, 2H] as
  torch.onnx.export writes them, MatMul + Add to 37 classes, LogSoftmax: output `logits`.
- crnn_cjk.onnx: the same recognizer for a CJK script (1x1x32x80, T=20): hidden 128 and
  6625 classes, PaddleOCR's Chinese dictionary (ddddocr's head has 8210): a vocabulary head
  of few rows and a 6.8 MB weight, which dominates such a model's time.
- yolo_detector.onnx: a tiny YOLOv8-backbone / YOLOv5-head detector (1x3x64x64): Conv with
  folded BatchNorm and SiLU as Sigmoid + Mul, C2f blocks (Split, bottlenecks, Concat), SPPF (three
  chained MaxPool 5x5 stride 1 + Concat), Resize nearest x2 (roi "", scales input, asymmetric,
  floor: PyTorch's Upsample) + Concat with the lateral map, a Detect head per scale (Reshape,
  Transpose, Sigmoid, Split, grid / anchor decoding with Mul, Add, Pow) and a Concat of both
  scales: `output0` [1, 240, 9] (3 anchors x (8x8 + 4x4) cells, 5 + 4 classes).
- densenet_block.onnx: DenseNet (1x3x32x32, growth 12): stem Conv, two dense blocks of 4
  BN-Relu-Conv1x1-BN-Relu-Conv3x3 layers (the first Concats each layer onto the running map,
  the second Concats all earlier features per layer as torchvision does), a transition
  (BN-Relu-Conv1x1-AveragePool 2x2), BN-Relu, GlobalAveragePool -> Flatten -> Gemm: `logits`.
- opset11_cnn.onnx: a small CNN as older exporters (PaddlePaddle's paddle2onnx, torch at opset
  11) write it, opset 11 and IR version 6, some nodes without names: Pad and Clip with
  pads / min / max as inputs, Dropout with a ratio attribute, Split with a split attribute,
  Squeeze / Unsqueeze / ReduceMean / ReduceSum with axes attributes, BatchNormalization-9,
  Resize-11 (nearest with roi + scales; linear half_pixel with empty scales + sizes), Gemm
  with a broadcast C: outputs `logits` [1, 10] and `seg` [1, 4, 8, 8], the latter a Softmax-11
  with axis 1 on a 4-D tensor, so normalised over C*H*W (not over C as from opset 13).
- nested_if.onnx: a Silero-VAD-like model with nested If on a scalar int64 `sample_rate` that
  users freeze at compile time (zoo input <out>/nested_if.frozen/sample_rate.pb, 16000):
  If(sample_rate == 16000) { Conv1d; If(sample_rate > 10000) {Conv1d} else {Mul} } else
  { If(sample_rate == 8000) {Conv1d} else {Reshape + MatMul + Tanh} }, each branch yielding
  features [1, 16, 64] and a state [1, 16]; branch weights come both from the outer scope and
  from branch initializers, shapes and scalars from Constant nodes. Outputs `output` [1, 1]
  (Conv1d, Sigmoid, ReduceMean) and `state` [1, 16] (straight from the outer If); `audio`
  [1, 512] is the only run-time input.
- int8_qdq_cnn.onnx: an int8 CNN in the QDQ form onnxruntime.quantization.quantize_static
  writes (per-channel, its default int8 activations; same names, types and layout): a
  QuantizeLinear -> DequantizeLinear pair on every activation with constant scale / zero point,
  int8 weights with per-channel DequantizeLinear (axis 0) and int32 biases, Relu folded into
  the Q that follows its producer (zero point -128), a residual Add, GlobalAveragePool, Flatten
  (reusing its input's scale) and a Gemm head whose output is quantized too: `logits` [1, 10].
- qdq_speech_encoder.onnx: an int8 QDQ speech-encoder layer as quantize_static writes a
  Whisper-style encoder (pipecat's smart-turn turn detector's class; 100 frames of 192): a
  QuantizeLinear -> DequantizeLinear pair (uint8 per tensor, MinMax over the fixed input with 0
  included) on every MatMul input, int8 weights symmetric per output column (DequantizeLinear
  axis 1) and float biases; LayerNormalization, the Q/K/V projections, 4 heads of 48 (Reshape,
  Transpose), Q K^T on the quantized activations, Softmax, P V, the output projection and the
  residual, LayerNormalization, a 768-wide MLP with the exact GELU (Erf), the residual:
  `hidden` [1, 100, 192].
- qdq_mobilenet.onnx: an int8 QDQ MobileNetV2-style network as quantize_static writes one
  (the class of the int8 MobileNets and detector backbones packages ship): a QuantizeLinear ->
  DequantizeLinear pair (int8 per tensor, MinMax over the fixed input with 0 included) on
  every Conv input and both inputs of each residual Add, int8 weights symmetric per output
  channel (DequantizeLinear axis 0) and float biases, Clip(0, 6) after the expansions and the
  depthwise steps. A 3x3 stride-2 stem to 28 x 28 x 16, three inverted residual blocks (1x1
  expansion, depthwise 3x3, 1x1 projection: 16 -> 16 at 28 x 28 with a residual, 16 -> 24 at
  stride 2, 24 -> 24 at 14 x 14 with a residual), a 1x1 convolution to 128, GlobalAveragePool,
  Flatten and a float Gemm head: `logits` [1, 10] from `input` [1, 3, 56, 56].
- qdq_mobilenet_u8.onnx: the same network with uint8 activations (quantize_static's
  `activation_type=QuantType.QUInt8`, older releases' default, and what models converted from
  TFLite carry): zero points in [0, 255], the same weights, and the Gemm head quantized as
  quantize_static writes a classifier's (int8 weights per output, `transB`, a float bias; 10
  classes, not a multiple of 16).
- dynamic_int8_bert.onnx: the BERT-tiny encoder below as onnxruntime.quantization.
  quantize_dynamic writes it (Optimum's and transformers.js's `*_quantized.onnx`): every
  product's input through DynamicQuantizeLinear (uint8 over its run-time range, shared by the
  Q, K and V products), MatMulInteger by an int8 weight (symmetric per tensor, zero point 0),
  Cast to float, times the two scales' product, plus the bias; its own weights and biases:
  `ln_...` [1, 128, 128].

- text_detector.onnx: a DBNet-style text detector (PaddleOCR det, 1x3x128x128): strided
  Conv-BatchNorm-Relu backbone to 1/16, an FPN (lateral 1x1 Convs, Resize nearest + Add, 3x3
  smoothing, Resize and Concat at 1/4), and the probability head: Conv-BN-Relu, ConvTranspose
  k2s2-BN-Relu, ConvTranspose k2s2 to one channel, Sigmoid: `maps` [1, 1, 128, 128].
- fp16_text_detector.onnx: the text detector as a half-precision export writes it (the class
  of f16 models packages ship for GPUs, run on a CPU): weights, `image` and `maps` float16
  (Resize's scales float32, as ONNX types them).
- bf16_mobilenetv2.onnx: MobileNetV2 as a bfloat16 export for CPUs with bf16 units writes it
  (weights and activations bf16, every op rounding its result), its float32 interface kept by
  a Cast at the input and the output. ONNX Runtime's CPU provider has no bf16 kernel but Cast,
  so its reference and `bench run` column come from `bf16_mobilenetv2.ort.onnx`: the same graph
  on float32 with the weights' bf16 values, each op's result cast to bf16 and back.
- speech_kws.onnx: a keyword-spotting model with its log-mel front-end inside the graph, as
  speech toolkits export it (opset 17; 1 s of 16 kHz audio [1, 16000]): Reshape to [1, 16000,
  1], STFT (frame 400, step 160, a Hann window: 98 frames x 201 one-sided bins), power as
  ReduceSumSquare over the real/imaginary axis, MelWeightMatrix (40 bins, 20-7600 Hz) and
  MatMul, Log(x + 1e-6), then Unsqueeze to an image, two Conv -> BatchNormalization -> Relu
  (the second strided 2x2), Transpose + Reshape to [T=49, N=1, 320], a GRU (hidden 32,
  linear_before_reset as PyTorch exports), ReduceMean over time and a Gemm to 12 keywords:
  `logits` [1, 12].

- inception_cell.onnx: an Inception-style classifier (1x3x32x32) whose two four-branch cells
  are listed breadth first (every branch's first layer, then every second layer), as a tracer
  that builds a cell layer by layer emits it: the 96-channel first layers are all live at once
  in file order (the memory-aware operator order is what it tests). Stem Conv-Relu,
  MaxPool 3x3 stride 1 in one branch, Concat, GlobalAveragePool -> Flatten -> Gemm: `logits`.
- resnext_block.onnx: a ResNeXt-style classifier (1x3x56x56): stem Conv-Relu, four
  bottleneck blocks (1x1 reduce, grouped 3x3 of cardinality 16 or 32 with 4 channels per group
  as ResNeXt-50 (32x4d) has in its first stage, 8 in the last block as in its second; 1x1
  expand, residual Add with a projection where the shape changes), the second and fourth
  blocks strided 2 in their grouped 3x3, GlobalAveragePool -> Flatten -> Gemm: `logits` [1,
  10]. Grouped convolutions at 56, 28 and 14 columns, stride 1 and 2.
- audio_tcn.onnx: a raw-waveform 1-D convolutional classifier (wav2vec2's feature encoder, a
  temporal convolutional network, a voice-activity detector; 1 x 1 x 4000 samples): strided
  Conv1d -> BatchNorm1d -> Relu blocks (kernel 10 stride 5, then 3 stride 2, twice), two
  residual blocks of dilated Conv1d (dilations 2 and 4, "same" padding) with BatchNorm1d, a
  residual Add and Relu, GlobalAveragePool -> Flatten -> Gemm: `logits` [1, 10]. 1-D
  convolutions are 2-D ones over a unit axis inside Strata; the BatchNorms, Relus and residual
  adds after them are what this model tests.
- conformer_block.onnx: a Conformer speech-encoder block (ASR models' encoder layer; 100
  frames of 144 features after subsampling): half-step feed-forward (LayerNormalization,
  MatMul + Add, Swish as x * Sigmoid(x), MatMul + Add, x 0.5, residual), multi-head
  self-attention (4 heads of 36; Q/K/V MatMuls, heads split and merged by Reshape and
  Transpose, scaled scores, Softmax), the convolution module (pointwise Conv1d to 2x the
  channels, GLU as Split + Sigmoid + Mul, depthwise Conv1d of 15 taps, BatchNorm1d, Swish,
  pointwise Conv1d, residual), a second half-step feed-forward and a final
  LayerNormalization: `encoded` [1, 100, 144].
- gpt2_block.onnx: two GPT-2 decoder blocks as exporters write them (64 tokens, 256 wide, 4
  heads of 64): LayerNormalization, Q/K/V MatMul + Add, heads split and merged by Reshape and
  Transpose, scores / 8 plus a causal mask of -1e9 above the diagonal, Softmax, the GELU in
  its tanh form (`0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 Pow(x, 3))))`), residual adds and
  a final LayerNormalization: `hidden` [1, 64, 256].
- whisper_encoder.onnx: a speech encoder layer over a long sequence, as Whisper's exporters
  write it (600 frames, 192 wide, 4 heads of 48; Whisper-tiny's 1500 frames in the part the
  checked-in references keep small): LayerNormalization, Q/K/V MatMul + Add, Q and K each
  times head_dim^-0.25, heads split and merged by Reshape and Transpose, Softmax over
  4 x 600 x 600 scores (5.8 MB: the class whose softmax runs block by block), the GELU via
  Erf, residual adds and a final LayerNormalization: `encoded` [1, 600, 192].
- mobilenetv3_small.onnx: MobileNetV3-Small (2.54M parameters, 224x224, 1000 classes) as torchvision exports
  it, the backbone class of PaddleOCR's and many detectors' mobile models: BatchNorm folded
  into the Conv biases, HardSwish and Relu activations, depthwise convolutions of 3x3 and 5x5
  (stride 1 and 2), squeeze-and-excitation blocks (GlobalAveragePool, 1x1 Conv, Relu, 1x1
  Conv, HardSigmoid(alpha 1/6, beta 0.5), Mul broadcast over the map), residual Adds, and a
  Flatten -> Gemm -> HardSwish -> Gemm head: `logits`.
- gated_deltanet_block.onnx: a hybrid LLM's linear-attention layer as an opset-27 exporter
  writes it (Qwen3.5's Gated DeltaNet; the short convolution is Mamba's too), prefilling 64
  tokens 256 wide: RMSNormalization, one MatMul to the q/k/v channels (128 + 64 + 128),
  CausalConvWithState over them (4 taps, SiLU, no past state), Split, q and k split into
  heads and L2-normalised (LpNormalization), a per-head decay `-exp(A) * Softplus(x W_a +
  b)` and write strength `Sigmoid(x W_b)`, LinearAttention (gated delta rule, 4 query heads
  sharing 2 key-value heads of 32 and 64), an output gate `o * Sigmoid(x W_g)`, the output
  MatMul and residual, then a SiLU-gated MLP with its residual: `hidden` [1, 64, 256] and the
  two states a decoder carries to its next step, `conv_state` [1, 320, 3] and
  `recurrent_state` [1, 2, 32, 64].
- vit_tiny.onnx: a vision transformer (DeiT-Tiny's width, 2 of its 12 layers; 224x224 in 16x16
  patches: 197 tokens, 192 wide, 3 heads of 64) as timm / Hugging Face export it: the patch
  embedding as a strided Conv, Reshape + Transpose to tokens, a class token Concat and position
  embeddings Add, pre-norm blocks (LayerNormalization, one fused QKV MatMul + Add, Reshape to
  [1, 197, 3, 3, 64] and Transpose so a Gather picks q, k and v, scaled scores, Softmax, heads
  merged by Transpose + Reshape, residual; an MLP with the exact GELU via Erf), a final
  LayerNormalization, the class token Gathered and a Gemm head: `logits` [1, 1000]. Its 197
  rows are no multiple of a register block (as every ViT's 1 + patches, and any prompt).
- llama_block.onnx: two Llama-style decoder layers as a Hugging Face export writes them
  (Llama, Qwen, Mistral; 64 tokens 256 wide, 8 query heads sharing 2 key-value heads of 32):
  RMSNorm spelled out (Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul by the weight), Q/K/V
  MatMuls without biases, rotary embeddings from cached cos/sin tables Gathered at the
  `position_ids` input (rotate-half as Slice, Neg, Concat), grouped keys and values repeated
  by Unsqueeze + Expand + Reshape, a causal mask of float32's lowest value, Softmax, a
  SwiGLU MLP (688 wide: no multiple of 32) and a final RMSNorm: `hidden` [1, 64, 256].
- unet_segmenter.onnx: a U-Net segmenter as the common PyTorch U-Net exports (1x3x96x96;
  medical, document and satellite segmentation): double 3x3 Conv-BatchNorm-Relu blocks at
  16, 32, 64 and 128 channels, MaxPool 2x2 between them, ConvTranspose k2 s2 up, Concat of
  each skip with the upsampled map, a 1x1 Conv to 3 classes and Softmax over them: `masks`
  [1, 3, 96, 96]. Its skips stay live across the whole network.
- deeplab_segmenter.onnx: a DeepLabV3-style segmenter (torchvision / TF DeepLab; 1x3x129x129,
  output stride 4): a strided Conv-BatchNorm-Relu backbone to 33 x 33, the atrous pyramid
  (1x1 Conv; 3x3 Convs dilated 6, 12 and 18, padded as much, over a map barely wider than the
  largest dilation; image pooling: GlobalAveragePool, 1x1 Conv, bilinear Resize back), Concat,
  a 1x1 projection, a 1x1 Conv to 5 classes (no register block fits 5 filters over 33 x 33) and
  a bilinear Resize (align_corners) to the input size: `logits` [1, 5, 129, 129].
- convnext_classifier.onnx: a ConvNeXt classifier as torchvision / timm export it (1x3x128x128,
  ConvNeXt-atto's widths 40, 80, 160 and 320, two blocks a stage): a 4x4 stride-4 patchify
  Conv, LayerNorm2d as Transpose to NHWC + LayerNormalization + Transpose back (before each
  2x2 stride-2 downsampling Conv too), blocks of a depthwise 7x7 Conv, Transpose to NHWC,
  LayerNormalization, an MLP of MatMul + Add on the 4-D tensor with the exact GELU via Erf
  (4x wide), the layer scale Mul, Transpose back and the residual Add; ReduceMean over H and
  W, LayerNormalization, Gemm: `logits` [1, 1000]. Its transposes between layouts are what
  this class has that the zoo's CNNs and transformers do not.
- yolov8n_detector.onnx: YOLOv8n as Ultralytics exports it (1x3x320x320, 3.2M parameters,
  the real model's widths 16-256 and depths): Conv with folded BatchNorm and SiLU as Sigmoid +
  Mul, stride-2 3x3 downsampling, C2f blocks (Split, one or two bottlenecks with or without the
  residual Add, Concat, 1x1 fusion), SPPF, the FPN/PAN neck (nearest Resize x2, Concat, stride-2
  3x3 Convs), decoupled heads per scale (two 3x3 Convs to 64 box channels, two to 80 class
  channels, a 1x1 Conv each), Reshape + Concat of the three scales, DFL (Reshape, Transpose,
  Softmax over 16 bins, a 1x1 Conv by 0..15), dist2bbox decoding in xywh scaled by the stride
  and the class scores' Sigmoid: `output0` [1, 84, 2100]. The small yolo_detector keeps the
  class's ops in the tests at a tenth of the work; this one has its sizes (20 x 20 and 10 x 10
  maps of 64-256 channels, 80-filter heads), where the schedule's choices differ.
- espcn_superres.onnx: the ESPCN super-resolution network of PyTorch's and ONNX Runtime's
  super-resolution tutorial (the ONNX model zoo's super-resolution-10) as torch.onnx.export
  writes it (1x1x224x224, the image's Y channel, upscale 3): Conv 5x5 1 -> 64, Conv 3x3
  64 -> 64, Conv 3x3 64 -> 32, each with Relu, Conv 3x3 32 -> 9, and the pixel shuffle as
  Reshape [1, 1, 3, 3, 224, 224], Transpose (0, 1, 4, 2, 5, 3), Reshape: `output`
  [1, 1, 672, 672]. Few channels over a large map: its convolutions' work is in the spatial
  extent, and its activations (64 x 224 x 224, 12.8 MB) make its memory peak.
- style_transfer.onnx: a fast neural style transfer network (Johnson et al.'s TransformerNet
  from PyTorch's fast_neural_style example, the ONNX model zoo's mosaic / candy / udnie) as
  torch.onnx.export writes it (1x3x128x128): each ConvLayer a reflection Pad and a Conv
  without pads, InstanceNormalization and Relu after every Conv but the last (9x9 3 -> 32,
  3x3 stride 2 32 -> 64 and 64 -> 128), two residual blocks of 128 channels (the example's
  five cut to two), two upsampling ConvLayers (Resize nearest x2, then Conv 3x3 128 -> 64 and
  64 -> 32), a 9x9 Conv 32 -> 3: `output` [1, 3, 128, 128]. Image-to-image generators
  normalise per image and channel: instance normalisations over planes of 2 MB (blocked a
  plane at a time) and of 1 MB and less.
- istft_vocoder.onnx: a Vocos-style neural vocoder (text-to-speech's last stage, as
  torch.onnx.export writes it at opset 18; 80 mel bins x 64 frames): Conv1d 80 -> 128 (k7),
  two ConvNeXt-1D blocks (depthwise Conv1d k7, Transpose, LayerNormalization, Linear 128 ->
  384, GELU through Erf, Linear 384 -> 128, Transpose, residual Add), LayerNormalization, a Linear to the
  33 bins' magnitude and phase (Split), magnitude `Exp(Clip(x, max=10))`, real and imaginary
  parts by Cos and Sin, the inverse real DFT of each frame as two MatMuls by constant
  cosine and sine bases (64 samples), a Hann window, and the overlap-add of the frames (hop
  16) as `Col2Im` (torch's `Fold`), divided by the window's squared overlap-add and trimmed
  of its centre padding (Slice): `audio` [1, 1024].
- tabular_gbm.onnx: boosted trees on tabular data as skl2onnx and onnxmltools write
  scikit-learn's, XGBoost's and LightGBM's (ai.onnx.ml opset 3; 64 rows x 20 features, every
  7th value missing): `Scaler` (the standardisation), then three ensembles over its output
  (`BRANCH_LEQ`, missing values sent to the true branch at half the nodes, depth up to 6): a
  `TreeEnsembleRegressor` of 120 trees (`SUM`, a base value): `prediction` [64, 1]; a binary
  `TreeEnsembleClassifier` of 40 trees voting for class 0 with a logistic, as XGBoost's:
  `is_positive` [64] and `binary_probabilities` [64, 2]; a 3-class one of 90 trees, each
  voting for one class, with a softmax: `label` [64] (labels 3, 5, 7) and `probabilities`
  [64, 3]. The class of classical models converted from scikit-learn, XGBoost and LightGBM.
- tabular_linear.onnx: linear models on tabular data as skl2onnx writes scikit-learn's
  (ai.onnx.ml opset 1; 64 rows x 20 features): `Scaler`, then a multinomial logistic
  regression (`LinearClassifier`, 4 classes, softmax): `label` [64] and `probabilities`
  [64, 4]; a binary one (one row of coefficients, logistic): `is_positive` [64] and
  `binary_probabilities` [64, 2]; and `Normalizer` (L2) into a 2-target `LinearRegressor`:
  `prediction` [64, 2].
- tabular_svm.onnx: support vector machines on tabular data as skl2onnx writes scikit-learn's
  (ai.onnx.ml opset 1; 64 rows x 20 features): `Scaler`, then an RBF `SVC` of 4 classes
  (`SVMClassifier`, one-against-one, 96 support vectors, no probability estimates): `label`
  [64] (labels 10-13) and `decisions` [64, 6]; a binary polynomial one (degree 3, 40 support
  vectors): `is_positive` [64] and `binary_scores` [64, 2]; an RBF `SVR` (`SVMRegressor`, 60
  support vectors): `prediction` [64, 1]; a sigmoid-kernel one-class SVM (`one_class`):
  `inlier` [64, 1]. Support vectors are rows like the input's, scaled.
- tabular_knn.onnx: a k-nearest-neighbours classifier as skl2onnx writes scikit-learn's
  `KNeighborsClassifier` (64 rows x 12 features, 400 training rows, k = 5, 3 classes): a `Scan`
  over the training rows (`Sub`, `ReduceSumSquare` per row: the squared distances), `Transpose`,
  `Sqrt`, `TopK` (the 5 smallest), `ArrayFeatureExtractor` of their labels, a vote per class
  (`Equal`, `Cast`, `ReduceSum`), `ArgMax`: `label` [64] and `probabilities` [64, 3] (votes / k).
- tabular_anomaly.onnx: an isolation forest as skl2onnx writes scikit-learn's
  `IsolationForest` (ai.onnx.ml opset 3; 64 rows x 20 features, every 7th value missing):
  per tree (24, depth up to 8, 256 samples) a `TreeEnsembleRegressor` giving the leaf's index,
  cast to int64 and mapped by two `LabelEncoder`s to the leaf's depth and sample count, the
  average path length of the unbuilt subtree (`Log`, `Where`) added; the paths summed (`Sum`),
  the anomaly score `-2^(-mean / c(256))` offset by the batch's median score (a contamination
  of one half): `decision` [64, 1], and `label` [64, 1] (-1 for outliers, 1 for inliers). The class of anomaly detectors converted from
  scikit-learn.
One benchmark-only model, not in the tests (no reference is checked in; ~100 MB):

- resnet50.onnx: ResNet-50 (224x224, 25.6M parameters) as torchvision exports it with its
  BatchNorms folded into the Conv biases: bottleneck blocks (1x1, 3x3, 1x1) with projection
  shortcuts, Relu, MaxPool, GlobalAveragePool -> Flatten -> Gemm: `cargo xtask bench memory`
  and `bench compile` set it beside peers.md's ResNet-50 figures.

Fixed inputs: <out>/<model>.inputs/<input>.npy; inputs frozen at compile time:
<out>/<model>.frozen/<input>.pb (serialized TensorProto).

Called by `cargo xtask zoo` with the pinned onnx on PYTHONPATH: `python3 zoo.py OUT_DIR`.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(2024)


class Graph:
    def __init__(self, generator=None):
        self.nodes, self.inits, self.count = [], [], 0
        self.rng = rng if generator is None else generator  # the newer models draw from their own

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, shape, fan_in=None, scale=None):
        name = self.name("w")
        std = scale if scale is not None else np.sqrt(2.0 / (fan_in or shape[-1]))
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * std).astype(np.float32), name))
        return name

    def const(self, array, prefix="c"):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def constant(self, array, prefix="constant"):
        """A Constant node (how torch.onnx.export emits shapes and scalars inside If branches)."""
        return self.op("Constant", [], prefix, value=numpy_helper.from_array(np.asarray(array)))

    def op(self, op_type, inputs, prefix=None, **attrs):
        out = self.name(prefix or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def ops(self, op_type, inputs, count, prefix=None, **attrs):
        """A node with `count` outputs (LSTM, Split, If)."""
        out = self.name(prefix or op_type.lower())
        outs = [out] + [f"{out}_{i}" for i in range(1, count)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=out, **attrs))
        return outs

    def rename(self, old, new):
        """Gives a value the name an exporter's `output_names` would."""
        for node in self.nodes:
            node.input[:] = [new if n == old else n for n in node.input]
            node.output[:] = [new if n == old else n for n in node.output]
        return new

    def conv(self, x, cin, cout, k, stride=1, group=1, bias=True):
        w = self.weight([cout, cin // group, k, k], fan_in=cin // group * k * k)
        inputs = [x, w] + ([self.const(np.zeros(cout, np.float32), "b")] if bias else [])
        return self.op("Conv", inputs, "conv", pads=[k // 2] * 4, strides=[stride, stride], group=group)

    def relu6(self, x):
        return self.op("Clip", [x, self.const(np.float32(0.0), "min"), self.const(np.float32(6.0), "max")], "relu6")

    def batch_norm(self, x, channels, epsilon=1e-5):
        """BatchNormalization with trained-looking statistics (not the identity)."""
        gamma = self.rng.uniform(0.5, 1.5, channels).astype(np.float32)
        beta = (self.rng.standard_normal(channels) * 0.1).astype(np.float32)
        mean = (self.rng.standard_normal(channels) * 0.1).astype(np.float32)
        var = self.rng.uniform(0.5, 1.5, channels).astype(np.float32)
        params = [self.const(gamma, "gamma"), self.const(beta, "beta"), self.const(mean, "mean"), self.const(var, "var")]
        return self.op("BatchNormalization", [x] + params, "bn", epsilon=epsilon)

    def layer_norm(self, x, dim, epsilon=1e-5):
        """LayerNormalization over the last axis, with trained-looking scale and shift."""
        return self.op("LayerNormalization", [x, self.const(self.rng.uniform(0.8, 1.2, dim).astype(np.float32), "ln_g"),
                                              self.const((self.rng.standard_normal(dim) * 0.05).astype(np.float32), "ln_b")],
                       "ln", axis=-1, epsilon=epsilon)

    def linear(self, x, cin, cout):
        """A Linear layer as exporters write it: MatMul by a [cin, cout] weight, then Add a bias."""
        y = self.op("MatMul", [x, self.weight([cin, cout], fan_in=cin, scale=np.sqrt(1.0 / cin))], "linear")
        return self.op("Add", [y, self.const((self.rng.standard_normal(cout) * 0.02).astype(np.float32), "bias")],
                       "bias_add")

    def split_heads(self, x, tokens, heads, head_dim):
        """[1, tokens, heads * head_dim] as [1, heads, tokens, head_dim] (Reshape, Transpose)."""
        x = self.op("Reshape", [x, self.const(np.array([1, tokens, heads, head_dim], np.int64), "shape")], "split_heads")
        return self.op("Transpose", [x], "heads_first", perm=[0, 2, 1, 3])

    def branch(self):
        """An If branch: its own nodes and initializers, names drawn from the same counter."""
        child = Graph(self.rng)
        child.name = self.name
        return child

    def body(self, name, outputs):
        """The branch as a GraphProto; `outputs` are (value, shape) pairs, all float32."""
        infos = [helper.make_tensor_value_info(value, TensorProto.FLOAT, shape) for value, shape in outputs]
        return helper.make_graph(self.nodes, name, [], infos, self.inits)

    def save(self, inputs, outputs, path, name, opset=17, ir_version=None, ml_opset=None):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("ai.onnx.ml", ml_opset)] if ml_opset else [])
        model = helper.make_model(graph, opset_imports=imports, producer_name="strata-zoo")
        if ir_version is not None:
            model.ir_version = ir_version
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, path)
        params = sum(int(np.prod(t.dims)) for t in self.inits)
        print(f"{os.path.basename(path)}: {len(self.nodes)} nodes, {params / 1e6:.2f}M parameters")


def head(g, x, channels, classes=1000):
    x = g.op("GlobalAveragePool", [x], "gap")
    x = g.op("Flatten", [x], "flatten", axis=1)
    fc = g.weight([classes, channels], fan_in=channels)
    return g.op("Gemm", [x, fc, g.const(np.zeros(classes, np.float32), "fc_b")], "fc", transB=1)


def mobilenetv2(path):
    g = Graph()
    x = g.relu6(g.conv("input", 3, 32, 3, stride=2))
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x if t == 1 else g.relu6(g.conv(x, cin, hidden, 1))
            y = g.relu6(g.conv(y, hidden, hidden, 3, stride=stride, group=hidden))
            y = g.conv(y, hidden, c, 1)
            x = g.op("Add", [x, y], "residual") if stride == 1 and cin == c else y
            cin = c
    x = g.relu6(g.conv(x, cin, 1280, 1))
    out = head(g, x, 1280)
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], path, "mobilenetv2")


def resnet18(path):
    g = Graph()

    def conv_bn(x, cin, cout, k, stride=1, relu=True):
        y = g.conv(x, cin, cout, k, stride=stride, bias=False)
        params = [g.const(np.ones(cout, np.float32), "gamma"), g.const(np.zeros(cout, np.float32), "beta"),
                  g.const(np.zeros(cout, np.float32), "mean"), g.const(np.ones(cout, np.float32), "var")]
        y = g.op("BatchNormalization", [y] + params, "bn", epsilon=1e-5)
        return g.op("Relu", [y], "relu") if relu else y

    x = conv_bn("input", 3, 64, 7, stride=2)
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            s = stride if block == 0 else 1
            y = conv_bn(x, cin, cout, 3, stride=s)
            y = conv_bn(y, cout, cout, 3, relu=False)
            shortcut = conv_bn(x, cin, cout, 1, stride=s, relu=False) if (s != 1 or cin != cout) else x
            x = g.op("Relu", [g.op("Add", [y, shortcut], "residual")], "relu")
            cin = cout
    out = head(g, x, 512)
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], path, "resnet18")


def bert_tiny(path, layers=2, hidden=128, heads=2, intermediate=512, seq=128, vocab=30522, dynamic=False,
              name="bert_tiny", generator=None):
    g = Graph(generator)
    head_dim = hidden // heads
    quantized = {}  # each value's DynamicQuantizeLinear, shared by its products

    def dense(x, cin, cout):
        if not dynamic:
            return g.op("Add", [g.op("MatMul", [x, g.weight([cin, cout], scale=0.02)], "matmul"),
                                g.const(np.zeros(cout, np.float32), "bias")], "dense")
        # As onnxruntime.quantization.quantize_dynamic writes it: the input quantized at run time
        # (uint8 over its range), the weight int8 per tensor (symmetric), the i32 product cast to
        # float and scaled by the two scales' product, then the bias.
        if x not in quantized:
            quantized[x] = g.ops("DynamicQuantizeLinear", [x], 3, "dynamic_quantize")
        xq, xs, xz = quantized[x]
        w = (g.rng.standard_normal((cin, cout)) * 0.02).astype(np.float32)
        w_scale = np.float32(np.abs(w).max() / 127.0)
        w_q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
        acc = g.op("MatMulInteger", [xq, g.const(w_q, "weight_quantized"), xz, g.const(np.int8(0), "weight_zero_point")],
                   "matmul_integer")
        scale = g.op("Mul", [xs, g.const(w_scale, "weight_scale")], "scale")
        y = g.op("Mul", [g.op("Cast", [acc], "cast", to=TensorProto.FLOAT), scale], "scaled")
        return g.op("Add", [y, g.const((g.rng.standard_normal(cout) * 0.02).astype(np.float32), "bias")], "dense")

    def layer_norm(x):
        return g.op("LayerNormalization", [x, g.const(np.ones(hidden, np.float32), "ln_g"),
                                           g.const(np.zeros(hidden, np.float32), "ln_b")], "ln", axis=-1, epsilon=1e-12)

    def heads_first(x):  # [1, seq, hidden] -> [1, heads, seq, head_dim]
        x = g.op("Reshape", [x, g.const(np.array([1, seq, heads, head_dim], np.int64), "shape")], "split_heads")
        return g.op("Transpose", [x], "heads_first", perm=[0, 2, 1, 3])

    words = g.op("Gather", [g.weight([vocab, hidden], scale=0.02), "input_ids"], "word_emb", axis=0)
    positions = g.op("Gather", [g.weight([512, hidden], scale=0.02), g.const(np.arange(seq, dtype=np.int64).reshape(1, seq), "pos_ids")], "pos_emb", axis=0)
    types = g.op("Gather", [g.weight([2, hidden], scale=0.02), g.const(np.zeros((1, seq), np.int64), "type_ids")], "type_emb", axis=0)
    x = layer_norm(g.op("Add", [g.op("Add", [words, positions], "emb"), types], "emb"))
    mask = g.op("Unsqueeze", ["attention_mask", g.const(np.array([1, 2], np.int64), "axes")], "mask")
    mask = g.op("Cast", [mask], "mask_f", to=TensorProto.FLOAT)
    mask = g.op("Mul", [g.op("Sub", [g.const(np.float32(1.0), "one"), mask], "mask_inv"), g.const(np.float32(-10000.0), "big")], "mask_add")
    for _ in range(layers):
        q, k, v = (heads_first(dense(x, hidden, hidden)) for _ in range(3))
        scores = g.op("MatMul", [q, g.op("Transpose", [k], "k_t", perm=[0, 1, 3, 2])], "scores")
        scores = g.op("Add", [g.op("Div", [scores, g.const(np.float32(np.sqrt(head_dim)), "sqrt_d")], "scaled"), mask], "masked")
        context = g.op("MatMul", [g.op("Softmax", [scores], "probs", axis=-1), v], "context")
        context = g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, g.const(np.array([1, seq, hidden], np.int64), "shape")], "merge_heads")
        x = layer_norm(g.op("Add", [dense(context, hidden, hidden), x], "residual"))
        h = dense(x, hidden, intermediate)
        erf = g.op("Erf", [g.op("Div", [h, g.const(np.float32(np.sqrt(2.0)), "sqrt2")], "gelu_div")], "gelu_erf")
        h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [erf, g.const(np.float32(1.0), "one")], "gelu_add")], "gelu_mul"),
                         g.const(np.float32(0.5), "half")], "gelu")
        x = layer_norm(g.op("Add", [dense(h, intermediate, hidden), x], "residual"))
    g.save([helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, seq])],
           [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, seq, hidden])], path, name)


def crnn_ocr(path, classes=37, hidden=48, width=128, name="crnn_ocr", seed=20241):
    g = Graph(np.random.default_rng(seed))

    def conv_bn_relu(x, cin, cout, kernel=(3, 3), pads=(1, 1, 1, 1)):
        w = g.weight([cout, cin, *kernel], fan_in=cin * kernel[0] * kernel[1])
        y = g.op("Conv", [x, w], "conv", kernel_shape=list(kernel), pads=list(pads), strides=[1, 1])
        return g.op("Relu", [g.batch_norm(y, cout)], "relu")

    def pool(x, kernel):
        return g.op("MaxPool", [x], "maxpool", kernel_shape=kernel, strides=kernel, pads=[0, 0, 0, 0])

    def bilstm(x, cin):  # [T, N, cin] -> [T, N, 2 * hidden], PyTorch's export of a bidirectional layer
        bound = 1.0 / np.sqrt(hidden)
        shapes = {"lstm_w": [2, 4 * hidden, cin], "lstm_r": [2, 4 * hidden, hidden], "lstm_b": [2, 8 * hidden]}
        w, r, b = (g.const(g.rng.uniform(-bound, bound, shape).astype(np.float32), n) for n, shape in shapes.items())
        y, _, _ = g.ops("LSTM", [x, w, r, b], 3, "lstm", hidden_size=hidden, direction="bidirectional")  # Y [T, 2, N, H]
        y = g.op("Transpose", [y], "lstm_t", perm=[0, 2, 1, 3])
        return g.op("Reshape", [y, g.const(np.array([0, 0, -1], np.int64), "shape")], "lstm_merge")

    steps = width // 4
    x = pool(conv_bn_relu("image", 1, 16), [2, 2])      # [1, 16, 16, W/2]
    x = pool(conv_bn_relu(x, 16, 32), [2, 2])           # [1, 32, 8, T=W/4]
    x = conv_bn_relu(conv_bn_relu(x, 32, 64), 64, 64)
    x = pool(x, [2, 1])                                 # [1, 64, 4, T]
    x = pool(conv_bn_relu(x, 64, 64), [2, 1])           # [1, 64, 2, T]
    x = conv_bn_relu(x, 64, 64, kernel=(2, 1), pads=(0, 0, 0, 0))  # [1, 64, 1, T]
    x = g.op("Squeeze", [x, g.const(np.array([2], np.int64), "axes")], "squeeze")
    x = g.op("Transpose", [x], "to_sequence", perm=[2, 0, 1])  # [T, N=1, C=64]
    x = bilstm(bilstm(x, 64), 2 * hidden)
    x = g.op("Add", [g.op("MatMul", [x, g.weight([2 * hidden, classes], fan_in=2 * hidden)], "matmul"),
                     g.const(np.zeros(classes, np.float32), "bias")], "dense")
    out = g.rename(g.op("LogSoftmax", [x], "log_softmax", axis=2), "logits")
    g.save([helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 32, width])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [steps, 1, classes])], path, name)



def yolo_conv(g, x, cin, cout, k=1, stride=1, silu=True):
    """YOLO's Conv: BatchNorm folded into the bias, SiLU as x * Sigmoid(x) (as exported)."""
    w = g.weight([cout, cin, k, k], fan_in=cin * k * k)
    b = g.const((g.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
    y = g.op("Conv", [x, w, b], "conv", dilations=[1, 1], group=1, kernel_shape=[k, k], pads=[k // 2] * 4,
             strides=[stride, stride])
    return g.op("Mul", [y, g.op("Sigmoid", [y], "sigmoid")], "silu") if silu else y


def yolo_c2f(g, x, cin, cout, n=1, shortcut=True):
    """YOLOv8's C2f: a 1x1 Conv split in two, `n` bottlenecks (two 3x3 Convs, with the residual
    Add or not) each appended, the Concat fused by a 1x1 Conv."""
    c = cout // 2
    parts = g.ops("Split", [yolo_conv(g, x, cin, 2 * c), g.const(np.array([c, c], np.int64), "split")], 2, "split",
                  axis=1)
    for _ in range(n):
        y = yolo_conv(g, yolo_conv(g, parts[-1], c, c, 3), c, c, 3)
        parts.append(g.op("Add", [parts[-1], y], "add") if shortcut else y)
    return yolo_conv(g, g.op("Concat", parts, "concat", axis=1), (2 + n) * c, cout)


def yolo_sppf(g, x, cin, cout):
    """YOLO's SPPF: a 1x1 Conv, three chained 5x5 stride-1 MaxPools, their Concat, a 1x1 Conv."""
    pools = [yolo_conv(g, x, cin, cin // 2)]
    for _ in range(3):
        pools.append(g.op("MaxPool", [pools[-1]], "maxpool", ceil_mode=0, dilations=[1, 1], kernel_shape=[5, 5],
                          pads=[2, 2, 2, 2], strides=[1, 1]))
    return yolo_conv(g, g.op("Concat", pools, "concat", axis=1), 2 * cin, cout)


def yolo_upsample(g, x):
    """PyTorch's nearest Upsample x2 as exported: Resize with an empty roi and scales."""
    return g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")], "resize",
                coordinate_transformation_mode="asymmetric", cubic_coeff_a=-0.75, mode="nearest", nearest_mode="floor")


def yolo_detector(path, classes=4, anchors=((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119))):
    g = Graph(np.random.default_rng(20242))
    na, no = len(anchors[0]) // 2, 5 + classes

    def conv(x, cin, cout, k=1, stride=1, silu=True):
        return yolo_conv(g, x, cin, cout, k, stride, silu)

    def c2f(x, cin, cout, shortcut=True):  # YOLOv8's C2f with one bottleneck
        return yolo_c2f(g, x, cin, cout, 1, shortcut)

    def sppf(x, cin, cout):
        return yolo_sppf(g, x, cin, cout)

    def detect(x, cin, size, stride, anchor):  # YOLOv5's Detect: [1, na*no, H, W] -> [1, na*H*W, no], boxes in pixels
        y = g.op("Reshape", [conv(x, cin, na * no, silu=False), g.const(np.array([1, na, no, size, size], np.int64), "shape")], "reshape")
        y = g.op("Sigmoid", [g.op("Transpose", [y], "transpose", perm=[0, 1, 3, 4, 2])], "sigmoid")
        xy, wh, conf = g.ops("Split", [y, g.const(np.array([2, 2, no - 4], np.int64), "split")], 3, "split", axis=4)
        yv, xv = np.meshgrid(np.arange(size, dtype=np.float32), np.arange(size, dtype=np.float32), indexing="ij")
        grid = np.broadcast_to(np.stack([xv, yv], -1) - np.float32(0.5), (1, na, size, size, 2)).astype(np.float32)
        anchor_grid = np.broadcast_to(np.array(anchor, np.float32).reshape(1, na, 1, 1, 2), (1, na, size, size, 2)).astype(np.float32)
        two = g.const(np.float32(2.0), "two")
        xy = g.op("Mul", [g.op("Add", [g.op("Mul", [xy, two], "mul"), g.const(grid, "grid")], "add"), g.const(np.float32(stride), "stride")], "xy")
        wh = g.op("Mul", [g.op("Pow", [g.op("Mul", [wh, two], "mul"), two], "pow"), g.const(anchor_grid, "anchor_grid")], "wh")
        y = g.op("Concat", [xy, wh, conf], "concat", axis=4)
        return g.op("Reshape", [y, g.const(np.array([1, na * size * size, no], np.int64), "shape")], "reshape")

    x = conv(conv("images", 3, 8, 3, 2), 8, 16, 3, 2)       # [1, 16, 16, 16]
    p3 = c2f(conv(c2f(x, 16, 16), 16, 32, 3, 2), 32, 32)     # [1, 32, 8, 8]
    p4 = sppf(c2f(conv(p3, 32, 64, 3, 2), 64, 64), 64, 64)   # [1, 64, 4, 4]
    up = yolo_upsample(g, p4)
    h3 = c2f(g.op("Concat", [up, p3], "concat", axis=1), 96, 32, shortcut=False)                             # [1, 32, 8, 8]
    h4 = c2f(g.op("Concat", [conv(h3, 32, 32, 3, 2), p4], "concat", axis=1), 96, 64, shortcut=False)         # [1, 64, 4, 4]
    out = g.op("Concat", [detect(h3, 32, 8, 8, anchors[0]), detect(h4, 64, 4, 16, anchors[1])], "concat", axis=1)
    out = g.rename(out, "output0")
    g.save([helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 64, 64])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, na * (64 + 16), no])], path, "yolo_detector")


def densenet_block(path, growth=12, layers=4, classes=10):
    g = Graph(np.random.default_rng(20243))

    def bn_relu_conv(x, cin, cout, k):
        x = g.op("Relu", [g.batch_norm(x, cin)], "relu")
        w = g.weight([cout, cin, k, k], fan_in=cin * k * k)
        return g.op("Conv", [x, w], "conv", kernel_shape=[k, k], pads=[k // 2] * 4, strides=[1, 1])

    def dense_layer(x, cin):
        return bn_relu_conv(bn_relu_conv(x, cin, 4 * growth, 1), 4 * growth, growth, 3)

    x = g.conv("input", 3, 2 * growth, 3)
    channels = 2 * growth
    for _ in range(layers):  # block 1: each new layer's features Concat'ed onto the running map
        x = g.op("Concat", [x, dense_layer(x, channels)], "concat", axis=1)
        channels += growth
    x = bn_relu_conv(x, channels, channels // 2, 1)  # transition
    channels //= 2
    x = g.op("AveragePool", [x], "avgpool", kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 0, 0])
    features = [x]
    for i in range(layers):  # block 2 as torchvision's _DenseLayer: each layer Concats all earlier features
        inputs = features[0] if i == 0 else g.op("Concat", features, "concat", axis=1)
        features.append(dense_layer(inputs, channels + i * growth))
    x = g.op("Concat", features, "concat", axis=1)
    channels += layers * growth
    x = g.op("Relu", [g.batch_norm(x, channels)], "relu")
    out = g.rename(head(g, x, channels, classes), "logits")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "densenet_block")


def opset11_cnn(path, classes=10):
    g = Graph(np.random.default_rng(20244))

    def conv(x, cin, cout, k, stride=1, pads=None):
        w = g.weight([cout, cin, k, k], fan_in=cin * k * k)
        b = g.const((g.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
        return g.op("Conv", [x, w, b], "conv", kernel_shape=[k, k], pads=pads if pads is not None else [k // 2] * 4, strides=[stride, stride])

    def relu6(x):  # Clip-11: min and max as inputs
        return g.op("Clip", [x, g.const(np.float32(0.0), "min"), g.const(np.float32(6.0), "max")], "clip")

    def pool(x):
        return g.op("MaxPool", [x], "maxpool", kernel_shape=[2, 2], strides=[2, 2])

    x = g.op("Pad", ["image", g.const(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"), g.const(np.float32(0.0), "pad_value")], "pad", mode="constant")
    x = relu6(g.batch_norm(conv(x, 3, 16, 3, pads=[0, 0, 0, 0]), 16))            # [1, 16, 32, 32]
    x = g.op("Dropout", [x], "dropout", ratio=0.1)
    left, right = g.ops("Split", [x], 2, "split", axis=1, split=[8, 8])
    f1 = g.op("Concat", [g.op("Relu", [conv(left, 8, 8, 1)], "relu"), relu6(conv(right, 8, 8, 3))], "concat", axis=1)
    f2 = g.op("Relu", [g.batch_norm(conv(pool(f1), 16, 32, 3), 32)], "relu")      # [1, 32, 16, 16]
    up = g.op("Resize", [f2, g.const(np.zeros(0, np.float32), "roi"), g.const(np.array([1, 1, 2, 2], np.float32), "scales")], "resize",
              coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor")
    f1 = g.op("Add", [f1, conv(up, 32, 16, 1)], "add")                               # [1, 16, 32, 32]
    f3 = conv(pool(f1), 16, 32, 3, stride=2)                                        # [1, 32, 8, 8]
    seg = g.op("Softmax", [conv(f3, 32, 4, 1)], "softmax", axis=1)                 # Softmax-11: over C*H*W
    up = g.op("Resize", [f3, g.const(np.zeros(0, np.float32), "roi"), g.const(np.zeros(0, np.float32), "scales"),
                         g.const(np.array([1, 32, 16, 16], np.int64), "sizes")], "resize",
              coordinate_transformation_mode="half_pixel", mode="linear")
    f4 = g.op("Add", [f2, up], "add")                                               # [1, 32, 16, 16]
    x = g.op("ReduceMean", [f4], "reduce_mean", axes=[2, 3], keepdims=1)            # [1, 32, 1, 1]
    x = g.op("Unsqueeze", [g.op("Squeeze", [x], "squeeze", axes=[2, 3])], "unsqueeze", axes=[2])  # [1, 32, 1]
    x = g.op("Flatten", [g.op("ReduceSum", [x], "reduce_sum", axes=[2], keepdims=1)], "flatten", axis=1)
    fc = g.weight([classes, 32], fan_in=32)
    out = g.op("Gemm", [x, fc, g.const((g.rng.standard_normal(classes) * 0.1).astype(np.float32), "fc_b")], "fc", alpha=1.0, beta=1.0, transB=1)
    for node in g.nodes:  # as PaddlePaddle's exporter leaves them
        if node.op_type in ("Clip", "Dropout", "Squeeze", "Unsqueeze", "Softmax", "Flatten"):
            node.name = ""
    g.save([helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
           [helper.make_tensor_value_info(g.rename(out, "logits"), TensorProto.FLOAT, [1, classes]),
            helper.make_tensor_value_info(g.rename(seg, "seg"), TensorProto.FLOAT, [1, 4, 8, 8])],
           path, "opset11_cnn", opset=11, ir_version=6)


def nested_if(path, samples=512, channels=16, frames=64):
    g = Graph(np.random.default_rng(20245))
    feature = [1, channels, frames]

    def conv1d(b, x, w, bias, stride, pad):
        return b.op("Relu", [b.op("Conv", [x, w, bias], "conv", pads=[pad, pad], strides=[stride])], "relu")

    def outputs(b, feat):  # (features [1, C, T], state [1, C]): what every branch yields
        return [(feat, feature), (b.op("ReduceMax", [feat], "reduce_max", axes=[2], keepdims=0), feature[:2])]

    # Weights of the 16 kHz path are main-graph initializers that the branches capture from the
    # outer scope; those of the 8 kHz path are initializers of their branch.
    w16 = g.weight([channels, 1, 16], fan_in=16)
    b16 = g.const((g.rng.standard_normal(channels) * 0.1).astype(np.float32), "b")
    w_inner = g.weight([channels, channels, 3], fan_in=channels * 3)
    b_inner = g.const((g.rng.standard_normal(channels) * 0.1).astype(np.float32), "b")

    then16 = g.branch()  # sample_rate == 16000
    x = then16.op("Reshape", ["audio", then16.constant(np.array([1, 1, samples], np.int64))], "reshape")
    x = conv1d(then16, x, w16, b16, 8, 4)
    deep, shallow = then16.branch(), then16.branch()  # sample_rate > 10000 or not
    deep_out = conv1d(deep, x, w_inner, b_inner, 1, 1)
    shallow_out = shallow.op("Mul", [x, shallow.constant(np.float32(0.5))], "mul")
    cond = then16.op("Greater", ["sample_rate", then16.constant(np.int64(10000))], "greater")
    feat = then16.op("If", [cond], "if", then_branch=deep.body("wide_band", [(deep_out, feature)]),
                     else_branch=shallow.body("narrow_band", [(shallow_out, feature)]))
    then16 = then16.body("sr_16k", outputs(then16, feat))

    else16 = g.branch()  # sample_rate != 16000
    then8, other = else16.branch(), else16.branch()
    x = then8.op("Reshape", ["audio", then8.constant(np.array([1, 1, samples], np.int64))], "reshape")
    w8 = then8.weight([channels, 1, 8], fan_in=8)
    x = conv1d(then8, x, w8, then8.const((then8.rng.standard_normal(channels) * 0.1).astype(np.float32), "b"), 8, 0)
    then8 = then8.body("sr_8k", outputs(then8, x))
    x = other.op("Reshape", ["audio", other.constant(np.array([1, samples // frames, frames], np.int64))], "reshape")
    x = other.op("Tanh", [other.op("MatMul", [other.weight([channels, samples // frames], fan_in=samples // frames), x], "matmul")], "tanh")
    other = other.body("sr_other", outputs(other, x))
    cond = else16.op("Equal", ["sample_rate", else16.constant(np.int64(8000))], "equal")
    feat, state = else16.ops("If", [cond], 2, "if", then_branch=then8, else_branch=other)
    else16 = else16.body("sr_not_16k", [(feat, feature), (state, feature[:2])])

    cond = g.op("Equal", ["sample_rate", g.constant(np.int64(16000))], "equal")
    feat, state = g.ops("If", [cond], 2, "if", then_branch=then16, else_branch=else16)
    x = g.op("Conv", [feat, g.weight([1, channels, 1], fan_in=channels), g.const(np.zeros(1, np.float32), "b")], "conv", pads=[0, 0], strides=[1])
    out = g.op("ReduceMean", [g.op("Sigmoid", [x], "sigmoid")], "reduce_mean", axes=[2], keepdims=0)
    g.save([helper.make_tensor_value_info("audio", TensorProto.FLOAT, [1, samples]),
            helper.make_tensor_value_info("sample_rate", TensorProto.INT64, [])],
           [helper.make_tensor_value_info(g.rename(out, "output"), TensorProto.FLOAT, [1, 1]),
            helper.make_tensor_value_info(g.rename(state, "state"), TensorProto.FLOAT, feature[:2])], path, "nested_if")


# Activation ranges of int8_qdq_cnn, measured once with ONNX Runtime on its fixed input (what
# quantize_static's MinMax calibration computes); a Relu folded into its producer has rmin 0.
INT8_RANGES = {"input": (-1.0, 0.9922), "/stem/act/Relu_output_0": (0.0, 1.95), "/block/act1/Relu_output_0": (0.0, 2.42),
               "/block/conv2/Conv_output_0": (-2.96, 2.53), "/block/act2/Relu_output_0": (0.0, 4.37),
               "/down/act/Relu_output_0": (0.0, 3.67), "/pool/GlobalAveragePool_output_0": (0.0, 1.67), "logits": (-2.18, 1.24)}


def int8_qdq_cnn(path, classes=10):
    g = Graph(np.random.default_rng(20246))
    weights = []  # the weight and bias DequantizeLinear nodes, which quantize_static puts first

    def node(op_type, inputs, output, name, into=None, **attrs):
        (g.nodes if into is None else into).append(helper.make_node(op_type, inputs, [output], name=name, **attrs))
        return output

    def qdq(x, tensor=None, params=None, output=None):  # int8 per tensor, one Q -> DQ pair per tensor
        tensor = tensor or x
        params = params or tensor
        if params == tensor:
            rmin, rmax = min(INT8_RANGES[tensor][0], 0.0), max(INT8_RANGES[tensor][1], 0.0)
            scale = np.float32((rmax - rmin) / 255.0)
            g.inits.append(numpy_helper.from_array(np.array(scale, np.float32), f"{tensor}_scale"))
            g.inits.append(numpy_helper.from_array(np.array(round(-128.0 - rmin / float(scale)), np.int8), f"{tensor}_zero_point"))
        q = node("QuantizeLinear", [x, f"{params}_scale", f"{params}_zero_point"], f"{tensor}_QuantizeLinear_Output", f"{tensor}_QuantizeLinear")
        return node("DequantizeLinear", [q, f"{params}_scale", f"{params}_zero_point"], output or f"{tensor}_DequantizeLinear_Output",
                    f"{tensor}_DequantizeLinear")

    def scale_of(x):
        return next(numpy_helper.to_array(t) for t in g.inits if t.name == f"{x}_scale")

    def quantized_weights(layer, x, shape):  # int8 symmetric per output channel (axis 0), int32 bias
        w = (g.rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)
        b = (g.rng.standard_normal(shape[0]) * 0.1).astype(np.float32)
        w_scale = (np.abs(w).reshape(shape[0], -1).max(axis=1) / np.float32(127.0)).astype(np.float32)
        b_scale = (scale_of(x) * w_scale).astype(np.float32)
        w_q = np.clip(np.round(w / w_scale.reshape(-1, *[1] * (len(shape) - 1))), -127, 127).astype(np.int8)
        for name, array in ((f"{layer}.weight_quantized", w_q), (f"{layer}.weight_scale", w_scale),
                            (f"{layer}.weight_zero_point", np.zeros(shape[0], np.int8)),
                            (f"{layer}.bias_quantized", np.round(b / b_scale).astype(np.int32)),
                            (f"{layer}.bias_quantized_scale", b_scale), (f"{layer}.bias_quantized_zero_point", np.zeros(shape[0], np.int32))):
            g.inits.append(numpy_helper.from_array(array, name))
        bias = node("DequantizeLinear", [f"{layer}.bias_quantized", f"{layer}.bias_quantized_scale", f"{layer}.bias_quantized_zero_point"],
                    f"{layer}.bias", f"{layer}.bias_DequantizeLinear", into=weights, axis=0)
        weight = node("DequantizeLinear", [f"{layer}.weight_quantized", f"{layer}.weight_scale", f"{layer}.weight_zero_point"],
                      f"{layer}.weight_DequantizeLinear_Output", f"{layer}.weight_DequantizeLinear", into=weights, axis=0)
        return weight, bias

    def conv(layer, x, x_dq, cin, cout, output, stride=1):  # output: the Relu's when one is folded into the Q
        weight, bias = quantized_weights(layer, x, [cout, cin, 3, 3])
        return node("Conv", [x_dq, weight, bias], output, f"/{layer.replace('.', '/')}/Conv",
                    dilations=[1, 1], group=1, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride])

    x = "input"
    x_dq = qdq(x)
    stem = conv("stem.conv", x, x_dq, 3, 16, "/stem/act/Relu_output_0")
    stem_dq = qdq(stem)
    y = conv("block.conv1", stem, stem_dq, 16, 16, "/block/act1/Relu_output_0")
    y = conv("block.conv2", y, qdq(y), 16, 16, "/block/conv2/Conv_output_0")
    y = node("Add", [stem_dq, qdq(y)], "/block/act2/Relu_output_0", "/block/Add")  # residual, Relu folded
    y = conv("down.conv", y, qdq(y), 16, 32, "/down/act/Relu_output_0", stride=2)
    y = node("GlobalAveragePool", [qdq(y)], "/pool/GlobalAveragePool_output_0", "/pool/GlobalAveragePool")
    flat = node("Flatten", [qdq(y)], "/Flatten_output_0", "/Flatten", axis=1)
    weight, bias = quantized_weights("fc", y, [classes, 32])
    out = node("Gemm", [qdq(flat, params=y), weight, bias], "logits_QuantizeLinear_Input", "/fc/Gemm", alpha=1.0, beta=1.0, transB=1)
    qdq(out, tensor="logits", output="logits")  # the graph output keeps its name on the last DequantizeLinear
    g.nodes[:0] = weights
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
           [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])], path, "int8_qdq_cnn")


def calibrated(g, values):
    """`run` and `const` for a QDQ model built with its calibration values: each adds a node or
    an initializer to `g` and records its value on the calibration input in `values` (what
    quantize_static's MinMax calibration measures, for the QuantizeLinear scales)."""
    def run(op_type, inputs, prefix, fn, **attrs):  # the node, and its value on the calibration input
        out = g.op(op_type, inputs, prefix, **attrs)
        values[out] = fn(*[values[i] for i in inputs]).astype(np.float32)
        return out

    def const(array, prefix):
        name = g.const(array, prefix)
        values[name] = np.asarray(array)
        return name
    return run, const


def qdq_speech_encoder(path, frames=100, dim=192, heads=4, ffn=768):
    """An int8 QDQ speech-encoder layer: see the module documentation."""
    g = Graph(np.random.default_rng(20261205))
    head_dim = dim // heads
    values = {"features": pattern(frames * dim).reshape(1, frames, dim)}  # the calibration input
    run, const = calibrated(g, values)

    def qdq(x):  # uint8 per tensor, the MinMax range of the calibration input (0 included)
        lo, hi = min(float(values[x].min()), 0.0), max(float(values[x].max()), 0.0)
        scale = np.float32((hi - lo) / 255.0)
        zero = np.uint8(np.clip(round(-lo / float(scale)), 0, 255))
        s, z = const(scale, f"{x}_scale"), const(zero, f"{x}_zero_point")
        q = run("QuantizeLinear", [x, s, z], f"{x}_QuantizeLinear",
                lambda v, s, z: np.clip(np.round(v / s) + int(z), 0, 255))
        return run("DequantizeLinear", [q, s, z], f"{x}_DequantizeLinear", lambda v, s, z: (v - int(z)) * s)

    def linear(x, cin, cout):  # MatMul by int8 weights, symmetric per output column, then the bias
        w = g.rng.standard_normal((cin, cout)).astype(np.float32) * np.float32(np.sqrt(1.0 / cin))
        w_scale = (np.abs(w).max(axis=0) / 127.0).astype(np.float32)
        w_q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
        wq, ws, wz = const(w_q, "weight_quantized"), const(w_scale, "weight_scale"), const(np.zeros(cout, np.int8), "weight_zero_point")
        weight = run("DequantizeLinear", [wq, ws, wz], "weight_DequantizeLinear", lambda q, s, z: (q.astype(np.float32) - z) * s, axis=1)
        y = run("MatMul", [qdq(x), weight], "matmul", np.matmul)
        return run("Add", [y, const((g.rng.standard_normal(cout) * 0.02).astype(np.float32), "bias")], "bias_add", np.add)

    def layer_norm(x):
        gamma = const(g.rng.uniform(0.8, 1.2, dim).astype(np.float32), "ln_g")
        beta = const((g.rng.standard_normal(dim) * 0.05).astype(np.float32), "ln_b")

        def norm(v, a, b):
            centred = v - v.mean(-1, keepdims=True)
            return centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + 1e-5) * a + b
        return run("LayerNormalization", [x, gamma, beta], "ln", norm, axis=-1, epsilon=1e-5)

    def heads_first(x):
        shape = const(np.array([1, frames, heads, head_dim], np.int64), "shape")
        x = run("Reshape", [x, shape], "split_heads", lambda v, s: v.reshape(s))
        return run("Transpose", [x], "heads_first", lambda v: v.transpose(0, 2, 1, 3), perm=[0, 2, 1, 3])

    def softmax(v):
        e = np.exp(v - v.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    x = "features"
    y = layer_norm(x)
    q, k, v = (heads_first(linear(y, dim, dim)) for _ in range(3))
    kt = run("Transpose", [k], "keys_t", lambda v: v.transpose(0, 1, 3, 2), perm=[0, 1, 3, 2])
    scores = run("MatMul", [qdq(q), qdq(kt)], "scores", np.matmul)
    scores = run("Mul", [scores, const(np.float32(1.0 / np.sqrt(head_dim)), "scale")], "scaled", np.multiply)
    probs = run("Softmax", [scores], "softmax", softmax, axis=-1)
    att = run("MatMul", [qdq(probs), qdq(v)], "context", np.matmul)
    att = run("Transpose", [att], "tokens_first", lambda v: v.transpose(0, 2, 1, 3), perm=[0, 2, 1, 3])
    att = run("Reshape", [att, const(np.array([1, frames, dim], np.int64), "shape")], "merge_heads", lambda v, s: v.reshape(s))
    x = run("Add", [x, linear(att, dim, dim)], "residual", np.add)
    h = linear(layer_norm(x), dim, ffn)
    erf = run("Erf", [run("Div", [h, const(np.float32(np.sqrt(2.0)), "sqrt2")], "gelu_div", np.divide)], "gelu_erf",
              lambda v: np.vectorize(math.erf)(v))
    h = run("Mul", [run("Mul", [h, run("Add", [erf, const(np.float32(1.0), "one")], "gelu_add", np.add)], "gelu_mul", np.multiply),
                    const(np.float32(0.5), "half")], "gelu", np.multiply)
    x = run("Add", [x, linear(h, ffn, dim)], "residual", np.add)
    out = g.rename(x, "hidden")
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, frames, dim])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, frames, dim])], path, "qdq_speech_encoder")


def qdq_mobilenet(path, size=56, classes=10, unsigned=False, name="qdq_mobilenet"):
    """An int8 (uint8 activations with `unsigned`) QDQ MobileNetV2-style network: see the module
    documentation."""
    g = Graph(np.random.default_rng(20261205 + 48))
    values = {"input": (pattern(3 * size * size).reshape(1, 3, size, size) + 1) / 2}  # the calibration input
    run, const = calibrated(g, values)
    # quantize_static's default int8 activations, or its QUInt8 ones (older releases' default).
    low, high, dtype = (0, 255, np.uint8) if unsigned else (-128, 127, np.int8)

    def qdq(x):  # per tensor, MinMax of the calibration input, 0 included
        lo, hi = min(float(values[x].min()), 0.0), max(float(values[x].max()), 0.0)
        scale = np.float32((hi - lo) / 255.0)
        zero = dtype(np.clip(round(low - lo / float(scale)), low, high))
        s, z = const(scale, f"{x}_scale"), const(zero, f"{x}_zero_point")
        q = run("QuantizeLinear", [x, s, z], f"{x}_QuantizeLinear",
                lambda v, s, z: np.clip(np.round(v / s) + int(z), low, high))
        return run("DequantizeLinear", [q, s, z], f"{x}_DequantizeLinear", lambda v, s, z: (v - int(z)) * s)

    def conv_nchw(x, w, b, stride, group):  # NumPy's convolution (padding k // 2)
        k = w.shape[-1]
        xp = np.pad(x, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
        oh, ow = (x.shape[2] + 2 * (k // 2) - k) // stride + 1, (x.shape[3] + 2 * (k // 2) - k) // stride + 1
        cin_g, cout_g = x.shape[1] // group, w.shape[0] // group
        y = np.zeros((1, w.shape[0], oh, ow), np.float64)
        for gi in range(group):
            xs = xp[:, gi * cin_g:(gi + 1) * cin_g]
            ws = w[gi * cout_g:(gi + 1) * cout_g].astype(np.float64)
            for ky in range(k):
                for kx in range(k):
                    tap = xs[:, :, ky:ky + stride * oh:stride, kx:kx + stride * ow:stride]
                    y[:, gi * cout_g:(gi + 1) * cout_g] += np.einsum("oc,nchw->nohw", ws[:, :, ky, kx], tap)
        return y + b.reshape(1, -1, 1, 1)

    def conv(x, cin, cout, k, stride=1, group=1, relu6=True):  # int8 weights per output channel, float bias
        shape = [cout, cin // group, k, k]
        w = (g.rng.standard_normal(shape) * np.sqrt(2.0 / (cin // group * k * k))).astype(np.float32)
        w_scale = (np.abs(w).reshape(cout, -1).max(axis=1) / 127.0).astype(np.float32)
        w_q = np.clip(np.round(w / w_scale.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
        wq, ws, wz = const(w_q, "weight_quantized"), const(w_scale, "weight_scale"), const(np.zeros(cout, np.int8), "weight_zero_point")
        weight = run("DequantizeLinear", [wq, ws, wz], "weight_DequantizeLinear",
                     lambda q, s, z: (q.astype(np.float32) - z.reshape(-1, 1, 1, 1)) * s.reshape(-1, 1, 1, 1), axis=0)
        bias = const((g.rng.standard_normal(cout) * 0.05).astype(np.float32), "bias")
        y = run("Conv", [qdq(x), weight, bias], "conv", lambda v, w, b: conv_nchw(v, w, b, stride, group),
                pads=[k // 2] * 4, strides=[stride, stride], group=group, kernel_shape=[k, k])
        if not relu6:
            return y
        return run("Clip", [y, const(np.float32(0.0), "min"), const(np.float32(6.0), "max")], "relu6",
                   lambda v, lo, hi: np.clip(v, lo, hi))

    def inverted_residual(x, cin, cout, stride, expand=6):
        h = conv(x, cin, cin * expand, 1)
        h = conv(h, cin * expand, cin * expand, 3, stride=stride, group=cin * expand)
        h = conv(h, cin * expand, cout, 1, relu6=False)
        if stride == 1 and cin == cout:
            h = run("Add", [qdq(x), qdq(h)], "residual", np.add)
        return h

    x = conv("input", 3, 16, 3, stride=2)  # 28 x 28: whole 16-pixel registers
    x = inverted_residual(x, 16, 16, 1, expand=4)
    x = inverted_residual(x, 16, 24, 2)  # 14 x 14: the last register of pixels partial
    x = inverted_residual(x, 24, 24, 1)
    x = conv(x, 24, 128, 1)
    x = run("GlobalAveragePool", [qdq(x)], "pool", lambda v: v.mean(axis=(2, 3), keepdims=True))
    x = run("Flatten", [x], "flatten", lambda v: v.reshape(1, -1), axis=1)
    w = (g.rng.standard_normal((classes, 128)) * np.sqrt(1.0 / 128)).astype(np.float32)
    if not unsigned:
        logits = g.op("Gemm", [qdq(x), g.const(w, "fc_w"), g.const(np.zeros(classes, np.float32), "fc_b")], "fc",
                      transB=1)
    else:  # quantize_static's head: int8 weights per output (axis 0 of [classes, 128]), a float bias
        w_scale = (np.abs(w).max(axis=1) / 127.0).astype(np.float32)
        w_q = np.clip(np.round(w / w_scale.reshape(-1, 1)), -127, 127).astype(np.int8)
        wq, ws, wz = const(w_q, "fc_w_quantized"), const(w_scale, "fc_w_scale"), const(np.zeros(classes, np.int8), "fc_w_zero_point")
        weight = run("DequantizeLinear", [wq, ws, wz], "fc_w_DequantizeLinear",
                     lambda q, s, z: (q.astype(np.float32) - z.reshape(-1, 1)) * s.reshape(-1, 1), axis=0)
        bias = g.const((g.rng.standard_normal(classes) * 0.05).astype(np.float32), "fc_b")
        logits = g.op("Gemm", [qdq(x), weight, bias], "fc", transB=1)
    out = g.rename(logits, "logits")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, name)


def speech_kws(path, keywords=12, mels=40, hidden=32):
    g = Graph(np.random.default_rng(20247))
    frame, step, samples = 400, 160, 16000
    x = g.op("Reshape", ["audio", g.const(np.array([1, samples, 1], np.int64), "shape")], "signal")
    window = g.const((0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame) / frame)).astype(np.float32), "hann")
    spectrum = g.op("STFT", [x, g.const(np.array(step, np.int64), "step"), window], "stft", onesided=1)
    power = g.op("ReduceSumSquare", [spectrum], "power", axes=[-1], keepdims=0)  # [1, 98, 201]
    filters = g.op("MelWeightMatrix", [g.const(np.array(mels, np.int64), "mels"), g.const(np.array(frame, np.int64), "n_fft"),
                                       g.const(np.array(16000, np.int64), "rate"), g.const(np.float32(20.0), "low"),
                                       g.const(np.float32(7600.0), "high")], "mel")
    mel = g.op("MatMul", [power, filters], "mel_power")
    log_mel = g.op("Log", [g.op("Add", [mel, g.const(np.float32(1e-6), "floor")], "floored")], "log_mel")
    image = g.op("Unsqueeze", [log_mel, g.const(np.array([1], np.int64), "axes")], "image")  # [1, 1, 98, 40]

    def conv_bn_relu(x, cin, cout, stride):
        w = g.weight([cout, cin, 3, 3], fan_in=cin * 9)
        y = g.op("Conv", [x, w], "conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride])
        return g.op("Relu", [g.batch_norm(y, cout)], "relu")

    x = conv_bn_relu(conv_bn_relu(image, 1, 8, 1), 8, 16, 2)  # [1, 16, 49, 20]
    x = g.op("Transpose", [x], "to_time", perm=[2, 0, 1, 3])   # [49, 1, 16, 20]
    x = g.op("Reshape", [x, g.const(np.array([0, 0, -1], np.int64), "shape")], "frames")  # [49, 1, 320]
    bound = 1.0 / np.sqrt(hidden)
    w = g.const(g.rng.uniform(-bound, bound, [1, 3 * hidden, 320]).astype(np.float32), "gru_w")
    r = g.const(g.rng.uniform(-bound, bound, [1, 3 * hidden, hidden]).astype(np.float32), "gru_r")
    b = g.const(g.rng.uniform(-bound, bound, [1, 6 * hidden]).astype(np.float32), "gru_b")
    y, _ = g.ops("GRU", [x, w, r, b], 2, "gru", hidden_size=hidden, linear_before_reset=1)  # [49, 1, 1, 32]
    pooled = g.op("ReduceMean", [y], "pool", axes=[0, 1], keepdims=0)  # [1, 32]
    out = g.op("Gemm", [pooled, g.weight([keywords, hidden], fan_in=hidden), g.const(np.zeros(keywords, np.float32), "bias")],
               "gemm", transB=1)
    out = g.rename(out, "logits")
    g.save([helper.make_tensor_value_info("audio", TensorProto.FLOAT, [1, samples])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, keywords])], path, "speech_kws")


def audio_tcn(path, classes=10, samples=4000):
    g = Graph(np.random.default_rng(20249))

    def conv1d(x, cin, cout, k, stride=1, dilation=1):
        w = g.weight([cout, cin, k], fan_in=cin * k)
        pad = dilation * (k - 1) // 2 if stride == 1 else 0
        y = g.op("Conv", [x, w], "conv", kernel_shape=[k], strides=[stride], dilations=[dilation], pads=[pad, pad])
        return g.batch_norm(y, cout)

    x = g.op("Relu", [conv1d("audio", 1, 32, 10, stride=5)], "relu")  # [1, 32, 799]
    x = g.op("Relu", [conv1d(x, 32, 48, 3, stride=2)], "relu")  # [1, 48, 399]
    x = g.op("Relu", [conv1d(x, 48, 64, 3, stride=2)], "relu")  # [1, 64, 199]
    for dilation in (2, 4):
        y = g.op("Relu", [conv1d(x, 64, 64, 3, dilation=dilation)], "relu")
        y = conv1d(y, 64, 64, 3, dilation=dilation)
        x = g.op("Relu", [g.op("Add", [x, y], "residual")], "relu")
    out = g.rename(head(g, x, 64, classes), "logits")
    g.save([helper.make_tensor_value_info("audio", TensorProto.FLOAT, [1, 1, samples])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "audio_tcn")


def conformer_block(path, frames=100, dim=144, heads=4, kernel=15):
    g = Graph(np.random.default_rng(20250))
    head_dim = dim // heads

    def layer_norm(x):
        return g.layer_norm(x, dim)

    def swish(x):
        return g.op("Mul", [x, g.op("Sigmoid", [x], "sigmoid")], "swish")

    def feed_forward(x):
        y = g.linear(swish(g.linear(layer_norm(x), dim, 4 * dim)), 4 * dim, dim)
        return g.op("Add", [x, g.op("Mul", [y, g.const(np.float32(0.5), "half")], "half_step")], "residual")

    def split_heads(x):
        return g.split_heads(x, frames, heads, head_dim)

    def attention(x):
        y = layer_norm(x)
        q, k, v = (split_heads(g.linear(y, dim, dim)) for _ in range(3))
        scores = g.op("MatMul", [q, g.op("Transpose", [k], "k_t", perm=[0, 1, 3, 2])], "scores")
        scores = g.op("Div", [scores, g.const(np.float32(np.sqrt(head_dim)), "scale")], "scaled")
        context = g.op("MatMul", [g.op("Softmax", [scores], "probs", axis=-1), v], "context")
        context = g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, g.const(np.array([1, frames, dim], np.int64), "shape")], "merge_heads")
        return g.op("Add", [x, g.linear(context, dim, dim)], "residual")

    def conv_module(x):
        y = g.op("Transpose", [layer_norm(x)], "channels_first", perm=[0, 2, 1])  # [1, D, T]
        y = g.op("Conv", [y, g.weight([2 * dim, dim, 1], fan_in=dim, scale=np.sqrt(1.0 / dim)),
                          g.const(np.zeros(2 * dim, np.float32), "b")], "pointwise", kernel_shape=[1])
        a, b = g.ops("Split", [y, g.const(np.array([dim, dim], np.int64), "split")], 2, "glu_split", axis=1)
        y = g.op("Mul", [a, g.op("Sigmoid", [b], "gate")], "glu")
        y = g.op("Conv", [y, g.weight([dim, 1, kernel], fan_in=kernel)], "depthwise", kernel_shape=[kernel],
                 pads=[kernel // 2, kernel // 2], group=dim)
        y = swish(g.batch_norm(y, dim))
        y = g.op("Conv", [y, g.weight([dim, dim, 1], fan_in=dim, scale=np.sqrt(1.0 / dim)),
                          g.const(np.zeros(dim, np.float32), "b")], "pointwise", kernel_shape=[1])
        return g.op("Add", [x, g.op("Transpose", [y], "channels_last", perm=[0, 2, 1])], "residual")

    x = feed_forward("features")
    x = feed_forward(conv_module(attention(x)))
    out = g.rename(layer_norm(x), "encoded")
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, frames, dim])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, frames, dim])], path, "conformer_block")


def gpt2_block(path, tokens=64, dim=256, heads=4, layers=2):
    g = Graph(np.random.default_rng(20251))
    head_dim = dim // heads

    def layer_norm(x):
        return g.layer_norm(x, dim)

    def split_heads(x):
        return g.split_heads(x, tokens, heads, head_dim)

    mask = g.const(np.triu(np.full((tokens, tokens), -1e9, np.float32), 1), "causal_mask")
    x = "hidden_in"
    for _ in range(layers):
        y = layer_norm(x)
        q, k, v = (split_heads(g.linear(y, dim, dim)) for _ in range(3))
        scores = g.op("MatMul", [q, g.op("Transpose", [k], "k_t", perm=[0, 1, 3, 2])], "scores")
        scores = g.op("Div", [scores, g.const(np.float32(np.sqrt(head_dim)), "scale")], "scaled")
        scores = g.op("Add", [scores, mask], "masked")
        context = g.op("MatMul", [g.op("Softmax", [scores], "probs", axis=-1), v], "context")
        context = g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, g.const(np.array([1, tokens, dim], np.int64), "shape")], "merge_heads")
        x = g.op("Add", [x, g.linear(context, dim, dim)], "residual")
        h = g.linear(layer_norm(x), dim, 4 * dim)
        cube = g.op("Pow", [h, g.const(np.float32(3.0), "three")], "cube")
        inner = g.op("Add", [h, g.op("Mul", [g.const(np.float32(0.044715), "c"), cube], "scaled_cube")], "inner")
        t = g.op("Tanh", [g.op("Mul", [g.const(np.float32(np.sqrt(2.0 / np.pi)), "c"), inner], "scaled")], "tanh")
        h = g.op("Mul", [g.op("Mul", [g.const(np.float32(0.5), "half"), h], "half"),
                         g.op("Add", [g.const(np.float32(1.0), "one"), t], "one_plus")], "gelu")
        x = g.op("Add", [x, g.linear(h, 4 * dim, dim)], "residual")
    out = g.rename(layer_norm(x), "hidden")
    g.save([helper.make_tensor_value_info("hidden_in", TensorProto.FLOAT, [1, tokens, dim])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, tokens, dim])], path, "gpt2_block")


def whisper_encoder(path, frames=600, dim=192, heads=4, ffn=768):
    g = Graph(np.random.default_rng(20261206))
    head_dim = dim // heads

    def heads_of(x):
        return g.split_heads(x, frames, heads, head_dim)

    scale = g.const(np.float32(head_dim ** -0.25), "scale")
    x = "features"
    y = g.layer_norm(x, dim)
    q = g.op("Mul", [heads_of(g.linear(y, dim, dim)), scale], "q_scaled")
    k = g.op("Mul", [heads_of(g.linear(y, dim, dim)), scale], "k_scaled")
    v = heads_of(g.linear(y, dim, dim))
    scores = g.op("MatMul", [q, g.op("Transpose", [k], "k_t", perm=[0, 1, 3, 2])], "scores")
    context = g.op("MatMul", [g.op("Softmax", [scores], "probs", axis=-1), v], "context")
    context = g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3])
    context = g.op("Reshape", [context, g.const(np.array([1, frames, dim], np.int64), "shape")], "merge_heads")
    x = g.op("Add", [x, g.linear(context, dim, dim)], "residual")
    h = g.linear(g.layer_norm(x, dim), dim, ffn)
    erf = g.op("Erf", [g.op("Mul", [h, g.const(np.float32(1 / np.sqrt(2.0)), "rsqrt2")], "scaled")], "erf")
    h = g.op("Mul", [g.op("Mul", [h, g.const(np.float32(0.5), "half")], "half"),
                     g.op("Add", [erf, g.const(np.float32(1.0), "one")], "one_plus")], "gelu")
    x = g.op("Add", [x, g.linear(h, ffn, dim)], "residual")
    out = g.rename(g.layer_norm(x, dim), "encoded")
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, frames, dim])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, frames, dim])], path, "whisper_encoder")


def gated_deltanet_block(path, tokens=64, dim=256, q_heads=4, kv_heads=2, d_k=32, d_v=64, taps=4):
    """A Gated DeltaNet layer with its MLP: see the module documentation."""
    g = Graph(np.random.default_rng(20261201))
    q_width, k_width, v_width = q_heads * d_k, kv_heads * d_k, kv_heads * d_v
    channels = q_width + k_width + v_width

    def rms_norm(x):
        scale = g.const(g.rng.uniform(0.8, 1.2, dim).astype(np.float32), "rms_g")
        return g.op("RMSNormalization", [x, scale], "rms_norm", axis=-1, epsilon=1e-6)

    def project(x, cin, cout):
        return g.op("MatMul", [x, g.weight([cin, cout], fan_in=cin, scale=np.sqrt(1.0 / cin))], "proj")

    def heads(x, count, size):
        """[1, tokens, count * size] L2-normalised per head."""
        x = g.op("Reshape", [x, g.const(np.array([1, tokens, count, size], np.int64), "shape")], "split_heads")
        x = g.op("LpNormalization", [x], "l2_norm", axis=-1, p=2)
        return g.op("Reshape", [x, g.const(np.array([1, tokens, count * size], np.int64), "shape")], "merge_heads")

    x = "hidden_in"
    y = rms_norm(x)
    qkv = g.op("Transpose", [project(y, dim, channels)], "channels_first", perm=[0, 2, 1])
    conv_w = g.weight([channels, 1, taps], fan_in=taps, scale=0.5)
    conv_b = g.const((g.rng.standard_normal(channels) * 0.05).astype(np.float32), "conv_b")
    mixed, conv_state = g.ops("CausalConvWithState", [qkv, conv_w, conv_b], 2, "causal_conv", activation="silu")
    mixed = g.op("Transpose", [mixed], "channels_last", perm=[0, 2, 1])
    q, k, v = g.ops("Split", [mixed, g.const(np.array([q_width, k_width, v_width], np.int64), "split")], 3,
                    "split_qkv", axis=-1)
    q, k = heads(q, q_heads, d_k), heads(k, kv_heads, d_k)
    a_log = g.const(np.log(g.rng.uniform(1.0, 16.0, kv_heads)).astype(np.float32), "a_log")
    rate = g.op("Softplus", [g.op("Add", [project(y, dim, kv_heads),
                                          g.const((g.rng.standard_normal(kv_heads) * 0.5).astype(np.float32), "dt_bias")],
                                   "dt")], "softplus")
    decay = g.op("Mul", [g.op("Neg", [g.op("Exp", [a_log], "a")], "neg_a"), rate], "decay")
    beta = g.op("Sigmoid", [project(y, dim, kv_heads)], "beta")
    attended, recurrent_state = g.ops("LinearAttention", [q, k, v, "", decay, beta], 2, "linear_attention",
                                      q_num_heads=q_heads, kv_num_heads=kv_heads, update_rule="gated_delta")
    gate = g.op("Sigmoid", [project(y, dim, q_heads * d_v)], "output_gate")
    attended = g.op("Mul", [attended, gate], "gated")
    x = g.op("Add", [x, project(attended, q_heads * d_v, dim)], "residual")
    y = rms_norm(x)
    up, gate = project(y, dim, 2 * dim), project(y, dim, 2 * dim)
    silu = g.op("Mul", [gate, g.op("Sigmoid", [gate], "sigmoid")], "silu")
    x = g.op("Add", [x, project(g.op("Mul", [up, silu], "gated_up"), 2 * dim, dim)], "residual")
    out = g.rename(x, "hidden")
    conv_state = g.rename(conv_state, "conv_state")
    recurrent_state = g.rename(recurrent_state, "recurrent_state")
    g.save([helper.make_tensor_value_info("hidden_in", TensorProto.FLOAT, [1, tokens, dim])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, tokens, dim]),
            helper.make_tensor_value_info(conv_state, TensorProto.FLOAT, [1, channels, taps - 1]),
            helper.make_tensor_value_info(recurrent_state, TensorProto.FLOAT, [1, kv_heads, d_k, d_v])],
           path, "gated_deltanet_block", opset=27)


def half_precision(source, path, name):
    """The model at `source` as a half-precision export writes it (onnxconverter-common's
    float16 conversion, a torch `.half()` model exported): every float initializer, `Constant`,
    graph input and output in float16, but the inputs ONNX types as float32 alone (Resize's
    scales)."""
    model = onnx.load(source)
    g = model.graph
    float_only = {node.input[2] for node in g.node if node.op_type == "Resize" and len(node.input) > 2}
    for i, init in enumerate(g.initializer):
        if init.data_type == TensorProto.FLOAT and init.name not in float_only:
            g.initializer[i].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), init.name))
    for node in g.node:
        for attribute in node.attribute:
            if node.op_type == "Constant" and attribute.t.data_type == TensorProto.FLOAT and node.output[0] not in float_only:
                attribute.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(attribute.t).astype(np.float16)))
    for value in list(g.input) + list(g.output) + list(g.value_info):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.FLOAT16
    g.name = name
    onnx.checker.check_model(model)
    onnx.save(model, path)


def bf16_bits(array):
    """float32 values rounded to bfloat16 (to nearest, ties to even), as their 16-bit patterns."""
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_tensor(array, name):
    """A BFLOAT16 initializer holding `array` rounded to bfloat16."""
    tensor = TensorProto(name=name, data_type=TensorProto.BFLOAT16, dims=list(np.shape(array)))
    tensor.raw_data = bf16_bits(array).tobytes()
    return tensor


def bfloat16_precision(source, path, name):
    """The model at `source` as a bfloat16 export for CPUs with bf16 units writes it (weights
    and every activation bf16, each op rounding its result to bf16), with the float32 interface
    kept: a Cast to bf16 after each graph input and one back to float32 before each output (the
    `.npy` inputs users feed have no bf16). Also writes `<path minus .onnx>.ort.onnx`, what ONNX
    Runtime's CPU provider can run of it (no bf16 kernel there but Cast): the same graph on
    float32 holding the bf16 weights' exact values, each op's result cast to bf16 and back,
    for the references and `bench run`'s ONNX Runtime column."""
    model = onnx.load(source)
    g = model.graph
    for i, init in enumerate(g.initializer):
        if init.data_type == TensorProto.FLOAT:
            g.initializer[i].CopyFrom(bf16_tensor(numpy_helper.to_array(init), init.name))
    for node in g.node:
        for attribute in node.attribute:
            if node.op_type == "Constant" and attribute.t.data_type == TensorProto.FLOAT:
                attribute.t.CopyFrom(bf16_tensor(numpy_helper.to_array(attribute.t), ""))
    for value in g.value_info:
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.BFLOAT16
    renamed = {}
    for value in g.input:
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            renamed[value.name] = f"{value.name}_bf16"
    for node in g.node:
        node.input[:] = [renamed.get(x, x) for x in node.input]
    entry = [helper.make_node("Cast", [x], [y], name=f"{x}_to_bf16", to=TensorProto.BFLOAT16) for x, y in renamed.items()]
    exits = []
    for value in g.output:
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            inner = f"{value.name}_bf16"
            for node in g.node:
                node.output[:] = [inner if y == value.name else y for y in node.output]
                node.input[:] = [inner if x == value.name else x for x in node.input]
            exits.append(helper.make_node("Cast", [inner], [value.name], name=f"{value.name}_to_f32", to=TensorProto.FLOAT))
    nodes = entry + list(g.node) + exits
    del g.node[:]
    g.node.extend(nodes)
    g.name = name
    onnx.checker.check_model(model)
    onnx.save(model, path)
    # The twin: the same graph on float32, rounding each op's result through bf16.
    twin = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in list(twin.graph.value_info) + list(twin.graph.output)}
    t = twin.graph
    for i, init in enumerate(t.initializer):
        if init.data_type == TensorProto.BFLOAT16:
            values = (np.frombuffer(init.raw_data, np.uint16).astype(np.uint32) << 16).view(np.float32)
            t.initializer[i].CopyFrom(numpy_helper.from_array(values.reshape(tuple(init.dims)), init.name))
    nodes = []
    for node in t.node:
        if node.op_type == "Constant":
            raise ValueError("bfloat16_precision's twin does not take Constant nodes")
        rounded = [y for y in node.output if types.get(y) == TensorProto.BFLOAT16]
        node.output[:] = [f"{y}_f32" if y in rounded else y for y in node.output]
        if node.op_type == "Cast" and node.output[0].endswith("_f32"):
            node.attribute[0].i = TensorProto.FLOAT
        nodes.append(node)
        for y in rounded:
            nodes.append(helper.make_node("Cast", [f"{y}_f32"], [f"{y}_b"], to=TensorProto.BFLOAT16))
            nodes.append(helper.make_node("Cast", [f"{y}_b"], [y], to=TensorProto.FLOAT))
    del t.node[:]
    t.node.extend(nodes)
    del t.value_info[:]
    onnx.checker.check_model(twin)
    onnx.save(twin, path[:-len(".onnx")] + ".ort.onnx")


def text_detector(path, size=128):
    """A DBNet-style text detector (PaddleOCR det / EasyOCR-like): a small strided backbone
    (Conv + BatchNorm + Relu) down to 1/16, an FPN (1x1 lateral Convs, Resize nearest x2 + Add,
    3x3 smoothing Convs, Resize to 1/4 and Concat), and the probability head as exported:
    Conv 3x3 + BatchNorm + Relu, ConvTranspose k2 s2 + BatchNorm + Relu, ConvTranspose k2 s2 to
    one channel, Sigmoid: `maps` [1, 1, size, size]."""
    g = Graph(np.random.default_rng(20245))

    def cbr(x, cin, cout, k=3, stride=1):
        return g.op("Relu", [g.batch_norm(g.conv(x, cin, cout, k, stride, bias=False), cout)], "relu")

    def upsample(x, factor):
        return g.op("Resize", [x, "", g.const(np.array([1, 1, factor, factor], np.float32), "scales")], "resize",
                    coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor")

    def deconv(x, cin, cout):
        w = g.weight([cin, cout, 2, 2], fan_in=cin * 4)
        return g.op("ConvTranspose", [x, w, g.const((g.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")],
                    "deconv", kernel_shape=[2, 2], strides=[2, 2])

    c2 = cbr(cbr("image", 3, 16, 3, 2), 16, 16, 3, 2)        # 1/4
    c3 = cbr(c2, 16, 32, 3, 2)                                 # 1/8
    c4 = cbr(c3, 32, 48, 3, 2)                                 # 1/16
    lateral = [g.conv(c, cin, 24, 1) for c, cin in ((c2, 16), (c3, 32), (c4, 48))]
    p4 = lateral[2]
    p3 = g.op("Add", [lateral[1], upsample(p4, 2)], "add")
    p2 = g.op("Add", [lateral[0], upsample(p3, 2)], "add")
    # (Channel counts that are multiples of 4: ONNX Runtime 1.32's NCHWc rewrite fails on 6.)
    smooth = [g.conv(p, 24, 8, 3) for p in (p2, p3, p4)]
    fused = g.op("Concat", [smooth[0], upsample(smooth[1], 2), upsample(smooth[2], 4)], "concat", axis=1)  # [1, 24, 1/4]
    y = cbr(fused, 24, 8, 3)
    y = g.op("Relu", [g.batch_norm(deconv(y, 8, 8), 8)], "relu")
    y = g.op("Sigmoid", [deconv(y, 8, 1)], "sigmoid")
    out = g.rename(y, "maps")
    g.save([helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1, size, size])], path, "text_detector")


def inception_cell(path, classes=10):
    """An Inception-style classifier as some exporters list it (1x3x32x32): a stem Conv-Relu,
    then two cells of four branches (1x1; 1x1 reduce then 3x3; 1x1 then two 3x3; MaxPool 3x3
    stride 1 then 1x1) written breadth first, every branch's first layer before any branch's
    second, as a tracer that visits the cell layer by layer emits them. The wide first layers
    (96 channels) are then all live together unless the compiler reorders the branches.
    GlobalAveragePool -> Flatten -> Gemm: `logits` [1, 10]."""
    g = Graph(np.random.default_rng(20246))

    def conv_relu(x, cin, cout, k):
        return g.op("Relu", [g.conv(x, cin, cout, k)], "relu")

    def cell(x, cin):
        # Layer by layer: the first layer of each branch, then the second, then the third.
        b1 = conv_relu(x, cin, 16, 1)
        b2 = conv_relu(x, cin, 96, 1)
        b3 = conv_relu(x, cin, 96, 1)
        b4 = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
        b2 = conv_relu(b2, 96, 16, 3)
        b3 = conv_relu(b3, 96, 32, 3)
        b4 = conv_relu(b4, cin, 16, 1)
        b3 = conv_relu(b3, 32, 16, 3)
        return g.op("Concat", [b1, b2, b3, b4], "concat", axis=1)

    x = conv_relu("input", 3, 32, 3)
    x = cell(x, 32)
    x = cell(x, 64)
    out = g.rename(head(g, x, 64, classes), "logits")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "inception_cell")


def resnext_block(path, classes=10):
    """A ResNeXt-style classifier: see the module documentation."""
    g = Graph(np.random.default_rng(4242))

    def relu(x):
        return g.op("Relu", [x], "relu")

    def block(x, cin, width, cout, stride, groups):
        y = relu(g.conv(x, cin, width, 1))
        y = relu(g.conv(y, width, width, 3, stride=stride, group=groups))
        y = g.conv(y, width, cout, 1)
        shortcut = g.conv(x, cin, cout, 1, stride=stride) if (stride, cin) != (1, cout) else x
        return relu(g.op("Add", [y, shortcut], "residual"))

    x = relu(g.conv("input", 3, 32, 3))
    x = block(x, 32, 64, 128, 1, 16)       # 56 x 56, 16 groups of 4
    x = block(x, 128, 128, 128, 2, 32)     # to 28 x 28, 32 groups of 4, strided
    x = block(x, 128, 128, 128, 1, 32)     # 28 x 28
    x = block(x, 128, 256, 256, 2, 32)     # to 14 x 14, 32 groups of 8, strided (ResNeXt-50's next stage)
    out = g.rename(head(g, x, 256, classes), "logits")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 56, 56])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "resnext_block")


def mobilenetv3_small(path, classes=1000):
    """MobileNetV3-Small as torchvision exports it: see the module documentation."""
    g = Graph(np.random.default_rng(3003))

    def act(x, kind):
        return g.op("Relu", [x], "relu") if kind == "RE" else g.op("HardSwish", [x], "hardswish")

    def squeeze_excite(x, channels):
        squeeze = max(8, (channels // 4 + 4) // 8 * 8)  # torchvision's _make_divisible(channels // 4, 8)
        s = g.op("GlobalAveragePool", [x], "se_pool")
        s = g.op("Relu", [g.conv(s, channels, squeeze, 1)], "se_relu")
        s = g.op("HardSigmoid", [g.conv(s, squeeze, channels, 1)], "se_gate", alpha=1.0 / 6.0, beta=0.5)
        return g.op("Mul", [x, s], "se_scale")

    x = act(g.conv("input", 3, 16, 3, stride=2), "HS")
    cin = 16
    for k, expanded, cout, se, kind, stride in [(3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2),
                                                (3, 88, 24, False, "RE", 1), (5, 96, 40, True, "HS", 2),
                                                (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
                                                (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1),
                                                (5, 288, 96, True, "HS", 2), (5, 576, 96, True, "HS", 1),
                                                (5, 576, 96, True, "HS", 1)]:
        y = x if expanded == cin else act(g.conv(x, cin, expanded, 1), kind)
        y = act(g.conv(y, expanded, expanded, k, stride=stride, group=expanded), kind)
        if se:
            y = squeeze_excite(y, expanded)
        y = g.conv(y, expanded, cout, 1)
        x = g.op("Add", [x, y], "residual") if stride == 1 and cin == cout else y
        cin = cout
    x = act(g.conv(x, cin, 576, 1), "HS")
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x], "gap")], "flatten", axis=1)
    fc1 = g.weight([1024, 576], fan_in=576)
    x = act(g.op("Gemm", [x, fc1, g.const(np.zeros(1024, np.float32), "fc1_b")], "fc1", transB=1), "HS")
    fc2 = g.weight([classes, 1024], fan_in=1024)
    out = g.op("Gemm", [x, fc2, g.const(np.zeros(classes, np.float32), "fc2_b")], "fc2", transB=1)
    out = g.rename(out, "logits")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "mobilenetv3_small")


def vit_tiny(path, size=224, patch=16, dim=192, heads=3, layers=2, classes=1000):
    """A vision transformer as timm / Hugging Face export it: see the module documentation."""
    g = Graph(np.random.default_rng(1616))
    tokens, head_dim = (size // patch) ** 2 + 1, dim // heads
    x = g.op("Conv", ["pixels", g.weight([dim, 3, patch, patch], fan_in=3 * patch * patch),
                      g.const(np.zeros(dim, np.float32), "patch_b")], "patch_embed",
             kernel_shape=[patch, patch], strides=[patch, patch])
    x = g.op("Reshape", [x, g.const(np.array([1, dim, tokens - 1], np.int64), "shape")], "flatten")
    x = g.op("Transpose", [x], "tokens_first", perm=[0, 2, 1])
    cls = g.const((g.rng.standard_normal((1, 1, dim)) * 0.02).astype(np.float32), "cls_token")
    x = g.op("Concat", [cls, x], "with_cls", axis=1)
    x = g.op("Add", [x, g.const((g.rng.standard_normal((1, tokens, dim)) * 0.02).astype(np.float32), "pos_embed")],
             "pos_add")
    for _ in range(layers):
        qkv = g.linear(g.layer_norm(x, dim, 1e-6), dim, 3 * dim)
        qkv = g.op("Reshape", [qkv, g.const(np.array([1, tokens, 3, heads, head_dim], np.int64), "shape")], "qkv_split")
        qkv = g.op("Transpose", [qkv], "qkv_first", perm=[2, 0, 3, 1, 4])
        q, k, v = (g.op("Gather", [qkv, g.const(np.array(i, np.int64), "index")], "qkv_pick", axis=0) for i in range(3))
        scores = g.op("MatMul", [q, g.op("Transpose", [k], "keys_t", perm=[0, 1, 3, 2])], "scores")
        scores = g.op("Mul", [scores, g.const(np.float32(head_dim ** -0.5), "scale")], "scaled")
        context = g.op("MatMul", [g.op("Softmax", [scores], "softmax", axis=-1), v], "context")
        context = g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, g.const(np.array([1, tokens, dim], np.int64), "shape")], "merge_heads")
        x = g.op("Add", [x, g.linear(context, dim, dim)], "residual")
        h = g.linear(g.layer_norm(x, dim, 1e-6), dim, 4 * dim)
        erf = g.op("Erf", [g.op("Div", [h, g.const(np.float32(np.sqrt(2.0)), "sqrt2")], "gelu_div")], "gelu_erf")
        h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [erf, g.const(np.float32(1.0), "one")], "gelu_add")], "gelu_mul"),
                         g.const(np.float32(0.5), "half")], "gelu")
        x = g.op("Add", [x, g.linear(h, 4 * dim, dim)], "residual")
    cls_out = g.op("Gather", [g.layer_norm(x, dim, 1e-6), g.const(np.array(0, np.int64), "index")], "cls_pick", axis=1)
    out = g.op("Gemm", [cls_out, g.weight([classes, dim], fan_in=dim), g.const(np.zeros(classes, np.float32), "head_b")],
               "head", transB=1)
    out = g.rename(out, "logits")
    g.save([helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "vit_tiny")


def llama_block(path, tokens=64, dim=256, heads=8, kv_heads=2, ffn=688, layers=2, theta=10000.0):
    """Llama-style decoder layers as Hugging Face exports them: see the module documentation."""
    g = Graph(np.random.default_rng(7777))
    head_dim = dim // heads

    def rms_norm(x):
        mean = g.op("ReduceMean", [g.op("Pow", [x, g.const(np.float32(2.0), "two")], "rms_pow")], "rms_mean",
                    axes=[-1], keepdims=1)
        scale = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [mean, g.const(np.float32(1e-6), "eps")], "rms_eps")],
                                         "rms_sqrt")], "rms_rsqrt")
        weight = g.const(g.rng.uniform(0.8, 1.2, dim).astype(np.float32), "rms_w")
        return g.op("Mul", [g.op("Mul", [x, scale], "rms_scale"), weight], "rms_norm")

    def proj(x, cin, cout):
        return g.op("MatMul", [x, g.weight([cin, cout], scale=np.sqrt(1.0 / cin))], "proj")

    # The rotary tables as the model caches them ([positions, head_dim]), gathered at the
    # position ids and unsqueezed over the heads.
    inv = 1.0 / theta ** (np.arange(0, head_dim, 2) / head_dim)
    angles = np.arange(2 * tokens)[:, None] * inv[None]
    tables = [g.const(np.concatenate([f(angles)] * 2, -1).astype(np.float32), name) for f, name in
              ((np.cos, "cos_cached"), (np.sin, "sin_cached"))]
    cos, sin = (g.op("Unsqueeze", [g.op("Gather", [t, "position_ids"], "rope_gather", axis=0),
                                   g.const(np.array([1], np.int64), "axes")], "rope_table") for t in tables)

    def rotate(x):
        half = [g.const(np.array([v], np.int64), "bound") for v in (0, head_dim // 2, head_dim)]
        axis = g.const(np.array([3], np.int64), "axis")
        first = g.op("Slice", [x, half[0], half[1], axis], "rope_first")
        second = g.op("Slice", [x, half[1], half[2], axis], "rope_second")
        rotated = g.op("Concat", [g.op("Neg", [second], "rope_neg"), first], "rope_rotate", axis=-1)
        return g.op("Add", [g.op("Mul", [x, cos], "rope_cos"), g.op("Mul", [rotated, sin], "rope_sin")], "rope")

    def repeat_kv(x):
        x = g.op("Unsqueeze", [x, g.const(np.array([2], np.int64), "axes")], "kv_unsqueeze")
        x = g.op("Expand", [x, g.const(np.array([1, kv_heads, heads // kv_heads, tokens, head_dim], np.int64), "shape")],
                 "kv_expand")
        return g.op("Reshape", [x, g.const(np.array([1, heads, tokens, head_dim], np.int64), "shape")], "kv_repeat")

    mask = g.const(np.triu(np.full((tokens, tokens), np.finfo(np.float32).min, np.float32), 1), "causal_mask")
    x = "hidden_in"
    for _ in range(layers):
        h = rms_norm(x)
        q = rotate(g.split_heads(proj(h, dim, dim), tokens, heads, head_dim))
        k = repeat_kv(rotate(g.split_heads(proj(h, dim, kv_heads * head_dim), tokens, kv_heads, head_dim)))
        v = repeat_kv(g.split_heads(proj(h, dim, kv_heads * head_dim), tokens, kv_heads, head_dim))
        scores = g.op("MatMul", [q, g.op("Transpose", [k], "keys_t", perm=[0, 1, 3, 2])], "scores")
        scores = g.op("Add", [g.op("Mul", [scores, g.const(np.float32(head_dim ** -0.5), "scale")], "scaled"), mask],
                      "masked")
        context = g.op("MatMul", [g.op("Softmax", [scores], "softmax", axis=-1), v], "context")
        context = g.op("Reshape", [g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3]),
                                   g.const(np.array([1, tokens, dim], np.int64), "shape")], "merge_heads")
        x = g.op("Add", [x, proj(context, dim, dim)], "residual")
        h = rms_norm(x)
        gate = proj(h, dim, ffn)
        act = g.op("Mul", [gate, g.op("Sigmoid", [gate], "silu_sigmoid")], "silu")
        x = g.op("Add", [x, proj(g.op("Mul", [act, proj(h, dim, ffn)], "swiglu"), ffn, dim)], "residual")
    out = g.rename(rms_norm(x), "hidden")
    g.save([helper.make_tensor_value_info("hidden_in", TensorProto.FLOAT, [1, tokens, dim]),
            helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, tokens])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, tokens, dim])], path, "llama_block")


def unet_segmenter(path, size=96, widths=(16, 32, 64, 128), classes=3):
    """A U-Net segmenter as torch.onnx.export writes the common PyTorch U-Net (medical,
    document and satellite segmentation; 1x3xsizexsize): double 3x3 Conv-BatchNorm-Relu blocks,
    MaxPool 2x2 down three times, ConvTranspose k2 s2 up, Concat of the skip and the upsampled
    map (skip first), a 1x1 Conv to the classes and Softmax over them: `masks` [1, 3, size, size]."""
    g = Graph(np.random.default_rng(20261201))

    def cbr(x, cin, cout):
        return g.op("Relu", [g.batch_norm(g.conv(x, cin, cout, 3, bias=False), cout)], "relu")

    def up(x, cin, cout):
        w = g.weight([cin, cout, 2, 2], fan_in=cin * 4)
        return g.op("ConvTranspose", [x, w, g.const((g.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")],
                    "up", kernel_shape=[2, 2], strides=[2, 2])

    x, cin, skips = "image", 3, []
    for width in widths[:-1]:
        x = cbr(cbr(x, cin, width), width, width)
        skips.append((x, width))
        x = g.op("MaxPool", [x], "pool", kernel_shape=[2, 2], strides=[2, 2])
        cin = width
    x = cbr(cbr(x, cin, widths[-1]), widths[-1], widths[-1])
    cin = widths[-1]
    for skip, width in reversed(skips):
        x = g.op("Concat", [skip, up(x, cin, width)], "concat", axis=1)
        x = cbr(cbr(x, 2 * width, width), width, width)
        cin = width
    y = g.op("Softmax", [g.conv(x, cin, classes, 1)], "softmax", axis=1)
    out = g.rename(y, "masks")
    g.save([helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes, size, size])], path, "unet_segmenter")


def deeplab_segmenter(path, size=129, classes=5):
    """A DeepLabV3-style segmenter (torchvision / TF DeepLab exports; 1x3x129x129, the odd
    sizes of output stride 4 and 513-pixel inputs): a strided Conv-BatchNorm-Relu backbone to
    33 x 33, the atrous pyramid (a 1x1 Conv, 3x3 Convs dilated 6, 12 and 18 and padded as
    much, and an image-pooling branch: GlobalAveragePool, 1x1 Conv, bilinear Resize back to
    33 x 33), Concat, a 1x1 projection, a 1x1 Conv to the classes and a bilinear Resize
    (align_corners) to the input size: `logits` [1, 5, 129, 129]."""
    g = Graph(np.random.default_rng(20261202))

    def cbr(x, cin, cout, k=3, stride=1, dilation=1):
        w = g.weight([cout, cin, k, k], fan_in=cin * k * k)
        pad = dilation * (k // 2)
        conv = g.op("Conv", [x, w], "conv", pads=[pad] * 4, strides=[stride, stride], dilations=[dilation, dilation])
        return g.op("Relu", [g.batch_norm(conv, cout)], "relu")

    def resize(x, shape):
        return g.op("Resize", [x, "", "", g.const(np.array(shape, np.int64), "sizes")], "resize", mode="linear",
                    coordinate_transformation_mode="align_corners")

    x = cbr(cbr(cbr("image", 3, 32, stride=2), 32, 32), 32, 64, stride=2)    # 33 x 33
    feature = 33
    branches = [cbr(x, 64, 32, k=1)] + [cbr(x, 64, 32, dilation=d) for d in (6, 12, 18)]
    pooled = cbr(g.op("GlobalAveragePool", [x], "gap"), 64, 32, k=1)
    branches.append(resize(pooled, [1, 32, feature, feature]))
    y = cbr(g.op("Concat", branches, "concat", axis=1), 160, 32, k=1)
    y = g.conv(y, 32, classes, 1)
    y = resize(y, [1, classes, size, size])
    out = g.rename(y, "logits")
    g.save([helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes, size, size])], path, "deeplab_segmenter")


def convnext_classifier(path, size=128, widths=(40, 80, 160, 320), depth=2, classes=1000):
    """A ConvNeXt classifier as torchvision / timm export it: see the module documentation."""
    g = Graph(np.random.default_rng(20261203))

    def nhwc(x):
        return g.op("Transpose", [x], "to_nhwc", perm=[0, 2, 3, 1])

    def nchw(x):
        return g.op("Transpose", [x], "to_nchw", perm=[0, 3, 1, 2])

    def conv(x, cin, cout, k, stride=1, group=1):
        w = g.weight([cout, cin // group, k, k], fan_in=cin // group * k * k)
        b = g.const((g.rng.standard_normal(cout) * 0.02).astype(np.float32), "b")
        return g.op("Conv", [x, w, b], "conv", kernel_shape=[k, k], pads=[k // 2 if stride == 1 else 0] * 4,
                    strides=[stride, stride], group=group)

    x = nchw(g.layer_norm(nhwc(conv("image", 3, widths[0], 4, stride=4)), widths[0], 1e-6))
    for stage, dim in enumerate(widths):
        if stage > 0:
            x = conv(nchw(g.layer_norm(nhwc(x), widths[stage - 1], 1e-6)), widths[stage - 1], dim, 2, stride=2)
        for _ in range(depth):
            y = g.layer_norm(nhwc(conv(x, dim, dim, 7, group=dim)), dim, 1e-6)
            y = g.linear(y, dim, 4 * dim)
            erf = g.op("Erf", [g.op("Div", [y, g.const(np.float32(np.sqrt(2.0)), "sqrt2")], "gelu_div")], "gelu_erf")
            y = g.op("Mul", [g.op("Mul", [y, g.op("Add", [erf, g.const(np.float32(1.0), "one")], "gelu_add")], "gelu_mul"),
                             g.const(np.float32(0.5), "half")], "gelu")
            y = g.linear(y, 4 * dim, dim)
            y = g.op("Mul", [y, g.const(g.rng.uniform(0.05, 0.2, dim).astype(np.float32), "layer_scale")], "scaled")
            x = g.op("Add", [x, nchw(y)], "residual")
    pooled = g.op("ReduceMean", [x], "pool", axes=[2, 3], keepdims=0)
    out = g.op("Gemm", [g.layer_norm(pooled, widths[-1], 1e-6), g.weight([classes, widths[-1]], fan_in=widths[-1]),
                        g.const(np.zeros(classes, np.float32), "head_b")], "head", transB=1)
    out = g.rename(out, "logits")
    g.save([helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, classes])], path, "convnext_classifier")


def yolov8n_detector(path, size=320, classes=80, reg_max=16):
    """YOLOv8n as Ultralytics exports it: see the module documentation."""
    g = Graph(np.random.default_rng(20261204))

    def conv(x, cin, cout, k=1, stride=1, silu=True):
        return yolo_conv(g, x, cin, cout, k, stride, silu)

    def c2f(x, cin, cout, n=1, shortcut=True):
        return yolo_c2f(g, x, cin, cout, n, shortcut)

    def sppf(x, cin, cout):
        return yolo_sppf(g, x, cin, cout)

    def up(x):
        return yolo_upsample(g, x)

    x = c2f(conv(conv("images", 3, 16, 3, 2), 16, 32, 3, 2), 32, 32)
    p3 = c2f(conv(x, 32, 64, 3, 2), 64, 64, 2)
    p4 = c2f(conv(p3, 64, 128, 3, 2), 128, 128, 2)
    p5 = sppf(c2f(conv(p4, 128, 256, 3, 2), 256, 256), 256, 256)
    h4 = c2f(g.op("Concat", [up(p5), p4], "concat", axis=1), 384, 128, shortcut=False)
    h3 = c2f(g.op("Concat", [up(h4), p3], "concat", axis=1), 192, 64, shortcut=False)
    n4 = c2f(g.op("Concat", [conv(h3, 64, 64, 3, 2), h4], "concat", axis=1), 192, 128, shortcut=False)
    n5 = c2f(g.op("Concat", [conv(n4, 128, 128, 3, 2), p5], "concat", axis=1), 384, 256, shortcut=False)
    levels, anchors, strides = [], [], []
    for feature, channels, stride in ((h3, 64, 8), (n4, 128, 16), (n5, 256, 32)):
        box = conv(conv(conv(feature, channels, 64, 3), 64, 64, 3), 64, 4 * reg_max, silu=False)
        cls = conv(conv(conv(feature, channels, 80, 3), 80, 80, 3), 80, classes, silu=False)
        levels.append(g.op("Reshape", [g.op("Concat", [box, cls], "concat", axis=1),
                                       g.const(np.array([1, 4 * reg_max + classes, -1], np.int64), "shape")], "reshape"))
        cells = size // stride
        ys, xs = np.meshgrid(np.arange(cells, dtype=np.float32) + 0.5, np.arange(cells, dtype=np.float32) + 0.5,
                             indexing="ij")
        anchors.append(np.stack([xs.reshape(-1), ys.reshape(-1)]))
        strides.append(np.full(cells * cells, stride, np.float32))
    cells = sum(a.shape[1] for a in anchors)
    y = g.op("Concat", levels, "concat", axis=2)
    box, cls = g.ops("Split", [y, g.const(np.array([4 * reg_max, classes], np.int64), "split")], 2, "split", axis=1)
    # DFL: a softmax over each side's 16 bins, their expectation as a 1x1 Conv by 0..15.
    dfl = g.op("Reshape", [box, g.const(np.array([1, 4, reg_max, cells], np.int64), "shape")], "reshape")
    dfl = g.op("Softmax", [g.op("Transpose", [dfl], "transpose", perm=[0, 2, 1, 3])], "softmax", axis=1)
    bins = g.const(np.arange(reg_max, dtype=np.float32).reshape(1, reg_max, 1, 1), "dfl_w")
    dfl = g.op("Reshape", [g.op("Conv", [dfl, bins], "dfl", kernel_shape=[1, 1]),
                           g.const(np.array([1, 4, cells], np.int64), "shape")], "reshape")
    # dist2bbox (xywh) scaled by each cell's stride, then the class scores' sigmoid.
    lt, rb = g.ops("Split", [dfl, g.const(np.array([2, 2], np.int64), "split")], 2, "split", axis=1)
    anchor = g.const(np.concatenate(anchors, axis=1).reshape(1, 2, cells), "anchors")
    top_left, bottom_right = g.op("Sub", [anchor, lt], "sub"), g.op("Add", [anchor, rb], "add")
    centre = g.op("Div", [g.op("Add", [top_left, bottom_right], "add"), g.const(np.float32(2.0), "two")], "div")
    wh = g.op("Sub", [bottom_right, top_left], "sub")
    boxes = g.op("Mul", [g.op("Concat", [centre, wh], "concat", axis=1),
                         g.const(np.concatenate(strides).reshape(1, 1, cells), "strides")], "mul")
    out = g.op("Concat", [boxes, g.op("Sigmoid", [cls], "sigmoid")], "concat", axis=1)
    out = g.rename(out, "output0")
    g.save([helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 4 + classes, cells])], path, "yolov8n_detector")


def espcn_superres(path, size=224, upscale=3):
    """ESPCN as PyTorch's super-resolution tutorial exports it: see the module documentation."""
    g = Graph(np.random.default_rng(20261205))
    x = g.op("Relu", [g.conv("input", 1, 64, 5)], "relu")
    x = g.op("Relu", [g.conv(x, 64, 64, 3)], "relu")
    x = g.op("Relu", [g.conv(x, 64, 32, 3)], "relu")
    x = g.conv(x, 32, upscale * upscale, 3)
    x = g.op("Reshape", [x, g.const(np.array([1, 1, upscale, upscale, size, size], np.int64), "shape")], "reshape")
    x = g.op("Transpose", [x], "transpose", perm=[0, 1, 4, 2, 5, 3])
    out = g.op("Reshape", [x, g.const(np.array([1, 1, size * upscale, size * upscale], np.int64), "shape")], "reshape")
    out = g.rename(out, "output")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 1, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1, size * upscale, size * upscale])], path,
           "espcn_superres")

def style_transfer(path, size=128, residuals=2):
    """A fast neural style transfer network: see the module documentation."""
    g = Graph(np.random.default_rng(20261207))

    def conv_layer(x, cin, cout, k, stride=1):
        pad = k // 2
        x = g.op("Pad", [x, g.const(np.array([0, 0, pad, pad, 0, 0, pad, pad], np.int64), "pads")], "pad",
                 mode="reflect")
        w = g.weight([cout, cin, k, k], fan_in=cin * k * k)
        b = g.const((g.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
        return g.op("Conv", [x, w, b], "conv", kernel_shape=[k, k], strides=[stride, stride])

    def normalised(x, channels, relu=True):
        scale = g.const(g.rng.uniform(0.5, 1.5, channels).astype(np.float32), "scale")
        bias = g.const((g.rng.standard_normal(channels) * 0.1).astype(np.float32), "bias")
        x = g.op("InstanceNormalization", [x, scale, bias], "instancenorm", epsilon=1e-5)
        return g.op("Relu", [x], "relu") if relu else x

    x = normalised(conv_layer("input", 3, 32, 9), 32)
    x = normalised(conv_layer(x, 32, 64, 3, 2), 64)
    x = normalised(conv_layer(x, 64, 128, 3, 2), 128)
    for _ in range(residuals):
        y = normalised(conv_layer(x, 128, 128, 3), 128)
        y = normalised(conv_layer(y, 128, 128, 3), 128, relu=False)
        x = g.op("Add", [x, y], "add")
    for cin, cout in ((128, 64), (64, 32)):
        x = g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")], "resize",
                 coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor")
        x = normalised(conv_layer(x, cin, cout, 3), cout)
    out = g.rename(conv_layer(x, 32, 3, 9), "output")
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 3, size, size])], path, "style_transfer")


def istft_vocoder(path, mels=80, frames=64, dim=128, n_fft=64, hop=16):
    """A Vocos-style vocoder: see the module documentation."""
    g = Graph(np.random.default_rng(20261206))
    bins = n_fft // 2 + 1

    def conv1d(x, cin, cout, k, group=1):
        w = g.weight([cout, cin // group, k], fan_in=cin // group * k)
        b = g.const((g.rng.standard_normal(cout) * 0.02).astype(np.float32), "b")
        return g.op("Conv", [x, w, b], "conv", kernel_shape=[k], pads=[k // 2, k // 2], group=group)

    def gelu(x):  # as torch.onnx.export writes nn.GELU below opset 20
        erf = g.op("Erf", [g.op("Div", [x, g.const(np.float32(np.sqrt(2.0)), "sqrt2")], "scaled")], "erf")
        half = g.op("Mul", [x, g.const(np.float32(0.5), "half")], "half")
        return g.op("Mul", [half, g.op("Add", [erf, g.const(np.float32(1.0), "one")], "erf_plus_one")], "gelu")

    x = conv1d("mel", mels, dim, 7)
    for _ in range(2):
        y = conv1d(x, dim, dim, 7, group=dim)
        y = g.op("Transpose", [y], "to_frames", perm=[0, 2, 1])
        y = g.linear(gelu(g.linear(g.layer_norm(y, dim), dim, 3 * dim)), 3 * dim, dim)
        x = g.op("Add", [x, g.op("Transpose", [y], "to_channels", perm=[0, 2, 1])], "residual")
    x = g.layer_norm(g.op("Transpose", [x], "to_frames", perm=[0, 2, 1]), dim)
    spectrum = g.linear(x, dim, 2 * bins)
    magnitude, phase = g.ops("Split", [spectrum, g.const(np.array([bins, bins], np.int64), "split")], 2, axis=-1)
    magnitude = g.op("Exp", [g.op("Clip", [magnitude, "", g.const(np.float32(10.0), "max")], "clip")], "exp")
    real = g.op("Mul", [magnitude, g.op("Cos", [phase], "cos")], "real")
    imag = g.op("Mul", [magnitude, g.op("Sin", [phase], "sin")], "imag")
    # The inverse real DFT: each bin but DC and Nyquist counts twice.
    k = np.arange(bins)[:, None]
    n = np.arange(n_fft)[None, :]
    weight = np.where((k == 0) | (k == n_fft // 2), 1.0, 2.0) / n_fft
    cos_basis = (weight * np.cos(2 * np.pi * k * n / n_fft)).astype(np.float32)
    sin_basis = (-weight * np.sin(2 * np.pi * k * n / n_fft)).astype(np.float32)
    signal = g.op("Add", [g.op("MatMul", [real, g.const(cos_basis, "idft_cos")], "idft_real"),
                          g.op("MatMul", [imag, g.const(sin_basis, "idft_sin")], "idft_imag")], "idft")
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)
    framed = g.op("Mul", [signal, g.const(window, "window")], "windowed")
    columns = g.op("Transpose", [framed], "to_columns", perm=[0, 2, 1])
    length = (frames - 1) * hop + n_fft
    audio = g.op("Col2Im", [columns, g.const(np.array([1, length], np.int64), "image_shape"),
                            g.const(np.array([1, n_fft], np.int64), "block_shape")], "overlap_add", strides=[1, hop])
    envelope = np.zeros(length, np.float32)
    for f in range(frames):
        envelope[f * hop:f * hop + n_fft] += window * window
    pad = (n_fft - hop) // 2
    audio = g.op("Reshape", [audio, g.const(np.array([1, length], np.int64), "shape")], "flatten")
    audio = g.op("Slice", [audio, g.const(np.array([pad], np.int64), "starts"),
                           g.const(np.array([length - pad], np.int64), "ends"), g.const(np.array([1], np.int64), "axes")],
                 "trim")
    audio = g.op("Div", [audio, g.const(np.maximum(envelope[pad:length - pad], 1e-3), "envelope")], "normalise")
    out = g.rename(audio, "audio")
    g.save([helper.make_tensor_value_info("mel", TensorProto.FLOAT, [1, mels, frames])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, length - 2 * pad])], path, "istft_vocoder",
           opset=18)


def branch_node(atts, rng, features):
    """Appends a `BRANCH_LEQ` node to a forest's `nodes_*` lists: a random feature and split,
    children to fill in, missing values sent to the true branch half the time."""
    atts["nodes_featureids"].append(int(rng.integers(features)))
    atts["nodes_modes"].append("BRANCH_LEQ")
    atts["nodes_values"].append(float(np.float32(rng.standard_normal() * 0.8)))
    atts["nodes_truenodeids"].append(0)
    atts["nodes_falsenodeids"].append(0)
    atts["nodes_missing_value_tracks_true"].append(int(rng.uniform() < 0.5))


def gbm_trees(rng, trees, depth, features, votes, prefix):
    """Boosted trees as skl2onnx / onnxmltools write them: per tree, nodes numbered depth first,
    `BRANCH_LEQ` splits, half the nodes sending missing values to the true branch, and leaves
    (depth up to `depth`) casting the votes `votes(tree)` gives ([(target or class, weight)])
    under the attributes `<prefix>_treeids` ..."""
    atts = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes", "nodes_values",
                            "nodes_truenodeids", "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                            f"{prefix}_treeids", f"{prefix}_nodeids", f"{prefix}_ids", f"{prefix}_weights")}
    for tree in range(trees):
        count = 0

        def grow(level):
            nonlocal count
            node, count = count, count + 1
            atts["nodes_treeids"].append(tree)
            atts["nodes_nodeids"].append(node)
            at = len(atts["nodes_modes"])
            if level == depth or (level >= 2 and rng.uniform() < 0.2):
                for key in ("nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids",
                            "nodes_missing_value_tracks_true"):
                    atts[key].append(0)
                atts["nodes_modes"].append("LEAF")
                atts["nodes_values"].append(0.0)
                for target, weight in votes(tree):
                    atts[f"{prefix}_treeids"].append(tree)
                    atts[f"{prefix}_nodeids"].append(node)
                    atts[f"{prefix}_ids"].append(target)
                    atts[f"{prefix}_weights"].append(float(np.float32(weight)))
                return node
            branch_node(atts, rng, features)
            atts["nodes_truenodeids"][at] = grow(level + 1)
            atts["nodes_falsenodeids"][at] = grow(level + 1)
            return node

        grow(0)
    return atts


def tabular_gbm(path, rows=64, features=20, trees=120, depth=6, classes=3):
    """Boosted trees on tabular data: see the module documentation."""
    g = Graph(np.random.default_rng(20261203))
    rng = g.rng
    mean = rng.standard_normal(features).astype(np.float32)
    std = rng.uniform(0.5, 2.0, features).astype(np.float32)
    scaled = g.name("scaler")
    g.nodes.append(helper.make_node("Scaler", ["features"], [scaled], name=scaled, domain="ai.onnx.ml",
                                    offset=mean.tolist(), scale=(1.0 / std).tolist()))
    regression = gbm_trees(rng, trees, depth, features, lambda tree: [(0, rng.standard_normal() * 0.1)], "target")
    out = g.name("gbm")
    g.nodes.append(helper.make_node("TreeEnsembleRegressor", [scaled], [out], name=out, domain="ai.onnx.ml",
                                    n_targets=1, aggregate_function="SUM", post_transform="NONE",
                                    base_values=[0.25], **regression))
    # XGBoost's binary classifier: every tree votes for class 0, a logistic of the sum.
    binary = gbm_trees(rng, 40, depth, features, lambda tree: [(0, rng.standard_normal() * 0.3)], "class")
    is_label, is_scores = g.name("binary"), g.name("binary_scores")
    g.nodes.append(helper.make_node("TreeEnsembleClassifier", [scaled], [is_label, is_scores], name=is_label,
                                    domain="ai.onnx.ml", classlabels_int64s=[0, 1], post_transform="LOGISTIC",
                                    base_values=[-0.1], **binary))
    # A multiclass boosted classifier: tree t votes for class t mod 3, a softmax of the sums.
    multi = gbm_trees(rng, 30 * classes, depth - 1, features,
                      lambda tree: [(tree % classes, rng.standard_normal() * 0.3)], "class")
    label, scores = g.name("multiclass"), g.name("multiclass_scores")
    g.nodes.append(helper.make_node("TreeEnsembleClassifier", [scaled], [label, scores], name=label,
                                    domain="ai.onnx.ml", classlabels_int64s=[3, 5, 7], post_transform="SOFTMAX",
                                    base_values=[0.1, 0.0, -0.1], **multi))
    names = [g.rename(out, "prediction"), g.rename(is_label, "is_positive"), g.rename(is_scores, "binary_probabilities"),
             g.rename(label, "label"), g.rename(scores, "probabilities")]
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [rows, features])],
           [helper.make_tensor_value_info(names[0], TensorProto.FLOAT, [rows, 1]),
            helper.make_tensor_value_info(names[1], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[2], TensorProto.FLOAT, [rows, 2]),
            helper.make_tensor_value_info(names[3], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[4], TensorProto.FLOAT, [rows, classes])], path, "tabular_gbm",
           opset=15, ml_opset=3)


def tabular_anomaly(path, rows=64, features=20, trees=24, depth=8, samples=256):
    """An isolation forest as skl2onnx writes scikit-learn's: see the module documentation."""
    g = Graph(np.random.default_rng(20261204))
    rng = g.rng
    gamma = 0.5772156649015329

    def average_path(n):
        n = np.asarray(n, np.float64)
        safe = np.maximum(n - 1, 1)
        c = 2 * (np.log(safe) + gamma) - 2 * (n - 1) / np.maximum(n, 1)
        return np.where(n > 2, c, np.where(n == 2, 1.0, 0.0))

    paths = []
    for tree in range(trees):
        # One tree: splits on random features, leaves at random depths, each leaf's sample
        # count drawn as fitting leaves them (halving the sample on the way down).
        atts = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes", "nodes_values",
                                "nodes_truenodeids", "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                                "target_treeids", "target_nodeids", "target_ids", "target_weights")}
        leaves = []

        def grow(level, count):
            node = len(atts["nodes_nodeids"])
            atts["nodes_treeids"].append(0)
            atts["nodes_nodeids"].append(node)
            if level == depth or count <= 1 or (level >= 2 and rng.uniform() < 0.25):
                for key in ("nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids",
                            "nodes_missing_value_tracks_true"):
                    atts[key].append(0)
                atts["nodes_modes"].append("LEAF")
                atts["nodes_values"].append(0.0)
                # skl2onnx: the leaf's own index as the regressor's value, mapped by LabelEncoders.
                atts["target_treeids"].append(0)
                atts["target_nodeids"].append(node)
                atts["target_ids"].append(0)
                atts["target_weights"].append(float(node))
                leaves.append((node, level, max(count, 1)))
                return node
            branch_node(atts, rng, features)
            left = int(rng.integers(1, max(count, 2)))
            atts["nodes_truenodeids"][node] = grow(level + 1, left)
            atts["nodes_falsenodeids"][node] = grow(level + 1, count - left)
            return node

        grow(0, samples)
        leaf = g.op("TreeEnsembleRegressor", ["features"], f"leaf{tree}", domain="ai.onnx.ml", n_targets=1,
                    aggregate_function="SUM", post_transform="NONE", **atts)
        index = g.op("Cast", [leaf], f"leaf_index{tree}", to=TensorProto.INT64)
        keys = [node for node, _, _ in leaves]
        depth_of = g.op("LabelEncoder", [index], f"leaf_depth{tree}", domain="ai.onnx.ml", keys_int64s=keys,
                        values_floats=[float(level) for _, level, _ in leaves])
        count_of = g.op("LabelEncoder", [index], f"leaf_samples{tree}", domain="ai.onnx.ml", keys_int64s=keys,
                        values_floats=[float(n) for _, _, n in leaves])
        # The average path length of an unbuilt subtree of n samples, in the graph as skl2onnx has it.
        one, two = g.const(np.float32(1.0), "one"), g.const(np.float32(2.0), "two")
        less = g.op("Sub", [count_of, one], "n_minus_1")
        log = g.op("Log", [g.op("Max", [less, one], "safe")], "log")
        harmonic = g.op("Mul", [g.op("Add", [log, g.const(np.float32(gamma), "gamma")], "h"), two], "twice")
        tail = g.op("Div", [g.op("Mul", [less, two], "twice_less"), g.op("Max", [count_of, one], "n")], "tail")
        c = g.op("Sub", [harmonic, tail], "c")
        c = g.op("Where", [g.op("Greater", [count_of, two], "big"), c,
                           g.op("Cast", [g.op("Equal", [count_of, two], "pair")], "pair_f", to=TensorProto.FLOAT)],
                 "average_path")
        paths.append(g.op("Add", [depth_of, c], f"path{tree}"))
    total = g.op("Sum", paths, "total")
    mean = g.op("Div", [total, g.const(np.float32(trees), "trees")], "mean")
    exponent = g.op("Div", [g.op("Neg", [mean], "minus"), g.const(np.float32(average_path(samples)), "c_psi")], "exponent")
    score = g.op("Neg", [g.op("Pow", [g.const(np.float32(2.0), "base"), exponent], "pow")], "score")
    # The offset as fitting with a contamination of one half sets it: the batch's median score
    # (these synthetic trees are shallower than fitted ones), from ONNX's reference evaluator.
    probe = helper.make_model(helper.make_graph(
        g.nodes, "probe", [helper.make_tensor_value_info("features", TensorProto.FLOAT, [rows, features])],
        [helper.make_tensor_value_info(score, TensorProto.FLOAT, [rows, 1])], g.inits),
        opset_imports=[helper.make_opsetid("", 15), helper.make_opsetid("ai.onnx.ml", 3)])
    from onnx.reference import ReferenceEvaluator
    scores = ReferenceEvaluator(probe).run(None, {"features": tabular_rows(rows, features)})[0]
    offset = -np.float32(np.median(scores))
    decision = g.op("Add", [score, g.const(np.float32(offset), "offset")], "decision")
    label = g.op("Where", [g.op("Less", [decision, g.const(np.float32(0.0), "zero")], "outlier"),
                           g.const(np.array(-1, np.int64), "minus_one"), g.const(np.array(1, np.int64), "plus_one")],
                 "label")
    names = [g.rename(decision, "decision"), g.rename(label, "label")]
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [rows, features])],
           [helper.make_tensor_value_info(names[0], TensorProto.FLOAT, [rows, 1]),
            helper.make_tensor_value_info(names[1], TensorProto.INT64, [rows, 1])], path, "tabular_anomaly",
           opset=15, ml_opset=3)


def ml_helpers(g):
    """For the classical models: `ml(op_type, inputs, outputs, **attrs)` appends an ai.onnx.ml
    node to `g` (named after its first output) and returns its output names; `floats(*shape,
    scale=1.0)` draws a flat list of normal float32 values from `g`'s generator."""
    def ml(op_type, inputs, outputs, **attrs):
        names = [g.name(o) for o in outputs]
        g.nodes.append(helper.make_node(op_type, inputs, names, name=names[0], domain="ai.onnx.ml", **attrs))
        return names

    def floats(*shape, scale=1.0):
        return [float(v) for v in (g.rng.standard_normal(shape) * scale).astype(np.float32).reshape(-1)]

    return ml, floats


def tabular_linear(path, rows=64, features=20, classes=4, targets=2):
    """Linear models on tabular data: see the module documentation."""
    g = Graph(np.random.default_rng(20261207))
    rng = g.rng

    ml, floats = ml_helpers(g)

    scaled, = ml("Scaler", ["features"], ["scaler"], offset=floats(features), scale=rng.uniform(0.5, 2.0, features).tolist())
    label, scores = ml("LinearClassifier", [scaled], ["logistic", "logistic_scores"], coefficients=floats(classes, features),
                       intercepts=floats(classes), classlabels_ints=list(range(1, classes + 1)), multi_class=1,
                       post_transform="SOFTMAX")
    positive, binary = ml("LinearClassifier", [scaled], ["binary", "binary_scores"], coefficients=floats(1, features),
                          intercepts=floats(1), classlabels_ints=[0, 1], post_transform="LOGISTIC")
    unit, = ml("Normalizer", [scaled], ["normalizer"], norm="L2")
    value, = ml("LinearRegressor", [unit], ["ridge"], coefficients=floats(targets, features, scale=3.0),
                intercepts=floats(targets), targets=targets)
    names = [g.rename(label, "label"), g.rename(scores, "probabilities"), g.rename(positive, "is_positive"),
             g.rename(binary, "binary_probabilities"), g.rename(value, "prediction")]
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [rows, features])],
           [helper.make_tensor_value_info(names[0], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[1], TensorProto.FLOAT, [rows, classes]),
            helper.make_tensor_value_info(names[2], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[3], TensorProto.FLOAT, [rows, 2]),
            helper.make_tensor_value_info(names[4], TensorProto.FLOAT, [rows, targets])], path, "tabular_linear",
           opset=15, ml_opset=1)


def tabular_svm(path, rows=64, features=20):
    """Support vector machines on tabular data: see the module documentation."""
    g = Graph(np.random.default_rng(20261203))
    rng = g.rng

    ml, floats = ml_helpers(g)

    offset = rng.standard_normal(features).astype(np.float32) * np.float32(0.5)
    spread = rng.uniform(0.5, 2.0, features).astype(np.float32)

    def support(count):
        # Training rows as the scaler leaves them (inputs span [-2, 2]), as a fitted SVM keeps.
        picked = (rng.uniform(-2.0, 2.0, (count, features)).astype(np.float32) - offset) * spread
        return [float(v) for v in picked.reshape(-1)]

    scaled, = ml("Scaler", ["features"], ["scaler"], offset=offset.tolist(), scale=spread.tolist())
    # scikit-learn's gamma="scale": 1 / (features * variance of the scaled inputs).
    gamma = float(1.0 / (features * np.mean((spread ** 2) * np.float32(4.0 / 3.0))))
    per_class = [30, 22, 26, 18]
    vectors = sum(per_class)
    label, decisions = ml("SVMClassifier", [scaled], ["svc", "svc_decisions"], classlabels_ints=[10, 11, 12, 13],
                          vectors_per_class=per_class, support_vectors=support(vectors),
                          coefficients=floats(len(per_class) - 1, vectors), kernel_type="RBF",
                          kernel_params=[gamma, 0.0, 3.0], rho=floats(6, scale=0.1))
    # The binary one's intercept splits the zoo's batch about in half (as fitting one would).
    poly_sv, poly_coef = support(40), floats(1, 40, scale=0.05)
    batch = (pattern(rows * features).reshape(rows, features) * np.float32(2.0) - offset) * spread
    kernel = (gamma * batch @ np.array(poly_sv, np.float32).reshape(40, features).T + 1.0) ** 3
    poly_rho = -float(np.median(kernel @ np.array(poly_coef, np.float32)))
    positive, binary = ml("SVMClassifier", [scaled], ["poly_svc", "poly_scores"], classlabels_ints=[0, 1],
                          vectors_per_class=[24, 16], support_vectors=poly_sv, coefficients=poly_coef,
                          kernel_type="POLY", kernel_params=[gamma, 1.0, 3.0], rho=[poly_rho])
    value, = ml("SVMRegressor", [scaled], ["svr"], n_supports=60, support_vectors=support(60),
                coefficients=floats(60, scale=0.3), kernel_type="RBF", kernel_params=[gamma, 0.0, 3.0], rho=[0.25])
    inlier, = ml("SVMRegressor", [scaled], ["one_class"], n_supports=30, support_vectors=support(30),
                 coefficients=[float(v) for v in rng.uniform(0.0, 0.1, 30).astype(np.float32)], kernel_type="SIGMOID",
                 kernel_params=[gamma, 0.0, 3.0], rho=[-0.05], one_class=1)
    names = [g.rename(label, "label"), g.rename(decisions, "decisions"), g.rename(positive, "is_positive"),
             g.rename(binary, "binary_scores"), g.rename(value, "prediction"), g.rename(inlier, "inlier")]
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [rows, features])],
           [helper.make_tensor_value_info(names[0], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[1], TensorProto.FLOAT, [rows, 6]),
            helper.make_tensor_value_info(names[2], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[3], TensorProto.FLOAT, [rows, 2]),
            helper.make_tensor_value_info(names[4], TensorProto.FLOAT, [rows, 1]),
            helper.make_tensor_value_info(names[5], TensorProto.FLOAT, [rows, 1])], path, "tabular_svm",
           opset=15, ml_opset=1)


def tabular_knn(path, rows=64, features=12, train=400, k=5, classes=3):
    """A k-nearest-neighbours classifier on tabular data: see the module documentation."""
    g = Graph(np.random.default_rng(20261205))
    rng = g.rng
    # Training rows around one centre per class, so the votes are mostly unanimous.
    centres = rng.standard_normal((classes, features)).astype(np.float32) * np.float32(1.5)
    labels = rng.integers(0, classes, train)
    points = (centres[labels] + rng.standard_normal((train, features)).astype(np.float32)).astype(np.float32)
    body_nodes = [helper.make_node("Identity", ["next_in"], ["next_out"], name="cdistd_17_Identity"),
                  helper.make_node("Sub", ["next_in", "next"], ["diff"], name="cdistdf_17_C0_Sub"),
                  helper.make_node("ReduceSumSquare", ["diff"], ["scan_out"], name="cdistdf_17_C0_ReduceSumSquare",
                                   axes=[1], keepdims=0),
                  helper.make_node("Identity", ["scan_out"], ["scan_out_id"], name="cdistdf_17_C0_Identity")]
    body = helper.make_graph(
        body_nodes, "OnnxIdentity",
        [helper.make_tensor_value_info("next_in", TensorProto.FLOAT, [None, features]),
         helper.make_tensor_value_info("next", TensorProto.FLOAT, [features])],
        [helper.make_tensor_value_info("next_out", TensorProto.FLOAT, [None, features]),
         helper.make_tensor_value_info("scan_out_id", TensorProto.FLOAT, [None])])
    training = g.const(points, "training")
    state, distances = g.ops("Scan", ["features", training], 2, "scan", body=body, num_scan_inputs=1)
    distances = g.op("Transpose", [distances], "transpose", perm=[1, 0])
    distances = g.op("Sqrt", [distances], "sqrt")
    nearest, = [g.ops("TopK", [distances, g.const(np.array([k], np.int64), "k")], 2, "topk", largest=0, sorted=1)[1]]
    flat = g.op("Flatten", [nearest], "flatten", axis=0)
    neighbour = g.name("neighbour_labels")
    g.nodes.append(helper.make_node("ArrayFeatureExtractor", [g.const(labels.astype(np.int64), "train_labels"), flat],
                                    [neighbour], name=neighbour, domain="ai.onnx.ml"))
    neighbour = g.op("Reshape", [neighbour, g.const(np.array([-1, k], np.int64), "shape")], "reshape")
    votes = []
    for c in range(classes):
        hit = g.op("Equal", [neighbour, g.const(np.array(c, np.int64), "class")], "equal")
        hit = g.op("Cast", [hit], "cast", to=TensorProto.FLOAT)
        votes.append(g.op("ReduceSum", [hit, g.const(np.array([1], np.int64), "axis")], "votes", keepdims=1))
    votes = g.op("Concat", votes, "concat", axis=1)
    best = g.op("ArgMax", [votes], "argmax", axis=1, keepdims=0)
    label = g.name("label")
    g.nodes.append(helper.make_node("ArrayFeatureExtractor", [g.const(np.arange(classes, dtype=np.int64), "classes"), best],
                                    [label], name=label, domain="ai.onnx.ml"))
    probabilities = g.op("Div", [votes, g.const(np.array(k, np.float32), "k_float")], "div")
    label = g.op("Reshape", [label, g.const(np.array([-1], np.int64), "flat")], "label_flat")
    names = [g.rename(label, "label"), g.rename(probabilities, "probabilities")]
    g.save([helper.make_tensor_value_info("features", TensorProto.FLOAT, [rows, features])],
           [helper.make_tensor_value_info(names[0], TensorProto.INT64, [rows]),
            helper.make_tensor_value_info(names[1], TensorProto.FLOAT, [rows, classes])], path, "tabular_knn",
           opset=15, ml_opset=1)
    del state


def streaming_vad(path, hidden=128):
    """A streaming voice-activity detector: see the module documentation."""
    g = Graph(np.random.default_rng(20251))
    big = np.iinfo(np.int64).max

    def rate_branch(pad, n_fft, hop):
        """One sample rate's model, sized for its chunks (256 + 32 samples at 8 kHz, 512 + 64
        at 16 kHz): given the other rate's chunks its frames do not reduce to one and the
        Squeeze before the LSTM is invalid, as in silero-vad's branches."""
        b = g.branch()
        # F.pad(x, (0, pad), mode="reflect") as torch.onnx.export writes it: the pads computed
        # by reversing the (begin, end) pairs of the padded dimensions and appending zeros.
        zeros = b.op("ConstantOfShape", [b.constant(np.array([2], np.int64))], "pad_zeros",
                     value=numpy_helper.from_array(np.array([0], np.int64)))
        pads = b.op("Concat", [b.constant(np.array([0, pad], np.int64)), zeros], "pads", axis=0)
        pads = b.op("Reshape", [pads, b.constant(np.array([-1, 2], np.int64))], "pad_pairs")
        pads = b.op("Slice", [pads, b.constant(np.array([-1], np.int64)), b.constant(np.array([-big], np.int64)),
                              b.constant(np.array([0], np.int64)), b.constant(np.array([-1], np.int64))], "reversed")
        pads = b.op("Transpose", [pads], "pad_columns", perm=[1, 0])
        pads = b.op("Reshape", [pads, b.constant(np.array([-1], np.int64))], "pad_flat")
        pads = b.op("Cast", [pads], "pad_ints", to=TensorProto.INT64)
        x = b.op("Pad", ["input", pads], "padded", mode="reflect")
        x = b.op("Unsqueeze", [x, b.constant(np.array([1], np.int64))], "signal")
        # The STFT as a strided Conv1d by a Hann-windowed DFT basis (real rows, then imaginary).
        bins = n_fft // 2 + 1
        t = np.arange(n_fft)
        angles = 2 * np.pi * np.outer(np.arange(bins), t) / n_fft
        window = 0.5 - 0.5 * np.cos(2 * np.pi * t / n_fft)
        basis = np.concatenate([np.cos(angles), -np.sin(angles)]) * window
        x = b.op("Conv", [x, b.const(basis.astype(np.float32).reshape(2 * bins, 1, n_fft), "basis")], "stft",
                 kernel_shape=[n_fft], strides=[hop], pads=[0, 0])
        real = b.op("Slice", [x, b.constant(np.array([0], np.int64)), b.constant(np.array([bins], np.int64)),
                              b.constant(np.array([1], np.int64))], "real")
        imag = b.op("Slice", [x, b.constant(np.array([bins], np.int64)), b.constant(np.array([big], np.int64)),
                              b.constant(np.array([1], np.int64))], "imag")
        two = b.constant(np.float32(2.0))
        x = b.op("Sqrt", [b.op("Add", [b.op("Pow", [real, two], "re2"), b.op("Pow", [imag, two], "im2")], "power")],
                 "magnitude")
        for cin, cout, stride in ((bins, 128, 1), (128, 64, 2), (64, 64, 2), (64, hidden, 1)):
            w = b.weight([cout, cin, 3], fan_in=cin * 3)
            bias = b.const((b.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
            x = b.op("Relu", [b.op("Conv", [x, w, bias], "conv", kernel_shape=[3], strides=[stride], pads=[1, 1])], "relu")
        # x.squeeze(-1) as a scripted export writes it: only where the frames reduced to one.
        one_frame = b.op("Equal", [b.op("Gather", [b.op("Shape", [x], "shape"), b.constant(np.array(2, np.int64))],
                                        "frames", axis=0), b.constant(np.array(1, np.int64))], "one_frame")
        squeezed, kept = b.branch(), b.branch()
        frame = squeezed.op("Squeeze", [x, squeezed.constant(np.array([2], np.int64))], "squeeze")
        squeezed = helper.make_graph(squeezed.nodes, "squeezed", [], [helper.make_empty_tensor_value_info(frame)])
        same = kept.op("Identity", [x], "identity")
        kept = helper.make_graph(kept.nodes, "kept", [], [helper.make_empty_tensor_value_info(same)])
        x = b.op("If", [one_frame], "frame", then_branch=squeezed, else_branch=kept)  # [1, hidden]
        x = b.op("Unsqueeze", [x, b.constant(np.array([0], np.int64))], "step")  # [1, 1, hidden]
        h0, c0 = (b.op("Unsqueeze", [b.op("Gather", ["state", b.constant(np.array(k, np.int64))], "gather", axis=0),
                                     b.constant(np.array([0], np.int64))], "state") for k in (0, 1))
        bound = 1.0 / np.sqrt(hidden)
        lstm = [b.const(b.rng.uniform(-bound, bound, shape).astype(np.float32), name)
                for shape, name in (([1, 4 * hidden, hidden], "lstm_w"), ([1, 4 * hidden, hidden], "lstm_r"),
                                    ([1, 8 * hidden], "lstm_b"))]
        _, h, c = b.ops("LSTM", [x] + lstm + ["", h0, c0], 3, "lstm", hidden_size=hidden)
        state = b.op("Concat", [h, c], "new_state", axis=0)  # [2, 1, hidden]
        y = b.op("Relu", [b.op("Unsqueeze", [b.op("Squeeze", [h, b.constant(np.array([0], np.int64))], "h"),
                                             b.constant(np.array([2], np.int64))], "h_frames")], "relu")
        y = b.op("Conv", [y, b.weight([1, hidden, 1], fan_in=hidden), b.const(np.zeros(1, np.float32), "b")], "decoder",
                 kernel_shape=[1])
        y = b.op("ReduceMean", [b.op("Sigmoid", [y], "sigmoid")], "speech", axes=[2], keepdims=0)  # [1, 1]
        return b.body(f"rate_{n_fft}", [(y, [1, 1]), (state, [2, 1, hidden])])

    at16k, at8k = rate_branch(64, 256, 128), rate_branch(32, 128, 64)
    cond = g.op("Equal", ["sr", g.constant(np.int64(16000))], "is_16k")
    out, state = g.ops("If", [cond], 2, "rate", then_branch=at16k, else_branch=at8k)
    # Symbolic batch and chunk length, as silero-vad declares them: with them fixed, ONNX
    # Runtime's shape inference would reject the 8 kHz branch when the session is made.
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "samples"]),
            helper.make_tensor_value_info("state", TensorProto.FLOAT, [2, "batch", hidden]),
            helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
           [helper.make_tensor_value_info(g.rename(out, "output"), TensorProto.FLOAT, [1, 1]),
            helper.make_tensor_value_info(g.rename(state, "stateN"), TensorProto.FLOAT, [2, 1, hidden])],
           path, "streaming_vad", opset=16)


def resnet50(path):
    g = Graph(np.random.default_rng(50))

    def relu(x):
        return g.op("Relu", [x], "relu")

    x = relu(g.conv("input", 3, 64, 7, stride=2))
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for block in range(blocks):
            s = stride if block == 0 else 1
            y = relu(g.conv(x, cin, width, 1))
            y = relu(g.conv(y, width, width, 3, stride=s))
            y = g.conv(y, width, 4 * width, 1)
            shortcut = g.conv(x, cin, 4 * width, 1, stride=s) if block == 0 else x
            x = relu(g.op("Add", [y, shortcut], "residual"))
            cin = 4 * width
    out = head(g, x, cin)
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], path, "resnet50")


def pattern(count):
    """A deterministic input pattern, exact in float32 (so any tool can regenerate it)."""
    return ((np.arange(count, dtype=np.int64) * 7919) % 255).astype(np.float32) / np.float32(127.5) - np.float32(1.0)


def tabular_rows(rows=64, features=20):
    """The tree model's batch: the pattern around the scaler's means, every 7th value missing."""
    x = pattern(rows * features).reshape(rows, features) * np.float32(2.0)
    x.reshape(-1)[::7] = np.float32(np.nan)
    return x


def write_inputs(out):
    """Fixed inputs for each model: <out>/<model>.inputs/<input>.npy (checked against the
    ONNX Runtime references in xtask/zoo-reference, made by zoo_reference.py), and the inputs a
    user freezes at compile time as serialized TensorProtos: <out>/<model>.frozen/<input>.pb."""
    image = pattern(3 * 224 * 224).reshape(1, 3, 224, 224)
    ids = ((np.arange(128, dtype=np.int64) * 7919) % 30522).reshape(1, 128)
    mask = (np.arange(128, dtype=np.int64) < 100).astype(np.int64).reshape(1, 128)
    small = pattern(3 * 32 * 32).reshape(1, 3, 32, 32)
    for model, inputs in (("mobilenetv2", {"input": image}), ("resnet18", {"input": image}), ("resnet50", {"input": image}),
                          ("bert_tiny", {"input_ids": ids, "attention_mask": mask}),
                          ("crnn_ocr", {"image": pattern(32 * 128).reshape(1, 1, 32, 128)}),
                          ("crnn_cjk", {"image": pattern(32 * 80).reshape(1, 1, 32, 80)}),
                          ("yolo_detector", {"images": pattern(3 * 64 * 64).reshape(1, 3, 64, 64)}),
                          ("densenet_block", {"input": small}), ("opset11_cnn", {"image": small}),
                          ("nested_if", {"audio": pattern(512).reshape(1, 512)}), ("int8_qdq_cnn", {"input": small}),
                          ("speech_kws", {"audio": pattern(16000).reshape(1, 16000) * np.float32(0.25)}),
                          ("text_detector", {"image": pattern(3 * 128 * 128).reshape(1, 3, 128, 128)}),
                          ("fp16_text_detector", {"image": pattern(3 * 128 * 128).reshape(1, 3, 128, 128).astype(np.float16)}),
                          ("bf16_mobilenetv2", {"input": image}),
                          ("inception_cell", {"input": small}),
                          ("resnext_block", {"input": pattern(3 * 56 * 56).reshape(1, 3, 56, 56)}),
                          ("audio_tcn", {"audio": pattern(4000).reshape(1, 1, 4000) * np.float32(0.5)}),
                          ("conformer_block", {"features": pattern(100 * 144).reshape(1, 100, 144)}),
                          ("qdq_speech_encoder", {"features": pattern(100 * 192).reshape(1, 100, 192)}),
                          ("qdq_mobilenet", {"input": (pattern(3 * 56 * 56).reshape(1, 3, 56, 56) + 1) / 2}),
                          ("qdq_mobilenet_u8", {"input": (pattern(3 * 56 * 56).reshape(1, 3, 56, 56) + 1) / 2}),
                          ("dynamic_int8_bert", {"input_ids": ids, "attention_mask": mask}),
                          ("gpt2_block", {"hidden_in": pattern(64 * 256).reshape(1, 64, 256)}),
                          ("whisper_encoder", {"features": pattern(600 * 192).reshape(1, 600, 192)}),
                          ("mobilenetv3_small", {"input": image}),
                          ("gated_deltanet_block", {"hidden_in": pattern(64 * 256).reshape(1, 64, 256)}),
                          ("vit_tiny", {"pixels": image}),
                          ("llama_block", {"hidden_in": pattern(64 * 256).reshape(1, 64, 256),
                                           "position_ids": np.arange(64, dtype=np.int64).reshape(1, 64)}),
                          ("unet_segmenter", {"image": pattern(3 * 96 * 96).reshape(1, 3, 96, 96)}),
                          ("deeplab_segmenter", {"image": pattern(3 * 129 * 129).reshape(1, 3, 129, 129)}),
                          ("convnext_classifier", {"image": pattern(3 * 128 * 128).reshape(1, 3, 128, 128)}),
                          ("yolov8n_detector", {"images": (pattern(3 * 320 * 320).reshape(1, 3, 320, 320) + 1) / 2}),
                          ("espcn_superres", {"input": (pattern(224 * 224).reshape(1, 1, 224, 224) + 1) / 2}),
                          ("style_transfer", {"input": pattern(3 * 128 * 128).reshape(1, 3, 128, 128) * np.float32(2.0)}),
                          ("istft_vocoder", {"mel": pattern(80 * 64).reshape(1, 80, 64) * np.float32(2.0)}),
                          ("tabular_gbm", {"features": tabular_rows()}),
                          ("tabular_linear", {"features": pattern(64 * 20).reshape(64, 20) * np.float32(2.0)}),
                          ("tabular_svm", {"features": pattern(64 * 20).reshape(64, 20) * np.float32(2.0)}),
                          ("tabular_anomaly", {"features": tabular_rows()}),
                          ("tabular_knn", {"features": pattern(64 * 12).reshape(64, 12) * np.float32(2.0)}),
                          ("streaming_vad", {"input": pattern(576).reshape(1, 576) * np.float32(0.1),
                                             "state": pattern(256).reshape(2, 1, 128) * np.float32(0.5),
                                             "sr": np.array(16000, np.int64)})):
        directory = os.path.join(out, f"{model}.inputs")
        os.makedirs(directory, exist_ok=True)
        for name, value in inputs.items():
            np.save(os.path.join(directory, f"{name}.npy"), value)
    # The shapes of inputs a model declares with symbolic dimensions, as a user passes them to
    # `strata compile --input-shape` (one `name=1x576` a line).
    for model, shapes in (("streaming_vad", {"input": [1, 576], "state": [2, 1, 128]}),):
        with open(os.path.join(out, f"{model}.shapes"), "w") as f:
            f.writelines(f"{name}={'x'.join(map(str, dims))}\n" for name, dims in shapes.items())
    # How far a model's outputs may be from ONNX Runtime's where that is not 1e-4 (`--rtol` and
    # `--atol`; `<model>.tolerance`, read by xtask and the Python tests). A QDQ model requantizes
    # its activations at every product: one within rounding of a step's boundary lands on
    # either side depending on the last bit of a layer norm's or a softmax's float
    # computation, and each flip moves the outputs by a whole step times a weight. ONNX
    # Runtime's own optimised and unoptimised sessions of qdq_speech_encoder differ by up to
    # 0.029 (mean 0.0019), of qdq_mobilenet 0.013; a wrong offset, scale or packing moves the
    # outputs by whole units.
    # The integer kernels are checked bit for bit against NumPy by the lit tests.
    # A half-precision model's outputs are f16, rounded once from Strata's f32 computation where
    # ONNX Runtime rounds after every node: fp16_text_detector's maps differ by up to 3 units in
    # the last place near 1 (1.5e-3); ONNX Runtime's own f16 and f32 runs by 1.6e-3.
    # A bf16 model rounds after every op in both, but ONNX Runtime's twin and Strata sum a
    # convolution's products in different orders: a sum within rounding of a bf16 boundary
    # lands on either side, one unit (2^-7 of the value) that the next layers carry on.
    # bf16_mobilenetv2's logits (magnitude up to 10, a unit 0.03-0.06 there) differ by a median
    # of one unit and at most 0.07; an op computed in f32 without its rounding moves them by
    # 0.3, a wrong weight or layout by whole logits.
    for model, tolerance in (("qdq_speech_encoder", "5e-2"), ("qdq_mobilenet", "5e-2"), ("qdq_mobilenet_u8", "5e-2"),
                             ("fp16_text_detector", "5e-3"),
                             ("bf16_mobilenetv2", "1e-1")):
        with open(os.path.join(out, f"{model}.tolerance"), "w") as f:
            f.write(f"{tolerance}\n")
    for model, inputs in (("nested_if", {"sample_rate": np.array(16000, np.int64)}),):
        directory = os.path.join(out, f"{model}.frozen")
        os.makedirs(directory, exist_ok=True)
        for name, value in inputs.items():
            with open(os.path.join(directory, f"{name}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(value, name).SerializeToString())


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    mobilenetv2(os.path.join(out, "mobilenetv2.onnx"))
    resnet18(os.path.join(out, "resnet18.onnx"))
    bert_tiny(os.path.join(out, "bert_tiny.onnx"))
    # The models below draw from their own generators: the three above stay byte-identical.
    crnn_ocr(os.path.join(out, "crnn_ocr.onnx"))
    crnn_ocr(os.path.join(out, "crnn_cjk.onnx"), classes=6625, hidden=128, width=80, name="crnn_cjk", seed=20261204)
    yolo_detector(os.path.join(out, "yolo_detector.onnx"))
    densenet_block(os.path.join(out, "densenet_block.onnx"))
    opset11_cnn(os.path.join(out, "opset11_cnn.onnx"))
    nested_if(os.path.join(out, "nested_if.onnx"))
    int8_qdq_cnn(os.path.join(out, "int8_qdq_cnn.onnx"))
    qdq_speech_encoder(os.path.join(out, "qdq_speech_encoder.onnx"))
    qdq_mobilenet(os.path.join(out, "qdq_mobilenet.onnx"))
    qdq_mobilenet(os.path.join(out, "qdq_mobilenet_u8.onnx"), unsigned=True, name="qdq_mobilenet_u8")
    bert_tiny(os.path.join(out, "dynamic_int8_bert.onnx"), dynamic=True, name="dynamic_int8_bert",
              generator=np.random.default_rng(20261206))
    speech_kws(os.path.join(out, "speech_kws.onnx"))
    text_detector(os.path.join(out, "text_detector.onnx"))
    half_precision(os.path.join(out, "text_detector.onnx"), os.path.join(out, "fp16_text_detector.onnx"),
                   "fp16_text_detector")
    bfloat16_precision(os.path.join(out, "mobilenetv2.onnx"), os.path.join(out, "bf16_mobilenetv2.onnx"),
                       "bf16_mobilenetv2")
    inception_cell(os.path.join(out, "inception_cell.onnx"))
    resnext_block(os.path.join(out, "resnext_block.onnx"))
    audio_tcn(os.path.join(out, "audio_tcn.onnx"))
    conformer_block(os.path.join(out, "conformer_block.onnx"))
    gpt2_block(os.path.join(out, "gpt2_block.onnx"))
    whisper_encoder(os.path.join(out, "whisper_encoder.onnx"))
    mobilenetv3_small(os.path.join(out, "mobilenetv3_small.onnx"))
    gated_deltanet_block(os.path.join(out, "gated_deltanet_block.onnx"))
    vit_tiny(os.path.join(out, "vit_tiny.onnx"))
    llama_block(os.path.join(out, "llama_block.onnx"))
    unet_segmenter(os.path.join(out, "unet_segmenter.onnx"))
    deeplab_segmenter(os.path.join(out, "deeplab_segmenter.onnx"))
    convnext_classifier(os.path.join(out, "convnext_classifier.onnx"))
    yolov8n_detector(os.path.join(out, "yolov8n_detector.onnx"))
    espcn_superres(os.path.join(out, "espcn_superres.onnx"))
    style_transfer(os.path.join(out, "style_transfer.onnx"))
    istft_vocoder(os.path.join(out, "istft_vocoder.onnx"))
    tabular_gbm(os.path.join(out, "tabular_gbm.onnx"))
    tabular_linear(os.path.join(out, "tabular_linear.onnx"))
    tabular_svm(os.path.join(out, "tabular_svm.onnx"))
    tabular_anomaly(os.path.join(out, "tabular_anomaly.onnx"))
    tabular_knn(os.path.join(out, "tabular_knn.onnx"))
    streaming_vad(os.path.join(out, "streaming_vad.onnx"))
    resnet50(os.path.join(out, "resnet50.onnx"))
    write_inputs(out)
