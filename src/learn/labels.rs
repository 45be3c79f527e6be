//! The coders' labels as pair verdicts, and the gold clustering they imply. Pure functions
//! over [`LabelSet`]s (the store reads them), shared by the training-pair export, the gold
//! exports and `eval --gold labels`.
//!
//! Rules:
//! - A labeled set speaks about every pair inside it: confirmed → same; rejected →
//!   different; split → same inside a group, different across groups (a member in no group
//!   stands alone); unsure → unsure. Within one coder the latest verdict covering a pair
//!   wins (the same rule as the store's `pair_labels`).
//! - Across coders: a pair that every coder who judged it (unsure aside) calls the same way
//!   gets that verdict; a pair called "same" by one coder and "different" by another is a
//!   [`Conflict`]: reported, and left out of the verdicts rather than resolved — unless an
//!   adjudicator (coder key `adjudicator:NAME`, `model::adjudication`) labeled the pair
//!   same or different: then the adjudicators' verdict is the pair's, whatever the coders
//!   said (adjudicators who disagree with each other are the conflict).
//! - The gold clustering: the connected components of the "same" verdicts over the labeled
//!   documents (those in at least one verdict); a document whose verdicts are all
//!   "different" is a cluster of its own. No transitive inference beyond that.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::cluster::union_find::UnionFind;
use crate::model::adjudication::is_adjudicator;
use crate::model::{LabelSet, LabelStatus};

/// One pair's verdict from one coder's set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Same,
    Different,
    Unsure,
}

/// An agreed verdict on a pair (a < b).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairVerdict {
    pub a: i64,
    pub b: i64,
    pub same: bool,
    /// Some coder judged exactly this pair (a two-document set: the pair view, or a
    /// two-member cluster); otherwise the verdict follows from a larger set.
    pub direct: bool,
    /// The coders who gave this verdict, sorted.
    pub coders: Vec<String>,
    /// The tags of the sets the verdict comes from, sorted.
    pub tags: Vec<String>,
}

/// A pair coders disagree on: left out of verdicts, clusters and training pairs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    pub a: i64,
    pub b: i64,
    /// Coders who call the pair near-duplicates.
    pub same: Vec<String>,
    /// Coders who call it different.
    pub different: Vec<String>,
}

/// All coders' labels merged into pair verdicts.
#[derive(Debug, Clone, Default)]
pub struct MergedLabels {
    /// Agreed verdicts, sorted by (a, b).
    pub verdicts: Vec<PairVerdict>,
    pub conflicts: Vec<Conflict>,
    /// Pairs every coder who judged them called unsure, sorted.
    pub unsure: Vec<(i64, i64)>,
    /// The labeled document sets that are not unsure-only, as member lists: the units of
    /// the train/test split are their connected components.
    pub sets: Vec<Vec<i64>>,
    /// The coders whose labels were merged, sorted.
    pub coders: Vec<String>,
}

/// The verdict of pair (members[i], members[j]) under set `s`.
fn set_verdict(s: &LabelSet, group_of: &HashMap<i64, usize>, x: i64, y: i64) -> Verdict {
    match s.status {
        LabelStatus::Confirmed => Verdict::Same,
        LabelStatus::Rejected => Verdict::Different,
        LabelStatus::Split => match (group_of.get(&x), group_of.get(&y)) {
            (Some(g), Some(h)) if g == h => Verdict::Same,
            _ => Verdict::Different,
        },
        // `Partial` is derived for queue rows, never a stored label; it carries no verdict.
        LabelStatus::Unsure | LabelStatus::Unreviewed | LabelStatus::Partial => Verdict::Unsure,
    }
}

/// One coder's verdict on a pair: (coder index, verdict, index of the set it comes from).
type Entry = (usize, Verdict, usize);

/// Merges labeled sets (of any coders, any order) into pair verdicts.
pub fn merge_labels(sets: &[LabelSet]) -> MergedLabels {
    let mut order: Vec<&LabelSet> = sets
        .iter()
        .filter(|s| s.status != LabelStatus::Unreviewed)
        .collect();
    order.sort_by(|x, y| (&x.coder, x.decision).cmp(&(&y.coder, y.decision)));
    let coders: Vec<String> = order
        .iter()
        .map(|s| s.coder.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let coder_index: HashMap<&str, usize> = coders
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    // pair → one entry per coder: (coder, verdict, index into `order`). The latest set of a
    // coder overwrites that coder's entry, because `order` is by decision within a coder.
    let mut by_pair: HashMap<(i64, i64), Vec<Entry>> = HashMap::new();
    for (k, s) in order.iter().enumerate() {
        let coder = coder_index[s.coder.as_str()];
        let members: Vec<i64> = s
            .members
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut group_of = HashMap::new();
        for (g, members) in s.groups.iter().enumerate() {
            for m in members {
                group_of.insert(*m, g);
            }
        }
        for i in 0..members.len() {
            for j in i + 1..members.len() {
                let (a, b) = (members[i], members[j]);
                let v = set_verdict(s, &group_of, a, b);
                let entries = by_pair.entry((a, b)).or_default();
                match entries.iter_mut().find(|e| e.0 == coder) {
                    Some(e) => *e = (coder, v, k),
                    None => entries.push((coder, v, k)),
                }
            }
        }
    }
    let mut merged = MergedLabels {
        coders: coders.clone(),
        sets: order
            .iter()
            .filter(|s| s.status != LabelStatus::Unsure && s.members.len() >= 2)
            .map(|s| s.members.clone())
            .collect(),
        ..MergedLabels::default()
    };
    let mut keys: Vec<(i64, i64)> = by_pair.keys().copied().collect();
    keys.sort_unstable();
    for (a, b) in keys {
        // An adjudicator's same/different settles the pair; else the coders speak.
        let (adjudicated, coded): (Vec<Entry>, Vec<Entry>) = by_pair[&(a, b)]
            .iter()
            .partition(|e| is_adjudicator(&coders[e.0]));
        let entries = if adjudicated.iter().any(|e| e.1 != Verdict::Unsure) {
            &adjudicated
        } else {
            &coded
        };
        let names = |want: Verdict| -> Vec<String> {
            let mut v: Vec<String> = entries
                .iter()
                .filter(|e| e.1 == want)
                .map(|e| coders[e.0].clone())
                .collect();
            v.sort();
            v
        };
        let same = names(Verdict::Same);
        let different = names(Verdict::Different);
        if !same.is_empty() && !different.is_empty() {
            merged.conflicts.push(Conflict {
                a,
                b,
                same,
                different,
            });
            continue;
        }
        if same.is_empty() && different.is_empty() {
            merged.unsure.push((a, b));
            continue;
        }
        let want = if same.is_empty() {
            Verdict::Different
        } else {
            Verdict::Same
        };
        let agreeing: Vec<&LabelSet> = entries
            .iter()
            .filter(|e| e.1 == want)
            .map(|e| order[e.2])
            .collect();
        let tags: BTreeSet<String> = agreeing
            .iter()
            .flat_map(|s| s.tags.iter().cloned())
            .collect();
        merged.verdicts.push(PairVerdict {
            a,
            b,
            same: want == Verdict::Same,
            direct: agreeing.iter().any(|s| s.members.len() == 2),
            coders: if want == Verdict::Same {
                same
            } else {
                different
            },
            tags: tags.into_iter().collect(),
        });
    }
    merged
}

/// Dense indices for a set of document ids.
pub(crate) struct DocIndex {
    pub ids: Vec<i64>,
    pub index: HashMap<i64, u32>,
}

impl DocIndex {
    pub fn new(ids: impl IntoIterator<Item = i64>) -> Self {
        let ids: Vec<i64> = ids
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let index = ids
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, i as u32))
            .collect();
        DocIndex { ids, index }
    }

    /// Groups of ids by union-find root, each sorted, ordered by size (largest first) and
    /// then by smallest member.
    pub fn groups(&self, uf: &mut UnionFind) -> Vec<Vec<i64>> {
        let mut by_root: HashMap<u32, Vec<i64>> = HashMap::new();
        for (i, &d) in self.ids.iter().enumerate() {
            by_root.entry(uf.find(i as u32)).or_default().push(d);
        }
        let mut groups: Vec<Vec<i64>> = by_root.into_values().collect();
        groups.sort_by(|x, y| y.len().cmp(&x.len()).then(x[0].cmp(&y[0])));
        groups
    }
}

/// The gold clustering the labels imply.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LabelGold {
    /// Every labeled document exactly once; largest cluster first, then by smallest id.
    pub clusters: Vec<Vec<i64>>,
    pub conflicts: Vec<Conflict>,
    /// Agreed "different" pairs that other "same" verdicts put into one cluster anyway
    /// (A = B and B = C, but A ≠ C): the clustering cannot honor them.
    pub inconsistent: Vec<(i64, i64)>,
    pub coders: Vec<String>,
}

impl LabelGold {
    pub fn documents(&self) -> usize {
        self.clusters.iter().map(Vec::len).sum()
    }

    /// (document, cluster name) assignments, cluster names "1", "2", ... in cluster order.
    pub fn assignments(&self) -> Vec<(i64, String)> {
        self.clusters
            .iter()
            .enumerate()
            .flat_map(|(i, c)| c.iter().map(move |&d| (d, (i + 1).to_string())))
            .collect()
    }
}

/// Clusters the labeled documents by the agreed "same" verdicts.
pub fn label_gold(merged: &MergedLabels) -> LabelGold {
    let docs = DocIndex::new(merged.verdicts.iter().flat_map(|v| [v.a, v.b]));
    let mut uf = UnionFind::new(docs.ids.len());
    for v in merged.verdicts.iter().filter(|v| v.same) {
        uf.union(docs.index[&v.a], docs.index[&v.b]);
    }
    let inconsistent = merged
        .verdicts
        .iter()
        .filter(|v| !v.same && uf.same(docs.index[&v.a], docs.index[&v.b]))
        .map(|v| (v.a, v.b))
        .collect();
    LabelGold {
        clusters: docs.groups(&mut uf),
        conflicts: merged.conflicts.clone(),
        inconsistent,
        coders: merged.coders.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn set(
        coder: &str,
        decision: i64,
        status: LabelStatus,
        members: &[i64],
    ) -> LabelSet {
        LabelSet {
            coder: coder.into(),
            members: members.to_vec(),
            status,
            groups: Vec::new(),
            tags: Vec::new(),
            decision,
        }
    }

    pub(crate) fn split(coder: &str, decision: i64, groups: &[&[i64]]) -> LabelSet {
        let mut members: Vec<i64> = groups.iter().flat_map(|g| g.iter().copied()).collect();
        members.sort_unstable();
        LabelSet {
            groups: groups.iter().map(|g| g.to_vec()).collect(),
            ..set(coder, decision, LabelStatus::Split, &members)
        }
    }

    #[test]
    fn latest_verdict_of_a_coder_wins_and_coders_in_conflict_are_reported() {
        let sets = vec![
            set("ann", 1, LabelStatus::Confirmed, &[1, 2, 3]),
            // Later, ann looks at the pair (1, 3) and says different.
            set("ann", 5, LabelStatus::Rejected, &[1, 3]),
            set("bob", 2, LabelStatus::Rejected, &[1, 2]),
            set("bob", 3, LabelStatus::Unsure, &[2, 3]),
        ];
        let m = merge_labels(&sets);
        assert_eq!(m.coders, vec!["ann", "bob"]);
        // (1,2): ann same, bob different → conflict. (1,3): ann different (latest).
        // (2,3): ann same, bob unsure → same, from ann only.
        assert_eq!(
            m.conflicts,
            vec![Conflict {
                a: 1,
                b: 2,
                same: vec!["ann".into()],
                different: vec!["bob".into()],
            }]
        );
        let v: Vec<(i64, i64, bool, bool)> = m
            .verdicts
            .iter()
            .map(|v| (v.a, v.b, v.same, v.direct))
            .collect();
        assert_eq!(v, vec![(1, 3, false, true), (2, 3, true, false)]);
        assert_eq!(m.verdicts[1].coders, vec!["ann"]);
        let g = label_gold(&m);
        // 2 = 3 joined; 1 alone (its only agreed verdict is "different").
        assert_eq!(g.clusters, vec![vec![2, 3], vec![1]]);
        assert!(g.inconsistent.is_empty());
    }

    #[test]
    fn an_adjudicator_settles_a_conflict_for_gold_and_training() {
        let mut sets = vec![
            set("ann", 1, LabelStatus::Confirmed, &[1, 2]),
            set("bob", 2, LabelStatus::Rejected, &[1, 2]),
            set("bob", 3, LabelStatus::Confirmed, &[2, 3]),
        ];
        assert_eq!(merge_labels(&sets).conflicts.len(), 1);
        sets.push(set("adjudicator:lead", 4, LabelStatus::Confirmed, &[1, 2]));
        let m = merge_labels(&sets);
        assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        assert_eq!(m.verdicts[0].coders, vec!["adjudicator:lead"]);
        assert!(m.verdicts[0].same && m.verdicts[0].direct);
        assert_eq!(label_gold(&m).clusters, vec![vec![1, 2, 3]]);
        // An adjudicator overrules even coders who agree; two who disagree settle nothing.
        sets.push(set("adjudicator:other", 5, LabelStatus::Rejected, &[1, 2]));
        assert_eq!(
            merge_labels(&sets).conflicts[0].different,
            vec!["adjudicator:other"]
        );
    }

    #[test]
    fn split_groups_give_clusters_and_rejected_members_stay_alone() {
        let sets = vec![
            split("ann", 1, &[&[10, 11], &[12, 13], &[14]]),
            set("ann", 2, LabelStatus::Rejected, &[20, 21, 22]),
            set("ann", 3, LabelStatus::Confirmed, &[13, 30]),
        ];
        let m = merge_labels(&sets);
        let g = label_gold(&m);
        assert_eq!(
            g.clusters,
            vec![
                vec![12, 13, 30],
                vec![10, 11],
                vec![14],
                vec![20],
                vec![21],
                vec![22]
            ]
        );
        assert_eq!(g.documents(), 9);
        assert_eq!(g.assignments()[0], (12, "1".to_string()));
    }

    #[test]
    fn transitive_contradictions_are_counted_not_hidden() {
        let sets = vec![
            set("ann", 1, LabelStatus::Confirmed, &[1, 2]),
            set("ann", 2, LabelStatus::Confirmed, &[2, 3]),
            set("ann", 3, LabelStatus::Rejected, &[1, 3]),
        ];
        let g = label_gold(&merge_labels(&sets));
        assert_eq!(g.clusters, vec![vec![1, 2, 3]]);
        assert_eq!(g.inconsistent, vec![(1, 3)]);
    }

    /// The merged verdicts of one coder are the store's own derived pair labels, for a log
    /// with overlapping sets, a split, a pair-view decision and an undo.
    #[test]
    fn one_coders_verdicts_equal_the_stores_pair_labels() {
        use serde_json::json;
        let dir = tempfile::tempdir().unwrap();
        let mut s = crate::store::Store::open(&dir.path().join("m.db")).unwrap();
        let ids: Vec<i64> = (0..7)
            .map(|i| {
                s.insert_test_document(&format!("u{i}"), "", &format!("t{i}"), None)
                    .unwrap()
            })
            .collect();
        s.record_decision("ann", "confirm", &ids[..4], json!({}))
            .unwrap();
        s.record_decision(
            "ann",
            "split",
            &ids[2..6],
            json!({"groups": [[ids[2], ids[4]], [ids[3], ids[5]]]}),
        )
        .unwrap();
        s.record_decision("ann", "reject", &[ids[0], ids[1]], json!({}))
            .unwrap();
        let u = s
            .record_decision("ann", "confirm", &[ids[5], ids[6]], json!({}))
            .unwrap();
        s.record_undo("ann", u.id).unwrap();
        s.record_decision("ann", "unsure", &[ids[4], ids[6]], json!({}))
            .unwrap();
        let m = merge_labels(&s.label_sets(Some("ann")).unwrap());
        let mut checked = 0;
        for (i, &a) in ids.iter().enumerate() {
            for &b in &ids[i + 1..] {
                let stored = s.pair_label("ann", a, b).unwrap();
                let ours = m.verdicts.iter().find(|v| (v.a, v.b) == (a, b));
                let ours = match ours {
                    Some(v) if v.same => Some("same"),
                    Some(_) => Some("different"),
                    None if m.unsure.contains(&(a, b)) => Some("unsure"),
                    None => None,
                };
                assert_eq!(stored.as_deref(), ours, "pair ({a}, {b})");
                checked += usize::from(ours.is_some());
            }
        }
        assert_eq!(
            checked,
            6 + 5 + 1,
            "confirm 6 pairs, split adds 5, unsure 1"
        );
    }
}
