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
pub mod sample;
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

/// Makes a field safe for one TSV cell and for the terminal it may be printed on: escape
/// sequences are removed whole, payload included (an OSC title or clipboard string leaves no
/// text behind), through the one sanitizer the workbench uses; tabs, newlines and whatever
/// control characters remain become spaces. JSON output escapes instead (serde_json).
pub(crate) fn tsv_cell(s: &str) -> String {
    crate::review::sanitize_line(s)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A usage error found after parsing (options that do not go together): reported like
/// clap's, with exit code 2.
pub(crate) fn usage_error(message: &str) -> anyhow::Result<std::process::ExitCode> {
    eprintln!("spotcheck: error: {message}");
    Ok(std::process::ExitCode::from(2))
}

#[cfg(test)]
mod tests {
    use super::tsv_cell;

    #[test]
    fn a_tsv_cell_keeps_no_escape_sequence_nor_its_payload() {
        let hostile = [
            (
                "Totally normal page\u{1b}]0;pwned\u{7}",
                "Totally normal page",
            ),
            ("a\u{1b}]52;c;cGF5bG9hZA==\u{1b}\\b", "ab"),
            ("a\u{1b}[31mred\u{1b}[0m", "ared"),
            ("a\u{9b}2Jb", "ab"),
            ("a\u{1b}P1$r0m\u{1b}\\b", "ab"),
            ("left\u{202E}right", "leftright"),
        ];
        for (input, want) in hostile {
            assert_eq!(tsv_cell(input), want, "{input:?}");
        }
        // Cell separators inside a value become spaces.
        let cell = tsv_cell("one\ttwo\nthree");
        assert!(!cell.contains(['\t', '\n']), "{cell:?}");
        assert!(cell.starts_with("one") && cell.ends_with("three"));
    }
}
