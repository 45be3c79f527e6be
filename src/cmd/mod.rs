//! The imperative shell: one module per subcommand, wiring readers, extractors, detectors
//! and the store together. The functional core lives in the other modules.

pub mod demo;
pub mod detect;
pub mod eval;
pub mod export;
pub mod ingest;
pub mod listing;
pub mod queue;
pub mod results;
pub mod review;
pub mod stats;
pub mod train;

use std::io::Write;

/// How a listing is printed: one JSON object per line, or tab-separated with a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    Jsonl,
    Tsv,
}

/// Writes one line of JSON to `out`.
pub(crate) fn write_json_line(
    out: &mut impl Write,
    value: &impl serde::Serialize,
) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Makes a field safe for one TSV cell: tabs, newlines and control characters become spaces.
pub(crate) fn tsv_cell(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A usage error found after parsing (options that do not go together): reported like
/// clap's, with exit code 2.
pub(crate) fn usage_error(message: &str) -> anyhow::Result<std::process::ExitCode> {
    eprintln!("spotcheck: error: {message}");
    Ok(std::process::ExitCode::from(2))
}
