//! Cooper, Coden & Brown (HICSS 2002) near-duplicate test on salient terms: the size-ratio
//! filter, the term-delta test, the sum-of-hashes signature for identical term lists, and a
//! detector that finds candidate pairs through an inverted index and explains each pair
//! ("3 of 47 terms differ").
//!
//! Salient terms (our choice; the paper used its Textract term extractor, which we do not
//! have): the document's unique I-Match terms (same preprocessing) whose normalized idf is
//! at least `min_idf` (default 0.2, the floor of the I-Match window). Very common terms are
//! dropped because they carry no content and would only dilute the delta; rare terms,
//! including those occurring in a single document, are kept because they are exactly the
//! inserted or changed material the delta must count. We keep all of them (no top-N cut),
//! since a top-N cut would make two long documents that differ only past the cut look
//! identical.
//!
//! Delta: the number of terms in one list and not the other, counted both ways
//! (|A \ B| + |B \ A|), compared with the smaller list's size. Tolerances are integer
//! percentages so boundary cases are exact.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::lexicon::{normalized_idf, DocFreqs};

/// Parameters of Cooper's test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CooperParams {
    /// Sizes are "similar" when `larger ≤ smaller · (1 + pct/100)` (inclusive).
    pub size_tolerance_pct: u32,
    /// Near-duplicates when `delta < smaller · pct/100` (strict: "fewer than").
    pub delta_pct: u32,
    /// Salient terms have normalized idf at least this (drops near-ubiquitous words).
    pub min_idf: f64,
}

impl Default for CooperParams {
    /// The paper's 10% size and 10% delta.
    fn default() -> Self {
        CooperParams {
            size_tolerance_pct: 10,
            delta_pct: 10,
            min_idf: 0.2,
        }
    }
}

impl CooperParams {
    /// A one-line description to store with a run.
    pub fn describe(&self) -> String {
        format!(
            "cooper v1 size={}% delta={}% min_idf={} sum=fnv1a64",
            self.size_tolerance_pct, self.delta_pct, self.min_idf
        )
    }

    /// The paper's looser setting for "one document contains inserted material": 50% / 50%.
    pub fn inserted_material() -> Self {
        CooperParams {
            size_tolerance_pct: 50,
            delta_pct: 50,
            ..Self::default()
        }
    }

    /// Whether two term-list sizes are within the size tolerance.
    pub fn sizes_compatible(&self, a: usize, b: usize) -> bool {
        let (small, large) = (a.min(b) as u128, a.max(b) as u128);
        large * 100 <= small * (100 + u128::from(self.size_tolerance_pct))
    }

    /// Whether `delta` differing terms are few enough for a smaller list of `smaller` terms.
    /// Two empty lists are never near-duplicates (0 < 0 is false).
    pub fn delta_ok(&self, delta: usize, smaller: usize) -> bool {
        (delta as u128) * 100 < (smaller as u128) * u128::from(self.delta_pct)
    }
}

/// Salient terms of a document: its unique terms with normalized idf ≥ `min_idf` in `dfs`.
/// Terms the collection never saw (df 0, e.g. with a foreign `dfs`) are kept, as rare.
/// With fewer than two documents idf is undefined and every term is kept.
pub fn salient_terms(
    unique: &BTreeSet<String>,
    dfs: &DocFreqs,
    params: &CooperParams,
) -> BTreeSet<String> {
    unique
        .iter()
        .filter(|t| is_salient(dfs.get(t), dfs.n_docs, params))
        .cloned()
        .collect()
}

/// Whether a term of document frequency `df` among `n_docs` documents is salient (the rule
/// of [`salient_terms`]).
pub fn is_salient(df: u32, n_docs: u64, params: &CooperParams) -> bool {
    df == 0 || normalized_idf(n_docs, df).is_none_or(|idf| idf >= params.min_idf)
}

/// FNV-1a 64 of a term. Seed: the standard FNV offset basis 0xcbf29ce484222325 and prime
/// 0x100000001b3; fixed forever so stored signatures stay comparable.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Cooper's signature for identical term lists: the wrapping sum of the terms' FNV-1a 64
/// hashes. Order-independent; equal lists give equal sums. Store as i64 (`as i64`).
pub fn sum_signature<'a>(terms: impl IntoIterator<Item = &'a String>) -> u64 {
    terms
        .into_iter()
        .fold(0u64, |acc, t| acc.wrapping_add(fnv1a64(t.as_bytes())))
}

/// Result of comparing two term lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delta {
    /// |A \ B| + |B \ A|.
    pub differing: usize,
    /// Size of the smaller list.
    pub smaller: usize,
}

/// Counts the terms that differ between two lists.
pub fn term_delta(a: &BTreeSet<String>, b: &BTreeSet<String>) -> Delta {
    let shared = a.intersection(b).count();
    Delta {
        differing: a.len() + b.len() - 2 * shared,
        smaller: a.len().min(b.len()),
    }
}

/// The full test: sizes compatible and delta small enough.
pub fn near_duplicates(a: &BTreeSet<String>, b: &BTreeSet<String>, params: &CooperParams) -> bool {
    let d = term_delta(a, b);
    params.sizes_compatible(a.len(), b.len()) && params.delta_ok(d.differing, d.smaller)
}

/// A pair the detector reports, documents as indices into its input, `a < b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CooperPair {
    pub a: u32,
    pub b: u32,
    pub differing: usize,
    pub smaller: usize,
    /// `1 − differing / smaller`.
    pub score: f64,
}

impl CooperPair {
    /// "3 of 47 terms differ".
    pub fn explanation(&self) -> String {
        format!("{} of {} terms differ", self.differing, self.smaller)
    }
}

/// The terms of `a` missing from `b` and of `b` missing from `a`, sorted: the "why" of a
/// delta, for display.
pub fn differing_terms(a: &BTreeSet<String>, b: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    (
        a.difference(b).cloned().collect(),
        b.difference(a).cloned().collect(),
    )
}

/// Length of the prefix filter of a list of `len` terms: one more than the largest number
/// of its terms that may be missing from a partner that passes the delta test.
///
/// If A and B pass, `delta < smaller · pct/100 ≤ |A| · pct/100`, so at most
/// `t = ⌊(pct·|A| − 1)/100⌋` terms of A are missing from B (and likewise for B). Ordering
/// every list by one global term order, two lists that share `α` terms share a term within
/// their first `|A| − α + 1` and `|B| − α + 1` terms (the prefix-filtering lemma of
/// Chaudhuri et al., 2006); since `|A| − α = |A \ B| ≤ t_A`, prefixes of `t + 1` terms
/// suffice.
fn prefix_len(len: usize, delta_pct: u32) -> usize {
    let scaled = len as u128 * u128::from(delta_pct);
    if scaled == 0 {
        return 0;
    }
    let missing = ((scaled - 1) / 100) as usize;
    (missing + 1).min(len)
}

/// All pairs of `docs` (salient-term lists) that pass the test, sorted by `(a, b)`.
///
/// Candidates come from prefix filtering: every list is ordered rarest term first (by
/// document frequency within `docs`), only its first few terms are indexed (see
/// [`prefix_len`]: 10% of the list with the default parameters), and a pair is examined
/// only if the two prefixes share a term and the sizes are compatible. This is exact (the
/// property test compares it with all pairs) and keeps posting lists short because the
/// indexed terms are the rare ones.
pub fn detect(docs: &[BTreeSet<String>], params: &CooperParams) -> Vec<CooperPair> {
    let mut df: FxHashMap<&str, u32> = FxHashMap::default();
    for d in docs {
        for t in d {
            *df.entry(t.as_str()).or_insert(0) += 1;
        }
    }
    let mut order: Vec<(u32, &str)> = df.iter().map(|(t, n)| (*n, *t)).collect();
    order.sort_unstable();
    let rank: FxHashMap<&str, u32> = order
        .iter()
        .enumerate()
        .map(|(i, (_, t))| (*t, i as u32))
        .collect();
    let ranked: Vec<Vec<u32>> = docs
        .iter()
        .map(|d| {
            // Every term of every list was ranked above, so the lookup always succeeds.
            let mut v: Vec<u32> = d
                .iter()
                .filter_map(|t| rank.get(t.as_str()).copied())
                .collect();
            v.sort_unstable();
            v
        })
        .collect();

    let mut index: Vec<Vec<u32>> = vec![Vec::new(); order.len()];
    let mut last_probe = vec![u32::MAX; docs.len()];
    let mut candidates: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    for (b, terms_b) in ranked.iter().enumerate() {
        let prefix = &terms_b[..prefix_len(terms_b.len(), params.delta_pct)];
        candidates.clear();
        for &t in prefix {
            for &a in &index[t as usize] {
                if last_probe[a as usize] != b as u32 {
                    last_probe[a as usize] = b as u32;
                    candidates.push(a);
                }
            }
        }
        for &t in prefix {
            index[t as usize].push(b as u32);
        }
        for &a in &candidates {
            let terms_a = &ranked[a as usize];
            if !params.sizes_compatible(terms_a.len(), terms_b.len()) {
                continue;
            }
            let common = sorted_intersection_len(terms_a, terms_b);
            let differing = terms_a.len() + terms_b.len() - 2 * common;
            let smaller = terms_a.len().min(terms_b.len());
            if params.delta_ok(differing, smaller) {
                out.push(CooperPair {
                    a,
                    b: b as u32,
                    differing,
                    smaller,
                    score: 1.0 - differing as f64 / smaller as f64,
                });
            }
        }
    }
    out.sort_unstable_by_key(|p| (p.a, p.b));
    out
}

fn sorted_intersection_len(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terms(n: std::ops::Range<usize>) -> BTreeSet<String> {
        n.map(|i| format!("t{i:04}")).collect()
    }

    #[test]
    fn parameters_describe_themselves() {
        assert_eq!(
            CooperParams::default().describe(),
            "cooper v1 size=10% delta=10% min_idf=0.2 sum=fnv1a64"
        );
    }

    #[test]
    fn size_boundary_is_inclusive() {
        let p = CooperParams::default();
        assert!(p.sizes_compatible(100, 110));
        assert!(!p.sizes_compatible(100, 111));
        assert!(p.sizes_compatible(110, 100));
        assert!(p.sizes_compatible(0, 0));
        assert!(!p.sizes_compatible(0, 1));
    }

    #[test]
    fn delta_boundary_is_strict() {
        let p = CooperParams::default();
        // Smaller list of 50: fewer than 5 differing terms.
        assert!(p.delta_ok(4, 50));
        assert!(!p.delta_ok(5, 50));
        // 47 terms: 4.7 → up to 4.
        assert!(p.delta_ok(4, 47));
        assert!(!p.delta_ok(5, 47));
        assert!(!p.delta_ok(0, 0), "empty lists never match");
        assert!(p.delta_ok(0, 1));
    }

    #[test]
    fn delta_counts_both_directions() {
        let a = terms(0..47);
        let mut b = terms(0..46);
        b.insert("zzzz".to_string());
        b.insert("yyyy".to_string());
        let d = term_delta(&a, &b);
        assert_eq!(
            d,
            Delta {
                differing: 3,
                smaller: 47
            }
        );
        assert!(near_duplicates(&a, &b, &CooperParams::default()));
    }

    #[test]
    fn inserted_material_preset_accepts_what_the_default_rejects() {
        let a = terms(0..40);
        let b = terms(0..58); // 18 inserted terms: size +45%, delta 18 < 20
        assert!(!near_duplicates(&a, &b, &CooperParams::default()));
        assert!(near_duplicates(&a, &b, &CooperParams::inserted_material()));
        let c = terms(0..61); // +52% size
        assert!(!near_duplicates(&a, &c, &CooperParams::inserted_material()));
    }

    #[test]
    fn sum_signature_is_order_independent_and_fixed() {
        let a = terms(0..10);
        let v: Vec<String> = a.iter().rev().cloned().collect();
        assert_eq!(sum_signature(&a), sum_signature(&v));
        assert_ne!(sum_signature(&a), sum_signature(&terms(0..9)));
        // FNV-1a 64 reference values.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn salient_terms_drop_ubiquitous_words_and_keep_rare_ones() {
        let mut dfs = DocFreqs {
            n_docs: 100,
            ..Default::default()
        };
        dfs.df.insert("everywhere".into(), 90);
        dfs.df.insert("sometimes".into(), 10);
        dfs.df.insert("once".into(), 1);
        let u: BTreeSet<String> = ["everywhere", "sometimes", "once", "unseen"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let s = salient_terms(&u, &dfs, &CooperParams::default());
        let got: Vec<&str> = s.iter().map(String::as_str).collect();
        assert_eq!(got, ["once", "sometimes", "unseen"]);
    }

    #[test]
    fn prefix_length_allows_exactly_the_missing_terms_the_test_allows() {
        // 47 terms at 10%: up to 4 missing (4 < 4.7), so a 5-term prefix.
        assert_eq!(prefix_len(47, 10), 5);
        // 50 terms at 10%: up to 4 missing (5 < 5 is false), so 5.
        assert_eq!(prefix_len(50, 10), 5);
        assert_eq!(prefix_len(51, 10), 6);
        assert_eq!(prefix_len(0, 10), 0);
        assert_eq!(prefix_len(3, 10), 1);
        assert_eq!(prefix_len(4, 50), 2);
    }

    #[test]
    fn differing_terms_lists_both_sides() {
        let a = terms(0..4);
        let b = terms(2..5);
        let (only_a, only_b) = differing_terms(&a, &b);
        assert_eq!(only_a, ["t0000", "t0001"]);
        assert_eq!(only_b, ["t0004"]);
    }

    #[test]
    fn detector_reports_pairs_with_explanations() {
        let a = terms(0..47);
        let mut b = terms(1..47);
        b.insert("xtra".into());
        let c = terms(100..147);
        let pairs = detect(&[a, c, b], &CooperParams::default());
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].a, pairs[0].b), (0, 2));
        assert_eq!(pairs[0].explanation(), "2 of 47 terms differ");
        assert!((pairs[0].score - (1.0 - 2.0 / 47.0)).abs() < 1e-12);
    }

    fn brute_force(docs: &[BTreeSet<String>], p: &CooperParams) -> Vec<(u32, u32, usize)> {
        let mut out = Vec::new();
        for i in 0..docs.len() {
            for j in i + 1..docs.len() {
                if near_duplicates(&docs[i], &docs[j], p) {
                    out.push((i as u32, j as u32, term_delta(&docs[i], &docs[j]).differing));
                }
            }
        }
        out
    }

    proptest! {
        /// Documents are small edits of a few base lists, so many pairs sit near the
        /// size and delta boundaries.
        #[test]
        fn detector_equals_brute_force(
            bases in proptest::collection::vec(proptest::collection::btree_set(0u16..60, 5..40), 1..4),
            edits in proptest::collection::vec(
                (0usize..4, proptest::collection::btree_set(0u16..80, 0..5),
                 proptest::collection::btree_set(0u16..60, 0..5)), 0..18),
            loose in any::<bool>(),
        ) {
            let docs: Vec<BTreeSet<String>> = edits
                .iter()
                .map(|(base, add, remove)| {
                    let base = &bases[base % bases.len()];
                    base.iter()
                        .filter(|t| !remove.contains(t))
                        .chain(add.iter())
                        .map(|t| format!("w{t}"))
                        .collect()
                })
                .collect();
            let p = if loose { CooperParams::inserted_material() } else { CooperParams::default() };
            let fast: Vec<(u32, u32, usize)> =
                detect(&docs, &p).iter().map(|x| (x.a, x.b, x.differing)).collect();
            prop_assert_eq!(fast, brute_force(&docs, &p));
        }
    }
}
