//! Review data: the append-only decision log of the coders, the labels derived from it, the
//! paged review queue over the clusters of every detector run, progress and inter-coder
//! agreement. Decisions name document sets (sorted ids), never cluster ids, so a label
//! survives a detector rerun that renumbers its clusters.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use anyhow::{bail, Result};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use serde_json::{json, Value};

use super::label_writes::LogEntry;
use super::Store;

/// A coder's verdict on a document set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default, Hash)]
pub enum LabelStatus {
    #[default]
    Unreviewed,
    /// Some of a cluster's member pairs are labeled, not all (derived, never stored as a
    /// label of a document set).
    Partial,
    Confirmed,
    Split,
    Rejected,
    Unsure,
}

impl LabelStatus {
    pub const ALL: [LabelStatus; 6] = [
        LabelStatus::Unreviewed,
        LabelStatus::Partial,
        LabelStatus::Confirmed,
        LabelStatus::Split,
        LabelStatus::Rejected,
        LabelStatus::Unsure,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LabelStatus::Unreviewed => "unreviewed",
            LabelStatus::Partial => "partial",
            LabelStatus::Confirmed => "confirmed",
            LabelStatus::Split => "split",
            LabelStatus::Rejected => "rejected",
            LabelStatus::Unsure => "unsure",
        }
    }

    pub fn parse(s: &str) -> LabelStatus {
        match s {
            "partial" => LabelStatus::Partial,
            "confirmed" => LabelStatus::Confirmed,
            "split" => LabelStatus::Split,
            "rejected" => LabelStatus::Rejected,
            "unsure" => LabelStatus::Unsure,
            _ => LabelStatus::Unreviewed,
        }
    }
}

/// The current label of a document set for one coder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Label {
    pub status: LabelStatus,
    pub tags: Vec<String>,
    pub note: Option<String>,
}

impl Label {
    /// The label as the log's `previous` column stores it.
    pub fn to_json(&self) -> Value {
        json!({"status": self.status.as_str(), "tags": self.tags, "note": self.note})
    }

    /// Reads a label stored by [`Label::to_json`] (anything missing is the default).
    pub fn from_json(v: &Value) -> Label {
        Label {
            status: LabelStatus::parse(v["status"].as_str().unwrap_or("")),
            tags: serde_json::from_value(v["tags"].clone()).unwrap_or_default(),
            note: v["note"].as_str().map(str::to_string),
        }
    }
}

/// One row of the decision log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionRow {
    pub id: i64,
    pub coder: String,
    pub time: String,
    pub action: String,
    pub target: Vec<i64>,
    pub payload: Value,
    pub previous: Value,
    pub undoes: Option<i64>,
}

/// Which clusters the queue shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueFilter {
    pub method: Option<String>,
    pub status: Option<LabelStatus>,
    pub min_size: Option<i64>,
    pub max_size: Option<i64>,
    pub tag: Option<String>,
    /// Case-insensitive substring of any member's title or URL.
    pub search: Option<String>,
    /// Only clusters whose members another method does not keep together.
    pub disagree_only: bool,
    /// Also show clusters of runs superseded by a later run of the same method.
    pub all_runs: bool,
}

/// Queue order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum QueueSort {
    #[default]
    SizeDesc,
    SizeAsc,
    ScoreDesc,
    ScoreAsc,
}

impl QueueSort {
    pub const ALL: [QueueSort; 4] = [
        QueueSort::SizeDesc,
        QueueSort::SizeAsc,
        QueueSort::ScoreDesc,
        QueueSort::ScoreAsc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            QueueSort::SizeDesc => "size desc",
            QueueSort::SizeAsc => "size asc",
            QueueSort::ScoreDesc => "score desc",
            QueueSort::ScoreAsc => "score asc",
        }
    }

    /// The queue table's rank column of this order (1 = first).
    fn rank_column(self) -> &'static str {
        match self {
            QueueSort::SizeDesc => "q.rank_size_desc",
            QueueSort::SizeAsc => "q.rank_size_asc",
            QueueSort::ScoreDesc => "q.rank_score_desc",
            QueueSort::ScoreAsc => "q.rank_score_asc",
        }
    }
}

/// One cluster in the review queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueRow {
    pub run_id: i64,
    pub method: String,
    pub cluster: i64,
    pub size: i64,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    /// Derived from the coder's labels over the members' pairs (see [`ClusterReview`]).
    pub status: LabelStatus,
    /// Member pairs the coder has labeled, of `pairs`.
    pub labeled: i64,
    pub pairs: i64,
    pub tags: Vec<String>,
    pub title: String,
    pub disagree: bool,
    /// The member document ids, sorted.
    pub members: Vec<i64>,
    /// The row's place in the queue order it was read in (for reading the next page).
    pub rank: i64,
}

/// Where a page of the queue starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageAt {
    /// After this many rows.
    Offset(u64),
    /// The rows that end this many rows before the end (read backwards).
    FromEnd(u64),
    /// After the row of this rank.
    After(i64),
    /// Before the row of this rank (the rows just before it).
    Before(i64),
}

/// What a coder's labels say about one cluster of a run. Decisions name document sets, so a
/// cluster of a rerun (other ids, a member more or less) is judged by the labels over its
/// own pairs: confirmed when every member pair is labeled "same", rejected when every pair
/// is "different", split when both occur, unsure when any pair is unsure, partial when only
/// some pairs are labeled. Tags and the note come from every labeled document set that
/// shares a pair (two documents) with the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClusterReview {
    pub status: LabelStatus,
    pub labeled: i64,
    pub pairs: i64,
    pub tags: Vec<String>,
    pub note: Option<String>,
}

/// The status of a cluster whose `pairs` member pairs carry `same`, `different` and
/// `unsure` pair labels (the rest unlabeled).
pub fn derive_status(same: i64, different: i64, unsure: i64, pairs: i64) -> LabelStatus {
    let labeled = same + different + unsure;
    if labeled == 0 {
        LabelStatus::Unreviewed
    } else if labeled < pairs {
        LabelStatus::Partial
    } else if unsure > 0 {
        LabelStatus::Unsure
    } else if same == pairs {
        LabelStatus::Confirmed
    } else if different == pairs {
        LabelStatus::Rejected
    } else {
        LabelStatus::Split
    }
}

/// One member of a cluster as the cluster screen lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterMember {
    pub id: i64,
    pub url: String,
    pub title: String,
    /// Bytes of the visible text (UTF-8): SQLite reads this without the text itself.
    pub bytes: i64,
    pub dup_group: Option<i64>,
}

/// A document with both texts, for the pair view.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewDoc {
    pub id: i64,
    pub url: String,
    pub title: String,
    pub visible_text: String,
    pub main_text: Option<String>,
    /// The content text (`extract::content`); `None`: the same as the visible text.
    pub content_text: Option<String>,
    pub dup_group: Option<i64>,
}

/// What the latest run of one method says about a pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairEvidence {
    pub method: String,
    pub run_id: i64,
    /// None when the run did not pair these documents.
    pub score: Option<f64>,
    pub detail: Option<String>,
}

/// Reviewed clusters of the default queue for one coder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub coder: String,
    pub reviewed: u64,
    pub total: u64,
}

/// Cohen's kappa of two coders on the pairs both labeled same or different.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub coder_a: String,
    pub coder_b: String,
    pub shared_pairs: u64,
    pub agreed: u64,
    /// None when undefined (no shared pairs, or both coders used one label only).
    pub kappa: Option<f64>,
}

/// Sorted, deduplicated ids as the `target` text of the log.
pub(super) fn target_key(ids: &[i64]) -> String {
    let set: BTreeSet<i64> = ids.iter().copied().collect();
    set.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn parse_key(key: &str) -> Vec<i64> {
    key.split(',').filter_map(|s| s.parse().ok()).collect()
}

pub(super) fn parse_tags(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_default()
}

pub(super) const DECISION_ACTIONS: &[&str] = &[
    "confirm", "split", "reject", "unsure", "tag", "untag", "note",
];

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

/// The ids of the decisions in force: a decision is active unless its latest undo has not
/// been redone. `log` is one coder's log in id order.
pub(crate) fn active_decisions(log: &[DecisionRow]) -> Vec<&DecisionRow> {
    let mut undone: BTreeSet<i64> = BTreeSet::new();
    let by_id: HashMap<i64, &DecisionRow> = log.iter().map(|d| (d.id, d)).collect();
    for d in log {
        match (d.action.as_str(), d.undoes) {
            ("undo", Some(t)) => {
                undone.insert(t);
            }
            ("redo", Some(u)) => {
                if let Some(t) = by_id.get(&u).and_then(|u| u.undoes) {
                    undone.remove(&t);
                }
            }
            _ => {}
        }
    }
    log.iter()
        .filter(|d| DECISION_ACTIONS.contains(&d.action.as_str()) && !undone.contains(&d.id))
        .collect()
}

impl Store {
    /// Appends a decision (confirm, split, reject, unsure, tag, untag, note) and writes
    /// its derived labels (with any still pending before it), each in a committed
    /// transaction. Returns the new row.
    pub fn record_decision(
        &mut self,
        coder: &str,
        action: &str,
        target: &[i64],
        payload: Value,
    ) -> Result<DecisionRow> {
        self.record(coder, LogEntry::decision(action, target, payload))
    }

    /// Undoes decision `id` of `coder` by appending an `undo` row, then writes the labels
    /// it changes.
    pub fn record_undo(&mut self, coder: &str, id: i64) -> Result<DecisionRow> {
        self.record(coder, LogEntry::Undo(id))
    }

    /// Redoes the undo row `undo_id` by appending a `redo` row, then writes the labels.
    pub fn record_redo(&mut self, coder: &str, undo_id: i64) -> Result<DecisionRow> {
        self.record(coder, LogEntry::Redo(undo_id))
    }

    fn record(&mut self, coder: &str, entry: LogEntry) -> Result<DecisionRow> {
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

    /// What `coder`'s labels say about cluster `cluster` of run `run` (unreviewed when the
    /// cluster is not in the queue or nothing covers it).
    pub fn cluster_review(&self, coder: &str, run: i64, cluster: i64) -> Result<ClusterReview> {
        let found = self
            .conn()
            .query_row(
                "SELECT status, labeled, pairs, tags, note FROM review_status
                 WHERE coder = ?1 AND run_id = ?2 AND cluster = ?3",
                params![coder, run, cluster],
                |r| {
                    Ok(ClusterReview {
                        status: LabelStatus::parse(&r.get::<_, String>(0)?),
                        labeled: r.get(1)?,
                        pairs: r.get(2)?,
                        tags: parse_tags(&r.get::<_, String>(3)?),
                        note: r.get(4)?,
                    })
                },
            )
            .optional()?;
        if let Some(f) = found {
            return Ok(f);
        }
        let size: i64 = self
            .conn()
            .query_row(
                "SELECT size FROM review_clusters WHERE run_id = ?1 AND cluster = ?2",
                [run, cluster],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        Ok(ClusterReview {
            pairs: size * (size - 1) / 2,
            ..ClusterReview::default()
        })
    }

    /// The current label of a pair: "same", "different", "unsure" or None.
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

    /// Brings the queue table up to date with the finished runs (a no-op when no run has
    /// finished since the last call). Cheap enough to call at every review start.
    pub fn refresh_review_queue(&mut self) -> Result<()> {
        let fingerprint: String = self.conn().query_row(
            "SELECT coalesce(group_concat(id, ','), '') FROM
               (SELECT id FROM runs WHERE finished_at IS NOT NULL ORDER BY id)",
            [],
            |r| r.get(0),
        )?;
        if self.meta("review_queue_runs")?.as_deref() == Some(fingerprint.as_str()) {
            return Ok(());
        }
        let tx = self.conn.transaction()?;
        let entries = build_queue(&tx)?;
        write_queue(&tx, &entries)?;
        rebuild_statuses(&tx)?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('review_queue_runs', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [fingerprint],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Recomputes every coder's derived cluster statuses from the labels (the decisions
    /// keep them up to date; this is for repairs and for checking that they do).
    pub fn rebuild_review_statuses(&mut self) -> Result<()> {
        let tx = self.conn.transaction()?;
        rebuild_statuses(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// Every derived status row as "coder|run|cluster|status|labeled|pairs|tags|note",
    /// sorted (for tests that compare two ways of computing them).
    #[doc(hidden)]
    pub fn review_status_rows(&self) -> Result<Vec<String>> {
        let mut st = self.conn().prepare(
            "SELECT coder || '|' || run_id || '|' || cluster || '|' || status || '|' || labeled
               || '|' || pairs || '|' || tags || '|' || coalesce(note, '')
             FROM review_status ORDER BY coder, run_id, cluster",
        )?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The WHERE clause shared by the queue queries; parameters are named.
    fn queue_where(filter: &QueueFilter) -> String {
        let mut w = vec!["1 = 1".to_string()];
        if !filter.all_runs {
            w.push("q.latest = 1".into());
        }
        if filter.method.is_some() {
            w.push("q.method = :method".into());
        }
        if filter.status.is_some() {
            w.push("coalesce(l.status, 'unreviewed') = :status".into());
        }
        if filter.min_size.is_some() {
            w.push("q.size >= :min_size".into());
        }
        if filter.max_size.is_some() {
            w.push("q.size <= :max_size".into());
        }
        if filter.tag.is_some() {
            w.push("EXISTS (SELECT 1 FROM json_each(l.tags) j WHERE j.value = :tag)".into());
        }
        if filter.search.is_some() {
            w.push(
                "EXISTS (SELECT 1 FROM run_cluster_members m JOIN documents d ON d.id = m.doc_id
                   WHERE m.run_id = q.run_id AND m.cluster = q.cluster
                     AND (d.title LIKE :search ESCAPE '\\' OR d.url LIKE :search ESCAPE '\\'))"
                    .into(),
            );
        }
        if filter.disagree_only {
            w.push("q.disagree = 1".into());
        }
        w.join(" AND ")
    }

    fn queue_params<'a>(
        coder: &'a &'a str,
        filter: &'a QueueFilter,
        search: &'a Option<String>,
        status: &'a Option<&'static str>,
    ) -> Vec<(&'static str, &'a dyn rusqlite::ToSql)> {
        let mut p: Vec<(&'static str, &dyn rusqlite::ToSql)> = vec![(":coder", coder)];
        if let Some(m) = &filter.method {
            p.push((":method", m));
        }
        if let Some(s) = status {
            p.push((":status", s));
        }
        if let Some(s) = &filter.min_size {
            p.push((":min_size", s));
        }
        if let Some(s) = &filter.max_size {
            p.push((":max_size", s));
        }
        if let Some(t) = &filter.tag {
            p.push((":tag", t));
        }
        if let Some(s) = search {
            p.push((":search", s));
        }
        p
    }

    fn like_pattern(filter: &QueueFilter) -> Option<String> {
        filter.search.as_ref().map(|s| {
            let escaped = s
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{escaped}%")
        })
    }

    /// How many clusters the filter keeps.
    pub fn queue_len(&self, coder: &str, filter: &QueueFilter) -> Result<u64> {
        let sql = format!(
            "SELECT count(*) FROM review_clusters q
             LEFT JOIN review_status l ON l.coder = :coder AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE {}",
            Self::queue_where(filter)
        );
        let search = Self::like_pattern(filter);
        let status = filter.status.map(LabelStatus::as_str);
        let p = Self::queue_params(&coder, filter, &search, &status);
        let n: i64 = self.conn().query_row(&sql, p.as_slice(), |r| r.get(0))?;
        Ok(n as u64)
    }

    /// One page of the queue: `limit` rows from position `offset` in the chosen order.
    pub fn queue_page(
        &self,
        coder: &str,
        filter: &QueueFilter,
        sort: QueueSort,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<QueueRow>> {
        self.queue_rows(coder, filter, sort, PageAt::Offset(offset), limit)
    }

    /// Up to `limit` queue rows at `at`, in queue order. Reading after or before a row's
    /// rank walks an index from there; an offset from the start or the end steps over the
    /// rows before it, so the session uses it only for jumps.
    pub fn queue_rows(
        &self,
        coder: &str,
        filter: &QueueFilter,
        sort: QueueSort,
        at: PageAt,
        limit: u64,
    ) -> Result<Vec<QueueRow>> {
        let rank = sort.rank_column();
        let (cond, dir, offset) = match at {
            PageAt::Offset(n) => (String::new(), "ASC", n),
            PageAt::FromEnd(n) => (String::new(), "DESC", n),
            PageAt::After(r) => (format!(" AND {rank} > {r}"), "ASC", 0),
            PageAt::Before(r) => (format!(" AND {rank} < {r}"), "DESC", 0),
        };
        let sql = format!(
            "SELECT q.run_id, q.method, q.cluster, q.size, q.min_score, q.max_score,
                coalesce(l.status, 'unreviewed'), coalesce(l.tags, '[]'), q.title, q.disagree,
                q.members_key, coalesce(l.labeled, 0), q.size * (q.size - 1) / 2, {rank}
             FROM review_clusters q
             LEFT JOIN review_status l
               ON l.coder = :coder AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE {}{cond} ORDER BY {rank} {dir} LIMIT {limit} OFFSET {offset}",
            Self::queue_where(filter),
        );
        let search = Self::like_pattern(filter);
        let status = filter.status.map(LabelStatus::as_str);
        let p = Self::queue_params(&coder, filter, &search, &status);
        let mut st = self.conn().prepare_cached(&sql)?;
        let rows = st.query_map(p.as_slice(), |r| {
            Ok(QueueRow {
                run_id: r.get(0)?,
                method: r.get(1)?,
                cluster: r.get(2)?,
                size: r.get(3)?,
                min_score: r.get(4)?,
                max_score: r.get(5)?,
                status: LabelStatus::parse(&r.get::<_, String>(6)?),
                labeled: r.get(11)?,
                pairs: r.get(12)?,
                tags: parse_tags(&r.get::<_, String>(7)?),
                title: r.get(8)?,
                disagree: r.get::<_, i64>(9)? != 0,
                members: parse_key(&r.get::<_, String>(10)?),
                rank: r.get(13)?,
            })
        })?;
        let mut out: Vec<QueueRow> = rows.collect::<rusqlite::Result<_>>()?;
        if dir == "DESC" {
            out.reverse();
        }
        Ok(out)
    }

    /// The position of the first cluster not yet fully reviewed (unreviewed or partial) in
    /// the filtered, sorted queue.
    pub fn first_unreviewed(
        &self,
        coder: &str,
        filter: &QueueFilter,
        sort: QueueSort,
    ) -> Result<Option<u64>> {
        let rank = sort.rank_column();
        let from = format!(
            "FROM review_clusters q
             LEFT JOIN review_status l
               ON l.coder = :coder AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE {}",
            Self::queue_where(filter)
        );
        let search = Self::like_pattern(filter);
        let status = filter.status.map(LabelStatus::as_str);
        let p = Self::queue_params(&coder, filter, &search, &status);
        let first: Option<i64> = self
            .conn()
            .query_row(
                &format!(
                    "SELECT {rank} {from}
                       AND coalesce(l.status, 'unreviewed') IN ('unreviewed', 'partial')
                     ORDER BY {rank} LIMIT 1"
                ),
                p.as_slice(),
                |r| r.get(0),
            )
            .optional()?;
        let Some(first) = first else {
            return Ok(None);
        };
        let before: i64 = self.conn().query_row(
            &format!("SELECT count(*) {from} AND {rank} < {first}"),
            p.as_slice(),
            |r| r.get(0),
        )?;
        Ok(Some(before as u64))
    }

    /// The members of a cluster with what the cluster screen shows.
    pub fn cluster_members(&self, run: i64, cluster: i64) -> Result<Vec<ClusterMember>> {
        let mut st = self.conn().prepare(
            "SELECT d.id, d.url, d.title, octet_length(d.visible_text), d.dup_group
             FROM run_cluster_members m JOIN documents d ON d.id = m.doc_id
             WHERE m.run_id = ?1 AND m.cluster = ?2 ORDER BY d.id",
        )?;
        let rows = st.query_map([run, cluster], |r| {
            Ok(ClusterMember {
                id: r.get(0)?,
                url: r.get(1)?,
                title: r.get(2)?,
                bytes: r.get(3)?,
                dup_group: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The weakest bridge of a cluster (the edge whose removal splits it), if stored.
    pub fn cluster_bridge(&self, run: i64, cluster: i64) -> Result<Option<(i64, i64, f64)>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT bridge_a, bridge_b, bridge_score FROM run_clusters
                 WHERE run_id = ?1 AND cluster = ?2 AND bridge_a IS NOT NULL",
                [run, cluster],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?)
    }

    /// Pairs of a run inside a document set (for cutting a cluster at a bridge).
    pub fn run_pairs_within(&self, run: i64, members: &[i64]) -> Result<Vec<(i64, i64, f64)>> {
        let set: BTreeSet<i64> = members.iter().copied().collect();
        let mut st = self
            .conn()
            .prepare_cached("SELECT b, score FROM run_pairs WHERE run_id = ?1 AND a = ?2")?;
        let mut out = Vec::new();
        for &a in &set {
            let rows = st.query_map([run, a], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))?;
            for row in rows {
                let (b, s) = row?;
                if set.contains(&b) {
                    out.push((a, b, s));
                }
            }
        }
        Ok(out)
    }

    /// One document with both texts.
    pub fn review_document(&self, id: i64) -> Result<Option<ReviewDoc>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, url, title, visible_text, main_text, dup_group,
                   (SELECT c.text FROM content_texts c WHERE c.doc_id = documents.id)
                 FROM documents WHERE id = ?1",
                [id],
                |r| {
                    Ok(ReviewDoc {
                        id: r.get(0)?,
                        url: r.get(1)?,
                        title: r.get(2)?,
                        visible_text: r.get(3)?,
                        main_text: r.get(4)?,
                        dup_group: r.get(5)?,
                        content_text: r.get(6)?,
                    })
                },
            )
            .optional()?)
    }

    /// The first `max_chars` characters of a document's visible text.
    pub fn document_preview(&self, id: i64, max_chars: usize) -> Result<String> {
        Ok(self
            .conn()
            .query_row(
                "SELECT substr(visible_text, 1, ?2) FROM documents WHERE id = ?1",
                params![id, max_chars as i64],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or_default())
    }

    /// What the latest finished run of every method says about the pair (a, b).
    pub fn pair_evidence(&self, a: i64, b: i64) -> Result<Vec<PairEvidence>> {
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        let mut st = self.conn().prepare(
            "SELECT r.method, r.id, p.score, p.detail FROM runs r
             LEFT JOIN run_pairs p ON p.run_id = r.id AND p.a = ?1 AND p.b = ?2
             WHERE r.id IN (SELECT max(id) FROM runs WHERE finished_at IS NOT NULL
                            GROUP BY method)
             ORDER BY r.method",
        )?;
        let rows = st.query_map([a, b], |r| {
            Ok(PairEvidence {
                method: r.get(0)?,
                run_id: r.get(1)?,
                score: r.get(2)?,
                detail: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Reviewed / total clusters of the default queue (latest runs), for each coder who has
    /// decided anything plus `coder` itself.
    pub fn review_progress(&self, coder: &str) -> Result<Vec<Progress>> {
        let mut coders = self.coders()?;
        if !coders.iter().any(|c| c == coder) {
            coders.push(coder.to_string());
            coders.sort();
        }
        let total: i64 = self.conn().query_row(
            "SELECT count(*) FROM review_clusters WHERE latest = 1",
            [],
            |r| r.get(0),
        )?;
        let mut st = self.conn().prepare(
            "SELECT count(*) FROM review_clusters q JOIN review_status l
               ON l.coder = ?1 AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE q.latest = 1 AND l.status NOT IN ('unreviewed', 'partial')",
        )?;
        let mut out = Vec::new();
        for c in coders {
            let reviewed: i64 = st.query_row([&c], |r| r.get(0))?;
            out.push(Progress {
                coder: c,
                reviewed: reviewed as u64,
                total: total as u64,
            });
        }
        Ok(out)
    }

    /// Cohen's kappa of two coders on the pairs both labeled "same" or "different".
    pub fn agreement(&self, coder_a: &str, coder_b: &str) -> Result<Agreement> {
        let mut st = self.conn().prepare(
            "SELECT x.label, y.label, count(*) FROM pair_labels x JOIN pair_labels y
               ON y.a = x.a AND y.b = x.b AND y.coder = ?2
             WHERE x.coder = ?1 AND x.label != 'unsure' AND y.label != 'unsure'
             GROUP BY 1, 2",
        )?;
        let mut table: BTreeMap<(bool, bool), u64> = BTreeMap::new();
        let rows = st.query_map([coder_a, coder_b], |r| {
            Ok((
                r.get::<_, String>(0)? == "same",
                r.get::<_, String>(1)? == "same",
                r.get::<_, i64>(2)? as u64,
            ))
        })?;
        for row in rows {
            let (x, y, n) = row?;
            *table.entry((x, y)).or_default() += n;
        }
        let cell = |x, y| *table.get(&(x, y)).unwrap_or(&0) as f64;
        Ok(cohens_kappa(
            coder_a,
            coder_b,
            [
                [cell(true, true), cell(true, false)],
                [cell(false, true), cell(false, false)],
            ],
        ))
    }

    /// Agreement of every pair of coders.
    pub fn agreements(&self) -> Result<Vec<Agreement>> {
        let coders = self.coders()?;
        let mut out = Vec::new();
        for (i, a) in coders.iter().enumerate() {
            for b in &coders[i + 1..] {
                out.push(self.agreement(a, b)?);
            }
        }
        Ok(out)
    }

    /// Inserts one document directly, bypassing readers and extractors (tests and benches).
    #[doc(hidden)]
    pub fn insert_test_document(
        &mut self,
        url: &str,
        title: &str,
        visible_text: &str,
        main_text: Option<&str>,
    ) -> Result<i64> {
        use sha1::{Digest, Sha1};
        let source = self.begin_source("test-documents", 0, "test-documents", "text", "{}")?;
        let offset: i64 = self.conn().query_row(
            "SELECT coalesce(max(record_offset), -1) + 1 FROM documents WHERE source_id = ?1",
            [source],
            |r| r.get(0),
        )?;
        let hash: String = Sha1::digest(visible_text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        self.conn().execute(
            "INSERT INTO documents(source_id, record_offset, record_length, compression,
               record_type, url, title, encoding, text_hash, visible_text, main_text, dup_group)
             VALUES (?1, ?2, 0, 'none', 'resource', ?3, ?4, 'utf-8', ?5, ?6, ?7,
               (SELECT coalesce(min(id), (SELECT coalesce(max(id), 0) + 1 FROM documents))
                FROM documents WHERE text_hash = ?5))",
            params![source, offset, url, title, hash, visible_text, main_text],
        )?;
        Ok(self.conn().last_insert_rowid())
    }
}

/// One cluster of a finished run as the queue table stores it.
struct QueueEntry {
    run_id: i64,
    cluster: i64,
    method: String,
    latest: bool,
    size: i64,
    min_score: Option<f64>,
    max_score: Option<f64>,
    members: Vec<i64>,
    title: String,
    disagree: bool,
}

/// Every cluster (two members or more) of every finished run, with its sorted members, the
/// first member's title (or URL) and whether the latest run of another method separates
/// any of its members (a member another run leaves unclustered counts as separated).
/// Computed in memory from one ordered scan of each run's members.
fn build_queue(conn: &Connection) -> Result<Vec<QueueEntry>> {
    let runs: Vec<(i64, String)> = {
        let mut st =
            conn.prepare("SELECT id, method FROM runs WHERE finished_at IS NOT NULL ORDER BY id")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut latest: BTreeMap<String, i64> = BTreeMap::new();
    for (id, method) in &runs {
        latest.insert(method.clone(), *id);
    }
    let mut cluster_of: HashMap<i64, HashMap<i64, i64>> = HashMap::new();
    let mut entries = Vec::new();
    let mut info_st = conn.prepare(
        "SELECT cluster, size, min_score, max_score FROM run_clusters
         WHERE run_id = ?1 AND size >= 2",
    )?;
    let mut members_st = conn.prepare(
        "SELECT cluster, doc_id FROM run_cluster_members WHERE run_id = ?1
         ORDER BY cluster, doc_id",
    )?;
    for (run, method) in &runs {
        let is_latest = latest.get(method) == Some(run);
        let mut info: HashMap<i64, (i64, Option<f64>, Option<f64>)> = HashMap::new();
        for row in info_st.query_map([run], |r| {
            Ok((r.get::<_, i64>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
        })? {
            let (c, i) = row?;
            info.insert(c, i);
        }
        let mut docs_of: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
        let mut map: HashMap<i64, i64> = HashMap::new();
        for row in
            members_st.query_map([run], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
        {
            let (c, d) = row?;
            if is_latest {
                map.insert(d, c);
            }
            if info.contains_key(&c) {
                docs_of.entry(c).or_default().push(d);
            }
        }
        if is_latest {
            cluster_of.insert(*run, map);
        }
        for (c, members) in docs_of {
            let (size, min_score, max_score) = info[&c];
            entries.push(QueueEntry {
                run_id: *run,
                cluster: c,
                method: method.clone(),
                latest: is_latest,
                size,
                min_score,
                max_score,
                members,
                title: String::new(),
                disagree: false,
            });
        }
    }
    let mut title_st = conn.prepare_cached(
        "SELECT CASE WHEN title = '' THEN url ELSE title END FROM documents WHERE id = ?1",
    )?;
    for e in &mut entries {
        if let Some(first) = e.members.first() {
            e.title = title_st
                .query_row([first], |r| r.get(0))
                .optional()?
                .unwrap_or_default();
        }
        e.disagree = latest.iter().any(|(m, run)| {
            *m != e.method
                && cluster_of.get(run).is_some_and(|map| {
                    let mut seen = e.members.iter().map(|d| map.get(d).copied().unwrap_or(-d));
                    let first = seen.next();
                    seen.any(|c| Some(c) != first)
                })
        });
    }
    Ok(entries)
}

/// Replaces the queue table with `entries`, numbering them in each queue order.
fn write_queue(conn: &Connection, entries: &[QueueEntry]) -> Result<()> {
    // ranks[i][k]: the position of entry i in order QueueSort::ALL[k] (the column order below).
    let mut ranks = vec![[0i64; 4]; entries.len()];
    for (k, sort) in QueueSort::ALL.into_iter().enumerate() {
        let mut idx: Vec<usize> = (0..entries.len()).collect();
        idx.sort_by(|&i, &j| queue_order(sort, &entries[i], &entries[j]));
        for (pos, i) in idx.into_iter().enumerate() {
            ranks[i][k] = pos as i64 + 1;
        }
    }
    // A bulk insert, then the indexes built once (faster than updating them row by row).
    conn.execute_batch(QUEUE_DROP_INDEXES)?;
    conn.execute("DELETE FROM review_clusters", [])?;
    let mut st = conn.prepare(
        "INSERT INTO review_clusters(run_id, cluster, method, latest, size, min_score,
           max_score, members_key, title, disagree, rank_size_desc, rank_size_asc,
           rank_score_desc, rank_score_asc)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    for (e, r) in entries.iter().zip(&ranks) {
        st.execute(params![
            e.run_id,
            e.cluster,
            e.method,
            e.latest,
            e.size,
            e.min_score,
            e.max_score,
            target_key(&e.members),
            e.title,
            e.disagree,
            r[0],
            r[1],
            r[2],
            r[3]
        ])?;
    }
    conn.execute_batch(QUEUE_INDEXES)?;
    Ok(())
}

/// The order of the queue under `sort` (ties broken by run and cluster, so it is total).
fn queue_order(sort: QueueSort, a: &QueueEntry, b: &QueueEntry) -> std::cmp::Ordering {
    // A missing score sorts as SQLite sorts NULL: lowest.
    let score = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (a, b) => a.is_some().cmp(&b.is_some()),
    };
    let first = match sort {
        QueueSort::SizeDesc => b.size.cmp(&a.size).then(score(b.max_score, a.max_score)),
        QueueSort::SizeAsc => a.size.cmp(&b.size).then(score(b.max_score, a.max_score)),
        QueueSort::ScoreDesc => score(b.max_score, a.max_score).then(b.size.cmp(&a.size)),
        QueueSort::ScoreAsc => score(a.min_score, b.min_score).then(b.size.cmp(&a.size)),
    };
    first.then((a.run_id, a.cluster).cmp(&(b.run_id, b.cluster)))
}

/// The queue table's indexes: one per queue order, `latest` included for the default filter.
const QUEUE_INDEXES: &str = "
    CREATE INDEX review_clusters_size_desc ON review_clusters(rank_size_desc, latest);
    CREATE INDEX review_clusters_size_asc ON review_clusters(rank_size_asc, latest);
    CREATE INDEX review_clusters_score_desc ON review_clusters(rank_score_desc, latest);
    CREATE INDEX review_clusters_score_asc ON review_clusters(rank_score_asc, latest);";

const QUEUE_DROP_INDEXES: &str = "
    DROP INDEX IF EXISTS review_clusters_size_desc;
    DROP INDEX IF EXISTS review_clusters_size_asc;
    DROP INDEX IF EXISTS review_clusters_score_desc;
    DROP INDEX IF EXISTS review_clusters_score_asc;";

/// A derived status row of one queue cluster for one coder.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct StatusRow {
    status: LabelStatus,
    labeled: i64,
    pairs: i64,
    tags: String,
    note: Option<String>,
}

/// Recomputes the derived status of queue cluster (`run`, `cluster`) with sorted `members`
/// for `coder` from the pair labels and the labeled sets over its documents.
fn update_cluster_status(
    conn: &Connection,
    coder: &str,
    run: i64,
    cluster: i64,
    members: &[i64],
) -> Result<()> {
    let row = compute_cluster_status(conn, coder, members)?;
    write_cluster_status(conn, coder, run, cluster, row.as_ref())
}

/// The derived status of a cluster with sorted `members` for `coder`, from the pair labels
/// and the labeled sets over its documents; None when nothing labels it (no row is kept).
pub(super) fn compute_cluster_status(
    conn: &Connection,
    coder: &str,
    members: &[i64],
) -> Result<Option<StatusRow>> {
    let set: HashSet<i64> = members.iter().copied().collect();
    let n = set.len() as i64;
    let pairs = n * (n - 1) / 2;
    let (mut same, mut different, mut unsure) = (0i64, 0i64, 0i64);
    {
        // Pair labels are stored with a < b: each member pair is seen once, from its a.
        let mut st =
            conn.prepare_cached("SELECT b, label FROM pair_labels WHERE coder = ?1 AND a = ?2")?;
        for &a in &set {
            let mut rows = st.query(params![coder, a])?;
            while let Some(r) = rows.next()? {
                if set.contains(&r.get::<_, i64>(0)?) {
                    match r.get_ref(1)?.as_str()? {
                        "same" => same += 1,
                        "different" => different += 1,
                        _ => unsure += 1,
                    }
                }
            }
        }
    }
    // Labeled sets with at least two members of the cluster.
    let mut shared: HashMap<String, usize> = HashMap::new();
    {
        let mut st =
            conn.prepare_cached("SELECT target FROM label_docs WHERE coder = ?1 AND doc_id = ?2")?;
        for &a in &set {
            for t in st.query_map(params![coder, a], |r| r.get::<_, String>(0))? {
                *shared.entry(t?).or_default() += 1;
            }
        }
    }
    let mut tags: BTreeSet<String> = BTreeSet::new();
    let mut note: Option<(i64, String)> = None;
    {
        let mut st = conn.prepare_cached(
            "SELECT tags, note, decision_id FROM labels WHERE coder = ?1 AND target = ?2",
        )?;
        for (target, k) in shared {
            if k < 2 {
                continue;
            }
            let row = st
                .query_row(params![coder, target], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .optional()?;
            if let Some((t, nt, id)) = row {
                tags.extend(parse_tags(&t));
                if let Some(nt) = nt {
                    if note.as_ref().is_none_or(|(i, _)| id > *i) {
                        note = Some((id, nt));
                    }
                }
            }
        }
    }
    let status = derive_status(same, different, unsure, pairs);
    if status == LabelStatus::Unreviewed && tags.is_empty() && note.is_none() {
        return Ok(None);
    }
    Ok(Some(StatusRow {
        status,
        labeled: same + different + unsure,
        pairs,
        tags: serde_json::to_string(&tags)?,
        note: note.map(|(_, n)| n),
    }))
}

/// Stores (or, for None, deletes) the derived status of queue cluster (`run`, `cluster`).
pub(super) fn write_cluster_status(
    conn: &Connection,
    coder: &str,
    run: i64,
    cluster: i64,
    row: Option<&StatusRow>,
) -> Result<()> {
    match row {
        None => {
            conn.prepare_cached(
                "DELETE FROM review_status WHERE coder = ?1 AND run_id = ?2 AND cluster = ?3",
            )?
            .execute(params![coder, run, cluster])?;
        }
        Some(r) => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO review_status(coder, run_id, cluster, status, labeled,
                   pairs, tags, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                coder,
                run,
                cluster,
                r.status.as_str(),
                r.labeled,
                r.pairs,
                r.tags,
                r.note
            ])?;
        }
    }
    Ok(())
}

/// The queue clusters with at least two documents of `target` (the only clusters whose pair
/// labels or covering labels a decision on `target` changes), with their sorted members.
pub(super) fn affected_clusters(
    conn: &Connection,
    target: &[i64],
) -> Result<Vec<(i64, i64, Vec<i64>)>> {
    let runs: Vec<i64> = {
        // A run finished since the last queue refresh has no queue rows yet: skipped below.
        let mut st = conn.prepare_cached("SELECT id FROM runs WHERE finished_at IS NOT NULL")?;
        let rows = st.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let docs: BTreeSet<i64> = target.iter().copied().collect();
    let mut hits: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    {
        let mut st = conn.prepare_cached(
            "SELECT cluster FROM run_cluster_members WHERE run_id = ?1 AND doc_id = ?2",
        )?;
        for &run in &runs {
            for &d in &docs {
                for c in st.query_map([run, d], |r| r.get::<_, i64>(0))? {
                    *hits.entry((run, c?)).or_default() += 1;
                }
            }
        }
    }
    let mut st = conn.prepare_cached(
        "SELECT members_key FROM review_clusters WHERE run_id = ?1 AND cluster = ?2",
    )?;
    let mut out = Vec::new();
    for ((run, cluster), k) in hits {
        if k < 2 {
            continue;
        }
        let key: Option<String> = st.query_row([run, cluster], |r| r.get(0)).optional()?;
        if let Some(key) = key {
            out.push((run, cluster, parse_key(&key)));
        }
    }
    Ok(out)
}

/// Recomputes the statuses of `clusters` (run, cluster) that are in the queue.
fn update_clusters(conn: &Connection, coder: &str, clusters: &[(i64, i64)]) -> Result<()> {
    let mut st = conn.prepare_cached(
        "SELECT members_key FROM review_clusters WHERE run_id = ?1 AND cluster = ?2",
    )?;
    for &(run, cluster) in clusters {
        let key: Option<String> = st.query_row([run, cluster], |r| r.get(0)).optional()?;
        if let Some(key) = key {
            update_cluster_status(conn, coder, run, cluster, &parse_key(&key))?;
        }
    }
    Ok(())
}

/// Recomputes every coder's cluster statuses (after the queue's clusters changed).
fn rebuild_statuses(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM review_status", [])?;
    let coders: Vec<String> = {
        let mut st = conn.prepare("SELECT DISTINCT coder FROM label_docs")?;
        let rows = st.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut st = conn.prepare(
        "SELECT DISTINCT run_id, cluster FROM (
           SELECT m.run_id, m.cluster FROM label_docs ld
           JOIN (SELECT DISTINCT run_id FROM review_clusters) r
           JOIN run_cluster_members m ON m.run_id = r.run_id AND m.doc_id = ld.doc_id
           WHERE ld.coder = ?1
           GROUP BY ld.target, m.run_id, m.cluster HAVING count(*) >= 2)",
    )?;
    for coder in coders {
        let affected: Vec<(i64, i64)> = st
            .query_map([&coder], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        update_clusters(conn, &coder, &affected)?;
    }
    Ok(())
}

/// Cohen's kappa from a 2×2 table `[[same,same],[same,diff]],[[diff,same],[diff,diff]]`
/// (rows: coder a, columns: coder b).
pub(crate) fn cohens_kappa(a: &str, b: &str, t: [[f64; 2]; 2]) -> Agreement {
    let n = t[0][0] + t[0][1] + t[1][0] + t[1][1];
    let agreed = t[0][0] + t[1][1];
    let kappa = if n == 0.0 {
        None
    } else {
        let po = agreed / n;
        let a_same = (t[0][0] + t[0][1]) / n;
        let b_same = (t[0][0] + t[1][0]) / n;
        let pe = a_same * b_same + (1.0 - a_same) * (1.0 - b_same);
        if (1.0 - pe).abs() < 1e-12 {
            None
        } else {
            Some((po - pe) / (1.0 - pe))
        }
    };
    Agreement {
        coder_a: a.to_string(),
        coder_b: b.to_string(),
        shared_pairs: n as u64,
        agreed: agreed as u64,
        kappa,
    }
}

/// The one-transaction path the decisions took before the log and the derived labels were
/// written apart: kept as the reference the tests compare the new path with.
#[cfg(test)]
pub(super) mod reference {
    use super::*;
    use rusqlite::{named_params, Transaction};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ClusterRow;

    fn store_with_docs(n: usize) -> (tempfile::TempDir, Store, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let ids = (0..n)
            .map(|i| {
                s.insert_test_document(
                    &format!("http://example.org/{i}"),
                    &format!("Page {i}"),
                    &format!("text of page {i}"),
                    None,
                )
                .unwrap()
            })
            .collect();
        (dir, s, ids)
    }

    fn run_with(s: &mut Store, method: &str, clusters: &[Vec<i64>]) -> i64 {
        let r = s.create_run(method, &json!({})).unwrap();
        let rows: Vec<ClusterRow> = clusters
            .iter()
            .map(|m| ClusterRow {
                members: m.clone(),
                min_score: Some(0.5),
                max_score: Some(0.9),
                weakest_bridge: None,
            })
            .collect();
        s.write_run_clusters(r, &rows).unwrap();
        s.finish_run(r, &json!({})).unwrap();
        r
    }

    #[test]
    fn status_follows_the_pair_labels() {
        use LabelStatus::*;
        assert_eq!(derive_status(0, 0, 0, 3), Unreviewed);
        assert_eq!(derive_status(2, 0, 0, 3), Partial);
        assert_eq!(derive_status(0, 1, 0, 3), Partial);
        assert_eq!(derive_status(3, 0, 0, 3), Confirmed);
        assert_eq!(derive_status(0, 3, 0, 3), Rejected);
        assert_eq!(derive_status(1, 2, 0, 3), Split);
        assert_eq!(derive_status(2, 0, 1, 3), Unsure);
    }

    #[test]
    fn a_rerun_that_adds_or_drops_a_member_keeps_what_the_labels_say() {
        let (_d, mut s, ids) = store_with_docs(6);
        let d = |i: usize| ids[i];
        run_with(
            &mut s,
            "spotsigs",
            &[vec![d(0), d(1), d(2)], vec![d(3), d(4)]],
        );
        s.refresh_review_queue().unwrap();
        s.record_decision("ann", "confirm", &[d(0), d(1), d(2)], json!({}))
            .unwrap();
        s.record_decision("ann", "tag", &[d(0), d(1), d(2)], json!({"tag": "wire"}))
            .unwrap();
        s.record_decision("ann", "reject", &[d(3), d(4)], json!({}))
            .unwrap();
        let f = QueueFilter::default();
        let status = |s: &Store, members: &[i64]| {
            let rows = s.queue_page("ann", &f, QueueSort::SizeDesc, 0, 10).unwrap();
            let r = rows.into_iter().find(|r| r.members == members).unwrap();
            (r.status, r.labeled, r.pairs, r.tags)
        };
        // A rerun adds document 5 to the story and drops document 2 from the other one.
        let r2 = run_with(
            &mut s,
            "spotsigs",
            &[vec![d(0), d(1), d(2), d(5)], vec![d(3)], vec![d(4)]],
        );
        s.refresh_review_queue().unwrap();
        assert_eq!(
            status(&s, &[d(0), d(1), d(2), d(5)]),
            (LabelStatus::Partial, 3, 6, vec!["wire".to_string()])
        );
        assert_eq!(
            s.queue_len("ann", &f).unwrap(),
            1,
            "singletons are not queued"
        );
        assert_eq!(
            s.first_unreviewed("ann", &f, QueueSort::SizeDesc).unwrap(),
            Some(0),
            "a partly reviewed cluster still needs review"
        );
        assert_eq!(s.review_progress("ann").unwrap()[0].reviewed, 0);
        assert_eq!(
            s.cluster_review("ann", r2, 1).unwrap(),
            ClusterReview {
                status: LabelStatus::Partial,
                labeled: 3,
                pairs: 6,
                tags: vec!["wire".into()],
                note: None
            }
        );
        // Another rerun drops document 2 from the story and merges 2 into the rejected pair.
        run_with(
            &mut s,
            "spotsigs",
            &[vec![d(0), d(1)], vec![d(2), d(3), d(4)]],
        );
        s.refresh_review_queue().unwrap();
        assert_eq!(
            status(&s, &[d(0), d(1)]),
            (LabelStatus::Confirmed, 1, 1, vec!["wire".to_string()])
        );
        assert_eq!(
            status(&s, &[d(2), d(3), d(4)]).0,
            LabelStatus::Partial,
            "only (3,4) is labeled"
        );
        // Labeling the new pairs finishes it: (2,3), (2,4) different → rejected as a whole.
        s.record_decision("ann", "reject", &[d(2), d(3)], json!({}))
            .unwrap();
        s.record_decision("ann", "reject", &[d(2), d(4)], json!({}))
            .unwrap();
        assert_eq!(
            status(&s, &[d(2), d(3), d(4)]),
            (LabelStatus::Rejected, 3, 3, vec![])
        );
        assert_eq!(s.review_progress("ann").unwrap()[0].reviewed, 2);
        // Confirming one pair of it makes the labels mixed: a split.
        let c = s
            .record_decision("ann", "confirm", &[d(3), d(4)], json!({}))
            .unwrap();
        assert_eq!(status(&s, &[d(2), d(3), d(4)]).0, LabelStatus::Split);
        // Undo brings the rejection back; the maintained statuses equal a rebuild.
        s.record_undo("ann", c.id).unwrap();
        assert_eq!(status(&s, &[d(2), d(3), d(4)]).0, LabelStatus::Rejected);
        let kept = s.review_status_rows().unwrap();
        s.rebuild_review_statuses().unwrap();
        assert_eq!(s.review_status_rows().unwrap(), kept);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The statuses kept up to date decision by decision equal a rebuild from scratch.
        #[test]
        fn incremental_statuses_equal_a_rebuild(
            clusters in proptest::collection::vec(0usize..3, 7),
            decisions in proptest::collection::vec(
                (0u8..6, proptest::collection::btree_set(0usize..7, 1..5)), 1..8),
        ) {
            let (_d, mut s, ids) = store_with_docs(7);
            // Two runs: one from the generated assignment, one with every document paired
            // with its neighbour.
            let mut groups: Vec<Vec<i64>> = vec![Vec::new(); 3];
            for (doc, c) in clusters.iter().enumerate() {
                groups[*c].push(ids[doc]);
            }
            groups.retain(|g| !g.is_empty());
            run_with(&mut s, "spotsigs", &groups);
            run_with(&mut s, "imatch", &[ids[0..2].to_vec(), ids[2..5].to_vec(), ids[5..7].to_vec()]);
            s.refresh_review_queue().unwrap();
            let mut last: Vec<i64> = Vec::new();
            for (kind, docs) in decisions {
                let target: Vec<i64> = docs.iter().map(|i| ids[*i]).collect();
                let row = match kind {
                    0 => s.record_decision("ann", "confirm", &target, json!({})),
                    1 => s.record_decision("ann", "reject", &target, json!({})),
                    2 => s.record_decision("ann", "split", &target,
                        json!({"groups": [target[..target.len() / 2].to_vec()]})),
                    3 => s.record_decision("ann", "tag", &target, json!({"tag": "t"})),
                    4 => s.record_decision("ann", "unsure", &target, json!({})),
                    _ => match last.pop() {
                        Some(id) => s.record_undo("ann", id),
                        None => continue,
                    },
                }.unwrap();
                if kind < 5 {
                    last.push(row.id);
                }
            }
            let kept = s.review_status_rows().unwrap();
            s.rebuild_review_statuses().unwrap();
            proptest::prop_assert_eq!(s.review_status_rows().unwrap(), kept);
        }
    }

    #[test]
    fn pages_read_after_before_or_from_the_end_equal_pages_read_by_offset() {
        let (_d, mut s, ids) = store_with_docs(2 * 130);
        // 130 clusters of 2, with sizes and scores full of ties.
        let r = s.create_run("spotsigs", &json!({})).unwrap();
        let rows: Vec<ClusterRow> = (0..130)
            .map(|i| ClusterRow {
                members: vec![ids[2 * i], ids[2 * i + 1]],
                min_score: (i % 7 != 0).then_some((i % 3) as f64 / 10.0),
                max_score: (i % 5 != 0).then_some((i % 4) as f64 / 10.0),
                weakest_bridge: None,
            })
            .collect();
        s.write_run_clusters(r, &rows).unwrap();
        s.finish_run(r, &json!({})).unwrap();
        s.refresh_review_queue().unwrap();
        let f = QueueFilter::default();
        for sort in QueueSort::ALL {
            let all = s.queue_page("ann", &f, sort, 0, 1000).unwrap();
            assert_eq!(all.len(), 130);
            let key = |r: &QueueRow| (r.run_id, r.cluster);
            let keys: Vec<_> = all.iter().map(key).collect();
            let read = |at| -> Vec<(i64, i64)> {
                s.queue_rows("ann", &f, sort, at, 40)
                    .unwrap()
                    .iter()
                    .map(key)
                    .collect()
            };
            assert_eq!(read(PageAt::Offset(40)), keys[40..80]);
            assert_eq!(read(PageAt::After(all[39].rank)), keys[40..80]);
            assert_eq!(read(PageAt::Before(all[80].rank)), keys[40..80]);
            assert_eq!(read(PageAt::FromEnd(10)), keys[80..120]);
            // The order is the one the sort names.
            let score = |x: Option<f64>| x.unwrap_or(f64::NEG_INFINITY);
            for w in all.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                match sort {
                    QueueSort::SizeDesc | QueueSort::SizeAsc => {
                        assert!(score(a.max_score) >= score(b.max_score) || a.size != b.size)
                    }
                    QueueSort::ScoreDesc => assert!(score(a.max_score) >= score(b.max_score)),
                    QueueSort::ScoreAsc => assert!(score(a.min_score) <= score(b.min_score)),
                }
            }
        }
    }

    #[test]
    fn kappa_matches_a_hand_computed_table() {
        // 20 same/same, 5 same/diff, 10 diff/same, 15 diff/diff: po = 0.7,
        // pa_same = 0.5, pb_same = 0.6, pe = 0.3 + 0.2 = 0.5, kappa = 0.4.
        let k = cohens_kappa("a", "b", [[20.0, 5.0], [10.0, 15.0]]);
        assert_eq!(k.shared_pairs, 50);
        assert_eq!(k.agreed, 35);
        assert!((k.kappa.unwrap() - 0.4).abs() < 1e-12, "{k:?}");
        assert_eq!(cohens_kappa("a", "b", [[0.0; 2]; 2]).kappa, None);
    }

    #[test]
    fn kappa_from_two_coders_labels() {
        let (_d, mut s, ids) = store_with_docs(4);
        // ann: all four are one story (6 pairs same). bob: {0,1} vs {2,3}
        // → pairs (0,1),(2,3) same, the 4 cross pairs different.
        s.record_decision("ann", "confirm", &ids, json!({}))
            .unwrap();
        s.record_decision(
            "bob",
            "split",
            &ids,
            json!({"groups": [[ids[0], ids[1]], [ids[2], ids[3]]]}),
        )
        .unwrap();
        let k = s.agreement("ann", "bob").unwrap();
        // Table: same/same 2, same/diff 4, diff/* 0: po = 1/3, pa_same = 1, pe = pb_same
        // = 1/3 → kappa = 0 / (2/3) = 0.
        assert_eq!(k.shared_pairs, 6);
        assert_eq!(k.agreed, 2);
        assert_eq!(k.kappa, Some(0.0));
        assert_eq!(s.agreements().unwrap().len(), 1);
    }

    #[test]
    fn decisions_survive_reopen_and_undo_redo_rebuild_labels() {
        let (dir, mut s, ids) = store_with_docs(3);
        let c = s
            .record_decision("ann", "confirm", &ids[..2], json!({}))
            .unwrap();
        let t = s
            .record_decision("ann", "tag", &ids[..2], json!({"tag": "wire"}))
            .unwrap();
        assert_eq!(t.previous["status"], "confirmed");
        drop(s);
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let l = s.label("ann", &[ids[1], ids[0]]).unwrap();
        assert_eq!(l.status, LabelStatus::Confirmed);
        assert_eq!(l.tags, vec!["wire"]);
        assert_eq!(s.all_tags().unwrap(), vec!["wire"]);
        let u = s.record_undo("ann", t.id).unwrap();
        assert!(s.label("ann", &ids[..2]).unwrap().tags.is_empty());
        assert_eq!(
            s.label("ann", &ids[..2]).unwrap().status,
            LabelStatus::Confirmed
        );
        s.record_undo("ann", c.id).unwrap();
        assert_eq!(s.label("ann", &ids[..2]).unwrap(), Label::default());
        assert_eq!(s.pair_label("ann", ids[0], ids[1]).unwrap(), None);
        s.record_redo("ann", u.id).unwrap();
        assert_eq!(s.label("ann", &ids[..2]).unwrap().tags, vec!["wire"]);
        assert!(
            s.record_undo("bob", c.id).is_err(),
            "one coder cannot undo another's"
        );
        assert!(
            s.record_undo("ann", u.id).is_err(),
            "an undo is redone, not undone"
        );
        // Nothing was deleted: 2 decisions, 2 undos, 1 redo.
        assert_eq!(s.decision_log("ann").unwrap().len(), 5);
    }

    #[test]
    fn labels_survive_a_detector_rerun_and_queue_filters_work() {
        let (_d, mut s, ids) = store_with_docs(6);
        run_with(
            &mut s,
            "spotsigs",
            &[vec![ids[0], ids[1], ids[2]], vec![ids[3], ids[4]]],
        );
        s.refresh_review_queue().unwrap();
        let f = QueueFilter::default();
        let page = s.queue_page("ann", &f, QueueSort::SizeDesc, 0, 10).unwrap();
        assert_eq!(page.len(), 2);
        assert_eq!(page[0].members, ids[..3].to_vec());
        s.record_decision("ann", "confirm", &page[1].members, json!({}))
            .unwrap();
        // A rerun numbers the same member sets the other way round.
        run_with(
            &mut s,
            "spotsigs",
            &[vec![ids[3], ids[4]], vec![ids[0], ids[1], ids[2]]],
        );
        s.refresh_review_queue().unwrap();
        let page = s.queue_page("ann", &f, QueueSort::SizeAsc, 0, 10).unwrap();
        assert_eq!(page.len(), 2, "the old run is superseded");
        assert_eq!(page[0].cluster, 1);
        assert_eq!(page[0].status, LabelStatus::Confirmed);
        assert_eq!(page[1].status, LabelStatus::Unreviewed);
        assert_eq!(
            s.first_unreviewed("ann", &f, QueueSort::SizeAsc).unwrap(),
            Some(1)
        );
        let all = QueueFilter {
            all_runs: true,
            ..f.clone()
        };
        assert_eq!(s.queue_len("ann", &all).unwrap(), 4);
        let confirmed = QueueFilter {
            status: Some(LabelStatus::Confirmed),
            ..f.clone()
        };
        assert_eq!(s.queue_len("ann", &confirmed).unwrap(), 1);
        let search = QueueFilter {
            search: Some("example.org/1".into()),
            ..f.clone()
        };
        assert_eq!(s.queue_len("ann", &search).unwrap(), 1);
        let p = s.review_progress("ann").unwrap();
        assert_eq!(
            p,
            vec![Progress {
                coder: "ann".into(),
                reviewed: 1,
                total: 2
            }]
        );
    }

    #[test]
    fn disagreement_marks_clusters_another_method_splits() {
        let (_d, mut s, ids) = store_with_docs(5);
        run_with(
            &mut s,
            "spotsigs",
            &[vec![ids[0], ids[1], ids[2]], vec![ids[3], ids[4]]],
        );
        run_with(
            &mut s,
            "imatch",
            &[vec![ids[0], ids[1]], vec![ids[3], ids[4]]],
        );
        s.refresh_review_queue().unwrap();
        let f = QueueFilter {
            disagree_only: true,
            ..QueueFilter::default()
        };
        let rows = s.queue_page("x", &f, QueueSort::SizeDesc, 0, 10).unwrap();
        // spotsigs {0,1,2}: imatch leaves 2 out; imatch {0,1} is kept together by spotsigs.
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].method, "spotsigs");
        assert_eq!(rows[0].members, ids[..3].to_vec());
    }
}
