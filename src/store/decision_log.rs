//! The decision log on disk: appending decisions (in their stored form, or typed
//! [`Decision`]s), undos and redos, and reading the log and the labels derived from it.
//! The rows' text (action names, JSON payloads, `previous` labels) is the model's stored
//! form and never changes: existing databases are read with it.

use anyhow::{bail, Result};
use rusqlite::{params, OptionalExtension};
use serde_json::Value;

use super::review::{parse_key, target_key};
use super::Store;
use crate::model::{Decision, DecisionRow, Label, LabelStatus, LogEntry};

pub(super) fn parse_tags(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_default()
}

pub(super) fn row_to_decision(r: &rusqlite::Row<'_>) -> rusqlite::Result<DecisionRow> {
    let payload: String = r.get(5)?;
    let previous: String = r.get(6)?;
    Ok(DecisionRow {
        id: r.get(0)?,
        coder: r.get(1)?,
        time: r.get(2)?,
        action: r.get(3)?,
        target: parse_key(&r.get::<_, String>(4)?),
        payload: serde_json::from_str(&payload).unwrap_or(Value::Null),
        previous: serde_json::from_str(&previous).unwrap_or(Value::Null),
        undoes: r.get(7)?,
    })
}

pub(super) const DECISION_COLUMNS: &str =
    "id, coder, time, action, target, payload, previous, undoes";

impl Store {
    /// Appends a decision given in its stored form (an action name of
    /// [`crate::model::DECISION_ACTIONS`] and its JSON payload) and writes its derived labels (with any still pending before it), each in a committed
    /// transaction. Returns the new row.
    pub fn record_decision(
        &mut self,
        coder: &str,
        action: &str,
        target: &[i64],
        payload: Value,
    ) -> Result<DecisionRow> {
        self.record_entry(coder, LogEntry::decision(action, target, payload))
    }

    /// Appends a typed decision on `target` and writes its derived labels (see
    /// [`Store::record_decision`]).
    pub fn decide(
        &mut self,
        coder: &str,
        decision: &Decision,
        target: &[i64],
    ) -> Result<DecisionRow> {
        self.record_entry(coder, LogEntry::decide(decision, target, None))
    }

    /// Undoes decision `id` of `coder` by appending an `undo` row, then writes the labels
    /// it changes.
    pub fn record_undo(&mut self, coder: &str, id: i64) -> Result<DecisionRow> {
        self.record_entry(coder, LogEntry::Undo(id))
    }

    /// Redoes the undo row `undo_id` by appending a `redo` row, then writes the labels.
    pub fn record_redo(&mut self, coder: &str, undo_id: i64) -> Result<DecisionRow> {
        self.record_entry(coder, LogEntry::Redo(undo_id))
    }

    fn record_entry(&mut self, coder: &str, entry: LogEntry) -> Result<DecisionRow> {
        let mut rows = self.append_to_log(coder, vec![entry])?;
        self.materialize_pending()?;
        match rows.pop() {
            Some(a) => Ok(a.row),
            None => bail!("nothing was appended"),
        }
    }

    pub fn decision(&self, id: i64) -> Result<DecisionRow> {
        match self
            .conn()
            .query_row(
                &format!("SELECT {DECISION_COLUMNS} FROM decisions WHERE id = ?1"),
                [id],
                row_to_decision,
            )
            .optional()?
        {
            Some(d) => Ok(d),
            None => bail!("no decision with id {id}"),
        }
    }

    /// The whole log of one coder, in order.
    pub fn decision_log(&self, coder: &str) -> Result<Vec<DecisionRow>> {
        let mut st = self.conn().prepare(&format!(
            "SELECT {DECISION_COLUMNS} FROM decisions WHERE coder = ?1 ORDER BY id"
        ))?;
        let rows = st.query_map([coder], row_to_decision)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Everyone who has recorded a decision.
    pub fn coders(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare("SELECT DISTINCT coder FROM decisions ORDER BY coder")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The current label of a document set.
    pub fn label(&self, coder: &str, target: &[i64]) -> Result<Label> {
        Ok(self
            .conn()
            .query_row(
                "SELECT status, tags, note FROM labels WHERE coder = ?1 AND target = ?2",
                params![coder, target_key(target)],
                |r| {
                    Ok(Label {
                        status: LabelStatus::parse(&r.get::<_, String>(0)?),
                        tags: parse_tags(&r.get::<_, String>(1)?),
                        note: r.get(2)?,
                    })
                },
            )
            .optional()?
            .unwrap_or_default())
    }

    /// The current label of a pair: "same", "different", "unsure" or None.
    /// `coder`'s stored pair labels among `members`: ((a, b), label) with a < b.
    pub fn pair_labels_within(
        &self,
        coder: &str,
        members: &[i64],
    ) -> Result<Vec<((i64, i64), String)>> {
        let set: std::collections::BTreeSet<i64> = members.iter().copied().collect();
        let mut st = self
            .conn()
            .prepare_cached("SELECT b, label FROM pair_labels WHERE coder = ?1 AND a = ?2")?;
        let mut out = Vec::new();
        for &a in &set {
            for row in st.query_map(params![coder, a], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))? {
                let (b, label) = row?;
                if set.contains(&b) {
                    out.push(((a, b), label));
                }
            }
        }
        Ok(out)
    }

    pub fn pair_label(&self, coder: &str, a: i64, b: i64) -> Result<Option<String>> {
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        Ok(self
            .conn()
            .query_row(
                "SELECT label FROM pair_labels WHERE coder = ?1 AND a = ?2 AND b = ?3",
                params![coder, a, b],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Every tag in use, for completion.
    pub fn all_tags(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare("SELECT DISTINCT j.value FROM labels, json_each(labels.tags) j ORDER BY 1")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// The one-transaction path the decisions took before the log and the derived labels were
/// written apart: kept as the reference the tests compare the new path with.
#[cfg(test)]
pub(super) mod reference {
    use super::super::review_status::{affected_clusters, update_cluster_status};
    use super::*;
    use crate::model::{active_decisions, DECISION_ACTIONS};
    use rusqlite::Connection;
    use rusqlite::{named_params, Transaction};
    use serde_json::json;
    use std::collections::HashMap;

    /// The old `record_decision`: log row and derived rows in one transaction.
    pub(crate) fn record_decision(
        s: &mut Store,
        coder: &str,
        action: &str,
        target: &[i64],
        payload: Value,
    ) -> Result<DecisionRow> {
        if !DECISION_ACTIONS.contains(&action) {
            bail!("unknown decision action {action}");
        }
        if target.is_empty() {
            bail!("a decision needs at least one document");
        }
        let key = target_key(target);
        let tx = s.conn.transaction()?;
        let previous = read_label(&tx, coder, &key)?.to_json();
        let row = insert_log_row(&tx, coder, action, &key, &payload, &previous, None)?;
        apply_decision(&tx, &row)?;
        update_statuses_for_target(&tx, coder, &row.target)?;
        set_through(&tx, row.id)?;
        tx.commit()?;
        Ok(row)
    }

    /// The old `record_undo` / `record_redo`: the row, then every label of the coder
    /// rebuilt from the log.
    pub(crate) fn record_reversal(
        s: &mut Store,
        coder: &str,
        action: &str,
        refers: i64,
    ) -> Result<DecisionRow> {
        let target = s.decision(refers)?.target;
        let key = target_key(&target);
        let tx = s.conn.transaction()?;
        let previous = read_label(&tx, coder, &key)?.to_json();
        let row = insert_log_row(
            &tx,
            coder,
            action,
            &key,
            &json!({}),
            &previous,
            Some(refers),
        )?;
        rebuild_labels(&tx, coder)?;
        update_statuses_for_target(&tx, coder, &target)?;
        set_through(&tx, row.id)?;
        tx.commit()?;
        Ok(row)
    }

    fn set_through(tx: &Transaction<'_>, id: i64) -> Result<()> {
        tx.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('labels_through', ?1)",
            [id.to_string()],
        )?;
        Ok(())
    }

    fn update_statuses_for_target(conn: &Connection, coder: &str, target: &[i64]) -> Result<()> {
        for (run, cluster, members) in affected_clusters(conn, target)? {
            update_cluster_status(conn, coder, run, cluster, &members)?;
        }
        Ok(())
    }

    /// Reads the label of `target` for `coder` inside a transaction.
    fn read_label(tx: &Transaction<'_>, coder: &str, target: &str) -> Result<Label> {
        Ok(tx
            .query_row(
                "SELECT status, tags, note FROM labels WHERE coder = ?1 AND target = ?2",
                [coder, target],
                |r| {
                    Ok(Label {
                        status: LabelStatus::parse(&r.get::<_, String>(0)?),
                        tags: parse_tags(&r.get::<_, String>(1)?),
                        note: r.get(2)?,
                    })
                },
            )
            .optional()?
            .unwrap_or_default())
    }

    /// Applies one (active) decision on top of the derived tables.
    fn apply_decision(tx: &Transaction<'_>, d: &DecisionRow) -> Result<()> {
        let key = target_key(&d.target);
        let mut label = read_label(tx, &d.coder, &key)?;
        let ids: Vec<i64> = parse_key(&key);
        // group[i] = the group index of ids[i]; pairs in one group are "same".
        let mut pair_label: Option<Box<dyn Fn(usize, usize) -> &'static str>> = None;
        match d.action.as_str() {
            "confirm" => {
                label.status = LabelStatus::Confirmed;
                pair_label = Some(Box::new(|_, _| "same"));
            }
            "reject" => {
                label.status = LabelStatus::Rejected;
                pair_label = Some(Box::new(|_, _| "different"));
            }
            "unsure" => {
                label.status = LabelStatus::Unsure;
                pair_label = Some(Box::new(|_, _| "unsure"));
            }
            "split" => {
                label.status = LabelStatus::Split;
                let groups: Vec<Vec<i64>> =
                    serde_json::from_value(d.payload["groups"].clone()).unwrap_or_default();
                let mut group_of: HashMap<i64, usize> = HashMap::new();
                for (g, members) in groups.iter().enumerate() {
                    for m in members {
                        group_of.insert(*m, g);
                    }
                }
                // A member in no group stands alone.
                let group: Vec<usize> = ids
                    .iter()
                    .enumerate()
                    .map(|(i, id)| group_of.get(id).copied().unwrap_or(groups.len() + i))
                    .collect();
                pair_label = Some(Box::new(move |i, j| {
                    if group[i] == group[j] {
                        "same"
                    } else {
                        "different"
                    }
                }));
            }
            "tag" => {
                if let Some(t) = d.payload["tag"].as_str() {
                    if !label.tags.iter().any(|x| x == t) {
                        label.tags.push(t.to_string());
                        label.tags.sort();
                    }
                }
            }
            "untag" => {
                if let Some(t) = d.payload["tag"].as_str() {
                    label.tags.retain(|x| x != t);
                }
            }
            "note" => {
                label.note = d.payload["note"].as_str().map(str::to_string);
            }
            other => bail!("decision {} has an unknown action {other}", d.id),
        }
        tx.execute(
            "INSERT INTO labels(coder, target, status, tags, note, decision_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(coder, target) DO UPDATE SET status = excluded.status,
               tags = excluded.tags, note = excluded.note, decision_id = excluded.decision_id",
            params![
                d.coder,
                key,
                label.status.as_str(),
                serde_json::to_string(&label.tags)?,
                label.note,
                d.id
            ],
        )?;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR IGNORE INTO label_docs(coder, doc_id, target) VALUES (?1, ?2, ?3)",
            )?;
            for id in &ids {
                st.execute(params![d.coder, id, key])?;
            }
        }
        if let Some(f) = pair_label {
            let mut st = tx.prepare_cached(
                "INSERT INTO pair_labels(coder, a, b, label, decision_id) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(coder, a, b) DO UPDATE SET label = excluded.label,
                   decision_id = excluded.decision_id",
            )?;
            for i in 0..ids.len() {
                for j in i + 1..ids.len() {
                    st.execute(params![d.coder, ids[i], ids[j], f(i, j), d.id])?;
                }
            }
        }
        Ok(())
    }

    fn insert_log_row(
        tx: &Transaction<'_>,
        coder: &str,
        action: &str,
        key: &str,
        payload: &Value,
        previous: &Value,
        undoes: Option<i64>,
    ) -> Result<DecisionRow> {
        tx.execute(
            "INSERT INTO decisions(coder, time, action, target, payload, previous, undoes)
             VALUES (:coder, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), :action, :target, :payload,
                     :previous, :undoes)",
            named_params! {
                ":coder": coder,
                ":action": action,
                ":target": key,
                ":payload": payload.to_string(),
                ":previous": previous.to_string(),
                ":undoes": undoes,
            },
        )?;
        let id = tx.last_insert_rowid();
        Ok(tx.query_row(
            &format!("SELECT {DECISION_COLUMNS} FROM decisions WHERE id = ?1"),
            [id],
            row_to_decision,
        )?)
    }

    /// Recomputes one coder's labels by replaying the active decisions in order.
    fn rebuild_labels(tx: &Transaction<'_>, coder: &str) -> Result<()> {
        tx.execute("DELETE FROM labels WHERE coder = ?1", [coder])?;
        tx.execute("DELETE FROM pair_labels WHERE coder = ?1", [coder])?;
        tx.execute("DELETE FROM label_docs WHERE coder = ?1", [coder])?;
        let log: Vec<DecisionRow> = {
            let mut st = tx.prepare(&format!(
                "SELECT {DECISION_COLUMNS} FROM decisions WHERE coder = ?1 ORDER BY id"
            ))?;
            let rows = st.query_map([coder], row_to_decision)?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for d in active_decisions(&log) {
            apply_decision(tx, d)?;
        }
        Ok(())
    }
}
