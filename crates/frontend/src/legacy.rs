//! Older operator definitions (default-domain opsets 1 to 12), imported natively: before a node
//! is imported, [`Importer::upgrade`] rewrites an older definition into the one the import
//! routines implement, so each routine reads one form. Attributes that later became inputs
//! (Slice's starts/ends/axes, Pad's pads and value, Reshape's shape, Tile's tiles, Upsample's
//! scales) become constant inputs; `Upsample` and opset-10 `Resize` become `Resize` with the
//! coordinate mapping they had (asymmetric); the `broadcast`/`axis` attributes of opsets below 7
//! become an explicit reshape of the second operand; `Cast`'s string `to` becomes its number;
//! opset-1 `Concat`'s default axis is written out. Semantics that changed without a change of
//! form (Softmax, LogSoftmax and Hardmax coerce their input to 2-D below opset 13) are handled by
//! their routines, which read [`Importer::opset`].
//!
//! Attributes that no longer exist and change nothing at inference (`consumed_inputs`,
//! `is_test`, BatchNormalization's `momentum`) are ignored.

use crate::expand::{attr_i, attr_s};
use crate::fold::Folded;
use crate::import::{attribute, int, ints, operand, Constant, Entry, Importer};
use crate::onnx::{attribute_proto::AttributeType, tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use std::borrow::Cow;
use strata_ir::Error;

/// Arithmetic, comparison and logical ops whose opset 1 and 6 definitions broadcast by the
/// `broadcast` and `axis` attributes.
const LEGACY_BROADCAST: &[&str] = &["Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less", "And", "Or", "Xor"];

fn text(node: &NodeProto, name: &str) -> Option<String> {
    attribute(node, name).map(|a| String::from_utf8_lossy(a.s()).into_owned())
}

fn set_text(node: &mut NodeProto, name: &str, value: &str) {
    node.attribute.retain(|a| a.name() != name);
    node.attribute.push(attr_s(name, value));
}

fn set_int(node: &mut NodeProto, name: &str, value: i64) {
    node.attribute.retain(|a| a.name() != name);
    node.attribute.push(attr_i(name, value));
}

fn remove(node: &mut NodeProto, names: &[&str]) {
    node.attribute.retain(|a| !names.contains(&a.name()));
}

impl Importer<'_> {
    /// `node` in the definition the import routines implement (borrowed when it already is).
    pub(crate) fn upgrade<'n>(
        &mut self,
        block: &Block,
        node: &'n NodeProto,
        index: usize,
    ) -> Result<Cow<'n, NodeProto>, Error> {
        let v = self.opset;
        let op = node.op_type();
        let old = match op {
            "Slice" => v < 10,
            "Pad" => v < 11,
            "Reshape" => v < 5,
            "Cast" => v < 6,
            "Concat" => v < 4,
            "Tile" => v < 6,
            "Upsample" => true,
            "Resize" => v < 11,
            "BatchNormalization" => v < 9,
            "PRelu" => v < 7,
            _ => v < 7 && LEGACY_BROADCAST.contains(&op),
        };
        if !old {
            return Ok(Cow::Borrowed(node));
        }
        let mut n = node.clone();
        let first = || operand(node, 0).ok_or_else(|| Error::invalid_input("input #0 is missing"));
        match op {
            "Slice" => {
                // Opset 1: starts, ends and axes are attributes.
                let starts = ints(node, "starts").ok_or("Slice needs starts")?;
                let ends = ints(node, "ends").ok_or("Slice needs ends")?;
                let axes = ints(node, "axes");
                n.input.truncate(1);
                self.constant_input(&mut n, 1, Folded::from_i64(vec![starts.len() as i64], &starts));
                self.constant_input(&mut n, 2, Folded::from_i64(vec![ends.len() as i64], &ends));
                if let Some(axes) = axes {
                    self.constant_input(&mut n, 3, Folded::from_i64(vec![axes.len() as i64], &axes));
                }
                remove(&mut n, &["starts", "ends", "axes"]);
            }
            "Pad" => {
                // Opsets 1 and 2: pads (opset 1: paddings) and value are attributes.
                let pads = ints(node, "pads").or_else(|| ints(node, "paddings")).ok_or("Pad needs pads")?;
                let value = attribute(node, "value").map_or(0.0, |a| a.f() as f64);
                let (_, dtype) = self.shape_of(first()?)?;
                n.input.truncate(1);
                self.constant_input(&mut n, 1, Folded::from_i64(vec![pads.len() as i64], &pads));
                if value != 0.0 {
                    self.constant_input(&mut n, 2, Folded::scalar_of(dtype, value)?);
                }
                remove(&mut n, &["pads", "paddings", "value"]);
            }
            "Reshape" => {
                // Opset 1: the shape is an attribute.
                if let Some(shape) = ints(node, "shape") {
                    n.input.truncate(1);
                    self.constant_input(&mut n, 1, Folded::from_i64(vec![shape.len() as i64], &shape));
                    remove(&mut n, &["shape"]);
                }
            }
            "Cast" => {
                // Opset 1: `to` names the type ("FLOAT").
                if let Some(name) = attribute(node, "to").filter(|a| a.r#type() == AttributeType::String) {
                    let name = String::from_utf8_lossy(name.s()).to_uppercase();
                    let dtype = DataType::from_str_name(&name)
                        .ok_or_else(|| Error::invalid_input(format!("Cast to an unknown type '{name}'")))?;
                    set_int(&mut n, "to", dtype as i64);
                }
            }
            "Concat" => {
                // Opset 1: the axis defaults to 1.
                if attribute(node, "axis").is_none() {
                    set_int(&mut n, "axis", 1);
                }
            }
            "Tile" => {
                // Opset 1: inputs (input, tiles, axis): `tiles` copies along one `axis`.
                let (shape, _) = self.shape_of(first()?)?;
                let tiles = self.constant_ints(operand(node, 1).ok_or("Tile needs tiles")?)?;
                let axis = self.constant_ints(operand(node, 2).ok_or("Tile needs an axis")?)?;
                let (&[tiles], &[axis]) = (tiles.as_slice(), axis.as_slice()) else {
                    return Err("opset-1 Tile needs one tiles and one axis value".into());
                };
                let axis = crate::shapes::axis(axis, shape.len() as i64)?;
                let mut repeats = vec![1; shape.len()];
                repeats[axis] = tiles;
                n.input.truncate(1);
                self.constant_input(&mut n, 1, Folded::from_i64(vec![repeats.len() as i64], &repeats));
            }
            "Upsample" | "Resize" => {
                // Upsample (scales an attribute until opset 9, then an input) and opset-10
                // Resize: `Resize` with asymmetric coordinates. Nearest neighbours floor, as
                // Upsample specifies; opset-10 Resize rounds down when enlarging and up when
                // shrinking, as ONNX Runtime implements it.
                let scales = match attribute(node, "scales") {
                    Some(a) => a.floats.iter().map(|&s| s as f64).collect::<Vec<_>>(),
                    None => self
                        .folded(operand(node, 1).ok_or("Upsample needs scales")?)
                        .ok_or_else(|| Error::unsupported("scales computed at run time"))?
                        .floats()?,
                };
                let mode = match text(node, "mode").as_deref() {
                    None | Some("nearest") => "nearest",
                    Some("linear" | "bilinear") => "linear",
                    Some(other) => return Err(Error::unsupported(format!("{op} mode '{other}'"))),
                };
                n.op_type = Some("Resize".into());
                n.input.truncate(1);
                n.input.push(String::new());
                let count = scales.len() as i64;
                let values: Vec<u8> = scales.iter().flat_map(|&s| (s as f32).to_le_bytes()).collect();
                self.constant_input(&mut n, 2, Folded { shape: vec![count], dtype: DataType::Float, bytes: values });
                remove(&mut n, &["scales", "mode", "width_scale", "height_scale"]);
                set_text(&mut n, "mode", mode);
                set_text(&mut n, "coordinate_transformation_mode", "asymmetric");
                let shrinks = scales.iter().any(|&s| s < 1.0);
                set_text(&mut n, "nearest_mode", if op == "Resize" && shrinks { "ceil" } else { "floor" });
            }
            "PRelu" => {
                // Below opset 7 a 1-D slope of the channel count applies per channel (axis 1),
                // not to the trailing dimension.
                let (x, _) = self.shape_of(first()?)?;
                let slope_name = operand(node, 1).ok_or_else(|| Error::invalid_input("input #1 is missing"))?;
                let (slope, _) = self.shape_of(slope_name)?;
                if x.len() > 2 && slope.len() == 1 && slope[0] == x[1] && slope[0] != 1 {
                    let mut shape = vec![1; x.len() - 1];
                    shape[0] = slope[0];
                    n.input[1] = self.reshaped(block, node, index, slope_name, &shape)?;
                }
            }
            "BatchNormalization" => {
                // Below opset 9: `spatial` = 0 normalises per activation, not per channel.
                if int(node, "spatial", 1) == 0 {
                    return Err(Error::unsupported(
                        "BatchNormalization with spatial = 0 (per-activation statistics, opsets below 9)",
                    ));
                }
                let training = v < 7 && int(node, "is_test", 0) == 0;
                if training && node.output.iter().skip(1).any(|o| !o.is_empty()) {
                    return Err(Error::unsupported(
                        "BatchNormalization in training mode (is_test = 0 with the statistics outputs)",
                    ));
                }
                n.output.truncate(1);
                remove(&mut n, &["spatial", "is_test", "consumed_inputs"]);
            }
            _ => {
                // Opsets 1 and 6: broadcast = 1 lets the second operand match the first from
                // `axis` on (default: its trailing dimensions).
                if int(node, "broadcast", 0) != 0 {
                    let (a, _) = self.shape_of(first()?)?;
                    let b_name = operand(node, 1).ok_or_else(|| Error::invalid_input("input #1 is missing"))?;
                    let (b, _) = self.shape_of(b_name)?;
                    if b.len() < a.len() {
                        let axis = match attribute(node, "axis") {
                            Some(attr) => crate::shapes::axis(attr.i(), a.len() as i64)?,
                            None => a.len() - b.len(),
                        };
                        if axis + b.len() > a.len() {
                            return Err(format!("axis {axis} does not fit shape {b:?} into {a:?}").into());
                        }
                        let mut shape = vec![1; a.len()];
                        shape[axis..axis + b.len()].copy_from_slice(&b);
                        n.input[1] = self.reshaped(block, node, index, b_name, &shape)?;
                    }
                }
                remove(&mut n, &["broadcast", "axis", "consumed_inputs"]);
            }
        }
        Ok(Cow::Owned(n))
    }

    /// `value` reshaped to `shape` by a new Reshape node (folded when `value` is a constant);
    /// the name of the result.
    fn reshaped(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        value: &str,
        shape: &[i64],
    ) -> Result<String, Error> {
        let mut e = crate::expand::Expansion::new(block, node, index);
        let shape = e.ints(self, shape);
        e.op(self, "Reshape", &[value, &shape], vec![])
    }

    /// Makes input `slot` of `node` a new constant holding `value` (padding skipped inputs
    /// with "").
    fn constant_input(&mut self, node: &mut NodeProto, slot: usize, value: Folded) {
        let name = format!("{}::legacy{slot}.{}", node.output.first().map_or("", String::as_str), self.values.len());
        // An attribute of the model's own moved to an input: bounded by the file, so outside
        // the budget of computed constants.
        let Folded { shape, dtype, bytes } = value;
        self.values.insert(name.clone(), Entry::Constant(Constant { shape, dtype, bytes, value: None }));
        while node.input.len() <= slot {
            node.input.push(String::new());
        }
        node.input[slot] = name;
    }
}
