//! ONNX tensors: element types as MLIR types, and the bytes of initializers and constants
//! (inline, typed fields, or external files).

use crate::import::{Constant, Importer};
use crate::onnx::{self, tensor_proto::DataType, TensorProto};
use crate::shapes;
use melior::ir::r#type::RankedTensorType;
use melior::ir::Type;
use strata_ir::Error;

pub(crate) fn element(context: &melior::Context, dtype: DataType) -> Result<Type<'_>, Error> {
    let name = match dtype {
        DataType::Float => "f32",
        DataType::Float16 => "f16",
        DataType::Bfloat16 => "bf16",
        DataType::Double => "f64",
        DataType::Int64 => "i64",
        DataType::Int32 => "i32",
        DataType::Int16 => "i16",
        DataType::Int8 => "i8",
        DataType::Uint64 => "ui64",
        DataType::Uint32 => "ui32",
        DataType::Uint16 => "ui16",
        DataType::Uint8 => "ui8",
        DataType::Bool => "i1",
        DataType::Int4 => "i4",
        DataType::Uint4 => "ui4",
        DataType::Int2 => "i2",
        DataType::Uint2 => "ui2",
        DataType::Float8e4m3fn => "f8E4M3FN",
        DataType::Float8e4m3fnuz => "f8E4M3FNUZ",
        DataType::Float8e5m2 => "f8E5M2",
        DataType::Float8e5m2fnuz => "f8E5M2FNUZ",
        DataType::Float4e2m1 => "f4E2M1FN",
        DataType::Float8e8m0 => "f8E8M0FNU",
        other => return Err(Error::unsupported(format!("element type {}", other.as_str_name()))),
    };
    Ok(Type::parse(context, name).expect("builtin scalar type"))
}

pub fn tensor_type<'c>(context: &'c melior::Context, shape: &[i64], dtype: DataType) -> Result<Type<'c>, Error> {
    let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    Ok(RankedTensorType::new(&dims, element(context, dtype)?, None).into())
}

/// The element bytes of a tensor stored in the model (raw or typed fields), little-endian and
/// row-major; external data is read by the importer.
/// The bits of an element type ONNX packs several to a byte, `None` for whole-byte types.
fn sub_byte_bits(dtype: DataType) -> Option<usize> {
    match dtype {
        DataType::Int4 | DataType::Uint4 | DataType::Float4e2m1 => Some(4),
        DataType::Int2 | DataType::Uint2 => Some(2),
        _ => None,
    }
}

/// Little-endian element bytes of a tensor's inline data. Sub-byte types (int4, uint4,
/// float4, int2, uint2), which ONNX packs two or four to a byte (low bits first), come out one
/// element per byte, zero-extended (how LLVM stores an `i4` or `i2`).
pub fn inline_bytes(tensor: &TensorProto, dtype: DataType) -> Result<Vec<u8>, Error> {
    if let Some(bits) = sub_byte_bits(dtype) {
        let packed: Vec<u8> = if tensor.raw_data.is_some() {
            tensor.raw_data().to_vec()
        } else {
            tensor.int32_data.iter().map(|&v| v as u8).collect()
        };
        let count = tensor
            .dims
            .iter()
            .try_fold(1usize, |n, &d| usize::try_from(d).ok().and_then(|d| n.checked_mul(d)))
            .ok_or_else(|| format!("tensor '{}' has invalid dimensions {:?}", tensor.name(), tensor.dims))?;
        let per_byte = 8 / bits;
        if packed.len() < count.div_ceil(per_byte) {
            return Err(format!(
                "tensor '{}' holds {} bytes, too few for {count} {}-bit values",
                tensor.name(),
                packed.len(),
                bits
            )
            .into());
        }
        let mask = (1u8 << bits) - 1;
        return Ok((0..count).map(|i| (packed[i / per_byte] >> (bits * (i % per_byte))) & mask).collect());
    }
    Ok(if tensor.raw_data.is_some() {
        tensor.raw_data().to_vec()
    } else {
        match dtype {
            DataType::Float => tensor.float_data.iter().flat_map(|f| f.to_le_bytes()).collect(),
            DataType::Double => tensor.double_data.iter().flat_map(|f| f.to_le_bytes()).collect(),
            DataType::Int64 => tensor.int64_data.iter().flat_map(|f| f.to_le_bytes()).collect(),
            DataType::Int32 => tensor.int32_data.iter().flat_map(|f| f.to_le_bytes()).collect(),
            DataType::Uint64 => tensor.uint64_data.iter().flat_map(|f| f.to_le_bytes()).collect(),
            DataType::Uint32 => tensor.uint64_data.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect(),
            DataType::Int8
            | DataType::Uint8
            | DataType::Bool
            | DataType::Float8e4m3fn
            | DataType::Float8e4m3fnuz
            | DataType::Float8e5m2
            | DataType::Float8e5m2fnuz
            | DataType::Float8e8m0 => tensor.int32_data.iter().map(|&v| v as u8).collect(),
            DataType::Float16 | DataType::Bfloat16 | DataType::Int16 | DataType::Uint16 => {
                tensor.int32_data.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect()
            }
            other => {
                return Err(Error::unsupported(format!(
                    "tensor '{}' has element type {}",
                    tensor.name(),
                    other.as_str_name()
                )))
            }
        }
    })
}

impl Importer<'_> {
    /// As [`Importer::constant`], for a tensor the importer owns: inline raw bytes of a whole-byte
    /// element type move into the constant instead of being copied.
    pub(crate) fn constant_owned(&self, mut tensor: TensorProto) -> Result<Constant, Error> {
        let inline = tensor.data_location() != onnx::tensor_proto::DataLocation::External;
        let whole_bytes = DataType::try_from(tensor.data_type()).is_ok_and(|d| sub_byte_bits(d).is_none());
        let raw = if inline && whole_bytes { tensor.raw_data.take() } else { None };
        self.constant_from(&tensor, raw)
    }

    /// Reads a tensor's element bytes (raw, typed fields, or an external file).
    pub(crate) fn constant(&self, tensor: &TensorProto) -> Result<Constant, Error> {
        self.constant_from(tensor, None)
    }

    /// [`Importer::constant`] with the tensor's inline raw bytes given apart (`raw`, taken out
    /// of `tensor` by [`Importer::constant_owned`]) or read from `tensor`.
    fn constant_from(&self, tensor: &TensorProto, raw: Option<Vec<u8>>) -> Result<Constant, Error> {
        let dtype = DataType::try_from(tensor.data_type())
            .map_err(|_| format!("tensor '{}' has an unknown data type", tensor.name()))?;
        let shape = tensor.dims.clone();
        let count = shapes::numel(&shape).map_err(|e| format!("tensor '{}': {e}", tensor.name()))?;
        let bytes: Vec<u8> = if tensor.data_location() == onnx::tensor_proto::DataLocation::External {
            let entry = |key: &str| tensor.external_data.iter().find(|e| e.key() == key).map(|e| e.value().to_owned());
            let location = entry("location")
                .ok_or_else(|| format!("tensor '{}' is external but names no location", tensor.name()))?;
            let expected = count as u64 * crate::fold::width(dtype) as u64;
            let number = |key: &str| -> Result<Option<u64>, Error> {
                entry(key)
                    .map(|v| {
                        v.parse::<u64>().map_err(|_| {
                            Error::invalid_input(format!(
                                "tensor '{}': external data {key} '{v}' is not a size",
                                tensor.name()
                            ))
                        })
                    })
                    .transpose()
            };
            let (offset, length) = (number("offset")?.unwrap_or(0), number("length")?.unwrap_or(expected));
            if length != expected {
                return Err(Error::invalid_input(format!(
                    "tensor '{}': external data of {length} bytes for shape {shape:?} ({expected} bytes)",
                    tensor.name()
                )));
            }
            let base = self.base_dir.clone().unwrap_or_else(|| std::path::PathBuf::from("."));
            read_external(&base, &location, offset, length).map_err(|why| {
                Error::invalid_input(format!("tensor '{}': external data '{location}': {why}", tensor.name()))
            })?
        } else {
            match raw {
                Some(raw) => raw,
                None => inline_bytes(tensor, dtype)?,
            }
        };
        if bytes.len() != count as usize * crate::fold::width(dtype) {
            return Err(
                format!("tensor '{}' has {} bytes of data for shape {shape:?}", tensor.name(), bytes.len()).into()
            );
        }
        Ok(Constant { shape, dtype, bytes, value: None })
    }
}

/// `length` bytes at `offset` of the external data file `location`, which must be a regular
/// file inside `base` (the model's directory, as ONNX Runtime requires): a model file is
/// untrusted, so an absolute path, a `..` or a symbolic link out of the directory, a device or
/// a FIFO (which would block the import) is refused, and the size is checked before reading.
fn read_external(base: &std::path::Path, location: &str, offset: u64, length: u64) -> Result<Vec<u8>, String> {
    use std::io::{Read, Seek, SeekFrom};
    use std::path::Component;
    let relative = std::path::Path::new(location);
    if relative.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err("the location must be a path inside the model's directory (no absolute path, no '..')".into());
    }
    // A model named without a directory (`strata run model.onnx`) has the empty path as its
    // parent: the current directory, which `canonicalize` does not take as empty.
    let base = if base.as_os_str().is_empty() { std::path::Path::new(".") } else { base };
    let base = base.canonicalize().map_err(|e| format!("the model's directory: {e}"))?;
    let path = base.join(relative).canonicalize().map_err(|e| e.to_string())?;
    if !path.starts_with(&base) {
        return Err(format!("it resolves to {}, outside the model's directory", path.display()));
    }
    let metadata = std::fs::metadata(&path).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".into());
    }
    let end = offset.checked_add(length).ok_or("offset + length overflows")?;
    if end > metadata.len() {
        return Err(format!("the file has {} bytes, the tensor needs bytes {offset}..{end}", metadata.len()));
    }
    let mut file = std::fs::File::open(&path).map_err(|e| e.to_string())?;
    file.seek(SeekFrom::Start(offset)).map_err(|e| e.to_string())?;
    let mut bytes = vec![0; length as usize];
    file.read_exact(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::read_external;

    /// External data stays inside the model's directory: a symbolic link out of it and a FIFO
    /// (which would block a plain read forever) are refused; a range inside a regular file reads.
    #[test]
    fn external_data_is_confined_to_regular_files_in_the_model_directory() {
        let root = std::env::temp_dir().join(format!("strata-external-{}", std::process::id()));
        let model = root.join("model");
        std::fs::create_dir_all(&model).unwrap();
        std::fs::write(root.join("secret"), b"secret!!").unwrap();
        std::fs::write(model.join("weights"), [1u8, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        std::os::unix::fs::symlink(root.join("secret"), model.join("link")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(model.join("fifo")).status().unwrap();
        assert!(fifo.success());

        assert_eq!(read_external(&model, "weights", 4, 4).unwrap(), vec![5, 6, 7, 8]);
        assert!(read_external(&model, "./weights", 0, 8).is_ok());
        let link = read_external(&model, "link", 0, 4).unwrap_err();
        assert!(link.contains("outside the model's directory"), "{link}");
        let pipe = read_external(&model, "fifo", 0, 4).unwrap_err();
        assert!(pipe.contains("not a regular file"), "{pipe}");
        let short = read_external(&model, "weights", 6, 4).unwrap_err();
        assert!(short.contains("the file has 8 bytes"), "{short}");
        let overflow = read_external(&model, "weights", u64::MAX, 2).unwrap_err();
        assert!(overflow.contains("overflows"), "{overflow}");
        for escape in ["../secret", "/etc/passwd", "sub/../../secret"] {
            let error = read_external(&model, escape, 0, 4).unwrap_err();
            assert!(error.contains("no absolute path, no '..'"), "{escape}: {error}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
