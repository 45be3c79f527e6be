//! `pairs`, `clusters`, `sigs` and `runs`: detector results in plain forms, so anyone can
//! check them from outside.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::{tsv_cell, write_json_line, ListFormat};
use crate::store::Store;

/// Which run `pairs` and `clusters` print, and how.
#[derive(Debug, Clone)]
pub struct RunSelectConfig {
    pub db: PathBuf,
    /// One method's name (never `all`): its latest finished run unless `run` names one.
    pub method: String,
    pub run: Option<i64>,
    pub format: ListFormat,
}

/// Which documents' signatures `sigs` prints.
#[derive(Debug, Clone)]
pub struct SigsConfig {
    pub db: PathBuf,
    /// Only these documents; all when empty.
    pub url: Vec<String>,
    pub format: ListFormat,
}

/// How `runs` prints.
#[derive(Debug, Clone)]
pub struct RunsConfig {
    pub db: PathBuf,
    pub json: bool,
}

pub fn pairs(a: &RunSelectConfig) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let run = store.resolve_run(&a.method, a.run)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(out, "a\tb\tscore\tdetail")?;
    }
    store.for_each_run_pair(run.id, |x, y, score, detail| {
        match a.format {
            ListFormat::Jsonl => {
                let mut v = serde_json::json!({"a": x, "b": y, "score": score});
                if let (Some(d), Some(o)) = (detail, v.as_object_mut()) {
                    o.insert("detail".into(), d.into());
                }
                write_json_line(&mut out, &v)?
            }
            ListFormat::Tsv => writeln!(
                out,
                "{}\t{}\t{score}\t{}",
                tsv_cell(x),
                tsv_cell(y),
                tsv_cell(detail.unwrap_or(""))
            )?,
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn clusters(a: &RunSelectConfig) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let run = store.resolve_run(&a.method, a.run)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(out, "cluster\turl")?;
    }
    store.for_each_run_cluster(run.id, |id, urls| {
        match a.format {
            ListFormat::Jsonl => {
                write_json_line(&mut out, &serde_json::json!({"cluster": id, "urls": urls}))?
            }
            ListFormat::Tsv => {
                for u in urls {
                    writeln!(out, "{id}\t{}", tsv_cell(&u))?;
                }
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `{"url":URL,"spotsigs":{"sig":freq},"imatch":["hex",...], ...}` per document, from the
/// latest finished run of each method that stores signatures.
pub fn sigs(a: &SigsConfig) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let mut merged: std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>> =
        Default::default();
    let mut any = false;
    for m in crate::detect::METHODS.iter() {
        let method = m.name();
        let Ok(run) = store.resolve_run(method, None) else {
            continue;
        };
        any = true;
        for (url, mut values) in m.doc_sigs(&store, &run, &a.url)? {
            if let Some(v) = values.pop() {
                merged.entry(url).or_default().insert(method.into(), v);
            }
        }
    }
    if !any {
        anyhow::bail!(
            "no detector run in {}: run `spotcheck detect --db {}` first",
            a.db.display(),
            a.db.display()
        );
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (url, mut fields) in merged {
        fields.insert("url".into(), url.into());
        match a.format {
            ListFormat::Jsonl => write_json_line(&mut out, &serde_json::Value::Object(fields))?,
            ListFormat::Tsv => {
                let url = fields.get("url").and_then(|u| u.as_str()).unwrap_or("");
                for (k, v) in fields.iter().filter(|(k, _)| *k != "url") {
                    writeln!(out, "{}\t{k}\t{v}", tsv_cell(url))?;
                }
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn runs(a: &RunsConfig) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for r in store.runs()? {
        if a.json {
            write_json_line(&mut out, &r)?;
        } else {
            writeln!(
                out,
                "run {} {}{} {}",
                r.id,
                r.method,
                if r.finished { "" } else { " (not finished)" },
                r.params
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
