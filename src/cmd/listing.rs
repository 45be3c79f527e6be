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
}

pub fn docs(a: &ListConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    store.fill_missing_langs()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(out, "url\ttitle\tchars\tdup_group\tsource\tlang")?;
    }
    store.for_each_document(|d| {
        match a.format {
            ListFormat::Jsonl => write_json_line(
                &mut out,
                &serde_json::json!({
                    "url": d.url, "title": d.title, "chars": d.chars,
                    "dup_group": d.dup_group, "source": d.source, "lang": d.lang,
                }),
            )?,
            ListFormat::Tsv => writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}",
                tsv_cell(&d.url),
                tsv_cell(&d.title),
                d.chars,
                d.dup_group.map(|g| g.to_string()).unwrap_or_default(),
                tsv_cell(&d.source),
                d.lang.as_deref().unwrap_or("und")
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
