//! `strata-opt`: see [`strata_driver::opt`].

use clap::Parser;

fn main() {
    let args = strata_driver::opt::OptArgs::parse();
    let code = strata_driver::opt::run(&args);
    std::process::exit(code);
}
