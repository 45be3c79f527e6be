//! Signature buckets: documents grouped by equal signatures in any coordinate of an
//! extended (multi-coordinate) signature, the pairs a signature method reports, and the
//! clusters (connected components over coordinate collisions).
//!
//! Pairs of a signature method are all pairs of documents sharing a signature in at least
//! one coordinate; each pair's score is the fraction of coordinates that agree (present in
//! both and equal). A bucket of m documents holds m(m−1)/2 pairs, so a huge bucket (one
//! template shared by thousands of pages) is dangerous: [`BucketOptions::max_pair_bucket`]
//! caps the size of a bucket whose pairs are listed. Larger buckets still join their
//! documents into one cluster but list no pairs; they are reported in
//! [`BucketResult::oversized`] and their clusters are marked incomplete. For unbounded
//! output without memory, [`visit_pairs`] streams every pair once (no pair map is kept:
//! a pair is emitted only at the first coordinate where it collides in a listable bucket).
//!
//! Output is deterministic: pairs sorted by `(a, b)`, clusters by their first member.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::hash::Hash;

use super::union_find::UnionFind;

/// Bucket handling options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketOptions {
    /// Buckets with more documents than this list no pairs (they still cluster).
    /// Default 2000 documents, i.e. at most about 2 million pairs from one bucket.
    pub max_pair_bucket: usize,
}

impl Default for BucketOptions {
    fn default() -> Self {
        BucketOptions {
            max_pair_bucket: 2000,
        }
    }
}

/// A pair of documents (indices into the input, `a < b`) and how many coordinates agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct BucketPair {
    pub a: u32,
    pub b: u32,
    /// Coordinates present in both and equal.
    pub agreeing: u32,
}

impl BucketPair {
    /// `agreeing / coordinates`.
    pub fn score(&self, coordinates: usize) -> f64 {
        if coordinates == 0 {
            return 0.0;
        }
        f64::from(self.agreeing) / coordinates as f64
    }
}

/// A connected component of documents over coordinate collisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketCluster {
    /// Member indices, ascending.
    pub members: Vec<u32>,
    /// Lowest and highest number of agreeing coordinates over the listed pairs inside the
    /// cluster (`None` when no pair was listed, i.e. all its buckets were oversized).
    pub min_agreeing: Option<u32>,
    pub max_agreeing: Option<u32>,
    /// False when an oversized bucket touched the cluster, so some pairs were not listed.
    pub complete: bool,
}

/// A bucket too large to list pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OversizedBucket {
    pub coordinate: usize,
    /// Its first (smallest) member, to identify it.
    pub first: u32,
    pub size: usize,
}

/// Everything the bucket stage produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketResult {
    /// Number of coordinates of the signatures (K + 1 for bagged I-Match).
    pub coordinates: usize,
    pub pairs: Vec<BucketPair>,
    pub clusters: Vec<BucketCluster>,
    pub oversized: Vec<OversizedBucket>,
}

/// Buckets of one coordinate: groups of 2+ documents with the same present signature, each
/// ascending, the groups ordered by first member; flat: the members of every bucket one after
/// another, and each bucket's size. One hash look-up per document numbers the signatures in
/// order of first appearance (so by first member), then a counting sort places the members:
/// no list per signature (a `Vec` per distinct signature was most of the memory of I-Match's
/// matching at a million pages; issue 16).
fn coordinate_buckets<S: Hash + Eq>(sigs: &[Vec<Option<S>>], coordinate: usize) -> CoordBuckets {
    let mut number: FxHashMap<&S, u32> = FxHashMap::default();
    let mut count: Vec<u32> = Vec::new();
    let mut present: Vec<(u32, u32)> = Vec::new();
    for (d, doc) in sigs.iter().enumerate() {
        if let Some(Some(s)) = doc.get(coordinate) {
            let next = count.len() as u32;
            let g = *number.entry(s).or_insert(next);
            if g == next {
                count.push(0);
            }
            count[g as usize] += 1;
            present.push((d as u32, g));
        }
    }
    drop(number);
    // Signatures of one document are alone: no bucket. The others numbered in order.
    let mut slot = vec![u32::MAX; count.len()];
    let mut sizes: Vec<u32> = Vec::new();
    for (g, &n) in count.iter().enumerate() {
        if n > 1 {
            slot[g] = sizes.len() as u32;
            sizes.push(n);
        }
    }
    drop(count);
    let mut next: Vec<usize> = Vec::with_capacity(sizes.len());
    let mut total = 0usize;
    for &n in &sizes {
        next.push(total);
        total += n as usize;
    }
    let mut members = vec![0u32; total];
    for (d, g) in present {
        let k = slot[g as usize];
        if k != u32::MAX {
            members[next[k as usize]] = d;
            next[k as usize] += 1;
        }
    }
    CoordBuckets { members, sizes }
}

/// The buckets of one coordinate, flat (see [`coordinate_buckets`]).
struct CoordBuckets {
    members: Vec<u32>,
    sizes: Vec<u32>,
}

impl CoordBuckets {
    fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let mut at = 0usize;
        self.sizes.iter().map(move |&n| {
            let b = &self.members[at..at + n as usize];
            at += n as usize;
            b
        })
    }
}

/// Each document's bucket size per coordinate (1 when alone), flat.
struct BucketSizes {
    size: Vec<u32>,
    coordinates: usize,
}

impl BucketSizes {
    /// Document `d`'s bucket sizes, by coordinate.
    fn of(&self, d: u32) -> &[u32] {
        let at = d as usize * self.coordinates;
        &self.size[at..at + self.coordinates]
    }
}

/// Every coordinate's buckets (made in parallel, one coordinate a task) and each document's
/// bucket size per coordinate.
fn all_buckets<S: Hash + Eq + Sync>(
    sigs: &[Vec<Option<S>>],
    coordinates: usize,
) -> (Vec<CoordBuckets>, BucketSizes) {
    let all: Vec<CoordBuckets> = (0..coordinates)
        .into_par_iter()
        .map(|c| coordinate_buckets(sigs, c))
        .collect();
    let mut size = vec![1u32; sigs.len() * coordinates];
    for (c, buckets) in all.iter().enumerate() {
        for bucket in buckets.iter() {
            for &d in bucket {
                size[d as usize * coordinates + c] = bucket.len() as u32;
            }
        }
    }
    (all, BucketSizes { size, coordinates })
}

fn coordinates_of<S>(sigs: &[Vec<Option<S>>]) -> usize {
    sigs.iter().map(Vec::len).max().unwrap_or(0)
}

fn agreeing<S: Eq>(a: &[Option<S>], b: &[Option<S>]) -> u32 {
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.is_some() && x == y)
        .count() as u32
}

/// The first coordinate where `a` and `b` collide in a bucket small enough to list.
fn first_listable_collision<S: Eq>(
    a: &[Option<S>],
    b: &[Option<S>],
    size_a: &[u32],
    max_bucket: usize,
) -> Option<usize> {
    (0..a.len().min(b.len()))
        .find(|&c| a[c].is_some() && a[c] == b[c] && size_a[c] as usize <= max_bucket)
}

/// The pairs of coordinate `c`'s listable buckets that collide first there, in bucket
/// order; calls `oversized` for each bucket above the cap.
fn coordinate_pairs<S: Eq>(
    sigs: &[Vec<Option<S>>],
    c: usize,
    buckets: &CoordBuckets,
    sizes: &BucketSizes,
    max_bucket: usize,
    mut pair: impl FnMut(BucketPair),
    mut oversized: impl FnMut(OversizedBucket),
) {
    for bucket in buckets.iter() {
        if bucket.len() > max_bucket {
            oversized(OversizedBucket {
                coordinate: c,
                first: bucket[0],
                size: bucket.len(),
            });
            continue;
        }
        for (i, &a) in bucket.iter().enumerate() {
            let size_a = sizes.of(a);
            for &b in &bucket[i + 1..] {
                let (da, db) = (&sigs[a as usize], &sigs[b as usize]);
                if first_listable_collision(da, db, size_a, max_bucket) == Some(c) {
                    pair(BucketPair {
                        a,
                        b,
                        agreeing: agreeing(da, db),
                    });
                }
            }
        }
    }
}

/// Streams every pair of documents sharing a signature in some coordinate exactly once,
/// in a deterministic order (by coordinate, then bucket, then position). A pair is emitted
/// at the first coordinate where it collides in a bucket of at most `max_bucket`
/// documents; pairs that collide only in larger buckets are not emitted. Calls `oversized`
/// for each bucket above the cap.
pub fn visit_pairs<S: Hash + Eq + Sync>(
    sigs: &[Vec<Option<S>>],
    max_bucket: usize,
    mut pair: impl FnMut(BucketPair),
    mut oversized: impl FnMut(OversizedBucket),
) {
    let (all, sizes) = all_buckets(sigs, coordinates_of(sigs));
    for (c, buckets) in all.iter().enumerate() {
        coordinate_pairs(
            sigs,
            c,
            buckets,
            &sizes,
            max_bucket,
            &mut pair,
            &mut oversized,
        );
    }
}

/// Pairs and clusters of documents given their extended signatures (`sigs[d][c]` is the
/// signature of document `d` in coordinate `c`, `None` when it has none; documents without
/// any signature are never clustered). The coordinates' buckets are made once and in
/// parallel, and each coordinate's pairs are listed in parallel; the result is the same as
/// a sequential visit's (the pairs are sorted, each listed once).
pub fn cluster_signatures<S: Hash + Eq + Sync>(
    sigs: &[Vec<Option<S>>],
    opts: &BucketOptions,
) -> BucketResult {
    let coordinates = coordinates_of(sigs);
    let (all, sizes) = all_buckets(sigs, coordinates);
    let mut uf = UnionFind::new(sigs.len());
    for buckets in &all {
        for bucket in buckets.iter() {
            for &d in &bucket[1..] {
                uf.union(bucket[0], d);
            }
        }
    }
    let parts: Vec<(Vec<BucketPair>, Vec<OversizedBucket>)> = all
        .par_iter()
        .enumerate()
        .map(|(c, buckets)| {
            let (mut pairs, mut oversized) = (Vec::new(), Vec::new());
            coordinate_pairs(
                sigs,
                c,
                buckets,
                &sizes,
                opts.max_pair_bucket,
                |p| pairs.push(p),
                |o| oversized.push(o),
            );
            (pairs, oversized)
        })
        .collect();
    drop(all);
    drop(sizes);
    // Each part freed as soon as it is moved: the pairs are held about once, not twice.
    let mut pairs = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let mut oversized = Vec::new();
    for (p, o) in parts {
        pairs.extend(p);
        oversized.extend(o);
    }
    // Every pair is listed once, so the order is total: as a sequential sort's.
    pairs.par_sort_unstable();

    assemble(coordinates, &mut uf, pairs, oversized)
}

/// The result from the union of every bucket's documents and the sorted pairs: clusters are
/// the union's components of more than one document, with the agreement range of their
/// listed pairs, incomplete where an oversized bucket listed none. Shared with the tests'
/// sequential reference, which differs only in how it finds the pairs.
fn assemble(
    coordinates: usize,
    uf: &mut UnionFind,
    pairs: Vec<BucketPair>,
    oversized: Vec<OversizedBucket>,
) -> BucketResult {
    let mut by_root: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for d in 0..uf.len() as u32 {
        by_root.entry(uf.find(d)).or_default().push(d);
    }
    let mut clusters: Vec<BucketCluster> = by_root
        .into_values()
        .filter(|m| m.len() > 1)
        .map(|members| BucketCluster {
            members,
            min_agreeing: None,
            max_agreeing: None,
            complete: true,
        })
        .collect();
    clusters.sort_unstable_by_key(|c| c.members[0]);
    // Members are ascending and the union keeps the smallest index as root, so a
    // document's root is its cluster's first member.
    let slot: FxHashMap<u32, usize> = clusters
        .iter()
        .enumerate()
        .map(|(i, c)| (c.members[0], i))
        .collect();
    for p in &pairs {
        if let Some(&i) = slot.get(&uf.find(p.a)) {
            let c = &mut clusters[i];
            c.min_agreeing = Some(c.min_agreeing.map_or(p.agreeing, |m| m.min(p.agreeing)));
            c.max_agreeing = Some(c.max_agreeing.map_or(p.agreeing, |m| m.max(p.agreeing)));
        }
    }
    for o in &oversized {
        if let Some(&i) = slot.get(&uf.find(o.first)) {
            clusters[i].complete = false;
        }
    }
    BucketResult {
        coordinates,
        pairs,
        clusters,
        oversized,
    }
}

/// The pairs of documents on two different sites that share a signature in a coordinate of
/// `sigs` (`sigs[d][c]`, 0 = document `d` has no signature in coordinate `c`), with how many
/// coordinates they share, sorted by `(a, b)`, `a < b`. A bucket (one coordinate, one
/// signature) of more than `max_pair_bucket` documents lists no pairs, as in
/// [`cluster_signatures`]. Pairs within one site are never listed, and a bucket whose
/// documents are all on one site is skipped without a pair visited: I-Match's cross-site
/// bags (`--across-bags`) count a collision only between two sites, so the template pages of
/// one site that collide in a small bag cost nothing here.
///
/// Memory: one coordinate's occurrences (20 bytes a signed document) per thread, and the
/// cross-site pairs; nothing per document beyond `sigs`.
pub fn cross_site_pairs(
    sigs: &[Vec<u64>],
    sites: &[u64],
    max_pair_bucket: usize,
) -> Vec<BucketPair> {
    let coordinates = sigs.iter().map(Vec::len).max().unwrap_or(0);
    let site = |d: usize| sites.get(d).copied().unwrap_or(0);
    let per: Vec<Vec<(u32, u32)>> = (0..coordinates)
        .into_par_iter()
        .map(|c| {
            let mut occ: Vec<(u64, u64, u32)> = sigs
                .iter()
                .enumerate()
                .filter_map(|(d, s)| {
                    let x = s.get(c).copied().unwrap_or(0);
                    (x != 0).then(|| (x, site(d), d as u32))
                })
                .collect();
            occ.sort_unstable();
            let mut out = Vec::new();
            for run in occ.chunk_by(|x, y| x.0 == y.0) {
                // Sorted by site within a signature: one site when the ends agree.
                let one_site = run.first().map(|x| x.1) == run.last().map(|x| x.1);
                if run.len() < 2 || run.len() > max_pair_bucket || one_site {
                    continue;
                }
                for (i, x) in run.iter().enumerate() {
                    for y in &run[i + 1..] {
                        if x.1 != y.1 {
                            out.push((x.2.min(y.2), x.2.max(y.2)));
                        }
                    }
                }
            }
            out
        })
        .collect();
    let mut all: Vec<(u32, u32)> = Vec::with_capacity(per.iter().map(Vec::len).sum());
    for p in per {
        all.extend(p);
    }
    all.par_sort_unstable();
    all.chunk_by(|x, y| x == y)
        .map(|run| BucketPair {
            a: run[0].0,
            b: run[0].1,
            agreeing: run.len() as u32,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The sequential implementation before issue 16's parallel one (a list per signature,
    /// every coordinate's buckets made twice), kept as the reference the parallel one must
    /// equal.
    mod reference {
        use super::super::*;

        /// Buckets of one coordinate: groups of 2+ documents with the same present signature, each
        /// ascending, the groups ordered by first member.
        fn coordinate_buckets<S: Hash + Eq>(
            sigs: &[Vec<Option<S>>],
            coordinate: usize,
        ) -> Vec<Vec<u32>> {
            let mut map: FxHashMap<&S, Vec<u32>> = FxHashMap::default();
            for (d, doc) in sigs.iter().enumerate() {
                if let Some(Some(s)) = doc.get(coordinate) {
                    map.entry(s).or_default().push(d as u32);
                }
            }
            let mut buckets: Vec<Vec<u32>> = map.into_values().filter(|b| b.len() > 1).collect();
            buckets.sort_unstable_by_key(|b| b[0]);
            buckets
        }

        /// Streams every pair of documents sharing a signature in some coordinate exactly once,
        /// in a deterministic order (by coordinate, then bucket, then position). A pair is emitted
        /// at the first coordinate where it collides in a bucket of at most `max_bucket`
        /// documents; pairs that collide only in larger buckets are not emitted. Calls `oversized`
        /// for each bucket above the cap.
        pub fn visit_pairs<S: Hash + Eq>(
            sigs: &[Vec<Option<S>>],
            max_bucket: usize,
            mut pair: impl FnMut(BucketPair),
            mut oversized: impl FnMut(OversizedBucket),
        ) {
            let coordinates = coordinates_of(sigs);
            let all: Vec<Vec<Vec<u32>>> = (0..coordinates)
                .map(|c| coordinate_buckets(sigs, c))
                .collect();
            // bucket_size[d][c]: size of document d's bucket in coordinate c (1 when alone).
            let mut bucket_size = vec![vec![1u32; coordinates]; sigs.len()];
            for (c, buckets) in all.iter().enumerate() {
                for bucket in buckets {
                    for &d in bucket {
                        bucket_size[d as usize][c] = bucket.len() as u32;
                    }
                }
            }
            for (c, buckets) in all.iter().enumerate() {
                for bucket in buckets {
                    if bucket.len() > max_bucket {
                        oversized(OversizedBucket {
                            coordinate: c,
                            first: bucket[0],
                            size: bucket.len(),
                        });
                        continue;
                    }
                    for (i, &a) in bucket.iter().enumerate() {
                        for &b in &bucket[i + 1..] {
                            let (da, db) = (&sigs[a as usize], &sigs[b as usize]);
                            let first = first_listable_collision(
                                da,
                                db,
                                &bucket_size[a as usize],
                                max_bucket,
                            );
                            if first == Some(c) {
                                pair(BucketPair {
                                    a,
                                    b,
                                    agreeing: agreeing(da, db),
                                });
                            }
                        }
                    }
                }
            }
        }

        /// Pairs and clusters of documents given their extended signatures (`sigs[d][c]` is the
        /// signature of document `d` in coordinate `c`, `None` when it has none; documents without
        /// any signature are never clustered).
        pub fn cluster_signatures<S: Hash + Eq>(
            sigs: &[Vec<Option<S>>],
            opts: &BucketOptions,
        ) -> BucketResult {
            let coordinates = coordinates_of(sigs);
            let mut uf = UnionFind::new(sigs.len());
            for c in 0..coordinates {
                for bucket in coordinate_buckets(sigs, c) {
                    for &d in &bucket[1..] {
                        uf.union(bucket[0], d);
                    }
                }
            }
            let mut pairs = Vec::new();
            let mut oversized = Vec::new();
            visit_pairs(
                sigs,
                opts.max_pair_bucket,
                |p| pairs.push(p),
                |o| oversized.push(o),
            );
            pairs.sort_unstable();

            super::super::assemble(coordinates, &mut uf, pairs, oversized)
        }
    }

    /// Every pair of documents on two sites, with the coordinates whose signature they share
    /// in a bucket of at most `cap` documents: what [`cross_site_pairs`] must list.
    fn cross_site_reference(sigs: &[Vec<u64>], sites: &[u64], cap: usize) -> Vec<BucketPair> {
        let at = |d: usize, c: usize| sigs[d].get(c).copied().unwrap_or(0);
        let k = sigs.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = Vec::new();
        for a in 0..sigs.len() {
            for b in a + 1..sigs.len() {
                if sites[a] == sites[b] {
                    continue;
                }
                let agreeing = (0..k)
                    .filter(|&c| {
                        let x = at(a, c);
                        x != 0
                            && x == at(b, c)
                            && (0..sigs.len()).filter(|&d| at(d, c) == x).count() <= cap
                    })
                    .count();
                if agreeing > 0 {
                    out.push(BucketPair {
                        a: a as u32,
                        b: b as u32,
                        agreeing: agreeing as u32,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn cross_site_pairs_skip_one_site_and_oversized_buckets() {
        // Coordinate 0: docs 0, 1 (site 7) and 2 (site 8) share 5; coordinate 1: docs 0 and 1
        // share 6 on one site; doc 3 shares nothing.
        let sigs = vec![vec![5, 6], vec![5, 6], vec![5, 0], vec![9, 0]];
        let sites = [7, 7, 8, 8];
        let pair = |a, b| BucketPair { a, b, agreeing: 1 };
        assert_eq!(
            cross_site_pairs(&sigs, &sites, 10),
            vec![pair(0, 2), pair(1, 2)]
        );
        // A bucket of three is over a cap of two: no pairs.
        assert!(cross_site_pairs(&sigs, &sites, 2).is_empty());
    }

    proptest! {
        /// The cross-site pairs equal the all-pairs reference, whatever the sites, caps and
        /// missing coordinates.
        #[test]
        fn cross_site_pairs_equal_the_all_pairs_reference(
            docs in proptest::collection::vec(
                (proptest::collection::vec(0u64..4, 0..5), 0u64..3), 0..40),
            cap in 1usize..8,
        ) {
            let (sigs, sites): (Vec<Vec<u64>>, Vec<u64>) = docs.into_iter().unzip();
            prop_assert_eq!(
                cross_site_pairs(&sigs, &sites, cap),
                cross_site_reference(&sigs, &sites, cap)
            );
        }

        /// The parallel pairs, clusters and oversized buckets equal the sequential
        /// reference's, with caps small enough to make oversized buckets, documents of
        /// fewer coordinates than others, and documents without signatures.
        #[test]
        fn the_parallel_buckets_equal_the_sequential_reference(
            docs in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(0u8..5), 0..6), 0..80),
            cap in 1usize..12,
        ) {
            let opts = BucketOptions { max_pair_bucket: cap };
            prop_assert_eq!(cluster_signatures(&docs, &opts), reference::cluster_signatures(&docs, &opts));
            let mut streamed = Vec::new();
            let mut streamed_over = Vec::new();
            visit_pairs(&docs, cap, |p| streamed.push(p), |o| streamed_over.push(o));
            let mut want = Vec::new();
            let mut want_over = Vec::new();
            reference::visit_pairs(&docs, cap, |p| want.push(p), |o| want_over.push(o));
            prop_assert_eq!(streamed, want);
            prop_assert_eq!(streamed_over, want_over);
        }
    }

    fn sig(v: &[Option<u8>]) -> Vec<Option<u8>> {
        v.to_vec()
    }

    #[test]
    fn pairs_count_agreeing_coordinates_and_clusters_are_transitive() {
        let docs = vec![
            sig(&[Some(1), Some(10), Some(20)]), // 0
            sig(&[Some(1), Some(10), Some(21)]), // 1: agrees with 0 on 2 coords
            sig(&[Some(2), Some(11), Some(21)]), // 2: agrees with 1 on coord 2
            sig(&[Some(3), None, None]),         // 3: alone
            sig(&[None, None, None]),            // 4: no signature
            sig(&[None, None, None]),            // 5: no signature, never with 4
        ];
        let r = cluster_signatures(&docs, &BucketOptions::default());
        assert_eq!(r.coordinates, 3);
        assert_eq!(
            r.pairs,
            vec![
                BucketPair {
                    a: 0,
                    b: 1,
                    agreeing: 2
                },
                BucketPair {
                    a: 1,
                    b: 2,
                    agreeing: 1
                },
            ]
        );
        assert!((r.pairs[0].score(3) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            r.clusters,
            vec![BucketCluster {
                members: vec![0, 1, 2],
                min_agreeing: Some(1),
                max_agreeing: Some(2),
                complete: true,
            }]
        );
        assert!(r.oversized.is_empty());
    }

    #[test]
    fn oversized_buckets_cluster_without_listing_pairs() {
        let mut docs: Vec<Vec<Option<u8>>> = (0..5).map(|_| sig(&[Some(7), None])).collect();
        // Documents 0 and 1 also collide in a small bucket of coordinate 1: still listed.
        docs[0][1] = Some(3);
        docs[1][1] = Some(3);
        docs.push(sig(&[Some(8), Some(1)]));
        docs.push(sig(&[Some(9), Some(1)]));
        let r = cluster_signatures(&docs, &BucketOptions { max_pair_bucket: 4 });
        assert_eq!(
            r.oversized,
            vec![OversizedBucket {
                coordinate: 0,
                first: 0,
                size: 5
            }]
        );
        assert_eq!(
            r.pairs,
            vec![
                BucketPair {
                    a: 0,
                    b: 1,
                    agreeing: 2
                },
                BucketPair {
                    a: 5,
                    b: 6,
                    agreeing: 1
                },
            ]
        );
        assert_eq!(r.clusters.len(), 2);
        assert_eq!(r.clusters[0].members, vec![0, 1, 2, 3, 4]);
        assert!(!r.clusters[0].complete);
        assert_eq!(r.clusters[0].min_agreeing, Some(2));
        assert!(r.clusters[1].complete);
    }

    fn brute_pairs(docs: &[Vec<Option<u8>>]) -> Vec<BucketPair> {
        let mut out = Vec::new();
        for i in 0..docs.len() {
            for j in i + 1..docs.len() {
                let n = agreeing(&docs[i], &docs[j]);
                if n > 0 {
                    out.push(BucketPair {
                        a: i as u32,
                        b: j as u32,
                        agreeing: n,
                    });
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn pairs_equal_brute_force_and_clusters_are_components(
            docs in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(0u8..4), 3), 0..20),
        ) {
            let r = cluster_signatures(&docs, &BucketOptions::default());
            let brute = brute_pairs(&docs);
            prop_assert_eq!(&r.pairs, &brute);
            // Every pair lies inside one cluster, and every cluster is connected by pairs.
            let mut uf = UnionFind::new(docs.len());
            for p in &brute { uf.union(p.a, p.b); }
            let mut members: Vec<u32> = r.clusters.iter().flat_map(|c| c.members.clone()).collect();
            members.sort_unstable();
            let in_pairs: std::collections::BTreeSet<u32> =
                brute.iter().flat_map(|p| [p.a, p.b]).collect();
            prop_assert_eq!(members, in_pairs.into_iter().collect::<Vec<_>>());
            for c in &r.clusters {
                let root = uf.find(c.members[0]);
                prop_assert!(c.members.iter().all(|&m| uf.find(m) == root));
            }
        }
    }
}
