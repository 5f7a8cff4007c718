//! The compiler binaries' allocator.
//!
//! `strata`, `strata-opt` and `strata-conformance` allocate through mimalloc, statically
//! linked with its `override` feature: the executable defines `malloc` and `free` (and
//! `operator new`), so MLIR's and LLVM's C++ allocations go through it as well as Rust's. A
//! compile allocates and frees millions of small objects (operations, attributes, the
//! pattern drivers' worklists), and glibc's allocator spent about a tenth of a 10k-node
//! compile in `malloc`, `free` and the consolidation of its free lists, a share that grew with
//! the heap: the 10k-node matmul ladder compiles about a quarter faster with mimalloc
//! (docs/notes.md, "Compile time").
//!
//! Two settings keep the compiler's peak memory at or below glibc's: no transparent huge
//! pages (the `no_thp` feature: mimalloc would otherwise ask for them on its arenas, and each
//! touched 2 MiB counts whole), and freed pages returned after 50 ms ([`configure`]; mimalloc
//! waits a second by default). With mimalloc's defaults ResNet-18's compile peaked at 430 MB
//! against glibc's 343 (390 without huge pages); returning pages at once (0 ms) gave 331 but
//! made the stages that free large buffers (import, the graph optimiser) a quarter slower, as
//! they fault the pages back in; 50 ms gave 340 at glibc's speed.
//!
//! This file is compiled into each binary (`#[path = "../allocator.rs"] mod allocator;`,
//! then [`configure`] first in `main`), and into the library only for its tests: a library
//! that references mimalloc pulls its `malloc` into whatever links it, and the Python
//! extension module (which links the library) would then free the interpreter's memory with
//! mimalloc's `free`.

/// Every allocation of the process through mimalloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, which its Rust bindings do not name (`mimalloc.h`
/// numbers it just before `mi_option_use_numa_nodes`; a test checks that and its default).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed pages before returning them, in milliseconds.
const PURGE_DELAY_MS: std::os::raw::c_long = 50;

/// Sets the allocator's options (see the module docs); call it first in `main`. mimalloc's
/// own environment variable (`MIMALLOC_PURGE_DELAY`, milliseconds) still wins.
pub fn configure() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` only stores the value (read when mimalloc next purges).
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

#[cfg(test)]
mod tests {
    use super::{configure, PURGE_DELAY, PURGE_DELAY_MS};

    /// The option's number, its default (a second: no neighbour's, 1 and 0), then ours. One
    /// test: the option is process-wide.
    #[test]
    fn configure_sets_the_purge_delay() {
        assert_eq!(PURGE_DELAY + 1, libmimalloc_sys::mi_option_use_numa_nodes);
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // SAFETY: reads an option.
            assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, 1000);
            configure();
            assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, PURGE_DELAY_MS);
        }
    }
}
