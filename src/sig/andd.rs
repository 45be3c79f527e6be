//! ANDD document vectors (Hajishirzi, Yih, Kolcz, SIGIR 2010, building on Yih's TWEAK,
//! EMNLP 2009): every distinct k-gram `t` of a document `d` gets the weight
//! `w(t,d) = max(0, λ·φ(t,d))`, a linear function of cheap features, and two documents are
//! compared by the cosine or the extended Jaccard of their weighted vectors. This module
//! owns the features, the weighted sparse vectors, the two similarities and the
//! random-hyperplane LSH signatures; training λ lives in `learn::andd`. Pure: no I/O.
//!
//! Features φ(t,d) (`FEATURES`, with the DF-average/median pair added for k > 1):
//!
//! | name | value | why this transform |
//! |---|---|---|
//! | `bias` | 1 | the intercept |
//! | `log_tf` | ln(1 + tf) | term frequency, damped: the tenth repeat matters less than the second |
//! | `idf` | ln(N/df)/ln(N) ∈ [0, 1] | document frequency as normalized idf: independent of collection size, so a model trained on one collection applies to another |
//! | `tf_idf` | ln(1 + tf) · idf | the classic weight; the training starts from it (λ₀ = this feature alone) |
//! | `position` | first occurrence / tokens ∈ [0, 1) | where the k-gram first appears |
//! | `doc_length` | ln(1 + tokens) / 10 | the document's length (a per-document shift of all weights) |
//! | `capitalized` | share of occurrences whose first word starts upper-case | names and headings |
//! | `in_title` | 1 if every word of the k-gram is a word of the title | |
//! | `in_url` | 1 if every word of the k-gram is a word of the URL | |
//! | `df_avg`, `df_median` (k > 1) | mean and median normalized idf of the k-gram's words | a rare 3-gram of common words vs. one of rare words |
//!
//! Weights are clamped at zero (a k-gram with λ·φ ≤ 0 is dropped from the vector): the
//! extended Jaccard is only a similarity for non-negative vectors, a zero weight reads as
//! "this k-gram does not matter" (learned stopwords), and sparse vectors keep the candidate
//! index small. The clamp is not differentiable at 0; training uses the gradient of the
//! active k-grams (exact everywhere else).
//!
//! k-grams are identified by a 64-bit FNV-1a hash of their words (lowercased, joined by a
//! space): stable across runs and machines, so LSH signatures and document frequencies
//! computed at different times agree.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::sig::imatch::SplitMix64;
use crate::text::tokenize;

/// Longest k-gram supported.
pub const MAX_K: usize = 5;

/// Names of the features of a k = 1 model, in the order of λ.
pub const FEATURES: [&str; 9] = [
    "bias",
    "log_tf",
    "idf",
    "tf_idf",
    "position",
    "doc_length",
    "capitalized",
    "in_title",
    "in_url",
];

/// The two features added for k > 1.
pub const KGRAM_FEATURES: [&str; 2] = ["df_avg", "df_median"];

/// Index of `tf_idf` in the feature vector (the starting point of training).
pub const TF_IDF: usize = 3;

/// Feature names of a model over k-grams.
pub fn feature_names(k: usize) -> Vec<&'static str> {
    let mut v = FEATURES.to_vec();
    if k > 1 {
        v.extend(KGRAM_FEATURES);
    }
    v
}

/// Number of features of a model over k-grams.
pub fn n_features(k: usize) -> usize {
    FEATURES.len() + if k > 1 { KGRAM_FEATURES.len() } else { 0 }
}

/// How two weighted vectors are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Similarity {
    /// x·y / (|x| |y|)
    Cosine,
    /// Extended Jaccard (Tanimoto): x·y / (|x|² + |y|² − x·y)
    Jaccard,
}

impl Similarity {
    pub fn name(self) -> &'static str {
        match self {
            Similarity::Cosine => "cosine",
            Similarity::Jaccard => "jaccard",
        }
    }

    /// The similarity from the dot product and the two squared norms (0 for an empty vector).
    pub fn from_parts(self, dot: f64, aa: f64, bb: f64) -> f64 {
        match self {
            Similarity::Cosine => {
                let d = (aa * bb).sqrt();
                if d > 0.0 {
                    dot / d
                } else {
                    0.0
                }
            }
            Similarity::Jaccard => {
                let d = aa + bb - dot;
                if d > 0.0 {
                    dot / d
                } else {
                    0.0
                }
            }
        }
    }

    /// The smallest cosine two vectors can have when this similarity is ≥ `t`: `t` for the
    /// cosine; for the extended Jaccard `2t/(1+t)`, since x·y ≥ t(|x|²+|y|²)/(1+t) and
    /// |x|²+|y|² ≥ 2|x||y|. Candidate generation on unit vectors uses it.
    pub fn min_cosine(self, t: f64) -> f64 {
        match self {
            Similarity::Cosine => t,
            Similarity::Jaccard => 2.0 * t / (1.0 + t),
        }
    }
}

/// The 64-bit FNV-1a hash of a k-gram's words joined by one space.
pub fn gram_hash<'a>(words: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut first = true;
    for w in words {
        if !first {
            h ^= u64::from(b' ');
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        first = false;
        for &b in w.as_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// What a document gives the features: its text, title and URL.
#[derive(Debug, Clone, Copy)]
pub struct DocInput<'a> {
    pub text: &'a str,
    pub title: &'a str,
    pub url: &'a str,
}

/// One distinct k-gram of a document with the counts its features come from.
#[derive(Debug, Clone, PartialEq)]
pub struct TermStat {
    pub hash: u64,
    pub tf: u32,
    /// Token index of the first occurrence.
    pub first: u32,
    /// Occurrences whose first word starts with an upper-case letter.
    pub capitalized: u32,
    pub in_title: bool,
    pub in_url: bool,
    /// Hashes of the k-gram's words (the first `k` entries).
    pub words: [u64; MAX_K],
}

/// A document's distinct k-grams (sorted by hash) and, for k > 1, its distinct words.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocTerms {
    pub k: usize,
    pub tokens: u32,
    pub terms: Vec<TermStat>,
    /// Distinct word hashes, sorted (empty for k = 1, where words are the k-grams).
    pub words: Vec<u64>,
}

/// The distinct k-grams of a document with their statistics. `k` is clamped to 1..=MAX_K.
pub fn doc_terms(doc: &DocInput<'_>, k: usize) -> DocTerms {
    let k = k.clamp(1, MAX_K);
    let tokens = tokenize(doc.text);
    let word_hashes: Vec<u64> = tokens
        .iter()
        .map(|t| gram_hash([t.norm.as_str()]))
        .collect();
    let title: HashSet<u64> = tokenize(doc.title)
        .iter()
        .map(|t| gram_hash([t.norm.as_str()]))
        .collect();
    let url: HashSet<u64> = tokenize(doc.url)
        .iter()
        .map(|t| gram_hash([t.norm.as_str()]))
        .collect();
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut terms: Vec<TermStat> = Vec::new();
    for i in 0..tokens.len().saturating_sub(k - 1) {
        let words = &tokens[i..i + k];
        let hash = if k == 1 {
            word_hashes[i]
        } else {
            gram_hash(words.iter().map(|t| t.norm.as_str()))
        };
        let cap = doc.text[words[0].start..]
            .chars()
            .next()
            .is_some_and(char::is_uppercase);
        let slot = *index.entry(hash).or_insert_with(|| {
            let mut wh = [0u64; MAX_K];
            wh[..k].copy_from_slice(&word_hashes[i..i + k]);
            terms.push(TermStat {
                hash,
                tf: 0,
                first: i as u32,
                capitalized: 0,
                in_title: wh[..k].iter().all(|w| title.contains(w)),
                in_url: wh[..k].iter().all(|w| url.contains(w)),
                words: wh,
            });
            terms.len() - 1
        });
        terms[slot].tf += 1;
        terms[slot].capitalized += u32::from(cap);
    }
    terms.sort_unstable_by_key(|t| t.hash);
    let mut words = Vec::new();
    if k > 1 {
        words = word_hashes;
        words.sort_unstable();
        words.dedup();
    }
    DocTerms {
        k,
        tokens: tokens.len() as u32,
        terms,
        words,
    }
}

/// Document frequencies of k-grams (and, for k > 1, of words) over a collection.
#[derive(Debug, Clone, Default)]
pub struct DocFreqs {
    pub n_docs: u64,
    pub grams: HashMap<u64, u32>,
    pub words: HashMap<u64, u32>,
}

impl DocFreqs {
    /// Counts one document.
    pub fn add(&mut self, d: &DocTerms) {
        self.n_docs += 1;
        for t in &d.terms {
            *self.grams.entry(t.hash).or_insert(0) += 1;
        }
        for w in &d.words {
            *self.words.entry(*w).or_insert(0) += 1;
        }
    }

    /// Adds another table's counts (for a parallel pass).
    pub fn merge(&mut self, other: DocFreqs) {
        self.n_docs += other.n_docs;
        for (h, c) in other.grams {
            *self.grams.entry(h).or_insert(0) += c;
        }
        for (h, c) in other.words {
            *self.words.entry(h).or_insert(0) += c;
        }
    }

    /// Normalized idf `ln(N/df)/ln(N)` in [0, 1]; an unseen term counts as df = 1, and a
    /// collection of fewer than two documents gives 1.
    pub fn idf(&self, df: u32) -> f64 {
        let n = self.n_docs as f64;
        if n < 2.0 {
            return 1.0;
        }
        let df = f64::from(df.max(1)).min(n);
        ((n / df).ln() / n.ln()).clamp(0.0, 1.0)
    }

    fn gram_idf(&self, h: u64) -> f64 {
        self.idf(self.grams.get(&h).copied().unwrap_or(0))
    }

    fn word_idf(&self, h: u64) -> f64 {
        self.idf(self.words.get(&h).copied().unwrap_or(0))
    }
}

/// The feature rows of a document's k-grams: row `i` (`nf` values) belongs to `hashes[i]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocFeatures {
    pub nf: usize,
    pub hashes: Vec<u64>,
    pub x: Vec<f64>,
}

impl DocFeatures {
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Feature row of the i-th k-gram.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.nf..(i + 1) * self.nf]
    }
}

/// The features φ(t, d) of every k-gram of `d` (see the module header).
pub fn features(d: &DocTerms, df: &DocFreqs) -> DocFeatures {
    let nf = n_features(d.k);
    let n_tok = f64::from(d.tokens.max(1));
    let len = (1.0 + f64::from(d.tokens)).ln() / 10.0;
    let mut x = Vec::with_capacity(d.terms.len() * nf);
    let mut idfs = [0.0f64; MAX_K];
    for t in &d.terms {
        let tf = (1.0 + f64::from(t.tf)).ln();
        let idf = df.gram_idf(t.hash);
        x.extend_from_slice(&[
            1.0,
            tf,
            idf,
            tf * idf,
            f64::from(t.first) / n_tok,
            len,
            f64::from(t.capitalized) / f64::from(t.tf.max(1)),
            f64::from(u8::from(t.in_title)),
            f64::from(u8::from(t.in_url)),
        ]);
        if d.k > 1 {
            for (i, w) in t.words[..d.k].iter().enumerate() {
                idfs[i] = df.word_idf(*w);
            }
            let ws = &mut idfs[..d.k];
            let avg = ws.iter().sum::<f64>() / d.k as f64;
            ws.sort_by(f64::total_cmp);
            let med = if d.k % 2 == 1 {
                ws[d.k / 2]
            } else {
                (ws[d.k / 2 - 1] + ws[d.k / 2]) / 2.0
            };
            x.extend_from_slice(&[avg, med]);
        }
    }
    DocFeatures {
        nf,
        hashes: d.terms.iter().map(|t| t.hash).collect(),
        x,
    }
}

/// `λ·φ` of one feature row.
pub fn linear(lambda: &[f64], row: &[f64]) -> f64 {
    lambda.iter().zip(row).map(|(l, x)| l * x).sum()
}

/// Documents whose text has fewer distinct k-grams than this are not matched (as I-Match
/// signs no document with fewer than 5 lexicon terms): the similarity of two vectors of two
/// or three k-grams is no evidence. The count is taken before weighting, so whether a page
/// is a stub does not depend on λ (a minimum on the weighted vector was a knife edge:
/// BENCHMARKS, issue 20).
pub const DEFAULT_MIN_KGRAMS: usize = 5;

/// A sparse non-negative vector over k-gram hashes, sorted by hash, without zeros.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVec {
    pub terms: Vec<u64>,
    pub weights: Vec<f32>,
}

impl SparseVec {
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Squared Euclidean norm.
    pub fn norm2(&self) -> f64 {
        self.weights
            .iter()
            .map(|&w| f64::from(w) * f64::from(w))
            .sum()
    }

    /// A copy scaled to unit length (the empty vector stays empty).
    pub fn unit(&self) -> SparseVec {
        let n = self.norm2().sqrt();
        if n == 0.0 {
            return self.clone();
        }
        SparseVec {
            terms: self.terms.clone(),
            weights: self
                .weights
                .iter()
                .map(|&w| (f64::from(w) / n) as f32)
                .collect(),
        }
    }

    /// The vector from (hash, weight) entries in any order (zeros and negatives dropped,
    /// repeated hashes summed).
    pub fn from_entries(mut entries: Vec<(u64, f32)>) -> SparseVec {
        entries.sort_unstable_by_key(|e| e.0);
        let mut summed: Vec<(u64, f32)> = Vec::with_capacity(entries.len());
        for (h, w) in entries {
            match summed.last_mut() {
                Some(last) if last.0 == h => last.1 += w,
                _ => summed.push((h, w)),
            }
        }
        let (terms, weights) = summed.into_iter().filter(|e| e.1 > 0.0).unzip();
        SparseVec { terms, weights }
    }
}

/// The weighted vector of a document under λ: `max(0, λ·φ)` per k-gram, zeros dropped.
pub fn weigh(f: &DocFeatures, lambda: &[f64]) -> SparseVec {
    let mut v = SparseVec::default();
    for i in 0..f.len() {
        let w = linear(lambda, f.row(i));
        if w > 0.0 {
            v.terms.push(f.hashes[i]);
            v.weights.push(w as f32);
        }
    }
    v
}

/// Dot product of two sparse vectors (a merge over their sorted terms).
pub fn dot(a: &SparseVec, b: &SparseVec) -> f64 {
    let (mut i, mut j, mut s) = (0, 0, 0.0f64);
    while i < a.terms.len() && j < b.terms.len() {
        match a.terms[i].cmp(&b.terms[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                s += f64::from(a.weights[i]) * f64::from(b.weights[j]);
                i += 1;
                j += 1;
            }
        }
    }
    s
}

/// The similarity of two weighted vectors.
pub fn similarity(sim: Similarity, a: &SparseVec, b: &SparseVec) -> f64 {
    sim.from_parts(dot(a, b), a.norm2(), b.norm2())
}

/// The shared k-grams of a pair by their share of the dot product, largest first:
/// (hash, share of x·y). The model's evidence for the pair.
pub fn top_shared(a: &SparseVec, b: &SparseVec, n: usize) -> Vec<(u64, f64)> {
    let total = dot(a, b);
    if total <= 0.0 {
        return Vec::new();
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.terms.len() && j < b.terms.len() {
        match a.terms[i].cmp(&b.terms[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let p = f64::from(a.weights[i]) * f64::from(b.weights[j]);
                out.push((a.terms[i], p / total));
                i += 1;
                j += 1;
            }
        }
    }
    out.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    out.truncate(n);
    out
}

/// The names (words joined by one space) of the k-grams of a text whose hash `wanted`
/// accepts, each once: how detection names the hashes it reports as evidence.
pub fn gram_names(text: &str, k: usize, wanted: impl Fn(u64) -> bool) -> Vec<(u64, String)> {
    let k = k.clamp(1, MAX_K);
    let tokens = tokenize(text);
    let mut out: Vec<(u64, String)> = Vec::new();
    for w in tokens.windows(k) {
        let h = gram_hash(w.iter().map(|t| t.norm.as_str()));
        if wanted(h) && !out.iter().any(|x| x.0 == h) {
            let name: Vec<&str> = w.iter().map(|t| t.norm.as_str()).collect();
            out.push((h, name.join(" ")));
        }
    }
    out
}

/// Random-hyperplane LSH (Charikar 2002): bit i of a signature is the sign of the vector's
/// projection on a random direction r_i. Each r_i has a ±1 entry per k-gram drawn from the
/// k-gram's hash and the seed (SplitMix64), so signatures need no stored hyperplanes and are
/// reproducible. The fraction of differing bits estimates angle/π.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lsh {
    /// Signature length in bits (a multiple of 64; the paper's setting is 384).
    pub bits: usize,
    pub seed: u64,
}

/// The paper's signature length.
pub const DEFAULT_LSH_BITS: usize = 384;

/// Seed of the hyperplanes (fixed and documented so signatures can be stored).
pub const DEFAULT_LSH_SEED: u64 = 0x00a1_dd15_0000_0384;

impl Default for Lsh {
    fn default() -> Self {
        Lsh {
            bits: DEFAULT_LSH_BITS,
            seed: DEFAULT_LSH_SEED,
        }
    }
}

impl Lsh {
    /// `bits` rounded up to a multiple of 64 (at least 64).
    pub fn new(bits: usize, seed: u64) -> Lsh {
        Lsh {
            bits: bits.div_ceil(64).max(1) * 64,
            seed,
        }
    }

    /// The signature of a vector, `bits / 64` words.
    pub fn signature(&self, v: &SparseVec) -> Vec<u64> {
        let words = self.bits / 64;
        let mut acc = vec![0.0f32; self.bits];
        for (&h, &w) in v.terms.iter().zip(&v.weights) {
            let mut rng = SplitMix64::new(h ^ self.seed);
            for chunk in acc.chunks_exact_mut(64) {
                let r = rng.next_u64();
                for (b, a) in chunk.iter_mut().enumerate() {
                    // +w when the bit is set, −w otherwise.
                    let s = ((r >> b) & 1) as f32 * 2.0 - 1.0;
                    *a += s * w;
                }
            }
        }
        let mut sig = vec![0u64; words];
        for (i, a) in acc.iter().enumerate() {
            if *a > 0.0 {
                sig[i / 64] |= 1 << (i % 64);
            }
        }
        sig
    }
}

/// Number of differing bits of two signatures.
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// The cosine estimated from a Hamming distance: cos(π · h / bits).
pub fn cosine_estimate(hamming: u32, bits: usize) -> f64 {
    (std::f64::consts::PI * f64::from(hamming) / bits as f64).cos()
}

/// A signature as lowercase hex (for `spotcheck sigs`).
pub fn signature_hex(sig: &[u64]) -> String {
    sig.iter().map(|w| format!("{w:016x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(text: &'a str, title: &'a str, url: &'a str) -> DocInput<'a> {
        DocInput { text, title, url }
    }

    #[test]
    fn unigram_statistics_count_by_hand() {
        let d = doc(
            "Kernel modules. The kernel loads modules; kernel!",
            "Kernel Modules",
            "https://x.org/docs/kernel.html",
        );
        let t = doc_terms(&d, 1);
        assert_eq!(t.tokens, 7);
        assert!(t.words.is_empty());
        let kernel = t
            .terms
            .iter()
            .find(|s| s.hash == gram_hash(["kernel"]))
            .unwrap();
        assert_eq!((kernel.tf, kernel.first, kernel.capitalized), (3, 0, 1));
        assert!(kernel.in_title && kernel.in_url);
        let the = t
            .terms
            .iter()
            .find(|s| s.hash == gram_hash(["the"]))
            .unwrap();
        assert_eq!((the.tf, the.first, the.capitalized), (1, 2, 1));
        assert!(!the.in_title && !the.in_url);
        let loads = t
            .terms
            .iter()
            .find(|s| s.hash == gram_hash(["loads"]))
            .unwrap();
        assert_eq!(loads.capitalized, 0);
        assert_eq!(t.terms.len(), 4);
        assert!(t.terms.windows(2).all(|w| w[0].hash < w[1].hash));
    }

    #[test]
    fn trigrams_keep_their_words_and_the_document_words() {
        let d = doc("a b c a b c d", "", "");
        let t = doc_terms(&d, 3);
        // a b c ×2, b c a, c a b, b c d.
        assert_eq!(t.terms.len(), 4);
        let abc = t
            .terms
            .iter()
            .find(|s| s.hash == gram_hash(["a", "b", "c"]))
            .unwrap();
        assert_eq!((abc.tf, abc.first), (2, 0));
        assert_eq!(
            abc.words[..3],
            [gram_hash(["a"]), gram_hash(["b"]), gram_hash(["c"])]
        );
        assert_eq!(t.words.len(), 4);
        // A text shorter than k has no k-gram.
        assert!(doc_terms(&doc("a b", "", ""), 3).terms.is_empty());
        assert_ne!(gram_hash(["a b"]), gram_hash(["ab"]));
        assert_eq!(gram_hash(["a b"]), gram_hash(["a", "b"]));
    }

    #[test]
    fn features_follow_the_documented_transforms() {
        let docs = [
            doc("alpha beta beta", "Beta", "u/beta"),
            doc("alpha gamma", "", ""),
            doc("alpha delta", "", ""),
            doc("epsilon", "", ""),
        ];
        let terms: Vec<DocTerms> = docs.iter().map(|d| doc_terms(d, 1)).collect();
        let mut df = DocFreqs::default();
        for t in &terms {
            df.add(t);
        }
        assert_eq!(df.n_docs, 4);
        let f = features(&terms[0], &df);
        assert_eq!(f.nf, FEATURES.len());
        let row = |h: u64| {
            f.row(f.hashes.iter().position(|&x| x == h).unwrap())
                .to_vec()
        };
        let beta = row(gram_hash(["beta"]));
        let alpha = row(gram_hash(["alpha"]));
        let ln4 = 4f64.ln();
        assert_eq!(beta[0], 1.0);
        assert!((beta[1] - 3f64.ln()).abs() < 1e-12);
        assert!((beta[2] - 1.0).abs() < 1e-12, "df 1 of 4: idf 1");
        assert!((alpha[2] - (4.0f64 / 3.0).ln() / ln4).abs() < 1e-12);
        assert!((beta[3] - beta[1] * beta[2]).abs() < 1e-12);
        assert!((beta[4] - 1.0 / 3.0).abs() < 1e-12);
        assert!((beta[5] - 4f64.ln() / 10.0).abs() < 1e-12);
        assert_eq!((beta[6], beta[7], beta[8]), (0.0, 1.0, 1.0));
        assert_eq!((alpha[7], alpha[8]), (0.0, 0.0));
        // k = 3 adds the DF average and median of the words.
        let t3 = doc_terms(&doc("alpha beta gamma", "", ""), 3);
        let mut df3 = DocFreqs::default();
        for d in &docs {
            df3.add(&doc_terms(d, 3));
        }
        df3.add(&t3);
        let f3 = features(&t3, &df3);
        assert_eq!(f3.nf, 11);
        let r = f3.row(0);
        // Word dfs over 5 documents: alpha 4, beta 2, gamma 2.
        let idf = |df: f64| (5.0 / df).ln() / 5f64.ln();
        assert!((r[9] - (idf(4.0) + 2.0 * idf(2.0)) / 3.0).abs() < 1e-12);
        assert!((r[10] - idf(2.0)).abs() < 1e-12);
        assert_eq!(feature_names(3).len(), 11);
    }

    #[test]
    fn weights_are_clamped_at_zero() {
        let f = DocFeatures {
            nf: 2,
            hashes: vec![1, 2, 3],
            x: vec![1.0, 0.5, 1.0, -2.0, 1.0, 1.0],
        };
        let v = weigh(&f, &[0.0, 1.0]);
        assert_eq!(v.terms, vec![1, 3]);
        assert_eq!(v.weights, vec![0.5, 1.0]);
    }

    fn sv(e: &[(u64, f32)]) -> SparseVec {
        SparseVec::from_entries(e.to_vec())
    }

    #[test]
    fn cosine_and_extended_jaccard_by_hand() {
        let a = sv(&[(1, 1.0), (2, 2.0)]);
        let b = sv(&[(2, 2.0), (3, 1.0)]);
        // x·y = 4, |x|² = |y|² = 5.
        assert!((similarity(Similarity::Cosine, &a, &b) - 0.8).abs() < 1e-12);
        assert!((similarity(Similarity::Jaccard, &a, &b) - 4.0 / 6.0).abs() < 1e-12);
        assert!((similarity(Similarity::Jaccard, &a, &a) - 1.0).abs() < 1e-12);
        assert_eq!(
            similarity(Similarity::Cosine, &a, &SparseVec::default()),
            0.0
        );
        assert!((Similarity::Jaccard.min_cosine(0.5) - 2.0 / 3.0).abs() < 1e-12);
        let top = top_shared(&a, &b, 5);
        assert_eq!(top, vec![(2, 1.0)]);
    }

    #[test]
    fn lsh_is_deterministic_and_hamming_estimates_the_angle() {
        // Two vectors with a known angle: a shared part and a private part each.
        let mut rng = SplitMix64::new(7);
        let lsh = Lsh::new(384, DEFAULT_LSH_SEED);
        assert_eq!(lsh.bits, 384);
        let mut worst: f64 = 0.0;
        for trial in 0..20 {
            let shared = 100 + trial * 20;
            let private = 300 - trial * 10;
            let mut a = Vec::new();
            let mut b = Vec::new();
            for _ in 0..shared {
                let h = rng.next_u64();
                let w = 0.5 + (rng.next_u64() % 100) as f32 / 100.0;
                a.push((h, w));
                b.push((h, w));
            }
            for _ in 0..private {
                a.push((rng.next_u64(), 1.0));
                b.push((rng.next_u64(), 1.0));
            }
            let (a, b) = (sv(&a), sv(&b));
            let angle = similarity(Similarity::Cosine, &a, &b)
                .clamp(-1.0, 1.0)
                .acos();
            let (sa, sb) = (lsh.signature(&a), lsh.signature(&b));
            assert_eq!(sa, lsh.signature(&a), "same vector, same signature");
            let est = f64::from(hamming(&sa, &sb)) / 384.0;
            worst = worst.max((est - angle / std::f64::consts::PI).abs());
        }
        // 384 bits: the standard deviation of the estimate is at most 0.5/√384 ≈ 0.026.
        assert!(worst < 0.09, "worst |hamming/bits − angle/π| = {worst}");
        // Another seed gives other hyperplanes.
        let v = sv(&[(1, 1.0), (2, 0.5), (3, 0.25)]);
        let other = Lsh::new(384, 1);
        assert_ne!(lsh.signature(&v), other.signature(&v));
        assert_eq!(signature_hex(&lsh.signature(&v)).len(), 96);
        assert!((cosine_estimate(0, 384) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn gram_names_name_the_wanted_kgrams_once() {
        let text = "The Kernel, loads the kernel";
        let want = gram_hash(["the", "kernel"]);
        let g = gram_names(text, 2, |h| h == want);
        assert_eq!(g, vec![(want, "the kernel".to_string())]);
        assert!(gram_names(text, 2, |_| false).is_empty());
        assert_eq!(gram_names(text, 1, |_| true).len(), 3);
    }
}
