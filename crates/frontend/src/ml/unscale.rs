//! A `Scaler` read by a tree ensemble folded into the trees' splits: each branch compares
//! `(x - offset) * scale` (f32 arithmetic, as the Scaler computes it) with its split, and that
//! comparison is made one of `x` itself, exactly. The scaled value is a monotone function of
//! `x` (each f32 operation rounds monotonically; a positive scale keeps the order, a negative
//! one reverses it), so the `x` for which a comparison holds are a run of the f32 line: below
//! a bound, above one, or (for `BRANCH_EQ`) between two. The bound is found by bisection over
//! the floats in order and the comparison rewritten against it (the direction flipped where
//! the scale is negative); an empty run compares with NaN, which no number passes. NaN itself
//! is scaled to NaN (finite offset, finite non-zero scale) and compared as before, so the
//! missing-value rule is unchanged. The ensemble then reads the scaler's input and the scaled
//! rows are not made for it: no `[N, features]` buffer and no pass over it.
//!
//! Not folded (the ensemble reads the scaled rows as before): a non-finite offset or a zero
//! or non-finite scale of a feature a branch reads, set membership, and an equality whose
//! run holds more than one float.

use super::{Forest, Mode, Slot};

/// A `Scaler` over f32 rows: its input's name and its attributes (each empty, one value for
/// every feature, or one per feature).
#[derive(Clone, Debug)]
pub(crate) struct Scaled {
    pub(crate) input: String,
    pub(crate) offset: Vec<f32>,
    pub(crate) scale: Vec<f32>,
}

impl Scaled {
    /// Feature `f`'s offset and scale (0 and 1 where the attribute is absent: `x - 0` and
    /// `x * 1` are `x` exactly).
    fn of(&self, f: usize) -> (f32, f32) {
        let pick = |v: &[f32], absent: f32| match v.len() {
            0 => absent,
            1 => v[0],
            _ => v[f],
        };
        (pick(&self.offset, 0.0), pick(&self.scale, 1.0))
    }
}

/// The position of `v` (not NaN) in the order of the floats, -inf first; -0 just before +0.
fn key(v: f32) -> u32 {
    let bits = v.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The float at position `k` of [`key`]'s order.
fn float(k: u32) -> f32 {
    f32::from_bits(if k & 0x8000_0000 != 0 { k & 0x7fff_ffff } else { !k })
}

/// For a predicate true on a run of the floats that starts at -inf (`lower`) or ends at
/// +inf (`!lower`): the run's last (first) float, `None` where it is empty.
fn boundary(holds: &dyn Fn(f32) -> bool, lower: bool) -> Option<f32> {
    let (lo, hi) = (key(f32::NEG_INFINITY), key(f32::INFINITY));
    let (inner, outer) = if lower { (lo, hi) } else { (hi, lo) };
    if !holds(float(inner)) {
        return None;
    }
    if holds(float(outer)) {
        return Some(float(outer));
    }
    // Below `a` the predicate equals its value at -inf, from `b` on its value at +inf.
    let (mut a, mut b) = (lo, hi);
    while b - a > 1 {
        let mid = a + (b - a) / 2;
        if holds(float(mid)) == lower {
            a = mid;
        } else {
            b = mid;
        }
    }
    Some(float(if lower { a } else { b }))
}

/// The comparison of `x` equivalent, for every f32 `x`, to `mode` between
/// `(x - offset) * scale` and `split` (as f32); `None` where there is none.
fn unscaled_branch(mode: Mode, split: f32, offset: f32, scale: f32) -> Option<(Mode, f32)> {
    if !offset.is_finite() || !scale.is_finite() || scale == 0.0 {
        return None;
    }
    let scaled = |x: f32| (x - offset) * scale;
    let rising = scale > 0.0;
    // A comparison that holds below some value of x, with `Leq`, else above it, with `Gte`:
    // `holds` is the comparison, `low` whether it holds for low scaled values.
    let bound = |holds: fn(f32, f32) -> bool, low: bool| {
        let below = low == rising;
        let run = boundary(&|x| holds(scaled(x), split), below);
        (if below { Mode::Leq } else { Mode::Gte }, run.unwrap_or(f32::NAN))
    };
    let leq: fn(f32, f32) -> bool = |y, s| y <= s;
    let gte: fn(f32, f32) -> bool = |y, s| y >= s;
    match mode {
        Mode::Leq => Some(bound(leq, true)),
        Mode::Lt => Some(bound(|y, s| y < s, true)),
        Mode::Gte => Some(bound(gte, false)),
        Mode::Gt => Some(bound(|y, s| y > s, false)),
        Mode::Eq | Mode::Neq => {
            // Equality holds between the last x at or below the split and the first at or
            // above it (in x's order): one float (or the two zeros), none, or more.
            let ((_, a), (_, b)) = (bound(leq, true), bound(gte, false));
            let (low, high) = if rising { (b, a) } else { (a, b) };
            if low.is_nan() || high.is_nan() || key(low) > key(high) {
                Some((mode, f32::NAN))
            } else if low == high {
                Some((mode, high))
            } else {
                None
            }
        }
        Mode::Member => None,
    }
}

impl Forest {
    /// This forest over the scaler's input instead of its output (see the module's notes),
    /// `None` where some branch cannot be rewritten.
    pub(super) fn unscaled(&self, scaled: &Scaled) -> Option<Forest> {
        let mut slots = self.slots.clone();
        for slot in &mut slots {
            if let Slot::Branch { feature, split, mode, .. } = slot {
                let (offset, scale) = scaled.of(usize::try_from(*feature).ok()?);
                let (m, s) = unscaled_branch(*mode, *split as f32, offset, scale)?;
                (*mode, *split) = (m, f64::from(s));
            }
        }
        Some(Forest {
            slots,
            weights: self.weights.clone(),
            members: self.members.clone(),
            roots: self.roots.clone(),
            targets: self.targets,
            aggregate: self.aggregate,
            base: self.base.clone(),
            post: self.post.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(mode: Mode, y: f32, split: f32) -> bool {
        match mode {
            Mode::Leq => y <= split,
            Mode::Lt => y < split,
            Mode::Gte => y >= split,
            Mode::Gt => y > split,
            Mode::Eq => y == split,
            Mode::Neq => y != split,
            Mode::Member => unreachable!(),
        }
    }

    /// Floats around `v`: `v` and its neighbours a few steps either way.
    fn around(v: f32, out: &mut Vec<f32>) {
        if v.is_nan() {
            return;
        }
        let k = key(v);
        for d in 0..4u32 {
            out.extend([
                float(k.saturating_sub(d).max(key(f32::NEG_INFINITY))),
                float((k + d).min(key(f32::INFINITY))),
            ]);
        }
    }

    #[test]
    fn order_keys_round_trip_and_sort() {
        let values = [f32::NEG_INFINITY, -3.5, -f32::MIN_POSITIVE, -0.0, 0.0, 1e-45, 2.0, f32::MAX, f32::INFINITY];
        for w in values.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} before {}", w[0], w[1]);
        }
        for v in values {
            assert_eq!(float(key(v)).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn unscaled_comparisons_agree_on_every_float_near_the_bounds() {
        // Offsets and scales of StandardScaler shapes, negative scales, and splits that land
        // exactly on a scaled value, between two, at zero and at the extremes.
        let cases: [(f32, f32, f32); 9] = [
            (0.3, 1.7, 0.25),
            (-12.5, 0.013, -0.8),
            (4.0, -2.5, 1.0),
            (0.1, 3.0, (0.7 - 0.1) * 3.0),
            (0.0, 1.0, 0.0),
            (1e30, 1e10, f32::MAX),
            (-1.0, -1e-20, f32::NEG_INFINITY),
            (2.0, 0.5, f32::NAN),
            (0.5, 1.0, 1.5),
        ];
        let mut checked = 0;
        for (offset, scale, split) in cases {
            for mode in [Mode::Leq, Mode::Lt, Mode::Gte, Mode::Gt, Mode::Eq, Mode::Neq] {
                let Some((m, s)) = unscaled_branch(mode, split, offset, scale) else {
                    assert!(matches!(mode, Mode::Eq | Mode::Neq), "{mode:?} {offset} {scale} {split}");
                    continue;
                };
                let mut xs = vec![f32::NAN, f32::MAX, f32::MIN, 1.0, -1.0];
                around(s, &mut xs);
                around(0.0, &mut xs);
                around(split / scale + offset, &mut xs);
                for x in xs {
                    assert_eq!(
                        holds(m, x, s),
                        holds(mode, (x - offset) * scale, split),
                        "{mode:?} of (x - {offset}) * {scale} against {split} became {m:?} {s} at x = {x}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500);
    }

    #[test]
    fn equality_over_a_run_of_floats_is_not_folded() {
        // (x - 0) * 1e-30 is 0 for every x of magnitude below ~1e-15: a run of floats.
        assert_eq!(unscaled_branch(Mode::Eq, 0.0, 0.0, 1e-30).map(|(m, _)| m), None);
        // Scaling by 2 is exact: one x per scaled value.
        assert_eq!(unscaled_branch(Mode::Eq, 3.0, 1.0, 2.0), Some((Mode::Eq, 2.5)));
        // Doubling never gives the smallest subnormal: never equal, always unequal.
        let (mode, split) = unscaled_branch(Mode::Neq, f32::from_bits(1), 0.0, 2.0).unwrap();
        assert!(mode == Mode::Neq && split.is_nan());
    }

    #[test]
    fn zero_or_non_finite_scales_are_not_folded() {
        for (offset, scale) in [(0.0, 0.0), (f32::INFINITY, 1.0), (0.0, f32::NAN), (1.0, f32::INFINITY)] {
            assert_eq!(unscaled_branch(Mode::Leq, 1.0, offset, scale), None);
        }
    }
}
