//! The exact SpotSigs matcher (Theobald, Siddharth, Paepcke, SIGIR 2008, Algorithm 1):
//! all pairs of signature multisets with Jaccard similarity `Σmin / Σmax ≥ τ`, found
//! with length partitions, per-partition inverted indexes whose posting lists are sorted
//! by descending length, signatures visited rarest first, and two early-termination
//! bounds. "Exact" means the pair set equals [`brute_force`]'s, similarity for
//! similarity; the proptest in `tests/spotsigs_matcher.rs` checks it.
//!
//! ## Why the pruning is safe
//! Each pair is found once, from its "larger" document `A` (order by `(length, id)`), so
//! every candidate `B` has `|B| ≤ |A|`. With `m` the multiset overlap,
//! `J = m / (|A| + |B| − m)`, increasing in `m`, and `m ≤ |B|`. When `A`'s signatures
//! are visited rarest first and `B` is first met at signature `j`, `B` shares none of
//! `A`'s earlier signatures, so `m ≤ rem_j` = the total frequency in `A` of signatures
//! `j, j+1, …`. Hence, with `u = min(rem_j, |B|)`:
//! * **δ2 (length)**: `J ≤ |B| / |A|`; posting lists are sorted by descending length, so
//!   once this is `< τ` the rest of the list is shorter still and the scan stops.
//! * **per-candidate bound**: `J ≤ u / (|A| + |B| − u)`; below `τ`, `B` is dropped
//!   without computing its overlap (and stays dropped: `rem` only decreases).
//! * **δ1 (remaining length)**: for every `B` not met yet, `J ≤ rem / |A|` (the maximum
//!   of the bound above over `|B| ≤ |A|`); once `rem` after the current signature makes
//!   this `< τ`, no unseen document can match and `A`'s loop ends.
//!
//! A bound is compared as `(x as f64) / (y as f64) < τ` with exact integers `x`, `y`, the
//! same rounding as the similarity itself; since rounding is monotone, a pair whose
//! computed similarity reaches `τ` is never pruned, even at the last ulp. Every exit in
//! this file is one of the three bounds above (DESIGN.md: the early exit of the public
//! Java code is not a valid bound and loses about 2% of the true pairs).
//!
//! Partitions only make the posting lists shorter: `p_0 = 1`, `p_{k+1}` the smallest
//! integer with `p_{k+1} − p_k > (1 − τ) p_{k+1}`; a document of length `L` can only
//! match lengths in `[τL, L/τ]`, which lie in its own and the neighbouring partitions.
//! `A` probes the partitions covering `[τ|A|, |A|]` (its own and usually the one below);
//! pairs with the partition above are found from the other side. In memory the
//! per-partition indexes are contiguous slices of one length-sorted posting list per
//! signature (`RankedIndex`), so `Full` and `NoPartitions` do almost the same work;
//! the pruning is what separates them from `PlainJoin` (see `examples/spotsigs_bench.rs`).
//!
//! Identical vectors are matched once: the first of each group stands for the group and
//! its pairs are expanded to every member (plus all pairs inside the group, at 1.0).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rayon::prelude::*;

use crate::sig::spotsigs::SigVector;

/// A matched pair `(i, j, similarity)` with `i < j`.
pub type Pair = (u32, u32, f64);

/// Which machinery [`match_pairs`] uses; all return the same pairs (the paper's Table 2
/// ablations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchMode {
    /// Length partitions plus all pruning bounds.
    Full,
    /// One partition, all pruning bounds.
    NoPartitions,
    /// A plain inverted-index join: every pair sharing a signature is compared.
    PlainJoin,
}

/// Work counters of one matching run. Deterministic: they do not depend on threads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchStats {
    /// Non-empty input documents.
    pub docs: usize,
    /// Documents folded into an identical earlier vector (matched once, pairs expanded).
    pub exact_duplicate_docs: usize,
    /// Length partitions used.
    pub partitions: usize,
    /// Posting entries looked at.
    pub postings_scanned: u64,
    /// Full similarity computations.
    pub candidates_checked: u64,
    /// Candidates dropped by the per-candidate overlap bound.
    pub pruned_by_bound: u64,
    /// Posting-list scans stopped by the length bound (δ2).
    pub length_breaks: u64,
    /// Documents whose signature loop stopped early (δ1).
    pub early_terminations: u64,
    /// Pairs reported (after expanding exact duplicates).
    pub pairs: usize,
}

impl MatchStats {
    fn add(&mut self, o: &MatchStats) {
        self.postings_scanned += o.postings_scanned;
        self.candidates_checked += o.candidates_checked;
        self.pruned_by_bound += o.pruned_by_bound;
        self.length_breaks += o.length_breaks;
        self.early_terminations += o.early_terminations;
    }
}

/// Multiset overlap `Σ min(f_a, f_b)` of two vectors (merge of sorted ids).
pub fn overlap(a: &SigVector, b: &SigVector) -> u64 {
    let (a, b) = (a.entries(), b.entries());
    let (mut i, mut j, mut m) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                m += u64::from(a[i].1.min(b[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    m
}

/// Multiset Jaccard `Σmin / Σmax`; 0 when both are empty.
pub fn jaccard(a: &SigVector, b: &SigVector) -> f64 {
    ratio(overlap(a, b), a.len() + b.len())
}

/// `m / (total − m)`: the similarity from an overlap and the sum of both lengths. Every
/// comparison with τ goes through this one expression (see the module notes).
fn ratio(m: u64, total: u64) -> f64 {
    let union = total - m;
    if union == 0 {
        0.0
    } else {
        m as f64 / union as f64
    }
}

/// The smallest overlap `m ≤ max` with `ratio(m, total) ≥ τ`, if any: the integer form
/// of the threshold test, found with the same expression as every other comparison
/// (`ratio` is increasing in `m`, so a search from an estimate settles it).
fn min_overlap(total: u64, max: u64, tau: f64) -> Option<u64> {
    let estimate = (tau * total as f64 / (1.0 + tau)).floor();
    let mut m = if estimate.is_finite() && estimate > 0.0 {
        (estimate as u64).min(max)
    } else {
        0
    };
    while m > 0 && ratio(m - 1, total) >= tau {
        m -= 1;
    }
    while ratio(m, total) < tau {
        if m >= max {
            return None;
        }
        m += 1;
    }
    Some(m)
}

/// τ outside `(0, 1]` is clamped into it (NaN counts as the smallest τ): with τ > 0 a
/// matching pair always shares a signature, which every mode relies on.
fn clamp_tau(tau: f64) -> f64 {
    if tau > 0.0 {
        tau.min(1.0)
    } else {
        f64::MIN_POSITIVE
    }
}

/// All pairs `i < j` with `jaccard ≥ τ`, by comparing every pair. The reference.
pub fn brute_force(docs: &[SigVector], tau: f64) -> Vec<Pair> {
    let tau = clamp_tau(tau);
    let mut out = Vec::new();
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            let s = jaccard(&docs[i], &docs[j]);
            if s >= tau {
                out.push((i as u32, j as u32, s));
            }
        }
    }
    out
}

/// The partition lower bounds `p_0 = 1 < p_1 < …` up to the first bound above
/// `max_len`; partition `k` holds the lengths `[p_k, p_{k+1})`.
pub fn partition_bounds(max_len: u64, tau: f64) -> Vec<u64> {
    let tau = clamp_tau(tau);
    let mut bounds = vec![1u64];
    let mut p = 1u64;
    while p <= max_len {
        p = next_bound(p, tau);
        bounds.push(p);
    }
    bounds
}

/// Smallest integer `q` with `q − p > (1 − τ) q`, i.e. `τ q > p`.
fn next_bound(p: u64, tau: f64) -> u64 {
    let estimate = (p as f64 / tau).floor();
    if estimate.is_nan() || estimate >= 9.0e15 {
        return u64::MAX;
    }
    let mut q = (estimate as u64 + 1).max(p + 1);
    while q > p + 1 && tau * ((q - 1) as f64) > p as f64 {
        q -= 1;
    }
    while tau * (q as f64) <= p as f64 {
        q += 1;
    }
    q
}

/// Signature ids mapped onto `0..len` in increasing id order: the ids themselves when
/// they are dense enough for a direct table, else their rank among the distinct ids.
enum DenseIds {
    Direct(usize),
    Sorted(Vec<u32>),
}

impl DenseIds {
    fn new(docs: &[&SigVector]) -> Self {
        let occurrences: usize = docs.iter().map(|v| v.distinct()).sum();
        let max = docs
            .iter()
            .filter_map(|v| v.entries().last().map(|e| e.0 as usize))
            .max();
        match max {
            None => DenseIds::Direct(0),
            // A table of `max + 1` counters costs no more than a few times the input.
            Some(m) if m < 4 * occurrences + 1024 => DenseIds::Direct(m + 1),
            Some(_) => {
                let mut ids: Vec<u32> = docs
                    .iter()
                    .flat_map(|v| v.entries().iter().map(|e| e.0))
                    .collect();
                ids.par_sort_unstable();
                ids.dedup();
                DenseIds::Sorted(ids)
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            DenseIds::Direct(n) => *n,
            DenseIds::Sorted(ids) => ids.len(),
        }
    }

    /// The dense index of an id that occurs in the collection.
    fn index(&self, id: u32) -> usize {
        match self {
            DenseIds::Direct(_) => id as usize,
            // Every id looked up was collected in `new`, so the search finds it; the
            // `Err` position is never used for an id that occurs.
            DenseIds::Sorted(ids) => ids.binary_search(&id).unwrap_or_else(|p| p),
        }
    }
}

/// The collection relabelled for matching: each signature gets its rank in order of
/// ascending document frequency (ties by id), so a vector sorted by rank lists its
/// signatures rarest first, and one inverted index over ranks gives O(1) lookups.
/// Relabelling is a bijection, so overlaps and similarities are unchanged.
///
/// Each posting list is sorted by descending `(length, id)`. Partition `k`'s inverted
/// index for a signature is the contiguous slice of that list with lengths in
/// `[p_k, p_{k+1})`: the per-partition indexes of the paper, stored back to back.
struct RankedIndex {
    /// Per document: `(rank, freq)` ascending by rank.
    vectors: Vec<Vec<(u32, u32)>>,
    lens: Vec<u64>,
    /// Posting list of rank `r`: `postings[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<usize>,
    postings: Vec<(u64, u32)>,
}

impl RankedIndex {
    /// Linear-time build (counting sorts, no comparison sort over the occurrences):
    /// document frequencies by counting, ranks by sorting the distinct signatures, and
    /// posting lists filled by visiting the documents in descending `(length, index)`
    /// order, so every list comes out sorted without sorting it.
    fn build(docs: &[&SigVector]) -> Self {
        let n = docs.len();
        let lens: Vec<u64> = docs.iter().map(|v| v.len()).collect();
        let dense = DenseIds::new(docs);
        let mut df = vec![0u32; dense.len()];
        for v in docs {
            for &(s, _) in v.entries() {
                df[dense.index(s)] += 1;
            }
        }
        // Rank = position in ascending (df, id) order; dense indices keep the ids' order.
        let mut by_rank: Vec<u32> = (0..dense.len() as u32).collect();
        by_rank.sort_unstable_by_key(|&x| u64::from(df[x as usize]) << 32 | u64::from(x));
        let mut rank_of = vec![0u32; dense.len()];
        let mut offsets = Vec::with_capacity(by_rank.len() + 1);
        let mut total = 0usize;
        for (rank, &x) in by_rank.iter().enumerate() {
            rank_of[x as usize] = rank as u32;
            offsets.push(total);
            total += df[x as usize] as usize;
        }
        offsets.push(total);
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.par_sort_unstable_by(|&a, &b| (lens[b as usize], b).cmp(&(lens[a as usize], a)));
        let mut fill: Vec<usize> = offsets[..by_rank.len()].to_vec();
        let mut postings = vec![(0u64, 0u32); total];
        for &d in &order {
            for &(s, _) in docs[d as usize].entries() {
                let r = rank_of[dense.index(s)] as usize;
                postings[fill[r]] = (lens[d as usize], d);
                fill[r] += 1;
            }
        }
        let vectors: Vec<Vec<(u32, u32)>> = docs
            .par_iter()
            .map(|v| {
                let mut e: Vec<(u32, u32)> = v
                    .entries()
                    .iter()
                    .map(|&(s, f)| (rank_of[dense.index(s)], f))
                    .collect();
                e.sort_unstable();
                e
            })
            .collect();
        RankedIndex {
            vectors,
            lens,
            offsets,
            postings,
        }
    }

    fn list(&self, rank: u32) -> &[(u64, u32)] {
        let r = rank as usize;
        &self.postings[self.offsets[r]..self.offsets[r + 1]]
    }

    /// The similarity of `A` and `B` when it reaches `τ`, else `None`, for a `B` first
    /// met at `A`'s signature `from`: `B` shares none of `A`'s earlier signatures (see
    /// the module notes), so the overlap is that of `A[from..]` (total frequency `rem`)
    /// with `B`, and the merge stops as soon as even sharing everything left could not
    /// reach `τ`. A returned similarity is the same number [`jaccard`] computes.
    fn verify(&self, a: u32, from: usize, rem: u64, b: u32, tau: f64) -> Option<f64> {
        let x = &self.vectors[a as usize][from..];
        let y = &self.vectors[b as usize];
        let lb = self.lens[b as usize];
        let total = self.lens[a as usize] + lb;
        let need = min_overlap(total, rem.min(lb), tau)?;
        let (mut i, mut j, mut m) = (0, 0, 0u64);
        let (mut rx, mut ry) = (rem, lb);
        while i < x.len() && j < y.len() {
            let ((sx, fx), (sy, fy)) = (x[i], y[j]);
            if sx == sy {
                m += u64::from(fx.min(fy));
                rx -= u64::from(fx);
                ry -= u64::from(fy);
                i += 1;
                j += 1;
                continue;
            }
            if sx < sy {
                rx -= u64::from(fx);
                i += 1;
            } else {
                ry -= u64::from(fy);
                j += 1;
            }
            // What is left of either side bounds what can still be shared.
            if m + rx.min(ry) < need {
                return None;
            }
        }
        (m >= need).then(|| ratio(m, total))
    }

    fn jaccard(&self, a: u32, b: u32) -> f64 {
        let (x, y) = (&self.vectors[a as usize], &self.vectors[b as usize]);
        let (mut i, mut j, mut m) = (0, 0, 0u64);
        while i < x.len() && j < y.len() {
            match x[i].0.cmp(&y[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    m += u64::from(x[i].1.min(y[j].1));
                    i += 1;
                    j += 1;
                }
            }
        }
        ratio(m, self.lens[a as usize] + self.lens[b as usize])
    }
}

/// A 64-bit hash of a vector's entries (FxHash-style multiply-rotate; only used to find
/// candidate equal vectors, which are then compared in full).
fn vector_hash(v: &SigVector) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = v.len();
    for &(s, f) in v.entries() {
        h = (h.rotate_left(5) ^ (u64::from(s) << 32 | u64::from(f))).wrapping_mul(K);
    }
    // Finalizer (SplitMix64's): spread the high bits into the low ones the map uses.
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 31)
}

/// A hasher for keys that are already hashes: passes the `u64` through.
#[derive(Default)]
struct PrehashedU64(u64);

impl Hasher for PrehashedU64 {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used (the keys are `u64`); fold anything else in anyway.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// All pairs of `docs` with multiset Jaccard `≥ τ`, each once as `(i, j, sim)` with
/// `i < j`, sorted; `i`, `j` index `docs`. Empty vectors never match. Identical vectors
/// are matched once and their pairs expanded.
pub fn match_pairs(docs: &[SigVector], tau: f64, mode: MatchMode) -> (Vec<Pair>, MatchStats) {
    let tau = clamp_tau(tau);
    let mut stats = MatchStats::default();

    // Fold identical vectors into their first occurrence. Vectors are hashed in
    // parallel once; the map is keyed by that hash and checks equality itself.
    let hashes: Vec<u64> = docs.par_iter().map(vector_hash).collect();
    let mut by_hash: HashMap<u64, Vec<usize>, BuildHasherDefault<PrehashedU64>> =
        HashMap::default();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (i, v) in docs.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        stats.docs += 1;
        let candidates = by_hash.entry(hashes[i]).or_default();
        let g = match candidates
            .iter()
            .copied()
            .find(|&g| docs[groups[g][0] as usize] == *v)
        {
            Some(g) => g,
            None => {
                groups.push(Vec::new());
                candidates.push(groups.len() - 1);
                groups.len() - 1
            }
        };
        groups[g].push(i as u32);
    }
    stats.exact_duplicate_docs = stats.docs - groups.len();
    let reps: Vec<&SigVector> = groups.iter().map(|g| &docs[g[0] as usize]).collect();

    let (rep_pairs, work) = match_distinct(&reps, tau, mode);
    stats.add(&work);
    stats.partitions = work.partitions;

    let mut pairs = Vec::new();
    for g in &groups {
        for (x, &a) in g.iter().enumerate() {
            for &b in &g[x + 1..] {
                pairs.push((a, b, 1.0));
            }
        }
    }
    for (r, s, sim) in rep_pairs {
        for &a in &groups[r as usize] {
            for &b in &groups[s as usize] {
                pairs.push((a.min(b), a.max(b), sim));
            }
        }
    }
    // Every (i, j) occurs once, so the unstable parallel sort is deterministic.
    pairs.par_sort_unstable_by_key(|x| u64::from(x.0) << 32 | u64::from(x.1));
    stats.pairs = pairs.len();
    (pairs, stats)
}

/// The matcher proper, on distinct non-empty vectors. Pairs use indices into `docs`.
fn match_distinct(docs: &[&SigVector], tau: f64, mode: MatchMode) -> (Vec<Pair>, MatchStats) {
    let n = docs.len();
    let index = RankedIndex::build(docs);
    let max_len = index.lens.iter().copied().max().unwrap_or(0);
    let bounds = match mode {
        MatchMode::Full => partition_bounds(max_len, tau),
        MatchMode::NoPartitions | MatchMode::PlainJoin => vec![1, u64::MAX],
    };
    let partition_of = |len: u64| bounds.partition_point(|&p| p <= len).saturating_sub(1);

    let threads = rayon::current_num_threads().max(1);
    let chunk = n.div_ceil(threads * 8).max(1);
    let results: Vec<(Vec<Pair>, MatchStats)> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            // seen[b] == a + 1 marks B as already met while probing for A.
            let mut seen = vec![0u32; n];
            let mut pairs = Vec::new();
            let mut st = MatchStats::default();
            for a in c * chunk..((c + 1) * chunk).min(n) {
                let probe = Probe {
                    index: &index,
                    bounds: &bounds,
                    tau,
                    a: a as u32,
                };
                match mode {
                    MatchMode::PlainJoin => probe.plain(&mut seen, &mut pairs, &mut st),
                    MatchMode::Full | MatchMode::NoPartitions => {
                        let la = index.lens[a];
                        // Lowest length that can still match A, minus a margin of one for
                        // the rounding of τ·|A| (the partitions only bound the search;
                        // the length test inside the scan is the exact one).
                        let lo = ((tau * la as f64).floor() as u64).saturating_sub(1).max(1);
                        let (own, lowest) = (partition_of(la), partition_of(lo));
                        probe.pruned(own, lowest, &mut seen, &mut pairs, &mut st);
                    }
                }
            }
            (pairs, st)
        })
        .collect();

    let mut stats = MatchStats {
        partitions: bounds.len() - 1,
        ..Default::default()
    };
    let mut pairs = Vec::new();
    for (p, s) in results {
        pairs.extend(p);
        stats.add(&s);
    }
    (pairs, stats)
}

/// The search for the partners of one document `A` that precede it in `(length, id)`.
struct Probe<'a> {
    index: &'a RankedIndex,
    bounds: &'a [u64],
    tau: f64,
    a: u32,
}

impl Probe<'_> {
    /// The entries of a posting list that precede `A`: the list is sorted by descending
    /// `(length, id)`, so they form its tail.
    fn preceding<'l>(&self, list: &'l [(u64, u32)]) -> &'l [(u64, u32)] {
        let key = (self.index.lens[self.a as usize], self.a);
        let start = list.partition_point(|&e| e >= key);
        &list[start..]
    }

    /// Partition `k`'s slice of a posting list (lengths in `[p_k, p_{k+1})`).
    fn partition_slice<'l>(&self, list: &'l [(u64, u32)], k: usize) -> &'l [(u64, u32)] {
        let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
        let start = list.partition_point(|&(len, _)| len >= hi);
        let end = list.partition_point(|&(len, _)| len >= lo);
        &list[start..end]
    }

    fn emit(&self, b: u32, sim: f64, pairs: &mut Vec<Pair>) {
        pairs.push((self.a.min(b), self.a.max(b), sim));
    }

    /// Algorithm 1 with the bounds of the module notes: `A`'s own partition first, then
    /// the ones below that can hold lengths `≥ τ|A|`.
    fn pruned(
        &self,
        own: usize,
        lowest: usize,
        seen: &mut [u32],
        pairs: &mut Vec<Pair>,
        st: &mut MatchStats,
    ) {
        let la = self.index.lens[self.a as usize];
        let mark = self.a + 1;
        let mut rem = la;
        for (from, &(s, f)) in self.index.vectors[self.a as usize].iter().enumerate() {
            let list = self.preceding(self.index.list(s));
            for k in (lowest..=own).rev() {
                for &(lb, b) in self.partition_slice(list, k) {
                    st.postings_scanned += 1;
                    if ratio(lb, la + lb) < self.tau {
                        st.length_breaks += 1;
                        break;
                    }
                    if seen[b as usize] == mark {
                        continue;
                    }
                    seen[b as usize] = mark;
                    let u = rem.min(lb);
                    if ratio(u, la + lb) < self.tau {
                        st.pruned_by_bound += 1;
                        continue;
                    }
                    st.candidates_checked += 1;
                    if let Some(sim) = self.index.verify(self.a, from, rem, b, self.tau) {
                        self.emit(b, sim, pairs);
                    }
                }
            }
            rem -= u64::from(f);
            // J ≤ rem / |A| for every document not met yet (ratio(rem, la + rem) = rem/la).
            if ratio(rem, la + rem) < self.tau {
                st.early_terminations += 1;
                break;
            }
        }
    }

    /// Plain inverted-index join: every preceding document sharing a signature is
    /// compared.
    fn plain(&self, seen: &mut [u32], pairs: &mut Vec<Pair>, st: &mut MatchStats) {
        let mark = self.a + 1;
        for &(s, _) in &self.index.vectors[self.a as usize] {
            for &(_, b) in self.preceding(self.index.list(s)) {
                st.postings_scanned += 1;
                if seen[b as usize] == mark {
                    continue;
                }
                seen[b as usize] = mark;
                st.candidates_checked += 1;
                let sim = self.index.jaccard(self.a, b);
                if sim >= self.tau {
                    self.emit(b, sim, pairs);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(counts: &[(u32, u32)]) -> SigVector {
        SigVector::from_counts(counts.iter().copied())
    }

    #[test]
    fn multiset_jaccard_is_sum_min_over_sum_max() {
        let a = v(&[(1, 2), (2, 1), (3, 4)]);
        let b = v(&[(1, 1), (3, 4), (4, 2)]);
        // Σmin = 1 + 4 = 5; Σmax = 2 + 1 + 4 + 2 = 9.
        assert_eq!(overlap(&a, &b), 5);
        assert!((jaccard(&a, &b) - 5.0 / 9.0).abs() < 1e-15);
        assert_eq!(jaccard(&a, &a), 1.0);
        assert_eq!(jaccard(&SigVector::default(), &SigVector::default()), 0.0);
    }

    #[test]
    fn partition_bounds_follow_the_papers_recurrence() {
        // τ = 0.8: p1 = smallest q with 0.8 q > 1 → 2; 0.8 q > 2 → 3; > 3 → 4; > 4 → 6;
        // > 6 → 8; > 8 → 11.
        assert_eq!(partition_bounds(10, 0.8), [1, 2, 3, 4, 6, 8, 11]);
        // τ = 1: one length per partition.
        assert_eq!(partition_bounds(4, 1.0), [1, 2, 3, 4, 5]);
        for tau in [0.3, 0.5, 0.77, 0.9] {
            let b = partition_bounds(1000, tau);
            for w in b.windows(2) {
                let (p, q) = (w[0] as f64, w[1] as f64);
                assert!(q - p > (1.0 - tau) * q - 1e-9);
                assert!(q - 1.0 <= p || q - 1.0 - p <= (1.0 - tau) * (q - 1.0) + 1e-9);
            }
        }
    }

    /// The paper's §4.3.2 example has d1, d2, d3 at τ = 0.8 with only d1–d3 similar
    /// (0.8). This equivalent example has the same properties: lengths 15, 14 and 12;
    /// d1–d3 share 12 signatures (12/15 = 0.8), d2 (in d1's partition [14, 18)) shares
    /// one common signature and is cut off by the δ1 bound before it is ever compared,
    /// and d3 lies in the partition below d1's ([11, 14)).
    fn paper_like_example() -> Vec<SigVector> {
        let d1 = SigVector::from_ids(0..15);
        let d2 = SigVector::from_ids(std::iter::once(0).chain(100..113));
        let d3 = SigVector::from_ids(0..12);
        vec![d1, d2, d3]
    }

    #[test]
    fn worked_example_finds_exactly_d1_d3_at_0_8() {
        let docs = paper_like_example();
        assert_eq!(jaccard(&docs[0], &docs[2]), 0.8);
        assert_eq!(docs[1].len(), 14);
        let b = partition_bounds(15, 0.8);
        let part = |l: u64| b.partition_point(|&p| p <= l) - 1;
        assert_eq!(part(15), part(14), "d1 and d2 share a partition");
        assert_eq!(part(12) + 1, part(15), "d3 is in the partition below");
        for mode in [
            MatchMode::Full,
            MatchMode::NoPartitions,
            MatchMode::PlainJoin,
        ] {
            let (pairs, stats) = match_pairs(&docs, 0.8, mode);
            assert_eq!(pairs, vec![(0, 2, 0.8)], "{mode:?}");
            if mode == MatchMode::Full {
                // d2 is never compared in full: it is pruned by a bound.
                assert_eq!(stats.candidates_checked, 1, "{stats:?}");
            }
        }
        assert_eq!(brute_force(&docs, 0.8), vec![(0, 2, 0.8)]);
        assert!(match_pairs(&docs, 0.81, MatchMode::Full).0.is_empty());
    }

    #[test]
    fn exact_duplicates_are_expanded_into_all_their_pairs() {
        let a = v(&[(1, 1), (2, 1)]);
        let b = v(&[(1, 1), (2, 1), (3, 1)]);
        let docs = vec![a.clone(), b, a.clone(), SigVector::default(), a];
        let (pairs, stats) = match_pairs(&docs, 0.6, MatchMode::Full);
        let expected = brute_force(&docs, 0.6);
        assert_eq!(pairs, expected);
        assert_eq!(stats.exact_duplicate_docs, 2);
        assert_eq!(stats.docs, 4);
        assert_eq!(pairs.len(), 6);
    }

    #[test]
    fn tau_outside_the_unit_interval_is_clamped() {
        let docs = vec![v(&[(1, 1), (2, 5)]), v(&[(1, 1), (3, 5)])];
        assert_eq!(
            match_pairs(&docs, 0.0, MatchMode::Full).0,
            brute_force(&docs, 0.0)
        );
        assert_eq!(match_pairs(&docs, 0.0, MatchMode::Full).0.len(), 1);
        assert!(match_pairs(&docs, 1.5, MatchMode::Full).0.is_empty());
    }
}
