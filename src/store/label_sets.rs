//! The coders' current verdicts as labeled document sets (the model's [`LabelSet`]), for export and evaluation: every
//! (coder, document set) whose label is confirmed, split, rejected or unsure, with the groups
//! of a split and the id of the decision that set the verdict (so callers can replay the
//! verdicts in the order they were made). Read from the derived `labels` table and the
//! active rows of the decision log; nothing here writes.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::decision_log::parse_tags;
use super::review::{parse_key, target_key};
use super::{Store, TextKind};
use crate::model::{active_decisions, normalized_groups, LabelSet, LabelStatus};

impl Store {
    /// Every labeled document set of `coder` (or of every coder), ordered by coder and then
    /// by the decision that set its verdict.
    pub fn label_sets(&self, coder: Option<&str>) -> Result<Vec<LabelSet>> {
        let coders = match coder {
            Some(c) => vec![c.to_string()],
            None => self.coders()?,
        };
        let mut out = Vec::new();
        for coder in coders {
            // The verdict rows in force, by target: the latest active status decision.
            let log = self.decision_log(&coder)?;
            let mut verdict: HashMap<String, (i64, LabelStatus, Vec<Vec<i64>>)> = HashMap::new();
            for d in active_decisions(&log) {
                let Some(decision) = d.decision() else {
                    continue;
                };
                if let Some(status) = decision.verdict() {
                    let groups = normalized_groups(decision.groups());
                    verdict.insert(target_key(&d.target), (d.id, status, groups));
                }
            }
            let mut st = self.conn().prepare(
                "SELECT target, status, tags FROM labels
                 WHERE coder = ?1 AND status != 'unreviewed'",
            )?;
            let rows = st.query_map(params![coder], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?;
            let mut sets = Vec::new();
            for row in rows {
                let (target, status, tags) = row?;
                let status = LabelStatus::parse(&status);
                // The labels table is derived from the same active rows, so the verdict
                // exists and agrees; a row that does not is skipped rather than guessed.
                let Some((decision, logged, groups)) = verdict.remove(&target) else {
                    continue;
                };
                if logged != status {
                    continue;
                }
                sets.push(LabelSet {
                    coder: coder.clone(),
                    members: parse_key(&target),
                    status,
                    groups,
                    tags: parse_tags(&tags),
                    decision,
                });
            }
            sets.sort_by_key(|s| s.decision);
            out.extend(sets);
        }
        Ok(out)
    }
}

/// What the exports show of a document besides its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocBrief {
    pub id: i64,
    pub url: String,
    pub title: String,
}

impl Store {
    /// Pairs (a < b) of documents in `docs` that the latest finished run of any method
    /// proposed, or that are exact duplicates (one `dup_group`): pairs that must not be
    /// sampled as negatives when no coder labeled them.
    pub fn proposed_pairs_among(&self, docs: &HashSet<i64>) -> Result<HashSet<(i64, i64)>> {
        let mut out = HashSet::new();
        let mut st = self.conn().prepare(
            "SELECT a, b FROM run_pairs WHERE run_id IN
               (SELECT max(id) FROM runs WHERE finished_at IS NOT NULL GROUP BY method)",
        )?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let (a, b): (i64, i64) = (r.get(0)?, r.get(1)?);
            if docs.contains(&a) && docs.contains(&b) {
                out.insert((a.min(b), a.max(b)));
            }
        }
        let mut st = self.conn().prepare(
            "SELECT dup_group, id FROM documents WHERE dup_group IN
               (SELECT dup_group FROM documents WHERE dup_group IS NOT NULL
                GROUP BY dup_group HAVING count(*) > 1)
             ORDER BY dup_group, id",
        )?;
        let mut rows = st.query([])?;
        let mut groups: HashMap<i64, Vec<i64>> = HashMap::new();
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(1)?;
            if docs.contains(&id) {
                groups.entry(r.get(0)?).or_default().push(id);
            }
        }
        for g in groups.values() {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    out.insert((a.min(b), a.max(b)));
                }
            }
        }
        Ok(out)
    }

    /// URL and title of the given documents, by id (unknown ids are left out).
    pub fn doc_briefs(&self, ids: &[i64]) -> Result<HashMap<i64, DocBrief>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT url, title FROM documents WHERE id = ?1")?;
        let mut out = HashMap::new();
        for &id in ids {
            let row = st
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            if let Some((url, title)) = row {
                out.insert(id, DocBrief { id, url, title });
            }
        }
        Ok(out)
    }

    /// One stored text of one document (main-content and content texts fall back to the
    /// visible text where the document has none).
    pub fn doc_text(&self, id: i64, kind: TextKind) -> Result<Option<String>> {
        let sql = format!(
            "SELECT {} FROM documents WHERE id = ?1",
            super::detections::text_column(kind)
        );
        Ok(self
            .conn()
            .prepare_cached(&sql)?
            .query_row([id], |r| r.get(0))
            .optional()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn label_sets_follow_the_log_with_undo_tags_and_split_groups() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("l.db")).unwrap();
        let ids: Vec<i64> = (0..5)
            .map(|i| {
                s.insert_test_document(&format!("u{i}"), "", &format!("t{i}"), None)
                    .unwrap()
            })
            .collect();
        s.record_decision("ann", "confirm", &ids[..3], json!({}))
            .unwrap();
        s.record_decision(
            "ann",
            "split",
            &ids[..3],
            json!({"groups": [[ids[1], ids[0]], [ids[2]]]}),
        )
        .unwrap();
        s.record_decision("ann", "tag", &ids[..3], json!({"tag": "wire"}))
            .unwrap();
        let r = s
            .record_decision("ann", "reject", &ids[3..], json!({}))
            .unwrap();
        s.record_undo("ann", r.id).unwrap();
        s.record_decision("bob", "unsure", &ids[3..], json!({}))
            .unwrap();
        let all = s.label_sets(None).unwrap();
        assert_eq!(all.len(), 2, "{all:?}");
        let ann = &all[0];
        assert_eq!(ann.coder, "ann");
        assert_eq!(ann.status, LabelStatus::Split);
        assert_eq!(ann.members, ids[..3].to_vec());
        assert_eq!(ann.groups, vec![vec![ids[0], ids[1]], vec![ids[2]]]);
        assert_eq!(ann.tags, vec!["wire"]);
        assert_eq!(all[1].coder, "bob");
        assert_eq!(all[1].status, LabelStatus::Unsure);
        assert_eq!(s.label_sets(Some("bob")).unwrap().len(), 1);
        assert!(s.label_sets(Some("nobody")).unwrap().is_empty());
    }
}
