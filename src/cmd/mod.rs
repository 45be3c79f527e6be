//! The imperative shell: one module per subcommand, wiring readers, extractors, detectors
//! and the store together. The functional core lives in the other modules.

pub mod adjudicate;
pub mod demo;
pub mod detect;
pub mod eval;
pub mod export;
pub mod export_table;
pub mod ingest;
pub mod listing;
pub mod merge;
pub mod plot;
pub mod query;
pub mod queue;
pub mod report;
pub mod results;
pub mod review;
pub mod sample;
pub mod stage;
pub mod stats;
pub mod train;

use std::io::Write;

/// How a listing is printed: one JSON object per line, or tab-separated with a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    Jsonl,
    Tsv,
}

/// `println!` for the commands' standard output that returns the write error instead of
/// panicking, so a closed pipe (`spotcheck demo | head -1`) reaches `cli::main`, which
/// treats it as success.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}
/// `print!` that returns the write error (see [`outln!`]).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}
pub(crate) use {out, outln};

/// Writes one line of JSON to `out`, with every character a terminal would act on escaped
/// as `\uXXXX` (serde_json escapes only C0 controls; see [`TerminalSafeJson`]).
pub(crate) fn write_json_line(
    out: &mut impl Write,
    value: &impl serde::Serialize,
) -> anyhow::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, TerminalSafeJson);
    // As an io::Error (the original one when writing failed), so a closed pipe is seen as
    // one by `cli::main`.
    value.serialize(&mut ser).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Whether a terminal acts on `c` although serde_json writes it raw: DEL, the C1 controls
/// (U+0080..U+009F, CSI and OSC among them) and the bidi overrides and isolates.
fn needs_json_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// serde_json's compact format, escaping (never stripping) the characters of
/// [`needs_json_escape`] too: crawled text in JSON output is exact for a script and inert
/// on a terminal.
struct TerminalSafeJson;

impl serde_json::ser::Formatter for TerminalSafeJson {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((i, c)) = rest.char_indices().find(|&(_, c)| needs_json_escape(c)) {
            writer.write_all(&rest.as_bytes()[..i])?;
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }
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
    use super::{tsv_cell, write_json_line};

    #[test]
    fn json_escapes_what_a_terminal_would_act_on_and_round_trips() {
        let hostile = "a\u{1b}]0;t\u{7}b\u{9b}2Jc\u{9d}x\u{7f}d\u{202e}e\u{2066}f\u{e9}\u{1F600}";
        let mut out = Vec::new();
        write_json_line(&mut out, &serde_json::json!({ "t": hostile })).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{\"t\":\"a\\u001b]0;t\\u0007b\\u009b2Jc\\u009dx\\u007fd\\u202ee\\u2066f\u{e9}\u{1F600}\"}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["t"], hostile);
    }

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
