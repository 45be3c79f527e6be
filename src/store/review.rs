//! What the review screens read besides the labels: a cluster's members and weakest
//! bridge, the run's pairs inside it, the documents' texts and previews, and what each
//! detector's latest run says about a pair. The decision log, the queue and the statuses
//! are in `decision_log`, `review_queue` and `review_status`; the types and rules they
//! persist are the review model's (`crate::model`). Decisions name document sets (sorted
//! ids), never cluster ids, so a label survives a detector rerun that renumbers its
//! clusters.

use anyhow::Result;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::Store;
use crate::model::MERGED_QUEUE;
pub(super) use crate::model::{parse_set_key as parse_key, set_key as target_key};

/// One member of a cluster as the cluster screen lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterMember {
    pub id: i64,
    pub url: String,
    pub title: String,
    /// Bytes of the visible text (UTF-8): SQLite reads this without the text itself.
    pub bytes: i64,
    pub dup_group: Option<i64>,
    /// Byte-identical captures this member stands for (1: none besides itself).
    pub captures: i64,
    /// The identified language of its content text (`und`: unknown or not identified).
    pub lang: String,
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

impl Store {
    /// The members of a queue entry with what the cluster screen shows.
    ///
    /// Reads no text: `octet_length` takes the length from the row's header, and the
    /// exact-duplicate group (stored after the texts, so reading it would read every
    /// overflow page of both: 20 ms for an entry of 100 long pages at a million pages) is
    /// looked up as what it is by definition, the smallest id with the same text hash (an
    /// index seek; documents are never deleted, see `Store::recompute_dup_groups`).
    pub fn entry_members(&self, entry: i64) -> Result<Vec<ClusterMember>> {
        let mut st = self.conn().prepare_cached(
            "SELECT d.id, d.url, d.title, octet_length(d.visible_text),
               (SELECT min(x.id) FROM documents x WHERE x.text_hash = d.text_hash), m.captures,
               coalesce(l.lang, 'und')
             FROM review_entry_members m JOIN documents d ON d.id = m.doc_id
               LEFT JOIN document_langs l ON l.doc_id = d.id
             WHERE m.entry = ?1 ORDER BY d.id",
        )?;
        let rows = st.query_map([entry], |r| {
            Ok(ClusterMember {
                id: r.get(0)?,
                url: r.get(1)?,
                title: r.get(2)?,
                bytes: r.get(3)?,
                dup_group: r.get(4)?,
                captures: r.get(5)?,
                lang: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The weakest link of a queue entry (the merged pair whose removal splits it), if any.
    pub fn entry_bridge(&self, entry: i64) -> Result<Option<(i64, i64, f64)>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT bridge_a, bridge_b, bridge_score FROM review_clusters
                 WHERE run_id = ?1 AND cluster = ?2 AND bridge_a IS NOT NULL",
                [MERGED_QUEUE, entry],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?)
    }

    /// The merged pairs of a queue entry as (a, b, best score) (for cutting it at its link).
    pub fn entry_edges(&self, entry: i64) -> Result<Vec<(i64, i64, f64)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT a, b, score FROM review_entry_pairs WHERE entry = ?1")?;
        let rows = st.query_map([entry], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
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

#[cfg(test)]
mod tests {
    use super::super::review_queue::PageAt;
    use super::*;
    use crate::model::{
        ClusterReview, Label, LabelStatus, Progress, QueueFilter, QueueRow, QueueSort,
    };
    use crate::store::ClusterRow;
    use serde_json::json;

    fn store_with_docs(n: usize) -> (tempfile::TempDir, Store, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let ids = (0..n)
            .map(|i| {
                s.insert_test_document(
                    &format!("http://example.org/{i}"),
                    // One title for all: pages of one site with titles of their own
                    // ("Page 7", "Page 8") are two pages, which the queue leaves out.
                    "Page",
                    &format!("text of page {i}: long enough not to be triaged as a near-empty page, which takes a hundred characters"),
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
        run_with(
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
            s.cluster_review("ann", crate::model::MERGED_QUEUE, 1)
                .unwrap(),
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
                    QueueSort::AgreementDesc => assert!(a.detectors.len() >= b.detectors.len()),
                    QueueSort::Active => {
                        let teach = |r: &QueueRow| {
                            crate::model::teach_score(&crate::model::QueueKey {
                                run_id: r.run_id,
                                cluster: r.cluster,
                                size: r.size,
                                min_score: r.min_score,
                                max_score: r.max_score,
                                agreement: r.detectors.len() as i64,
                                detectors_total: r.detectors_total,
                            })
                        };
                        assert!(teach(a) >= teach(b))
                    }
                }
            }
        }
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
        assert_eq!(page[0].members, ids[3..5].to_vec());
        assert_eq!(page[0].status, LabelStatus::Confirmed);
        assert_eq!(page[1].status, LabelStatus::Unreviewed);
        assert_eq!(
            s.first_unreviewed("ann", &f, QueueSort::SizeAsc).unwrap(),
            Some(1)
        );
        let all = QueueFilter {
            noise: crate::model::NoiseShown::Include,
            ..f.clone()
        };
        assert_eq!(s.queue_len("ann", &all).unwrap(), 2, "no noise here");
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
    fn disagreement_marks_entries_not_every_detector_found() {
        let (_d, mut s, ids) = store_with_docs(5);
        run_with(
            &mut s,
            "spotsigs",
            &[vec![ids[0], ids[1], ids[2]], vec![ids[3], ids[4]]],
        );
        run_with(&mut s, "imatch", &[vec![ids[3], ids[4]]]);
        s.refresh_review_queue().unwrap();
        let f = QueueFilter {
            disagree_only: true,
            ..QueueFilter::default()
        };
        let rows = s.queue_page("x", &f, QueueSort::SizeDesc, 0, 10).unwrap();
        // {0,1,2}: spotsigs only; {3,4}: both, one entry for the two runs.
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].method, "spotsigs only");
        assert_eq!(rows[0].members, ids[..3].to_vec());
        let all = s
            .queue_page(
                "x",
                &QueueFilter::default(),
                QueueSort::AgreementDesc,
                0,
                10,
            )
            .unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].method, "2 of 2 detectors");
        assert_eq!(all[0].members, ids[3..5].to_vec());
    }
}
