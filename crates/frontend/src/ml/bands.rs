//! Row bands: an `ai.onnx.ml` operator whose rows are independent and whose expansion holds
//! an intermediate as wide as a model constant (a support vector machine's kernel `[rows,
//! vectors]`) runs as a `Scan` over bands of rows, the operator imported once for a band in
//! the body, so that intermediate is `[band, vectors]` whatever the batch: a 100 000-row batch
//! against 1000 support vectors would otherwise hold 400 MB. The band is sized so the
//! intermediate fits [`BAND_BYTES`]: the divisor of the rows nearest below that size (at
//! least half of it), else that size and one shorter band imported after the `Scan`. Where the
//! operator reads a `Scaler`'s f32 rows, each band scales its own rows (the body starts with
//! the same `Scaler`), so the scaled rows are not made whole for it either. Each band runs the
//! same operations on its rows as the whole batch would on them, so results do not change.

use super::Scaled;
use crate::expand::{attr_floats, attr_graph, attr_i, Expansion};
use crate::import::{node_name, required, Importer};
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

/// The most bytes a band's widest f32 intermediate takes (a sixteenth of a core's L1 data
/// cache: the band's rows, its kernel rows and their products stay in it). On the zoo's
/// support vector machines 1-4 KB bands run as fast as the whole batch did, 1 KB ones 20%
/// slower.
const BAND_BYTES: i64 = 2048;

/// The rows of a band for `rows` rows and an intermediate `width` f32 wide, and whether one
/// band is all rows (no bands).
fn band_rows(rows: i64, width: i64) -> Option<i64> {
    let most = (BAND_BYTES / (4 * width.max(1))).max(1);
    if rows <= most {
        return None;
    }
    Some(((most / 2).max(1)..=most).rev().find(|b| rows % b == 0).unwrap_or(most))
}

/// A `Scaler` node (ai.onnx.ml) from `x` to `y` with `scaled`'s attributes.
fn scaler_node(name: String, x: &str, y: &str, scaled: &Scaled) -> NodeProto {
    let mut attribute = Vec::new();
    if !scaled.offset.is_empty() {
        attribute.push(attr_floats("offset", &scaled.offset));
    }
    if !scaled.scale.is_empty() {
        attribute.push(attr_floats("scale", &scaled.scale));
    }
    NodeProto {
        op_type: Some("Scaler".into()),
        domain: Some("ai.onnx.ml".into()),
        name: Some(name),
        input: vec![x.to_owned()],
        output: vec![y.to_owned()],
        attribute,
        ..Default::default()
    }
}

impl Importer<'_> {
    /// Imports `node` (its first input X `[rows, features]`, its rows independent, each of its
    /// outputs one row per row of X) in bands of rows where its widest intermediate,
    /// `[rows, width]` f32, is over [`BAND_BYTES`] (see the module's notes); `Ok(false)`, nothing
    /// imported, where one band would hold every row or the import keeps rows whole
    /// ([`crate::ImportOptions::whole_rows`]).
    pub(super) fn in_row_bands(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        width: i64,
    ) -> Result<bool, Error> {
        let x = required(node, 0)?;
        let (shape, _) = self.shape_of(x)?;
        let [rows, features] = shape[..] else { return Ok(false) };
        let Some(band) = band_rows(rows, width).filter(|_| !self.whole_rows) else { return Ok(false) };
        let (bands, tail) = (rows / band, rows % band);
        // Each band scales its own rows where X is a Scaler's.
        let scaled = self.scalers.get(x).cloned();
        let input = scaled.as_ref().map_or_else(|| x.to_owned(), |s| s.input.clone());
        let prefix = format!("{}::band", node_name(node, index));
        let mut e = Expansion::new(block, node, index);
        let axes = e.ints(self, &[0]);
        let head = if tail == 0 {
            input.clone()
        } else {
            let (start, end) = (e.ints(self, &[0]), e.ints(self, &[bands * band]));
            e.op(self, "Slice", &[&input, &start, &end, &axes], vec![])?
        };
        let stacked_shape = e.ints(self, &[bands, band, features]);
        let stacked = e.op(self, "Reshape", &[&head, &stacked_shape], vec![])?;
        // The body: the operator on one band's rows, after the Scaler where there is one.
        let outputs: Vec<usize> = (0..node.output.len()).filter(|&k| !node.output[k].is_empty()).collect();
        let band_input = format!("{prefix}/x");
        let mut nodes = Vec::new();
        let read = match &scaled {
            Some(s) => {
                let y = format!("{prefix}/scaled");
                nodes.push(scaler_node(format!("{prefix}/scaler"), &band_input, &y, s));
                y
            }
            None => band_input.clone(),
        };
        let mut inner = node.clone();
        inner.name = Some(format!("{prefix}/{}", node_name(node, index)));
        inner.input[0] = read;
        let band_outputs: Vec<String> = outputs.iter().map(|k| format!("{prefix}/y{k}")).collect();
        inner.output = (0..node.output.len())
            .map(|k| outputs.iter().position(|&o| o == k).map_or_else(String::new, |p| band_outputs[p].clone()))
            .collect();
        nodes.push(inner);
        let outputs_of_body: Vec<&String> = band_outputs.iter().collect();
        let body = attr_graph("body", format!("{prefix}/graph"), nodes, &[&band_input], &outputs_of_body);
        let results = e.op_n(self, "Scan", &[&stacked], vec![body, attr_i("num_scan_inputs", 1)], outputs.len())?;
        // The rows after the last whole band: the operator once more, on them alone.
        let tail_results = if tail > 0 {
            let (start, end) = (e.ints(self, &[bands * band]), e.ints(self, &[rows]));
            let mut rest = e.op(self, "Slice", &[&input, &start, &end, &axes], vec![])?;
            if let Some(s) = &scaled {
                let (y, name) = (e.fresh_name("tail_scaled"), e.fresh_name("tail_scaler"));
                e.import(self, &scaler_node(name, &rest, &y, s))?;
                rest = y;
            }
            let mut last = node.clone();
            last.name = Some(e.fresh_name("tail"));
            last.input[0] = rest;
            let names: Vec<String> = outputs.iter().map(|k| e.fresh_name(&format!("tail_y{k}"))).collect();
            last.output = (0..node.output.len())
                .map(|k| outputs.iter().position(|&o| o == k).map_or_else(String::new, |p| names[p].clone()))
                .collect();
            e.import(self, &last)?;
            Some(names)
        } else {
            None
        };
        for (p, &k) in outputs.iter().enumerate() {
            let (stacked_shape, _) = self.shape_of(&results[p])?;
            let mut merged = vec![bands * band];
            merged.extend_from_slice(&stacked_shape[2..]);
            let merged_shape = e.ints(self, &merged);
            let mut y = e.op(self, "Reshape", &[&results[p], &merged_shape], vec![])?;
            if let Some(tails) = &tail_results {
                y = e.op(self, "Concat", &[&y, &tails[p]], vec![attr_i("axis", 0)])?;
            }
            self.alias(&y, node.output[k].clone())?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::band_rows;

    #[test]
    fn bands_divide_the_rows_or_leave_one_short_band() {
        // 96 support vectors: at most 5 rows a band; 64 rows in bands of 4.
        assert_eq!(band_rows(64, 96), Some(4));
        // A prime batch: bands of 5 and one of 2.
        assert_eq!(band_rows(67, 96), Some(5));
        // One band would hold every row: none.
        assert_eq!(band_rows(5, 96), None);
        // Wider than the budget for one row: one row a band.
        assert_eq!(band_rows(5, 4096), Some(1));
    }
}
