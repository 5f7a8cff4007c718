//! The phased passes: `sg-egraph-optimize` with only one family of rules, runnable on their
//! own (views, then fusion, then in-place, or any order), each rebuilding the function from
//! its extraction.

use crate::pass::EgraphOptimize;
use strata_ir::{Pass, PassInfo, PassOptions};

const STATISTICS: &[strata_ir::StatisticInfo] = crate::pass::INFO.statistics;

pub static VIEWS: PassInfo = PassInfo {
    name: "sg-convert-to-views",
    summary: "Slices, transposes, reshapes and broadcasts as strided views read in place (e-graph, view rules only)",
    anchor: "func.func",
    options: crate::pass::OPTIONS,
    statistics: STATISTICS,
};

pub static FUSE: PassInfo = PassInfo {
    name: "sg-fuse-elementwise",
    summary: "Chains of single-reader elementwise ops as one kernel each, run by the convolution that feeds them when it can (e-graph, fusion rules only)",
    anchor: "func.func",
    options: crate::pass::OPTIONS,
    statistics: STATISTICS,
};

pub static INPLACE: PassInfo = PassInfo {
    name: "sg-inplace",
    summary: "Elementwise results written over a dying operand (e-graph, in-place rules only)",
    anchor: "func.func",
    options: crate::pass::OPTIONS,
    statistics: STATISTICS,
};

const VIEW_RULES: &[&str] = &[
    "slice-to-view",
    "transpose-to-view",
    "reshape-to-view",
    "expand-to-view",
    "elementwise-reads-strided",
    "kernel-reads-contiguous-alias",
    "output-any-layout",
];
const FUSE_RULES: &[&str] = &["fuse-elementwise", "fuse-epilogue"];
const INPLACE_RULES: &[&str] = &["elementwise-in-place", "kernel-reads-contiguous-alias", "output-any-layout"];

pub fn create_views(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(EgraphOptimize::new(Some(VIEW_RULES), options))
}

pub fn create_fuse(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(EgraphOptimize::new(Some(FUSE_RULES), options))
}

pub fn create_inplace(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(EgraphOptimize::new(Some(INPLACE_RULES), options))
}
