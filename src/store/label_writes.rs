//! The decision log and the labels derived from it, written in two parts. A decision is
//! committed as its log row alone ([`Store::append_to_log`]: cheap, whatever the size of its
//! document set), so a key press is durable at once. Its derived rows — the label of its
//! document set and `label_docs`, the pair labels over the set (n(n−1)/2 rows) and the
//! statuses of the queue clusters it touches — are written afterwards, in log order, either
//! all at once ([`Store::materialize_pending`]: commands, scripts, and every
//! [`Store::open`]) or in bounded steps ([`LabelJob`], [`Store::label_job_step`]: the review
//! session's writer thread, so no transaction holds the database for long).
//!
//! `meta.labels_through` names the last log row whose derived rows are complete. Every step
//! recomputes what it writes from the log rows up to its own row, so writing a row again is
//! harmless: a row interrupted half-way (a killed terminal) is simply written again by the
//! next open of the database. The result equals the old one-transaction path
//! (`record_decision` writing everything at once), which the tests keep as a reference.

use std::collections::HashMap;

use anyhow::{bail, Result};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::{json, Value};

use super::decision_log::{row_to_decision, DECISION_COLUMNS};
use super::review::{parse_key, target_key};
use super::review_status::{affected_clusters, compute_cluster_status, write_cluster_status};
use super::Store;
use crate::model::{
    label_of, last_verdict, ClusterReview, Decision, DecisionRow, Label, LogEntry, PairRule,
};

/// Pair labels written per transaction by a stepwise job (a few milliseconds of writing).
pub const PAIR_CHUNK: usize = 2048;

/// A log row just appended, with the label of its document set after it (what the derived
/// `labels` row will say once written).
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    pub row: DecisionRow,
    pub label: Label,
}

/// The log rows of `coder` naming the set `key`, up to row `through`, in order.
fn target_rows(
    conn: &Connection,
    coder: &str,
    key: &str,
    through: i64,
) -> Result<Vec<DecisionRow>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {DECISION_COLUMNS} FROM decisions
         WHERE coder = ?1 AND target = ?2 AND id <= ?3 ORDER BY id"
    ))?;
    let rows = st.query_map(params![coder, key, through], row_to_decision)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A verdict in force over a document set, with what it says of each pair of it.
struct Verdict {
    id: i64,
    members: Vec<i64>,
    rule: PairRule,
}

impl Verdict {
    fn of(row: &DecisionRow, decision: &Decision) -> Option<Verdict> {
        Some(Verdict {
            id: row.id,
            members: parse_key(&target_key(&row.target)),
            rule: decision.pair_rule()?,
        })
    }

    fn label(&self, a: i64, b: i64) -> &'static str {
        self.rule.label(a, b).as_str()
    }
}

/// The last verdict in force among the rows of one document set.
fn verdict_of(rows: &[DecisionRow]) -> Option<Verdict> {
    let (id, decision) = last_verdict(rows)?;
    let row = rows.iter().find(|r| r.id == id)?;
    Verdict::of(row, &decision)
}

/// No verdict covers the pair: its pair label is deleted.
const UNCOVERED: u32 = u32::MAX;

/// The pair labels a log row sets over the pairs of its document set, written in order
/// (pair (i, j) of the sorted ids, i < j), possibly over several steps.
struct PairPlan {
    ids: Vec<i64>,
    verdicts: Vec<Verdict>,
    /// The verdict of each pair (in pair order), or None when `verdicts[0]` covers them all.
    cover: Option<Vec<u32>>,
    /// The next pair to write.
    i: usize,
    j: usize,
    k: usize,
}

impl PairPlan {
    fn new(ids: Vec<i64>, verdicts: Vec<Verdict>, cover: Option<Vec<u32>>) -> PairPlan {
        PairPlan {
            ids,
            verdicts,
            cover,
            i: 0,
            j: 1,
            k: 0,
        }
    }

    fn done(&self) -> bool {
        self.i + 1 >= self.ids.len()
    }

    fn count(&self) -> usize {
        let n = self.ids.len();
        n * n.saturating_sub(1) / 2
    }

    /// Writes up to `budget` pairs.
    fn write(&mut self, conn: &Connection, coder: &str, budget: usize) -> Result<()> {
        let mut up = conn.prepare_cached(
            "INSERT INTO pair_labels(coder, a, b, label, decision_id) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(coder, a, b) DO UPDATE SET label = excluded.label,
               decision_id = excluded.decision_id",
        )?;
        let mut del =
            conn.prepare_cached("DELETE FROM pair_labels WHERE coder = ?1 AND a = ?2 AND b = ?3")?;
        let n = self.ids.len();
        let mut written = 0;
        while !self.done() && written < budget {
            let (a, b) = (self.ids[self.i], self.ids[self.j]);
            let verdict = match &self.cover {
                None => Some(&self.verdicts[0]),
                Some(c) => match c[self.k] {
                    UNCOVERED => None,
                    v => self.verdicts.get(v as usize),
                },
            };
            match verdict {
                Some(v) => up.execute(params![coder, a, b, v.label(a, b), v.id])?,
                None => del.execute(params![coder, a, b])?,
            };
            written += 1;
            self.k += 1;
            self.j += 1;
            if self.j == n {
                self.i += 1;
                self.j = self.i + 1;
            }
        }
        Ok(())
    }
}

/// Where a [`LabelJob`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Pairs,
    Label,
    Statuses,
    Finish,
    Done,
}

/// The derived rows of one log row, to be written in steps: the pair labels (in chunks),
/// then the label of the set and `label_docs`, then the statuses of the queue clusters with
/// two or more documents of the set (computed without writing), then those statuses and
/// `labels_through` together.
pub struct LabelJob {
    row: DecisionRow,
    key: String,
    ids: Vec<i64>,
    label: Option<(Label, i64)>,
    pairs: Option<PairPlan>,
    /// Queue clusters touched: (run, cluster, sorted members).
    clusters: Vec<(i64, i64, Vec<i64>)>,
    statuses: Vec<(i64, i64, Option<ClusterReview>)>,
    stage: Stage,
    /// `label_docs` rows written so far.
    docs_done: usize,
    /// Rows written (or deleted) so far, all tables.
    rows_written: usize,
    /// Pair labels per write step.
    chunk: usize,
}

impl LabelJob {
    /// The log row this job writes the derived rows of.
    pub fn row(&self) -> &DecisionRow {
        &self.row
    }

    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// Writes `chunk` pair labels per step instead of [`PAIR_CHUNK`] (tests use tiny chunks
    /// to cut a job into many steps).
    #[doc(hidden)]
    pub fn with_chunk(mut self, chunk: usize) -> LabelJob {
        self.chunk = chunk.max(1);
        self
    }

    /// What the next step does: "pairs", "label", "statuses", "finish" or "done" ("all"
    /// for a small job written in one step).
    #[doc(hidden)]
    pub fn next_step(&self) -> &'static str {
        match self.stage {
            _ if self.done() => "done",
            _ if self.is_small() => "all",
            Stage::Pairs => "pairs",
            Stage::Label => "label",
            Stage::Statuses => "statuses",
            Stage::Finish => "finish",
            Stage::Done => "done",
        }
    }

    /// Whether the next step writes (a step that only reads needs no write lock).
    pub fn next_step_writes(&self) -> bool {
        !self.done() && (self.is_small() || self.stage != Stage::Statuses)
    }

    /// A job this small is written in one transaction (a few milliseconds at most).
    fn is_small(&self) -> bool {
        let cluster_pairs: usize = self
            .clusters
            .iter()
            .map(|(_, _, m)| m.len() * m.len().saturating_sub(1) / 2)
            .sum();
        let pairs = self.pairs.as_ref().map_or(0, PairPlan::count);
        pairs <= self.chunk && cluster_pairs <= 4 * self.chunk && self.ids.len() <= self.chunk / 16
    }

    /// Runs the steps up to the end of `until` (or of the job) on `conn`.
    fn run(&mut self, conn: &Connection, budget: usize, until: Stage) -> Result<()> {
        loop {
            let stage = self.stage;
            match stage {
                Stage::Done => return Ok(()),
                Stage::Pairs => {
                    if let Some(p) = &mut self.pairs {
                        let k = p.k;
                        p.write(conn, &self.row.coder, budget)?;
                        self.rows_written += p.k - k;
                        if !p.done() {
                            return Ok(());
                        }
                    }
                    self.stage = Stage::Label;
                }
                Stage::Label => {
                    // A label_docs row weighs about as much as the set's key: a fraction
                    // of the pair budget.
                    let docs = self.docs_done;
                    let done = self.write_label(conn, (budget / 16).max(1))?;
                    self.rows_written += self.docs_done - docs + usize::from(done);
                    if !done {
                        return Ok(());
                    }
                    self.stage = Stage::Statuses;
                }
                Stage::Statuses => {
                    self.statuses = self
                        .clusters
                        .iter()
                        .map(|(run, cluster, members)| {
                            let s = compute_cluster_status(conn, &self.row.coder, members)?;
                            Ok((*run, *cluster, s))
                        })
                        .collect::<Result<_>>()?;
                    self.stage = Stage::Finish;
                }
                Stage::Finish => {
                    for (run, cluster, s) in &self.statuses {
                        write_cluster_status(conn, &self.row.coder, *run, *cluster, s.as_ref())?;
                    }
                    self.rows_written += self.statuses.len() + 1;
                    set_labels_through(conn, self.row.id)?;
                    self.stage = Stage::Done;
                }
            }
            if stage == until {
                return Ok(());
            }
        }
    }

    /// Writes up to `budget` of the set's `label_docs` rows, then (all written) its
    /// `labels` row; true when done. (A `label_docs` row holds the whole set's key, so a
    /// large set's rows are written over several steps too.)
    fn write_label(&mut self, conn: &Connection, budget: usize) -> Result<bool> {
        let coder = &self.row.coder;
        let end = self.ids.len().min(self.docs_done.saturating_add(budget));
        let docs = &self.ids[self.docs_done..end];
        if self.label.is_some() {
            let mut st = conn.prepare_cached(
                "INSERT OR IGNORE INTO label_docs(coder, doc_id, target) VALUES (?1, ?2, ?3)",
            )?;
            for id in docs {
                st.execute(params![coder, id, self.key])?;
            }
        } else {
            let mut st = conn.prepare_cached(
                "DELETE FROM label_docs WHERE coder = ?1 AND doc_id = ?2 AND target = ?3",
            )?;
            for id in docs {
                st.execute(params![coder, id, self.key])?;
            }
        }
        self.docs_done = end;
        if end < self.ids.len() {
            return Ok(false);
        }
        match &self.label {
            Some((label, last)) => {
                conn.prepare_cached(
                    "INSERT INTO labels(coder, target, status, tags, note, decision_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT(coder, target) DO UPDATE SET status = excluded.status,
                       tags = excluded.tags, note = excluded.note,
                       decision_id = excluded.decision_id",
                )?
                .execute(params![
                    coder,
                    self.key,
                    label.status.as_str(),
                    serde_json::to_string(&label.tags)?,
                    label.note,
                    last
                ])?;
            }
            None => {
                conn.prepare_cached("DELETE FROM labels WHERE coder = ?1 AND target = ?2")?
                    .execute(params![coder, self.key])?;
            }
        }
        Ok(true)
    }
}

fn set_labels_through(conn: &Connection, id: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO meta(key, value) VALUES ('labels_through', ?1)
         ON CONFLICT(key) DO UPDATE SET value = CASE
           WHEN CAST(value AS INTEGER) < CAST(excluded.value AS INTEGER) THEN excluded.value
           ELSE value END",
    )?
    .execute([id.to_string()])?;
    Ok(())
}

fn labels_through(conn: &Connection) -> Result<i64> {
    let v: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = 'labels_through'")?
        .query_row([], |r| r.get(0))
        .optional()?;
    Ok(v.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// What row `row` changes, as of the log up to it.
fn plan(conn: &Connection, row: DecisionRow) -> Result<LabelJob> {
    let key = target_key(&row.target);
    let ids = parse_key(&key);
    let rows = target_rows(conn, &row.coder, &key, row.id)?;
    let label = label_of(&rows);
    let reversed = |id: Option<i64>| rows.iter().find(|r| Some(r.id) == id);
    // The decision whose effect on the pairs this row makes, undoes or redoes.
    let decision = match row.action.as_str() {
        "undo" => reversed(row.undoes),
        "redo" => reversed(row.undoes).and_then(|u| reversed(u.undoes)),
        _ => Some(&row),
    };
    let verdict = decision
        .and_then(DecisionRow::decision)
        .filter(|d| d.verdict().is_some());
    let pairs = match verdict {
        Some(_) if row.action == "undo" || row.action == "redo" => {
            Some(paint(conn, &row.coder, &key, &ids, row.id, &rows)?)
        }
        // A new verdict is the latest over every pair of its set.
        Some(v) => Verdict::of(&row, &v).map(|v| PairPlan::new(ids.clone(), vec![v], None)),
        None => None,
    };
    let clusters = affected_clusters(conn, &ids)?;
    Ok(LabelJob {
        row,
        key,
        ids,
        label,
        pairs,
        clusters,
        statuses: Vec::new(),
        stage: Stage::Pairs,
        docs_done: 0,
        rows_written: 0,
        chunk: PAIR_CHUNK,
    })
}

/// The pair labels over the set `key` (sorted `ids`) after an undo or redo at row `through`:
/// each pair takes the label of the latest status decision in force that covers it — among
/// the decisions on this set (`rows`) and on every labeled set sharing two documents with
/// it — or none.
fn paint(
    conn: &Connection,
    coder: &str,
    key: &str,
    ids: &[i64],
    through: i64,
    rows: &[DecisionRow],
) -> Result<PairPlan> {
    // The other labeled sets with two or more of these documents (their labels are written
    // through the previous row, and no row after it up to `through` names them).
    let mut shared: HashMap<String, usize> = HashMap::new();
    {
        let mut st =
            conn.prepare_cached("SELECT target FROM label_docs WHERE coder = ?1 AND doc_id = ?2")?;
        for id in ids {
            for t in st.query_map(params![coder, id], |r| r.get::<_, String>(0))? {
                *shared.entry(t?).or_default() += 1;
            }
        }
    }
    let mut verdicts: Vec<Verdict> = verdict_of(rows).into_iter().collect();
    for (other, n) in shared {
        if n >= 2 && other != key {
            verdicts.extend(verdict_of(&target_rows(conn, coder, &other, through)?));
        }
    }
    verdicts.sort_by_key(|v| v.id);
    let n = ids.len();
    let index: HashMap<i64, usize> = ids.iter().enumerate().map(|(i, d)| (*d, i)).collect();
    let pair_index = |i: usize, j: usize| i * n - i * (i + 1) / 2 + (j - i - 1);
    let mut cover = vec![UNCOVERED; n * n.saturating_sub(1) / 2];
    for (v, verdict) in verdicts.iter().enumerate() {
        let inside: Vec<usize> = verdict
            .members
            .iter()
            .filter_map(|m| index.get(m).copied())
            .collect();
        for (x, &i) in inside.iter().enumerate() {
            for &j in &inside[x + 1..] {
                cover[pair_index(i.min(j), i.max(j))] = v as u32;
            }
        }
    }
    Ok(PairPlan::new(ids.to_vec(), verdicts, Some(cover)))
}

/// Refuses an entry that decides nothing: an action that is not a decision, a tag without a
/// tag, an empty set.
fn check_decision(action: &str, payload: &Value, target: &[i64]) -> Result<()> {
    Decision::from_stored(action, payload)?;
    if target.is_empty() {
        bail!("a decision needs at least one document");
    }
    Ok(())
}

fn decision_in(conn: &Connection, id: i64) -> Result<DecisionRow> {
    match conn
        .prepare_cached(&format!(
            "SELECT {DECISION_COLUMNS} FROM decisions WHERE id = ?1"
        ))?
        .query_row([id], row_to_decision)
        .optional()?
    {
        Some(d) => Ok(d),
        None => bail!("no decision with id {id}"),
    }
}

impl Store {
    /// Appends rows to `coder`'s decision log in one committed transaction and returns them
    /// with the label of each row's document set after it. Only the log is written: the
    /// derived labels follow with [`Store::materialize_pending`] or a [`LabelJob`]. A row's
    /// `previous` is the label of its set before it, computed from the log (so it is exact
    /// even while derived rows are still being written). All or nothing: an invalid entry
    /// (an unknown action, an empty set, an undo of another coder's row) appends nothing.
    pub fn append_to_log(&mut self, coder: &str, entries: Vec<LogEntry>) -> Result<Vec<Appended>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // One key press, one time.
        let time: String =
            tx.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", [], |r| {
                r.get(0)
            })?;
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let (action, key, payload, undoes) = match e {
                LogEntry::Decision {
                    action,
                    target,
                    payload,
                } => {
                    check_decision(&action, &payload, &target)?;
                    (action, target_key(&target), payload, None)
                }
                LogEntry::Undo(id) => {
                    let undone = decision_in(&tx, id)?;
                    if undone.coder != coder || !undone.is_decision() {
                        bail!("decision {id} is not a decision of {coder} that can be undone");
                    }
                    (
                        "undo".into(),
                        target_key(&undone.target),
                        json!({}),
                        Some(id),
                    )
                }
                LogEntry::Redo(id) => {
                    let undo = decision_in(&tx, id)?;
                    if undo.action != "undo" || undo.coder != coder {
                        bail!("decision {id} is not an undo");
                    }
                    ("redo".into(), target_key(&undo.target), json!({}), Some(id))
                }
            };
            let mut rows = target_rows(&tx, coder, &key, i64::MAX)?;
            let previous = label_of(&rows).map(|(l, _)| l).unwrap_or_default();
            tx.prepare_cached(
                "INSERT INTO decisions(coder, time, action, target, payload, previous, undoes)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                coder,
                time,
                action,
                key,
                payload.to_string(),
                previous.to_json().to_string(),
                undoes
            ])?;
            let row = DecisionRow {
                id: tx.last_insert_rowid(),
                coder: coder.to_string(),
                time: time.clone(),
                action,
                target: parse_key(&key),
                payload,
                previous: previous.to_json(),
                undoes,
            };
            rows.push(row.clone());
            let label = label_of(&rows).map(|(l, _)| l).unwrap_or_default();
            out.push(Appended { row, label });
        }
        tx.commit()?;
        Ok(out)
    }

    /// Copies what it can of the WAL back into the database without waiting for anyone
    /// (a passive checkpoint: other connections keep reading and writing meanwhile).
    pub fn checkpoint_passive(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// The id of the last log row whose derived labels are written.
    pub fn labels_through(&self) -> Result<i64> {
        labels_through(&self.conn)
    }

    /// Up to `limit` log rows whose derived labels are not written yet, in log order.
    pub fn pending_log_rows(&self, limit: usize) -> Result<Vec<DecisionRow>> {
        let through = labels_through(&self.conn)?;
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {DECISION_COLUMNS} FROM decisions WHERE id > ?1 ORDER BY id LIMIT ?2"
        ))?;
        let rows = st.query_map(params![through, limit as i64], row_to_decision)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Writes the derived labels of every pending log row, each row in one transaction.
    /// Returns how many rows it wrote.
    pub fn materialize_pending(&mut self) -> Result<usize> {
        let mut n = 0;
        loop {
            let rows = self.pending_log_rows(256)?;
            if rows.is_empty() {
                return Ok(n);
            }
            for row in rows {
                let tx = self
                    .conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)?;
                let mut job = plan(&tx, row)?;
                job.run(&tx, usize::MAX, Stage::Done)?;
                tx.commit()?;
                n += 1;
            }
        }
    }

    /// Plans the derived rows of log row `row` (reads only).
    pub fn label_job(&self, row: DecisionRow) -> Result<LabelJob> {
        plan(&self.conn, row)
    }

    /// Runs the next step of `job`: a chunk of pair labels, a chunk of the set's
    /// `label_docs` (then its label), the statuses (read only), or the statuses and
    /// `labels_through` — each write step one short transaction; a small job runs whole in
    /// one transaction. Returns how many rows the step wrote.
    pub fn label_job_step(&mut self, job: &mut LabelJob) -> Result<usize> {
        let before = job.rows_written;
        if job.done() {
            return Ok(0);
        }
        if !job.next_step_writes() {
            job.run(&self.conn, job.chunk, Stage::Statuses)?;
            return Ok(0);
        }
        let (budget, until) = if job.is_small() {
            (usize::MAX, Stage::Done)
        } else {
            (job.chunk, job.stage)
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        job.run(&tx, budget, until)?;
        tx.commit()?;
        Ok(job.rows_written - before)
    }

    /// Every derived label row (labels, label_docs, pair_labels, review_status) as text,
    /// sorted, for tests that compare two ways of writing them.
    #[doc(hidden)]
    pub fn derived_label_rows(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for sql in [
            "SELECT 'label|' || coder || '|' || target || '|' || status || '|' || tags || '|'
               || coalesce(note, '') || '|' || decision_id FROM labels",
            "SELECT 'doc|' || coder || '|' || doc_id || '|' || target FROM label_docs",
            "SELECT 'pair|' || coder || '|' || a || '|' || b || '|' || label || '|' || decision_id
             FROM pair_labels",
        ] {
            let mut st = self.conn.prepare(sql)?;
            let rows = st.query_map([], |r| r.get::<_, String>(0))?;
            for r in rows {
                out.push(r?);
            }
        }
        out.extend(
            self.review_status_rows()?
                .into_iter()
                .map(|r| format!("status|{r}")),
        );
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::decision_log::reference;
    use super::*;
    use crate::model::{agreement_of, Agreement, LabelStatus, Labels};
    use crate::store::ClusterRow;
    use proptest::prelude::*;

    /// A database with `n` documents, a SpotSigs run clustering them in threes and an
    /// I-Match run pairing neighbours, queue built.
    fn store(dir: &tempfile::TempDir, name: &str, n: usize) -> (Store, Vec<i64>) {
        let mut s = Store::open(&dir.path().join(name)).unwrap();
        let ids: Vec<i64> = (0..n)
            .map(|i| {
                s.insert_test_document(&format!("u{i}"), "t", &format!("text {i}"), None)
                    .unwrap()
            })
            .collect();
        for (method, size) in [("spotsigs", 3), ("imatch", 2)] {
            let r = s.create_run(method, &json!({})).unwrap();
            let rows: Vec<ClusterRow> = ids
                .chunks(size)
                .filter(|c| c.len() >= 2)
                .map(|c| ClusterRow {
                    members: c.to_vec(),
                    min_score: Some(0.5),
                    max_score: Some(0.9),
                    weakest_bridge: None,
                })
                .collect();
            s.write_run_clusters(r, &rows).unwrap();
            s.finish_run(r, &json!({})).unwrap();
        }
        s.refresh_review_queue().unwrap();
        (s, ids)
    }

    /// One step of a generated session.
    #[derive(Debug, Clone)]
    enum Op {
        /// coder, kind (confirm, reject, split, unsure, tag, untag, note, cut, cleared
        /// note), documents.
        Decide(bool, u8, Vec<usize>),
        /// Undo the last decision in force of the coder (stack order).
        Undo(bool),
        /// Redo the last undo of the coder.
        Redo(bool),
        /// Undo the k-th decision ever made, in force or not (not stack order).
        UndoAny(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (any::<bool>(), 0u8..9, proptest::collection::btree_set(0usize..8, 1..6))
                .prop_map(|(c, k, d)| Op::Decide(c, k, d.into_iter().collect())),
            2 => any::<bool>().prop_map(Op::Undo),
            1 => any::<bool>().prop_map(Op::Redo),
            1 => (0usize..10).prop_map(Op::UndoAny),
        ]
    }

    fn coder(c: bool) -> &'static str {
        if c {
            "ann"
        } else {
            "bob"
        }
    }

    /// The log entries of `ops`, with the stacks kept as the session keeps them (decisions
    /// are numbered by the order the log will give them).
    struct Script {
        entries: Vec<(String, LogEntry)>,
    }

    fn script(ops: &[Op], ids: &[i64]) -> Script {
        let mut entries = Vec::new();
        let mut done: HashMap<&str, Vec<i64>> = HashMap::new();
        let mut undone: HashMap<&str, Vec<(i64, i64)>> = HashMap::new();
        let mut decisions: Vec<(&str, i64)> = Vec::new();
        // Log ids start at 1 in a fresh database and follow the entries.
        let mut next = 1;
        for op in ops {
            let (c, e) = match op {
                Op::Decide(c, kind, docs) => {
                    let target: Vec<i64> = docs.iter().map(|i| ids[*i]).collect();
                    let (action, payload) = match kind {
                        0 => ("confirm", json!({})),
                        1 => ("reject", json!({})),
                        2 => (
                            "split",
                            json!({"groups": [target[..target.len() / 2].to_vec()]}),
                        ),
                        3 => ("unsure", json!({})),
                        4 => ("tag", json!({"tag": format!("t{}", target.len() % 2)})),
                        5 => ("untag", json!({"tag": "t1"})),
                        6 => ("note", json!({"note": format!("n{}", target[0])})),
                        // The typed decisions the session records, in their stored form.
                        7 => {
                            let cut = Decision::Cut {
                                groups: vec![
                                    target[..target.len() / 2].to_vec(),
                                    target[target.len() / 2..].to_vec(),
                                ],
                                bridge: (target[0], target[target.len() - 1]),
                            };
                            (cut.action(), cut.payload())
                        }
                        _ => ("note", Decision::Note(None).payload()),
                    };
                    let c = coder(*c);
                    done.entry(c).or_default().push(next);
                    undone.entry(c).or_default().clear();
                    decisions.push((c, next));
                    (c, LogEntry::decision(action, &target, payload))
                }
                Op::Undo(c) => {
                    let c = coder(*c);
                    let Some(d) = done.entry(c).or_default().pop() else {
                        continue;
                    };
                    undone.entry(c).or_default().push((next, d));
                    (c, LogEntry::Undo(d))
                }
                Op::Redo(c) => {
                    let c = coder(*c);
                    let Some((u, d)) = undone.entry(c).or_default().pop() else {
                        continue;
                    };
                    done.entry(c).or_default().push(d);
                    (c, LogEntry::Redo(u))
                }
                Op::UndoAny(k) => {
                    let Some(&(c, d)) = decisions.get(*k) else {
                        continue;
                    };
                    (c, LogEntry::Undo(d))
                }
            };
            entries.push((c.to_string(), e));
            next += 1;
        }
        Script { entries }
    }

    /// Runs the script through the old one-transaction path.
    fn run_reference(s: &mut Store, sc: &Script) {
        for (c, e) in &sc.entries {
            match e {
                LogEntry::Decision {
                    action,
                    target,
                    payload,
                } => reference::record_decision(s, c, action, target, payload.clone()),
                LogEntry::Undo(id) => reference::record_reversal(s, c, "undo", *id),
                LogEntry::Redo(id) => reference::record_reversal(s, c, "redo", *id),
            }
            .unwrap();
        }
    }

    /// The log without the times.
    fn log(s: &Store) -> Vec<String> {
        let mut out = Vec::new();
        for c in ["ann", "bob"] {
            for d in s.decision_log(c).unwrap() {
                out.push(format!(
                    "{} {} {} {:?} {} {} {:?}",
                    d.id, d.coder, d.action, d.target, d.payload, d.previous, d.undoes
                ));
            }
        }
        out.sort();
        out
    }

    fn state(s: &Store) -> (Vec<String>, Vec<String>) {
        (log(s), s.derived_label_rows().unwrap())
    }

    /// What the model's pure rules say the derived rows are, from the log alone, in the
    /// text form of [`Store::derived_label_rows`].
    fn model_rows(s: &Store) -> Vec<String> {
        let clusters = s.review_queue_clusters().unwrap();
        let tags = |t: &[String]| serde_json::to_string(t).unwrap();
        let mut out = Vec::new();
        for c in ["ann", "bob"] {
            let labels = Labels::replay(&s.decision_log(c).unwrap());
            for (key, (ids, l, id)) in &labels.sets {
                let note = l.note.clone().unwrap_or_default();
                let (status, t) = (l.status.as_str(), tags(&l.tags));
                out.push(format!("label|{c}|{key}|{status}|{t}|{note}|{id}"));
                out.extend(ids.iter().map(|d| format!("doc|{c}|{d}|{key}")));
            }
            for ((a, b), (l, id)) in &labels.pairs {
                out.push(format!("pair|{c}|{a}|{b}|{}|{id}", l.as_str()));
            }
            for (run, cluster, members) in &clusters {
                if let Some(r) = labels.cluster_review(members) {
                    out.push(format!(
                        "status|{c}|{run}|{cluster}|{}|{}|{}|{}|{}",
                        r.status.as_str(),
                        r.labeled,
                        r.pairs,
                        tags(&r.tags),
                        r.note.unwrap_or_default()
                    ));
                }
            }
        }
        out.sort();
        out
    }

    /// Kappa of ann and bob from the model's pair labels.
    fn model_agreement(s: &Store) -> Agreement {
        let ann = Labels::replay(&s.decision_log("ann").unwrap()).pairs;
        let bob = Labels::replay(&s.decision_log("bob").unwrap()).pairs;
        let shared = ann
            .iter()
            .filter_map(|(pair, (a, _))| bob.get(pair).map(|(b, _)| (*a, *b)));
        agreement_of("ann", "bob", shared)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        /// Appending the log and writing the labels afterwards — row by row, all at the
        /// end, or in tiny steps that are cut off and written again — ends in the state of
        /// the old one-transaction path.
        #[test]
        fn deferred_and_stepwise_labels_equal_the_one_transaction_path(
            ops in proptest::collection::vec(op(), 1..14),
            cut in proptest::collection::vec(0usize..6, 14),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let (mut reference_db, ids) = store(&dir, "ref.db", 8);
            let sc = script(&ops, &ids);
            run_reference(&mut reference_db, &sc);
            let want = state(&reference_db);
            // The model's pure rules, applied to the same log, give the same labels, pair
            // labels and statuses, and the same kappa.
            prop_assert_eq!(&model_rows(&reference_db), &want.1);
            prop_assert_eq!(
                reference_db.agreement("ann", "bob").unwrap(),
                model_agreement(&reference_db)
            );

            // Each row written as it is appended.
            let (mut s, _) = store(&dir, "each.db", 8);
            for (c, e) in &sc.entries {
                s.append_to_log(c, vec![e.clone()]).unwrap();
                s.materialize_pending().unwrap();
            }
            prop_assert_eq!(&state(&s), &want);

            // The whole log first, the labels after (a writer far behind).
            let (mut s, _) = store(&dir, "late.db", 8);
            for (c, e) in &sc.entries {
                s.append_to_log(c, vec![e.clone()]).unwrap();
            }
            prop_assert_eq!(s.pending_log_rows(100).unwrap().len(), sc.entries.len());
            s.materialize_pending().unwrap();
            prop_assert_eq!(&state(&s), &want);

            // Stepwise in chunks of 2 pairs, each job cut off after a few steps (a killed
            // writer), its rows left half-written, then finished by a reopen.
            let (mut s, _) = store(&dir, "steps.db", 8);
            for (i, (c, e)) in sc.entries.iter().enumerate() {
                s.append_to_log(c, vec![e.clone()]).unwrap();
                let row = s.pending_log_rows(1).unwrap().remove(0);
                let mut job = s.label_job(row).unwrap().with_chunk(2);
                for _ in 0..cut[i] {
                    s.label_job_step(&mut job).unwrap();
                }
                if !job.done() {
                    let path = s.path().to_path_buf();
                    drop(s);
                    s = Store::open(&path).unwrap();
                }
            }
            prop_assert_eq!(&state(&s), &want);
        }
    }

    #[test]
    fn a_large_set_is_written_in_steps_and_labels_through_moves_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let (mut s, ids) = store(&dir, "big.db", 60);
        let (mut r, _) = store(&dir, "ref.db", 60);
        let a = s
            .append_to_log("ann", vec![LogEntry::decision("confirm", &ids, json!({}))])
            .unwrap();
        assert_eq!(a[0].label.status, LabelStatus::Confirmed);
        assert_eq!(a[0].row.previous, Label::default().to_json());
        let before = s.labels_through().unwrap();
        let mut job = s.label_job(a[0].row.clone()).unwrap().with_chunk(100);
        let mut steps = 0;
        let mut read_only = 0;
        while !job.done() {
            read_only += usize::from(!job.next_step_writes());
            s.label_job_step(&mut job).unwrap();
            steps += 1;
            if !job.done() {
                assert_eq!(s.labels_through().unwrap(), before, "moves only at the end");
            }
        }
        // 1,770 pairs in 18 chunks, the set's 60 label_docs rows in 10 steps of 6 (the
        // last one with its labels row), the statuses (read only), the finish.
        assert_eq!((steps, read_only), (30, 1));
        assert_eq!(s.labels_through().unwrap(), a[0].row.id);
        reference::record_decision(&mut r, "ann", "confirm", &ids, json!({})).unwrap();
        assert_eq!(state(&s), state(&r));
        // Its undo repaints the pairs in steps too, back to nothing.
        let u = s
            .append_to_log("ann", vec![LogEntry::Undo(a[0].row.id)])
            .unwrap();
        assert_eq!(u[0].label, Label::default());
        assert_eq!(u[0].row.previous["status"], "confirmed");
        let mut job = s.label_job(u[0].row.clone()).unwrap().with_chunk(100);
        while !job.done() {
            s.label_job_step(&mut job).unwrap();
        }
        reference::record_reversal(&mut r, "ann", "undo", a[0].row.id).unwrap();
        assert_eq!(state(&s), state(&r));
        assert!(s
            .derived_label_rows()
            .unwrap()
            .iter()
            .all(|r| !r.starts_with("pair|")));
    }

    #[test]
    fn a_log_row_committed_without_its_labels_is_finished_by_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        let (mut s, ids) = store(&dir, "kill.db", 9);
        let (mut r, _) = store(&dir, "ref.db", 9);
        s.append_to_log(
            "ann",
            vec![
                LogEntry::decision("confirm", &ids[..6], json!({})),
                LogEntry::decision("tag", &ids[..6], json!({"tag": "wire"})),
            ],
        )
        .unwrap();
        // Killed here: the log rows are committed, nothing derived is.
        let path = s.path().to_path_buf();
        drop(s);
        let raw = Connection::open(&path).unwrap();
        let count = |sql: &str| -> i64 { raw.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(count("SELECT count(*) FROM decisions"), 2);
        assert_eq!(count("SELECT count(*) FROM pair_labels"), 0);
        assert_eq!(count("SELECT count(*) FROM labels"), 0);
        let s = Store::open(&path).unwrap();
        assert_eq!(s.pending_log_rows(10).unwrap(), vec![]);
        assert_eq!(count("SELECT count(*) FROM pair_labels"), 15);
        reference::record_decision(&mut r, "ann", "confirm", &ids[..6], json!({})).unwrap();
        reference::record_decision(&mut r, "ann", "tag", &ids[..6], json!({"tag": "wire"}))
            .unwrap();
        assert_eq!(state(&s), state(&r));
    }

    #[test]
    fn an_invalid_entry_appends_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (mut s, ids) = store(&dir, "bad.db", 3);
        let e = s
            .append_to_log(
                "ann",
                vec![
                    LogEntry::decision("confirm", &ids, json!({})),
                    LogEntry::decision("bless", &ids, json!({})),
                ],
            )
            .unwrap_err();
        assert!(e.to_string().contains("bless"), "{e}");
        assert!(s.decision_log("ann").unwrap().is_empty());
        let c = s
            .record_decision("ann", "confirm", &ids, json!({}))
            .unwrap();
        assert!(s.append_to_log("bob", vec![LogEntry::Undo(c.id)]).is_err());
        assert!(s.append_to_log("ann", vec![LogEntry::Redo(c.id)]).is_err());
    }
}

/// The old one-transaction path on a real database, for the "before" of the benchmark:
/// `SPOTCHECK_BENCH_DB=/tmp/copy.db cargo test --release --lib -- --ignored --nocapture
/// old_path` (confirms and undoes the largest cluster of the queue as coder "old").
#[cfg(test)]
mod bench {
    use super::super::decision_log::reference;
    use super::*;
    use crate::store::{QueueFilter, QueueSort};
    use std::time::Instant;

    #[test]
    #[ignore]
    fn old_path_confirm_and_undo_of_the_largest_cluster() {
        let Ok(db) = std::env::var("SPOTCHECK_BENCH_DB") else {
            eprintln!("skipping: set SPOTCHECK_BENCH_DB to a copy of a large database");
            return;
        };
        let mut s = Store::open(std::path::Path::new(&db)).unwrap();
        s.refresh_review_queue().unwrap();
        let row = s
            .queue_page("old", &QueueFilter::default(), QueueSort::SizeDesc, 0, 1)
            .unwrap()
            .remove(0);
        let t = Instant::now();
        let d =
            reference::record_decision(&mut s, "old", "confirm", &row.members, json!({})).unwrap();
        let confirm = t.elapsed();
        let t = Instant::now();
        reference::record_reversal(&mut s, "old", "undo", d.id).unwrap();
        eprintln!(
            "old path, {} members: confirm {confirm:?}, undo {:?}",
            row.members.len(),
            t.elapsed()
        );
    }
}
