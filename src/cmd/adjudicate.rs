//! `spotcheck adjudicate`: adjudication for scripts (the workbench's adjudication screen
//! does the same by keys). Lists the pairs coders disagree on with every coder's verdict
//! and note, records an adjudicator's final label of one pair (logged as coder
//! `adjudicator:NAME`, see `model::adjudication`), and reports each pair of coders'
//! Cohen's kappa before and after adjudication. Gold exports, `eval --gold labels`, the
//! sample estimates and `train` take the adjudicated label of a pair.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use super::{tsv_cell, write_json_line};
use crate::model::adjudication::{AdjudicatedAgreement, Disagreement};
use crate::model::PairLabel;
use crate::review::verdict_text;
use crate::store::Store;

/// What `adjudicate` does.
#[derive(Debug, Clone, PartialEq)]
pub enum AdjudicateAction {
    /// The disagreements (with `all`: the adjudicated ones too).
    List { all: bool },
    /// Record a final label of pair (a, b).
    Decide {
        a: i64,
        b: i64,
        label: PairLabel,
        adjudicator: String,
        note: Option<String>,
    },
    /// Kappa per pair of coders, before and after adjudication.
    Agreement,
}

#[derive(Debug, Clone)]
pub struct AdjudicateConfig {
    pub db: PathBuf,
    pub action: AdjudicateAction,
    /// One JSON object per line instead of text.
    pub json: bool,
}

pub fn run(c: &AdjudicateConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&c.db)?;
    let mut out = std::io::stdout().lock();
    match &c.action {
        AdjudicateAction::List { all } => list(&store, *all, c.json, &mut out)?,
        AdjudicateAction::Decide {
            a,
            b,
            label,
            adjudicator,
            note,
        } => {
            let id = store.adjudicate(adjudicator, *a, *b, *label, note.as_deref())?;
            let open = store.disagreements(true)?.len();
            if c.json {
                write_json_line(
                    &mut out,
                    &json!({"decision": id, "a": a.min(b), "b": a.max(b),
                            "label": label.as_str(),
                            "coder": crate::model::adjudication::adjudicator_key(adjudicator),
                            "open": open}),
                )?;
            } else {
                writeln!(
                    out,
                    "adjudicator:{}: documents {} and {} are {} (decision {id}); {open} \
                     disagreements still open",
                    tsv_cell(adjudicator),
                    a.min(b),
                    a.max(b),
                    label.as_str()
                )?;
            }
        }
        AdjudicateAction::Agreement => {
            let ags = store.adjudicated_agreements()?;
            if c.json {
                for ag in &ags {
                    write_json_line(&mut out, ag)?;
                }
            } else {
                if ags.is_empty() {
                    writeln!(out, "fewer than two coders: no agreement to report")?;
                }
                for ag in &ags {
                    writeln!(out, "{}", agreement_line(ag))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A kappa, or "undefined".
fn kappa(k: Option<f64>) -> String {
    k.map_or("undefined".into(), |k| format!("{k:.3}"))
}

/// One pair of coders' agreement before and after adjudication, as one line.
pub fn agreement_line(ag: &AdjudicatedAgreement) -> String {
    format!(
        "agreement {} vs {}: kappa {} before adjudication ({} of {} shared pair labels \
         agree), {} after ({} of {} disagreements adjudicated)",
        tsv_cell(&ag.before.coder_a),
        tsv_cell(&ag.before.coder_b),
        kappa(ag.before.kappa),
        ag.before.agreed,
        ag.before.shared_pairs,
        kappa(ag.after.kappa),
        ag.resolved,
        ag.disagreed
    )
}

fn list(store: &Store, all: bool, json: bool, out: &mut impl Write) -> Result<()> {
    let found: Vec<Disagreement> = store.disagreements(!all)?;
    let ids: Vec<i64> = found.iter().flat_map(|d| [d.a, d.b]).collect();
    let briefs = store.doc_briefs(&ids)?;
    let url = |id: i64| briefs.get(&id).map_or("", |b| b.url.as_str()).to_string();
    for d in &found {
        if json {
            write_json_line(
                out,
                &json!({"a": d.a, "b": d.b, "url_a": url(d.a), "url_b": url(d.b),
                        "adjudicated": d.adjudicated().map(PairLabel::as_str),
                        "coders": d.coders, "adjudications": d.adjudications}),
            )?;
            continue;
        }
        let state = match d.adjudicated() {
            Some(l) => format!("adjudicated: {}", l.as_str()),
            None if d.adjudications.is_empty() => "open".to_string(),
            None => "open (the adjudicators disagree)".to_string(),
        };
        writeln!(out, "pair {} {}: {state}", d.a, d.b)?;
        writeln!(out, "  {}\t{}", d.a, tsv_cell(&url(d.a)))?;
        writeln!(out, "  {}\t{}", d.b, tsv_cell(&url(d.b)))?;
        for v in d.coders.iter().chain(&d.adjudications) {
            writeln!(out, "  {}", verdict_text(v))?;
        }
    }
    if !json {
        let settled = found.iter().filter(|d| d.adjudicated().is_some()).count();
        writeln!(
            out,
            "{} pairs the coders disagree on{}{}",
            found.len(),
            if all {
                format!(", {settled} adjudicated")
            } else {
                " without adjudication".to_string()
            },
            if found.is_empty() {
                String::new()
            } else {
                "; decide with `spotcheck adjudicate --decide A,B --label same|different \
                 --adjudicator NAME` or the workbench's adjudication screen (A in the queue)"
                    .to_string()
            }
        )?;
    }
    Ok(())
}
