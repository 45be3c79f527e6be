//! The `spotcheck` binary: parse the command line and hand over to the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    spotcheck::cli::main()
}
