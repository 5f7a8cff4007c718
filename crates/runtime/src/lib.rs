//! `strata-runtime` runs compiled models: a [`Model`] owns the JIT-compiled code, its arena
//! (one allocation, sized and aligned by the memory plan) and its [`Signature`], checks the
//! inputs against it, and calls the entry point of DESIGN.md's ABI:
//! `strata_<name>_run(weights, arena, inputs, outputs)`.

pub mod tensor;

pub use tensor::{AlignedBytes, DType, Element, Tensor};

use strata_codegen::Jit;

/// Why running a model failed.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("input {index} ('{name}'): {message}")]
    Input { index: usize, name: String, message: String },
    #[error("the model takes {expected} inputs, got {found}")]
    InputCount { expected: usize, found: usize },
    #[error("{0}")]
    Data(String),
    #[error("{0}")]
    Npy(String),
    #[error(transparent)]
    Codegen(#[from] strata_codegen::CodegenError),
}

/// One input or output at the ABI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

/// What a compiled model takes and returns, and the arena it needs.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    pub inputs: Vec<TensorSpec>,
    pub outputs: Vec<TensorSpec>,
    /// Arena size in bytes (0: the model has no intermediates).
    pub arena_bytes: usize,
    pub arena_alignment: usize,
}

type EntryFn = unsafe extern "C" fn(*const u8, *mut u8, *const *const u8, *const *mut u8);

/// A compiled, runnable model.
pub struct Model {
    entry: EntryFn,
    signature: Signature,
    arena: AlignedBytes,
    // Declared last: the code `entry` points into is freed when the JIT drops.
    _jit: Jit,
}

impl Model {
    /// The model whose entry point is `symbol` in `jit`.
    pub fn new(jit: Jit, symbol: &str, signature: Signature) -> Result<Model, RuntimeError> {
        if signature.arena_alignment > 64 {
            return Err(RuntimeError::Data(format!("arena alignment {} is above the runtime's 64 bytes", signature.arena_alignment)));
        }
        let address = jit.lookup(symbol)?;
        // Safety: the symbol is the entry point `strata_codegen::add_entry` generated.
        let entry: EntryFn = unsafe { std::mem::transmute::<*mut (), EntryFn>(address) };
        Ok(Model { entry, arena: AlignedBytes::zeroed(signature.arena_bytes), signature, _jit: jit })
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Runs the model on `inputs` (in signature order) and returns its outputs.
    pub fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RuntimeError> {
        let mut outputs: Vec<Tensor> = self.signature.outputs.iter().map(|o| Tensor::zeros(o.dtype, &o.shape)).collect();
        self.run_into(inputs, &mut outputs)?;
        Ok(outputs)
    }

    /// Runs the model writing into `outputs` (made with [`Model::run`] or matching the
    /// signature): no allocation, for benchmarks.
    pub fn run_into(&mut self, inputs: &[Tensor], outputs: &mut [Tensor]) -> Result<(), RuntimeError> {
        let expected = &self.signature.inputs;
        if inputs.len() != expected.len() {
            return Err(RuntimeError::InputCount { expected: expected.len(), found: inputs.len() });
        }
        for (index, (tensor, spec)) in inputs.iter().zip(expected).enumerate() {
            if tensor.dtype() != spec.dtype || tensor.shape() != spec.shape.as_slice() {
                return Err(RuntimeError::Input {
                    index,
                    name: spec.name.clone(),
                    message: format!("expected {} {:?}, got {} {:?}", spec.dtype, spec.shape, tensor.dtype(), tensor.shape()),
                });
            }
        }
        for (tensor, spec) in outputs.iter().zip(&self.signature.outputs) {
            if tensor.dtype() != spec.dtype || tensor.shape() != spec.shape.as_slice() || outputs.len() != self.signature.outputs.len() {
                return Err(RuntimeError::Data(format!("output '{}' must be {} {:?}", spec.name, spec.dtype, spec.shape)));
            }
        }
        let input_pointers: Vec<*const u8> = inputs.iter().map(|t| t.bytes().as_ptr()).collect();
        let output_pointers: Vec<*mut u8> = outputs.iter_mut().map(|t| t.as_mut_ptr()).collect();
        // Safety: every buffer has the size and alignment the compiled code expects (checked
        // above), the arena has the planned size, and the code only touches these buffers.
        unsafe { (self.entry)(std::ptr::null(), self.arena.as_mut_ptr(), input_pointers.as_ptr(), output_pointers.as_ptr()) };
        Ok(())
    }
}
