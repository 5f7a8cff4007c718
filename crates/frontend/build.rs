//! Compiles ONNX's `onnx.proto` (vendored from the onnx 1.23.2 package, Apache-2.0) into
//! Rust types with prost. `protox` is a pure-Rust protobuf compiler: no `protoc` needed.
fn main() {
    println!("cargo::rerun-if-changed=proto/onnx.proto");
    let descriptors = protox::compile(["onnx.proto"], ["proto"]).expect("proto/onnx.proto compiles");
    prost_build::Config::new().compile_fds(descriptors).expect("prost generates the ONNX types");
}
