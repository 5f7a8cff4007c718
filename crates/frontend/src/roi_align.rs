//! `RoiAlign` (two-stage detectors: Mask R-CNN's box and mask heads), as ONNX's reference
//! computes it: every output bin averages (or takes the largest of) `sampling_ratio^2`
//! bilinear samples of its region's feature map, a sample outside `[-1, H] x [-1, W]` reading
//! zero and one inside clamped to the map. The samples' corners and weights are computed from
//! the run-time boxes as tensors, the corners read with GatherElements.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// `RoiAlign` of `X` `[N, C, H, W]` (f32) over `rois` `[R, 4]` (`x1, y1, x2, y2` in input
    /// coordinates, times `spatial_scale`) of the images `batch_indices` `[R]`: `Y` `[R, C,
    /// output_height, output_width]`, `mode` `avg` or `max`, `coordinate_transformation_mode`
    /// `half_pixel` (default) or `output_half_pixel`. A `sampling_ratio` of 0 (as many samples
    /// as each box's size asks, known only at run time) is not supported.
    pub(crate) fn roi_align(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, rois, batch_indices) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let ((x_shape, dtype), (roi_shape, roi_type), (b_shape, b_type)) =
            (self.shape_of(x)?, self.shape_of(rois)?, self.shape_of(batch_indices)?);
        let &[n, c, h, w] = &x_shape[..] else {
            return Err(Error::invalid_input(format!("X must be [N, C, H, W], got {x_shape:?}")));
        };
        let r = match (&roi_shape[..], &b_shape[..]) {
            (&[r, 4], &[b]) if b == r => r,
            _ => {
                return Err(Error::invalid_input(format!(
                    "rois must be [R, 4] and batch_indices [R], got {roi_shape:?} and {b_shape:?}"
                )))
            }
        };
        if dtype != DataType::Float || roi_type != dtype || b_type != DataType::Int64 {
            return Err(Error::unsupported(format!(
                "RoiAlign of {} X and rois, {} batch_indices (float and int64 are supported)",
                dtype.as_str_name(),
                b_type.as_str_name()
            )));
        }
        let text = |name: &str, default: &str| {
            attribute(node, name).map_or(default.to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned())
        };
        let max = match text("mode", "avg").as_str() {
            "avg" => false,
            "max" => true,
            other => return Err(Error::invalid_input(format!("mode '{other}' is not 'avg' or 'max'"))),
        };
        // Opset 10 had no attribute and behaved as output_half_pixel.
        let default_transform = if self.opset < 16 { "output_half_pixel" } else { "half_pixel" };
        let half_pixel = match text("coordinate_transformation_mode", default_transform).as_str() {
            "half_pixel" => true,
            "output_half_pixel" => false,
            other => {
                return Err(Error::invalid_input(format!(
                    "coordinate_transformation_mode '{other}' is not 'half_pixel' or 'output_half_pixel'"
                )))
            }
        };
        let (ph, pw) = (int(node, "output_height", 1), int(node, "output_width", 1));
        let ratio = int(node, "sampling_ratio", 0);
        let scale = attribute(node, "spatial_scale").map_or(1.0, |a| a.f());
        if ph < 1 || pw < 1 || ratio < 0 {
            return Err(Error::invalid_input(format!(
                "output {ph} x {pw} and sampling_ratio {ratio} must be positive"
            )));
        }
        if ratio == 0 {
            return Err(Error::unsupported(
                "RoiAlign with sampling_ratio 0 (samples per bin from each box's size at run time); give a positive sampling_ratio",
            ));
        }
        if n < 1 || h < 1 || w < 1 {
            return Err(Error::invalid_input(format!("X {x_shape:?} has no image to sample")));
        }
        let mut e = Expansion::new(block, node, index);
        let scalar = |e: &mut Expansion, this: &mut Self, value: f32| e.scalar(this, DataType::Float, f64::from(value));
        // Each box's corners in feature-map coordinates: [R, 1] each.
        let corner = |e: &mut Expansion, this: &mut Self, k: i64| -> Result<String, Error> {
            let (start, end, axis) = (e.ints(this, &[k]), e.ints(this, &[k + 1]), e.ints(this, &[1]));
            let value = e.op(this, "Slice", &[rois, &start, &end, &axis], vec![])?;
            let scale = scalar(e, this, scale)?;
            let value = e.op(this, "Mul", &[&value, &scale], vec![])?;
            if half_pixel {
                let half = scalar(e, this, 0.5)?;
                e.op(this, "Sub", &[&value, &half], vec![])
            } else {
                Ok(value)
            }
        };
        let (x1, y1, x2, y2) =
            (corner(&mut e, self, 0)?, corner(&mut e, self, 1)?, corner(&mut e, self, 2)?, corner(&mut e, self, 3)?);
        let extent = |e: &mut Expansion, this: &mut Self, from: &str, to: &str| -> Result<String, Error> {
            let size = e.op(this, "Sub", &[to, from], vec![])?;
            if half_pixel {
                Ok(size)
            } else {
                let one = scalar(e, this, 1.0)?;
                e.op(this, "Max", &[&size, &one], vec![])
            }
        };
        let (width, height) = (extent(&mut e, self, &x1, &x2)?, extent(&mut e, self, &y1, &y2)?);
        // Sample k of an axis of `bins` bins: `start + size / bins * (bin + (i + 0.5) / ratio)`.
        let samples = |e: &mut Expansion, this: &mut Self, start: &str, size: &str, bins: i64, shape: Vec<i64>| {
            let steps: Vec<f32> =
                (0..bins * ratio).map(|k| (k / ratio) as f32 + ((k % ratio) as f32 + 0.5) / ratio as f32).collect();
            let steps = e.constant(this, Folded::from_f32(shape, &steps))?;
            let bins = scalar(e, this, bins as f32)?;
            let bin = e.op(this, "Div", &[size, &bins], vec![])?;
            let offsets = e.op(this, "Mul", &[&bin, &steps], vec![])?;
            e.op(this, "Add", &[start, &offsets], vec![])
        };
        let (rows, columns) = (ph * ratio, pw * ratio);
        // [R, rows, 1] and [R, 1, columns] after a reshape of the [R, 1] corners.
        let column_shape = e.ints(self, &[r, 1, 1]);
        let y1 = e.op(self, "Reshape", &[&y1, &column_shape], vec![])?;
        let height = e.op(self, "Reshape", &[&height, &column_shape], vec![])?;
        let x1 = e.op(self, "Reshape", &[&x1, &column_shape], vec![])?;
        let width = e.op(self, "Reshape", &[&width, &column_shape], vec![])?;
        let sample_y = samples(&mut e, self, &y1, &height, ph, vec![1, rows, 1])?;
        let sample_x = samples(&mut e, self, &x1, &width, pw, vec![1, 1, columns])?;
        // Outside [-1, size] a sample reads zero; inside, clamped to the map, bilinear.
        let axis_parts = |e: &mut Expansion, this: &mut Self, v: &str, size: i64| -> Result<[String; 4], Error> {
            let (minus_one, limit) = (scalar(e, this, -1.0)?, scalar(e, this, size as f32)?);
            let low_ok = e.op(this, "GreaterOrEqual", &[v, &minus_one], vec![])?;
            let high_ok = e.op(this, "LessOrEqual", &[v, &limit], vec![])?;
            let inside = e.op(this, "And", &[&low_ok, &high_ok], vec![])?;
            let (zero, last) = (scalar(e, this, 0.0)?, scalar(e, this, (size - 1) as f32)?);
            let clamped = e.op(this, "Max", &[v, &zero], vec![])?;
            let clamped = e.op(this, "Min", &[&clamped, &last], vec![])?;
            let low = e.op(this, "Floor", &[&clamped], vec![])?;
            let at_end = e.op(this, "GreaterOrEqual", &[&low, &last], vec![])?;
            let one = scalar(e, this, 1.0)?;
            let next = e.op(this, "Add", &[&low, &one], vec![])?;
            let high = e.op(this, "Where", &[&at_end, &last, &next], vec![])?;
            let fraction = e.op(this, "Sub", &[&clamped, &low], vec![])?;
            Ok([inside, low, high, fraction])
        };
        let [y_in, y_low, y_high, ly] = axis_parts(&mut e, self, &sample_y, h)?;
        let [x_in, x_low, x_high, lx] = axis_parts(&mut e, self, &sample_x, w)?;
        let inside = e.op(self, "And", &[&y_in, &x_in], vec![])?;
        let inside = e.op(self, "Cast", &[&inside], vec![attr_i("to", DataType::Float as i64)])?;
        let one = scalar(&mut e, self, 1.0)?;
        let (hy, hx) = (e.op(self, "Sub", &[&one, &ly], vec![])?, e.op(self, "Sub", &[&one, &lx], vec![])?);
        // The image each box reads, its map flattened: [R, C, H * W].
        self.check_positions(block, node, index, batch_indices, n, "a batch index")?;
        let images = e.op(self, "Gather", &[x, batch_indices], vec![attr_i("axis", 0)])?;
        let flat = e.ints(self, &[r, c, h * w]);
        let images = e.op(self, "Reshape", &[&images, &flat], vec![])?;
        let samples_shape = e.ints(self, &[r, 1, rows * columns]);
        let spread = e.ints(self, &[r, c, rows * columns]);
        let width_value = scalar(&mut e, self, w as f32)?;
        let mut terms = Vec::new();
        for (row, row_weight) in [(&y_low, &hy), (&y_high, &ly)] {
            for (column, column_weight) in [(&x_low, &hx), (&x_high, &lx)] {
                let position = e.op(self, "Mul", &[row, &width_value], vec![])?;
                let position = e.op(self, "Add", &[&position, column], vec![])?;
                let position = e.op(self, "Cast", &[&position], vec![attr_i("to", DataType::Int64 as i64)])?;
                let position = e.op(self, "Reshape", &[&position, &samples_shape], vec![])?;
                let position = e.op(self, "Expand", &[&position, &spread], vec![])?;
                let values = e.op(self, "GatherElements", &[&images, &position], vec![attr_i("axis", 2)])?;
                let weight = e.op(self, "Mul", &[row_weight, column_weight], vec![])?;
                let weight = e.op(self, "Mul", &[&weight, &inside], vec![])?;
                let weight = e.op(self, "Reshape", &[&weight, &samples_shape], vec![])?;
                terms.push(e.op(self, "Mul", &[&values, &weight], vec![])?);
            }
        }
        let parts: Vec<&str> = terms.iter().map(String::as_str).collect();
        let combined = e.op(self, if max { "Max" } else { "Sum" }, &parts, vec![])?;
        let bins = e.ints(self, &[r, c, ph, ratio, pw, ratio]);
        let combined = e.op(self, "Reshape", &[&combined, &bins], vec![])?;
        let axes = e.ints(self, &[3, 5]);
        let pooled =
            e.op(self, if max { "ReduceMax" } else { "ReduceMean" }, &[&combined, &axes], vec![attr_i("keepdims", 0)])?;
        self.alias(&pooled, node.output[0].clone())
    }
}
