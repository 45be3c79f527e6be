//! Pairwise evaluation against a gold clustering: precision, recall and F1 over document
//! pairs, counting only documents present in both the prediction's universe and the gold,
//! and Max-F1 over score thresholds (the ANDD paper's metric).
//!
//! Gold pairs are counted from cluster sizes (never enumerated), so a gold set of a million
//! documents costs no more than its size.

use std::collections::HashMap;

use serde::Serialize;

/// Precision, recall and F1 with the counts they come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PairScores {
    pub true_positives: u64,
    pub predicted: u64,
    pub gold: u64,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl PairScores {
    pub fn new(true_positives: u64, predicted: u64, gold: u64) -> Self {
        let precision = if predicted == 0 {
            1.0
        } else {
            true_positives as f64 / predicted as f64
        };
        let recall = if gold == 0 {
            1.0
        } else {
            true_positives as f64 / gold as f64
        };
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        PairScores {
            true_positives,
            predicted,
            gold,
            precision,
            recall,
            f1,
        }
    }
}

/// A gold clustering: document → gold cluster label (an index).
#[derive(Debug, Clone, Default)]
pub struct Gold {
    label_of: HashMap<i64, u32>,
    /// Number of gold pairs among the documents in `label_of`.
    pairs: u64,
}

fn choose2(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

impl Gold {
    /// Builds the gold from (document, cluster name) assignments. A document listed twice
    /// keeps its first cluster.
    pub fn new<'a>(assignments: impl IntoIterator<Item = (i64, &'a str)>) -> Self {
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut label_of = HashMap::new();
        for (doc, name) in assignments {
            let next = names.len() as u32;
            let label = *names.entry(name).or_insert(next);
            label_of.entry(doc).or_insert(label);
        }
        let mut sizes: HashMap<u32, u64> = HashMap::new();
        for l in label_of.values() {
            *sizes.entry(*l).or_default() += 1;
        }
        let pairs = sizes.values().map(|&n| choose2(n)).sum();
        Gold { label_of, pairs }
    }

    pub fn contains(&self, doc: i64) -> bool {
        self.label_of.contains_key(&doc)
    }

    pub fn len(&self) -> usize {
        self.label_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.label_of.is_empty()
    }

    pub fn same_cluster(&self, a: i64, b: i64) -> bool {
        matches!((self.label_of.get(&a), self.label_of.get(&b)), (Some(x), Some(y)) if x == y)
    }

    /// Number of gold pairs among gold documents.
    pub fn pair_count(&self) -> u64 {
        self.pairs
    }

    /// Scores predicted pairs (each unordered pair once); pairs with a document outside the
    /// gold are ignored.
    pub fn score_pairs(&self, pairs: impl IntoIterator<Item = (i64, i64)>) -> PairScores {
        let (mut tp, mut predicted) = (0, 0);
        for (a, b) in pairs {
            if a == b || !self.contains(a) || !self.contains(b) {
                continue;
            }
            predicted += 1;
            if self.same_cluster(a, b) {
                tp += 1;
            }
        }
        PairScores::new(tp, predicted, self.pairs)
    }

    /// Scores predicted clusters by all pairs inside each cluster (transitive closure).
    pub fn score_clusters(&self, clusters: &[Vec<i64>]) -> PairScores {
        let (mut tp, mut predicted) = (0, 0);
        for c in clusters {
            let mut by_label: HashMap<u32, u64> = HashMap::new();
            let mut n = 0;
            for d in c {
                if let Some(l) = self.label_of.get(d) {
                    *by_label.entry(*l).or_default() += 1;
                    n += 1;
                }
            }
            predicted += choose2(n);
            tp += by_label.values().map(|&k| choose2(k)).sum::<u64>();
        }
        PairScores::new(tp, predicted, self.pairs)
    }

    /// Max-F1 over thresholds of scored pairs: returns the best threshold (pairs with score
    /// ≥ it are predicted) and its scores. `None` when no pair touches the gold.
    pub fn max_f1(&self, pairs: &[(i64, i64, f64)]) -> Option<(f64, PairScores)> {
        let mut inside: Vec<(f64, bool)> = pairs
            .iter()
            .filter(|(a, b, _)| a != b && self.contains(*a) && self.contains(*b))
            .map(|&(a, b, s)| (s, self.same_cluster(a, b)))
            .collect();
        inside.sort_by(|x, y| y.0.total_cmp(&x.0));
        let mut best: Option<(f64, PairScores)> = None;
        let (mut tp, mut predicted) = (0u64, 0u64);
        let mut i = 0;
        while i < inside.len() {
            // All pairs with the same score enter together.
            let score = inside[i].0;
            while i < inside.len() && inside[i].0 == score {
                predicted += 1;
                tp += u64::from(inside[i].1);
                i += 1;
            }
            let s = PairScores::new(tp, predicted, self.pairs);
            if best.is_none_or(|(_, b)| s.f1 > b.f1) {
                best = Some((score, s));
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gold() -> Gold {
        // Clusters {1,2,3} and {4,5}; 6 alone. Gold pairs: 3 + 1 = 4.
        Gold::new([(1, "a"), (2, "a"), (3, "a"), (4, "b"), (5, "b"), (6, "c")])
    }

    #[test]
    fn pair_scores_count_by_hand() {
        let g = gold();
        assert_eq!(g.pair_count(), 4);
        // (1,2) right, (4,5) right, (3,4) wrong, (7,1) outside the gold: ignored.
        let s = g.score_pairs([(1, 2), (4, 5), (3, 4), (7, 1)]);
        assert_eq!((s.true_positives, s.predicted, s.gold), (2, 3, 4));
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall - 0.5).abs() < 1e-12);
        assert!((s.f1 - 4.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn cluster_scores_use_all_pairs_inside_clusters() {
        let g = gold();
        // {1,2,3,4}: 6 pairs, 3 right. {5,6}: 1 pair, wrong.
        let s = g.score_clusters(&[vec![1, 2, 3, 4], vec![5, 6]]);
        assert_eq!((s.true_positives, s.predicted, s.gold), (3, 7, 4));
        let perfect = g.score_clusters(&[vec![1, 2, 3], vec![4, 5], vec![6]]);
        assert_eq!(perfect.f1, 1.0);
    }

    #[test]
    fn max_f1_picks_the_best_threshold() {
        let g = gold();
        let pairs = [
            (1, 2, 0.9),
            (2, 3, 0.8),
            (3, 4, 0.7),
            (1, 3, 0.6),
            (4, 5, 0.5),
        ];
        let (t, s) = g.max_f1(&pairs).unwrap();
        // At 0.5 everything: tp 4 of 5 predicted, recall 1 → F1 = 8/9, the best.
        assert_eq!(t, 0.5);
        assert!((s.f1 - 8.0 / 9.0).abs() < 1e-12);
        assert!(g.max_f1(&[(7, 8, 1.0)]).is_none());
    }

    #[test]
    fn empty_prediction_has_precision_one_and_recall_zero() {
        let s = gold().score_pairs(std::iter::empty());
        assert_eq!((s.precision, s.recall, s.f1), (1.0, 0.0, 0.0));
    }
}
