//! Running a PTX artifact on an NVIDIA GPU through the CUDA driver API (cudarc, with
//! `libcuda` opened at run time).
//!
//! [`CudaModel::load`] reads the manifest, hands the PTX to `cuModuleLoadData` (the driver
//! JIT-compiles it for the GPU at hand; no `ptxas` needed), makes one device allocation for the
//! arena and one for the weights (uploaded once), and one per input and output. [`run`]
//! uploads the inputs, launches every kernel in the manifest's order on one stream, each with
//! its base pointers (arena, weights, inputs, outputs), and downloads the outputs.
//!
//! [`run`]: CudaModel::run

use crate::{KernelArg, Launch, Manifest, RuntimeError, Signature, Tensor};
use cudarc::driver::result as cu;
use cudarc::driver::sys::{CUdeviceptr, CUevent_flags, CUfunction, CUmodule, CUstream};
use cudarc::driver::{CudaContext, CudaStream};
use std::ffi::{c_void, CString};
use std::path::Path;
use std::sync::Arc;

fn error(what: &str) -> impl Fn(cudarc::driver::DriverError) -> RuntimeError + '_ {
    move |e| RuntimeError::Cuda(format!("{what}: {e}"))
}

/// Why no GPU can be used here, if none can: no driver library, or no device.
pub fn unavailable() -> Option<String> {
    // Safety: only probes whether the library can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Some("the CUDA driver library (libcuda.so) is not installed on this machine".into());
    }
    match CudaContext::device_count() {
        Ok(0) => Some("the CUDA driver reports no GPU".into()),
        Ok(_) => None,
        Err(e) => Some(format!("the CUDA driver cannot be initialised: {e}")),
    }
}

/// One device allocation (at least one byte, so empty buffers have an address too).
struct DeviceBuffer {
    pointer: CUdeviceptr,
    bytes: usize,
}

impl DeviceBuffer {
    fn new(bytes: usize) -> Result<DeviceBuffer, RuntimeError> {
        // Safety: a plain allocation, freed on drop; zeroed so a read of the unwritten arena is
        // deterministic.
        let pointer = unsafe { cu::malloc_sync(bytes.max(1)) }.map_err(error("allocating device memory"))?;
        unsafe { cu::memset_d8_sync(pointer, 0, bytes.max(1)) }.map_err(error("clearing device memory"))?;
        Ok(DeviceBuffer { pointer, bytes })
    }

    fn upload(&self, data: &[u8]) -> Result<(), RuntimeError> {
        assert_eq!(data.len(), self.bytes, "upload size checked by the caller");
        if data.is_empty() {
            return Ok(());
        }
        unsafe { cu::memcpy_htod_sync(self.pointer, data) }.map_err(error("copying to the GPU"))
    }

    fn download(&self, data: &mut [u8]) -> Result<(), RuntimeError> {
        assert_eq!(data.len(), self.bytes, "download size checked by the caller");
        if data.is_empty() {
            return Ok(());
        }
        unsafe { cu::memcpy_dtoh_sync(data, self.pointer) }.map_err(error("copying from the GPU"))
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // Safety: allocated by `new`, freed once.
        let _ = unsafe { cu::free_sync(self.pointer) };
    }
}

/// A PTX artifact loaded on a GPU.
pub struct CudaModel {
    signature: Signature,
    kernels: Vec<(CUfunction, Launch)>,
    arena: DeviceBuffer,
    weights: DeviceBuffer,
    inputs: Vec<DeviceBuffer>,
    outputs: Vec<DeviceBuffer>,
    /// The run-time checks' status (an `i32` the kernels write; unused without checks).
    status: DeviceBuffer,
    module: CUmodule,
    stream: Arc<CudaStream>,
    context: Arc<CudaContext>,
    /// The GPU's name and compute capability.
    pub device: String,
}

impl CudaModel {
    /// Loads the artifact described by `manifest` on GPU 0.
    pub fn load(manifest: &Path) -> Result<CudaModel, RuntimeError> {
        let (manifest, dir) = Manifest::read(manifest)?;
        if manifest.ptx.is_none() {
            return Err(RuntimeError::Load(format!(
                "manifest of '{}' names no PTX (is it a host artifact?)",
                manifest.name
            )));
        }
        // The PTX's digest must be the manifest's, and the signature it carries equal to it.
        let (mut file, path) = manifest.open_code(&dir)?;
        let mut ptx = String::new();
        std::io::Read::read_to_string(&mut file, &mut ptx)
            .map_err(|e| RuntimeError::Load(format!("cannot read {}: {e}", path.display())))?;
        manifest.check_embedded(crate::manifest::ptx_signature(&ptx), &path)?;
        let weights = manifest.read_weights(&dir)?;
        if let Some(why) = unavailable() {
            return Err(RuntimeError::Unavailable(format!("no CUDA GPU: {why}")));
        }
        let context = CudaContext::new(0).map_err(error("creating a context on GPU 0"))?;
        let (major, minor) = context.compute_capability().map_err(error("reading the compute capability"))?;
        let device = format!("{} (sm_{major}{minor})", context.name().unwrap_or_else(|_| "GPU".into()));
        let stream = context.default_stream();
        let text = CString::new(ptx).map_err(|_| RuntimeError::Load("the PTX contains a NUL byte".into()))?;
        // Safety: a NUL-terminated PTX image; the driver JIT-compiles it.
        let module = unsafe { cu::module::load_data(text.as_ptr().cast()) }.map_err(error(&format!(
            "loading the PTX of '{}' (compiled for {})",
            manifest.name,
            manifest.chip.as_deref().unwrap_or("?")
        )))?;
        let mut kernels = Vec::with_capacity(manifest.kernels.len());
        for launch in &manifest.kernels {
            let name = CString::new(launch.kernel.clone())
                .map_err(|_| RuntimeError::Load("a kernel name contains a NUL byte".into()))?;
            let function = unsafe { cu::module::get_function(module, name) }
                .map_err(error(&format!("finding kernel '{}'", launch.kernel)))?;
            kernels.push((function, launch.clone()));
        }
        let signature = manifest.signature();
        let arena = DeviceBuffer::new(manifest.arena_bytes)?;
        let weights_buffer = DeviceBuffer::new(weights.len())?;
        weights_buffer.upload(&weights)?;
        let bytes = |spec: &crate::TensorSpec| spec.bytes().expect("sizes checked by Manifest::parse");
        let inputs = signature.inputs.iter().map(|s| DeviceBuffer::new(bytes(s))).collect::<Result<_, _>>()?;
        let outputs = signature.outputs.iter().map(|s| DeviceBuffer::new(bytes(s))).collect::<Result<_, _>>()?;
        let status = DeviceBuffer::new(4)?;
        Ok(CudaModel {
            status,
            signature,
            kernels,
            arena,
            weights: weights_buffer,
            inputs,
            outputs,
            module,
            stream,
            context,
            device,
        })
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// How many kernels one run launches.
    pub fn launches(&self) -> usize {
        self.kernels.len()
    }

    fn cu_stream(&self) -> CUstream {
        self.stream.cu_stream()
    }

    /// Launches every kernel once, in order (asynchronously on the stream).
    fn launch_all(&self) -> Result<(), RuntimeError> {
        for (function, launch) in &self.kernels {
            let mut pointers: Vec<CUdeviceptr> = launch
                .args
                .iter()
                .map(|arg| match *arg {
                    KernelArg::Arena => self.arena.pointer,
                    KernelArg::Weights => self.weights.pointer,
                    KernelArg::Input(i) => self.inputs[i].pointer,
                    KernelArg::Output(i) => self.outputs[i].pointer,
                    KernelArg::Status => self.status.pointer,
                })
                .collect();
            let mut params: Vec<*mut c_void> = pointers.iter_mut().map(|p| (p as *mut CUdeviceptr).cast()).collect();
            let grid = (launch.grid[0], launch.grid[1], launch.grid[2]);
            let block = (launch.block[0], launch.block[1], launch.block[2]);
            // Safety: the kernel's parameters are exactly these pointers (bare-pointer
            // convention, checked against the signature at load), each to a live allocation
            // of the size the kernel was compiled for.
            unsafe { cu::launch_kernel(*function, grid, block, 0, self.cu_stream(), &mut params) }
                .map_err(error(&format!("launching '{}'", launch.kernel)))?;
        }
        Ok(())
    }

    /// Runs the model on `inputs` (in signature order) and returns its outputs.
    pub fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RuntimeError> {
        let mut outputs: Vec<Tensor> =
            self.signature.outputs.iter().map(|o| Tensor::zeros(o.dtype, &o.shape)).collect();
        self.signature.check(inputs, &outputs)?;
        self.context.bind_to_thread().map_err(error("binding the context"))?;
        for (buffer, tensor) in self.inputs.iter().zip(inputs) {
            buffer.upload(tensor.bytes())?;
        }
        self.launch_all()?;
        self.stream.synchronize().map_err(error("running the kernels"))?;
        for (buffer, tensor) in self.outputs.iter().zip(outputs.iter_mut()) {
            let bytes = tensor.len() * tensor.dtype().size();
            // Safety: the tensor owns `bytes` writable bytes.
            let slice = unsafe { std::slice::from_raw_parts_mut(tensor.as_mut_ptr(), bytes) };
            buffer.download(slice)?;
        }
        if !self.signature.checks.is_empty() {
            let mut status = [0u8; 4];
            self.status.download(&mut status)?;
            self.signature.status(i32::from_ne_bytes(status))?;
        }
        Ok(outputs)
    }

    /// The GPU time of one run (inputs already on the device), in milliseconds: the median of
    /// `repeats` runs timed with CUDA events, after one warm-up.
    pub fn time(&mut self, repeats: usize) -> Result<f64, RuntimeError> {
        self.context.bind_to_thread().map_err(error("binding the context"))?;
        self.launch_all()?;
        let start = cu::event::create(CUevent_flags::CU_EVENT_DEFAULT).map_err(error("creating an event"))?;
        let end = cu::event::create(CUevent_flags::CU_EVENT_DEFAULT).map_err(error("creating an event"))?;
        let mut times = Vec::with_capacity(repeats.max(1));
        for _ in 0..repeats.max(1) {
            unsafe { cu::event::record(start, self.cu_stream()) }.map_err(error("recording an event"))?;
            self.launch_all()?;
            unsafe { cu::event::record(end, self.cu_stream()) }.map_err(error("recording an event"))?;
            self.stream.synchronize().map_err(error("running the kernels"))?;
            times.push(f64::from(unsafe { cu::event::elapsed(start, end) }.map_err(error("reading an event"))?));
        }
        unsafe {
            let _ = cu::event::destroy(start);
            let _ = cu::event::destroy(end);
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }
}

impl Drop for CudaModel {
    fn drop(&mut self) {
        let _ = self.context.bind_to_thread();
        // Safety: loaded in `load`, unloaded once; the buffers drop after this.
        let _ = unsafe { cu::module::unload(self.module) };
    }
}
