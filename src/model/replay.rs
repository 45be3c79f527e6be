//! Everything one coder's decision log implies, computed in memory from the log alone: the
//! label of every decided set, the label of every pair, and the review of any cluster. This
//! is the definition the store's derived tables follow (written incrementally, decision by
//! decision, in steps); the tests hold the two equal on random decision sequences.

use std::collections::BTreeMap;

use super::decision::touches_cluster;
use super::label::{Label, PairLabel};
use super::log::{active_decisions, set_key, DecisionRow};
use super::status::{cluster_review, ClusterReview, PairCounts};

/// One coder's labels after a log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels {
    /// The label of every set with a decision in force, by [`set_key`], with the id of the
    /// last decision in force on it.
    pub sets: BTreeMap<String, (Vec<i64>, Label, i64)>,
    /// The label of every pair (a < b) some verdict in force covers, with the id of the
    /// latest such verdict (which gives the label).
    pub pairs: BTreeMap<(i64, i64), (PairLabel, i64)>,
}

impl Labels {
    /// Replays the decisions in force of one coder's log (in id order).
    pub fn replay(log: &[DecisionRow]) -> Labels {
        let mut out = Labels::default();
        for row in active_decisions(log) {
            let entry = out
                .sets
                .entry(set_key(&row.target))
                .or_insert_with(|| (sorted(&row.target), Label::default(), row.id));
            entry.2 = row.id;
            let Some(decision) = row.decision() else {
                continue;
            };
            decision.apply_to(&mut entry.1);
            for (a, b, label) in decision.pair_labels(&row.target) {
                out.pairs.insert((a, b), (label, row.id));
            }
        }
        out
    }

    /// The label of a set (the default label when nothing decided it).
    pub fn label(&self, ids: &[i64]) -> Label {
        self.sets
            .get(&set_key(ids))
            .map(|(_, l, _)| l.clone())
            .unwrap_or_default()
    }

    /// The review of a cluster with these members; None when nothing labels it.
    pub fn cluster_review(&self, members: &[i64]) -> Option<ClusterReview> {
        let ids = sorted(members);
        let mut counts = PairCounts::default();
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                if let Some((l, _)) = self.pairs.get(&(a, b)) {
                    counts.add(*l);
                }
            }
        }
        let covering = self
            .sets
            .values()
            .filter(|(set, _, _)| touches_cluster(set, &ids))
            .map(|(_, label, id)| (label, *id));
        cluster_review(ids.len(), counts, covering)
    }
}

fn sorted(ids: &[i64]) -> Vec<i64> {
    let mut v = ids.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Decision, LabelStatus};

    fn row(id: i64, d: &Decision, target: &[i64]) -> DecisionRow {
        DecisionRow {
            id,
            coder: "c".into(),
            time: String::new(),
            action: d.action().into(),
            target: target.to_vec(),
            payload: d.payload(),
            previous: serde_json::json!({}),
            undoes: None,
        }
    }

    #[test]
    fn the_latest_verdict_covering_a_pair_labels_it() {
        let log = vec![
            row(1, &Decision::Confirm, &[1, 2, 3]),
            row(
                2,
                &Decision::Split {
                    groups: vec![vec![2], vec![3, 4]],
                },
                &[2, 3, 4],
            ),
            row(3, &Decision::Tag("t".into()), &[1, 2]),
        ];
        let l = Labels::replay(&log);
        assert_eq!(l.pairs[&(1, 2)], (PairLabel::Same, 1));
        assert_eq!(l.pairs[&(2, 3)], (PairLabel::Different, 2));
        assert_eq!(l.pairs[&(3, 4)], (PairLabel::Same, 2));
        let r = l.cluster_review(&[1, 2, 3]).unwrap();
        // (1,2) same, (1,3) same, (2,3) different.
        assert_eq!(r.status, LabelStatus::Split);
        assert_eq!(r.tags, vec!["t"]);
        assert_eq!(l.label(&[2, 1]).tags, vec!["t"]);
        assert_eq!(l.label(&[2, 1]).status, LabelStatus::Unreviewed);
    }
}
