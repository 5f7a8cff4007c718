//! Fused elementwise programs: a flat, canonical list of steps over numbered inputs (never a
//! nested composition, which makes e-graphs explode; see `../shared/notes/egraph.md`).

use crate::graph::EwOp;

/// Where a step's operand comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arg {
    /// The kernel's input `i`.
    Input(usize),
    /// The result of an earlier step.
    Step(usize),
}

/// A fused elementwise kernel: steps in order; the last step's result is the output.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Program {
    pub inputs: usize,
    pub steps: Vec<(EwOp, Vec<Arg>)>,
}

impl Program {
    /// One op over its inputs in order.
    pub fn single(op: EwOp) -> Program {
        Program { inputs: op.arity(), steps: vec![(op, (0..op.arity()).map(Arg::Input).collect())] }
    }

    /// `self` with input `k` replaced by `producer`'s output, for the operand list
    /// `outer[..k] ++ inner ++ outer[k+1..]`; then inputs that name the same value (equal
    /// entries of that list) are merged, keeping first occurrences. Returns the program and
    /// its operand list.
    pub fn compose<T: Copy + PartialEq>(
        &self,
        outer: &[T],
        k: usize,
        producer: &Program,
        inner: &[T],
    ) -> (Program, Vec<T>) {
        let mut operands: Vec<T> = Vec::new();
        operands.extend_from_slice(&outer[..k]);
        operands.extend_from_slice(inner);
        operands.extend_from_slice(&outer[k + 1..]);
        // Input i of the outer program, and of the producer, in the spliced operand list.
        let outer_input = |i: usize| if i < k { i } else { i - 1 + inner.len() };
        let inner_input = |i: usize| k + i;
        let mut steps: Vec<(EwOp, Vec<Arg>)> = producer
            .steps
            .iter()
            .map(|(op, args)| {
                (
                    *op,
                    args.iter()
                        .map(|a| match *a {
                            Arg::Input(i) => Arg::Input(inner_input(i)),
                            step => step,
                        })
                        .collect(),
                )
            })
            .collect();
        let produced = Arg::Step(producer.steps.len() - 1);
        let shift = producer.steps.len();
        steps.extend(self.steps.iter().map(|(op, args)| {
            (
                *op,
                args.iter()
                    .map(|a| match *a {
                        Arg::Input(i) if i == k => produced,
                        Arg::Input(i) => Arg::Input(outer_input(i)),
                        Arg::Step(s) => Arg::Step(s + shift),
                    })
                    .collect(),
            )
        }));
        // Merge duplicate operands.
        let mut unique: Vec<T> = Vec::new();
        let mut map = Vec::with_capacity(operands.len());
        for value in &operands {
            match unique.iter().position(|u| u == value) {
                Some(i) => map.push(i),
                None => {
                    map.push(unique.len());
                    unique.push(*value);
                }
            }
        }
        for (_, args) in &mut steps {
            for arg in args.iter_mut() {
                if let Arg::Input(i) = *arg {
                    *arg = Arg::Input(map[i]);
                }
            }
        }
        (Program { inputs: unique.len(), steps }, unique)
    }

    /// The same program with input `k` moved to position 0 (the others keep their order).
    pub fn with_input_first(&self, k: usize) -> Program {
        let position = |i: usize| {
            if i == k {
                0
            } else if i < k {
                i + 1
            } else {
                i
            }
        };
        Program {
            inputs: self.inputs,
            steps: self
                .steps
                .iter()
                .map(|(op, args)| {
                    (
                        *op,
                        args.iter()
                            .map(|a| match *a {
                                Arg::Input(i) => Arg::Input(position(i)),
                                step => step,
                            })
                            .collect(),
                    )
                })
                .collect(),
        }
    }

    /// Evaluates the program on one element of each input.
    pub fn eval(&self, inputs: &[f32]) -> f32 {
        let mut results: Vec<f32> = Vec::with_capacity(self.steps.len());
        for (op, args) in &self.steps {
            let value = |a: &Arg| match *a {
                Arg::Input(i) => inputs[i],
                Arg::Step(s) => results[s],
            };
            let a = value(&args[0]);
            let b = args.get(1).map_or(0.0, value);
            results.push(op.eval(a, b));
        }
        *results.last().expect("a program has a step")
    }

    /// `relu,exp` or `add(i0,i1),exp(s0)` (for reports and the `sg.fused` attribute).
    pub fn describe(&self) -> String {
        self.steps
            .iter()
            .map(|(op, args)| {
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Input(i) => format!("i{i}"),
                        Arg::Step(s) => format!("s{s}"),
                    })
                    .collect();
                let params = match *op {
                    EwOp::Clip { lo, hi } => format!("<{},{}>", f32::from_bits(lo), f32::from_bits(hi)),
                    EwOp::LeakyRelu { alpha } => format!("<{}>", f32::from_bits(alpha)),
                    EwOp::HardSigmoid { alpha, beta } => {
                        format!("<{},{}>", f32::from_bits(alpha), f32::from_bits(beta))
                    }
                    _ => String::new(),
                };
                format!("{}{params}({})", op.name(), args.join(","))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_splices_operands_and_merges_duplicates() {
        // exp(relu(x)): one input, two steps.
        let (p, operands) = Program::single(EwOp::Exp).compose(&['r'], 0, &Program::single(EwOp::Relu), &['x']);
        assert_eq!(operands, vec!['x']);
        assert_eq!(p.describe(), "relu(i0) exp(s0)");
        assert_eq!(p.eval(&[-1.0]), 1.0);
        // add(t, y) with t = mul(x, y): y is one operand.
        let (q, operands) =
            Program::single(EwOp::Add).compose(&['t', 'y'], 0, &Program::single(EwOp::Mul), &['x', 'y']);
        assert_eq!(operands, vec!['x', 'y']);
        assert_eq!(q.describe(), "mul(i0,i1) add(s0,i1)");
        assert_eq!(q.eval(&[2.0, 3.0]), 9.0);
        // sub(a, t) with t = neg(b): the producer's operand lands where t was.
        let (r, operands) = Program::single(EwOp::Sub).compose(&['a', 't'], 1, &Program::single(EwOp::Neg), &['b']);
        assert_eq!(operands, vec!['a', 'b']);
        assert_eq!(r.eval(&[1.0, 2.0]), 3.0);
        let first = r.with_input_first(1);
        assert_eq!(first.eval(&[2.0, 1.0]), 3.0);
    }
}
