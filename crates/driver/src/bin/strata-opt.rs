//! `strata-opt`: see [`strata_driver::opt`].

use clap::Parser;

#[path = "../allocator.rs"]
mod allocator;

fn main() {
    strata_runtime::cli::die_quietly_on_closed_pipes();
    allocator::configure();
    let args = strata_driver::opt::OptArgs::parse();
    let code = strata_driver::opt::run(&args);
    std::process::exit(code);
}
