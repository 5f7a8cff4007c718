//! Fused elementwise programs: a flat, canonical list of steps over numbered inputs (never a
//! nested composition, which makes e-graphs explode; see `../shared/notes/egraph.md`). The
//! e-graph optimiser builds them; `sg.fused` carries one as text (`Display` / `FromStr`), and
//! the lowering emits one scalar body per step.

use crate::ScalarOp;
use std::fmt;

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
    pub steps: Vec<(ScalarOp, Vec<Arg>)>,
}

impl Program {
    /// One op over its inputs in order.
    pub fn single(op: ScalarOp) -> Program {
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
        let mut steps: Vec<(ScalarOp, Vec<Arg>)> = producer
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
        Program { inputs: operands.len(), steps }.merged(&operands)
    }

    /// The same program over `operands` (one per input) with the inputs that name the same
    /// value merged, keeping first occurrences: `mul(i0, i1)` over `(d, d)` is `mul(i0, i0)`
    /// over `(d)`, which reads `d` twice through one input (so a producer of `d` that nothing
    /// else reads can fuse into it). Returns the program and its operand list.
    pub fn merged<T: Copy + PartialEq>(mut self, operands: &[T]) -> (Program, Vec<T>) {
        let mut unique: Vec<T> = Vec::new();
        let mut map = Vec::with_capacity(operands.len());
        for value in operands {
            match unique.iter().position(|u| u == value) {
                Some(i) => map.push(i),
                None => {
                    map.push(unique.len());
                    unique.push(*value);
                }
            }
        }
        for (_, args) in &mut self.steps {
            for arg in args.iter_mut() {
                if let Arg::Input(i) = *arg {
                    *arg = Arg::Input(map[i]);
                }
            }
        }
        self.inputs = unique.len();
        (self, unique)
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
}

/// `relu(i0) exp(s0)`, `add(i0,i1) clip<0.0,6.0>(s0)`: each step's op, then its operands
/// (`iK` input K, `sK` step K's result), steps separated by a space.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (op, args)) in self.steps.iter().enumerate() {
            if index > 0 {
                f.write_str(" ")?;
            }
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::Input(i) => format!("i{i}"),
                    Arg::Step(s) => format!("s{s}"),
                })
                .collect();
            write!(f, "{op}({})", args.join(","))?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Program {
    type Err = String;

    /// Reads what `Display` writes and checks it: arities, inputs numbered densely from 0,
    /// steps reading only earlier steps, at least one step.
    fn from_str(text: &str) -> Result<Program, String> {
        let mut steps = Vec::new();
        let mut inputs = 0;
        for (index, step) in text.split_whitespace().enumerate() {
            let (op, args) = step
                .strip_suffix(')')
                .and_then(|s| s.rsplit_once('('))
                .ok_or_else(|| format!("step {index} '{step}' is not op(args)"))?;
            let op: ScalarOp = op.parse()?;
            let args: Vec<Arg> = args
                .split(',')
                .map(|a| {
                    let number = |n: &str| n.parse::<usize>().map_err(|_| format!("step {index}: bad operand '{a}'"));
                    match a.split_at_checked(1) {
                        Some(("i", n)) => number(n).map(Arg::Input),
                        Some(("s", n)) => match number(n)? {
                            s if s < index => Ok(Arg::Step(s)),
                            s => Err(format!("step {index} reads step {s}, which does not come before it")),
                        },
                        _ => Err(format!("step {index}: bad operand '{a}'")),
                    }
                })
                .collect::<Result<_, _>>()?;
            if args.len() != op.arity() {
                return Err(format!(
                    "step {index}: '{}' takes {} operands, got {}",
                    op.kind.name(),
                    op.arity(),
                    args.len()
                ));
            }
            for arg in &args {
                if let Arg::Input(i) = arg {
                    inputs = inputs.max(i + 1);
                }
            }
            steps.push((op, args));
        }
        if steps.is_empty() {
            return Err("a program has at least one step".into());
        }
        let program = Program { inputs, steps };
        let used: std::collections::BTreeSet<usize> = program
            .steps
            .iter()
            .flat_map(|(_, args)| args.iter().filter_map(|a| if let Arg::Input(i) = a { Some(*i) } else { None }))
            .collect();
        if used.len() != inputs {
            return Err(format!("the program's inputs are not numbered 0..{inputs} without gaps"));
        }
        Ok(program)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Elementwise;

    fn op(kind: Elementwise) -> ScalarOp {
        ScalarOp::new(kind)
    }

    #[test]
    fn compose_splices_operands_and_merges_duplicates() {
        // exp(relu(x)): one input, two steps.
        let (p, operands) =
            Program::single(op(Elementwise::Exp)).compose(&['r'], 0, &Program::single(op(Elementwise::Relu)), &['x']);
        assert_eq!(operands, vec!['x']);
        assert_eq!(p.to_string(), "relu(i0) exp(s0)");
        // add(t, y) with t = mul(x, y): y is one operand.
        let (q, operands) = Program::single(op(Elementwise::Add)).compose(
            &['t', 'y'],
            0,
            &Program::single(op(Elementwise::Mul)),
            &['x', 'y'],
        );
        assert_eq!(operands, vec!['x', 'y']);
        assert_eq!(q.to_string(), "mul(i0,i1) add(s0,i1)");
        // sub(a, t) with t = neg(b): the producer's operand lands where t was.
        let (r, operands) = Program::single(op(Elementwise::Sub)).compose(
            &['a', 't'],
            1,
            &Program::single(op(Elementwise::Neg)),
            &['b'],
        );
        assert_eq!(operands, vec!['a', 'b']);
        assert_eq!(r.to_string(), "neg(i1) sub(i0,s0)");
        assert_eq!(r.with_input_first(1).to_string(), "neg(i0) sub(i1,s0)");
        // mul(d, d): one value through two inputs is one input read twice.
        let (square, operands) = Program::single(op(Elementwise::Mul)).merged(&['d', 'd']);
        assert_eq!(operands, vec!['d']);
        assert_eq!(square.to_string(), "mul(i0,i0)");
    }

    #[test]
    fn programs_read_what_they_write() {
        for text in ["relu(i0) exp(s0)", "mul(i0,i1) add(s0,i2) clip<0.0,6.0>(s1)", "where(i0,i1,i2)"] {
            let p: Program = text.parse().unwrap();
            assert_eq!(p.to_string(), text);
        }
        assert_eq!("add(i0,i1) relu(s0)".parse::<Program>().unwrap().inputs, 2);
        for (bad, why) in [
            ("", "at least one step"),
            ("relu(i0,i1)", "takes 1 operands"),
            ("relu(s0)", "does not come before it"),
            ("relu(i1)", "without gaps"),
            ("relu", "is not op(args)"),
            ("frobnicate(i0)", "not an elementwise op"),
        ] {
            let error = bad.parse::<Program>().unwrap_err();
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
