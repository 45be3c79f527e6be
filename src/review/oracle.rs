//! A scripted coder for tests, benchmarks and learning curves: given a gold clustering, it
//! labels proposed clusters (a detector run's, the review queue's, or the gold clusters
//! themselves) through the same store calls the workbench makes (the typed decisions of
//! `Session::decide` and `Session::split`), so everything
//! downstream of the decision log sees exactly what a human coder would leave.
//!
//! The verdict on a proposed set: **confirm** when every member is in one gold cluster,
//! **reject** when every member is in a different gold cluster, otherwise **split** into
//! the gold groups. A set with a member the gold does not know is skipped (an oracle does
//! not guess). Subsets for learning curves: only sets whose URLs all start with a prefix,
//! at most N sets or N labeled documents, in a seeded random order.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::{Decision, LabelStatus, QueueFilter, QueueSort};
use crate::sig::imatch::SplitMix64;
use crate::store::Store;
use anyhow::Result;
use serde::Serialize;

/// What the oracle decides about a document set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Confirm,
    Reject,
    /// The gold groups, each sorted, ordered by smallest member.
    Split(Vec<Vec<i64>>),
}

impl Verdict {
    /// The decision the workbench records for this verdict.
    pub fn decision(&self) -> Decision {
        match self {
            Verdict::Confirm => Decision::Confirm,
            Verdict::Reject => Decision::Reject,
            Verdict::Split(groups) => Decision::Split {
                groups: groups.clone(),
            },
        }
    }
}

/// Which sets to label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OracleOptions {
    /// Only sets whose members' URLs all start with this.
    pub url_prefix: Option<String>,
    /// Stop when the oracle has labeled this many distinct documents (over all its calls);
    /// a set that would exceed it is passed over for a smaller one.
    pub max_documents: Option<usize>,
    /// Label at most this many sets in this call.
    pub max_sets: Option<usize>,
    /// Visit the sets in a random order drawn from this seed (the given order otherwise).
    pub seed: Option<u64>,
    /// Also decide sets this coder already labeled (skipped by default).
    pub relabel: bool,
}

/// What one call did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OracleReport {
    pub confirmed: usize,
    pub split: usize,
    pub rejected: usize,
    /// Sets with a member outside the gold.
    pub skipped_unknown: usize,
    /// Sets the coder had already labeled.
    pub skipped_labeled: usize,
    /// Distinct documents labeled by this call.
    pub documents: usize,
}

impl OracleReport {
    pub fn decisions(&self) -> usize {
        self.confirmed + self.split + self.rejected
    }
}

/// A scripted coder.
pub struct Oracle {
    coder: String,
    gold: HashMap<i64, u32>,
    urls: HashMap<i64, String>,
    /// Every document this oracle has labeled so far.
    labeled: BTreeSet<i64>,
}

impl Oracle {
    /// An oracle for `coder` from gold rows `(url, cluster)` (as `eval` reads them): every
    /// document of the store with a gold URL gets that URL's cluster.
    pub fn new(store: &Store, gold_rows: &[(String, String)], coder: &str) -> Result<Oracle> {
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut by_url: HashMap<&str, u32> = HashMap::new();
        for (url, cluster) in gold_rows {
            let next = names.len() as u32;
            let c = *names.entry(cluster.as_str()).or_insert(next);
            by_url.entry(url.as_str()).or_insert(c);
        }
        let mut gold = HashMap::new();
        let mut urls = HashMap::new();
        for (url, id) in store.url_ids()? {
            if let Some(&c) = by_url.get(url.as_str()) {
                gold.insert(id, c);
            }
            urls.insert(id, url);
        }
        Ok(Oracle {
            coder: coder.to_string(),
            gold,
            urls,
            labeled: BTreeSet::new(),
        })
    }

    pub fn coder(&self) -> &str {
        &self.coder
    }

    /// Documents of the store the gold knows.
    pub fn gold_documents(&self) -> usize {
        self.gold.len()
    }

    /// Every document this oracle has labeled so far, sorted.
    pub fn labeled_documents(&self) -> &BTreeSet<i64> {
        &self.labeled
    }

    /// The verdict on a set of two or more documents; `None` when a member is unknown.
    pub fn verdict(&self, members: &[i64]) -> Option<Verdict> {
        let mut groups: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
        for &m in members.iter().collect::<BTreeSet<_>>() {
            groups.entry(*self.gold.get(&m)?).or_default().push(m);
        }
        Some(if groups.len() == 1 {
            Verdict::Confirm
        } else if groups.len() == members.len() {
            Verdict::Reject
        } else {
            let mut g: Vec<Vec<i64>> = groups.into_values().collect();
            g.sort_by_key(|g| g[0]);
            Verdict::Split(g)
        })
    }

    /// Labels `sets` (document-id lists) in order (or the seeded order), within the
    /// options' limits.
    pub fn label_sets(
        &mut self,
        store: &mut Store,
        sets: Vec<Vec<i64>>,
        opts: &OracleOptions,
    ) -> Result<OracleReport> {
        let mut sets: Vec<Vec<i64>> = sets
            .into_iter()
            .map(|s| s.into_iter().collect::<BTreeSet<_>>().into_iter().collect())
            .filter(|s: &Vec<i64>| s.len() >= 2)
            .filter(|s| self.in_prefix(s, opts))
            .collect();
        if let Some(seed) = opts.seed {
            let mut rng = SplitMix64::new(seed);
            for i in (1..sets.len()).rev() {
                sets.swap(i, rng.below(i + 1));
            }
        }
        let mut report = OracleReport::default();
        let mut mine = BTreeSet::new();
        for set in sets {
            if opts.max_sets.is_some_and(|n| report.decisions() >= n)
                || opts.max_documents.is_some_and(|n| self.labeled.len() >= n)
            {
                break;
            }
            let new = set.iter().filter(|d| !self.labeled.contains(d)).count();
            if opts
                .max_documents
                .is_some_and(|n| self.labeled.len() + new > n)
            {
                continue;
            }
            let Some(verdict) = self.verdict(&set) else {
                report.skipped_unknown += 1;
                continue;
            };
            if !opts.relabel && store.label(&self.coder, &set)?.status != LabelStatus::Unreviewed {
                report.skipped_labeled += 1;
                continue;
            }
            store.decide(&self.coder, &verdict.decision(), &set)?;
            match verdict {
                Verdict::Confirm => report.confirmed += 1,
                Verdict::Reject => report.rejected += 1,
                Verdict::Split(_) => report.split += 1,
            }
            mine.extend(set.iter().copied());
            self.labeled.extend(set);
        }
        report.documents = mine.len();
        Ok(report)
    }

    fn in_prefix(&self, set: &[i64], opts: &OracleOptions) -> bool {
        match &opts.url_prefix {
            None => true,
            Some(p) => set
                .iter()
                .all(|d| self.urls.get(d).is_some_and(|u| u.starts_with(p.as_str()))),
        }
    }

    /// Labels the clusters of one detector run, largest first.
    pub fn label_run(
        &mut self,
        store: &mut Store,
        run: i64,
        opts: &OracleOptions,
    ) -> Result<OracleReport> {
        let clusters = store.run_clusters(run)?;
        self.label_sets(store, clusters, opts)
    }

    /// Labels the review queue as the workbench shows it by default: the clusters of the
    /// latest run of every method, largest first.
    pub fn label_queue(&mut self, store: &mut Store, opts: &OracleOptions) -> Result<OracleReport> {
        store.refresh_review_queue()?;
        let filter = QueueFilter::default();
        let mut sets = Vec::new();
        let mut offset = 0;
        loop {
            let page = store.queue_page(&self.coder, &filter, QueueSort::SizeDesc, offset, 1000)?;
            if page.is_empty() {
                break;
            }
            offset += page.len() as u64;
            sets.extend(page.into_iter().map(|r| r.members));
        }
        self.label_sets(store, sets, opts)
    }

    /// Confirms gold clusters directly (those with two or more documents in the store), so
    /// positives exist whatever a detector found. Ordered by smallest member.
    pub fn confirm_gold(
        &mut self,
        store: &mut Store,
        opts: &OracleOptions,
    ) -> Result<OracleReport> {
        let mut by_cluster: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
        for (&d, &c) in &self.gold {
            by_cluster.entry(c).or_default().push(d);
        }
        let mut sets: Vec<Vec<i64>> = by_cluster
            .into_values()
            .filter(|s| s.len() >= 2)
            .map(|mut s| {
                s.sort_unstable();
                s
            })
            .collect();
        sets.sort_by_key(|s| s[0]);
        self.label_sets(store, sets, opts)
    }

    /// Labels single pairs, as the pair view does (a two-document target).
    pub fn label_pairs(
        &mut self,
        store: &mut Store,
        pairs: &[(i64, i64)],
        opts: &OracleOptions,
    ) -> Result<OracleReport> {
        let sets = pairs.iter().map(|&(a, b)| vec![a, b]).collect();
        self.label_sets(store, sets, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ClusterRow;
    use serde_json::json;

    /// Documents u0..u7; gold: {0,1,2} {3,4} {5} {6} {7}.
    fn setup() -> (tempfile::TempDir, Store, Vec<i64>, Oracle) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("o.db")).unwrap();
        let ids: Vec<i64> = (0..8)
            .map(|i| {
                let url = if i < 5 {
                    format!("a/{i}")
                } else {
                    format!("b/{i}")
                };
                s.insert_test_document(&url, "", &format!("text {i}"), None)
                    .unwrap()
            })
            .collect();
        let gold: Vec<(String, String)> = [
            ("a/0", "x"),
            ("a/1", "x"),
            ("a/2", "x"),
            ("a/3", "y"),
            ("a/4", "y"),
            ("b/5", "p"),
            ("b/6", "q"),
        ]
        .iter()
        .map(|(u, c)| (u.to_string(), c.to_string()))
        .collect();
        let o = Oracle::new(&s, &gold, "oracle").unwrap();
        (dir, s, ids, o)
    }

    #[test]
    fn verdicts_follow_the_gold() {
        let (_d, _s, ids, o) = setup();
        assert_eq!(o.verdict(&[ids[0], ids[2]]), Some(Verdict::Confirm));
        assert_eq!(o.verdict(&[ids[0], ids[3], ids[5]]), Some(Verdict::Reject));
        assert_eq!(
            o.verdict(&[ids[4], ids[1], ids[0], ids[3], ids[6]]),
            Some(Verdict::Split(vec![
                vec![ids[0], ids[1]],
                vec![ids[3], ids[4]],
                vec![ids[6]]
            ]))
        );
        assert_eq!(o.verdict(&[ids[0], ids[7]]), None, "u7 is not in the gold");
        assert_eq!(o.gold_documents(), 7);
    }

    #[test]
    fn a_run_is_labeled_through_the_decision_log() {
        let (_d, mut s, ids, mut o) = setup();
        let run = s.create_run("spotsigs", &json!({})).unwrap();
        let rows: Vec<ClusterRow> = [
            vec![ids[0], ids[1], ids[3]],
            vec![ids[5], ids[6]],
            vec![ids[3], ids[4]],
            vec![ids[6], ids[7]],
        ]
        .into_iter()
        .map(|members| ClusterRow {
            members,
            min_score: Some(0.9),
            max_score: Some(0.9),
            weakest_bridge: None,
        })
        .collect();
        s.write_run_clusters(run, &rows).unwrap();
        s.finish_run(run, &json!({})).unwrap();
        let r = o.label_run(&mut s, run, &OracleOptions::default()).unwrap();
        assert_eq!((r.confirmed, r.split, r.rejected), (1, 1, 1));
        assert_eq!(r.skipped_unknown, 1);
        assert_eq!(r.documents, 6);
        // The store's own derived labels say what a coder's would.
        let l = s.label("oracle", &[ids[0], ids[1], ids[3]]).unwrap();
        assert_eq!(l.status, LabelStatus::Split);
        assert_eq!(
            s.pair_label("oracle", ids[0], ids[1]).unwrap().as_deref(),
            Some("same")
        );
        assert_eq!(
            s.pair_label("oracle", ids[1], ids[3]).unwrap().as_deref(),
            Some("different")
        );
        assert_eq!(
            s.pair_label("oracle", ids[5], ids[6]).unwrap().as_deref(),
            Some("different")
        );
        let log = s.decision_log("oracle").unwrap();
        let split = log.iter().find(|d| d.action == "split").unwrap();
        assert_eq!(
            split.payload,
            json!({"groups": [[ids[0], ids[1]], [ids[3]]]})
        );
        // Labeling again skips what is labeled.
        let again = o.label_run(&mut s, run, &OracleOptions::default()).unwrap();
        assert_eq!(again.decisions(), 0);
        assert_eq!(again.skipped_labeled, 3);
    }

    #[test]
    fn subsets_by_prefix_budget_and_seed() {
        let (_d, mut s, ids, mut o) = setup();
        let only_b = OracleOptions {
            url_prefix: Some("b/".into()),
            ..OracleOptions::default()
        };
        assert_eq!(o.confirm_gold(&mut s, &only_b).unwrap().decisions(), 0);
        // Budget 3 documents: {0,1,2} fits, {3,4} would exceed.
        let budget = OracleOptions {
            max_documents: Some(3),
            ..OracleOptions::default()
        };
        let r = o.confirm_gold(&mut s, &budget).unwrap();
        assert_eq!((r.confirmed, r.documents), (1, 3));
        assert_eq!(
            o.labeled_documents().iter().copied().collect::<Vec<_>>(),
            ids[..3].to_vec()
        );
        // Pairs as the pair view records them; at most one set.
        let one = OracleOptions {
            max_sets: Some(1),
            relabel: true,
            ..OracleOptions::default()
        };
        let r = o
            .label_pairs(&mut s, &[(ids[3], ids[4]), (ids[0], ids[5])], &one)
            .unwrap();
        assert_eq!(r.confirmed, 1);
        // A seeded order is reproducible and can differ from the given one.
        let order = |seed| {
            let (_d, mut s, _ids, mut o) = setup();
            let sets: Vec<Vec<i64>> = (0..5).map(|i| vec![ids[i], ids[i + 1]]).collect();
            let opts = OracleOptions {
                seed: Some(seed),
                max_sets: Some(1),
                ..OracleOptions::default()
            };
            o.label_sets(&mut s, sets, &opts).unwrap();
            o.labeled_documents().clone()
        };
        assert_eq!(order(5), order(5));
        assert!((0..20).any(|k| order(k) != order(5)));
    }
}
