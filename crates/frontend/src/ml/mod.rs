//! The `ai.onnx.ml` operators Strata imports: the numeric ones that classical models converted
//! from scikit-learn, XGBoost or LightGBM carry (`skl2onnx`, `onnxmltools`): here the tree
//! ensembles (`TreeEnsemble`, `TreeEnsembleRegressor`, `TreeEnsembleClassifier`), in [`svm`]
//! the support vector machines, in [`linear`]
//! the linear models and the small transforms. Each is expanded into default-domain ops, as
//! composite operators are.
//!
//! A tree ensemble's rows reach their leaves in [`walk`]: one `sg.tree_walk` kernel over the
//! forest packed into a record per node, or (with `BRANCH_MEMBER` sets) every sample and tree
//! at once, one level of the deepest tree at a time, in default-domain ops; either way a leaf's
//! children are itself, so walks that end early stay put. The leaves' weights, a `[nodes,
//! targets]` table, are aggregated over the trees by the walk kernel itself (no `[N, trees]`
//! buffer of the leaves reached), or gathered with the leaves reached and reduced where those
//! are needed anyway (set membership, a classifier's vote mask). All of it is static: shapes
//! come from the attributes and the input's batch size.
//! A missing value (NaN) takes the true branch where `nodes_missing_value_tracks_true` says
//! so and is otherwise compared like any value (as ONNX Runtime does; ONNX's reference
//! `TreeEnsembleRegressor` sends it to the false branch of a `BRANCH_NEQ` too). A regression
//! target that no leaf a row reaches names is 0, its base value not added, as ONNX Runtime
//! writes it (ONNX's reference adds the base value, and gives MIN and MAX the float extremes).

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, ints, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use std::collections::BTreeMap;
use strata_ir::Error;

mod bands;
mod encode;
mod linear;
mod svm;
mod unscale;
mod walk;

pub(crate) use unscale::Scaled;

/// How a branch node compares its feature `x` with its split value `s` (ONNX's
/// `nodes_modes`, in the numbering of the opset-5 `TreeEnsemble`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    Leq,
    Lt,
    Gte,
    Gt,
    Eq,
    Neq,
    Member,
}

impl Mode {
    fn from_code(code: i64) -> Option<Mode> {
        Some(match code {
            0 => Mode::Leq,
            1 => Mode::Lt,
            2 => Mode::Gte,
            3 => Mode::Gt,
            4 => Mode::Eq,
            5 => Mode::Neq,
            6 => Mode::Member,
            _ => return None,
        })
    }

    /// A `TreeEnsembleRegressor`/`Classifier` mode name; `None` for a leaf.
    fn from_name(name: &str) -> Result<Option<Mode>, Error> {
        Ok(Some(match name {
            "BRANCH_LEQ" => Mode::Leq,
            "BRANCH_LT" => Mode::Lt,
            "BRANCH_GTE" => Mode::Gte,
            "BRANCH_GT" => Mode::Gt,
            "BRANCH_EQ" => Mode::Eq,
            "BRANCH_NEQ" => Mode::Neq,
            "LEAF" => return Ok(None),
            other => return Err(format!("unknown node mode '{other}' in nodes_modes").into()),
        }))
    }

    /// The default-domain comparison `x op s` (Member is an `Equal` per set value).
    fn op(self) -> (&'static str, bool) {
        match self {
            Mode::Leq => ("LessOrEqual", false),
            Mode::Lt => ("Less", false),
            Mode::Gte => ("GreaterOrEqual", false),
            Mode::Gt => ("Greater", false),
            Mode::Eq | Mode::Member => ("Equal", false),
            Mode::Neq => ("Equal", true),
        }
    }
}

/// How the trees' leaf values for one target combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Aggregate {
    Average,
    Sum,
    Min,
    Max,
}

/// One slot of the flattened forest: a branch or a leaf, children as slot positions.
#[derive(Clone, Debug)]
enum Slot {
    Branch { feature: i64, split: f64, mode: Mode, on_true: usize, on_false: usize, missing_true: bool },
    Leaf,
}

/// From this many tree-ensemble nodes in a model on, each forest is padded to a shared shape
/// ([`Forest::pad_for_sharing`]).
const SHARED_WALKS: usize = 8;

/// The fewest slots a padded forest has: its leaf table (4 bytes a slot) then reaches the
/// 64 bytes from which a constant goes into the weights blob (a view at an offset, shareable)
/// rather than staying a global of its own.
const SHARED_SLOTS: usize = 16;

/// A tree ensemble in one form, whichever operator it came from.
struct Forest {
    slots: Vec<Slot>,
    /// Each leaf slot's (target, weight) entries.
    weights: BTreeMap<usize, Vec<(usize, f64)>>,
    /// Each branch slot's set (BRANCH_MEMBER).
    members: BTreeMap<usize, Vec<f64>>,
    roots: Vec<usize>,
    targets: usize,
    aggregate: Aggregate,
    base: Vec<f64>,
    post: String,
}

/// A float list attribute given as `name` (floats), or as a tensor (`name_as_tensor`, or
/// `name` itself holding a tensor).
pub(super) fn float_list(importer: &Importer, node: &NodeProto, names: &[&str]) -> Result<Option<Vec<f64>>, Error> {
    for name in names {
        let Some(a) = attribute(node, name) else { continue };
        if let Some(t) = a.t.as_ref() {
            let c = importer.constant(t)?;
            return Ok(Some(Folded { shape: c.shape, dtype: c.dtype, bytes: c.bytes }.floats()?));
        }
        if !a.floats.is_empty() {
            return Ok(Some(a.floats.iter().map(|&f| f as f64).collect()));
        }
        return Ok(Some(a.ints.iter().map(|&i| i as f64).collect()));
    }
    Ok(None)
}

pub(super) fn string(node: &NodeProto, name: &str, default: &str) -> String {
    attribute(node, name).map_or(default.to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned())
}

pub(super) fn need<T>(value: Option<T>, name: &str) -> Result<T, Error> {
    value.ok_or_else(|| format!("attribute {name} is missing").into())
}

fn check_len(name: &str, len: usize, expected: usize) -> Result<(), Error> {
    if len != expected {
        return Err(format!("attribute {name} has {len} values, expected {expected} (one per node)").into());
    }
    Ok(())
}

/// A classifier's integer class labels (`ints_name`: `classlabels_int64s` or
/// `classlabels_ints`); string labels are unsupported.
pub(super) fn integer_labels(node: &NodeProto, ints_name: &str) -> Result<Vec<i64>, Error> {
    if attribute(node, "classlabels_strings").is_some_and(|a| !a.strings.is_empty()) {
        return Err(Error::unsupported(format!(
            "string class labels (classlabels_strings): Strata has no string tensors; convert the model with \
             integer labels ({ints_name})"
        )));
    }
    need(ints(node, ints_name).filter(|l| !l.is_empty()), ints_name)
}

/// The post transforms Strata imports; the others are unsupported.
pub(super) fn check_post(post: &str) -> Result<(), Error> {
    if !matches!(post, "NONE" | "LOGISTIC" | "SOFTMAX") {
        return Err(Error::unsupported(format!("post_transform {post} (NONE, LOGISTIC and SOFTMAX are imported)")));
    }
    Ok(())
}

/// The rows and features of an input `[N, features]` (or `[features]`: one row).
fn rows_and_features(shape: &[i64]) -> Result<(i64, i64), Error> {
    match *shape {
        [n, f] => Ok((n, f)),
        [f] => Ok((1, f)),
        _ => Err(format!("X must be [N, features], got {shape:?}").into()),
    }
}

impl Forest {
    /// The opset-5 `TreeEnsemble`: branch nodes and leaves in separate arrays, children as
    /// positions in one or the other. Leaves become the slots after the branches.
    fn from_tree_ensemble(importer: &Importer, node: &NodeProto) -> Result<Forest, Error> {
        let splits = need(float_list(importer, node, &["nodes_splits"])?, "nodes_splits")?;
        let n = splits.len();
        let get = |name: &str| -> Result<Vec<i64>, Error> {
            let v = need(ints(node, name), name)?;
            check_len(name, v.len(), n)?;
            Ok(v)
        };
        let (features, true_ids, false_ids) =
            (get("nodes_featureids")?, get("nodes_truenodeids")?, get("nodes_falsenodeids")?);
        let (true_leaf, false_leaf) = (
            ints(node, "nodes_trueleafs").unwrap_or_else(|| vec![0; n]),
            ints(node, "nodes_falseleafs").unwrap_or_else(|| vec![0; n]),
        );
        check_len("nodes_trueleafs", true_leaf.len(), n)?;
        check_len("nodes_falseleafs", false_leaf.len(), n)?;
        let modes = need(float_list(importer, node, &["nodes_modes"])?, "nodes_modes")?;
        check_len("nodes_modes", modes.len(), n)?;
        let missing = float_list(importer, node, &["nodes_missing_value_tracks_true"])?.unwrap_or_else(|| vec![0.0; n]);
        check_len("nodes_missing_value_tracks_true", missing.len(), n)?;
        let leaf_targets = need(ints(node, "leaf_targetids"), "leaf_targetids")?;
        let leaf_weights = need(float_list(importer, node, &["leaf_weights"])?, "leaf_weights")?;
        if leaf_weights.len() != leaf_targets.len() {
            return Err(format!(
                "leaf_weights has {} values and leaf_targetids {}: one of each per leaf",
                leaf_weights.len(),
                leaf_targets.len()
            )
            .into());
        }
        let targets =
            usize::try_from(int(node, "n_targets", 0)).ok().filter(|&t| t > 0).ok_or("n_targets must be positive")?;
        let leaves = leaf_weights.len();
        let child = |id: i64, leaf: i64, what: &str, at: usize| -> Result<usize, Error> {
            let (limit, base) = if leaf != 0 { (leaves, n) } else { (n, 0) };
            usize::try_from(id).ok().filter(|&i| i < limit).map(|i| base + i).ok_or_else(|| {
                let kind = if leaf != 0 { "leaf" } else { "node" };
                format!("node {at}'s {what} child {id} is not a {kind} (there are {limit})").into()
            })
        };
        let mut slots = Vec::with_capacity(n + leaves);
        let mut members = BTreeMap::new();
        let mut sets = float_list(importer, node, &["membership_values"])?.unwrap_or_default().into_iter();
        for i in 0..n {
            let mode =
                Mode::from_code(modes[i] as i64).ok_or_else(|| format!("node {i} has unknown mode {}", modes[i]))?;
            if mode == Mode::Member {
                // Each member node's set is the next run of values before a NaN.
                let set: Vec<f64> = sets.by_ref().take_while(|v| !v.is_nan()).collect();
                if set.is_empty() {
                    return Err(format!("node {i} is BRANCH_MEMBER but membership_values has no set for it").into());
                }
                members.insert(i, set);
            }
            slots.push(Slot::Branch {
                feature: features[i],
                split: splits[i],
                mode,
                on_true: child(true_ids[i], true_leaf[i], "true", i)?,
                on_false: child(false_ids[i], false_leaf[i], "false", i)?,
                missing_true: missing[i] != 0.0,
            });
        }
        let mut weights = BTreeMap::new();
        for (j, (&target, &weight)) in leaf_targets.iter().zip(&leaf_weights).enumerate() {
            let t = usize::try_from(target)
                .ok()
                .filter(|&t| t < targets)
                .ok_or_else(|| format!("leaf {j}'s target {target} is outside n_targets {targets}"))?;
            slots.push(Slot::Leaf);
            weights.insert(n + j, vec![(t, weight)]);
        }
        let roots = need(ints(node, "tree_roots"), "tree_roots")?
            .iter()
            .map(|&r| {
                let root =
                    usize::try_from(r).ok().filter(|&r| r < n).ok_or_else(|| format!("tree root {r} is not a node"))?;
                // A tree that is one leaf: a root whose children are the same leaf.
                match &slots[root] {
                    Slot::Branch { on_true, on_false, .. } if on_true == on_false && *on_true >= n => Ok(*on_true),
                    _ => Ok(root),
                }
            })
            .collect::<Result<Vec<usize>, Error>>()?;
        let aggregate = match int(node, "aggregate_function", 1) {
            0 => Aggregate::Average,
            1 => Aggregate::Sum,
            2 => Aggregate::Min,
            3 => Aggregate::Max,
            other => return Err(format!("unknown aggregate_function {other}").into()),
        };
        let post = match int(node, "post_transform", 0) {
            0 => "NONE",
            1 => "SOFTMAX",
            2 => "LOGISTIC",
            3 => "SOFTMAX_ZERO",
            4 => "PROBIT",
            other => return Err(format!("unknown post_transform {other}").into()),
        };
        Ok(Forest { slots, weights, members, roots, targets, aggregate, base: Vec::new(), post: post.to_owned() })
    }

    /// `TreeEnsembleRegressor` and `TreeEnsembleClassifier` (ai.onnx.ml 1 and 3): nodes named
    /// by (tree id, node id), leaves marked `LEAF`, each leaf's weights listed by (tree id, node
    /// id, target or class): `votes` is `target` or `class`, the attributes' prefix.
    fn from_ids(importer: &Importer, node: &NodeProto, votes: &str) -> Result<Forest, Error> {
        let trees = need(ints(node, "nodes_treeids"), "nodes_treeids")?;
        let n = trees.len();
        let get = |name: &str| -> Result<Vec<i64>, Error> {
            let v = need(ints(node, name), name)?;
            check_len(name, v.len(), n)?;
            Ok(v)
        };
        let (ids, features) = (get("nodes_nodeids")?, get("nodes_featureids")?);
        let (true_ids, false_ids) = (get("nodes_truenodeids")?, get("nodes_falsenodeids")?);
        let values = need(float_list(importer, node, &["nodes_values_as_tensor", "nodes_values"])?, "nodes_values")?;
        check_len("nodes_values", values.len(), n)?;
        let modes = need(attribute(node, "nodes_modes"), "nodes_modes")?;
        check_len("nodes_modes", modes.strings.len(), n)?;
        let missing =
            ints(node, "nodes_missing_value_tracks_true").filter(|m| !m.is_empty()).unwrap_or_else(|| vec![0; n]);
        check_len("nodes_missing_value_tracks_true", missing.len(), n)?;
        let mut position = BTreeMap::new();
        for (i, key) in trees.iter().zip(&ids).enumerate() {
            if position.insert(key, i).is_some() {
                return Err(format!("node {i}: tree {} has two nodes with id {}", key.0, key.1).into());
            }
        }
        let child = |tree: i64, id: i64, at: usize| -> Result<usize, Error> {
            position
                .get(&(&tree, &id))
                .copied()
                .ok_or_else(|| format!("node {at}'s child {id} is not a node of tree {tree}").into())
        };
        let mut slots = Vec::with_capacity(n);
        for i in 0..n {
            let mode = Mode::from_name(&String::from_utf8_lossy(&modes.strings[i]))?;
            slots.push(match mode {
                None => Slot::Leaf,
                Some(mode) => Slot::Branch {
                    feature: features[i],
                    split: values[i],
                    mode,
                    on_true: child(trees[i], true_ids[i], i)?,
                    on_false: child(trees[i], false_ids[i], i)?,
                    missing_true: missing[i] != 0,
                },
            });
        }
        let targets = if votes == "class" {
            integer_labels(node, "classlabels_int64s")?.len()
        } else {
            usize::try_from(int(node, "n_targets", 1)).ok().filter(|&t| t > 0).ok_or("n_targets must be positive")?
        };
        let named = |what: &str| format!("{votes}_{what}");
        let target_trees = need(ints(node, &named("treeids")), &named("treeids"))?;
        let m = target_trees.len();
        let (target_nodes, target_ids) =
            (need(ints(node, &named("nodeids")), &named("nodeids"))?, need(ints(node, &named("ids")), &named("ids"))?);
        let target_weights =
            need(float_list(importer, node, &[&named("weights_as_tensor"), &named("weights")])?, &named("weights"))?;
        if target_nodes.len() != m || target_ids.len() != m || target_weights.len() != m {
            return Err(format!(
                "{votes}_treeids, {votes}_nodeids, {votes}_ids and {votes}_weights must have one value per entry"
            )
            .into());
        }
        let mut weights: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
        for k in 0..m {
            let slot = child(target_trees[k], target_nodes[k], k).map_err(|_| {
                format!(
                    "{votes} entry {k} names node {} of tree {}, which does not exist",
                    target_nodes[k], target_trees[k]
                )
            })?;
            let t = usize::try_from(target_ids[k]).ok().filter(|&t| t < targets).ok_or_else(|| {
                format!("{votes} entry {k}: {votes} {} is outside the {targets} {votes}es", target_ids[k])
            })?;
            weights.entry(slot).or_default().push((t, target_weights[k]));
        }
        // Roots: each tree's node that no node of the tree points to.
        let mut pointed = vec![false; n];
        for slot in &slots {
            if let Slot::Branch { on_true, on_false, .. } = slot {
                pointed[*on_true] = true;
                pointed[*on_false] = true;
            }
        }
        let mut roots: BTreeMap<i64, usize> = BTreeMap::new();
        for i in (0..n).filter(|&i| !pointed[i]) {
            if roots.insert(trees[i], i).is_some() {
                return Err(format!("tree {} has more than one root", trees[i]).into());
            }
        }
        if let Some(tree) = trees.iter().find(|t| !roots.contains_key(t)) {
            return Err(format!("tree {tree} has no root (every node of it is some node's child: a cycle)").into());
        }
        let forest = Forest {
            slots,
            weights,
            members: BTreeMap::new(),
            roots: roots.values().copied().collect(),
            targets: 0,
            aggregate: Aggregate::Sum,
            base: Vec::new(),
            post: String::new(),
        };
        let reached = forest.walk()?.1;
        if let Some(i) = (0..n).find(|&i| !reached[i]) {
            return Err(format!(
                "node {i} (id {} of tree {}) is not reachable from its tree's root (a cycle?)",
                ids[i], trees[i]
            )
            .into());
        }
        let Forest { slots, weights, .. } = forest;
        let aggregate = match string(node, "aggregate_function", "SUM").as_str() {
            "AVERAGE" => Aggregate::Average,
            "SUM" => Aggregate::Sum,
            "MIN" => Aggregate::Min,
            "MAX" => Aggregate::Max,
            other => return Err(format!("unknown aggregate_function '{other}'").into()),
        };
        let base = float_list(importer, node, &["base_values_as_tensor", "base_values"])?.unwrap_or_default();
        // A binary classifier voting for one class may have one base value.
        if !base.is_empty() && base.len() != targets && !(votes == "class" && base.len() == 1) {
            return Err(format!("base_values has {} values for {targets} {votes}es", base.len()).into());
        }
        Ok(Forest {
            slots,
            weights,
            members: BTreeMap::new(),
            roots: roots.into_values().collect(),
            targets,
            aggregate,
            base,
            post: string(node, "post_transform", "NONE"),
        })
    }

    /// The targets (classes) some leaf votes for, in order.
    fn voted(&self) -> Vec<usize> {
        let set: std::collections::BTreeSet<usize> = self.weights.values().flatten().map(|&(t, _)| t).collect();
        set.into_iter().collect()
    }

    /// Per class, whether every row's reached leaves vote for it whatever its features: some
    /// tree votes for it at every leaf it can reach (each tree of a boosted multiclass model
    /// votes for one class, a random forest's leaves for all of them).
    fn always_voted(&self) -> Vec<bool> {
        let mut always = vec![false; self.targets];
        let mut seen = vec![usize::MAX; self.slots.len()];
        for (tree, &root) in self.roots.iter().enumerate() {
            let mut common: Option<Vec<bool>> = None;
            let mut stack = vec![root];
            while let Some(s) = stack.pop() {
                if std::mem::replace(&mut seen[s], tree) == tree {
                    continue;
                }
                match &self.slots[s] {
                    Slot::Branch { on_true, on_false, .. } => stack.extend([*on_true, *on_false]),
                    Slot::Leaf => {
                        let mut here = vec![false; self.targets];
                        for &(t, _) in self.weights.get(&s).map_or(&[][..], Vec::as_slice) {
                            here[t] = true;
                        }
                        common = Some(match common {
                            Some(c) => c.iter().zip(&here).map(|(a, b)| *a && *b).collect(),
                            None => here,
                        });
                    }
                }
            }
            for (a, b) in always.iter_mut().zip(common.unwrap_or_default()) {
                *a |= b;
            }
        }
        always
    }

    /// Pads the forest to a shape many forests share, for a model of many tree ensembles
    /// (scikit-learn's isolation forest as skl2onnx writes it: one a tree): its slots to a
    /// power of two (at least [`SHARED_SLOTS`]) with leaves no root reaches, and the levels to
    /// walk, `depth`, to a multiple of four (returned; a walk that reaches a leaf stays there).
    /// The walk kernels of trees of one padded shape are the same code but for where their
    /// tables sit in the weights blob, so they are compiled once (`strata-outline-kernels`);
    /// the results are the same. Only a forest of one tree is padded (a forest of many is
    /// one walk already, whose extra levels would cost every row); forests with
    /// set-membership branches walk level by level in default-domain ops (no kernel to share)
    /// and are left as they are.
    fn pad_for_sharing(&mut self, depth: usize) -> usize {
        if self.roots.len() != 1 || !self.members.is_empty() || depth == 0 {
            return depth;
        }
        let slots = self.slots.len().max(SHARED_SLOTS).next_power_of_two();
        self.slots.resize_with(slots, || Slot::Leaf);
        depth.div_ceil(4) * 4
    }

    /// The levels to walk: the longest root-to-leaf path. Fails on a cycle.
    fn depth(&self) -> Result<usize, Error> {
        Ok(self.walk()?.0)
    }

    /// The longest root-to-leaf path and which slots the roots reach. Fails on a cycle.
    fn walk(&self) -> Result<(usize, Vec<bool>), Error> {
        // 0: unvisited, 1: on the path, 2: done (with its height in `height`).
        let (mut state, mut height) = (vec![0u8; self.slots.len()], vec![0usize; self.slots.len()]);
        let mut deepest = 0;
        for &root in &self.roots {
            let mut stack = vec![(root, false)];
            while let Some((s, expanded)) = stack.pop() {
                match (&self.slots[s], expanded) {
                    (Slot::Leaf, _) => state[s] = 2,
                    (Slot::Branch { on_true, on_false, .. }, false) => {
                        if state[s] == 2 {
                            continue;
                        }
                        if state[s] == 1 {
                            return Err(format!("the trees have a cycle through node {s}").into());
                        }
                        state[s] = 1;
                        stack.push((s, true));
                        for &c in [on_true, on_false] {
                            if state[c] == 1 {
                                return Err(format!("the trees have a cycle through node {c}").into());
                            }
                            if state[c] == 0 {
                                stack.push((c, false));
                            }
                        }
                    }
                    (Slot::Branch { on_true, on_false, .. }, true) => {
                        height[s] = 1 + height[*on_true].max(height[*on_false]);
                        state[s] = 2;
                    }
                }
            }
            deepest = deepest.max(height[root]);
        }
        Ok((deepest, state.iter().map(|&s| s == 2).collect()))
    }
}

impl Importer<'_> {
    /// `TreeEnsemble` (ai.onnx.ml 5), `TreeEnsembleRegressor` and `TreeEnsembleClassifier` (1,
    /// 3): see the module's notes.
    pub(crate) fn tree_ensemble(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let classifier = node.op_type() == "TreeEnsembleClassifier";
        // The operators of ml opsets 1 and 3 compute in float whatever their input's type.
        let regressor = classifier || node.op_type() == "TreeEnsembleRegressor";
        let forest = match node.op_type() {
            "TreeEnsembleClassifier" => Forest::from_ids(self, node, "class")?,
            "TreeEnsembleRegressor" => Forest::from_ids(self, node, "target")?,
            _ => Forest::from_tree_ensemble(self, node)?,
        };
        check_post(&forest.post)?;
        let binary = classifier && forest.targets == 2 && forest.voted().len() == 1;
        if binary && forest.voted() != [0] {
            return Err(Error::unsupported(format!(
                "a two-class TreeEnsembleClassifier voting for class {:?} only (class 0 is imported)",
                forest.voted()
            )));
        }
        if classifier && forest.targets == 2 && !binary {
            return Err(Error::unsupported(
                "a two-class TreeEnsembleClassifier with votes for both classes (the specification leaves its \
                 labels open; ONNX Runtime answers 0 or 1 there, not the class labels): only boosted binary \
                 classifiers, voting for class 0, are imported",
            ));
        }
        let (rows, features) = rows_and_features(&shape)?;
        // Comparisons in X's type (double X against the split values as doubles: no rounding of
        // X decides a branch), f16 and integers as float; the older operators' outputs are float.
        let compute = match dtype {
            DataType::Float | DataType::Double => dtype,
            DataType::Float16 if !regressor => DataType::Float,
            DataType::Int64 | DataType::Int32 if regressor => DataType::Float,
            other => return Err(format!("X of type {} is not one the operator takes", other.as_str_name()).into()),
        };
        for (i, slot) in forest.slots.iter().enumerate() {
            if let Slot::Branch { feature, .. } = slot {
                if !(0..features).contains(feature) {
                    return Err(format!("node {i} reads feature {feature}, but X has {features} features").into());
                }
            }
        }
        // Rows scaled by a `Scaler` are compared unscaled where that is exact (`unscale`).
        let scaler = self.scalers.get(x).filter(|_| compute == DataType::Float);
        let (forest, x) = match scaler.and_then(|s| Some((forest.unscaled(s)?, s.input.clone()))) {
            Some(unscaled) => unscaled,
            None => (forest, x.to_owned()),
        };
        let x = x.as_str();
        let mut depth = forest.depth()?;
        let mut forest = forest;
        if self.tree_ensembles >= SHARED_WALKS {
            depth = forest.pad_for_sharing(depth);
        }
        // A binary classifier's votes are all for class 0: its scores are one column.
        let targets = if binary { 1 } else { forest.targets };
        let (slots, trees) = (forest.slots.len(), forest.roots.len() as i64);
        if trees == 0 {
            return Err("the ensemble has no tree".into());
        }
        let mut e = Expansion::new(block, node, index);
        let (xs, _, _) = self.rows_as(&mut e, x, compute)?;
        let walking = walk::Walking::new(&forest, &xs, compute, depth, rows);
        // Leaf values [slots, targets]: a target a leaf does not name adds nothing (0 for sums,
        // the type's extreme for MIN and MAX, as ONNX's reference starts from).
        let out_type = if regressor { DataType::Float } else { compute };
        let extreme = if out_type == DataType::Double { f64::MAX } else { f32::MAX as f64 };
        let fill = match forest.aggregate {
            Aggregate::Sum | Aggregate::Average => 0.0,
            Aggregate::Min => extreme,
            Aggregate::Max => -extreme,
        };
        // ONNX Runtime writes 0 for a target that no leaf a row reaches names (its base value
        // not added). Where a row may reach none, the table has a second column per target
        // flagging the leaves that name it, aggregated as the values are: 1 (-1 for MIN) where
        // named, 0 elsewhere, so the aggregate is not 0 exactly where some reached leaf names it.
        let every_voted = forest.always_voted().iter().all(|&v| v);
        let unnamed = !classifier && !every_voted;
        let columns = if unnamed { 2 * targets } else { targets };
        let named = if forest.aggregate == Aggregate::Min { -1.0 } else { 1.0 };
        let mut table: Vec<f64> =
            (0..slots * columns).map(|i| if i % columns < targets { fill } else { 0.0 }).collect();
        for (&slot, entries) in &forest.weights {
            for &(t, w) in entries {
                let cell = &mut table[slot * columns + t];
                *cell = match forest.aggregate {
                    Aggregate::Sum | Aggregate::Average => *cell + w,
                    Aggregate::Min => cell.min(w),
                    Aggregate::Max => cell.max(w),
                };
                if unnamed {
                    table[slot * columns + targets + t] = named;
                }
            }
        }
        let table = e.constant(self, crate::fold::from_f64(vec![slots as i64, columns as i64], out_type, &table)?)?;
        // A multi-class classifier whose rows do not vote for every class reads the leaves
        // reached; otherwise the walk kernel sums (or takes the least or greatest of) the
        // leaves' values itself, with no [N, trees] buffer of the nodes reached.
        let reads_leaves = classifier && !binary && !every_voted;
        let (mut y, at) = if walking.in_kernel() && !reads_leaves {
            let code = match forest.aggregate {
                Aggregate::Sum | Aggregate::Average => 0,
                Aggregate::Min => 1,
                Aggregate::Max => 2,
            };
            (self.walk_scores(block, &mut e, (node, index), &walking, (&table, code))?, None)
        } else {
            let at = self.walk(block, &mut e, (node, index), &walking)?;
            let values = e.op(self, "Gather", &[&table, &at], vec![])?;
            let reduce = match forest.aggregate {
                Aggregate::Sum | Aggregate::Average => "ReduceSum",
                Aggregate::Min => "ReduceMin",
                Aggregate::Max => "ReduceMax",
            };
            let axes = e.ints(self, &[1]);
            (e.op(self, reduce, &[&values, &axes], vec![attr_i("keepdims", 0)])?, Some(at))
        };
        let named = if unnamed {
            let (axes, middle, end) =
                (e.ints(self, &[1]), e.ints(self, &[targets as i64]), e.ints(self, &[columns as i64]));
            let start = e.ints(self, &[0]);
            let flags = e.op(self, "Slice", &[&y, &middle, &end, &axes], vec![])?;
            y = e.op(self, "Slice", &[&y, &start, &middle, &axes], vec![])?;
            let zero = e.scalar(self, out_type, 0.0)?;
            let none = e.op(self, "Equal", &[&flags, &zero], vec![])?;
            Some((none, zero))
        } else {
            None
        };
        if forest.aggregate == Aggregate::Average {
            let count = e.scalar(self, out_type, trees as f64)?;
            y = e.op(self, "Div", &[&y, &count], vec![])?;
        }
        if !forest.base.is_empty() {
            let mut base = forest.base.clone();
            base.resize(targets, 0.0);
            let base = e.constant(self, crate::fold::from_f64(vec![1, targets as i64], out_type, &base)?)?;
            y = e.op(self, "Add", &[&y, &base], vec![])?;
        }
        if let Some((none, zero)) = named {
            y = e.op(self, "Where", &[&none, &zero, &y], vec![])?;
        }
        if classifier {
            return self.classify(&mut e, node, &forest, &y, at.as_deref(), binary);
        }
        y = self.post_transform(&mut e, &forest.post, &y)?;
        if !regressor && dtype != compute {
            y = e.op(self, "Cast", &[&y], vec![attr_i("to", dtype as i64)])?;
        }
        self.alias(&y, node.output[0].clone())
    }

    /// A `TreeEnsembleClassifier`'s outputs from its summed votes `y` `[N, classes]` (base
    /// values added) and the leaves reached `at` `[N, trees]` (needed only where some rows do
    /// not vote for every class), as ONNX Runtime writes them:
    /// with more than two classes, the label of the highest score
    /// among the classes some reached leaf voted for (the first on ties; without a mask
    /// where every class is voted for on every row, [`Forest::always_voted`]), and the scores
    /// post-transformed; with two classes and votes for class 0 only (boosted binary models:
    /// `s` their summed score), the second label where `s` exceeds 0.5 (every weight positive)
    /// or 0 (otherwise), and the scores `[1 - s, s]` or `[-s, s]` (`NONE`, `SOFTMAX`), or
    /// `[sigmoid(-s), sigmoid(s)]` (`LOGISTIC`).
    fn classify(
        &mut self,
        e: &mut Expansion,
        node: &NodeProto,
        forest: &Forest,
        y: &str,
        at: Option<&str>,
        binary: bool,
    ) -> Result<(), Error> {
        let labels = integer_labels(node, "classlabels_int64s")?;
        let classes = labels.len() as i64;
        let table = e.constant(self, Folded::from_i64(vec![classes], &labels))?;
        let (label, scores) = if binary {
            let (start, end, axes) = (e.ints(self, &[0]), e.ints(self, &[1]), e.ints(self, &[1]));
            let s = e.op(self, "Slice", &[y, &start, &end, &axes], vec![])?;
            let positive = forest.weights.values().flatten().all(|&(_, w)| w >= 0.0);
            let label = self.label_above(e, &s, if positive { 0.5 } else { 0.0 }, &table)?;
            let negated = e.op(self, "Neg", &[&s], vec![])?;
            let (first, second) = match forest.post.as_str() {
                "LOGISTIC" => (e.op(self, "Sigmoid", &[&negated], vec![])?, e.op(self, "Sigmoid", &[&s], vec![])?),
                _ if positive => {
                    let one = e.scalar(self, DataType::Float, 1.0)?;
                    (e.op(self, "Sub", &[&one, &s], vec![])?, s)
                }
                _ => (negated, s),
            };
            (label, e.op(self, "Concat", &[&first, &second], vec![attr_i("axis", 1)])?)
        } else if forest.always_voted().iter().all(|&v| v) {
            // Every class is voted for on every row: each one a candidate.
            let best = e.op(self, "ArgMax", &[y], vec![attr_i("axis", 1), attr_i("keepdims", 0)])?;
            let label = e.op(self, "Gather", &[&table, &best], vec![])?;
            (label, self.post_transform(e, &forest.post, y)?)
        } else {
            // Which classes the reached leaves voted for: the others are not candidates.
            let slots = forest.slots.len();
            let mut voted = vec![0u8; slots * classes as usize];
            for (&slot, entries) in &forest.weights {
                for &(t, _) in entries {
                    voted[slot * classes as usize + t] = 1;
                }
            }
            let voted =
                e.constant(self, Folded { shape: vec![slots as i64, classes], dtype: DataType::Bool, bytes: voted })?;
            let at = at.ok_or("internal error: a classifier's votes were aggregated without the leaves reached")?;
            let reached = e.op(self, "Gather", &[&voted, at], vec![])?;
            let as_int = e.op(self, "Cast", &[&reached], vec![attr_i("to", DataType::Int32 as i64)])?;
            let axes = e.ints(self, &[1]);
            let any = e.op(self, "ReduceMax", &[&as_int, &axes], vec![attr_i("keepdims", 0)])?;
            let any = e.op(self, "Cast", &[&any], vec![attr_i("to", DataType::Bool as i64)])?;
            let lowest = e.scalar(self, DataType::Float, f64::NEG_INFINITY)?;
            let candidates = e.op(self, "Where", &[&any, y, &lowest], vec![])?;
            let best = e.op(self, "ArgMax", &[&candidates], vec![attr_i("axis", 1), attr_i("keepdims", 0)])?;
            let label = e.op(self, "Gather", &[&table, &best], vec![])?;
            (label, self.post_transform(e, &forest.post, y)?)
        };
        self.write_classes(node, &label, &scores)
    }

    /// `x` (`[N, features]` or `[features]`) as `to` `[N, features]`; its rows and features.
    pub(super) fn rows_as(&mut self, e: &mut Expansion, x: &str, to: DataType) -> Result<(String, i64, i64), Error> {
        let (shape, dtype) = self.shape_of(x)?;
        let (rows, features) = rows_and_features(&shape)?;
        let mut xs = x.to_owned();
        if dtype != to {
            xs = e.op(self, "Cast", &[&xs], vec![attr_i("to", to as i64)])?;
        }
        if shape.len() == 1 {
            let two = e.ints(self, &[1, features]);
            xs = e.op(self, "Reshape", &[&xs, &two], vec![])?;
        }
        Ok((xs, rows, features))
    }

    /// `y` post-transformed (a post transform [`check_post`] accepted): its logistic, its
    /// softmax over the last axis, or itself.
    pub(super) fn post_transform(&mut self, e: &mut Expansion, post: &str, y: &str) -> Result<String, Error> {
        match post {
            "LOGISTIC" => e.op(self, "Sigmoid", &[y], vec![]),
            "SOFTMAX" => e.op(self, "Softmax", &[y], vec![attr_i("axis", -1)]),
            _ => Ok(y.to_owned()),
        }
    }

    /// A binary classifier's labels from its one score `s` `[N, 1]`: the second of `labels`
    /// (a constant `[2]`) where `s` exceeds `threshold`, else the first; `[N]`.
    pub(super) fn label_above(
        &mut self,
        e: &mut Expansion,
        s: &str,
        threshold: f64,
        labels: &str,
    ) -> Result<String, Error> {
        let threshold = e.scalar(self, DataType::Float, threshold)?;
        let above = e.op(self, "Greater", &[s, &threshold], vec![])?;
        let pick = e.op(self, "Cast", &[&above], vec![attr_i("to", DataType::Int64 as i64)])?;
        let flat = e.ints(self, &[-1]);
        let pick = e.op(self, "Reshape", &[&pick, &flat], vec![])?;
        e.op(self, "Gather", &[labels, &pick], vec![])
    }

    /// A classifier's outputs: the labels (Y) and the scores (Z).
    pub(super) fn write_classes(&mut self, node: &NodeProto, label: &str, scores: &str) -> Result<(), Error> {
        self.alias(label, node.output[0].clone())?;
        let z = node.output.get(1).filter(|z| !z.is_empty()).ok_or("output Z (the scores) is missing")?;
        self.alias(scores, z.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::{Aggregate, Forest, Mode, Slot, SHARED_SLOTS};
    use std::collections::BTreeMap;

    /// One branch over two leaves.
    fn stump() -> Forest {
        let branch =
            Slot::Branch { feature: 0, split: 0.5, mode: Mode::Leq, on_true: 1, on_false: 2, missing_true: false };
        Forest {
            slots: vec![branch, Slot::Leaf, Slot::Leaf],
            weights: BTreeMap::from([(1, vec![(0, 1.0)]), (2, vec![(0, 2.0)])]),
            members: BTreeMap::new(),
            roots: vec![0],
            targets: 1,
            aggregate: Aggregate::Sum,
            base: Vec::new(),
            post: "NONE".into(),
        }
    }

    #[test]
    fn padding_keeps_the_walk() {
        let mut forest = stump();
        let depth = forest.depth().unwrap();
        assert_eq!(depth, 1);
        assert_eq!(forest.pad_for_sharing(depth), 4);
        assert_eq!(forest.slots.len(), SHARED_SLOTS);
        assert!(forest.slots[3..].iter().all(|s| matches!(s, Slot::Leaf)));
        // The padding is unreachable: the same depth, every target still voted.
        assert_eq!(forest.depth().unwrap(), 1);
        assert_eq!(forest.always_voted(), vec![true]);
        // Past 16 slots, the next power of two; set-membership forests stay as they are.
        let mut big = stump();
        big.slots.resize_with(17, || Slot::Leaf);
        big.pad_for_sharing(5);
        assert_eq!(big.slots.len(), 32);
        let mut member = stump();
        member.members.insert(0, vec![1.0]);
        assert_eq!(member.pad_for_sharing(3), 3);
        assert_eq!(member.slots.len(), 3);
        // A forest of several trees is one walk already.
        let mut two = stump();
        two.roots.push(1);
        assert_eq!(two.pad_for_sharing(1), 1);
        assert_eq!(two.slots.len(), 3);
    }
}
