//! `strata-sg-kinds` is the `sg` dialect's op table as plain Rust, generated from
//! `dialects/sg/sg.irdl.mlir` by `strata-irdl-gen`: [`OpKind`] (every op with its operand
//! slots, attributes and class), [`Elementwise`] and [`Reduction`] (the ops of those classes),
//! [`ScalarOp`] (an elementwise op with its parameters), and [`Program`], the flat fused
//! elementwise program that `sg.fused` carries as text. It links no MLIR, so the e-graph
//! optimiser (`strata-egraph`) speaks the same op names as the dialect without depending on it.
//! It must never depend on MLIR or on any other Strata crate.

include!(concat!(env!("OUT_DIR"), "/kinds.rs"));

pub mod program;

pub use program::{Arg, Program};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_knows_every_op_and_its_class() {
        assert_eq!(OpKind::from_full_name("sg.conv2d"), Some(OpKind::Conv2d));
        assert_eq!(OpKind::from_full_name("linalg.generic"), None);
        assert_eq!(OpKind::Relu.elementwise(), Some(Elementwise::Relu));
        assert_eq!(OpKind::ReduceL2.reduction(), Some(Reduction::L2));
        assert!(OpKind::Transpose.is_view() && !OpKind::Conv2d.is_view());
        assert_eq!(Elementwise::Clip.params(), ["min", "max"]);
        assert_eq!(Elementwise::Where.form(), Form::Select);
        assert_eq!(Elementwise::Where.arity(), 3);
        for kind in OpKind::ALL {
            assert_eq!(OpKind::from_full_name(kind.full_name()), Some(*kind));
            assert!(!kind.doc().is_empty(), "{kind:?} has no documentation line in the IRDL file");
        }
        for e in Elementwise::ALL {
            assert_eq!(e.op().elementwise(), Some(*e));
            assert_eq!(e.op().attributes().len(), e.params().len());
        }
        let cast = OpKind::Cast.attributes();
        assert!(cast.iter().all(|a| a.optional) && cast.len() == 2, "{cast:?}");
    }

    #[test]
    fn scalar_ops_read_what_they_write() {
        for text in ["relu", "clip<0.0,6.0>", "leaky_relu<0.01>", "hard_sigmoid<0.2,0.5>", "gelu<1.0>"] {
            let op: ScalarOp = text.parse().unwrap();
            assert_eq!(op.to_string(), text);
        }
        let clip = ScalarOp::with(Elementwise::Clip, &[-1.5, 1e-7]);
        assert_eq!(clip.to_string().parse::<ScalarOp>().unwrap(), clip);
        assert_eq!(clip.param("max"), Some(1e-7));
        assert!("clip<1.0>".parse::<ScalarOp>().unwrap_err().contains("takes 2 parameters"));
        assert!("conv2d".parse::<ScalarOp>().unwrap_err().contains("not an elementwise op"));
    }
}
