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
        .filter(|t| {
            let df = dfs.get(t);
            df == 0 || normalized_idf(dfs.n_docs, df).is_none_or(|idf| idf >= params.min_idf)
        })
        .cloned()
        .collect()
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

/// All pairs of `docs` (salient-term lists) that pass the test, sorted by `(a, b)`.
///
/// Candidates come from an inverted index: a pair is examined only if the two lists share
/// at least one term (a pair sharing nothing has delta = |A| + |B| and can never pass) and
/// their sizes are compatible. The shared count is accumulated per candidate, so the delta
/// needs no set intersection. Cost is the sum over terms of (postings length)², bounded
/// because `min_idf` drops the near-ubiquitous terms.
pub fn detect(docs: &[BTreeSet<String>], params: &CooperParams) -> Vec<CooperPair> {
    let mut term_ids: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut postings: Vec<Vec<u32>> = Vec::new();
    let mut doc_terms: Vec<Vec<usize>> = Vec::with_capacity(docs.len());
    for (d, terms) in docs.iter().enumerate() {
        let mut ids = Vec::with_capacity(terms.len());
        for t in terms {
            let next = term_ids.len();
            let id = *term_ids.entry(t.as_str()).or_insert(next);
            if id == postings.len() {
                postings.push(Vec::new());
            }
            postings[id].push(d as u32);
            ids.push(id);
        }
        doc_terms.push(ids);
    }
    let mut shared = vec![0u32; docs.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    for (a, ids) in doc_terms.iter().enumerate() {
        let size_a = docs[a].len();
        for &id in ids {
            // Postings are in ascending document order; only later documents pair with `a`.
            let list = &postings[id];
            let from = list.partition_point(|&d| d as usize <= a);
            for &b in &list[from..] {
                if !params.sizes_compatible(size_a, docs[b as usize].len()) {
                    continue;
                }
                if shared[b as usize] == 0 {
                    touched.push(b);
                }
                shared[b as usize] += 1;
            }
        }
        touched.sort_unstable();
        for &b in &touched {
            let size_b = docs[b as usize].len();
            let common = shared[b as usize] as usize;
            shared[b as usize] = 0;
            let differing = size_a + size_b - 2 * common;
            let smaller = size_a.min(size_b);
            if params.delta_ok(differing, smaller) {
                out.push(CooperPair {
                    a: a as u32,
                    b,
                    differing,
                    smaller,
                    score: 1.0 - differing as f64 / smaller as f64,
                });
            }
        }
        touched.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terms(n: std::ops::Range<usize>) -> BTreeSet<String> {
        n.map(|i| format!("t{i:04}")).collect()
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
        #[test]
        fn detector_equals_brute_force(
            docs in proptest::collection::vec(
                proptest::collection::btree_set(0u8..24, 0..12), 0..14),
            loose in any::<bool>(),
        ) {
            let docs: Vec<BTreeSet<String>> = docs
                .into_iter()
                .map(|s| s.into_iter().map(|t| format!("w{t}")).collect())
                .collect();
            let p = if loose { CooperParams::inserted_material() } else { CooperParams::default() };
            let fast: Vec<(u32, u32, usize)> =
                detect(&docs, &p).iter().map(|x| (x.a, x.b, x.differing)).collect();
            prop_assert_eq!(fast, brute_force(&docs, &p));
        }
    }
}
