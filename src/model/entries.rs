//! The merged queue: one entry per candidate group, built from the latest finished run of
//! every detector together. Byte-identical captures are collapsed into one member first;
//! the pairs of every detector are merged (each pair keeps which detectors found it, with
//! what score); edges between a noise page and a clean page (or noise of another rule)
//! are dropped; candidate groups are the connected components of the union, broken at
//! their weakest links so that no entry exceeds [`EntryConfig::max_size`] (a capped
//! Kruskal: edges join strongest first, most detectors then highest mean score, and an
//! edge that would make a group larger than the cap is left out). Every document is
//! therefore in at most one entry, so no decision can silently overrule another.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::cluster::components::clusters_with_bridges;
use crate::cluster::union_find::UnionFind;

/// How entries are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryConfig {
    /// The largest entry a coder is shown; larger components are broken at weak links.
    pub max_size: usize,
}

/// The default cap on an entry's members.
pub const MAX_ENTRY_SIZE: usize = 100;

impl Default for EntryConfig {
    fn default() -> Self {
        EntryConfig {
            max_size: MAX_ENTRY_SIZE,
        }
    }
}

/// The pairs of one detector's latest finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorPairs {
    pub method: String,
    pub pairs: Vec<(i64, i64, f64)>,
}

/// A merged pair between two members (a < b): the score of each detector that found it
/// (indices into the detector list), or of the best-scoring collapsed captures.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedPair {
    pub a: i64,
    pub b: i64,
    pub scores: Vec<(usize, f64)>,
}

impl MergedPair {
    pub fn max_score(&self) -> f64 {
        self.scores
            .iter()
            .map(|s| s.1)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Join order: more detectors first, then the higher mean score.
    fn strength(&self) -> (usize, f64) {
        let n = self.scores.len();
        let mean = self.scores.iter().map(|s| s.1).sum::<f64>() / n.max(1) as f64;
        (n, mean)
    }
}

/// One entry of the merged queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Member ids (each the representative of its byte-identical captures), ascending.
    pub members: Vec<i64>,
    /// Captures each member stands for (1: no copy), parallel to `members`.
    pub captures: Vec<i64>,
    /// The merged pairs between members.
    pub pairs: Vec<MergedPair>,
    /// The detectors that found any pair of the entry, in detector-list order.
    pub detectors: Vec<String>,
    /// The triage rule of the entry's members (None: not noise).
    pub noise: Option<&'static str>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    /// The weakest link whose removal splits the entry (a, b, best score), if any.
    pub bridge: Option<(i64, i64, f64)>,
}

/// "3 of 3 detectors", "2 of 3 detectors", "spotsigs only".
pub fn agreement_label(detectors: &[String], total: usize) -> String {
    match detectors {
        [one] if total > 1 => format!("{one} only"),
        _ => format!("{} of {total} detectors", detectors.len()),
    }
}

/// The merged queue's entries from each detector's pairs. `representative` maps a document
/// to the smallest id with byte-identical text (absent: itself); `noise` names the triage
/// rule a document matches (absent: clean). Entries come out ordered by smallest member.
pub fn build_entries(
    detectors: &[DetectorPairs],
    representative: &HashMap<i64, i64>,
    noise: &HashMap<i64, &'static str>,
    config: EntryConfig,
) -> Vec<Entry> {
    let pairs = merge_pairs(detectors, representative, noise);
    entries_from_pairs(pairs, detectors, representative, noise, config)
}

/// Every detector's pairs merged between representatives (each pair with the best score of
/// each detector that found it), without the pairs across noise classes; ordered by (a, b).
pub fn merge_pairs(
    detectors: &[DetectorPairs],
    representative: &HashMap<i64, i64>,
    noise: &HashMap<i64, &'static str>,
) -> Vec<MergedPair> {
    let rep = |d: i64| representative.get(&d).copied().unwrap_or(d);
    let class = |d: i64| noise.get(&d).copied();
    // Merge: (a, b) → detector → best score.
    let mut merged: BTreeMap<(i64, i64), BTreeMap<usize, f64>> = BTreeMap::new();
    for (k, det) in detectors.iter().enumerate() {
        for &(a, b, s) in &det.pairs {
            let (a, b) = (rep(a), rep(b));
            if a == b || class(a) != class(b) {
                continue;
            }
            let slot = merged
                .entry((a.min(b), a.max(b)))
                .or_default()
                .entry(k)
                .or_insert(s);
            *slot = slot.max(s);
        }
    }
    merged
        .into_iter()
        .map(|((a, b), scores)| MergedPair {
            a,
            b,
            scores: scores.into_iter().collect(),
        })
        .collect()
}

/// The entries of merged pairs (from [`merge_pairs`], possibly filtered since): capped
/// connected components, their bridges, detectors and captures.
pub fn entries_from_pairs(
    pairs: Vec<MergedPair>,
    detectors: &[DetectorPairs],
    representative: &HashMap<i64, i64>,
    noise: &HashMap<i64, &'static str>,
    config: EntryConfig,
) -> Vec<Entry> {
    let class = |d: i64| noise.get(&d).copied();
    // Compact ids for the union-find.
    let ids: Vec<i64> = pairs
        .iter()
        .flat_map(|p| [p.a, p.b])
        .collect::<BTreeSet<i64>>()
        .into_iter()
        .collect();
    let index: HashMap<i64, u32> = ids
        .iter()
        .enumerate()
        .map(|(i, &d)| (d, i as u32))
        .collect();
    let ix = |d: i64| index.get(&d).copied().unwrap_or(0);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&x, &y| {
        let (nx, mx) = pairs[x].strength();
        let (ny, my) = pairs[y].strength();
        ny.cmp(&nx)
            .then(my.total_cmp(&mx))
            .then((pairs[x].a, pairs[x].b).cmp(&(pairs[y].a, pairs[y].b)))
    });
    let mut uf = UnionFind::new(ids.len());
    let cap = config.max_size.max(2);
    for &e in &order {
        let (a, b) = (ix(pairs[e].a), ix(pairs[e].b));
        if !uf.same(a, b) && uf.set_size(a) + uf.set_size(b) <= cap {
            uf.union(a, b);
        }
    }
    // The pairs inside each capped group, and its bridges on those pairs.
    let inside: Vec<&MergedPair> = pairs.iter().filter(|p| uf.same(ix(p.a), ix(p.b))).collect();
    let weighted: Vec<(u32, u32, f64)> = inside
        .iter()
        .map(|p| {
            let (n, mean) = p.strength();
            (ix(p.a), ix(p.b), n as f64 + mean.clamp(0.0, 1.0) * 0.999)
        })
        .collect();
    let clusters = clusters_with_bridges(ids.len(), &weighted);
    let mut slot_of: HashMap<u32, usize> = HashMap::new();
    let mut entries: Vec<Entry> = Vec::with_capacity(clusters.len());
    for (slot, c) in clusters.iter().enumerate() {
        for &m in &c.members {
            slot_of.insert(m, slot);
        }
        let members: Vec<i64> = c.members.iter().map(|&m| ids[m as usize]).collect();
        let noise = members.first().and_then(|&d| class(d));
        entries.push(Entry {
            captures: vec![1; members.len()],
            members,
            pairs: Vec::new(),
            detectors: Vec::new(),
            noise,
            min_score: None,
            max_score: None,
            bridge: None,
        });
    }
    for p in inside {
        let Some(&slot) = slot_of.get(&ix(p.a)) else {
            continue;
        };
        let e = &mut entries[slot];
        let s = p.max_score();
        e.min_score = Some(e.min_score.map_or(s, |m| m.min(s)));
        e.max_score = Some(e.max_score.map_or(s, |m| m.max(s)));
        e.pairs.push(p.clone());
    }
    for (e, c) in entries.iter_mut().zip(&clusters) {
        let found: BTreeSet<usize> = e
            .pairs
            .iter()
            .flat_map(|p| p.scores.iter().map(|s| s.0))
            .collect();
        e.detectors = found
            .into_iter()
            .map(|k| detectors[k].method.clone())
            .collect();
        e.bridge = c.weakest_bridge.and_then(|(a, b, _)| {
            let (a, b) = (ids[a as usize], ids[b as usize]);
            let (a, b) = (a.min(b), a.max(b));
            e.pairs
                .iter()
                .find(|p| p.a == a && p.b == b)
                .map(|p| (a, b, p.max_score()))
        });
    }
    // Captures per member: how many documents each representative stands for.
    let mut count: HashMap<i64, i64> = HashMap::new();
    for (&d, &r) in representative {
        if d != r {
            *count.entry(r).or_default() += 1;
        }
    }
    for e in &mut entries {
        e.captures = e
            .members
            .iter()
            .map(|m| 1 + count.get(m).copied().unwrap_or(0))
            .collect();
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det(method: &str, pairs: &[(i64, i64, f64)]) -> DetectorPairs {
        DetectorPairs {
            method: method.into(),
            pairs: pairs.to_vec(),
        }
    }

    #[test]
    fn overlapping_runs_give_one_entry_with_their_agreement() {
        let d = [
            det("spotsigs", &[(1, 2, 0.9), (2, 3, 0.8)]),
            det("imatch", &[(1, 2, 1.0)]),
            det("cooper", &[(5, 6, 0.7)]),
        ];
        let e = build_entries(&d, &HashMap::new(), &HashMap::new(), EntryConfig::default());
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].members, [1, 2, 3]);
        assert_eq!(e[0].detectors, ["spotsigs", "imatch"]);
        assert_eq!(agreement_label(&e[0].detectors, 3), "2 of 3 detectors");
        assert_eq!(agreement_label(&e[1].detectors, 3), "cooper only");
        assert_eq!(e[0].bridge, Some((2, 3, 0.8)));
    }

    #[test]
    fn copies_collapse_and_noise_stays_apart() {
        let d = [det("spotsigs", &[(1, 2, 1.0), (1, 3, 0.9), (3, 4, 0.9)])];
        let rep = HashMap::from([(2, 1), (1, 1)]);
        let noise = HashMap::from([(4, "error")]);
        let e = build_entries(&d, &rep, &noise, EntryConfig::default());
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].members, [1, 3]);
        assert_eq!(e[0].captures, [2, 1]);
    }

    #[test]
    fn a_giant_component_is_broken_at_its_weakest_links() {
        // Two strong triangles joined by one weak edge.
        let d = [det(
            "spotsigs",
            &[
                (1, 2, 0.9),
                (2, 3, 0.9),
                (1, 3, 0.9),
                (4, 5, 0.9),
                (5, 6, 0.9),
                (4, 6, 0.9),
                (3, 4, 0.2),
            ],
        )];
        let e = build_entries(
            &d,
            &HashMap::new(),
            &HashMap::new(),
            EntryConfig { max_size: 3 },
        );
        assert_eq!(
            e.iter().map(|e| e.members.clone()).collect::<Vec<_>>(),
            [vec![1, 2, 3], vec![4, 5, 6]]
        );
        let all = build_entries(&d, &HashMap::new(), &HashMap::new(), EntryConfig::default());
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].bridge, Some((3, 4, 0.2)));
    }
}
