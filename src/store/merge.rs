//! Bringing the decision logs of coders' copies into this database (`spotcheck merge`): the
//! copy is opened read-only, its documents are matched to ours by URL and content hash
//! (`model::merge`), the decisions we lack are appended in one transaction with their
//! provenance (`decision_origins`), and the derived labels are written after them as for
//! any new log row. Also the pairs two coders label differently.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::decision_log::{row_to_decision, DECISION_COLUMNS};
use super::review::target_key;
use super::Store;
use crate::model::merge::{
    fingerprint_log, map_documents, plan_additions, DocIdentity, PairConflict, UndoTarget,
};
use crate::model::DecisionRow;

/// What merging one copy did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergeOutcome {
    /// The copy, as named on the command line.
    pub source: String,
    /// Decision log rows (decisions, undos, redos) added here.
    pub added: usize,
    /// Rows of the copy this database already had.
    pub already_present: usize,
    /// The coders whose rows were added, sorted.
    pub coders: Vec<String>,
}

fn documents(conn: &Connection) -> Result<Vec<DocIdentity>> {
    let mut st = conn.prepare("SELECT id, url, text_hash FROM documents ORDER BY id")?;
    let rows = st.query_map([], |r| {
        Ok(DocIdentity {
            id: r.get(0)?,
            url: r.get(1)?,
            text_hash: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn whole_log(conn: &Connection) -> Result<Vec<DecisionRow>> {
    let mut st = conn.prepare(&format!(
        "SELECT {DECISION_COLUMNS} FROM decisions ORDER BY id"
    ))?;
    let rows = st.query_map([], row_to_decision)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn has_table(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// The first origin of each merged row of `conn` (a copy may itself hold merged rows).
fn origins(conn: &Connection) -> Result<HashMap<i64, (String, i64)>> {
    if !has_table(conn, "decision_origins")? {
        return Ok(HashMap::new());
    }
    let mut st = conn.prepare("SELECT decision_id, origin, origin_id FROM decision_origins")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

impl Store {
    /// Appends the decisions of the copy at `other` that this database lacks (see
    /// `model::merge`), in one transaction, then writes their labels. Refuses a copy of
    /// another corpus: one that shares no document with this database, or whose decisions
    /// name a document this database does not have.
    pub fn merge_from(&mut self, other: &Path) -> Result<MergeOutcome> {
        let name = other.display().to_string();
        if !other.is_file() {
            bail!("{name}: no such database");
        }
        let copy = Connection::open_with_flags(
            other,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("cannot open database {name}"))?;
        if !has_table(&copy, "documents")
            .with_context(|| format!("{name} is not a SQLite database"))?
            || !has_table(&copy, "decisions")?
        {
            bail!("{name} is not a spotcheck database (no documents or no decision log)");
        }
        let copy_docs = documents(&copy).with_context(|| format!("{name}: reading documents"))?;
        let copy_log = whole_log(&copy).with_context(|| format!("{name}: reading decisions"))?;
        let copy_origins = origins(&copy)?;
        drop(copy);

        let here_docs = documents(&self.conn)?;
        let doc_map = map_documents(&here_docs, &copy_docs);
        if doc_map.is_empty() && !copy_docs.is_empty() {
            bail!(
                "{name} is not a copy of the corpus in {}: none of its {} documents is here \
                 (documents are matched by URL and content hash)",
                self.path.display(),
                copy_docs.len()
            );
        }
        let copy_mapped =
            fingerprint_log(&copy_log, &|d| doc_map.get(&d).copied()).map_err(|u| {
                let url = copy_docs
                    .iter()
                    .find(|d| d.id == u.doc_id)
                    .map_or("?", |d| d.url.as_str());
                anyhow::anyhow!(
                    "{name} is not a copy of the corpus in {}: its decision {} names document \
                 {} ({}), which is not here with the same URL and content hash; {} of its {} \
                 documents are missing here",
                    self.path.display(),
                    u.row_id,
                    u.doc_id,
                    crate::review::sanitize_line(url),
                    copy_docs.len() - doc_map.len(),
                    copy_docs.len()
                )
            })?;
        let here_log = whole_log(&self.conn)?;
        let here_mapped = fingerprint_log(&here_log, &|d| Some(d))
            .map_err(|u| anyhow::anyhow!("decision {} cannot be read", u.row_id))?;
        let here_fps: HashMap<String, i64> = here_mapped
            .into_iter()
            .map(|m| (m.fingerprint, m.row.id))
            .collect();
        let plan = plan_additions(&here_fps, &copy_mapped);

        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let merged_at: String =
            tx.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", [], |r| {
                r.get(0)
            })?;
        let mut new_ids: Vec<i64> = Vec::with_capacity(plan.len());
        let mut coders: Vec<String> = Vec::new();
        for p in &plan {
            let undoes = p.undoes.map(|u| match u {
                UndoTarget::Here(id) => id,
                // Plans only point backwards, so the row is already inserted.
                UndoTarget::Planned(i) => new_ids[i],
            });
            let r = &p.row;
            tx.prepare_cached(
                "INSERT INTO decisions(coder, time, action, target, payload, previous, undoes)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                r.coder,
                r.time,
                r.action,
                target_key(&r.target),
                r.payload.to_string(),
                r.previous.to_string(),
                undoes
            ])?;
            let id = tx.last_insert_rowid();
            new_ids.push(id);
            let (origin, origin_id) = copy_origins
                .get(&r.id)
                .cloned()
                .unwrap_or_else(|| (name.clone(), r.id));
            tx.prepare_cached(
                "INSERT INTO decision_origins(decision_id, origin, origin_id, merged_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, origin, origin_id, merged_at])?;
            if !coders.contains(&r.coder) {
                coders.push(r.coder.clone());
            }
        }
        tx.commit()?;
        self.materialize_pending()
            .with_context(|| format!("writing the labels of the decisions merged from {name}"))?;
        coders.sort();
        Ok(MergeOutcome {
            source: name,
            added: plan.len(),
            already_present: copy_log.len() - plan.len(),
            coders,
        })
    }

    /// Every pair two coders label differently (a same against a different or an
    /// unsure), by pair then coders.
    pub fn label_conflicts(&self) -> Result<Vec<PairConflict>> {
        let mut st = self.conn.prepare(
            "SELECT p.a, p.b, da.url, db.url, p.coder, p.label, q.coder, q.label
             FROM pair_labels p
             JOIN pair_labels q ON q.a = p.a AND q.b = p.b AND q.coder > p.coder
                               AND q.label <> p.label
             JOIN documents da ON da.id = p.a
             JOIN documents db ON db.id = p.b
             ORDER BY p.a, p.b, p.coder, q.coder",
        )?;
        let rows = st.query_map([], |r| {
            Ok(PairConflict {
                a: r.get(0)?,
                b: r.get(1)?,
                url_a: r.get(2)?,
                url_b: r.get(3)?,
                coder_a: r.get(4)?,
                label_a: r.get(5)?,
                coder_b: r.get(6)?,
                label_b: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Where merged log rows came from: (decision id, origin database, its row id there).
    pub fn decision_origins(&self) -> Result<Vec<(i64, String, i64)>> {
        let mut st = self.conn.prepare(
            "SELECT decision_id, origin, origin_id FROM decision_origins ORDER BY decision_id",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
