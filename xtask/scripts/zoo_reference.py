"""Makes the ONNX Runtime reference outputs of the zoo models (dev tooling, run once by hand;
the results are checked in so CI needs no ONNX Runtime):

    pip install --target /tmp/ort onnxruntime
    PYTHONPATH=/tmp/ort:target/python-onnx python3 xtask/scripts/zoo_reference.py target/zoo xtask/zoo-reference [MODEL...]

(naming models remakes only theirs: a new zoo model's reference without touching the others').

Reads <zoo>/<model>.onnx, <zoo>/<model>.inputs/*.npy and the compile-time-frozen inputs
<zoo>/<model>.frozen/*.pb (serialized TensorProtos, read with the pinned onnx; all written by
zoo.py), runs ONNX Runtime with one thread on all of them together (on <zoo>/<model>.ort.onnx
where zoo.py wrote one: what ONNX Runtime can run of a model it has no kernels for), writes
<out>/<model>.<output>.npy for every graph output and prints the versions used.
"""
import glob
import os
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, numpy_helper

MODELS = ("mobilenetv2", "resnet18", "bert_tiny", "crnn_ocr", "crnn_cjk", "yolo_detector", "densenet_block", "opset11_cnn",
          "nested_if", "int8_qdq_cnn", "speech_kws", "text_detector", "fp16_text_detector", "bf16_mobilenetv2",
          "inception_cell", "resnext_block",
          "audio_tcn", "conformer_block", "gpt2_block", "mobilenetv3_small", "gated_deltanet_block",
          "vit_tiny", "llama_block", "unet_segmenter", "deeplab_segmenter",
          "convnext_classifier", "yolov8n_detector", "espcn_superres", "style_transfer", "istft_vocoder", "qdq_speech_encoder", "qdq_mobilenet", "qdq_mobilenet_u8", "dynamic_int8_bert", "tabular_gbm",
          "tabular_linear", "tabular_svm", "tabular_anomaly", "tabular_knn", "streaming_vad",
          "whisper_encoder")


def frozen(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def main(zoo, out, models=MODELS):
    os.makedirs(out, exist_ok=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    for model in models:
        twin = os.path.join(zoo, f"{model}.ort.onnx")
        path = twin if os.path.exists(twin) else os.path.join(zoo, f"{model}.onnx")
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        feeds = {os.path.basename(p)[:-4]: np.load(p) for p in glob.glob(os.path.join(zoo, f"{model}.inputs", "*.npy"))}
        feeds.update({os.path.basename(p)[:-3]: frozen(p) for p in glob.glob(os.path.join(zoo, f"{model}.frozen", "*.pb"))})
        for info, value in zip(session.get_outputs(), session.run(None, feeds)):
            np.save(os.path.join(out, f"{model}.{info.name}.npy"), value)
            print(f"{model}.{info.name}: {value.shape} {value.dtype} max |y| {np.abs(value).max():.4g}")
    print(f"onnxruntime {ort.__version__}, numpy {np.__version__}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *([sys.argv[3:]] if len(sys.argv) > 3 else []))
