//! The `spotcheck` binary: parse the command line and hand over to the library.

use std::process::ExitCode;

/// mimalloc instead of the system allocator: ingest allocates and frees a text per page on
/// several threads at once, and glibc's malloc/free were ~7% of a WARC ingest's CPU
/// (BENCHMARKS.md, issue 16 session 11).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    spotcheck::cli::main()
}
