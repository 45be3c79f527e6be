//! `spotcheck docs` and `spotcheck errors`: plain listings so anyone can check an ingest
//! from outside.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;

use std::path::PathBuf;

use super::{tsv_cell, write_json_line, ListFormat};
use crate::store::Store;

/// What `docs` and `errors` read and how they print it.
#[derive(Debug, Clone)]
pub struct ListConfig {
    pub db: PathBuf,
    pub format: ListFormat,
    /// docs: only documents captured at or after this instant (stored form, ISO 8601 UTC).
    pub since: Option<String>,
    /// docs: only documents captured before this instant.
    pub until: Option<String>,
}

/// Whether a capture date lies in `[since, until)`. The stored form sorts as text; a
/// document without a date is outside any bound.
pub fn in_date_range(date: Option<&str>, since: Option<&str>, until: Option<&str>) -> bool {
    if since.is_none() && until.is_none() {
        return true;
    }
    let Some(d) = date else {
        return false;
    };
    since.is_none_or(|s| d >= s) && until.is_none_or(|u| d < u)
}

pub fn docs(a: &ListConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    store.fill_missing_langs_or_warn()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(out, "url\ttitle\tchars\tdup_group\tsource\tlang\tdate")?;
    }
    store.for_each_document(|d| {
        if !in_date_range(
            d.fetch_time.as_deref(),
            a.since.as_deref(),
            a.until.as_deref(),
        ) {
            return Ok(());
        }
        match a.format {
            ListFormat::Jsonl => write_json_line(
                &mut out,
                &serde_json::json!({
                    "url": d.url, "title": d.title, "chars": d.chars,
                    "dup_group": d.dup_group, "source": d.source, "lang": d.lang, "date": d.fetch_time,
                }),
            )?,
            ListFormat::Tsv => writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                tsv_cell(&d.url),
                tsv_cell(&d.title),
                d.chars,
                d.dup_group.map(|g| g.to_string()).unwrap_or_default(),
                tsv_cell(&d.source),
                d.lang.as_deref().unwrap_or("und"),
                d.fetch_time.as_deref().map(tsv_cell).unwrap_or_default()
            )?,
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn errors(a: &ListConfig) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(out, "source\toffset\treason")?;
    }
    store.for_each_error(|e| {
        match a.format {
            ListFormat::Jsonl => write_json_line(&mut out, &e)?,
            ListFormat::Tsv => writeln!(
                out,
                "{}\t{}\t{}",
                tsv_cell(&e.source),
                e.offset,
                tsv_cell(&e.reason)
            )?,
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::in_date_range;

    #[test]
    fn date_bounds_are_half_open_and_dateless_documents_fall_outside() {
        let d = Some("2016-03-01T12:00:00Z");
        assert!(in_date_range(d, None, None));
        assert!(in_date_range(None, None, None));
        assert!(in_date_range(d, Some("2016-03-01T12:00:00Z"), None));
        assert!(!in_date_range(d, None, Some("2016-03-01T12:00:00Z")));
        assert!(in_date_range(
            d,
            Some("2016-03-01T00:00:00Z"),
            Some("2016-03-02T00:00:00Z")
        ));
        assert!(!in_date_range(None, Some("2000-01-01T00:00:00Z"), None));
    }
}
