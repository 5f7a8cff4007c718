//! Tensors at the ABI: a dtype, a shape and 64-byte-aligned row-major bytes, with `ndarray`
//! views for the Rust API and `.npy` files (through `npyz`) for the command line.

use crate::RuntimeError;
use ndarray::{ArrayD, ArrayViewD, IxDyn};
use npyz::WriterBuilder as _;
use std::fmt;
use std::io::Read as _;
use std::path::Path;

/// Element types a compiled model can take or return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    F16,
    BF16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
    /// Sub-byte integers, one element per byte (the low bits; ONNX packs them in files).
    I4,
    U4,
    I2,
    U2,
    /// Small floats, one element per byte (the low bits for float4).
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    F4E2M1,
    /// Exponent only (unsigned, bias 127): the value 2^(code - 127), NaN at 0xFF.
    F8E8M0,
}

impl DType {
    /// From an MLIR element type (`f32`, `i64`, `ui8`, `i1`, ...).
    pub fn from_mlir(name: &str) -> Option<DType> {
        Some(match name {
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            "f32" => DType::F32,
            "f64" => DType::F64,
            "i8" => DType::I8,
            "i16" => DType::I16,
            "i32" => DType::I32,
            "i64" => DType::I64,
            "ui8" => DType::U8,
            "ui16" => DType::U16,
            "ui32" => DType::U32,
            "ui64" => DType::U64,
            "i1" => DType::Bool,
            "i4" => DType::I4,
            "ui4" => DType::U4,
            "i2" => DType::I2,
            "ui2" => DType::U2,
            "f8E4M3FN" => DType::F8E4M3FN,
            "f8E4M3FNUZ" => DType::F8E4M3FNUZ,
            "f8E5M2" => DType::F8E5M2,
            "f8E5M2FNUZ" => DType::F8E5M2FNUZ,
            "f4E2M1FN" => DType::F4E2M1,
            "f8E8M0FNU" => DType::F8E8M0,
            _ => return None,
        })
    }

    /// From the name [`Display`](fmt::Display) writes (`float32`, `int64`, `bool`, ...).
    pub fn from_name(name: &str) -> Option<DType> {
        ALL.iter().copied().find(|d| d.to_string() == name)
    }

    /// Bytes per element (`i1` is stored as one byte).
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::I4
            | DType::U4
            | DType::I2
            | DType::U2
            | DType::F8E4M3FN
            | DType::F8E4M3FNUZ
            | DType::F8E5M2
            | DType::F8E5M2FNUZ
            | DType::F4E2M1
            | DType::F8E8M0 => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::BF16
                | DType::F32
                | DType::F64
                | DType::F8E4M3FN
                | DType::F8E4M3FNUZ
                | DType::F8E5M2
                | DType::F8E5M2FNUZ
                | DType::F4E2M1
                | DType::F8E8M0
        )
    }
}

/// The value of a small-float code: (exponent bits, mantissa bits, bias, FNUZ, IEEE infinities).
fn small_float(code: u8, (e, m, bias, fnuz, infinities): (u32, u32, i32, bool, bool)) -> f64 {
    let code = u32::from(code) & ((1 << (1 + e + m)) - 1);
    let (sign, exponent, mantissa) = ((code >> (e + m)) & 1, (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1));
    let all_ones = exponent == (1 << e) - 1;
    if fnuz && code == 1 << (e + m) {
        return f64::NAN;
    }
    if infinities && all_ones {
        return if mantissa != 0 {
            f64::NAN
        } else if sign == 1 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // E4M3FN: the all-ones magnitude is NaN (float4 has none).
    if !fnuz && !infinities && e == 4 && all_ones && mantissa == (1 << m) - 1 {
        return f64::NAN;
    }
    let magnitude = if exponent == 0 {
        f64::from(mantissa) * 2f64.powi(1 - bias - m as i32)
    } else {
        (1.0 + f64::from(mantissa) / f64::from(1 << m)) * 2f64.powi(exponent as i32 - bias)
    };
    if sign == 1 {
        -magnitude
    } else {
        magnitude
    }
}

const ALL: [DType; 23] = [
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::Bool,
    DType::I4,
    DType::U4,
    DType::I2,
    DType::U2,
    DType::F8E4M3FN,
    DType::F8E4M3FNUZ,
    DType::F8E5M2,
    DType::F8E5M2FNUZ,
    DType::F4E2M1,
    DType::F8E8M0,
];

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::Bool => "bool",
            DType::I4 => "int4",
            DType::U4 => "uint4",
            DType::I2 => "int2",
            DType::U2 => "uint2",
            DType::F8E4M3FN => "float8e4m3fn",
            DType::F8E4M3FNUZ => "float8e4m3fnuz",
            DType::F8E5M2 => "float8e5m2",
            DType::F8E5M2FNUZ => "float8e5m2fnuz",
            DType::F4E2M1 => "float4e2m1",
            DType::F8E8M0 => "float8e8m0",
        };
        f.write_str(name)
    }
}

/// The largest `.npy` header read (NumPy writes a few hundred bytes; it reads at most 10,000).
const MAX_NPY_HEADER: usize = 10_000;

/// The deepest bracket nesting of a `.npy` header read: a plain array's is 2 (`{... (n,)}`).
/// npyz's header parser (pest, through py_literal) backtracks exponentially in nesting: a
/// 120-byte header of 46 `[` kept it busy for minutes.
const MAX_NPY_NESTING: usize = 8;

/// The magic, version, length and header text of a `.npy` stream, as read (short or
/// malformed prefixes are returned as read: npyz reports them).
fn npy_header(reader: &mut impl std::io::Read) -> std::io::Result<Vec<u8>> {
    let mut prefix = Vec::new();
    std::io::Read::take(&mut *reader, 8).read_to_end(&mut prefix)?;
    if prefix.len() < 8 || !prefix.starts_with(b"\x93NUMPY") {
        return Ok(prefix);
    }
    let width = if prefix[6] == 1 { 2 } else { 4 };
    std::io::Read::take(&mut *reader, width).read_to_end(&mut prefix)?;
    if prefix.len() < 8 + width as usize {
        return Ok(prefix);
    }
    let length = prefix[8..].iter().rev().fold(0usize, |n, &b| (n << 8) | usize::from(b));
    if length > MAX_NPY_HEADER {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the .npy header claims {length} bytes (at most {MAX_NPY_HEADER})"),
        ));
    }
    std::io::Read::take(&mut *reader, length as u64).read_to_end(&mut prefix)?;
    let mut depth = 0usize;
    for &byte in &prefix[8 + width as usize..] {
        match byte {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NPY_NESTING {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the .npy header nests brackets deeper than {MAX_NPY_NESTING}: not a NumPy array header"),
            ));
        }
    }
    Ok(prefix)
}

/// The dimensions of a `.npy` header's `'shape': (...)`, when it has that form.
/// A `.npy` header read by [`npy_header`], its shape's element count checked: npyz multiplies
/// the header's dimensions unchecked (a panic, or a wrapped count), so every reader checks
/// them here first.
fn checked_header(reader: &mut impl std::io::Read, origin: &str) -> Result<Vec<u8>, RuntimeError> {
    let header = npy_header(reader).map_err(|e| RuntimeError::Npy(format!("{origin}: {e}")))?;
    if let Some(shape) = npy_header_shape(&header) {
        if shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d)).is_none() {
            return Err(RuntimeError::Npy(format!("{origin}: shape {shape:?} is larger than memory")));
        }
    }
    Ok(header)
}

fn npy_header_shape(header: &[u8]) -> Option<Vec<u64>> {
    let start = if *header.get(6)? == 1 { 10 } else { 12 };
    let text = std::str::from_utf8(header.get(start..)?).ok()?;
    let after = &text[text.find("shape")? + 5..];
    let open = after.find('(')?;
    let inside = &after[open + 1..open + 1 + after[open + 1..].find(')')?];
    inside.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| d.trim_end_matches('L').parse().ok()).collect()
}

/// A Rust element type with a [`DType`].
pub trait Element: Copy + 'static {
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => { $(impl Element for $t { const DTYPE: DType = DType::$d; })* };
}
element!(f32 => F32, f64 => F64, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64, bool => Bool, half::f16 => F16, half::bf16 => BF16);

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Block([u8; 64]);

/// Zeroed bytes aligned to 64 (what vector loads and the arena plan assume).
#[derive(Clone)]
pub struct AlignedBytes {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedBytes {
    /// `len` zero bytes, from the allocator's zeroed memory (`calloc`: a large buffer is fresh
    /// pages, zero until written, not written with zeros first: a 100 MB weights blob or
    /// arena costs no pass over its memory before its first use).
    pub fn zeroed(len: usize) -> Self {
        let count = len.div_ceil(64);
        if count == 0 {
            return AlignedBytes { blocks: Vec::new(), len };
        }
        let layout = std::alloc::Layout::array::<Block>(count).expect("a buffer that fits the address space");
        // Safety: the layout has a non-zero size; all-zero bytes are a valid `Block`; the
        // vector takes the allocation with the layout it frees it with (`count` blocks).
        unsafe {
            let blocks = std::alloc::alloc_zeroed(layout).cast::<Block>();
            if blocks.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            AlignedBytes { blocks: Vec::from_raw_parts(blocks, count, count), len }
        }
    }
    pub fn as_slice(&self) -> &[u8] {
        // Safety: `blocks` holds at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast(), self.len) }
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast(), self.len) }
    }
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.blocks.as_mut_ptr().cast()
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A dense row-major tensor.
#[derive(Clone)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    bytes: AlignedBytes,
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({} {:?})", self.dtype, self.shape)
    }
}

impl Tensor {
    pub fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
        let count: usize = shape.iter().product();
        Tensor { dtype, shape: shape.to_vec(), bytes: AlignedBytes::zeroed(count * dtype.size()) }
    }

    /// A tensor from raw little-endian row-major bytes.
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Tensor, RuntimeError> {
        let mut tensor = Tensor::zeros(dtype, shape);
        if bytes.len() != tensor.bytes.len() {
            return Err(RuntimeError::Data(format!(
                "{} bytes do not hold a {dtype} tensor of shape {shape:?} ({} bytes)",
                bytes.len(),
                tensor.bytes.len()
            )));
        }
        tensor.bytes.as_mut_slice().copy_from_slice(bytes);
        Ok(tensor)
    }

    pub fn from_array<T: Element>(array: &ArrayD<T>) -> Tensor {
        Tensor::from_values(array.shape(), &array.iter().copied().collect::<Vec<T>>())
    }

    /// A tensor of `shape` holding `values` in row-major order (as many as the shape has).
    fn from_values<T: Element>(shape: &[usize], values: &[T]) -> Tensor {
        // Safety: `Element` types are plain numbers (bools are 0 or 1), `size` bytes each.
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len() * T::DTYPE.size()) };
        Tensor::from_bytes(T::DTYPE, shape, bytes).expect("one value per element")
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }

    /// An `ndarray` view, if `T` is the tensor's element type.
    pub fn view<T: Element>(&self) -> Option<ArrayViewD<'_, T>> {
        if T::DTYPE != self.dtype {
            return None;
        }
        // Safety: the bytes are aligned to 64 and hold `len` values of `T` (bools are 0 or 1).
        let values = unsafe { std::slice::from_raw_parts(self.bytes.as_slice().as_ptr().cast::<T>(), self.len()) };
        ArrayViewD::from_shape(IxDyn(&self.shape), values).ok()
    }

    /// Every element as `f64` (for comparisons and summaries).
    pub fn to_f64(&self) -> Vec<f64> {
        fn read<T: Element>(t: &Tensor, f: impl Fn(T) -> f64) -> Vec<f64> {
            t.view::<T>().expect("dtype checked").iter().map(|&v| f(v)).collect()
        }
        match self.dtype {
            DType::F16 => read(self, |v: half::f16| v.to_f64()),
            DType::BF16 => read(self, |v: half::bf16| v.to_f64()),
            DType::F32 => read(self, |v: f32| v as f64),
            DType::F64 => read(self, |v: f64| v),
            DType::I8 => read(self, |v: i8| v as f64),
            DType::I16 => read(self, |v: i16| v as f64),
            DType::I32 => read(self, |v: i32| v as f64),
            DType::I64 => read(self, |v: i64| v as f64),
            DType::U8 => read(self, |v: u8| v as f64),
            DType::U16 => read(self, |v: u16| v as f64),
            DType::U32 => read(self, |v: u32| v as f64),
            DType::U64 => read(self, |v: u64| v as f64),
            DType::Bool => self.bytes().iter().map(|&b| f64::from(b != 0)).collect(),
            // Sub-byte integers: the low bits, sign-extended for the signed ones.
            DType::I4 => self.bytes().iter().map(|&b| f64::from(((b << 4) as i8) >> 4)).collect(),
            DType::U4 => self.bytes().iter().map(|&b| f64::from(b & 0xF)).collect(),
            DType::I2 => self.bytes().iter().map(|&b| f64::from(((b << 6) as i8) >> 6)).collect(),
            DType::U2 => self.bytes().iter().map(|&b| f64::from(b & 0x3)).collect(),
            DType::F8E4M3FN => self.bytes().iter().map(|&b| small_float(b, (4, 3, 7, false, false))).collect(),
            DType::F8E4M3FNUZ => self.bytes().iter().map(|&b| small_float(b, (4, 3, 8, true, false))).collect(),
            DType::F8E5M2 => self.bytes().iter().map(|&b| small_float(b, (5, 2, 15, false, true))).collect(),
            DType::F8E5M2FNUZ => self.bytes().iter().map(|&b| small_float(b, (5, 2, 16, true, false))).collect(),
            DType::F4E2M1 => self.bytes().iter().map(|&b| small_float(b, (2, 1, 1, false, false))).collect(),
            DType::F8E8M0 => {
                self.bytes().iter().map(|&b| if b == 0xFF { f64::NAN } else { 2f64.powi(i32::from(b) - 127) }).collect()
            }
        }
    }

    /// Reads a `.npy` file (C order).
    pub fn read_npy(path: &Path) -> Result<Tensor, RuntimeError> {
        let file = std::fs::File::open(path).map_err(|e| RuntimeError::Npy(format!("{}: {e}", path.display())))?;
        // A regular file's size bounds what its header may claim; a pipe's is unknown.
        let size = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        Tensor::read_npy_from(std::io::BufReader::new(file), size, &path.display().to_string())
    }

    /// The shape a `.npy` file declares, from its header alone (the data is not read).
    pub fn npy_shape(path: &Path) -> Result<Vec<u64>, RuntimeError> {
        let origin = path.display().to_string();
        let error = |e: std::io::Error| RuntimeError::Npy(format!("{origin}: {e}"));
        let mut file = std::io::BufReader::new(std::fs::File::open(path).map_err(error)?);
        let header = checked_header(&mut file, &origin)?;
        let npy = npyz::NpyFile::new(header.as_slice()).map_err(error)?;
        Ok(npy.shape().to_vec())
    }

    /// Reads `.npy` bytes (C order).
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<Tensor, RuntimeError> {
        Tensor::read_npy_from(bytes, Some(bytes.len() as u64), "the .npy data")
    }

    /// Reads `.npy` data from `reader` (`size` bytes in all, when known: a header claiming
    /// more data than that is refused before anything is allocated); `origin` names it in
    /// errors.
    fn read_npy_from(mut reader: impl std::io::Read, size: Option<u64>, origin: &str) -> Result<Tensor, RuntimeError> {
        let error = |e: std::io::Error| RuntimeError::Npy(format!("{origin}: {e}"));
        let header = checked_header(&mut reader, origin)?;
        let npy = npyz::NpyFile::new(std::io::Read::chain(header.as_slice(), reader)).map_err(error)?;
        if npy.order() == npyz::Order::Fortran {
            return Err(RuntimeError::Npy(format!(
                "{origin}: Fortran-order arrays are not supported; save with numpy.ascontiguousarray"
            )));
        }
        let element = match npy.dtype() {
            npyz::DType::Plain(ty) => ty.num_bytes().map_or(1, |n| n as u64),
            _ => 1,
        };
        let bytes = npy.shape().iter().try_fold(element, |n, &d| n.checked_mul(d));
        match (bytes, size) {
            (None, _) => {
                return Err(RuntimeError::Npy(format!("{origin}: shape {:?} is larger than memory", npy.shape())))
            }
            (Some(bytes), Some(size)) if bytes > size => {
                return Err(RuntimeError::Npy(format!(
                    "{origin}: the header says shape {:?} ({bytes} bytes of data), the file has {size} bytes",
                    npy.shape()
                )))
            }
            _ => {}
        }
        let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
        let npyz::DType::Plain(ty) = npy.dtype() else {
            return Err(RuntimeError::Npy(format!("{origin}: structured arrays are not tensors")));
        };
        use npyz::TypeChar::{Bool, Float, Int, Uint};
        fn load<T: Element + npyz::Deserialize, R: std::io::Read>(
            npy: npyz::NpyFile<R>,
            shape: &[usize],
        ) -> std::io::Result<Tensor> {
            Ok(Tensor::from_values(shape, &npy.into_vec::<T>()?))
        }
        match (ty.type_char(), ty.size_field()) {
            (Float, 2) => load::<half::f16, _>(npy, &shape),
            (Float, 4) => load::<f32, _>(npy, &shape),
            (Float, 8) => load::<f64, _>(npy, &shape),
            (Int, 1) => load::<i8, _>(npy, &shape),
            (Int, 2) => load::<i16, _>(npy, &shape),
            (Int, 4) => load::<i32, _>(npy, &shape),
            (Int, 8) => load::<i64, _>(npy, &shape),
            (Uint, 1) => load::<u8, _>(npy, &shape),
            (Uint, 2) => load::<u16, _>(npy, &shape),
            (Uint, 4) => load::<u32, _>(npy, &shape),
            (Uint, 8) => load::<u64, _>(npy, &shape),
            (Bool, 1) => load::<bool, _>(npy, &shape),
            _ => return Err(RuntimeError::Npy(format!("{origin}: element type '{ty}' is not supported"))),
        }
        .map_err(error)
    }

    /// Writes the tensor as a `.npy` file, atomically: into a new temporary file beside `path`,
    /// renamed over it once complete, so a reader (or a concurrent writer) never sees a torn file.
    pub fn write_npy(&self, path: &Path) -> Result<(), RuntimeError> {
        let error = |e: std::io::Error| RuntimeError::Npy(format!("{}: {e}", path.display()));
        let write = |file: &std::fs::File| {
            self.write_npy_to(file).map_err(|e| match e {
                RuntimeError::Npy(why) => RuntimeError::Npy(format!("{}: {why}", path.display())),
                other => other,
            })
        };
        crate::files::write_atomic_with(path, write, error)
    }

    /// The tensor in `.npy` format.
    pub fn to_npy_bytes(&self) -> Result<Vec<u8>, RuntimeError> {
        let mut bytes = Vec::new();
        self.write_npy_to(&mut bytes)?;
        Ok(bytes)
    }

    /// Writes the tensor in `.npy` format to `out`.
    fn write_npy_to(&self, out: impl std::io::Write) -> Result<(), RuntimeError> {
        let error = |e: std::io::Error| RuntimeError::Npy(e.to_string());
        fn store<T: Element + npyz::Serialize + npyz::AutoSerialize>(
            t: &Tensor,
            w: impl std::io::Write,
        ) -> std::io::Result<()> {
            let shape: Vec<u64> = t.shape.iter().map(|&d| d as u64).collect();
            let mut writer = npyz::WriteOptions::<T>::new().default_dtype().shape(&shape).writer(w).begin_nd()?;
            writer.extend(t.view::<T>().expect("dtype checked").iter().copied())?;
            writer.finish()
        }
        let mut buffered = std::io::BufWriter::new(out);
        let file = &mut buffered;
        match self.dtype {
            DType::F16 => store::<half::f16>(self, file),
            DType::F32 => store::<f32>(self, file),
            DType::F64 => store::<f64>(self, file),
            DType::I8 => store::<i8>(self, file),
            DType::I16 => store::<i16>(self, file),
            DType::I32 => store::<i32>(self, file),
            DType::I64 => store::<i64>(self, file),
            DType::U8 => store::<u8>(self, file),
            DType::U16 => store::<u16>(self, file),
            DType::U32 => store::<u32>(self, file),
            DType::U64 => store::<u64>(self, file),
            DType::Bool => store::<bool>(self, file),
            DType::BF16 => return Err(RuntimeError::Npy("NumPy has no bfloat16; cast the output to float32".into())),
            other => {
                return Err(RuntimeError::Npy(format!(
                    "NumPy has no {other}; cast the output to float32 or a whole-byte integer"
                )))
            }
        }
        .map_err(error)?;
        std::io::Write::flush(&mut buffered).map_err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Zeroed buffers of any length (empty, within a block, across blocks, large enough for
    /// the allocator's fresh pages) are zero, 64-byte aligned and as long as asked; a clone
    /// is a copy.
    #[test]
    fn zeroed_bytes_are_zero_aligned_and_sized() {
        for len in [0, 1, 63, 64, 65, 4096 + 3, 5 << 20] {
            let mut bytes = AlignedBytes::zeroed(len);
            assert_eq!(bytes.len(), len);
            assert!(bytes.as_slice().iter().all(|&b| b == 0), "{len}");
            assert!((bytes.as_mut_ptr() as usize).is_multiple_of(64) || len == 0, "{len}");
            if len > 0 {
                bytes.as_mut_slice()[len - 1] = 7;
                let copy = bytes.clone();
                bytes.as_mut_slice()[0] ^= 1;
                assert_eq!(copy.as_slice()[len - 1], 7);
                assert_eq!(copy.as_slice()[0], u8::from(len == 1) * 7);
            }
        }
    }

    #[test]
    fn npy_files_are_written_whole_and_leave_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("y.npy");
        std::fs::write(&path, b"an older, longer file that must be replaced whole").unwrap();
        let tensor = Tensor::from_bytes(DType::F32, &[2], &[0, 0, 128, 63, 0, 0, 0, 64]).unwrap();
        tensor.write_npy(&path).unwrap();
        assert_eq!(Tensor::read_npy(&path).unwrap().to_f64(), vec![1.0, 2.0]);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("y.npy")]);
        // A dtype NumPy cannot hold fails before touching the file.
        let bf16 = Tensor::from_bytes(DType::BF16, &[1], &[0, 0]).unwrap();
        assert!(bf16.write_npy(&path).is_err());
        assert_eq!(Tensor::read_npy(&path).unwrap().to_f64(), vec![1.0, 2.0]);
    }

    #[test]
    fn small_floats_decode_to_the_known_values() {
        let value = |dtype, code: u8| Tensor::from_bytes(dtype, &[1], &[code]).unwrap().to_f64()[0];
        assert_eq!(value(DType::F8E4M3FN, 0x7E), 448.0);
        assert_eq!((value(DType::F8E8M0, 127), value(DType::F8E8M0, 0)), (1.0, 2f64.powi(-127)));
        assert!(value(DType::F8E8M0, 0xFF).is_nan());
        assert!(value(DType::F8E4M3FN, 0xFF).is_nan());
        assert_eq!(value(DType::F8E4M3FN, 0x01), 2f64.powi(-9));
        assert_eq!(value(DType::F8E4M3FNUZ, 0x7F), 240.0);
        assert!(value(DType::F8E4M3FNUZ, 0x80).is_nan());
        assert_eq!(value(DType::F8E5M2, 0x7B), 57344.0);
        assert_eq!(value(DType::F8E5M2, 0xFC), f64::NEG_INFINITY);
        assert_eq!(value(DType::F8E5M2FNUZ, 0x7F), 57344.0);
        assert_eq!(value(DType::F4E2M1, 0x7), 6.0);
        assert_eq!(value(DType::F4E2M1, 0xF), -6.0);
        assert_eq!(value(DType::I4, 0x9), -7.0);
        assert_eq!(value(DType::U2, 0x3), 3.0);
    }
}
