//! Training pairs for ANDD from the coders' labels: the pure rules ([`training_set`]) over
//! labeled document sets, and a thin wrapper that reads them from the store
//! ([`training_pairs`]).
//!
//! Rules (the ANDD paper's, Hajishirzi et al. SIGIR 2010, §5):
//! - **Positives**: every pair inside a confirmed set and inside one group of a split set
//!   (a set of n documents gives n(n−1)/2 pairs).
//! - **Hard negatives**: every pair across the groups of a split set, and every pair of a
//!   rejected set. Their provenance is `direct` when a coder judged exactly that pair (a
//!   two-document set), `cluster` when it follows from a larger set.
//! - Coders: the latest verdict of a coder on a pair wins; pairs coders disagree on are
//!   [`Conflict`]s, excluded and reported (see [`crate::learn::labels`]).
//! - **Train/test split by cluster**: the unit is a connected component of the labeled sets
//!   (documents in one labeled set, transitively), so no labeled cluster, and no document,
//!   is on both sides. Components are shuffled with the seed and moved to the test side
//!   while that brings the test side's document count closer to `test_fraction`.
//! - **Sampled negatives** balance the classes: inside each side separately, random pairs
//!   of labeled documents from different gold clusters (the clustering of the "same"
//!   verdicts) that no coder labeled and no detector paired (an unlabeled pair a detector
//!   proposes is unknown, not a negative), until the side has `negatives_per_positive`
//!   negatives per positive. Hard negatives are never dropped; when they already exceed
//!   the ratio nothing is sampled. Sampling is seeded: the same labels and seed give the
//!   same pairs.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::Result;
use serde::Serialize;

use crate::cluster::union_find::UnionFind;
use crate::learn::labels::{label_gold, merge_labels, Conflict, DocIndex, MergedLabels};
use crate::model::LabelSet;
use crate::sig::imatch::SplitMix64;
use crate::store::Store;

/// Where a training pair comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// A coder judged exactly this pair.
    Direct,
    /// The pair follows from a confirmed, split or rejected set of more documents.
    Cluster,
    /// A random cross-cluster pair added to balance the classes (label 0).
    Sampled,
}

impl Provenance {
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Direct => "direct",
            Provenance::Cluster => "cluster",
            Provenance::Sampled => "sampled",
        }
    }
}

/// The side of the train/test split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Test,
}

impl Split {
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Test => "test",
        }
    }
}

/// One training pair (document ids, a < b).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabeledPair {
    pub a: i64,
    pub b: i64,
    /// true: near-duplicates (1); false: not (0).
    pub label: bool,
    pub provenance: Provenance,
    /// A labeled negative (across a split, or inside a rejected set): the look-alikes a
    /// detector proposed and a coder turned down.
    pub hard: bool,
    /// The coders behind the label (empty for sampled pairs), sorted.
    pub coders: Vec<String>,
    /// Tags of the labeled sets the pair comes from, sorted.
    pub tags: Vec<String>,
    /// The labeled cluster (connected component of labeled sets, named by its smallest
    /// document id) of `a`; the unit of the split.
    pub group: i64,
    /// The same for `b`: equal to `group` except for sampled negatives, which join two
    /// components of the same side.
    pub group_b: i64,
    pub split: Split,
}

/// Options of the training-pair rules.
#[derive(Debug, Clone, PartialEq)]
pub struct PairOptions {
    /// Only this coder's labels (all coders' otherwise).
    pub coder: Option<String>,
    /// Negatives (hard + sampled) per positive on each side of the split; 0 = no sampling.
    pub negatives_per_positive: f64,
    /// Seed of the split and of the sampling.
    pub seed: u64,
    /// Target fraction of the labeled documents on the test side (whole components).
    pub test_fraction: f64,
}

impl Default for PairOptions {
    fn default() -> Self {
        PairOptions {
            coder: None,
            negatives_per_positive: 1.0,
            seed: 0x5eed_0a2d_0000_0001,
            test_fraction: 0.2,
        }
    }
}

/// What a training set holds, for the export summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PairCounts {
    pub pairs: u64,
    pub positives: u64,
    pub negatives: u64,
    /// Labeled negatives (split across groups, rejected sets).
    pub hard_negatives: u64,
    pub sampled: u64,
    /// Pairs a coder judged directly (two-document sets), and the positives among them.
    pub direct: u64,
    pub direct_positives: u64,
    pub train_pairs: u64,
    pub test_pairs: u64,
    pub train_positives: u64,
    pub test_positives: u64,
    /// Sampled negatives asked for by the ratio but not found (too few candidate pairs).
    pub sampled_short: u64,
    /// Labeled documents (in at least one exported labeled pair).
    pub documents: u64,
    pub train_documents: u64,
    pub test_documents: u64,
    /// Connected components of the labeled sets (the units of the split).
    pub groups: u64,
    pub train_groups: u64,
    pub test_groups: u64,
    /// Pairs excluded because coders disagree on them.
    pub conflicts: u64,
    /// Pairs only ever labeled unsure (excluded).
    pub unsure: u64,
}

/// Training pairs with what was excluded.
#[derive(Debug, Clone, Default)]
pub struct TrainingSet {
    /// Sorted by (a, b).
    pub pairs: Vec<LabeledPair>,
    pub conflicts: Vec<Conflict>,
    pub counts: PairCounts,
    /// The coders whose labels were used, sorted.
    pub coders: Vec<String>,
}

/// Seed streams: the split and each side's sampling draw from independent generators.
const SPLIT_STREAM: u64 = 0x5b11_7000_0000_0001;
const SAMPLE_STREAM: u64 = 0x5a4d_91e0_0000_0002;

/// Candidate pairs are listed outright (and drawn from exactly) below this many document
/// pairs on a side; above it they are drawn by rejection.
const ENUMERATE_LIMIT: u64 = 4_000_000;

/// The training pairs the labels give. `avoid` lists pairs (a < b) that must not be
/// sampled as negatives (the pairs detectors proposed; exact duplicates).
pub fn training_set(
    sets: &[LabelSet],
    avoid: &HashSet<(i64, i64)>,
    opts: &PairOptions,
) -> TrainingSet {
    let sets: Vec<LabelSet> = match &opts.coder {
        Some(c) => sets.iter().filter(|s| &s.coder == c).cloned().collect(),
        None => sets.to_vec(),
    };
    let merged = merge_labels(&sets);
    let (component_of, components) = components(&merged);
    let side = assign_sides(&components, opts);
    let side_of = |d: i64| side[&component_of[&d]];

    let mut pairs: Vec<LabeledPair> = merged
        .verdicts
        .iter()
        .map(|v| {
            let group = component_of[&v.a];
            LabeledPair {
                a: v.a,
                b: v.b,
                label: v.same,
                provenance: if v.direct {
                    Provenance::Direct
                } else {
                    Provenance::Cluster
                },
                hard: !v.same,
                coders: v.coders.clone(),
                tags: v.tags.clone(),
                group,
                group_b: component_of[&v.b],
                split: side[&group],
            }
        })
        .collect();

    // Gold clusters of the labeled documents, and every pair someone labeled.
    let gold = label_gold(&merged);
    let mut gold_of: HashMap<i64, usize> = HashMap::new();
    for (i, c) in gold.clusters.iter().enumerate() {
        for &d in c {
            gold_of.insert(d, i);
        }
    }
    let labeled: HashSet<(i64, i64)> = merged
        .verdicts
        .iter()
        .map(|v| (v.a, v.b))
        .chain(merged.conflicts.iter().map(|c| (c.a, c.b)))
        .chain(merged.unsure.iter().copied())
        .collect();

    let mut sampled_short = 0;
    for s in [Split::Train, Split::Test] {
        let positives = pairs.iter().filter(|p| p.split == s && p.label).count() as f64;
        let negatives = pairs.iter().filter(|p| p.split == s && !p.label).count() as f64;
        let want = (opts.negatives_per_positive.max(0.0) * positives).ceil() - negatives;
        if want < 1.0 {
            continue;
        }
        let want = want as usize;
        let docs: Vec<i64> = gold
            .clusters
            .iter()
            .flatten()
            .copied()
            .filter(|&d| side_of(d) == s)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let ok = |x: i64, y: i64| {
            gold_of[&x] != gold_of[&y] && !labeled.contains(&(x, y)) && !avoid.contains(&(x, y))
        };
        let seed = opts.seed ^ SAMPLE_STREAM ^ (s as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let drawn = sample_pairs(&docs, want, seed, ok);
        sampled_short += (want - drawn.len()) as u64;
        pairs.extend(drawn.into_iter().map(|(a, b)| LabeledPair {
            a,
            b,
            label: false,
            provenance: Provenance::Sampled,
            hard: false,
            coders: Vec::new(),
            tags: Vec::new(),
            group: component_of[&a],
            group_b: component_of[&b],
            split: s,
        }));
    }
    pairs.sort_by_key(|p| (p.a, p.b));

    let counts = count(&pairs, &merged, &side, &components, sampled_short);
    TrainingSet {
        pairs,
        conflicts: merged.conflicts,
        counts,
        coders: merged.coders,
    }
}

/// Connected components of the labeled sets: document → component id (its smallest
/// document), and the components as sorted member lists ordered by id.
fn components(merged: &MergedLabels) -> (HashMap<i64, i64>, Vec<Vec<i64>>) {
    let docs = DocIndex::new(merged.sets.iter().flatten().copied());
    let mut uf = UnionFind::new(docs.ids.len());
    for s in &merged.sets {
        for w in s.windows(2) {
            uf.union(docs.index[&w[0]], docs.index[&w[1]]);
        }
    }
    let mut comps = docs.groups(&mut uf);
    comps.sort_by_key(|c| c[0]);
    let mut of = HashMap::new();
    for c in &comps {
        for &d in c {
            of.insert(d, c[0]);
        }
    }
    (of, comps)
}

/// Assigns whole components to the train or test side: a seeded shuffle, then each
/// component goes to the test side when that brings the test side's document count closer
/// to `test_fraction` of all documents.
fn assign_sides(components: &[Vec<i64>], opts: &PairOptions) -> HashMap<i64, Split> {
    let total: usize = components.iter().map(Vec::len).sum();
    let target = opts.test_fraction.clamp(0.0, 1.0) * total as f64;
    let mut order: Vec<&Vec<i64>> = components.iter().collect();
    let mut rng = SplitMix64::new(opts.seed ^ SPLIT_STREAM);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut test = 0.0;
    let mut side = HashMap::new();
    for c in order {
        let with = test + c.len() as f64;
        let s = if (with - target).abs() < (test - target).abs() {
            test = with;
            Split::Test
        } else {
            Split::Train
        };
        side.insert(c[0], s);
    }
    side
}

/// Draws up to `want` distinct pairs (x < y) of `docs` (sorted) for which `ok(x, y)`,
/// reproducibly from `seed`. Exact (uniform over the candidates) when the side is small
/// enough to list them; by rejection otherwise, giving up after many misses.
fn sample_pairs(
    docs: &[i64],
    want: usize,
    seed: u64,
    ok: impl Fn(i64, i64) -> bool,
) -> Vec<(i64, i64)> {
    let n = docs.len();
    let mut rng = SplitMix64::new(seed);
    let all = (n as u64) * (n as u64).saturating_sub(1) / 2;
    if all <= ENUMERATE_LIMIT {
        let mut cand: Vec<(i64, i64)> = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if ok(docs[i], docs[j]) {
                    cand.push((docs[i], docs[j]));
                }
            }
        }
        if want >= cand.len() {
            return cand;
        }
        // Partial Fisher–Yates: the first `want` slots become a uniform sample.
        for i in 0..want {
            let j = i + rng.below(cand.len() - i);
            cand.swap(i, j);
        }
        cand.truncate(want);
        cand.sort_unstable();
        return cand;
    }
    let mut chosen: BTreeSet<(i64, i64)> = BTreeSet::new();
    let mut misses = 0usize;
    let max_misses = want.saturating_mul(50).saturating_add(10_000);
    while chosen.len() < want && misses < max_misses {
        let (i, j) = (rng.below(n), rng.below(n));
        let (x, y) = (docs[i.min(j)], docs[i.max(j)]);
        if i == j || !ok(x, y) || !chosen.insert((x, y)) {
            misses += 1;
        }
    }
    chosen.into_iter().collect()
}

fn count(
    pairs: &[LabeledPair],
    merged: &MergedLabels,
    side: &HashMap<i64, Split>,
    components: &[Vec<i64>],
    sampled_short: u64,
) -> PairCounts {
    let mut c = PairCounts {
        pairs: pairs.len() as u64,
        sampled_short,
        conflicts: merged.conflicts.len() as u64,
        unsure: merged.unsure.len() as u64,
        ..PairCounts::default()
    };
    let mut docs: HashMap<i64, Split> = HashMap::new();
    for p in pairs {
        if p.label {
            c.positives += 1;
        } else {
            c.negatives += 1;
        }
        c.hard_negatives += u64::from(p.hard);
        c.sampled += u64::from(p.provenance == Provenance::Sampled);
        c.direct += u64::from(p.provenance == Provenance::Direct);
        c.direct_positives += u64::from(p.provenance == Provenance::Direct && p.label);
        match p.split {
            Split::Train => {
                c.train_pairs += 1;
                c.train_positives += u64::from(p.label);
            }
            Split::Test => {
                c.test_pairs += 1;
                c.test_positives += u64::from(p.label);
            }
        }
        if p.provenance != Provenance::Sampled {
            docs.insert(p.a, p.split);
            docs.insert(p.b, p.split);
        }
    }
    c.documents = docs.len() as u64;
    c.test_documents = docs.values().filter(|&&s| s == Split::Test).count() as u64;
    c.train_documents = c.documents - c.test_documents;
    // Components that hold at least one exported pair.
    let used: HashSet<i64> = pairs.iter().map(|p| p.group).collect();
    for comp in components.iter().filter(|comp| used.contains(&comp[0])) {
        c.groups += 1;
        match side[&comp[0]] {
            Split::Train => c.train_groups += 1,
            Split::Test => c.test_groups += 1,
        }
    }
    c
}

/// The training pairs of the store's labels: reads the labeled sets, and avoids sampling
/// as negatives the pairs the latest finished run of any method proposed and pairs of
/// exact duplicates.
pub fn training_pairs(store: &Store, opts: &PairOptions) -> Result<TrainingSet> {
    let sets = store.label_sets(opts.coder.as_deref())?;
    let labeled: HashSet<i64> = sets
        .iter()
        .flat_map(|s| s.members.iter().copied())
        .collect();
    let avoid = store.proposed_pairs_among(&labeled)?;
    Ok(training_set(&sets, &avoid, opts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::labels::tests::{set, split};
    use crate::model::LabelStatus;
    use proptest::prelude::*;

    fn no_avoid() -> HashSet<(i64, i64)> {
        HashSet::new()
    }

    fn opts(ratio: f64, seed: u64, test: f64) -> PairOptions {
        PairOptions {
            coder: None,
            negatives_per_positive: ratio,
            seed,
            test_fraction: test,
        }
    }

    #[test]
    fn a_confirmed_cluster_of_n_gives_n_choose_2_positives() {
        for n in 2..8i64 {
            let members: Vec<i64> = (1..=n).collect();
            let t = training_set(
                &[set("ann", 1, LabelStatus::Confirmed, &members)],
                &no_avoid(),
                &opts(0.0, 1, 0.0),
            );
            assert_eq!(t.pairs.len() as i64, n * (n - 1) / 2);
            assert!(t.pairs.iter().all(|p| p.label && !p.hard));
            let expect = if n == 2 {
                Provenance::Direct
            } else {
                Provenance::Cluster
            };
            assert!(t.pairs.iter().all(|p| p.provenance == expect));
            assert!(t.pairs.iter().all(|p| p.coders == ["ann"] && p.group == 1));
            assert_eq!(t.counts.positives as i64, n * (n - 1) / 2);
            assert_eq!(t.counts.documents as i64, n);
        }
    }

    #[test]
    fn a_split_gives_positives_inside_and_hard_negatives_across_groups() {
        // Groups {1,2,3} {4,5} {6}: positives 3 + 1, negatives 3·2 + 3·1 + 2·1 = 11.
        let t = training_set(
            &[split("ann", 1, &[&[1, 2, 3], &[4, 5], &[6]])],
            &no_avoid(),
            &opts(0.0, 1, 0.0),
        );
        let pos: Vec<(i64, i64)> = t
            .pairs
            .iter()
            .filter(|p| p.label)
            .map(|p| (p.a, p.b))
            .collect();
        assert_eq!(pos, vec![(1, 2), (1, 3), (2, 3), (4, 5)]);
        let neg: Vec<&LabeledPair> = t.pairs.iter().filter(|p| !p.label).collect();
        assert_eq!(neg.len(), 11);
        assert!(neg
            .iter()
            .all(|p| p.hard && p.provenance == Provenance::Cluster));
        assert!(neg.iter().any(|p| (p.a, p.b) == (3, 6)));
        assert_eq!(t.counts.hard_negatives, 11);
    }

    #[test]
    fn rejected_sets_give_hard_negatives_and_tags_follow_the_set() {
        let mut rejected = set("ann", 1, LabelStatus::Rejected, &[7, 8]);
        rejected.tags = vec!["template".into()];
        let t = training_set(&[rejected], &no_avoid(), &opts(0.0, 1, 0.0));
        assert_eq!(t.pairs.len(), 1);
        let p = &t.pairs[0];
        assert!(!p.label && p.hard && p.provenance == Provenance::Direct);
        assert_eq!(p.tags, vec!["template"]);
    }

    #[test]
    fn conflicting_coders_are_reported_and_excluded_and_coder_filter_applies() {
        let sets = vec![
            set("ann", 1, LabelStatus::Confirmed, &[1, 2, 3]),
            set("bob", 2, LabelStatus::Rejected, &[1, 2]),
        ];
        let t = training_set(&sets, &no_avoid(), &opts(0.0, 1, 0.0));
        assert_eq!(t.conflicts.len(), 1);
        assert_eq!((t.conflicts[0].a, t.conflicts[0].b), (1, 2));
        assert!(t.pairs.iter().all(|p| (p.a, p.b) != (1, 2)));
        assert_eq!(t.pairs.len(), 2);
        assert_eq!(t.counts.conflicts, 1);
        let only_bob = PairOptions {
            coder: Some("bob".into()),
            ..opts(0.0, 1, 0.0)
        };
        let t = training_set(&sets, &no_avoid(), &only_bob);
        assert!(t.conflicts.is_empty());
        assert_eq!(t.pairs.len(), 1);
        assert!(!t.pairs[0].label);
        assert_eq!(t.coders, vec!["bob"]);
    }

    /// Ten confirmed clusters of three: 30 positives, 0 labeled negatives.
    fn ten_clusters() -> Vec<LabelSet> {
        (0..10)
            .map(|k| {
                let base = 10 * k + 1;
                set(
                    "ann",
                    k,
                    LabelStatus::Confirmed,
                    &[base, base + 1, base + 2],
                )
            })
            .collect()
    }

    fn sampled(t: &TrainingSet) -> Vec<(i64, i64)> {
        t.pairs
            .iter()
            .filter(|p| p.provenance == Provenance::Sampled)
            .map(|p| (p.a, p.b))
            .collect()
    }

    #[test]
    fn balanced_sampling_is_reproducible_and_depends_on_the_seed() {
        let sets = ten_clusters();
        let a = training_set(&sets, &no_avoid(), &opts(1.0, 42, 0.0));
        let b = training_set(&sets, &no_avoid(), &opts(1.0, 42, 0.0));
        let c = training_set(&sets, &no_avoid(), &opts(1.0, 43, 0.0));
        assert_eq!(a.pairs, b.pairs, "same seed, same pairs");
        assert_eq!(a.counts.positives, 30);
        assert_eq!(a.counts.sampled, 30, "balanced: one negative per positive");
        assert_ne!(sampled(&a), sampled(&c), "another seed, other pairs");
        for (x, y) in sampled(&a) {
            assert_ne!(
                (x - 1) / 10,
                (y - 1) / 10,
                "a sampled pair crosses clusters"
            );
        }
        let two = training_set(&sets, &no_avoid(), &opts(2.5, 42, 0.0));
        assert_eq!(two.counts.sampled, 75);
        let none = training_set(&sets, &no_avoid(), &opts(0.0, 42, 0.0));
        assert_eq!(none.counts.sampled, 0);
    }

    #[test]
    fn sampling_counts_hard_negatives_avoids_detector_pairs_and_reports_shortfalls() {
        // One cluster {1,2,3} confirmed, {4,5} rejected: 3 positives, 1 hard negative.
        // Candidates across gold clusters, unlabeled: {1,2,3}×{4,5} = 6 pairs.
        let sets = vec![
            set("ann", 1, LabelStatus::Confirmed, &[1, 2, 3]),
            set("ann", 2, LabelStatus::Rejected, &[4, 5]),
        ];
        let t = training_set(&sets, &no_avoid(), &opts(1.0, 7, 0.0));
        assert_eq!(t.counts.sampled, 2, "3 positives − 1 hard negative");
        let avoid: HashSet<(i64, i64)> = [(1, 4), (1, 5), (2, 4), (2, 5), (3, 4)].into();
        let t = training_set(&sets, &avoid, &opts(10.0, 7, 0.0));
        assert_eq!(sampled(&t), vec![(3, 5)]);
        assert_eq!(t.counts.sampled_short, 29 - 1);
    }

    #[test]
    fn the_test_fraction_moves_whole_clusters() {
        let sets = ten_clusters();
        let t = training_set(&sets, &no_avoid(), &opts(1.0, 3, 0.3));
        assert_eq!(t.counts.test_groups, 3);
        assert_eq!(t.counts.train_groups, 7);
        assert_eq!(t.counts.test_documents, 9);
        let all_test = training_set(&sets, &no_avoid(), &opts(1.0, 3, 1.0));
        assert_eq!(all_test.counts.train_pairs, 0);
        let other = training_set(&sets, &no_avoid(), &opts(1.0, 4, 0.3));
        let test_groups = |t: &TrainingSet| -> BTreeSet<i64> {
            t.pairs
                .iter()
                .filter(|p| p.split == Split::Test)
                .map(|p| p.group)
                .collect()
        };
        assert_ne!(
            test_groups(&t),
            test_groups(&other),
            "the seed picks the clusters"
        );
    }

    /// Random labeled sets over documents 0..30 by two coders.
    fn arb_sets() -> impl Strategy<Value = Vec<LabelSet>> {
        let one = (
            0usize..2,
            0u8..4,
            proptest::collection::btree_set(0i64..30, 2..6),
            0usize..3,
        );
        proptest::collection::vec(one, 1..12).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(k, (coder, kind, members, cut))| {
                    let members: Vec<i64> = members.into_iter().collect();
                    let coder = ["ann", "bob"][coder];
                    match kind {
                        0 => set(coder, k as i64, LabelStatus::Confirmed, &members),
                        1 => set(coder, k as i64, LabelStatus::Rejected, &members),
                        2 => set(coder, k as i64, LabelStatus::Unsure, &members),
                        _ => {
                            let cut = 1 + cut % (members.len() - 1);
                            split(coder, k as i64, &[&members[..cut], &members[cut..]])
                        }
                    }
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn no_cluster_and_no_document_is_on_both_sides(
            sets in arb_sets(),
            seed in any::<u64>(),
            fraction in 0.0f64..1.0,
            ratio in 0.0f64..3.0,
        ) {
            let t = training_set(&sets, &HashSet::new(), &opts(ratio, seed, fraction));
            let mut group_side: HashMap<i64, Split> = HashMap::new();
            let mut doc_side: HashMap<i64, Split> = HashMap::new();
            for p in &t.pairs {
                for g in [p.group, p.group_b] {
                    prop_assert_eq!(*group_side.entry(g).or_insert(p.split), p.split);
                }
                for d in [p.a, p.b] {
                    prop_assert_eq!(*doc_side.entry(d).or_insert(p.split), p.split);
                }
                prop_assert!(p.a < p.b);
                if p.provenance != Provenance::Sampled {
                    prop_assert_eq!(p.group, p.group_b);
                }
            }
            // Every labeled set lies on one side.
            for s in sets.iter().filter(|s| s.status != LabelStatus::Unsure) {
                let sides: BTreeSet<Split> =
                    s.members.iter().filter_map(|d| doc_side.get(d).copied()).collect();
                prop_assert!(sides.len() <= 1);
            }
            // No pair twice; conflicts never exported.
            let keys: BTreeSet<(i64, i64)> = t.pairs.iter().map(|p| (p.a, p.b)).collect();
            prop_assert_eq!(keys.len(), t.pairs.len());
            for c in &t.conflicts {
                prop_assert!(!keys.contains(&(c.a, c.b)));
            }
            // Reproducible.
            let again = training_set(&sets, &HashSet::new(), &opts(ratio, seed, fraction));
            prop_assert_eq!(&again.pairs, &t.pairs);
        }
    }
}
