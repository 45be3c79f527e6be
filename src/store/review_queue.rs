//! The review queue on disk: the merged queue's entries (built by the model's
//! [`crate::model::entries_from_pairs`] from the latest finished run of every detector, merged
//! compactly by [`crate::model::PairMerger`], after noise triage
//! with single-detector template siblings and pages of one site named apart left out:
//! `model::siblings`),
//! their members and merged pairs, numbered in each queue order so a page is an index walk,
//! and the paged reads of it under a filter. Rebuilt when a run finishes or documents are
//! added; the statuses are then recomputed from the labels (which name document sets).

use std::collections::{BTreeMap, HashMap};

use anyhow::{bail, Result};
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::json;

use super::decision_log::parse_tags;
use super::review::{parse_key, target_key};
use super::review_status::rebuild_statuses;
use super::Store;
use crate::extract::sites::SiteFamilies;
use crate::model::siblings;
use crate::model::triage::NEAR_EMPTY_CHARS;
use crate::model::{
    agreement_label, entries_from_pairs, queue_order, triage, DocFacts, Entry, EntryConfig,
    LabelStatus, MergedPairs, NoiseShown, PairMerger, QueueFilter, QueueKey, QueueRow, QueueSort,
    TriageCounts, MAX_DETECTORS, MERGED_QUEUE,
};

/// Bumped when the way entries are built changes, so the next refresh rebuilds them.
const QUEUE_BUILD: &str = "merged-4-named-apart";

/// The queue table's rank column of an order (1 = first).
fn rank_column(sort: QueueSort) -> &'static str {
    match sort {
        QueueSort::SizeDesc => "q.rank_size_desc",
        QueueSort::SizeAsc => "q.rank_size_asc",
        QueueSort::ScoreDesc => "q.rank_score_desc",
        QueueSort::ScoreAsc => "q.rank_score_asc",
        QueueSort::AgreementDesc => "q.rank_agreement_desc",
        QueueSort::Active => "q.rank_active",
    }
}

/// A merged pair of a queue entry: the best score and each detector's (by method name).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryPair {
    pub a: i64,
    pub b: i64,
    pub score: f64,
    pub detectors: Vec<(String, f64)>,
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
    /// Brings the queue table up to date with the finished runs and the documents (a no-op
    /// when neither changed since the last call). Cheap enough to call at every review start.
    pub fn refresh_review_queue(&mut self) -> Result<()> {
        let fingerprint = self.queue_fingerprint()?;
        if self.meta("review_queue_runs")?.as_deref() == Some(fingerprint.as_str()) {
            if self.meta(SEARCH_INDEX_KEY)?.as_deref() != Some(fingerprint.as_str()) {
                // A queue an older spotcheck built: its search index alone.
                let tx = self.conn.transaction()?;
                write_search_index(&tx, &fingerprint)?;
                tx.commit()?;
            }
            return Ok(());
        }
        let tx = self.conn.transaction()?;
        let mut trace = BuildTrace::new();
        let (pairs, entries, methods, counts) =
            build_queue(&tx, EntryConfig::default(), &mut trace)?;
        write_queue(&tx, &entries, &pairs, &methods)?;
        drop((pairs, entries));
        trace.stage("written", 0);
        write_search_index(&tx, &fingerprint)?;
        trace.stage("search index", 0);
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('review_queue_build', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [trace.to_json()],
        )?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('review_triage', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [serde_json::to_string(&counts)?],
        )?;
        rebuild_statuses(&tx)?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('review_queue_runs', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [fingerprint],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Whether the merged queue and its search index are built for the runs and documents
    /// stored now (else [`Store::refresh_review_queue`] builds what is missing).
    pub fn review_queue_is_current(&self) -> Result<bool> {
        self.review_queue_is_current_for(&self.documents_fingerprint()?)
    }

    /// [`Store::review_queue_is_current`] with the documents' fingerprint the caller read.
    pub fn review_queue_is_current_for(&self, docs: &str) -> Result<bool> {
        let fingerprint = Some(self.queue_fingerprint_for(docs)?);
        Ok(self.meta("review_queue_runs")? == fingerprint
            && self.meta(SEARCH_INDEX_KEY)? == fingerprint)
    }

    /// Whether the search index holds the members of the queue as it is built now (it was
    /// built with it). An older spotcheck builds the queue without it and a database it
    /// last built searches by a scan: it leaves the index's fingerprint behind, so a stale
    /// index is never read.
    fn search_index_is_current(&self) -> Result<bool> {
        let built = self.meta(SEARCH_INDEX_KEY)?;
        Ok(built.is_some() && built == self.meta("review_queue_runs")?)
    }

    /// How `filter`'s search is read.
    fn search_plan(&self, filter: &QueueFilter) -> Result<SearchPlan> {
        let Some(s) = &filter.search else {
            return Ok(SearchPlan::None);
        };
        Ok(if !self.search_index_is_current()? {
            SearchPlan::Scan
        } else if s.chars().count() < 3 {
            SearchPlan::Narrow
        } else {
            SearchPlan::Index
        })
    }

    /// The stored documents as "count:largest id" (what the queue and the languages were
    /// last brought up to date with). Counting is a scan of an index: 50 ms at a million
    /// pages, so a caller that needs it twice reads it once.
    pub fn documents_fingerprint(&self) -> Result<String> {
        Ok(self.conn().query_row(
            "SELECT count(*) || ':' || coalesce(max(id), 0) FROM documents",
            [],
            |r| r.get(0),
        )?)
    }

    /// What the queue was built from: the build's version, the finished runs, the documents.
    fn queue_fingerprint(&self) -> Result<String> {
        self.queue_fingerprint_for(&self.documents_fingerprint()?)
    }

    fn queue_fingerprint_for(&self, docs: &str) -> Result<String> {
        let runs: String = self.conn().query_row(
            "SELECT coalesce(group_concat(id, ','), '') FROM
               (SELECT id FROM runs WHERE finished_at IS NOT NULL ORDER BY id)",
            [],
            |r| r.get(0),
        )?;
        Ok(format!("{QUEUE_BUILD}|{runs}|{docs}"))
    }

    /// The documents noise triage counted at the last queue refresh (what the status line
    /// shows).
    pub fn triage_counts(&self) -> Result<TriageCounts> {
        Ok(self
            .meta("review_triage")?
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default())
    }

    /// Entries of the queue that triage kept out of the default queue.
    pub fn triaged_entries(&self) -> Result<u64> {
        let n: i64 = self.conn().query_row(
            "SELECT count(*) FROM review_clusters WHERE noise IS NOT NULL",
            [],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// The merged pairs of an entry, by (a, b).
    pub fn entry_pairs(&self, entry: i64) -> Result<Vec<EntryPair>> {
        let mut st = self.conn().prepare_cached(
            "SELECT a, b, score, detectors FROM review_entry_pairs WHERE entry = ?1 ORDER BY a, b",
        )?;
        let rows = st.query_map([entry], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, String>(3)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (a, b, s, d) = row?;
            let by: BTreeMap<String, f64> = serde_json::from_str(&d).unwrap_or_default();
            out.push(EntryPair {
                a,
                b,
                score: s,
                detectors: by.into_iter().collect(),
            });
        }
        Ok(out)
    }

    /// Every queue entry as (run, entry, sorted members), for tests that compare the
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

    /// The WHERE clause shared by the queue queries (a search read as `search` says);
    /// parameters are named.
    fn queue_where(filter: &QueueFilter, search: SearchPlan) -> String {
        let mut w = vec!["1 = 1".to_string()];
        match filter.noise {
            NoiseShown::Hide => w.push("q.noise IS NULL".into()),
            NoiseShown::Only => w.push("q.noise IS NOT NULL".into()),
            NoiseShown::Include => {}
        }
        if filter.method.is_some() {
            w.push(
                "EXISTS (SELECT 1 FROM json_each(q.detectors) j WHERE j.value = :method)".into(),
            );
        }
        if let Some(n) = filter.min_agreement {
            w.push(format!("q.agreement >= {n}"));
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
        // Every plan keeps the entries with a member whose title or URL is LIKE the
        // pattern (`like_pattern`: a substring, ASCII letters in either case).
        match search {
            SearchPlan::None => {}
            SearchPlan::Scan => w.push(
                "EXISTS (SELECT 1 FROM review_entry_members m JOIN documents d ON d.id = m.doc_id
                   WHERE m.entry = q.cluster
                     AND (d.title LIKE :search ESCAPE '\\' OR d.url LIKE :search ESCAPE '\\'))"
                    .into(),
            ),
            // The index's own copy of the titles and URLs: narrow rows, not the documents'.
            SearchPlan::Narrow => w.push(
                "q.cluster IN (SELECT m.entry FROM review_search s
                   JOIN review_entry_members m ON m.doc_id = s.rowid
                   WHERE s.title LIKE :search ESCAPE '\\' OR s.url LIKE :search ESCAPE '\\')"
                    .into(),
            ),
            // The trigrams find the candidates (a superset: case folded beyond ASCII, the
            // trigrams anywhere in the row), the LIKE keeps what a scan would.
            SearchPlan::Index => w.push(
                "q.cluster IN (SELECT m.entry FROM review_search s
                   JOIN review_entry_members m ON m.doc_id = s.rowid
                   WHERE review_search MATCH :trigrams
                     AND (s.title LIKE :search ESCAPE '\\' OR s.url LIKE :search ESCAPE '\\'))"
                    .into(),
            ),
        }
        if filter.disagree_only {
            w.push("q.disagree = 1".into());
        }
        w.join(" AND ")
    }

    fn queue_params<'a>(
        coder: &'a &'a str,
        filter: &'a QueueFilter,
        search: &'a SearchArgs,
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
        if let Some(s) = &search.like {
            p.push((":search", s));
        }
        if let Some(t) = &search.trigrams {
            p.push((":trigrams", t));
        }
        p
    }

    /// How `filter`'s search is read, with its parameters.
    fn search_args(&self, filter: &QueueFilter) -> Result<SearchArgs> {
        let plan = self.search_plan(filter)?;
        Ok(SearchArgs {
            plan,
            like: filter.search.as_deref().map(like_pattern),
            trigrams: match (plan, &filter.search) {
                (SearchPlan::Index, Some(s)) => Some(trigram_query(s)),
                _ => None,
            },
        })
    }

    /// How many clusters the filter keeps.
    pub fn queue_len(&self, coder: &str, filter: &QueueFilter) -> Result<u64> {
        // Without a status or tag filter the coder's statuses are not read: the count is
        // then a scan of a rank index (11 ms for 195,000 entries, not 75 with the join).
        let join = if filter.status.is_some() || filter.tag.is_some() {
            "LEFT JOIN review_status l
               ON l.coder = :coder AND l.run_id = q.run_id AND l.cluster = q.cluster"
        } else {
            ""
        };
        let search = self.search_args(filter)?;
        let sql = format!(
            "SELECT count(*) FROM review_clusters q {join} WHERE {}",
            Self::queue_where(filter, search.plan)
        );
        let status = filter.status.map(LabelStatus::as_str);
        let mut p = Self::queue_params(&coder, filter, &search, &status);
        if join.is_empty() {
            p.retain(|(name, _)| *name != ":coder");
        }
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
        let search = self.search_args(filter)?;
        let sql = format!(
            "SELECT q.run_id, q.method, q.cluster, q.size, q.min_score, q.max_score,
                coalesce(l.status, 'unreviewed'), coalesce(l.tags, '[]'), q.title, q.disagree,
                q.members_key, coalesce(l.labeled, 0), q.size * (q.size - 1) / 2, {rank},
                q.detectors, q.detectors_total, q.captures, q.noise
             FROM review_clusters q
             LEFT JOIN review_status l
               ON l.coder = :coder AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE {}{cond} ORDER BY {rank} {dir} LIMIT {limit} OFFSET {offset}",
            Self::queue_where(filter, search.plan),
        );
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
                detectors: serde_json::from_str(&r.get::<_, String>(14)?).unwrap_or_default(),
                detectors_total: r.get(15)?,
                captures: r.get(16)?,
                noise: r.get(17)?,
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
        let search = self.search_args(filter)?;
        let from = format!(
            "FROM review_clusters q
             LEFT JOIN review_status l
               ON l.coder = :coder AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE {}",
            Self::queue_where(filter, search.plan)
        );
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

/// The meta key naming the queue build (its `review_queue_runs` fingerprint) whose members
/// the search index holds.
const SEARCH_INDEX_KEY: &str = "review_search_queue";

/// How a search of the queue is read. Each keeps the entries with a member whose title or
/// URL holds the search as a substring, ASCII letters in either case (SQLite's LIKE): they
/// differ only in what they read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SearchPlan {
    /// No search.
    None,
    /// No current index (a queue an older spotcheck built): every member's document row.
    Scan,
    /// A search shorter than a trigram: the index's narrow copy of titles and URLs, all of it.
    Narrow,
    /// The index's rows holding every trigram of the search, then the LIKE on those.
    Index,
}

/// A search's plan and parameters.
struct SearchArgs {
    plan: SearchPlan,
    /// The LIKE pattern.
    like: Option<String>,
    /// The FTS5 query of the trigrams ([`SearchPlan::Index`] only).
    trigrams: Option<String>,
}

/// The LIKE pattern of a substring: `%`, `_` and the escape character itself escaped.
fn like_pattern(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

/// The FTS5 query asking for every distinct trigram of `s` (three characters, as the
/// trigram tokenizer cuts them), each a quoted string (`"` doubled), so nothing in `s` is
/// query syntax. The index keeps no positions (`detail=none`, less than half the size), so
/// the rows it returns hold the trigrams anywhere: the LIKE beside it keeps the substrings.
/// `s` has at least three characters ([`SearchPlan::Index`]).
fn trigram_query(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let trigrams: std::collections::BTreeSet<String> = chars
        .windows(3)
        .map(|w| w.iter().collect::<String>().replace('"', "\"\""))
        .collect();
    trigrams
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// (Re)builds the search index of the queue just written (`fingerprint`: the build's
/// `review_queue_runs`): the title and URL of every member of an entry, under FTS5's
/// trigram tokenizer without positions. Read by [`SearchPlan::Index`] and
/// [`SearchPlan::Narrow`]; derived data like the queue, dropped and made again with it.
fn write_search_index(conn: &Connection, fingerprint: &str) -> Result<()> {
    conn.execute_batch(
        "DROP TABLE IF EXISTS review_search;
         CREATE VIRTUAL TABLE review_search
           USING fts5(title, url, tokenize = 'trigram', detail = none);
         INSERT INTO review_search(rowid, title, url)
           SELECT d.id, d.title, d.url FROM documents d
           WHERE d.id IN (SELECT doc_id FROM review_entry_members);",
    )?;
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [SEARCH_INDEX_KEY, fingerprint],
    )?;
    Ok(())
}

/// What each stage of the last queue build cost: seconds since the build started, the
/// process's resident and peak memory (Linux's VmRSS and VmHWM, kB; 0 elsewhere) and how
/// many merged pairs were held. Stored as meta `review_queue_build` (issue 16: at a million
/// pages, which stage holds the memory).
struct BuildTrace {
    start: std::time::Instant,
    stages: Vec<serde_json::Value>,
}

impl BuildTrace {
    fn new() -> Self {
        BuildTrace {
            start: std::time::Instant::now(),
            stages: Vec::new(),
        }
    }

    fn stage(&mut self, what: &str, pairs: usize) {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let kb = |key: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        self.stages.push(json!({
            "stage": what,
            "seconds": (self.start.elapsed().as_secs_f64() * 100.0).round() / 100.0,
            "rss_kb": kb("VmRSS:"),
            "peak_kb": kb("VmHWM:"),
            "pairs": pairs,
        }));
    }

    fn to_json(&self) -> String {
        serde_json::Value::Array(self.stages.clone()).to_string()
    }
}

/// The latest finished run of every detector (method, run), by method name.
fn latest_runs(conn: &Connection) -> Result<Vec<(String, i64)>> {
    let mut st = conn.prepare(
        "SELECT method, max(id) FROM runs WHERE finished_at IS NOT NULL GROUP BY method
         ORDER BY method",
    )?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every stored document's triage facts.
fn doc_facts(conn: &Connection) -> Result<Vec<DocFacts>> {
    // Characters are counted only for short texts: a text of 4 × NEAR_EMPTY_CHARS bytes or
    // more has at least NEAR_EMPTY_CHARS characters (UTF-8 takes at most 4 bytes a
    // character), and octet_length does not read the text itself.
    let short = 4 * NEAR_EMPTY_CHARS;
    let mut st = conn.prepare(&format!(
        "SELECT id, url, http_status,
           CASE WHEN octet_length(visible_text) < {short} THEN length(visible_text)
                ELSE {short} END,
           dup_group, coalesce(redirect_stub, 0)
         FROM documents ORDER BY id"
    ))?;
    let rows = st.query_map([], |r| {
        Ok(DocFacts {
            id: r.get(0)?,
            url: r.get(1)?,
            http_status: r.get(2)?,
            chars: r.get(3)?,
            dup_group: r.get(4)?,
            redirect_stub: r.get::<_, i64>(5)? != 0,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The merged queue's entries with the merged pairs they name, the detectors' names (the
/// detector list the entries' scores are numbered by), and the triage counts, from the latest
/// finished run of every detector and the stored documents.
///
/// Held compactly (issue 16: a run of 85 M pairs made the old nested maps 20 GB): each
/// run's pairs are read as they are stored, into 16-byte records of document numbers
/// ([`PairMerger`]), its clusters one at a time; the merge is 16 bytes a pair plus 8 a
/// detector score.
fn build_queue(
    conn: &Connection,
    config: EntryConfig,
    trace: &mut BuildTrace,
) -> Result<(MergedPairs, Vec<Entry>, Vec<String>, TriageCounts)> {
    trace.stage("start", 0);
    let facts = doc_facts(conn)?;
    let counts = TriageCounts::of(&facts);
    let mut representative: HashMap<i64, i64> = HashMap::new();
    let mut noise: HashMap<i64, &'static str> = HashMap::new();
    for d in &facts {
        if d.representative() != d.id {
            representative.insert(d.id, d.representative());
        }
        if let Some(rule) = triage(d) {
            noise.insert(d.id, rule);
        }
    }
    let docs: Vec<i64> = facts.iter().map(|d| d.id).collect();
    trace.stage("documents", 0);
    drop(facts);
    let runs = latest_runs(conn)?;
    if runs.len() > MAX_DETECTORS {
        bail!(
            "{} detectors have finished runs; the review queue merges at most {MAX_DETECTORS}",
            runs.len()
        );
    }
    let mut merger = PairMerger::new(docs, &representative, &noise);
    let mut pairs_st = conn.prepare("SELECT a, b, score FROM run_pairs WHERE run_id = ?1")?;
    let mut members_st = conn.prepare(
        "SELECT m.cluster, m.doc_id, c.min_score FROM run_cluster_members m
         JOIN run_clusters c ON c.run_id = m.run_id AND c.cluster = m.cluster
         WHERE m.run_id = ?1 AND c.size >= 2 ORDER BY m.cluster, m.doc_id",
    )?;
    for (k, (_, run)) in runs.iter().enumerate() {
        let mut rows = pairs_st.query([run])?;
        while let Some(r) = rows.next()? {
            merger.add_pair(k, r.get(0)?, r.get(1)?, r.get(2)?);
        }
        // Clusters one at a time (the rows come by cluster): a cluster with a member in
        // none of the run's pairs joins as a chain (`PairMerger::add_cluster`).
        let mut cluster: Option<(i64, f64)> = None;
        let mut members: Vec<i64> = Vec::new();
        let mut rows = members_st.query([run])?;
        while let Some(r) = rows.next()? {
            let (c, d, min): (i64, i64, Option<f64>) = (r.get(0)?, r.get(1)?, r.get(2)?);
            if let Some((current, current_min)) = cluster {
                if current != c {
                    merger.add_cluster(k, &members, current_min);
                    members.clear();
                }
            }
            if cluster.map(|x| x.0) != Some(c) {
                cluster = Some((c, min.unwrap_or(0.0)));
            }
            members.push(d);
        }
        if let Some((_, min)) = cluster {
            merger.add_cluster(k, &members, min);
        }
    }
    trace.stage("runs read", 0);
    let mut pairs = merger.finish();
    trace.stage("merged", pairs.len());
    // Both rules keep or drop each pair on its own, so their order changes no answer: the
    // name rule goes first, as it reads every page's URL and makes the sites' families (which
    // sites are one) that the template-sibling rule reads too.
    let families = drop_named_apart(conn, &mut pairs)?;
    trace.stage("named apart", pairs.len());
    drop_template_siblings(conn, &mut pairs, &families)?;
    trace.stage("template siblings", pairs.len());
    let methods: Vec<String> = runs.into_iter().map(|(m, _)| m).collect();
    let entries = entries_from_pairs(&pairs, &methods, &representative, &noise, config);
    trace.stage("entries", pairs.len());
    Ok((pairs, entries, methods, counts))
}

/// Removes the pairs only one detector found whose pages are template siblings (each names
/// code identifiers the other lacks: `model::siblings`), read on the content text the
/// detectors use by default (the visible text where no content text is stored). Pairs two
/// or more detectors agree on are kept whatever their text, and so are pairs of one page at
/// one place of its site in two releases (`siblings::same_place`), whose identifiers change
/// on both sides when the page's API does.
///
/// The pairs are judged in batches whose texts reach at most [`SIBLING_BATCH_BYTES`] (plus
/// one pair's): never every judged page's text at once (at 56,638 pages that was 700 MB, more
/// than any detector's run; issue 16), nor a giant component's (417,283 pages at a million).
/// The pairs come grouped by the connected components of their pair graph, so a page's text
/// is read and tokenized once unless its component straddles two batches. A batch is judged
/// on all cores at once (`siblings::template_siblings_of`: at 113,065 pages the pair-by-pair
/// rule was 37% of the queue build's CPU; issue 15); a pair's answer is the same in any
/// batch. Besides a batch's texts this holds 4 bytes a judged pair and a bit a pair.
fn drop_template_siblings(
    conn: &Connection,
    pairs: &mut MergedPairs,
    families: &SiteFamilies,
) -> Result<()> {
    let mut text_st = conn.prepare_cached(
        "SELECT d.url,
                coalesce((SELECT c.text FROM content_texts c WHERE c.doc_id = d.id),
                         d.visible_text)
         FROM documents d WHERE d.id = ?1",
    )?;
    let order = single_detector_pairs_by_component(pairs);
    let mut drop = vec![0u64; pairs.len().div_ceil(64)];
    // text_at[document number]: its text's place in the batch (UNREAD: not read).
    const UNREAD: u32 = u32::MAX;
    let mut text_at = vec![UNREAD; pairs.docs()];
    let mut at = 0usize;
    while at < order.len() {
        let mut texts: Vec<String> = Vec::new();
        let mut urls: Vec<String> = Vec::new();
        let mut bytes = 0usize;
        let first = at;
        while at < order.len() && bytes < SIBLING_BATCH_BYTES {
            let Some(p) = pairs.get(order[at] as usize) else {
                break;
            };
            for (d, n) in [(p.a, p.ia), (p.b, p.ib)] {
                if text_at[n as usize] == UNREAD {
                    let row: Option<(String, Option<String>)> = text_st
                        .query_row([d], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()?;
                    let (url, text) = row.unwrap_or_default();
                    let text = text.unwrap_or_default();
                    bytes += text.len();
                    text_at[n as usize] = texts.len() as u32;
                    texts.push(text);
                    urls.push(url);
                }
            }
            at += 1;
        }
        let batch = &order[first..at];
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        // Both documents of every pair of the batch were given a text above (`order` names
        // pairs below `pairs.len()`, the loop's `get` checked).
        let judged = siblings::template_siblings_of(&refs, batch.len(), |k| {
            pairs.get(batch[k] as usize).map_or((0, 0), |p| {
                (
                    text_at[p.ia as usize] as usize,
                    text_at[p.ib as usize] as usize,
                )
            })
        });
        let asked: Vec<(usize, usize)> = batch
            .iter()
            .map(|&i| {
                pairs.get(i as usize).map_or((0, 0), |p| {
                    (
                        text_at[p.ia as usize] as usize,
                        text_at[p.ib as usize] as usize,
                    )
                })
            })
            .collect();
        for &i in batch {
            if let Some(p) = pairs.get(i as usize) {
                text_at[p.ia as usize] = UNREAD;
                text_at[p.ib as usize] = UNREAD;
            }
        }
        for ((&i, sibling), (a, b)) in batch.iter().zip(judged).zip(asked) {
            // One page at one place of its site in two releases is kept whatever its
            // identifiers say (`siblings::same_place`).
            if sibling && !siblings::same_place(families, &urls[a], &urls[b]) {
                drop[i as usize / 64] |= 1 << (i % 64);
            }
        }
    }
    let mut i = 0usize;
    pairs.retain(|_| {
        let keep = drop[i / 64] >> (i % 64) & 1 == 0;
        i += 1;
        keep
    });
    Ok(())
}

/// The most text bytes one batch of [`drop_template_siblings`] reads before judging.
const SIBLING_BATCH_BYTES: usize = 64 << 20;

/// The indices of the pairs only one detector found, grouped by the connected components of
/// the graph they make on their documents (a counting sort by component: 4 bytes a pair and
/// 8 a document), ascending within a component.
fn single_detector_pairs_by_component(pairs: &MergedPairs) -> Vec<u32> {
    let single = || {
        pairs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.detector_count() == 1)
    };
    let mut sets = crate::cluster::union_find::UnionFind::new(pairs.docs());
    for (_, p) in single() {
        sets.union(p.ia, p.ib);
    }
    // start[r]: where component r's pairs begin (components in the order of their root).
    let mut start = vec![0u32; pairs.docs() + 1];
    for (_, p) in single() {
        start[sets.find(p.ia) as usize + 1] += 1;
    }
    for r in 0..pairs.docs() {
        start[r + 1] += start[r];
    }
    let mut order = vec![0u32; start[pairs.docs()] as usize];
    for (i, p) in single() {
        let slot = &mut start[sets.find(p.ia) as usize];
        order[*slot as usize] = i as u32;
        *slot += 1;
    }
    order
}

/// Removes the pairs, whichever detectors found them, of two pages of one site whose titles,
/// or whose URLs' file names, each carry a name of their own (`model::siblings::SiteTitles`):
/// two pages of the site, not two copies of one page (pages at one place of their site,
/// `siblings::same_place`, are copies whatever their names). Every stored page's title and
/// URL are counted, on its site (sites that are one counted as one). Returns the sites'
/// families, made from the same URLs.
fn drop_named_apart(conn: &Connection, pairs: &mut MergedPairs) -> Result<SiteFamilies> {
    if pairs.is_empty() {
        return Ok(SiteFamilies::default());
    }
    let mut st = conn.prepare("SELECT id, url, title FROM documents")?;
    let pages: HashMap<i64, (String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
        .collect::<rusqlite::Result<_>>()?;
    let titles = siblings::SiteTitles::new(pages.values().map(|(u, t)| (u.as_str(), t.as_str())));
    let named = |d: i64| pages.get(&d).map(|(u, t)| (u.as_str(), t.as_str()));
    // Pairs come in (a, b) order: page a's name tokens are made once for all its pairs.
    let mut first: Option<(i64, siblings::PageName)> = None;
    pairs.retain(|p| {
        let (Some(a), Some(b)) = (named(p.a), named(p.b)) else {
            return true;
        };
        let name = match &first {
            Some((d, name)) if *d == p.a => name,
            _ => &first.insert((p.a, siblings::PageName::of(a.0, a.1))).1,
        };
        !titles.named_apart_from(a.0, name, b)
    });
    Ok(titles.into_families())
}

fn entry_key(number: i64, e: &Entry, detectors_total: usize) -> QueueKey {
    QueueKey {
        run_id: MERGED_QUEUE,
        cluster: number,
        size: e.members.len() as i64,
        min_score: e.min_score,
        max_score: e.max_score,
        agreement: e.detectors.len() as i64,
        detectors_total: detectors_total as i64,
    }
}

/// Replaces the queue tables with `entries` (numbered from 1 in the order given; their
/// pairs are in `pairs`, their detectors numbered in `methods`), numbering them in each
/// queue order.
fn write_queue(
    conn: &Connection,
    entries: &[Entry],
    pairs: &MergedPairs,
    methods: &[String],
) -> Result<()> {
    let total = methods.len();
    let keys: Vec<QueueKey> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry_key(i as i64 + 1, e, total))
        .collect();
    // ranks[i][k]: the position of entry i in order QueueSort::ALL[k] (the column order below).
    let mut ranks = vec![[0i64; QueueSort::ALL.len()]; entries.len()];
    for (k, sort) in QueueSort::ALL.into_iter().enumerate() {
        let mut idx: Vec<usize> = (0..entries.len()).collect();
        idx.sort_by(|&i, &j| queue_order(sort, &keys[i], &keys[j]));
        for (pos, i) in idx.into_iter().enumerate() {
            ranks[i][k] = pos as i64 + 1;
        }
    }
    // A bulk insert, then the indexes built once (faster than updating them row by row).
    conn.execute_batch(QUEUE_DROP_INDEXES)?;
    conn.execute_batch(
        "DELETE FROM review_clusters; DELETE FROM review_entry_members;
         DELETE FROM review_entry_pairs;",
    )?;
    let mut st = conn.prepare(
        "INSERT INTO review_clusters(run_id, cluster, method, latest, size, min_score,
           max_score, members_key, title, disagree, detectors, agreement, detectors_total,
           noise, captures, bridge_a, bridge_b, bridge_score, rank_size_desc, rank_size_asc,
           rank_score_desc, rank_score_asc, rank_agreement_desc, rank_active)
         VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
           ?18, ?19, ?20, ?21, ?22, ?23)",
    )?;
    let mut member_st = conn
        .prepare("INSERT INTO review_entry_members(entry, doc_id, captures) VALUES (?1, ?2, ?3)")?;
    let mut pair_st = conn.prepare(
        "INSERT INTO review_entry_pairs(entry, a, b, score, detectors) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut title_st = conn.prepare_cached(
        "SELECT CASE WHEN title = '' THEN url ELSE title END FROM documents WHERE id = ?1",
    )?;
    for ((e, k), r) in entries.iter().zip(&keys).zip(&ranks) {
        let title: String = match e.members.first() {
            Some(first) => title_st
                .query_row([first], |r| r.get(0))
                .optional()?
                .unwrap_or_default(),
            None => String::new(),
        };
        let (ba, bb, bs) = match e.bridge {
            Some((a, b, s)) => (Some(a), Some(b), Some(s)),
            None => (None, None, None),
        };
        st.execute(params![
            MERGED_QUEUE,
            k.cluster,
            agreement_label(&e.detectors, total),
            k.size,
            e.min_score,
            e.max_score,
            target_key(&e.members),
            title,
            e.detectors.len() < total,
            serde_json::to_string(&e.detectors)?,
            k.agreement,
            total as i64,
            e.noise,
            e.captures.iter().sum::<i64>(),
            ba,
            bb,
            bs,
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5]
        ])?;
        for (m, c) in e.members.iter().zip(&e.captures) {
            member_st.execute(params![k.cluster, m, c])?;
        }
        for p in e.pairs.iter().filter_map(|&i| pairs.get(i as usize)) {
            let by: serde_json::Map<String, serde_json::Value> = p
                .scores()
                .filter_map(|(d, s)| methods.get(d).map(|m| (m.clone(), json!(s))))
                .collect();
            pair_st.execute(params![
                k.cluster,
                p.a,
                p.b,
                p.max_score(),
                serde_json::Value::Object(by).to_string()
            ])?;
        }
    }
    conn.execute_batch(QUEUE_INDEXES)?;
    Ok(())
}

/// The queue table's indexes: one per queue order.
const QUEUE_INDEXES: &str = "
    CREATE INDEX review_clusters_size_desc ON review_clusters(rank_size_desc, noise);
    CREATE INDEX review_clusters_size_asc ON review_clusters(rank_size_asc, noise);
    CREATE INDEX review_clusters_score_desc ON review_clusters(rank_score_desc, noise);
    CREATE INDEX review_clusters_score_asc ON review_clusters(rank_score_asc, noise);
    CREATE INDEX review_clusters_agreement_desc ON review_clusters(rank_agreement_desc, noise);
    CREATE INDEX review_clusters_active ON review_clusters(rank_active, noise);";

const QUEUE_DROP_INDEXES: &str = "
    DROP INDEX IF EXISTS review_clusters_size_desc;
    DROP INDEX IF EXISTS review_clusters_size_asc;
    DROP INDEX IF EXISTS review_clusters_score_desc;
    DROP INDEX IF EXISTS review_clusters_score_asc;
    DROP INDEX IF EXISTS review_clusters_agreement_desc;
    DROP INDEX IF EXISTS review_clusters_active;";

#[cfg(test)]
mod search_tests {
    use super::*;
    use crate::store::ClusterRow;

    /// A queue of one entry per title: two copies of a page on two sites.
    fn store_with(titles: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("s.db")).unwrap();
        let text = "a page long enough not to be triaged as a near-empty page, which takes a hundred characters or so";
        let mut clusters = Vec::new();
        for (i, (title, path)) in titles.iter().enumerate() {
            let members: Vec<i64> = ["a", "b"]
                .iter()
                .map(|site| {
                    let url = format!("http://s{i}{site}.example/{path}");
                    s.insert_test_document(&url, title, &format!("{text} {i}{site}"), None)
                        .unwrap()
                })
                .collect();
            clusters.push(ClusterRow {
                members,
                min_score: Some(0.5),
                max_score: Some(0.9),
                weakest_bridge: None,
            });
        }
        let r = s.create_run("spotsigs", &json!({})).unwrap();
        s.write_run_clusters(r, &clusters).unwrap();
        s.finish_run(r, &json!({})).unwrap();
        s.refresh_review_queue().unwrap();
        (dir, s)
    }

    const TITLES: &[(&str, &str)] = &[
        ("Café RÉSUMÉ 100% pure_cotton", "p"),
        ("Under_score and percent% sign", "q"),
        ("Quote \"marks\" and back\\slash", "r"),
        ("plain ascii HELLO world", "Hello-Path"),
        ("日本語のタイトル", "x"),
        ("Totally normal\u{1b}]0;pwned\u{7}", "y"),
        ("", "only-url-match"),
    ];

    /// What a search of `text` keeps: the count, every row's members in order, the first
    /// entry to review.
    fn searched(s: &Store, text: &str) -> (u64, Vec<Vec<i64>>, Option<u64>) {
        let f = QueueFilter {
            search: Some(text.to_string()),
            ..QueueFilter::default()
        };
        let rows = s
            .queue_page("ann", &f, QueueSort::SizeDesc, 0, 100)
            .unwrap();
        (
            s.queue_len("ann", &f).unwrap(),
            rows.into_iter().map(|r| r.members).collect(),
            s.first_unreviewed("ann", &f, QueueSort::SizeDesc).unwrap(),
        )
    }

    const SEARCHES: &[(&str, u64)] = &[
        ("", 7),
        ("q", 2),
        ("a", 7),
        ("É", 1),
        ("%", 2),
        ("_", 2),
        ("\\", 1),
        ("\"", 1),
        ("100%", 1),
        ("e_c", 1),
        ("e%c", 0),
        ("p_re", 0),
        ("%e", 0),
        ("t%", 1),
        ("hello", 1),
        ("HELLO", 1),
        ("hElLo wOrLd", 1),
        ("café", 1),
        ("CAFÉ", 0),
        ("résumé", 0),
        ("RÉSUMÉ", 1),
        ("日本", 1),
        ("日本語", 1),
        ("のタイ", 1),
        ("pwned", 1),
        ("\u{1b}]0", 1),
        ("only-url", 1),
        ("worldhttp", 0),
        ("world\nhttp", 0),
        ("s0a.example/p", 1),
        ("\"marks\"", 1),
        ("back\\slash", 1),
        ("\" AND \"", 0),
        ("\" OR zz", 0),
        ("NEAR(", 0),
        ("zzz", 0),
        (".example/", 7),
    ];

    #[test]
    fn the_index_finds_what_the_scan_finds() {
        let (_d, s) = store_with(TITLES);
        assert_eq!(s.queue_len("ann", &QueueFilter::default()).unwrap(), 7);
        let with_index: Vec<_> = SEARCHES.iter().map(|(t, _)| searched(&s, t)).collect();
        for ((text, n), got) in SEARCHES.iter().zip(&with_index) {
            assert_eq!(got.0, *n, "{text:?}");
            assert_eq!(got.1.len() as u64, *n, "{text:?}");
        }
        // The same searches on a queue whose index is not current: the scan of the
        // documents an older database searches with.
        s.conn()
            .execute("DELETE FROM meta WHERE key = ?1", [SEARCH_INDEX_KEY])
            .unwrap();
        for ((text, _), indexed) in SEARCHES.iter().zip(&with_index) {
            assert_eq!(&searched(&s, text), indexed, "{text:?}");
        }
    }

    #[test]
    fn a_search_reads_the_index_from_three_characters_on() {
        let (_d, s) = store_with(TITLES);
        let plan = |text: &str| {
            s.search_plan(&QueueFilter {
                search: Some(text.into()),
                ..QueueFilter::default()
            })
            .unwrap()
        };
        assert_eq!(plan("ab"), SearchPlan::Narrow);
        assert_eq!(plan("日本"), SearchPlan::Narrow);
        assert_eq!(plan("abc"), SearchPlan::Index);
        assert_eq!(plan("日本語"), SearchPlan::Index);
        assert_eq!(
            s.search_plan(&QueueFilter::default()).unwrap(),
            SearchPlan::None
        );
        assert_eq!(
            trigram_query("a\"bcb\"a"),
            r#""""bc" AND "a""b" AND "b""a" AND "bcb" AND "cb""""#
        );
    }

    #[test]
    fn an_old_database_searches_by_a_scan_until_its_index_is_built() {
        let (_d, mut s) = store_with(TITLES);
        let before: Vec<_> = SEARCHES.iter().map(|(t, _)| searched(&s, t)).collect();
        // A queue built by a spotcheck without the index.
        s.conn()
            .execute_batch(
                "DROP TABLE review_search; DELETE FROM meta WHERE key = 'review_search_queue';",
            )
            .unwrap();
        assert_eq!(
            s.search_plan(&QueueFilter {
                search: Some("hello".into()),
                ..QueueFilter::default()
            })
            .unwrap(),
            SearchPlan::Scan
        );
        for ((text, _), b) in SEARCHES.iter().zip(&before) {
            assert_eq!(&searched(&s, text), b, "{text:?}");
        }
        assert!(
            !s.review_queue_is_current().unwrap(),
            "the index is missing"
        );
        // The next refresh builds the index alone (the entries stay as they are).
        let entries = s.review_queue_clusters().unwrap();
        s.refresh_review_queue().unwrap();
        assert!(s.review_queue_is_current().unwrap());
        assert_eq!(s.review_queue_clusters().unwrap(), entries);
        assert!(s.search_index_is_current().unwrap());
        for ((text, _), b) in SEARCHES.iter().zip(&before) {
            assert_eq!(&searched(&s, text), b, "{text:?}");
        }
    }

    #[test]
    fn a_queue_another_build_wrote_is_never_searched_through_a_stale_index() {
        let (_d, mut s) = store_with(TITLES);
        // An older spotcheck rebuilt the queue (new runs): the index it left is stale.
        s.conn()
            .execute(
                "UPDATE meta SET value = 'older-build|1|14:14' WHERE key = 'review_queue_runs'",
                [],
            )
            .unwrap();
        s.conn()
            .execute("DELETE FROM review_search WHERE title LIKE '%hello%'", [])
            .unwrap();
        assert!(!s.search_index_is_current().unwrap());
        assert_eq!(searched(&s, "hello").0, 1, "read by a scan");
        // A refresh rebuilds the queue and its index together.
        s.refresh_review_queue().unwrap();
        assert!(s.search_index_is_current().unwrap());
        assert_eq!(searched(&s, "hello").0, 1);
    }
}
