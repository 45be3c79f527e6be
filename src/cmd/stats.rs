//! `spotcheck stats`: what the database holds.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::review::sanitize_line;
use crate::store::{Stats, Store};

/// What `stats` prints.
#[derive(Debug, Clone)]
pub struct StatsConfig {
    pub db: PathBuf,
    pub json: bool,
    /// Also list every source file.
    pub sources: bool,
}

pub fn run(a: &StatsConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    store.fill_missing_langs_or_warn()?;
    let stats = store.stats()?;
    let sources = if a.sources {
        Some(store.source_summaries()?)
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        let mut v = serde_json::to_value(&stats)?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert(
                "agreement".into(),
                serde_json::to_value(store.agreements()?)?,
            );
            obj.insert(
                "adjudicated_agreement".into(),
                serde_json::to_value(store.adjudicated_agreements()?)?,
            );
        }
        if let (Some(list), Some(obj)) = (&sources, v.as_object_mut()) {
            obj.insert("per_source".into(), serde_json::to_value(list)?);
        }
        super::write_json_line(&mut out, &v)?;
    } else {
        out.write_all(render(&stats).as_bytes())?;
        for ag in store.adjudicated_agreements()? {
            writeln!(out, "{}", super::adjudicate::agreement_line(&ag))?;
        }
        for s in sources.iter().flatten() {
            let types: Vec<String> = s
                .records_by_type
                .iter()
                .map(|(t, n)| format!("{} {n}", sanitize_line(t)))
                .collect();
            writeln!(
                out,
                "{} [{}{}]: {}; documents {} (html responses {}, distinct urls {}); errors {}",
                sanitize_line(&s.path),
                s.format,
                if s.status == "complete" {
                    ""
                } else {
                    ", not finished"
                },
                types.join(", "),
                s.documents,
                s.html_responses,
                s.distinct_html_urls,
                s.errors
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The human-readable form of the stats. Record types and error reasons come from crawled
/// files (a `WARC-Type` header, a quoted header line): sanitized like every crawled text.
pub fn render(s: &Stats) -> String {
    let mut o = String::new();
    let partial = if s.sources_partial > 0 {
        format!(
            " ({} not finished: run ingest again to resume)",
            s.sources_partial
        )
    } else {
        String::new()
    };
    o += &format!("sources                 {}{partial}\n", s.sources);
    o += "records by type\n";
    for (t, n) in &s.records_by_type {
        o += &format!("  {:<22}{n}\n", sanitize_line(t));
    }
    o += &format!("documents               {}\n", s.documents);
    o += &format!(
        "exact duplicates        {} documents in {} groups\n",
        s.exact_duplicates, s.exact_duplicate_groups
    );
    o += &format!(
        "revisits                {} resolved, {} unresolved\n",
        s.revisits_resolved, s.revisits_unresolved
    );
    if !s.languages.is_empty() {
        // Most documents first: the collection's languages at a glance.
        let mut langs: Vec<(&String, &u64)> = s.languages.iter().collect();
        langs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = langs.iter().map(|(l, n)| format!("{l} {n}")).collect();
        o += &format!("languages               {}\n", list.join(", "));
    }
    o += &format!("errors                  {}\n", s.errors);
    for (r, n) in &s.errors_by_reason {
        o += &format!("  {:<22}{n}\n", sanitize_line(r));
    }
    o
}
