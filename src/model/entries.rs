//! The merged queue: one entry per candidate group, built from the latest finished run of
//! every detector together. Byte-identical captures are collapsed into one member first;
//! the pairs of every detector are merged (each pair keeps which detectors found it, with
//! what score); edges between a noise page and a clean page (or noise of another rule)
//! are dropped; candidate groups are the connected components of the union, broken at
//! their weakest links so that no entry exceeds [`EntryConfig::max_size`] (a capped
//! Kruskal: edges join strongest first, most detectors then highest mean score, and an
//! edge that would make a group larger than the cap is left out). Every document is
//! therefore in at most one entry, so no decision can silently overrule another.
//!
//! The merge is held compactly, since a detector may give tens of millions of pairs
//! (issue 16): documents are numbered by their ids' order ([`PairMerger`]), each detector's
//! pairs are collected as 16-byte records, sorted and merged by a k-way merge into
//! [`MergedPairs`] (16 bytes a pair: two document numbers, a detector bit mask and where its
//! scores start, plus 8 bytes a detector score), and entries name their pairs by number.

use std::collections::HashMap;

use rayon::prelude::*;

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

/// The most detectors a merge tells apart: a merged pair names its detectors in a 32-bit
/// mask. Pairs given for a detector numbered this or higher are left out of the merge.
pub const MAX_DETECTORS: usize = 32;

/// The pairs of one detector's latest finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorPairs {
    pub method: String,
    pub pairs: Vec<(i64, i64, f64)>,
}

/// A merged pair as stored: its two documents' numbers (a < b), the detectors that found it
/// (bit k: detector k) and where their scores start in [`MergedPairs::scores`] (one score a
/// detector, in detector order). 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PairRecord {
    a: u32,
    b: u32,
    start: u32,
    mask: u32,
}

/// Every detector's pairs merged between representatives (each pair with the best score of
/// each detector that found it), without the pairs across noise classes; ordered by (a, b).
/// Built by [`PairMerger`]; documents are numbered `0..docs()` in the order of their ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergedPairs {
    /// Document number → id, ascending.
    ids: Vec<i64>,
    pairs: Vec<PairRecord>,
    scores: Vec<f64>,
}

/// One merged pair, read from [`MergedPairs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MergedPair<'a> {
    /// Document ids, `a < b`.
    pub a: i64,
    pub b: i64,
    /// Their numbers in the merge (`0..MergedPairs::docs()`, in the order of the ids).
    pub ia: u32,
    pub ib: u32,
    mask: u32,
    /// The score of each detector that found it, in detector order.
    scores: &'a [f64],
}

impl<'a> MergedPair<'a> {
    /// How many detectors found it.
    pub fn detector_count(&self) -> usize {
        self.scores.len()
    }

    /// (detector index, score) of each detector that found it, in detector order.
    pub fn scores(&self) -> impl Iterator<Item = (usize, f64)> + 'a {
        let mask = self.mask;
        (0..MAX_DETECTORS)
            .filter(move |&k| mask >> k & 1 == 1)
            .zip(self.scores.iter().copied())
    }

    pub fn max_score(&self) -> f64 {
        self.scores
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Join order: more detectors first, then the higher mean score.
    fn strength(&self) -> (usize, f64) {
        let n = self.scores.len();
        let mean = self.scores.iter().copied().sum::<f64>() / n.max(1) as f64;
        (n, mean)
    }
}

impl MergedPairs {
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// How many documents the merge numbers (the pairs' documents among them).
    pub fn docs(&self) -> usize {
        self.ids.len()
    }

    /// The `i`-th pair in (a, b) order; `None` past the end.
    pub fn get(&self, i: usize) -> Option<MergedPair<'_>> {
        self.pairs.get(i).map(|p| view(&self.ids, &self.scores, p))
    }

    /// The pairs in (a, b) order.
    pub fn iter(&self) -> impl Iterator<Item = MergedPair<'_>> + '_ {
        self.pairs.iter().map(|p| view(&self.ids, &self.scores, p))
    }

    /// Keeps the pairs `keep` says yes to (called once per pair, in order), and gives back
    /// the memory of the others.
    pub fn retain(&mut self, mut keep: impl FnMut(MergedPair<'_>) -> bool) {
        let (ids, scores) = (&self.ids, &self.scores);
        self.pairs.retain(|p| keep(view(ids, scores, p)));
        // Scores are stored in pair order, so the kept ones move down in place.
        let mut write = 0usize;
        for p in &mut self.pairs {
            let (start, n) = (p.start as usize, p.mask.count_ones() as usize);
            self.scores.copy_within(start..start + n, write);
            p.start = write as u32;
            write += n;
        }
        self.scores.truncate(write);
        self.scores.shrink_to_fit();
        self.pairs.shrink_to_fit();
    }

    /// The pair at `i` (an index below `len()`, as every caller here passes).
    fn at(&self, i: usize) -> MergedPair<'_> {
        view(&self.ids, &self.scores, &self.pairs[i])
    }
}

fn view<'a>(ids: &[i64], scores: &'a [f64], p: &PairRecord) -> MergedPair<'a> {
    let start = p.start as usize;
    MergedPair {
        a: ids[p.a as usize],
        b: ids[p.b as usize],
        ia: p.a,
        ib: p.b,
        mask: p.mask,
        scores: &scores[start..start + p.mask.count_ones() as usize],
    }
}

/// One detector's pair between two representatives' numbers, as collected (16 bytes).
#[derive(Debug, Clone, Copy)]
struct RawPair {
    a: u32,
    b: u32,
    score: f64,
}

const UNSET: u32 = u32::MAX;
const UNSET_CLASS: u16 = u16::MAX;

/// Collects every detector's pairs and merges them into [`MergedPairs`]: each document id
/// becomes a number (its place among the known documents' ids), each pair two numbers and a
/// score. Give a detector's pairs, then its clusters ([`PairMerger::add_cluster`]), before
/// the next detector's.
#[derive(Debug)]
pub struct PairMerger<'a> {
    representative: &'a HashMap<i64, i64>,
    noise: &'a HashMap<i64, &'static str>,
    /// The documents given up front, ascending.
    ids: Vec<i64>,
    /// Documents met in pairs but not given: number `ids.len() + k` is `extra_ids[k]`.
    extra: HashMap<i64, u32>,
    extra_ids: Vec<i64>,
    /// Per number: its representative's number, its noise class (0: clean; an index + 1
    /// into `classes`); UNSET until first asked.
    rep: Vec<u32>,
    class: Vec<u16>,
    classes: Vec<&'static str>,
    raw: Vec<RawPair>,
    /// (detector, first raw pair) of each run of pairs given for one detector.
    segments: Vec<(usize, usize)>,
    /// A bit per number: a document in one of the current detector's pairs.
    paired: Vec<u64>,
}

impl<'a> PairMerger<'a> {
    /// A merger for pairs among `docs` (any order; ids met that are not among them are
    /// numbered too, at a cost). `representative` maps a document to the smallest id with
    /// byte-identical text (absent: itself); `noise` names the triage rule a document
    /// matches (absent: clean).
    pub fn new(
        mut docs: Vec<i64>,
        representative: &'a HashMap<i64, i64>,
        noise: &'a HashMap<i64, &'static str>,
    ) -> Self {
        docs.sort_unstable();
        docs.dedup();
        let n = docs.len();
        PairMerger {
            representative,
            noise,
            ids: docs,
            extra: HashMap::new(),
            extra_ids: Vec::new(),
            rep: vec![UNSET; n],
            class: vec![UNSET_CLASS; n],
            classes: Vec::new(),
            raw: Vec::new(),
            segments: Vec::new(),
            paired: vec![0; n.div_ceil(64)],
        }
    }

    /// A document's number. Numbers are u32, as everywhere documents are counted (the
    /// union-find's): a merge never holds 2³² documents.
    fn number(&mut self, id: i64) -> u32 {
        if let Some(&first) = self.ids.first() {
            // Stored ids are dense: try the id's offset from the first before searching.
            let offset = id.checked_sub(first).and_then(|o| usize::try_from(o).ok());
            if let Some(o) = offset.filter(|&o| self.ids.get(o) == Some(&id)) {
                return o as u32;
            }
            if let Ok(i) = self.ids.binary_search(&id) {
                return i as u32;
            }
        }
        if let Some(&i) = self.extra.get(&id) {
            return i;
        }
        let i = (self.ids.len() + self.extra_ids.len()) as u32;
        self.extra.insert(id, i);
        self.extra_ids.push(id);
        self.rep.push(UNSET);
        self.class.push(UNSET_CLASS);
        i
    }

    fn id_of(&self, i: u32) -> i64 {
        let i = i as usize;
        match self.ids.get(i) {
            Some(&id) => id,
            None => self.extra_ids[i - self.ids.len()],
        }
    }

    fn rep_of(&mut self, i: u32) -> u32 {
        if self.rep[i as usize] == UNSET {
            let id = self.id_of(i);
            let r = self.representative.get(&id).copied().unwrap_or(id);
            let ri = if r == id { i } else { self.number(r) };
            self.rep[i as usize] = ri;
        }
        self.rep[i as usize]
    }

    fn class_of(&mut self, i: u32) -> u16 {
        if self.class[i as usize] == UNSET_CLASS {
            let id = self.id_of(i);
            let c = match self.noise.get(&id) {
                None => 0,
                Some(rule) => match self.classes.iter().position(|c| c == rule) {
                    Some(k) => k + 1,
                    None => {
                        self.classes.push(rule);
                        self.classes.len()
                    }
                },
            };
            // Triage has a handful of rules, far fewer than u16::MAX - 1.
            self.class[i as usize] = c as u16;
        }
        self.class[i as usize]
    }

    /// Starts a new run of pairs when the detector changes.
    fn segment(&mut self, detector: usize) {
        if self.segments.last().map(|s| s.0) != Some(detector) {
            self.segments.push((detector, self.raw.len()));
            self.paired.iter_mut().for_each(|w| *w = 0);
        }
    }

    fn mark(&mut self, i: u32) {
        let (word, bit) = (i as usize / 64, i % 64);
        if word >= self.paired.len() {
            self.paired.resize(word + 1, 0);
        }
        self.paired[word] |= 1 << bit;
    }

    fn marked(&self, i: u32) -> bool {
        self.paired
            .get(i as usize / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// The pair between the representatives of `a` and `b`, unless they are one document or
    /// of different noise classes.
    fn push(&mut self, a: u32, b: u32, score: f64) {
        let (ra, rb) = (self.rep_of(a), self.rep_of(b));
        if ra == rb || self.class_of(ra) != self.class_of(rb) {
            return;
        }
        self.raw.push(RawPair {
            a: ra,
            b: rb,
            score,
        });
    }

    /// A pair detector `detector` (its index in the detector list) found.
    pub fn add_pair(&mut self, detector: usize, a: i64, b: i64, score: f64) {
        if detector >= MAX_DETECTORS {
            return;
        }
        self.segment(detector);
        let (ia, ib) = (self.number(a), self.number(b));
        self.mark(ia);
        self.mark(ib);
        self.push(ia, ib, score);
    }

    /// A cluster of detector `detector` (members ascending, after all its pairs): a cluster
    /// with a member in none of the detector's pairs (a run that stored clusters only, or a
    /// bucket too large to list its pairs) joins the graph as a chain of its members at the
    /// cluster's lowest score.
    pub fn add_cluster(&mut self, detector: usize, members: &[i64], min_score: f64) {
        if detector >= MAX_DETECTORS {
            return;
        }
        self.segment(detector);
        let numbers: Vec<u32> = members.iter().map(|&d| self.number(d)).collect();
        if numbers.iter().all(|&i| self.marked(i)) {
            return;
        }
        for w in numbers.windows(2) {
            self.push(w[0], w[1], min_score);
        }
    }

    /// The merge: each detector's pairs sorted and deduplicated (best score), then merged
    /// across detectors by a k-way merge.
    pub fn finish(self) -> MergedPairs {
        let PairMerger {
            mut ids,
            extra_ids,
            mut raw,
            segments,
            ..
        } = self;
        if !extra_ids.is_empty() {
            // Renumber so that numbers follow the ids again.
            let n = ids.len();
            let mut all: Vec<(i64, u32)> = ids
                .iter()
                .enumerate()
                .map(|(i, &d)| (d, i as u32))
                .chain(
                    extra_ids
                        .iter()
                        .enumerate()
                        .map(|(k, &d)| (d, (n + k) as u32)),
                )
                .collect();
            all.sort_unstable();
            let mut renumber = vec![0u32; all.len()];
            for (new, &(_, old)) in all.iter().enumerate() {
                renumber[old as usize] = new as u32;
            }
            ids = all.into_iter().map(|(d, _)| d).collect();
            for p in &mut raw {
                p.a = renumber[p.a as usize];
                p.b = renumber[p.b as usize];
            }
        }
        // Numbers follow ids, so (min, max) of the numbers is (min, max) of the ids.
        for p in &mut raw {
            if p.a > p.b {
                std::mem::swap(&mut p.a, &mut p.b);
            }
        }
        // Each run sorted by (a, b), its repeats folded into the best score, moved down.
        let mut runs: Vec<(usize, usize, usize)> = Vec::with_capacity(segments.len());
        let mut write = 0usize;
        for (s, &(detector, start)) in segments.iter().enumerate() {
            let end = segments.get(s + 1).map_or(raw.len(), |next| next.1);
            raw[start..end].par_sort_unstable_by_key(|p| (p.a, p.b));
            let first = write;
            for i in start..end {
                let p = raw[i];
                if write > first && (raw[write - 1].a, raw[write - 1].b) == (p.a, p.b) {
                    raw[write - 1].score = raw[write - 1].score.max(p.score);
                } else {
                    raw[write] = p;
                    write += 1;
                }
            }
            runs.push((detector, first, write));
        }
        raw.truncate(write);
        raw.shrink_to_fit();
        // The k-way merge: the smallest (a, b) at the runs' heads, with every run's score
        // for it, in detector order.
        let mut heads: Vec<usize> = runs.iter().map(|r| r.1).collect();
        let mut pairs: Vec<PairRecord> = Vec::new();
        let mut scores: Vec<f64> = Vec::with_capacity(raw.len());
        let mut found: Vec<(usize, f64)> = Vec::with_capacity(runs.len());
        loop {
            let mut key: Option<(u32, u32)> = None;
            for (run, &head) in runs.iter().zip(&heads) {
                if head < run.2 {
                    let k = (raw[head].a, raw[head].b);
                    key = Some(key.map_or(k, |m| m.min(k)));
                }
            }
            let Some((a, b)) = key else {
                break;
            };
            found.clear();
            for (run, head) in runs.iter().zip(heads.iter_mut()) {
                if *head < run.2 && (raw[*head].a, raw[*head].b) == (a, b) {
                    found.push((run.0, raw[*head].score));
                    *head += 1;
                }
            }
            // Runs are usually in detector order, each detector once; fold repeats anyway.
            found.sort_by_key(|f| f.0);
            let start = scores.len() as u32;
            let mut mask = 0u32;
            for &(detector, score) in &found {
                if mask >> detector & 1 == 1 {
                    if let Some(last) = scores.last_mut() {
                        *last = last.max(score);
                    }
                } else {
                    mask |= 1 << detector;
                    scores.push(score);
                }
            }
            pairs.push(PairRecord { a, b, start, mask });
        }
        drop(raw);
        pairs.shrink_to_fit();
        scores.shrink_to_fit();
        MergedPairs { ids, pairs, scores }
    }
}

/// One entry of the merged queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Member ids (each the representative of its byte-identical captures), ascending.
    pub members: Vec<i64>,
    /// Captures each member stands for (1: no copy), parallel to `members`.
    pub captures: Vec<i64>,
    /// The merged pairs between members: their indices in the [`MergedPairs`] the entry was
    /// built from, ascending (so in (a, b) order).
    pub pairs: Vec<u32>,
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

/// The merged queue's entries from each detector's pairs, with the merged pairs they name.
/// `representative` maps a document to the smallest id with byte-identical text (absent:
/// itself); `noise` names the triage rule a document matches (absent: clean). Entries come
/// out ordered by smallest member.
pub fn build_entries(
    detectors: &[DetectorPairs],
    representative: &HashMap<i64, i64>,
    noise: &HashMap<i64, &'static str>,
    config: EntryConfig,
) -> (MergedPairs, Vec<Entry>) {
    let pairs = merge_pairs(detectors, representative, noise);
    let methods: Vec<String> = detectors.iter().map(|d| d.method.clone()).collect();
    let entries = entries_from_pairs(&pairs, &methods, representative, noise, config);
    (pairs, entries)
}

/// Every detector's pairs merged between representatives (each pair with the best score of
/// each detector that found it), without the pairs across noise classes; ordered by (a, b).
pub fn merge_pairs(
    detectors: &[DetectorPairs],
    representative: &HashMap<i64, i64>,
    noise: &HashMap<i64, &'static str>,
) -> MergedPairs {
    let mut merger = PairMerger::new(Vec::new(), representative, noise);
    for (k, det) in detectors.iter().enumerate() {
        for &(a, b, s) in &det.pairs {
            merger.add_pair(k, a, b, s);
        }
    }
    merger.finish()
}

/// The entries of merged pairs (from [`merge_pairs`] or a [`PairMerger`], possibly
/// filtered since): capped connected components, their bridges, detectors (`methods`: the
/// detector list's names) and captures.
pub fn entries_from_pairs(
    pairs: &MergedPairs,
    methods: &[String],
    representative: &HashMap<i64, i64>,
    noise: &HashMap<i64, &'static str>,
    config: EntryConfig,
) -> Vec<Entry> {
    let n = pairs.docs();
    // Kruskal's order; pairs are numbered in (a, b) order, which breaks ties.
    let mut order: Vec<u32> = (0..pairs.len() as u32).collect();
    order.par_sort_unstable_by(|&x, &y| {
        let (nx, mx) = pairs.at(x as usize).strength();
        let (ny, my) = pairs.at(y as usize).strength();
        ny.cmp(&nx).then(my.total_cmp(&mx)).then(x.cmp(&y))
    });
    let mut uf = UnionFind::new(n);
    let cap = config.max_size.max(2);
    for &e in &order {
        let p = pairs.pairs[e as usize];
        if !uf.same(p.a, p.b) && uf.set_size(p.a) + uf.set_size(p.b) <= cap {
            uf.union(p.a, p.b);
        }
    }
    drop(order);
    // Every group of two or more is an entry (each was joined by pairs inside it), in the
    // order of its smallest member.
    let mut entry_of_root = vec![UNSET; n];
    let mut entry_of = vec![UNSET; n];
    let mut entries: Vec<Entry> = Vec::new();
    for x in 0..n as u32 {
        if uf.set_size(x) < 2 {
            continue;
        }
        let root = uf.find(x) as usize;
        if entry_of_root[root] == UNSET {
            entry_of_root[root] = entries.len() as u32;
            entries.push(Entry {
                members: Vec::new(),
                captures: Vec::new(),
                pairs: Vec::new(),
                detectors: Vec::new(),
                noise: None,
                min_score: None,
                max_score: None,
                bridge: None,
            });
        }
        entry_of[x as usize] = entry_of_root[root];
        entries[entry_of_root[root] as usize]
            .members
            .push(pairs.ids[x as usize]);
    }
    drop(entry_of_root);
    drop(uf);
    // The pairs inside each entry.
    for (i, p) in pairs.iter().enumerate() {
        let slot = entry_of[p.ia as usize];
        if slot == UNSET || slot != entry_of[p.ib as usize] {
            continue;
        }
        let e = &mut entries[slot as usize];
        let s = p.max_score();
        e.min_score = Some(e.min_score.map_or(s, |m| m.min(s)));
        e.max_score = Some(e.max_score.map_or(s, |m| m.max(s)));
        e.pairs.push(i as u32);
    }
    drop(entry_of);
    // Captures per member: how many documents each representative stands for.
    let mut count: HashMap<i64, i64> = HashMap::new();
    for (&d, &r) in representative {
        if d != r {
            *count.entry(r).or_default() += 1;
        }
    }
    for e in &mut entries {
        describe(e, pairs, methods, noise);
        e.captures = e
            .members
            .iter()
            .map(|m| 1 + count.get(m).copied().unwrap_or(0))
            .collect();
    }
    entries
}

/// An entry's noise class, detectors and weakest bridge, from its members and pairs: the
/// bridge on the entry's own graph (members numbered in their order, so ties break as on
/// the whole graph).
fn describe(
    e: &mut Entry,
    pairs: &MergedPairs,
    methods: &[String],
    noise: &HashMap<i64, &'static str>,
) {
    e.noise = e.members.first().and_then(|d| noise.get(d).copied());
    let local = |d: i64| e.members.binary_search(&d).unwrap_or(0) as u32;
    let mut mask = 0u32;
    let edges: Vec<(u32, u32, f64)> = e
        .pairs
        .iter()
        .map(|&i| {
            let p = pairs.at(i as usize);
            mask |= p.mask;
            let (n, mean) = p.strength();
            (
                local(p.a),
                local(p.b),
                n as f64 + mean.clamp(0.0, 1.0) * 0.999,
            )
        })
        .collect();
    e.detectors = (0..MAX_DETECTORS)
        .filter(|&k| mask >> k & 1 == 1)
        .filter_map(|k| methods.get(k).cloned())
        .collect();
    let clusters = clusters_with_bridges(e.members.len(), &edges);
    e.bridge = clusters
        .first()
        .and_then(|c| c.weakest_bridge)
        .and_then(|(x, y, _)| {
            let (a, b) = (e.members[x as usize], e.members[y as usize]);
            let (a, b) = (a.min(b), a.max(b));
            e.pairs
                .iter()
                .map(|&i| pairs.at(i as usize))
                .find(|p| p.a == a && p.b == b)
                .map(|p| (a, b, p.max_score()))
        });
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;

    use super::*;

    fn det(method: &str, pairs: &[(i64, i64, f64)]) -> DetectorPairs {
        DetectorPairs {
            method: method.into(),
            pairs: pairs.to_vec(),
        }
    }

    fn entries(
        d: &[DetectorPairs],
        rep: &HashMap<i64, i64>,
        noise: &HashMap<i64, &'static str>,
        config: EntryConfig,
    ) -> Vec<Entry> {
        build_entries(d, rep, noise, config).1
    }

    #[test]
    fn overlapping_runs_give_one_entry_with_their_agreement() {
        let d = [
            det("spotsigs", &[(1, 2, 0.9), (2, 3, 0.8)]),
            det("imatch", &[(1, 2, 1.0)]),
            det("cooper", &[(5, 6, 0.7)]),
        ];
        let (pairs, e) =
            build_entries(&d, &HashMap::new(), &HashMap::new(), EntryConfig::default());
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].members, [1, 2, 3]);
        assert_eq!(e[0].detectors, ["spotsigs", "imatch"]);
        assert_eq!(agreement_label(&e[0].detectors, 3), "2 of 3 detectors");
        assert_eq!(agreement_label(&e[1].detectors, 3), "cooper only");
        assert_eq!(e[0].bridge, Some((2, 3, 0.8)));
        let first: Vec<RefPair> = e[0]
            .pairs
            .iter()
            .filter_map(|&i| pairs.get(i as usize))
            .map(|p| (p.a, p.b, p.scores().collect()))
            .collect();
        assert_eq!(
            first,
            [(1, 2, vec![(0, 0.9), (1, 1.0)]), (2, 3, vec![(0, 0.8)])]
        );
    }

    #[test]
    fn copies_collapse_and_noise_stays_apart() {
        let d = [det("spotsigs", &[(1, 2, 1.0), (1, 3, 0.9), (3, 4, 0.9)])];
        let rep = HashMap::from([(2, 1), (1, 1)]);
        let noise = HashMap::from([(4, "error")]);
        let e = entries(&d, &rep, &noise, EntryConfig::default());
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
        let e = entries(
            &d,
            &HashMap::new(),
            &HashMap::new(),
            EntryConfig { max_size: 3 },
        );
        assert_eq!(
            e.iter().map(|e| e.members.clone()).collect::<Vec<_>>(),
            [vec![1, 2, 3], vec![4, 5, 6]]
        );
        let all = entries(&d, &HashMap::new(), &HashMap::new(), EntryConfig::default());
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].bridge, Some((3, 4, 0.2)));
    }

    #[test]
    fn a_cluster_joins_as_a_chain_only_when_a_member_is_in_none_of_its_detectors_pairs() {
        let (rep, noise) = (HashMap::new(), HashMap::new());
        let mut m = PairMerger::new(vec![1, 2, 3, 4, 5, 6, 7], &rep, &noise);
        m.add_pair(0, 1, 2, 0.9);
        m.add_cluster(0, &[1, 2], 0.9);
        m.add_cluster(0, &[3, 4, 5], 0.4);
        // A later detector's clusters look at its own pairs only.
        m.add_pair(1, 6, 7, 0.8);
        m.add_cluster(1, &[1, 2], 0.7);
        let merged = m.finish();
        let got: Vec<RefPair> = merged
            .iter()
            .map(|p| (p.a, p.b, p.scores().collect()))
            .collect();
        assert_eq!(
            got,
            [
                (1, 2, vec![(0, 0.9), (1, 0.7)]),
                (3, 4, vec![(0, 0.4)]),
                (4, 5, vec![(0, 0.4)]),
                (6, 7, vec![(1, 0.8)]),
            ]
        );
    }

    /// A merged pair as the reference lists it: (a, b, [(detector, score)]).
    type RefPair = (i64, i64, Vec<(usize, f64)>);

    /// The merge as it was before issue 16's compact one: a nested map per pair. The
    /// reference the property tests compare with.
    fn reference_merge_pairs(
        detectors: &[DetectorPairs],
        representative: &HashMap<i64, i64>,
        noise: &HashMap<i64, &'static str>,
    ) -> Vec<RefPair> {
        let rep = |d: i64| representative.get(&d).copied().unwrap_or(d);
        let class = |d: i64| noise.get(&d).copied();
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
            .map(|((a, b), scores)| (a, b, scores.into_iter().collect()))
            .collect()
    }

    /// An entry as the reference builds it: members, captures, pairs with their scores,
    /// detectors, noise, scores, bridge.
    type RefEntry = (
        Vec<i64>,
        Vec<i64>,
        Vec<RefPair>,
        Vec<String>,
        Option<&'static str>,
        Option<f64>,
        Option<f64>,
        Option<(i64, i64, f64)>,
    );

    fn strength(scores: &[(usize, f64)]) -> (usize, f64) {
        let n = scores.len();
        (n, scores.iter().map(|s| s.1).sum::<f64>() / n.max(1) as f64)
    }

    fn best(scores: &[(usize, f64)]) -> f64 {
        scores.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max)
    }

    /// `entries_from_pairs` as it was before issue 16's compact build (whole-graph bridges,
    /// a map from ids to indices).
    fn reference_entries(
        pairs: Vec<RefPair>,
        methods: &[String],
        representative: &HashMap<i64, i64>,
        noise: &HashMap<i64, &'static str>,
        config: EntryConfig,
    ) -> Vec<RefEntry> {
        let class = |d: i64| noise.get(&d).copied();
        let ids: Vec<i64> = pairs
            .iter()
            .flat_map(|p| [p.0, p.1])
            .collect::<BTreeSet<i64>>()
            .into_iter()
            .collect();
        let index: HashMap<i64, u32> = ids
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, i as u32))
            .collect();
        let ix = |d: i64| index[&d];
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by(|&x, &y| {
            let (nx, mx) = strength(&pairs[x].2);
            let (ny, my) = strength(&pairs[y].2);
            ny.cmp(&nx)
                .then(my.total_cmp(&mx))
                .then((pairs[x].0, pairs[x].1).cmp(&(pairs[y].0, pairs[y].1)))
        });
        let mut uf = UnionFind::new(ids.len());
        let cap = config.max_size.max(2);
        for &e in &order {
            let (a, b) = (ix(pairs[e].0), ix(pairs[e].1));
            if !uf.same(a, b) && uf.set_size(a) + uf.set_size(b) <= cap {
                uf.union(a, b);
            }
        }
        let inside: Vec<&RefPair> = pairs.iter().filter(|p| uf.same(ix(p.0), ix(p.1))).collect();
        let weighted: Vec<(u32, u32, f64)> = inside
            .iter()
            .map(|p| {
                let (n, mean) = strength(&p.2);
                (ix(p.0), ix(p.1), n as f64 + mean.clamp(0.0, 1.0) * 0.999)
            })
            .collect();
        let clusters = clusters_with_bridges(ids.len(), &weighted);
        let mut slot_of: HashMap<u32, usize> = HashMap::new();
        let mut out: Vec<RefEntry> = Vec::new();
        for (slot, c) in clusters.iter().enumerate() {
            for &m in &c.members {
                slot_of.insert(m, slot);
            }
            let members: Vec<i64> = c.members.iter().map(|&m| ids[m as usize]).collect();
            let noise = members.first().and_then(|&d| class(d));
            out.push((
                members,
                Vec::new(),
                Vec::new(),
                Vec::new(),
                noise,
                None,
                None,
                None,
            ));
        }
        for p in inside {
            let slot = slot_of[&ix(p.0)];
            let e = &mut out[slot];
            let s = best(&p.2);
            e.5 = Some(e.5.map_or(s, |m| m.min(s)));
            e.6 = Some(e.6.map_or(s, |m| m.max(s)));
            e.2.push(p.clone());
        }
        let mut count: HashMap<i64, i64> = HashMap::new();
        for (&d, &r) in representative {
            if d != r {
                *count.entry(r).or_default() += 1;
            }
        }
        for (e, c) in out.iter_mut().zip(&clusters) {
            let found: BTreeSet<usize> = e.2.iter().flat_map(|p| p.2.iter().map(|s| s.0)).collect();
            e.3 = found.into_iter().map(|k| methods[k].clone()).collect();
            e.7 = c.weakest_bridge.and_then(|(a, b, _)| {
                let (a, b) = (ids[a as usize], ids[b as usize]);
                let (a, b) = (a.min(b), a.max(b));
                e.2.iter()
                    .find(|p| p.0 == a && p.1 == b)
                    .map(|p| (a, b, best(&p.2)))
            });
            e.1 =
                e.0.iter()
                    .map(|m| 1 + count.get(m).copied().unwrap_or(0))
                    .collect();
        }
        out
    }

    fn listed(pairs: &MergedPairs) -> Vec<RefPair> {
        pairs
            .iter()
            .map(|p| (p.a, p.b, p.scores().collect()))
            .collect()
    }

    fn as_reference(pairs: &MergedPairs, entries: Vec<Entry>) -> Vec<RefEntry> {
        entries
            .into_iter()
            .map(|e| {
                let ps = e
                    .pairs
                    .iter()
                    .filter_map(|&i| pairs.get(i as usize))
                    .map(|p| (p.a, p.b, p.scores().collect()))
                    .collect();
                (
                    e.members,
                    e.captures,
                    ps,
                    e.detectors,
                    e.noise,
                    e.min_score,
                    e.max_score,
                    e.bridge,
                )
            })
            .collect()
    }

    const METHODS: [&str; 4] = ["cooper", "imatch", "spotsigs", "andd"];

    fn detectors_strategy() -> impl Strategy<Value = Vec<DetectorPairs>> {
        proptest::collection::vec(
            proptest::collection::vec(
                (
                    0i64..24,
                    0i64..24,
                    proptest::sample::select(vec![0.25, 0.5, 0.5, 0.75, 0.9, 1.0, 0.0, 0.3]),
                ),
                0..50,
            ),
            1..=4,
        )
        .prop_map(|runs| {
            runs.into_iter()
                .enumerate()
                .map(|(k, pairs)| DetectorPairs {
                    method: METHODS[k].into(),
                    pairs,
                })
                .collect()
        })
    }

    proptest::proptest! {
        /// The compact merge and build give what the nested-map merge and the whole-graph
        /// build gave, whatever ids are known up front, however pairs are filtered between.
        #[test]
        fn the_compact_merge_equals_the_reference(
            detectors in detectors_strategy(),
            reps in proptest::collection::vec((0i64..24, 0i64..24), 0..8),
            noisy in proptest::collection::vec(
                (0i64..24, proptest::sample::select(vec!["error", "near-empty"])),
                0..6,
            ),
            known in proptest::collection::vec(0i64..30, 0..30),
            cap in 2usize..7,
            drop_every in 0usize..5,
        ) {
            let representative: HashMap<i64, i64> = reps.into_iter().collect();
            let noise: HashMap<i64, &'static str> = noisy.into_iter().collect();
            let config = EntryConfig { max_size: cap };
            let methods: Vec<String> = detectors.iter().map(|d| d.method.clone()).collect();

            let mut reference = reference_merge_pairs(&detectors, &representative, &noise);
            let mut merger = PairMerger::new(known, &representative, &noise);
            for (k, d) in detectors.iter().enumerate() {
                for &(a, b, s) in &d.pairs {
                    merger.add_pair(k, a, b, s);
                }
            }
            let mut merged = merger.finish();
            proptest::prop_assert_eq!(listed(&merged), reference.clone());
            // Whether or not the documents are known up front.
            proptest::prop_assert_eq!(
                listed(&merge_pairs(&detectors, &representative, &noise)),
                reference.clone()
            );

            // Filtered as the store filters (every drop_every-th pair), then built.
            if drop_every > 0 {
                let mut i = 0;
                reference.retain(|_| { i += 1; i % drop_every != 0 });
                let mut j = 0;
                merged.retain(|_| { j += 1; j % drop_every != 0 });
            }
            proptest::prop_assert_eq!(listed(&merged), reference.clone());
            let built = entries_from_pairs(&merged, &methods, &representative, &noise, config);
            let expected = reference_entries(reference, &methods, &representative, &noise, config);
            proptest::prop_assert_eq!(as_reference(&merged, built), expected);
        }
    }
}
