//! The derived status of every queue cluster for every coder (the model's
//! [`cluster_review`] of the cluster's members, kept up to date as decisions are written),
//! progress and agreement.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use anyhow::Result;
use rusqlite::{params, Connection, OptionalExtension};

use super::decision_log::parse_tags;
use super::review::parse_key;
use super::Store;
use crate::model::{
    cluster_review, cohens_kappa, Agreement, ClusterReview, Label, LabelStatus, PairCounts,
    PairLabel, Progress, MERGED_QUEUE,
};

impl Store {
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

    /// Reviewed / total entries of the default queue (no triaged noise), for each coder who has
    /// decided anything plus `coder` itself.
    pub fn review_progress(&self, coder: &str) -> Result<Vec<Progress>> {
        let mut coders = self.coders()?;
        if !coders.iter().any(|c| c == coder) {
            coders.push(coder.to_string());
            coders.sort();
        }
        let total: i64 = self.conn().query_row(
            "SELECT count(*) FROM review_clusters WHERE noise IS NULL",
            [],
            |r| r.get(0),
        )?;
        let mut st = self.conn().prepare(
            "SELECT count(*) FROM review_clusters q JOIN review_status l
               ON l.coder = ?1 AND l.run_id = q.run_id AND l.cluster = q.cluster
             WHERE q.noise IS NULL AND l.status NOT IN ('unreviewed', 'partial')",
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

    /// Agreement of every pair of coders (adjudicators aside: see
    /// [`Store::adjudicated_agreements`]).
    pub fn agreements(&self) -> Result<Vec<Agreement>> {
        let coders = self.coders_only()?;
        let mut out = Vec::new();
        for (i, a) in coders.iter().enumerate() {
            for b in &coders[i + 1..] {
                out.push(self.agreement(a, b)?);
            }
        }
        Ok(out)
    }
}

/// Recomputes the derived status of queue cluster (`run`, `cluster`) with sorted `members`
/// for `coder` from the pair labels and the labeled sets over its documents.
pub(super) fn update_cluster_status(
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
/// and the labeled sets over its documents (the model's [`cluster_review`]); None when
/// nothing labels it (no row is kept).
pub(super) fn compute_cluster_status(
    conn: &Connection,
    coder: &str,
    members: &[i64],
) -> Result<Option<ClusterReview>> {
    let set: HashSet<i64> = members.iter().copied().collect();
    let mut counts = PairCounts::default();
    {
        // Pair labels are stored with a < b: each member pair is seen once, from its a.
        let mut st =
            conn.prepare_cached("SELECT b, label FROM pair_labels WHERE coder = ?1 AND a = ?2")?;
        for &a in &set {
            let mut rows = st.query(params![coder, a])?;
            while let Some(r) = rows.next()? {
                if set.contains(&r.get::<_, i64>(0)?) {
                    counts.add(PairLabel::parse(r.get_ref(1)?.as_str()?));
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
    let mut covering: Vec<(Label, i64)> = Vec::new();
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
                        Label {
                            status: LabelStatus::default(),
                            tags: parse_tags(&r.get::<_, String>(0)?),
                            note: r.get(1)?,
                        },
                        r.get::<_, i64>(2)?,
                    ))
                })
                .optional()?;
            covering.extend(row);
        }
    }
    Ok(cluster_review(
        set.len(),
        counts,
        covering.iter().map(|(l, id)| (l, *id)),
    ))
}

/// Stores (or, for None, deletes) the derived status of queue cluster (`run`, `cluster`).
pub(super) fn write_cluster_status(
    conn: &Connection,
    coder: &str,
    run: i64,
    cluster: i64,
    row: Option<&ClusterReview>,
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
                serde_json::to_string(&r.tags)?,
                r.note
            ])?;
        }
    }
    Ok(())
}

/// The queue clusters with at least two documents of `target` (the only clusters whose pair
/// labels or covering labels a decision on `target` changes: the model's
/// [`crate::model::touches_cluster`]), with their sorted members.
pub(super) fn affected_clusters(
    conn: &Connection,
    target: &[i64],
) -> Result<Vec<(i64, i64, Vec<i64>)>> {
    let docs: BTreeSet<i64> = target.iter().copied().collect();
    let mut hits: BTreeMap<i64, usize> = BTreeMap::new();
    {
        let mut st =
            conn.prepare_cached("SELECT entry FROM review_entry_members WHERE doc_id = ?1")?;
        for &d in &docs {
            for e in st.query_map([d], |r| r.get::<_, i64>(0))? {
                *hits.entry(e?).or_default() += 1;
            }
        }
    }
    // Every queue entry is a merged one: naming the run lets SQLite use the primary key
    // (run_id, cluster) instead of scanning the whole queue for each affected entry.
    let mut st = conn.prepare_cached(
        "SELECT run_id, members_key FROM review_clusters WHERE run_id = ?1 AND cluster = ?2",
    )?;
    let mut out = Vec::new();
    for (entry, k) in hits {
        if k < 2 {
            continue;
        }
        let found: Option<(i64, String)> = st
            .query_row([MERGED_QUEUE, entry], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some((run, key)) = found {
            out.push((run, entry, parse_key(&key)));
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
pub(super) fn rebuild_statuses(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM review_status", [])?;
    let coders: Vec<String> = {
        let mut st = conn.prepare("SELECT DISTINCT coder FROM label_docs")?;
        let rows = st.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut st = conn.prepare(
        "SELECT DISTINCT q.run_id, q.cluster FROM (
           SELECT m.entry FROM label_docs ld
           JOIN review_entry_members m ON m.doc_id = ld.doc_id
           WHERE ld.coder = ?1
           GROUP BY ld.target, m.entry HAVING count(*) >= 2) e
         JOIN review_clusters q ON q.run_id = ?2 AND q.cluster = e.entry",
    )?;
    for coder in coders {
        let affected: Vec<(i64, i64)> = st
            .query_map(params![&coder, MERGED_QUEUE], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        update_clusters(conn, &coder, &affected)?;
    }
    Ok(())
}
