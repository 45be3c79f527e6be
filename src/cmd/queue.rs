//! `spotcheck queue`: the merged review queue as the workbench shows it, in its order,
//! each entry with its member URLs (and the captures each stands for), the detectors that
//! found it and the scores of its pairs, so scripts and tests see what a coder sees.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use serde_json::json;

use super::{tsv_cell, write_json_line, ListFormat};
use crate::model::{LabelStatus, NoiseShown, QueueFilter, QueueSort};
use crate::store::{PageAt, Store};

/// What `queue` prints.
#[derive(Debug, Clone)]
pub struct QueueConfig {
    pub db: PathBuf,
    /// Whose statuses (None: [`super::review::default_coder`]).
    pub coder: Option<String>,
    /// Also the triaged noise and the entries the coder has closed (reviewed).
    pub all: bool,
    pub format: ListFormat,
    /// The queue order (the workbench's default unless `--order active`).
    pub order: QueueSort,
}

/// What `queue --sample` prints: the estimation sample's pairs still to label.
#[derive(Debug, Clone)]
pub struct SampleQueueConfig {
    pub db: PathBuf,
    /// Whose labels close a pair (None: [`super::review::default_coder`]).
    pub coder: Option<String>,
    /// Also the pairs the coder has labeled.
    pub all: bool,
    pub format: ListFormat,
}

/// `queue --sample`: the newest sample's pairs in labeling order, those the coder has not
/// labeled yet (every pair with `all`); blind samples show no score and no stratum (the
/// stratum would tell the coder how similar the detectors found the pair).
pub fn run_sample(a: &SampleQueueConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    let coder = a.coder.clone().unwrap_or_else(super::review::default_coder);
    if coder.trim().is_empty() {
        bail!("--coder must not be empty");
    }
    store.materialize_pending()?;
    let Some(sample) = store.latest_sample()? else {
        bail!(
            "no sample in {}: draw one with `spotcheck sample --db {}`",
            a.db.display(),
            a.db.display()
        );
    };
    let pairs = store.sample_pairs(sample.id)?;
    let ids: Vec<i64> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    let briefs = store.doc_briefs(&ids)?;
    let brief = |id: i64| {
        briefs
            .get(&id)
            .map(|b| (b.url.as_str(), b.title.as_str()))
            .unwrap_or_default()
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(
            out,
            "position\tlabel\t{}url_a\turl_b\ttitle_a\ttitle_b",
            if sample.blind { "" } else { "stratum\tscore\t" }
        )?;
    }
    for (i, p) in pairs.iter().enumerate() {
        let label = store.pair_label(&coder, p.a, p.b)?;
        if label.is_some() && !a.all {
            continue;
        }
        let ((url_a, title_a), (url_b, title_b)) = (brief(p.a), brief(p.b));
        match a.format {
            ListFormat::Jsonl => {
                let mut v = json!({
                    "sample": sample.id,
                    "position": i + 1,
                    "label": label,
                    "a": url_a,
                    "b": url_b,
                    "title_a": title_a,
                    "title_b": title_b,
                });
                if !sample.blind {
                    v["stratum"] = json!(p.stratum);
                    v["score"] = json!(p.score);
                }
                write_json_line(&mut out, &v)?;
            }
            ListFormat::Tsv => {
                let extra = if sample.blind {
                    String::new()
                } else {
                    format!(
                        "{}\t{}\t",
                        p.stratum,
                        p.score.map(|s| format!("{s:.4}")).unwrap_or_default()
                    )
                };
                writeln!(
                    out,
                    "{}\t{}\t{extra}{}\t{}\t{}\t{}",
                    i + 1,
                    label.as_deref().unwrap_or(""),
                    tsv_cell(url_a).replace(' ', "%20"),
                    tsv_cell(url_b).replace(' ', "%20"),
                    tsv_cell(title_a),
                    tsv_cell(title_b)
                )?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Rows read per page.
const PAGE: u64 = 500;

pub fn run(a: &QueueConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    let coder = a.coder.clone().unwrap_or_else(super::review::default_coder);
    if coder.trim().is_empty() {
        bail!("--coder must not be empty");
    }
    store.materialize_pending()?;
    // A rebuild reads every run's pairs (a minute at a million pages): say so on a terminal.
    let bar = if store.review_queue_is_current()? {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        b.set_message("building the review queue");
        b.enable_steady_tick(std::time::Duration::from_millis(250));
        b
    };
    store.refresh_review_queue()?;
    bar.finish_and_clear();
    let filter = QueueFilter {
        noise: if a.all {
            NoiseShown::Include
        } else {
            NoiseShown::Hide
        },
        ..QueueFilter::default()
    };
    let sort = a.order;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.format == ListFormat::Tsv {
        writeln!(
            out,
            "rank\tentry\tagreement\tdetectors\tsize\tcaptures\tmin_score\tmax_score\tstatus\tnoise\turls"
        )?;
    }
    let mut at = PageAt::Offset(0);
    let mut rank = 0u64;
    loop {
        let rows = store.queue_rows(&coder, &filter, sort, at, PAGE)?;
        let Some(last) = rows.last() else {
            break;
        };
        at = PageAt::After(last.rank);
        for r in rows {
            let open = matches!(r.status, LabelStatus::Unreviewed | LabelStatus::Partial);
            if !a.all && !open {
                continue;
            }
            rank += 1;
            let members = store.entry_members(r.cluster)?;
            let url_of: HashMap<i64, &str> =
                members.iter().map(|m| (m.id, m.url.as_str())).collect();
            match a.format {
                ListFormat::Jsonl => {
                    let pairs: Vec<serde_json::Value> = store
                        .entry_pairs(r.cluster)?
                        .into_iter()
                        .map(|p| {
                            let by: serde_json::Map<String, serde_json::Value> = p
                                .detectors
                                .into_iter()
                                .map(|(m, s)| (m, json!(s)))
                                .collect();
                            json!({
                                "a": url_of.get(&p.a).copied().unwrap_or_default(),
                                "b": url_of.get(&p.b).copied().unwrap_or_default(),
                                "score": p.score,
                                "detectors": by,
                            })
                        })
                        .collect();
                    let members: Vec<serde_json::Value> = members
                        .iter()
                        .map(|m| json!({"url": m.url, "title": m.title, "captures": m.captures}))
                        .collect();
                    write_json_line(
                        &mut out,
                        &json!({
                            "rank": rank,
                            "entry": r.cluster,
                            "agreement": r.method,
                            "detectors": r.detectors,
                            "size": r.size,
                            "captures": r.captures,
                            "min_score": r.min_score,
                            "max_score": r.max_score,
                            "status": r.status.as_str(),
                            "noise": r.noise,
                            "members": members,
                            "pairs": pairs,
                        }),
                    )?;
                }
                ListFormat::Tsv => {
                    let urls: Vec<String> = members
                        .iter()
                        .map(|m| tsv_cell(&m.url).replace(" ", "%20"))
                        .collect();
                    let score = |s: Option<f64>| s.map(|s| format!("{s:.4}")).unwrap_or_default();
                    writeln!(
                        out,
                        "{rank}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                        r.cluster,
                        tsv_cell(&r.method),
                        tsv_cell(&r.detectors.join(",")),
                        r.size,
                        r.captures,
                        score(r.min_score),
                        score(r.max_score),
                        r.status.as_str(),
                        r.noise.as_deref().unwrap_or(""),
                        urls.join(" ")
                    )?;
                }
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
