//! The review queue on disk: one row per cluster (two members or more) of every finished
//! detector run, numbered in each queue order so a page is an index walk, and the paged
//! reads of it under a filter. Rebuilt when a run finishes.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};

use super::decision_log::parse_tags;
use super::review::{parse_key, target_key};
use super::review_status::rebuild_statuses;
use super::Store;
use crate::model::{queue_order, LabelStatus, QueueFilter, QueueKey, QueueRow, QueueSort};

/// The queue table's rank column of an order (1 = first).
fn rank_column(sort: QueueSort) -> &'static str {
    match sort {
        QueueSort::SizeDesc => "q.rank_size_desc",
        QueueSort::SizeAsc => "q.rank_size_asc",
        QueueSort::ScoreDesc => "q.rank_score_desc",
        QueueSort::ScoreAsc => "q.rank_score_asc",
    }
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

impl Store {
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

    /// Every queue cluster as (run, cluster, sorted members), for tests that compare the
    /// stored statuses with the model's.
    #[doc(hidden)]
    pub fn review_queue_clusters(&self) -> Result<Vec<(i64, i64, Vec<i64>)>> {
        let mut st = self.conn().prepare(
            "SELECT run_id, cluster, members_key FROM review_clusters ORDER BY run_id, cluster",
        )?;
        let rows = st.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, parse_key(&r.get::<_, String>(2)?)))
        })?;
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
        let rank = rank_column(sort);
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
        let rank = rank_column(sort);
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

impl QueueEntry {
    fn key(&self) -> QueueKey {
        QueueKey {
            run_id: self.run_id,
            cluster: self.cluster,
            size: self.size,
            min_score: self.min_score,
            max_score: self.max_score,
        }
    }
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
        idx.sort_by(|&i, &j| queue_order(sort, &entries[i].key(), &entries[j].key()));
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
