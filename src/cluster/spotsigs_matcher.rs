//! The exact SpotSigs matcher (Theobald, Siddharth, Paepcke, SIGIR 2008, Algorithm 1):
//! all pairs of signature multisets with Jaccard similarity `Σmin / Σmax ≥ τ`, found
//! with length partitions, per-partition inverted indexes whose posting lists are sorted
//! by descending length, signatures visited rarest first, and two early-termination
//! bounds. "Exact" means the pair set equals [`brute_force`]'s, similarity for
//! similarity; the proptest in `tests/sig/spotsigs_matcher.rs` checks it.
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
//!
//! A candidate that survives the bounds is verified by merging the two vectors from `A`'s
//! signature where `B` was first met (nothing before it is shared), and the merge stops as
//! soon as what is left of either vector cannot lift the overlap to the integer minimum
//! that `τ` requires (`min_overlap`): the similarity is computed in full only for pairs
//! that match. The index is built in linear time (counting sorts), and the whole
//! machinery is shared by the three modes, so their differences are the pruning alone.

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
/// Relabelling is a bijection, so overlaps and similarities are unchanged. Documents are
/// relabelled too, by their position in descending `(length, id)` order, so a posting
/// list is a plain ascending list of positions (4 bytes an entry) and "the documents that
/// precede `A`" are the positions after `A`'s.
///
/// Each posting list is thus sorted by descending `(length, id)`. Partition `k`'s inverted
/// index for a signature is the contiguous slice of that list with lengths in
/// `[p_k, p_{k+1})`: the per-partition indexes of the paper, stored back to back.
struct RankedIndex {
    /// The documents by *position*: position `p` holds document `order[p]`, positions in
    /// descending `(length, index)` order. Everything below is indexed by position.
    order: Vec<u32>,
    /// Position `p`'s `(rank, freq)` entries, ascending by rank, are
    /// `entries[starts[p]..starts[p + 1]]`.
    starts: Vec<usize>,
    entries: Vec<(u32, u32)>,
    /// Lengths by position (non-increasing).
    lens: Vec<u64>,
    /// Posting list of rank `r`: `postings[offsets[r]..offsets[r + 1]]`, positions in
    /// ascending order, i.e. documents by descending `(length, index)`.
    offsets: Vec<usize>,
    postings: Vec<u32>,
}

impl RankedIndex {
    /// Linear-time build (counting sorts, no comparison sort over the occurrences):
    /// document frequencies by counting, ranks by a counting sort on document frequency,
    /// and posting lists filled by visiting the documents in position order, so every list
    /// comes out sorted without sorting it.
    fn build(docs: &[&SigVector]) -> Self {
        let n = docs.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.par_sort_unstable_by(|&a, &b| {
            (docs[b as usize].len(), b).cmp(&(docs[a as usize].len(), a))
        });
        let lens: Vec<u64> = order.iter().map(|&d| docs[d as usize].len()).collect();
        let dense = DenseIds::new(docs);
        let mut df = vec![0u32; dense.len()];
        for v in docs {
            for &(s, _) in v.entries() {
                df[dense.index(s)] += 1;
            }
        }
        // Rank = position in ascending (df, id) order (dense indices keep the ids' order):
        // a counting sort on df, ids visited in increasing order within each df.
        let mut by_df = vec![0usize; n + 2];
        for &f in &df {
            by_df[f as usize + 1] += 1;
        }
        for i in 1..by_df.len() {
            by_df[i] += by_df[i - 1];
        }
        // Ids that never occur (df 0) come first in that order and get no rank.
        let unused = by_df[1];
        let distinct = dense.len() - unused;
        let mut rank_of = vec![0u32; dense.len()];
        let mut offsets = vec![0usize; distinct + 1];
        for (x, &f) in df.iter().enumerate() {
            if f > 0 {
                let rank = by_df[f as usize] - unused;
                by_df[f as usize] += 1;
                rank_of[x] = rank as u32;
                offsets[rank + 1] = f as usize;
            }
        }
        for r in 1..offsets.len() {
            offsets[r] += offsets[r - 1];
        }
        let total = offsets[distinct];
        let mut fill: Vec<usize> = offsets[..distinct].to_vec();
        let mut postings = vec![0u32; total];
        let mut freqs = vec![0u32; total];
        for (p, &d) in order.iter().enumerate() {
            for &(s, f) in docs[d as usize].entries() {
                let r = rank_of[dense.index(s)] as usize;
                postings[fill[r]] = p as u32;
                freqs[fill[r]] = f;
                fill[r] += 1;
            }
        }
        // The vectors by rank: visiting the ranks in increasing order appends every
        // document's entries already sorted.
        let mut starts = Vec::with_capacity(n + 1);
        let mut occurrences = 0;
        for &d in &order {
            starts.push(occurrences);
            occurrences += docs[d as usize].distinct();
        }
        starts.push(occurrences);
        let mut cursor = starts[..n].to_vec();
        let mut entries = vec![(0u32, 0u32); occurrences];
        for rank in 0..distinct {
            for i in offsets[rank]..offsets[rank + 1] {
                let p = postings[i] as usize;
                entries[cursor[p]] = (rank as u32, freqs[i]);
                cursor[p] += 1;
            }
        }
        RankedIndex {
            order,
            starts,
            entries,
            lens,
            offsets,
            postings,
        }
    }

    /// Position `d`'s `(rank, freq)` entries, ascending by rank.
    fn vector(&self, d: u32) -> &[(u32, u32)] {
        &self.entries[self.starts[d as usize]..self.starts[d as usize + 1]]
    }

    fn list(&self, rank: u32) -> &[u32] {
        let r = rank as usize;
        &self.postings[self.offsets[r]..self.offsets[r + 1]]
    }

    /// The similarity of `A` and `B` when it reaches `τ`, else `None`, for a `B` first
    /// met at `A`'s signature `from`: `B` shares none of `A`'s earlier signatures (see
    /// the module notes), so the overlap is that of `A[from..]` (total frequency `rem`)
    /// with `B`, and the merge stops as soon as even sharing everything left could not
    /// reach `τ`. A returned similarity is the same number [`jaccard`] computes.
    fn verify(&self, a: u32, from: usize, rem: u64, b: u32, tau: f64) -> Option<f64> {
        let x = &self.vector(a)[from..];
        let y = self.vector(b);
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
        let (x, y) = (self.vector(a), self.vector(b));
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

/// Documents grouped by identical vectors, in order of each group's first member, with
/// members ascending (flat arrays: no allocation per group).
struct Groups {
    start: Vec<usize>,
    members: Vec<u32>,
}

impl Groups {
    /// `first[i]` = the first document whose vector equals `i`'s (`i` itself for a
    /// group's first member); empty vectors belong to no group.
    fn new(docs: &[SigVector], first: &[u32]) -> Self {
        let mut group_of = vec![u32::MAX; docs.len()];
        let mut sizes: Vec<usize> = Vec::new();
        for (i, &f) in first.iter().enumerate() {
            if docs[i].is_empty() {
                continue;
            }
            if f as usize == i {
                group_of[i] = sizes.len() as u32;
                sizes.push(0);
            }
            let g = group_of[f as usize];
            group_of[i] = g;
            sizes[g as usize] += 1;
        }
        let mut start = Vec::with_capacity(sizes.len() + 1);
        let mut total = 0;
        for &n in &sizes {
            start.push(total);
            total += n;
        }
        start.push(total);
        let mut fill = start[..sizes.len()].to_vec();
        let mut members = vec![0u32; total];
        for (i, &g) in group_of.iter().enumerate() {
            if g != u32::MAX {
                members[fill[g as usize]] = i as u32;
                fill[g as usize] += 1;
            }
        }
        Groups { start, members }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn members(&self, g: usize) -> &[u32] {
        &self.members[self.start[g]..self.start[g + 1]]
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

/// All pairs of `docs` with multiset Jaccard `≥ τ`, each once as `(i, j, sim)` with
/// `i < j`, sorted; `i`, `j` index `docs`. Empty vectors never match. Identical vectors
/// are matched once and their pairs expanded.
pub fn match_pairs(docs: &[SigVector], tau: f64, mode: MatchMode) -> (Vec<Pair>, MatchStats) {
    let tau = clamp_tau(tau);
    let mut stats = MatchStats::default();

    // Fold identical vectors into their first occurrence: hash every vector (in
    // parallel), sort the indices by hash, and compare vectors only within a run of equal
    // hashes. `first[i]` is the first document with a vector equal to `i`'s.
    let hashes: Vec<u64> = docs.par_iter().map(vector_hash).collect();
    let mut by_hash: Vec<u32> = (0..docs.len() as u32)
        .filter(|&i| !docs[i as usize].is_empty())
        .collect();
    stats.docs = by_hash.len();
    by_hash.par_sort_unstable_by_key(|&i| (hashes[i as usize], i));
    let mut first: Vec<u32> = (0..docs.len() as u32).collect();
    for run in by_hash.chunk_by(|&x, &y| hashes[x as usize] == hashes[y as usize]) {
        for (k, &i) in run.iter().enumerate() {
            // Indices in a run ascend, so an equal vector earlier in it is an earlier one.
            if let Some(&e) = run[..k]
                .iter()
                .find(|&&e| first[e as usize] == e && docs[e as usize] == docs[i as usize])
            {
                first[i as usize] = e;
            }
        }
    }
    let groups = Groups::new(docs, &first);
    stats.exact_duplicate_docs = stats.docs - groups.len();
    let reps: Vec<&SigVector> = (0..groups.len())
        .map(|g| &docs[groups.members(g)[0] as usize])
        .collect();

    let (rep_pairs, work) = match_distinct(&reps, tau, mode);
    stats.add(&work);
    stats.partitions = work.partitions;

    let mut pairs = Vec::new();
    for g in 0..groups.len() {
        let m = groups.members(g);
        for (x, &a) in m.iter().enumerate() {
            for &b in &m[x + 1..] {
                pairs.push((a, b, 1.0));
            }
        }
    }
    for (r, s, sim) in rep_pairs {
        for &a in groups.members(r as usize) {
            for &b in groups.members(s as usize) {
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
            // seen[b] == a + 1 marks B as already met while probing for A (positions).
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
    /// The entries of a posting list that precede `A` in descending `(length, id)`
    /// order: the positions after `A`'s, the list's tail.
    fn preceding<'l>(&self, list: &'l [u32]) -> &'l [u32] {
        let start = list.partition_point(|&p| p <= self.a);
        &list[start..]
    }

    /// Partition `k`'s slice of a posting list (lengths in `[p_k, p_{k+1})`).
    fn partition_slice<'l>(&self, list: &'l [u32], k: usize) -> &'l [u32] {
        let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
        let lens = &self.index.lens;
        let start = list.partition_point(|&p| lens[p as usize] >= hi);
        let end = list.partition_point(|&p| lens[p as usize] >= lo);
        &list[start..end]
    }

    /// Records the pair of positions `A`, `b` as a pair of document indices.
    fn emit(&self, b: u32, sim: f64, pairs: &mut Vec<Pair>) {
        let (x, y) = (
            self.index.order[self.a as usize],
            self.index.order[b as usize],
        );
        pairs.push((x.min(y), x.max(y), sim));
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
        for (from, &(s, f)) in self.index.vector(self.a).iter().enumerate() {
            let list = self.preceding(self.index.list(s));
            for k in (lowest..=own).rev() {
                for &b in self.partition_slice(list, k) {
                    let lb = self.index.lens[b as usize];
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
        for &(s, _) in self.index.vector(self.a) {
            for &b in self.preceding(self.index.list(s)) {
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
