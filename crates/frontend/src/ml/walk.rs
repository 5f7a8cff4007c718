//! How a tree ensemble's rows reach their leaves: the nodes `[N, trees]` (i64) each row ends
//! at in each tree. Without set membership one `sg.tree_walk` kernel walks them, the forest
//! packed into one record per node; `BRANCH_MEMBER` forests are walked level by level in
//! default-domain ops (see the parent module).

use super::{Forest, Mode, Slot};
use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{node_name, tensor_type, Entry, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::{Block, BlockLike, Location};
use strata_dialect_sg as sg;
use strata_ir::Error;

/// What a walk reads: the forest, its rows `xs` (`[rows, features]` of type `compute`), the
/// levels to walk and the comparison modes present.
pub(super) struct Walking<'f> {
    forest: &'f Forest,
    xs: &'f str,
    compute: DataType,
    depth: usize,
    rows: i64,
    modes: std::collections::BTreeSet<Mode>,
}

impl<'f> Walking<'f> {
    /// Whether one `sg.tree_walk` kernel walks the rows (there is a comparison to make and no
    /// set membership); otherwise they are walked level by level in default-domain ops.
    pub(super) fn in_kernel(&self) -> bool {
        self.depth > 0 && !self.modes.is_empty() && !self.modes.contains(&Mode::Member)
    }

    pub(super) fn new(forest: &'f Forest, xs: &'f str, compute: DataType, depth: usize, rows: i64) -> Walking<'f> {
        let modes = forest
            .slots
            .iter()
            .filter_map(|s| if let Slot::Branch { mode, .. } = s { Some(*mode) } else { None })
            .collect();
        Walking { forest, xs, compute, depth, rows, modes }
    }
}

impl Importer<'_> {
    /// The nodes each row reaches after at most `depth` steps in each tree of the forest.
    pub(super) fn walk(
        &mut self,
        block: &Block,
        e: &mut Expansion,
        (node, index): (&NodeProto, usize),
        walking: &Walking,
    ) -> Result<String, Error> {
        if walking.in_kernel() {
            self.walk_kernel(block, e, (node, index), walking, None)
        } else {
            self.walk_levels(e, walking)
        }
    }

    /// The trees' leaf values `[N, K]` aggregated for each row, from `leaves` (`[nodes, K]`,
    /// the value of each node as a leaf) by `aggregate` (`sg.tree_walk`'s: 0 sum, 1 minimum,
    /// 2 maximum): one `sg.tree_walk` kernel, [`Walking::in_kernel`] must hold.
    pub(super) fn walk_scores(
        &mut self,
        block: &Block,
        e: &mut Expansion,
        (node, index): (&NodeProto, usize),
        walking: &Walking,
        (leaves, aggregate): (&str, i64),
    ) -> Result<String, Error> {
        self.walk_kernel(block, e, (node, index), walking, Some((leaves, aggregate)))
    }

    /// One `sg.tree_walk`: each node's record is its feature plus 2^32 times its flags (the
    /// comparison's code, 8 when NaN goes the true way), its split value's bits (an f32's in
    /// the low half), its children (a leaf's both itself). With `leaves` and an aggregate, the
    /// walk's aggregated leaf values, else the nodes reached.
    fn walk_kernel(
        &mut self,
        block: &Block,
        e: &mut Expansion,
        (node, index): (&NodeProto, usize),
        walking: &Walking,
        leaves: Option<(&str, i64)>,
    ) -> Result<String, Error> {
        let Walking { forest, xs, compute, depth, rows, ref modes } = *walking;
        let mut records = Vec::with_capacity(forest.slots.len() * 4);
        let mut nan_true = false;
        for (i, slot) in forest.slots.iter().enumerate() {
            let me = i as i64;
            records.extend(match slot {
                Slot::Branch { feature, split, mode, on_true, on_false, missing_true } => {
                    nan_true |= *missing_true;
                    let flags = *mode as i64 + 8 * i64::from(*missing_true);
                    let bits = if compute == DataType::Double {
                        split.to_bits() as i64
                    } else {
                        i64::from((*split as f32).to_bits())
                    };
                    [feature + (flags << 32), bits, *on_true as i64, *on_false as i64]
                }
                Slot::Leaf => [0, 0, me, me],
            });
        }
        let mask = modes.iter().fold(0i64, |m, &mode| m | 1 << mode as i64) | if nan_true { 0x100 } else { 0 };
        let trees = forest.roots.len() as i64;
        let roots: Vec<i64> = forest.roots.iter().map(|&r| r as i64).collect();
        let slots = forest.slots.len() as i64;
        let records = e.constant(self, Folded::from_i64(vec![slots, 4], &records))?;
        let roots = e.constant(self, Folded::from_i64(vec![trees], &roots))?;
        let context = self.strata.mlir();
        let location = Location::name(context, &node_name(node, index), Location::new(context, &self.file, index, 0));
        let x = self.use_value(block, xs, location)?.get();
        let records = self.use_value(block, &records, location)?.get();
        let roots = self.use_value(block, &roots, location)?.get();
        let (leaves, aggregate, shape, dtype) = match leaves {
            Some((leaves, aggregate)) => {
                let (shape, dtype) = self.shape_of(leaves)?;
                let leaves = self.use_value(block, leaves, location)?.get();
                (Some(leaves), Some(aggregate), vec![rows, shape[1]], dtype)
            }
            None => (None, None, vec![rows, trees], DataType::Int64),
        };
        let ty = tensor_type(context, &shape, dtype)?;
        let op = sg::TreeWalk::build(context, location, x, records, roots, leaves, depth as i64, mask, aggregate, ty);
        let op = block.append_operation(op);
        let name = format!("{}::tree_walk", node_name(node, index));
        let value: melior::ir::Value = op.result(0).map_err(|e| e.to_string())?.into();
        self.values.insert(name.clone(), Entry::Value { value: value.into(), shape, dtype });
        Ok(name)
    }

    /// The walk in default-domain ops, one level of the deepest tree at a time: positions
    /// `[N, trees]` from the roots; per level, gathers of each position's feature, split and
    /// children, the comparisons (one per mode present, masked by per-node mode flags when
    /// modes mix; set membership as an `Equal` per set column), the missing-value rule, a
    /// `Where`.
    fn walk_levels(&mut self, e: &mut Expansion, walking: &Walking) -> Result<String, Error> {
        let Walking { forest, xs, compute, depth, rows, ref modes } = *walking;
        let (slots, trees) = (forest.slots.len(), forest.roots.len() as i64);
        let roots_list: Vec<i64> = forest.roots.iter().map(|&r| r as i64).collect();
        let roots = e.constant(self, Folded::from_i64(vec![1, trees], &roots_list))?;
        let size = e.ints(self, &[rows, trees]);
        let mut at = e.op(self, "Expand", &[&roots, &size], vec![])?;
        let column = |pick: &dyn Fn(&Slot) -> f64| forest.slots.iter().map(pick).collect::<Vec<f64>>();
        let index_of = |values: Vec<f64>| {
            Folded::from_i64(vec![slots as i64], &values.iter().map(|&v| v as i64).collect::<Vec<_>>())
        };
        let feature = index_of(column(&|s| if let Slot::Branch { feature, .. } = s { *feature as f64 } else { 0.0 }));
        let on_true: Vec<f64> = (0..slots)
            .map(|i| if let Slot::Branch { on_true, .. } = &forest.slots[i] { *on_true as f64 } else { i as f64 })
            .collect();
        let on_false: Vec<f64> = (0..slots)
            .map(|i| if let Slot::Branch { on_false, .. } = &forest.slots[i] { *on_false as f64 } else { i as f64 })
            .collect();
        let split = column(&|s| if let Slot::Branch { split, .. } = s { *split } else { 0.0 });
        let missing: Vec<f64> = column(&|s| matches!(s, Slot::Branch { missing_true: true, .. }) as u8 as f64);
        let (feature, on_true, on_false) =
            (e.constant(self, feature)?, e.constant(self, index_of(on_true))?, e.constant(self, index_of(on_false))?);
        let split = e.constant(self, crate::fold::from_f64(vec![slots as i64], compute, &split)?)?;
        let flags = |e: &mut Expansion, this: &mut Self, values: Vec<f64>| {
            let bytes = values.iter().map(|&v| u8::from(v != 0.0)).collect();
            e.constant(this, Folded { shape: vec![slots as i64], dtype: DataType::Bool, bytes })
        };
        let is_mode: Vec<(Mode, String)> = if modes.len() > 1 {
            modes
                .iter()
                .map(|&m| {
                    let v = column(&|s| matches!(s, Slot::Branch { mode, .. } if *mode == m) as u8 as f64);
                    Ok((m, flags(e, self, v)?))
                })
                .collect::<Result<_, Error>>()?
        } else {
            Vec::new()
        };
        let missing = if missing.iter().any(|&m| m != 0.0) { Some(flags(e, self, missing)?) } else { None };
        // Member sets as K columns of values, NaN-padded (NaN never equals anything).
        let widest = forest.members.values().map(Vec::len).max().unwrap_or(0);
        let mut member_columns = Vec::new();
        for k in 0..widest {
            let v: Vec<f64> = (0..slots)
                .map(|i| forest.members.get(&i).and_then(|s| s.get(k)).copied().unwrap_or(f64::NAN))
                .collect();
            member_columns.push(e.constant(self, crate::fold::from_f64(vec![slots as i64], compute, &v)?)?);
        }
        for _ in 0..depth {
            let f = e.op(self, "Gather", &[&feature, &at], vec![])?;
            let v = e.op(self, "GatherElements", &[xs, &f], vec![attr_i("axis", 1)])?;
            let s = e.op(self, "Gather", &[&split, &at], vec![])?;
            let mut cond: Option<String> = None;
            for &m in modes {
                let mut c = if m == Mode::Member {
                    let mut any: Option<String> = None;
                    for column in &member_columns {
                        let value = e.op(self, "Gather", &[column, &at], vec![])?;
                        let hit = e.op(self, "Equal", &[&v, &value], vec![])?;
                        any = Some(match any {
                            Some(a) => e.op(self, "Or", &[&a, &hit], vec![])?,
                            None => hit,
                        });
                    }
                    any.ok_or("BRANCH_MEMBER nodes without sets")?
                } else {
                    let (op, negate) = m.op();
                    let c = e.op(self, op, &[&v, &s], vec![])?;
                    if negate {
                        e.op(self, "Not", &[&c], vec![])?
                    } else {
                        c
                    }
                };
                if let Some((_, flag)) = is_mode.iter().find(|(mode, _)| *mode == m) {
                    let here = e.op(self, "Gather", &[flag, &at], vec![])?;
                    c = e.op(self, "And", &[&here, &c], vec![])?;
                }
                cond = Some(match cond {
                    Some(a) => e.op(self, "Or", &[&a, &c], vec![])?,
                    None => c,
                });
            }
            let Some(mut cond) = cond else { break };
            if let Some(missing) = &missing {
                let nan = e.op(self, "IsNaN", &[&v], vec![])?;
                let tracks = e.op(self, "Gather", &[missing, &at], vec![])?;
                let both = e.op(self, "And", &[&nan, &tracks], vec![])?;
                cond = e.op(self, "Or", &[&cond, &both], vec![])?;
            }
            let t = e.op(self, "Gather", &[&on_true, &at], vec![])?;
            let f = e.op(self, "Gather", &[&on_false, &at], vec![])?;
            at = e.op(self, "Where", &[&cond, &t, &f], vec![])?;
        }
        Ok(at)
    }
}
