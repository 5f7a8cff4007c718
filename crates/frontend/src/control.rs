//! ONNX `Loop` whose trip count and condition are known at import time, unrolled: a static-shape
//! compiler needs the number of iterations anyway (it is the length of every scan output). Each
//! iteration imports the body graph again under its own names (`<loop node>/<i>/<name>`; names
//! from the enclosing graph pass through), binding the iteration number and the condition as
//! constants and the loop-carried values to the previous iteration's results. Scan outputs are
//! stacked along a new leading axis (Unsqueeze and Concat, which fold when constant). A
//! condition computed at run time, more than [`MAX_ITERATIONS`] iterations, or more than
//! [`MAX_UNROLLED_NODES`] unrolled nodes in all, is a clean error.

use crate::import::{attribute, node_name, operand, Constant, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, AttributeProto, NodeProto};
use melior::ir::Block;
use std::collections::BTreeMap;
use strata_ir::Error;

/// The most iterations a Loop is unrolled to.
pub(crate) const MAX_ITERATIONS: i64 = 4096;

/// The most body nodes all unrolled Loops of a model import together (nested loops multiply).
pub(crate) const MAX_UNROLLED_NODES: usize = 1 << 18;

impl Importer<'_> {
    pub(crate) fn unrolled_loop(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let body =
            attribute(node, "body").and_then(|a| a.g.as_ref()).ok_or("Loop needs a 'body' graph attribute")?.clone();
        let carried_in: Vec<String> = node.input.iter().skip(2).cloned().collect();
        let carried_count = carried_in.len();
        if body.input.len() != 2 + carried_count || body.output.len() < 1 + carried_count {
            return Err(format!(
                "the body takes {} inputs and gives {} outputs; a Loop with {carried_count} carried values needs {} inputs (iteration, condition, carried) and at least {} outputs",
                body.input.len(),
                body.output.len(),
                2 + carried_count,
                1 + carried_count
            ).into());
        }
        let scan_count = body.output.len() - 1 - carried_count;
        let trips = match operand(node, 0) {
            Some(name) => Some(self.folded(name).ok_or_else(|| Error::unsupported(format!("the trip count '{name}' is computed at run time (a Loop is unrolled at import: freeze the inputs it depends on with --freeze-input)")))?.ints()?.first().copied().ok_or("the trip count is empty")?),
            None => None,
        };
        let mut running = match operand(node, 1) {
            Some(name) => {
                self.folded(name)
                    .ok_or_else(|| {
                        Error::unsupported(format!(
                            "the loop condition '{name}' is computed at run time (a Loop is unrolled at import)"
                        ))
                    })?
                    .ints()?
                    .first()
                    .copied()
                    .ok_or("the loop condition is empty")?
                    != 0
            }
            None => true,
        };
        let limit = match trips {
            Some(n) if n > MAX_ITERATIONS => {
                return Err(Error::unsupported(format!(
                    "a Loop of {n} iterations (unrolled at import: at most {MAX_ITERATIONS})"
                )))
            }
            Some(n) => n.max(0),
            None if operand(node, 1).is_none() => {
                return Err("a Loop without trip count or condition never ends".into())
            }
            None => MAX_ITERATIONS + 1,
        };
        let prefix = node_name(node, index);
        let mut carried = carried_in;
        let mut scans: Vec<Vec<String>> = vec![Vec::new(); scan_count];
        let mut iteration = 0;
        while running && iteration < limit {
            if iteration == MAX_ITERATIONS {
                return Err(Error::unsupported(format!(
                    "the Loop's condition still holds after {MAX_ITERATIONS} iterations (unrolled at import)"
                )));
            }
            let scope = format!("{prefix}/{iteration}");
            let mut names: BTreeMap<String, String> = BTreeMap::new();
            let bound = |name: &str| format!("{scope}/{name}");
            // The iteration number and the condition, as constants.
            let number = bound(body.input[0].name());
            self.values.insert(
                number.clone(),
                Entry::Constant(Constant {
                    shape: vec![],
                    dtype: DataType::Int64,
                    bytes: iteration.to_le_bytes().to_vec(),
                    value: None,
                }),
            );
            names.insert(body.input[0].name().to_owned(), number);
            let condition = bound(body.input[1].name());
            self.values.insert(
                condition.clone(),
                Entry::Constant(Constant { shape: vec![], dtype: DataType::Bool, bytes: vec![1], value: None }),
            );
            names.insert(body.input[1].name().to_owned(), condition);
            for (k, input) in body.input.iter().skip(2).enumerate() {
                let name = bound(input.name());
                self.alias(&carried[k], name.clone())?;
                names.insert(input.name().to_owned(), name);
            }
            for tensor in &body.initializer {
                let name = bound(tensor.name());
                let constant = self.constant(tensor)?;
                self.values.insert(name.clone(), Entry::Constant(constant));
                names.insert(tensor.name().to_owned(), name);
            }
            self.unrolled_nodes += body.node.len();
            if self.unrolled_nodes > MAX_UNROLLED_NODES {
                return Err(Error::unsupported(format!(
                    "unrolling this Loop (and those around it) would import more than {MAX_UNROLLED_NODES} nodes"
                )));
            }
            for inner in &body.node {
                let mut renamed = inner.clone();
                for input in renamed.input.iter_mut().filter(|i| !i.is_empty()) {
                    if let Some(name) = names.get(input.as_str()) {
                        *input = name.clone();
                    }
                }
                for output in renamed.output.iter_mut().filter(|o| !o.is_empty()) {
                    let name = bound(output);
                    names.insert(output.clone(), name.clone());
                    *output = name;
                }
                renamed.name = Some(format!("{scope}/{}", inner.name()));
                self.node(block, &renamed, index)?;
            }
            let result = |k: usize| -> Result<String, Error> {
                let output = body.output[k].name();
                Ok(names.get(output).cloned().unwrap_or_else(|| output.to_owned()))
            };
            let condition = result(0)?;
            running = self
                .folded(&condition)
                .ok_or_else(|| {
                    Error::unsupported(format!(
                        "the Loop's condition '{}' is computed at run time (a Loop is unrolled at import)",
                        body.output[0].name()
                    ))
                })?
                .ints()?
                .first()
                .copied()
                .unwrap_or(0)
                != 0;
            carried = (0..carried_count).map(|k| result(1 + k)).collect::<Result<_, _>>()?;
            for (j, scan) in scans.iter_mut().enumerate() {
                scan.push(result(1 + carried_count + j)?);
            }
            iteration += 1;
        }
        for (k, value) in carried.iter().enumerate() {
            if let Some(output) = node.output.get(k).filter(|o| !o.is_empty()) {
                self.alias(value, output.clone())?;
            }
        }
        for (j, scan) in scans.iter().enumerate() {
            let Some(output) = node.output.get(carried_count + j).filter(|o| !o.is_empty()) else { continue };
            if scan.is_empty() {
                return Err(Error::unsupported(format!(
                    "scan output '{output}' of a Loop that runs no iteration (its element shape is unknown)"
                )));
            }
            // Each iteration's value gets a leading unit axis; the values are concatenated.
            let axes = format!("{prefix}/scan{j}/axes");
            self.values.insert(
                axes.clone(),
                Entry::Constant(Constant {
                    shape: vec![1],
                    dtype: DataType::Int64,
                    bytes: 0i64.to_le_bytes().to_vec(),
                    value: None,
                }),
            );
            let mut lifted = Vec::new();
            for (i, value) in scan.iter().enumerate() {
                let name = format!("{prefix}/scan{j}/{i}");
                let unsqueeze = NodeProto {
                    op_type: Some("Unsqueeze".into()),
                    input: vec![value.clone(), axes.clone()],
                    output: vec![name.clone()],
                    name: Some(name.clone()),
                    ..NodeProto::default()
                };
                self.node(block, &unsqueeze, index)?;
                lifted.push(name);
            }
            let axis = AttributeProto {
                name: Some("axis".into()),
                i: Some(0),
                r#type: Some(crate::onnx::attribute_proto::AttributeType::Int as i32),
                ..AttributeProto::default()
            };
            let concat = NodeProto {
                op_type: Some("Concat".into()),
                input: lifted,
                output: vec![output.clone()],
                name: Some(format!("{prefix}/scan{j}")),
                attribute: vec![axis],
                ..NodeProto::default()
            };
            self.node(block, &concat, index)?;
        }
        Ok(())
    }
}
