//! The ONNX operator table: one line per operator, saying how it imports. An elementwise
//! operator that is one `sg` elementwise op is a single line here (`line("Relu", 1,
//! Elementwise::Relu, &[])`, with its attributes' defaults as the op's parameters); the others
//! name their import routine ([`Custom`]), one exhaustive `match` in [`Importer::node`]. The
//! unsupported-operator check and `supported_ops` read the same table.

use crate::import::{attribute, node_name, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg::{self as sg, Elementwise, Form, ScalarOp};
use strata_ir::Error;
use strata_ir::Val;

/// How an ONNX operator imports.
#[derive(Clone, Copy, Debug)]
pub(crate) enum How {
    /// One `sg` elementwise op on the node's inputs (broadcast), its parameters the node's
    /// attributes of these names, with these defaults.
    Elementwise(Elementwise, &'static [(&'static str, f32)]),
    /// A left-to-right chain of a binary `sg` elementwise op over one or more inputs (N-ary
    /// Max, Min, Sum).
    Chain(Elementwise),
    /// An import routine of its own.
    Custom(Custom),
    /// Folded at import only (shape computations): the node must have constant inputs.
    Folded,
}

/// The import routines (see [`Importer::node`] for where each lives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Custom {
    Col2Im,
    Constant,
    Identity,
    Arithmetic,
    MatMul,
    Conv,
    ConvTranspose,
    Concat,
    Replicate,
    InstanceNorm,
    Split,
    Reduce,
    Cast,
    Gather,
    Pool,
    Loop,
    Scan,
    Resize,
    BatchNorm,
    Clip,
    Gelu,
    Softmax,
    GlobalPool,
    LayerNorm,
    Gemm,
    Squeeze,
    Transpose,
    Reshape,
    Slice,
    Mean,
    BitShift,
    Lrn,
    ConstantOfShape,
    If,
    QuantizeLinear,
    DequantizeLinear,
    DynamicQuantizeLinear,
    IntegerProduct,
    QLinear,
    Recurrent,
    CompositeReduce,
    RmsNormalization,
    LpNormalization,
    DepthSpace,
    CenterCropPad,
    Trilu,
    OneHot,
    LpPool,
    ConstantOp,
    Attention,
    FlexAttention,
    Optional,
    Optimiser,
    RotaryEmbedding,
    GridSample,
    SwiGlu,
    CausalConvWithState,
    LinearAttention,
    DeformConv,
    TensorScatter,
    RoiAlign,
    BitCast,
    Compress,
    ReverseSequence,
    MaxUnpool,
    AffineGrid,
    Sequence,
    Dft,
    Stft,
    MelWeightMatrix,
    MeanVarianceNormalization,
    GroupNormalization,
    GatherScatter,
    ArgExtreme,
    Hardmax,
    Cumulative,
    Einsum,
    TopK,
    Loss,
    Binarizer,
    Imputer,
    OneHotEncoder,
    LabelEncoder,
    LinearClassifier,
    LinearRegressor,
    Det,
    SvmClassifier,
    SvmRegressor,
    Normalizer,
    Scaler,
    ArrayFeatureExtractor,
    TreeEnsemble,
}

/// An ONNX operator Strata imports: its name, the oldest opset whose definition the importer
/// implements, and how.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OnnxOp {
    pub name: &'static str,
    pub since: i64,
    pub how: How,
}

const fn line(name: &'static str, since: i64, kind: Elementwise, attributes: &'static [(&'static str, f32)]) -> OnnxOp {
    OnnxOp { name, since, how: How::Elementwise(kind, attributes) }
}

const fn custom(name: &'static str, since: i64, routine: Custom) -> OnnxOp {
    OnnxOp { name, since, how: How::Custom(routine) }
}

/// Every operator, by name. `since`: the oldest definition Strata imports (older definitions
/// than the current one are rewritten by `crate::legacy` or read by the routine).
pub(crate) const OPS: &[OnnxOp] = &[
    // Elementwise, one sg op each.
    line("Abs", 1, Elementwise::Abs, &[]),
    line("Ceil", 1, Elementwise::Ceil, &[]),
    line("Elu", 1, Elementwise::Elu, &[("alpha", 1.0)]),
    line("Equal", 1, Elementwise::Equal, &[]),
    line("Erf", 9, Elementwise::Erf, &[]),
    line("Exp", 1, Elementwise::Exp, &[]),
    line("Floor", 1, Elementwise::Floor, &[]),
    line("Greater", 1, Elementwise::Greater, &[]),
    line("HardSigmoid", 1, Elementwise::HardSigmoid, &[("alpha", 0.2), ("beta", 0.5)]),
    line("HardSwish", 14, Elementwise::HardSwish, &[]),
    line("LeakyRelu", 1, Elementwise::LeakyRelu, &[("alpha", 0.01)]),
    line("Less", 1, Elementwise::Less, &[]),
    line("Log", 1, Elementwise::Log, &[]),
    line("Neg", 1, Elementwise::Neg, &[]),
    line("Not", 1, Elementwise::Not, &[]),
    line("Reciprocal", 1, Elementwise::Reciprocal, &[]),
    line("Relu", 1, Elementwise::Relu, &[]),
    line("Sigmoid", 1, Elementwise::Sigmoid, &[]),
    line("Sqrt", 1, Elementwise::Sqrt, &[]),
    line("Tanh", 1, Elementwise::Tanh, &[]),
    line("Where", 9, Elementwise::Where, &[]),
    line("Sin", 7, Elementwise::Sin, &[]),
    line("Cos", 7, Elementwise::Cos, &[]),
    line("Tan", 7, Elementwise::Tan, &[]),
    line("Asin", 7, Elementwise::Asin, &[]),
    line("Acos", 7, Elementwise::Acos, &[]),
    line("Atan", 7, Elementwise::Atan, &[]),
    line("Sinh", 9, Elementwise::Sinh, &[]),
    line("Cosh", 9, Elementwise::Cosh, &[]),
    line("Asinh", 9, Elementwise::Asinh, &[]),
    line("Acosh", 9, Elementwise::Acosh, &[]),
    line("Atanh", 9, Elementwise::Atanh, &[]),
    line("Sign", 9, Elementwise::Sign, &[]),
    line("Round", 11, Elementwise::Round, &[]),
    line("Softplus", 1, Elementwise::Softplus, &[]),
    line("Softsign", 1, Elementwise::Softsign, &[]),
    line("Mish", 18, Elementwise::Mish, &[]),
    line("Selu", 1, Elementwise::Selu, &[("alpha", 1.6732632), ("gamma", 1.050701)]),
    line("Celu", 12, Elementwise::Celu, &[("alpha", 1.0)]),
    line("ThresholdedRelu", 10, Elementwise::ThresholdedRelu, &[("alpha", 1.0)]),
    line("Shrink", 9, Elementwise::Shrink, &[("bias", 0.0), ("lambd", 0.5)]),
    line("Swish", 24, Elementwise::Swish, &[("alpha", 1.0)]),
    line("IsNaN", 9, Elementwise::IsNan, &[]),
    line("IsInf", 10, Elementwise::IsInf, &[("detect_negative", 1.0), ("detect_positive", 1.0)]),
    line("BitwiseNot", 18, Elementwise::BitwiseNot, &[]),
    line("BitwiseAnd", 18, Elementwise::BitwiseAnd, &[]),
    line("BitwiseOr", 18, Elementwise::BitwiseOr, &[]),
    line("BitwiseXor", 18, Elementwise::BitwiseXor, &[]),
    line("Mod", 10, Elementwise::Mod, &[("fmod", 0.0)]),
    line("PRelu", 1, Elementwise::Prelu, &[]),
    line("And", 1, Elementwise::LogicalAnd, &[]),
    line("Or", 1, Elementwise::LogicalOr, &[]),
    line("Xor", 1, Elementwise::LogicalXor, &[]),
    line("GreaterOrEqual", 12, Elementwise::GreaterOrEqual, &[]),
    line("LessOrEqual", 12, Elementwise::LessOrEqual, &[]),
    OnnxOp { name: "Max", since: 1, how: How::Chain(Elementwise::Max) },
    OnnxOp { name: "Min", since: 1, how: How::Chain(Elementwise::Min) },
    OnnxOp { name: "Sum", since: 1, how: How::Chain(Elementwise::Add) },
    custom("Mean", 1, Custom::Mean),
    custom("LRN", 1, Custom::Lrn),
    custom("Col2Im", 18, Custom::Col2Im),
    custom("BitShift", 11, Custom::BitShift),
    // Import routines.
    custom("Add", 1, Custom::Arithmetic),
    custom("Sub", 1, Custom::Arithmetic),
    custom("Mul", 1, Custom::Arithmetic),
    custom("Div", 1, Custom::Arithmetic),
    custom("Pow", 1, Custom::Arithmetic),
    custom("AveragePool", 1, Custom::Pool),
    custom("BatchNormalization", 1, Custom::BatchNorm),
    custom("Cast", 1, Custom::Cast),
    custom("CastLike", 15, Custom::Cast),
    custom("Clip", 1, Custom::Clip),
    custom("Concat", 1, Custom::Concat),
    custom("Constant", 1, Custom::Constant),
    custom("Conv", 1, Custom::Conv),
    custom("ConvTranspose", 1, Custom::ConvTranspose),
    // Dropout is the identity at inference in every version since 7.
    custom("Dropout", 1, Custom::Identity),
    custom("Expand", 8, Custom::Replicate),
    custom("Flatten", 1, Custom::Reshape),
    custom("Gather", 1, Custom::Gather),
    custom("Gelu", 20, Custom::Gelu),
    custom("Gemm", 1, Custom::Gemm),
    custom("GlobalAveragePool", 1, Custom::GlobalPool),
    custom("GlobalMaxPool", 1, Custom::GlobalPool),
    custom("Identity", 1, Custom::Identity),
    custom("InstanceNormalization", 1, Custom::InstanceNorm),
    custom("LayerNormalization", 17, Custom::LayerNorm),
    custom("LogSoftmax", 1, Custom::Softmax),
    custom("Loop", 1, Custom::Loop),
    custom("Scan", 8, Custom::Scan),
    custom("If", 1, Custom::If),
    custom("QuantizeLinear", 10, Custom::QuantizeLinear),
    custom("DequantizeLinear", 10, Custom::DequantizeLinear),
    custom("DynamicQuantizeLinear", 11, Custom::DynamicQuantizeLinear),
    custom("MatMulInteger", 10, Custom::IntegerProduct),
    custom("ConvInteger", 10, Custom::IntegerProduct),
    custom("QLinearMatMul", 10, Custom::QLinear),
    custom("QLinearConv", 10, Custom::QLinear),
    custom("LSTM", 1, Custom::Recurrent),
    custom("GRU", 1, Custom::Recurrent),
    custom("RNN", 1, Custom::Recurrent),
    custom("ReduceL1", 1, Custom::CompositeReduce),
    custom("ReduceSumSquare", 1, Custom::CompositeReduce),
    custom("ReduceLogSum", 1, Custom::CompositeReduce),
    custom("ReduceLogSumExp", 1, Custom::CompositeReduce),
    custom("RMSNormalization", 23, Custom::RmsNormalization),
    custom("LpNormalization", 1, Custom::LpNormalization),
    custom("DepthToSpace", 1, Custom::DepthSpace),
    custom("SpaceToDepth", 1, Custom::DepthSpace),
    custom("CenterCropPad", 18, Custom::CenterCropPad),
    custom("Trilu", 14, Custom::Trilu),
    custom("OneHot", 9, Custom::OneHot),
    custom("LpPool", 2, Custom::LpPool),
    custom("HannWindow", 17, Custom::ConstantOp),
    custom("HammingWindow", 17, Custom::ConstantOp),
    custom("BlackmanWindow", 17, Custom::ConstantOp),
    custom("EyeLike", 9, Custom::ConstantOp),
    custom("Attention", 23, Custom::Attention),
    custom("RotaryEmbedding", 23, Custom::RotaryEmbedding),
    custom("GridSample", 16, Custom::GridSample),
    custom("SwiGLU", 28, Custom::SwiGlu),
    custom("CausalConvWithState", 27, Custom::CausalConvWithState),
    custom("LinearAttention", 27, Custom::LinearAttention),
    custom("DeformConv", 19, Custom::DeformConv),
    custom("TensorScatter", 24, Custom::TensorScatter),
    custom("RoiAlign", 10, Custom::RoiAlign),
    custom("BitCast", 26, Custom::BitCast),
    custom("Compress", 9, Custom::Compress),
    custom("ReverseSequence", 10, Custom::ReverseSequence),
    custom("MaxUnpool", 9, Custom::MaxUnpool),
    custom("AffineGrid", 20, Custom::AffineGrid),
    custom("Optional", 15, Custom::Optional),
    custom("OptionalHasElement", 15, Custom::Optional),
    custom("OptionalGetElement", 15, Custom::Optional),
    custom("SequenceEmpty", 11, Custom::Sequence),
    custom("SequenceConstruct", 11, Custom::Sequence),
    custom("SequenceInsert", 11, Custom::Sequence),
    custom("SequenceErase", 11, Custom::Sequence),
    custom("SequenceAt", 11, Custom::Sequence),
    custom("SequenceLength", 11, Custom::Sequence),
    custom("SplitToSequence", 11, Custom::Sequence),
    custom("ConcatFromSequence", 11, Custom::Sequence),
    custom("DFT", 17, Custom::Dft),
    custom("STFT", 17, Custom::Stft),
    custom("MelWeightMatrix", 17, Custom::MelWeightMatrix),
    custom("MeanVarianceNormalization", 9, Custom::MeanVarianceNormalization),
    custom("GroupNormalization", 21, Custom::GroupNormalization),
    custom("GatherElements", 11, Custom::GatherScatter),
    custom("GatherND", 11, Custom::GatherScatter),
    custom("ScatterElements", 11, Custom::GatherScatter),
    custom("ScatterND", 11, Custom::GatherScatter),
    // Deprecated in opset 11: ScatterElements without reductions.
    custom("Scatter", 9, Custom::GatherScatter),
    custom("ArgMax", 1, Custom::ArgExtreme),
    custom("ArgMin", 1, Custom::ArgExtreme),
    custom("Hardmax", 1, Custom::Hardmax),
    custom("CumSum", 11, Custom::Cumulative),
    custom("CumProd", 26, Custom::Cumulative),
    custom("Einsum", 12, Custom::Einsum),
    custom("Det", 11, Custom::Det),
    custom("TopK", 1, Custom::TopK),
    custom("NegativeLogLikelihoodLoss", 12, Custom::Loss),
    custom("SoftmaxCrossEntropyLoss", 12, Custom::Loss),
    custom("MatMul", 1, Custom::MatMul),
    custom("MaxPool", 1, Custom::Pool),
    custom("Pad", 1, Custom::Replicate),
    custom("ReduceL2", 1, Custom::Reduce),
    custom("ReduceMax", 1, Custom::Reduce),
    custom("ReduceMean", 1, Custom::Reduce),
    custom("ReduceMin", 1, Custom::Reduce),
    custom("ReduceProd", 1, Custom::Reduce),
    custom("ReduceSum", 1, Custom::Reduce),
    custom("Reshape", 1, Custom::Reshape),
    custom("Resize", 10, Custom::Resize),
    // Deprecated in opset 10; imported as Resize with its own coordinate mapping.
    custom("Upsample", 7, Custom::Resize),
    custom("Slice", 1, Custom::Slice),
    custom("Softmax", 1, Custom::Softmax),
    custom("Split", 1, Custom::Split),
    custom("Squeeze", 1, Custom::Squeeze),
    custom("Tile", 1, Custom::Replicate),
    custom("Transpose", 1, Custom::Transpose),
    custom("Unsqueeze", 1, Custom::Squeeze),
    // Shape computations, folded at import.
    custom("ConstantOfShape", 9, Custom::ConstantOfShape),
    OnnxOp { name: "Range", since: 11, how: How::Folded },
    OnnxOp { name: "Shape", since: 1, how: How::Folded },
    OnnxOp { name: "Size", since: 1, how: How::Folded },
];

/// The `ai.onnx.ml` operators (`crate::ml`), `since` in that domain's opsets.
pub(crate) const ML_OPS: &[OnnxOp] = &[
    custom("ArrayFeatureExtractor", 1, Custom::ArrayFeatureExtractor),
    custom("Binarizer", 1, Custom::Binarizer),
    custom("Imputer", 1, Custom::Imputer),
    custom("LabelEncoder", 1, Custom::LabelEncoder),
    custom("LinearClassifier", 1, Custom::LinearClassifier),
    custom("LinearRegressor", 1, Custom::LinearRegressor),
    custom("Normalizer", 1, Custom::Normalizer),
    custom("OneHotEncoder", 1, Custom::OneHotEncoder),
    custom("SVMClassifier", 1, Custom::SvmClassifier),
    custom("SVMRegressor", 1, Custom::SvmRegressor),
    custom("Scaler", 1, Custom::Scaler),
    custom("TreeEnsemble", 5, Custom::TreeEnsemble),
    custom("TreeEnsembleClassifier", 1, Custom::TreeEnsemble),
    custom("TreeEnsembleRegressor", 1, Custom::TreeEnsemble),
];

/// The `ai.onnx.preview` operators, `since` in that domain's opsets.
pub(crate) const PREVIEW_OPS: &[OnnxOp] = &[custom("FlexAttention", 1, Custom::FlexAttention)];

/// The `ai.onnx.preview.training` operators (`crate::training`), `since` in that domain's opsets.
pub(crate) const TRAINING_OPS: &[OnnxOp] = &[
    custom("Adagrad", 1, Custom::Optimiser),
    custom("Adam", 1, Custom::Optimiser),
    custom("Momentum", 1, Custom::Optimiser),
];

/// The table's line for `op_type` (default domain).
pub(crate) fn lookup(op_type: &str) -> Option<&'static OnnxOp> {
    OPS.iter().find(|op| op.name == op_type)
}

/// The table's line for `op_type` in `domain` (the default one, `ai.onnx.ml`,
/// `ai.onnx.preview` or `ai.onnx.preview.training`).
pub(crate) fn lookup_in(domain: &str, op_type: &str) -> Option<&'static OnnxOp> {
    match domain {
        "" | "ai.onnx" => lookup(op_type),
        "ai.onnx.ml" => ML_OPS.iter().find(|op| op.name == op_type),
        "ai.onnx.preview" => PREVIEW_OPS.iter().find(|op| op.name == op_type),
        "ai.onnx.preview.training" => TRAINING_OPS.iter().find(|op| op.name == op_type),
        _ => None,
    }
}

impl Importer<'_> {
    /// Imports one node (`index`: its position in the model's graph, for its location). An
    /// error inside a subgraph names the node it arose at, by its scoped name (the top-level
    /// node around it becomes the error's location).
    pub(crate) fn node(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let prefix = (self.expanding == 0).then(|| self.scope_prefix()).flatten();
        let imported = self.node_here(block, node, index);
        if imported.is_ok() {
            self.track_half_exact(node);
        }
        match (imported, prefix) {
            // Not again where a node nested deeper already named itself.
            (Err(error), Some(prefix))
                if error.location == strata_ir::Location::Unknown
                    && !error.message.starts_with(&format!("'{prefix}/")) =>
            {
                Err(error.context(format!("'{prefix}/{}' ({})", node_name(node, index), node.op_type())))
            }
            (imported, _) => imported,
        }
    }

    fn node_here(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let context = self.strata.mlir();
        let location = Location::name(context, &node_name(node, index), Location::new(context, &self.file, index, 0));
        if node.output.is_empty() {
            return Err("the node has no output".into());
        }
        let node = &*self.scoped(node);
        crate::validate::check_input_types(node, self.opset, |name| self.shape_of(name).ok().map(|(_, dtype)| dtype))?;
        let node = &*self.upgrade(block, node, index)?;
        if self.fold(node)? {
            return Ok(());
        }
        self.check_indices_and_divisors(block, node, index)?;
        let op = lookup_in(node.domain(), node.op_type())
            .ok_or_else(|| format!("operator {} is not supported", node.op_type()))?;
        match op.how {
            How::Elementwise(kind, attributes) => {
                let params: Vec<f64> = attributes
                    .iter()
                    .map(|&(name, default)| attribute(node, name).map_or(default as f64, number))
                    .collect();
                let names: Vec<&str> = node.input.iter().map(String::as_str).collect();
                if names.len() != kind.arity() || names.iter().any(|n| n.is_empty()) {
                    return Err(format!("expects {} inputs", kind.arity()).into());
                }
                let (value, shape, dtype) = self.elementwise(block, ScalarOp::with(kind, &params), &names, location)?;
                self.values.insert(node.output[0].clone(), Entry::Value { value, shape, dtype });
            }
            How::Chain(kind) => {
                let names: Vec<&str> = node.input.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
                let (first, rest) = names.split_first().ok_or("expects at least 1 input")?;
                let mut acc = self.typed(block, first, location)?;
                for name in rest {
                    let operand = self.typed(block, name, location)?;
                    acc = self.elementwise_values(block, ScalarOp::new(kind), &[acc, operand], location)?;
                }
                let (value, shape, dtype) = acc;
                self.values.insert(node.output[0].clone(), Entry::Value { value, shape, dtype });
            }
            How::Folded => {
                return Err(Error::unsupported(format!(
                    "{} of values computed at run time (only constant folding is implemented)",
                    node.op_type()
                )))
            }
            How::Custom(routine) => match routine {
                Custom::Constant => self.constant_node(node)?,
                Custom::Identity => self.identity(node)?,
                Custom::Arithmetic => self.arithmetic(block, node, location)?,
                Custom::MatMul => {
                    if !self.quantized_matmul(block, node, index, location)? {
                        self.matmul(block, node, location)?
                    }
                }
                Custom::Conv => {
                    if !self.quantized_conv(block, node, index, location)? {
                        self.conv(block, node, location)?
                    }
                }
                Custom::ConvTranspose => self.conv_transpose(block, node, location)?,
                Custom::Concat => self.concat_values(block, node, location)?,
                Custom::Replicate => self.replicate(block, node, location)?,
                Custom::InstanceNorm => self.instance_norm(block, node, location)?,
                Custom::Split => self.split(block, node, location)?,
                Custom::Reduce => self.reduce(block, node, location)?,
                Custom::Cast => {
                    if !self.rounded_half(block, node, location)? {
                        self.cast(block, node, location)?
                    }
                }
                Custom::BitCast => self.bit_cast(block, node, location)?,
                Custom::Gather => self.gather(block, node, location)?,
                Custom::Pool => self.pool(block, node, location)?,
                Custom::Loop => self.loop_node(block, node, index)?,
                Custom::Scan => self.scan(block, node, index)?,
                Custom::If => self.if_node(block, node, index)?,
                Custom::QuantizeLinear => self.quantize_linear(block, node, index)?,
                Custom::DequantizeLinear => self.dequantize_linear(block, node, index)?,
                Custom::DynamicQuantizeLinear => self.dynamic_quantize_linear(block, node, index)?,
                Custom::IntegerProduct => self.integer_product(block, node, index, location)?,
                Custom::QLinear => self.qlinear(block, node, index)?,
                Custom::Recurrent => self.recurrent(block, node, index)?,
                Custom::CompositeReduce => self.composite_reduce(block, node, index)?,
                Custom::RmsNormalization => self.rms_normalization(block, node, index)?,
                Custom::LpNormalization => self.lp_normalization(block, node, index)?,
                Custom::DepthSpace => self.depth_space(block, node, index)?,
                Custom::CenterCropPad => self.center_crop_pad(block, node, index)?,
                Custom::Trilu => self.trilu(block, node, index)?,
                Custom::OneHot => self.one_hot(block, node, index)?,
                Custom::LpPool => self.lp_pool(block, node, index)?,
                Custom::ConstantOp => self.constant_op(node)?,
                Custom::Attention => self.attention(block, node, index)?,
                Custom::FlexAttention => self.flex_attention(block, node, index)?,
                Custom::RotaryEmbedding => self.rotary_embedding(block, node, index)?,
                Custom::GridSample => self.grid_sample(block, node, index)?,
                Custom::SwiGlu => self.swiglu(block, node, index)?,
                Custom::CausalConvWithState => self.causal_conv_with_state(block, node, index)?,
                Custom::LinearAttention => self.linear_attention(block, node, index)?,
                Custom::DeformConv => self.deform_conv(block, node, index)?,
                Custom::TensorScatter => self.tensor_scatter(block, node, index)?,
                Custom::RoiAlign => self.roi_align(block, node, index)?,
                Custom::Compress => self.compress(block, node, index)?,
                Custom::ReverseSequence => self.reverse_sequence(block, node, index)?,
                Custom::MaxUnpool => self.max_unpool(block, node, index)?,
                Custom::AffineGrid => self.affine_grid(block, node, index)?,
                Custom::Sequence => self.sequence_op(block, node, index)?,
                Custom::Optional => self.optional_op(node)?,
                Custom::Optimiser => self.optimiser(block, node, index)?,
                Custom::Dft => self.dft(block, node, index)?,
                Custom::Stft => self.stft(block, node, index)?,
                Custom::MelWeightMatrix => self.mel_weight_matrix(node)?,
                Custom::MeanVarianceNormalization => self.mean_variance_normalization(block, node, index)?,
                Custom::GroupNormalization => self.group_normalization(block, node, index)?,
                Custom::GatherScatter => self.gather_scatter(block, node, location)?,
                Custom::ArgExtreme => self.arg_extreme(block, node, location)?,
                Custom::Hardmax => self.hardmax(block, node, index)?,
                Custom::Cumulative => self.cumulative(block, node, location)?,
                Custom::Einsum => self.einsum(block, node, index)?,
                Custom::Det => self.det(block, node, index)?,
                Custom::TopK => self.top_k(block, node, index)?,
                Custom::Loss => self.loss(block, node, index)?,
                Custom::Binarizer => self.binarizer(block, node, index)?,
                Custom::Scaler => self.scaler(block, node, index)?,
                Custom::LinearClassifier => self.linear_classifier(block, node, index)?,
                Custom::LinearRegressor => self.linear_regressor(block, node, index)?,
                Custom::SvmClassifier => self.svm_classifier(block, node, index)?,
                Custom::SvmRegressor => self.svm_regressor(block, node, index)?,
                Custom::Normalizer => self.normalizer(block, node, index)?,
                Custom::Imputer => self.imputer(block, node, index)?,
                Custom::OneHotEncoder => self.one_hot_encoder(block, node, index)?,
                Custom::LabelEncoder => self.label_encoder(block, node, index)?,
                Custom::ArrayFeatureExtractor => self.array_feature_extractor(block, node, index)?,
                Custom::TreeEnsemble => self.tree_ensemble(block, node, index)?,
                Custom::Resize => self.resize(block, node, location)?,
                Custom::BatchNorm => self.batch_norm(block, node, location)?,
                Custom::Clip => self.clip(block, node, location)?,
                Custom::Gelu => self.gelu(block, node, location)?,
                Custom::Softmax => self.softmax(block, node, location)?,
                Custom::GlobalPool => self.global_pool(block, node, location)?,
                Custom::LayerNorm => self.layer_norm(block, node, location)?,
                Custom::Gemm => {
                    if !self.quantized_gemm(block, node, index, location)? {
                        self.gemm(block, node, location)?
                    }
                }
                Custom::Squeeze => self.squeeze(block, node, location)?,
                Custom::Transpose => self.transpose(block, node, location)?,
                Custom::Reshape => self.reshape(block, node, location)?,
                Custom::Slice => self.slice(block, node, location)?,
                Custom::Mean => self.mean(block, node, location)?,
                Custom::Lrn => self.lrn(block, node, index)?,
                Custom::Col2Im => self.col2im(block, node, index)?,
                Custom::ConstantOfShape => self.large_constant_of_shape(block, node, index)?,
                Custom::BitShift => {
                    let kind = match attribute(node, "direction").map(|a| a.s()) {
                        Some(b"LEFT") => Elementwise::ShiftLeft,
                        Some(b"RIGHT") => Elementwise::ShiftRight,
                        _ => return Err("BitShift needs direction LEFT or RIGHT".into()),
                    };
                    let names = [required(node, 0)?, required(node, 1)?];
                    let (value, shape, dtype) = self.elementwise(block, ScalarOp::new(kind), &names, location)?;
                    self.values.insert(node.output[0].clone(), Entry::Value { value, shape, dtype });
                }
            },
        }
        Ok(())
    }

    /// One elementwise `sg` op of `op` on the values `names` (broadcast to their common shape):
    /// its result, shape and element type. The element types must fit the op's form.
    pub(crate) fn elementwise(
        &mut self,
        block: &Block,
        op: ScalarOp,
        names: &[&str],
        location: Location,
    ) -> Result<Typed, Error> {
        let operands = names.iter().map(|n| self.typed(block, n, location)).collect::<Result<Vec<_>, _>>()?;
        self.elementwise_values(block, op, &operands, location)
    }

    /// [`Importer::elementwise`] on values.
    pub(crate) fn elementwise_values(
        &mut self,
        block: &Block,
        op: ScalarOp,
        operands: &[Typed],
        location: Location,
    ) -> Result<Typed, Error> {
        let context = self.strata.mlir();
        let shape =
            operands.iter().try_fold(Vec::new(), |acc, (_, s, _)| sg::verify::broadcast(&acc, s)).ok_or_else(|| {
                let shapes: Vec<String> = operands.iter().map(|(_, s, _)| format!("{s:?}")).collect();
                format!("operand shapes {} do not broadcast", shapes.join(" and "))
            })?;
        let types: Vec<DataType> = operands.iter().map(|(_, _, t)| *t).collect();
        let dtype = result_type(op, &types)?;
        let values: Vec<Value> = operands.iter().map(|(v, _, _)| v.get()).collect();
        let ty = tensor_type(context, &shape, dtype)?;
        let built = block.append_operation(sg::build_elementwise(context, location, op, &values, ty));
        let value: Value = built.result(0).expect("one result").into();
        Ok((value.into(), shape, dtype))
    }

    /// The value `name` with its shape and element type (a constant is materialised).
    pub(crate) fn typed(&mut self, block: &Block, name: &str, location: Location) -> Result<Typed, Error> {
        let (shape, dtype) = self.shape_of(name)?;
        Ok((self.use_value(block, name, location)?, shape, dtype))
    }
}

/// An int or float attribute's value (ONNX writes flags and modes as ints).
fn number(a: &crate::onnx::AttributeProto) -> f64 {
    if a.r#type() == crate::onnx::attribute_proto::AttributeType::Int {
        a.i() as f64
    } else {
        a.f() as f64
    }
}

impl Importer<'_> {
    /// `Mean`: the sum of the inputs (broadcast) divided by their count.
    pub(crate) fn mean(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let names: Vec<&str> = node.input.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
        let (first, rest) = names.split_first().ok_or("expects at least 1 input")?;
        let mut acc = self.typed(block, first, location)?;
        for name in rest {
            let operand = self.typed(block, name, location)?;
            acc = self.elementwise_values(block, ScalarOp::new(Elementwise::Add), &[acc, operand], location)?;
        }
        let dtype = acc.2;
        let count = crate::fold::Folded::scalar_of(dtype, names.len() as f64)?;
        let label = format!("{}_count", node.output[0]);
        let count = self.new_constant_typed(block, &label, count, location)?;
        let (value, shape, dtype) =
            self.elementwise_values(block, ScalarOp::new(Elementwise::Div), &[acc, count], location)?;
        self.values.insert(node.output[0].clone(), Entry::Value { value, shape, dtype });
        Ok(())
    }
}

/// A value with its static shape and element type.
pub(crate) type Typed = (Val, Vec<i64>, DataType);

/// The element type of an elementwise op's result from its operands' (checked against the
/// op's form).
pub(crate) fn result_type(op: ScalarOp, operands: &[DataType]) -> Result<DataType, Error> {
    let differ = |a: DataType, b: DataType| {
        Error::invalid_input(format!("operand types differ: {} and {}", a.as_str_name(), b.as_str_name()))
    };
    match op.kind.form() {
        Form::Same => match operands.iter().find(|&&t| t != operands[0]) {
            Some(&other) => Err(differ(operands[0], other)),
            None => Ok(operands[0]),
        },
        Form::Compare => match operands.iter().find(|&&t| t != operands[0]) {
            Some(&other) => Err(differ(operands[0], other)),
            None => Ok(DataType::Bool),
        },
        Form::Select => {
            if operands[0] != DataType::Bool || operands[1] != operands[2] {
                return Err(format!(
                    "{} needs a BOOL condition and branches of one type",
                    crate::ops::onnx_name(op.kind).unwrap_or("Where")
                )
                .into());
            }
            Ok(operands[1])
        }
        Form::Bool => match operands.iter().find(|&&t| t != DataType::Bool) {
            Some(other) => Err(format!(
                "{} needs BOOL inputs, got {}",
                crate::ops::onnx_name(op.kind).unwrap_or(op.kind.name()),
                other.as_str_name()
            )
            .into()),
            None => Ok(DataType::Bool),
        },
    }
}

/// The ONNX operator a table line maps to elementwise op `kind`, if one does.
pub(crate) fn onnx_name(kind: Elementwise) -> Option<&'static str> {
    OPS.iter().find(|op| matches!(op.how, How::Elementwise(k, _) if k == kind)).map(|op| op.name)
}
