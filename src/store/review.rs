//! Review data: the append-only decision log of the coders, the labels derived from it, the
//! paged review queue over the clusters of every detector run, progress and inter-coder
//! agreement. Decisions name document sets (sorted ids), never cluster ids, so a label
//! survives a detector rerun that renumbers its clusters.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::{bail, Result};
use rusqlite::{named_params, params, OptionalExtension, Transaction};
use serde::Serialize;
use serde_json::{json, Value};

use super::Store;

/// A coder's verdict on a document set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default, Hash)]
pub enum LabelStatus {
    #[default]
    Unreviewed,
    Confirmed,
    Split,
    Rejected,
    Unsure,
}

impl LabelStatus {
    pub const ALL: [LabelStatus; 5] = [
        LabelStatus::Unreviewed,
        LabelStatus::Confirmed,
        LabelStatus::Split,
        LabelStatus::Rejected,
        LabelStatus::Unsure,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LabelStatus::Unreviewed => "unreviewed",
            LabelStatus::Confirmed => "confirmed",
            LabelStatus::Split => "split",
            LabelStatus::Rejected => "rejected",
            LabelStatus::Unsure => "unsure",
        }
    }

    pub fn parse(s: &str) -> LabelStatus {
        match s {
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
    fn to_json(&self) -> Value {
        json!({"status": self.status.as_str(), "tags": self.tags, "note": self.note})
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

    fn order_by(self) -> &'static str {
        // The trailing keys make the order total, so paging never repeats or skips a row.
        match self {
            QueueSort::SizeDesc => "q.size DESC, q.max_score DESC, q.run_id, q.cluster",
            QueueSort::SizeAsc => "q.size ASC, q.max_score DESC, q.run_id, q.cluster",
            QueueSort::ScoreDesc => "q.max_score DESC, q.size DESC, q.run_id, q.cluster",
            QueueSort::ScoreAsc => "q.min_score ASC, q.size DESC, q.run_id, q.cluster",
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
    pub status: LabelStatus,
    pub tags: Vec<String>,
    pub title: String,
    pub disagree: bool,
    /// The member document ids, sorted.
    pub members: Vec<i64>,
}

/// One member of a cluster as the cluster screen lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterMember {
    pub id: i64,
    pub url: String,
    pub title: String,
    pub chars: i64,
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

const DECISION_ACTIONS: &[&str] = &[
    "confirm", "split", "reject", "unsure", "tag", "untag", "note",
];

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

fn row_to_decision(r: &rusqlite::Row<'_>) -> rusqlite::Result<DecisionRow> {
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

const DECISION_COLUMNS: &str = "id, coder, time, action, target, payload, previous, undoes";

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
    /// Appends a decision (confirm, split, reject, unsure, tag, untag, note) and updates the
    /// derived labels, in one committed transaction. Returns the new row.
    pub fn record_decision(
        &mut self,
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
        let tx = self.conn.transaction()?;
        let previous = read_label(&tx, coder, &key)?.to_json();
        let row = insert_log_row(&tx, coder, action, &key, &payload, &previous, None)?;
        apply_decision(&tx, &row)?;
        tx.commit()?;
        Ok(row)
    }

    /// Undoes decision `id` of `coder` by appending an `undo` row, then rebuilds the coder's
    /// labels from the log.
    pub fn record_undo(&mut self, coder: &str, id: i64) -> Result<DecisionRow> {
        let undone = self.decision(id)?;
        if undone.coder != coder || !DECISION_ACTIONS.contains(&undone.action.as_str()) {
            bail!("decision {id} is not a decision of {coder} that can be undone");
        }
        self.append_reversal(coder, "undo", &undone.target, id)
    }

    /// Redoes the undo row `undo_id` by appending a `redo` row, then rebuilds the labels.
    pub fn record_redo(&mut self, coder: &str, undo_id: i64) -> Result<DecisionRow> {
        let undo = self.decision(undo_id)?;
        if undo.action != "undo" || undo.coder != coder {
            bail!("decision {undo_id} is not an undo");
        }
        self.append_reversal(coder, "redo", &undo.target, undo_id)
    }

    /// Appends an `undo` or `redo` row referring to row `refers`, then rebuilds the coder's
    /// labels from the log (a reversal can change any earlier decision's effect).
    fn append_reversal(
        &mut self,
        coder: &str,
        action: &str,
        target: &[i64],
        refers: i64,
    ) -> Result<DecisionRow> {
        let key = target_key(target);
        let tx = self.conn.transaction()?;
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
        tx.commit()?;
        Ok(row)
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
        tx.execute_batch(
            "DELETE FROM review_clusters;
             INSERT INTO review_clusters(run_id, cluster, method, latest, size, min_score,
                 max_score, members_key, title)
             SELECT c.run_id, c.cluster, r.method,
                 r.id = (SELECT max(id) FROM runs r2
                         WHERE r2.method = r.method AND r2.finished_at IS NOT NULL),
                 c.size, c.min_score, c.max_score,
                 (SELECT group_concat(m.doc_id, ',' ORDER BY m.doc_id) FROM run_cluster_members m
                   WHERE m.run_id = c.run_id AND m.cluster = c.cluster),
                 coalesce((SELECT CASE WHEN d.title = '' THEN d.url ELSE d.title END
                   FROM run_cluster_members m JOIN documents d ON d.id = m.doc_id
                   WHERE m.run_id = c.run_id AND m.cluster = c.cluster
                   ORDER BY m.doc_id LIMIT 1), '')
             FROM run_clusters c JOIN runs r ON r.id = c.run_id
             WHERE r.finished_at IS NOT NULL AND c.size >= 2;
             -- Detectors disagree when the latest run of another method does not keep all
             -- members in one cluster (an unclustered member counts as its own cluster).
             UPDATE review_clusters SET disagree = EXISTS (
               SELECT 1 FROM runs o
               WHERE o.method != review_clusters.method
                 AND o.id = (SELECT max(id) FROM runs o2
                             WHERE o2.method = o.method AND o2.finished_at IS NOT NULL)
                 AND (SELECT count(DISTINCT coalesce(m2.cluster, -m.doc_id))
                      FROM run_cluster_members m
                      LEFT JOIN run_cluster_members m2
                        ON m2.run_id = o.id AND m2.doc_id = m.doc_id
                      WHERE m.run_id = review_clusters.run_id
                        AND m.cluster = review_clusters.cluster) > 1);",
        )?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('review_queue_runs', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [fingerprint],
        )?;
        tx.commit()?;
        Ok(())
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
             LEFT JOIN labels l ON l.coder = :coder AND l.target = q.members_key
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
        let sql = format!(
            "SELECT q.run_id, q.method, q.cluster, q.size, q.min_score, q.max_score,
                coalesce(l.status, 'unreviewed'), coalesce(l.tags, '[]'), q.title, q.disagree,
                q.members_key
             FROM review_clusters q
             LEFT JOIN labels l ON l.coder = :coder AND l.target = q.members_key
             WHERE {} ORDER BY {} LIMIT {} OFFSET {}",
            Self::queue_where(filter),
            sort.order_by(),
            limit,
            offset
        );
        let search = Self::like_pattern(filter);
        let status = filter.status.map(LabelStatus::as_str);
        let p = Self::queue_params(&coder, filter, &search, &status);
        let mut st = self.conn().prepare(&sql)?;
        let rows = st.query_map(p.as_slice(), |r| {
            Ok(QueueRow {
                run_id: r.get(0)?,
                method: r.get(1)?,
                cluster: r.get(2)?,
                size: r.get(3)?,
                min_score: r.get(4)?,
                max_score: r.get(5)?,
                status: LabelStatus::parse(&r.get::<_, String>(6)?),
                tags: parse_tags(&r.get::<_, String>(7)?),
                title: r.get(8)?,
                disagree: r.get::<_, i64>(9)? != 0,
                members: parse_key(&r.get::<_, String>(10)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The position of the first unreviewed cluster in the filtered, sorted queue.
    pub fn first_unreviewed(
        &self,
        coder: &str,
        filter: &QueueFilter,
        sort: QueueSort,
    ) -> Result<Option<u64>> {
        let sql = format!(
            "SELECT pos FROM (SELECT row_number() OVER (ORDER BY {}) - 1 AS pos,
                 coalesce(l.status, 'unreviewed') AS st
               FROM review_clusters q
               LEFT JOIN labels l ON l.coder = :coder AND l.target = q.members_key
               WHERE {})
             WHERE st = 'unreviewed' ORDER BY pos LIMIT 1",
            sort.order_by(),
            Self::queue_where(filter)
        );
        let search = Self::like_pattern(filter);
        let status = filter.status.map(LabelStatus::as_str);
        let p = Self::queue_params(&coder, filter, &search, &status);
        let pos: Option<i64> = self
            .conn()
            .query_row(&sql, p.as_slice(), |r| r.get(0))
            .optional()?;
        Ok(pos.map(|p| p as u64))
    }

    /// The members of a cluster with what the cluster screen shows.
    pub fn cluster_members(&self, run: i64, cluster: i64) -> Result<Vec<ClusterMember>> {
        let mut st = self.conn().prepare(
            "SELECT d.id, d.url, d.title, length(d.visible_text), d.dup_group
             FROM run_cluster_members m JOIN documents d ON d.id = m.doc_id
             WHERE m.run_id = ?1 AND m.cluster = ?2 ORDER BY d.id",
        )?;
        let rows = st.query_map([run, cluster], |r| {
            Ok(ClusterMember {
                id: r.get(0)?,
                url: r.get(1)?,
                title: r.get(2)?,
                chars: r.get(3)?,
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
                "SELECT id, url, title, visible_text, main_text, dup_group
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
            "SELECT count(*) FROM review_clusters q JOIN labels l
               ON l.coder = ?1 AND l.target = q.members_key
             WHERE q.latest = 1 AND l.status != 'unreviewed'",
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
