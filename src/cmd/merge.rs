//! `spotcheck merge`: brings the decision logs of coders' copies of one corpus into one
//! database (nothing lost, nothing doubled, idempotent), then reports what the coders
//! disagree on: Cohen's kappa per pair of coders and every pair labeled differently.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::store::Store;

/// What `merge` does.
#[derive(Debug, Clone)]
pub struct MergeConfig {
    /// The database the decisions are brought into.
    pub db: PathBuf,
    /// The coders' copies, merged in this order.
    pub from: Vec<PathBuf>,
    /// Print one JSON object instead of text.
    pub json: bool,
}

pub fn run(c: &MergeConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&c.db)?;
    let mut outcomes = Vec::with_capacity(c.from.len());
    for other in &c.from {
        outcomes.push(store.merge_from(other)?);
    }
    let agreements = store.agreements()?;
    let conflicts = store.label_conflicts()?;
    let mut out = std::io::stdout().lock();
    if c.json {
        super::write_json_line(
            &mut out,
            &json!({"merged": outcomes, "agreement": agreements, "conflicts": conflicts}),
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    for o in &outcomes {
        writeln!(
            out,
            "merged {}: {} log rows added ({} already here){}",
            super::tsv_cell(&o.source),
            o.added,
            o.already_present,
            if o.coders.is_empty() {
                String::new()
            } else {
                format!(", coders {}", super::tsv_cell(&o.coders.join(", ")))
            }
        )?;
    }
    for ag in &agreements {
        writeln!(
            out,
            "agreement {} vs {}: {} of {} shared pair labels agree, Cohen's kappa {}",
            super::tsv_cell(&ag.coder_a),
            super::tsv_cell(&ag.coder_b),
            ag.agreed,
            ag.shared_pairs,
            ag.kappa.map_or("undefined".into(), |k| format!("{k:.3}"))
        )?;
    }
    writeln!(out, "conflicts: {} pair labels differ", conflicts.len())?;
    for x in &conflicts {
        writeln!(
            out,
            "conflict\t{}\t{}\t{}={}\t{}={}",
            super::tsv_cell(&x.url_a),
            super::tsv_cell(&x.url_b),
            super::tsv_cell(&x.coder_a),
            x.label_a,
            super::tsv_cell(&x.coder_b),
            x.label_b
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
