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
    store.refresh_review_queue()?;
    let filter = QueueFilter {
        noise: if a.all {
            NoiseShown::Include
        } else {
            NoiseShown::Hide
        },
        ..QueueFilter::default()
    };
    // The workbench's default order.
    let sort = QueueSort::default();
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
