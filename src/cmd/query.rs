//! `spotcheck query`: for outside documents (files, folders, JSONL, or JSONL on stdin),
//! the stored documents each detector's latest run would pair them with, with scores and
//! the signatures they share. The database is opened read-only; the outside documents are
//! read by the ingest code into a temporary database of their own (so every input format
//! and the same text extraction apply), which is deleted afterwards.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::ingest::{ingest_paths, IngestOptions};
use super::ListFormat;
use crate::detect::METHODS;
use crate::extract::ExtractOptions;
use crate::store::{DocText, Store, TextKind};

/// Shared signatures listed per match (the count is always given).
const MAX_SHARED_LISTED: usize = 20;

/// What `query` does.
#[derive(Debug, Clone)]
pub struct QueryConfig {
    pub db: PathBuf,
    /// Outside documents: crawl files, folders of pages, JSONL files.
    pub paths: Vec<PathBuf>,
    /// Also read JSONL records (`{"url":…,"html":…}` or `"text"`) from stdin.
    pub stdin: bool,
    pub format: ListFormat,
    /// Only these methods (default: every method with a finished run, ANDD and MinHash
    /// included when they have one).
    pub methods: Vec<String>,
    /// Only the outside pages with these URLs (a file, one URL a line): selects pages of
    /// the given crawl files and folders; nothing is fetched.
    pub urls: Option<PathBuf>,
}

/// The URLs of a URL list: one a line, blank lines and `#` comments skipped.
fn read_url_list(path: &std::path::Path) -> Result<std::collections::HashSet<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the URL list {}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

#[derive(Debug, Serialize)]
struct Match<'a> {
    method: &'a str,
    run: i64,
    url: &'a str,
    score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    shared_count: usize,
    shared: &'a [String],
}

#[derive(Debug, Serialize)]
struct Answer<'a> {
    url: &'a str,
    matches: Vec<Match<'a>>,
}

pub fn run(c: &QueryConfig) -> Result<ExitCode> {
    let started = Instant::now();
    let wanted = match &c.urls {
        Some(p) => Some(read_url_list(p)?),
        None => None,
    };
    let store = Store::open_read_only(&c.db)?;
    let mut runs = Vec::new();
    for m in METHODS {
        let asked = c.methods.iter().any(|x| x == m.name());
        if !c.methods.is_empty() && !asked {
            continue;
        }
        match store.resolve_run(m.name(), None) {
            Ok(run) => runs.push((*m, run)),
            Err(e) if asked => return Err(e),
            Err(_) => {}
        }
    }
    if runs.is_empty() {
        bail!(
            "{} has no finished detector run to query: run `spotcheck detect --db {}` first",
            c.db.display(),
            c.db.display()
        );
    }

    let tmp = tempfile::tempdir().context("cannot make a temporary directory")?;
    let mut paths = c.paths.clone();
    if c.stdin {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading stdin")?;
        let p = tmp.path().join("stdin.jsonl");
        std::fs::write(&p, buf)?;
        paths.push(p);
    }
    let outside_db = tmp.path().join("outside.db");
    let wants_main = runs
        .iter()
        .any(|(_, r)| r.params.get("text").and_then(|t| t.as_str()) == Some("Main"));
    let opts = IngestOptions {
        extract: ExtractOptions {
            main_content: wants_main,
            ..ExtractOptions::default()
        },
        ..IngestOptions::default()
    };
    let summary = ingest_paths(&outside_db, &paths, &opts)?;
    if summary.errors > 0 {
        eprintln!(
            "spotcheck: {} outside records could not be read (damaged or not pages)",
            summary.errors
        );
    }
    let outside = Store::open(&outside_db)?;
    let read_texts = |kind: TextKind| -> Result<Vec<DocText>> {
        let mut all = Vec::new();
        outside.for_each_text_chunk(kind, 4096, |chunk| {
            all.extend(
                chunk
                    .into_iter()
                    .filter(|d| wanted.as_ref().is_none_or(|w| w.contains(&d.url))),
            );
            Ok(())
        })?;
        Ok(all)
    };
    // The content text of an outside page as the stored pages' were made: its site's
    // template is the one learned from the stored pages of that site (the scratch
    // database alone holds too few pages of a site to learn one, and an outside page kept
    // its template where the stored copy lost it).
    let wants_content = runs
        .iter()
        .any(|(_, r)| r.params.get("text").and_then(|t| t.as_str()) == Some("Content"));
    let content_texts: Option<Vec<DocText>> = if wants_content {
        Some(content_as_stored(
            &store,
            read_texts(TextKind::Visible)?,
            &outside.all_block_signals()?,
        )?)
    } else {
        None
    };
    let texts = |kind: TextKind| -> Result<Vec<DocText>> {
        match (kind, &content_texts) {
            (TextKind::Content, Some(t)) => Ok(t.clone()),
            _ => read_texts(kind),
        }
    };
    let outside_urls: Vec<String> = texts(TextKind::Visible)?
        .into_iter()
        .map(|d| d.url)
        .collect();
    if let Some(w) = &wanted {
        let found: std::collections::HashSet<&str> =
            outside_urls.iter().map(String::as_str).collect();
        let missing = w.iter().filter(|u| !found.contains(u.as_str())).count();
        if missing > 0 {
            eprintln!(
                "spotcheck: {missing} of the {} listed URLs are in none of the given files",
                w.len()
            );
        }
    }
    let read_at = started.elapsed().as_secs_f64();

    let stored_url: HashMap<i64, String> =
        store.url_ids()?.into_iter().map(|(u, i)| (i, u)).collect();
    let mut per_method = Vec::new();
    for (m, run) in &runs {
        let t = Instant::now();
        let hits = m
            .query(run.id, &run.params, &store, &texts)
            .with_context(|| format!("querying {} run {}", m.name(), run.id))?;
        per_method.push((m.name(), run.id, hits, t.elapsed().as_secs_f64()));
    }

    let mut out = std::io::stdout().lock();
    let result = write_answers(&mut out, c.format, &outside_urls, &stored_url, &per_method);
    match result {
        Err(e) if is_broken_pipe(&e) => return Ok(ExitCode::SUCCESS),
        other => other?,
    }
    let times: Vec<String> = per_method
        .iter()
        .map(|(m, _, _, s)| format!("{m} {s:.2}s"))
        .collect();
    let total = started.elapsed().as_secs_f64();
    eprintln!(
        "query: {} outside documents against {} stored; reading {read_at:.2}s, {}; \
         {total:.2}s in all, {:.1} ms per outside document",
        outside_urls.len(),
        stored_url.len(),
        times.join(", "),
        1000.0 * total / outside_urls.len().max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}

/// The outside documents' content texts under the stored database's content rule and
/// site templates (see `run`).
fn content_as_stored(
    store: &Store,
    visible: Vec<DocText>,
    signals: &std::collections::HashMap<i64, Vec<crate::extract::structure::BlockSignal>>,
) -> Result<Vec<DocText>> {
    use crate::extract::content::{content_text_with, function_words, site_key};
    use rayon::prelude::*;
    let rule = store.content_rule()?;
    let sites: std::collections::HashSet<String> = visible
        .iter()
        .map(|d| site_key(&d.url).to_string())
        .collect();
    // The stored pages' counts alone: the outside page is cut as its stored copies were
    // (counting it too would make a block on one page more a template here and not there).
    let (families, counts) = store.site_blocks(&sites)?;
    let stopwords = function_words();
    Ok(visible
        .into_par_iter()
        .map(|d| {
            let signals = signals.get(&d.id).map_or(&[][..], Vec::as_slice);
            let (text, _) = content_text_with(
                &d.text,
                signals,
                counts.get(families.site_of(&d.url)),
                &rule,
                stopwords,
            );
            DocText { text, ..d }
        })
        .collect())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

type MethodHits<'a> = (&'a str, i64, Vec<crate::detect::query::QueryHit>, f64);

fn write_answers(
    out: &mut impl Write,
    format: ListFormat,
    outside_urls: &[String],
    stored_url: &HashMap<i64, String>,
    per_method: &[MethodHits<'_>],
) -> Result<()> {
    let mut by_outside: Vec<Vec<Match<'_>>> = outside_urls.iter().map(|_| Vec::new()).collect();
    for (method, run, hits, _) in per_method {
        for h in hits {
            let Some(slot) = by_outside.get_mut(h.outside) else {
                continue;
            };
            slot.push(Match {
                method,
                run: *run,
                url: stored_url.get(&h.stored).map_or("", String::as_str),
                score: h.score,
                detail: h.detail.as_deref(),
                shared_count: h.shared.len(),
                shared: &h.shared[..h.shared.len().min(MAX_SHARED_LISTED)],
            });
        }
    }
    if format == ListFormat::Tsv {
        writeln!(out, "outside\tmethod\tstored\tscore\tshared\tdetail")?;
    }
    for (url, matches) in outside_urls.iter().zip(by_outside) {
        match format {
            ListFormat::Jsonl => super::write_json_line(out, &Answer { url, matches })?,
            ListFormat::Tsv => {
                for m in &matches {
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{:.4}\t{}\t{}",
                        super::tsv_cell(url),
                        m.method,
                        super::tsv_cell(m.url),
                        m.score,
                        m.shared_count,
                        super::tsv_cell(m.detail.unwrap_or(""))
                    )?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}
