//! I-Match signatures and bagged I-Match (Chowdhury et al. 2002; Kolcz, Chowdhury,
//! Alspector 2004; Kolcz & Chowdhury 2008): SHA1 over the sorted unique lexicon terms of a
//! document, the minimum-terms and long-document reliability rules, bootstrap bags of the
//! lexicon with a seeded PRNG, the extended (K+1)-coordinate signature, and the lexicon
//! terms two documents share or do not (for highlighting why they matched or split).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use sha1::{Digest, Sha1};

use super::lexicon::{normalized_idf, term_tokens, Lexicon, TermClass, TermOptions};

/// A 20-byte SHA1 signature.
pub type Signature = [u8; 20];

/// Terms are joined with `\n` before hashing: the tokenizer never puts a newline inside a
/// word, so `["ab","c"]` and `["a","bc"]` cannot collide by concatenation.
pub const TERM_SEPARATOR: u8 = b'\n';

/// Lowercase hex of a signature (or of any digest: ingest stores its SHA-1s this way).
pub fn to_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

/// SHA1 of `terms` sorted and de-duplicated, joined by [`TERM_SEPARATOR`]. Order of the
/// input does not matter.
pub fn hash_terms<'a>(terms: impl IntoIterator<Item = &'a str>) -> Signature {
    let mut sorted: Vec<&str> = terms.into_iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    hash_sorted_terms(sorted)
}

/// [`hash_terms`] of terms already sorted and distinct.
fn hash_sorted_terms<'a>(sorted: impl IntoIterator<Item = &'a str>) -> Signature {
    let mut h = Sha1::new();
    for (i, t) in sorted.into_iter().enumerate() {
        if i > 0 {
            h.update([TERM_SEPARATOR]);
        }
        h.update(t.as_bytes());
    }
    h.finalize().into()
}

/// Parameters of I-Match signing. Versioned with the run that uses them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IMatchParams {
    /// No signature when fewer lexicon terms than this remain (after the reliability
    /// extension). Default 5: a page with fewer than five mid-frequency words is a stub,
    /// and stubs must never cluster together just because they are all nearly empty.
    pub min_terms: usize,
    /// Long-document reliability: minimum |S|/|U|. When the primary terms cover less,
    /// secondary terms are added (most frequent first) until the ratio is met, else the
    /// document is rejected. `0.0` turns the rule off. Default 0.1: our choice, not a
    /// number from the papers (their value was not available to us). On the 287 real news
    /// pages of the test corpus, with a lexicon built from them, coverage has p10 = 0.53
    /// and median 0.69; the 14 pages below 0.1 are all in languages the rest of that
    /// collection does not share (Arabic, Chinese, Czech, Japanese, Spanish, Thai), whose
    /// words are all rare there. Those get extended with B terms rather than signed from a
    /// handful of shared words, which is the point of the rule (the papers' case: a long
    /// page whose only lexicon words are a shared banner).
    pub min_coverage: f64,
    /// Number K of extra bootstrap lexicons (0 = plain I-Match).
    pub bags: usize,
    /// Seed of the bag sampler; record it with the run so bags reproduce.
    pub seed: u64,
    /// Bags sample only the terms whose normalized idf (in the collection the lexicon was
    /// built from) is at most this; rarer terms are in every bag. `1.0` (the default) is
    /// the papers' rule: every term of L and B is bootstrap-sampled. A lower value is
    /// spotcheck's choice (see `detect`): measured on debian-docs, the lexicon terms in
    /// which two releases of one page differ are common template words ("obsolete",
    /// "qevent"), while two different pages of one manual that differ in only a term or
    /// two differ in a rare one (the name of what the page documents: "zynq",
    /// "qhboxlayout"). Bags that never drop rare terms keep recovering the first kind and
    /// stop matching the second.
    pub bag_max_idf: f64,
    /// Draws per lexicon term of one bag: a bag of an n-term lexicon draws `round(n ×
    /// bag_draws)` terms with replacement. `1.0` is the papers' bootstrap (a bag keeps
    /// about 63% of the terms); fewer draws make smaller bags, which survive more terms that
    /// differ between two copies (a bag keeps a term with probability `1 − e^−bag_draws`).
    pub bag_draws: f64,
    /// Short documents: when the full lexicon leaves a document too few terms to sign
    /// (`TooFewTerms` at coordinate 0, no bag signed) but it has at least this many unique
    /// terms, coordinate 0 signs all its unique terms U instead. `0` (the default) turns it
    /// off, the papers' rule. Measured on debian-docs (BENCHMARKS.md, issue 14 session 8):
    /// most unsigned pages are small index and member-list pages whose few words are mostly
    /// outside the idf window; their releases have equal U.
    pub short_min_terms: usize,
    /// Bag coordinates need coverage `min_coverage × (1 − e^−bag_draws)` instead of
    /// `min_coverage`: a bag holds about that fraction of the lexicon, so a page covered at
    /// coordinate 0 is covered in a bag as often as not, where the papers' rule (`false`, the
    /// same threshold in every coordinate) leaves small bags unsigned or extends them from
    /// B. Measured on news-v2 (BENCHMARKS.md, issue 14 session 10): with bags of 10% of the
    /// lexicon the unscaled rule left almost every news page's bags unreliable.
    pub scale_bag_coverage: bool,
    /// A bag keeps a term when a hash of the term and the bag's seed falls under the bag's
    /// share (`1 − e^−bag_draws`), instead of drawing lexicon indices with replacement (the
    /// papers' bootstrap, `false`). Both keep each term with about the same probability;
    /// by index, one term entering or leaving the lexicon (a page added, one content text
    /// changed) moves every later index and so redraws every bag, and the run's pairs move
    /// with it (BENCHMARKS.md, issue 14 session 21: one changed page of 127 moved I-Match's
    /// F1 on news-v3 single from .497 to .458). By term, a term's place in a bag depends on
    /// the term alone.
    pub bags_by_term: bool,
}

impl IMatchParams {
    /// A one-line description to store with a run (the seed included, so bags reproduce):
    /// `imatch v1 min_terms=5 min_coverage=0.1 bags=10 seed=0x…`. Bump the version when a
    /// change would alter signatures for the same parameters.
    pub fn describe(&self) -> String {
        // The later rules are written only when they depart from the papers, so a run of
        // the papers' rules describes itself as before they existed.
        let mut extra = String::new();
        if self.bag_draws != 1.0 {
            extra += &format!(" bag_draws={}", self.bag_draws);
        }
        if self.short_min_terms != 0 {
            extra += &format!(" short_min_terms={}", self.short_min_terms);
        }
        if self.scale_bag_coverage {
            extra += " scale_bag_coverage";
        }
        if self.bags_by_term {
            extra += " bags_by_term";
        }
        format!(
            "imatch v1 min_terms={} min_coverage={} bags={} seed={:#018x} bag_max_idf={}{extra} sep=LF sha1",
            self.min_terms, self.min_coverage, self.bags, self.seed, self.bag_max_idf
        )
    }
}

impl Default for IMatchParams {
    fn default() -> Self {
        IMatchParams {
            min_terms: 5,
            min_coverage: 0.1,
            bags: 10,
            seed: 0x5eed_1a7c_0000_0001,
            bag_max_idf: 1.0,
            bag_draws: 1.0,
            short_min_terms: 0,
            scale_bag_coverage: false,
            bags_by_term: false,
        }
    }
}

impl IMatchParams {
    /// The coverage (|S|/|U|) coordinate `coordinate` needs: `min_coverage` at coordinate 0
    /// and, unless [`IMatchParams::scale_bag_coverage`], in every bag; scaled, a bag needs
    /// `min_coverage × (1 − e^−bag_draws)`, the fraction of the lexicon a bag keeps.
    pub fn coverage_of(&self, coordinate: usize) -> f64 {
        if coordinate == 0 || !self.scale_bag_coverage {
            self.min_coverage
        } else {
            self.min_coverage * (1.0 - (-self.bag_draws).exp())
        }
    }
}

/// Why a coordinate of a document has no signature, or its signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SigOutcome {
    /// Signed from `terms` lexicon terms, `extended` of them taken from B.
    Signed {
        sig: Signature,
        terms: usize,
        extended: usize,
    },
    /// Fewer than `min_terms` lexicon terms.
    TooFewTerms { terms: usize },
    /// |S|/|U| stayed below `min_coverage` even with every available secondary term.
    Unreliable { terms: usize, unique: usize },
}

impl SigOutcome {
    /// The signature, if any.
    pub fn signature(&self) -> Option<Signature> {
        match self {
            SigOutcome::Signed { sig, .. } => Some(*sig),
            _ => None,
        }
    }
}

/// Small deterministic PRNG (SplitMix64, Steele et al. 2014). Chosen over a crate so bag
/// membership for a given seed can never change with a dependency upgrade.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// Uniform in `0..n` (n > 0) by Lemire's multiply-shift; the bias for n ≪ 2^64 is
    /// below 2^-40 for any lexicon size we meet, irrelevant for bootstrap sampling.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Bootstrap sample of `0..n`: draw `n` times with replacement, keep each index once.
/// About `1 − (1 − 1/n)^n ≈ 63.2%` of the indices are kept.
pub fn bootstrap_mask(n: usize, rng: &mut SplitMix64) -> Vec<bool> {
    sample_mask(n, n, rng)
}

/// Draw `draws` times from `0..n` with replacement, keep each index once (n > 0, or no
/// draws). About `1 − e^(−draws/n)` of the indices are kept.
pub fn sample_mask(n: usize, draws: usize, rng: &mut SplitMix64) -> Vec<bool> {
    let mut keep = vec![false; n];
    if n == 0 {
        return keep;
    }
    for _ in 0..draws {
        keep[rng.below(n)] = true;
    }
    keep
}

/// A stable 64-bit hash of a term (Cooper's FNV-1a, then SplitMix64's finalizer): written
/// out in this crate so a term's place in a bag never changes with a dependency or a
/// platform.
pub fn term_hash(term: &str) -> u64 {
    mix64(super::cooper::fnv1a64(term.as_bytes()))
}

/// SplitMix64's finalizer: a bijection of 64-bit values that spreads every input bit.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Bag membership by term ([`IMatchParams::bags_by_term`]): term `i` (of hash `hashes[i]`)
/// is kept when its hash mixed with the bag's seed falls under `share` of the 64-bit range.
pub fn term_mask(hashes: &[u64], bag_seed: u64, share: f64) -> Vec<bool> {
    // `share` ≤ 1: the product is at most 2^64 and saturates there.
    let limit = (share.clamp(0.0, 1.0) * 18_446_744_073_709_551_616.0) as u128;
    hashes
        .iter()
        .map(|&h| u128::from(mix64(h ^ bag_seed)) < limit)
        .collect()
}

/// Number of draws of a bag over `n` terms with `per_term` draws per term (at least one
/// when n > 0, so a bag is never empty by rounding).
fn bag_draw_count(n: usize, per_term: f64) -> usize {
    if n == 0 {
        return 0;
    }
    ((n as f64 * per_term).round() as usize).max(1)
}

/// Probability that a given term is absent from one bootstrap bag of an `n`-term lexicon:
/// `(1 − 1/n)^n`, which tends to `1/e ≈ 0.368`.
pub fn bag_absence_probability(n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    (1.0 - 1.0 / n as f64).powf(n as f64)
}

/// One bootstrap lexicon: which terms of L and of B it kept. L and B are sampled the same
/// way but independently (|L| draws from L, |B| draws from B), so a bag's secondary
/// lexicon keeps the rank order of B restricted to the kept terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bag {
    /// Indexed like [`Lexicon::primary`].
    pub primary: Vec<bool>,
    /// Indexed like [`Lexicon::secondary`].
    pub secondary: Vec<bool>,
}

/// A lexicon with its K bags. Coordinate 0 of an extended signature uses the full lexicon,
/// coordinate k ≥ 1 uses bag k−1.
#[derive(Debug, Clone)]
pub struct BaggedLexicon<'a> {
    pub lexicon: &'a Lexicon,
    pub bags: Vec<Bag>,
    pub params: IMatchParams,
    /// The bags transposed: primary term `i` is in bag `k` when bit `k % 64` of
    /// `primary_bits[i * words + k / 64]` is set (the same for the secondary terms). A
    /// document's terms fetch their memberships once for all K coordinates instead of one
    /// scattered look-up in each bag's mask per coordinate (issue 16, session 9).
    primary_bits: Vec<u64>,
    secondary_bits: Vec<u64>,
    words: usize,
    /// Each lexicon term's place in term order among all of L and B (`primary_rank[i]`,
    /// `secondary_rank[r]`): a document's terms are sorted by these numbers instead of by
    /// comparing the strings.
    primary_rank: Vec<u32>,
    secondary_rank: Vec<u32>,
}

/// Transposes a 64×64 bit matrix in place: afterwards bit j of `a[i]` is what bit i of
/// `a[j]` was (the recursive block swap of Hacker's Delight, 7-3, six rounds of 32 swaps).
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// `bags`' masks (chosen by `mask`) over `n` terms as rows of `bags.len().div_ceil(64)`
/// words per term (see [`BaggedLexicon`]'s `primary_bits`).
fn transpose(bags: &[Bag], n: usize, mask: impl Fn(&Bag) -> &[bool] + Sync) -> Vec<u64> {
    /// Terms per block transposed on one core.
    const BLOCK: usize = 4096;
    let words = bags.len().div_ceil(64);
    let mut bits = vec![0u64; n * words];
    if words == 0 {
        return bits;
    }
    bits.par_chunks_mut(BLOCK * words)
        .enumerate()
        .for_each(|(block, rows)| {
            let first = block * BLOCK;
            for (k, bag) in bags.iter().enumerate() {
                let m = mask(bag);
                let end = (first + rows.len() / words).min(m.len());
                for (at, &member) in m.get(first..end).unwrap_or(&[]).iter().enumerate() {
                    if member {
                        rows[at * words + k / 64] |= 1 << (k % 64);
                    }
                }
            }
        });
    bits
}

impl<'a> BaggedLexicon<'a> {
    /// Draws `params.bags` bags from `params.seed`. Bag k uses its own stream seeded from
    /// `seed` and `k`, so adding bags never changes the earlier ones. Terms rarer than
    /// `params.bag_max_idf` are then put back into every bag (the draws stay the same, so
    /// the sampled terms' membership does not depend on that setting).
    pub fn new(lexicon: &'a Lexicon, params: IMatchParams) -> Self {
        let rare = |terms: &[super::lexicon::LexiconTerm]| -> Vec<bool> {
            terms
                .iter()
                .map(|t| {
                    normalized_idf(lexicon.n_docs, t.df).is_some_and(|i| i > params.bag_max_idf)
                })
                .collect()
        };
        let (rare_primary, rare_secondary) = (rare(lexicon.primary()), rare(lexicon.secondary()));
        let keep_rare = |mut mask: Vec<bool>, rare: &[bool]| {
            for (m, &r) in mask.iter_mut().zip(rare) {
                *m |= r;
            }
            mask
        };
        // By term: one hash per term, made once; a term keeps its membership whichever
        // class (L or B) it is in.
        let hashes = |terms: &[super::lexicon::LexiconTerm]| -> Vec<u64> {
            if params.bags_by_term {
                terms.par_iter().map(|t| term_hash(&t.term)).collect()
            } else {
                Vec::new()
            }
        };
        let (primary_hashes, secondary_hashes) =
            (hashes(lexicon.primary()), hashes(lexicon.secondary()));
        let share = 1.0 - (-params.bag_draws).exp();
        // Each bag is its own stream (seeded from `seed` and k): drawn on every core.
        let bags: Vec<Bag> = (0..params.bags)
            .into_par_iter()
            .map(|k| {
                let mut seeder =
                    SplitMix64::new(params.seed ^ (k as u64).wrapping_mul(0xA24B_AED4_963E_E407));
                let mut rng = SplitMix64::new(seeder.next_u64());
                let (np, ns) = (lexicon.primary().len(), lexicon.secondary().len());
                let (primary, secondary) = if params.bags_by_term {
                    let bag_seed = rng.next_u64();
                    (
                        term_mask(&primary_hashes, bag_seed, share),
                        term_mask(&secondary_hashes, bag_seed, share),
                    )
                } else {
                    let primary = sample_mask(np, bag_draw_count(np, params.bag_draws), &mut rng);
                    let secondary = sample_mask(ns, bag_draw_count(ns, params.bag_draws), &mut rng);
                    (primary, secondary)
                };
                Bag {
                    primary: keep_rare(primary, &rare_primary),
                    secondary: keep_rare(secondary, &rare_secondary),
                }
            })
            .collect();
        let (np, ns) = (lexicon.primary().len(), lexicon.secondary().len());
        let mut in_order: Vec<(&str, TermClass)> = Vec::with_capacity(np + ns);
        in_order.extend(
            (lexicon.primary().iter().enumerate())
                .map(|(i, t)| (t.term.as_str(), TermClass::Primary(i))),
        );
        in_order.extend(
            (lexicon.secondary().iter().enumerate())
                .map(|(r, t)| (t.term.as_str(), TermClass::Secondary(r))),
        );
        in_order.par_sort_unstable_by(|a, b| a.0.cmp(b.0));
        let (mut primary_rank, mut secondary_rank) = (vec![0u32; np], vec![0u32; ns]);
        for (rank, (_, class)) in in_order.iter().enumerate() {
            let slot = match *class {
                TermClass::Primary(i) => primary_rank.get_mut(i),
                TermClass::Secondary(r) => secondary_rank.get_mut(r),
            };
            if let Some(slot) = slot {
                *slot = rank as u32;
            }
        }
        BaggedLexicon {
            primary_rank,
            secondary_rank,
            lexicon,
            primary_bits: transpose(&bags, np, |b| &b.primary),
            secondary_bits: transpose(&bags, ns, |b| &b.secondary),
            words: bags.len().div_ceil(64),
            bags,
            params,
        }
    }

    /// Number of coordinates, K + 1.
    pub fn coordinates(&self) -> usize {
        self.bags.len() + 1
    }

    /// Whether `term` is in the primary lexicon of `coordinate`.
    pub fn in_primary(&self, coordinate: usize, term: &str) -> bool {
        match self.lexicon.class_of(term) {
            Some(TermClass::Primary(i)) => {
                coordinate == 0 || self.bags.get(coordinate - 1).is_some_and(|b| b.primary[i])
            }
            _ => false,
        }
    }

    /// Signs one coordinate (0 = full lexicon, k = bag k, k ≤ K) of a document given its
    /// unique terms U.
    pub fn sign_coordinate(&self, unique: &BTreeSet<String>, coordinate: usize) -> SigOutcome {
        let classes = self.classify(unique);
        self.sign_classified(&classes, unique.len(), coordinate)
    }

    /// All K + 1 coordinates of a document.
    pub fn sign(&self, unique: &BTreeSet<String>) -> Vec<SigOutcome> {
        // Look every term up once, not once per coordinate.
        let mut out = self.sign_classes(&self.classify(unique), unique.len());
        self.sign_short(&mut out, unique.len(), || {
            unique.iter().map(String::as_str).collect()
        });
        out
    }

    /// The short-document rule ([`IMatchParams::short_min_terms`]) on a document's signed
    /// coordinates: when no coordinate is signed, coordinate 0 had too few terms and the
    /// document has at least `short_min_terms` unique terms, coordinate 0 becomes the
    /// signature of all its unique terms (given by `all_terms`, called only then).
    pub fn sign_short<'t>(
        &self,
        outcomes: &mut [SigOutcome],
        unique_len: usize,
        all_terms: impl FnOnce() -> Vec<&'t str>,
    ) {
        let min = self.params.short_min_terms;
        if min == 0 || unique_len < min || outcomes.iter().any(|o| o.signature().is_some()) {
            return;
        }
        if let Some(first @ SigOutcome::TooFewTerms { .. }) = outcomes.first_mut() {
            *first = SigOutcome::Signed {
                sig: hash_terms(all_terms()),
                terms: unique_len,
                extended: 0,
            };
        }
    }

    /// All K + 1 coordinates of a document given its lexicon terms with their class (each
    /// term once, in any order) and its number of unique terms |U|: [`Self::sign`] for a
    /// caller that classified the terms itself (from interned term sets).
    pub fn sign_classes(
        &self,
        classes: &[(&str, TermClass)],
        unique_len: usize,
    ) -> Vec<SigOutcome> {
        self.sign_coordinates(classes, unique_len, true)
    }

    /// [`Self::sign_classes`] without coordinate 0 when `with_full` is false: the K bags
    /// only (coordinates 1..=K, in order). The cross-site bags of `detect` (`--across-bags`)
    /// are such a lexicon's bags, whose full-lexicon coordinate is the main signature's.
    pub fn sign_coordinates(
        &self,
        classes: &[(&str, TermClass)],
        unique_len: usize,
        with_full: bool,
    ) -> Vec<SigOutcome> {
        // The terms are sorted (and de-duplicated) once for every coordinate: each coordinate
        // then chooses positions in this order, and hashing its terms in position order is
        // `hash_terms`' sorted order. Sorting strings once instead of K + 1 times was most of
        // `detect`'s I-Match signing (31 coordinates by default; BENCHMARKS.md, issue 16
        // session 5).
        let rank = |class: TermClass| match class {
            TermClass::Primary(i) => self.primary_rank.get(i),
            TermClass::Secondary(r) => self.secondary_rank.get(r),
        };
        let mut ranked: Vec<(u32, (&str, TermClass))> = classes
            .iter()
            // Not a term of this lexicon (cannot happen: classes come from it): last.
            .map(|&c| (rank(c.1).copied().unwrap_or(u32::MAX), c))
            .collect();
        // Rank order is term order: sorted as by the strings, compared as numbers (the
        // string comparisons were a third of this function; issue 16, session 15).
        ranked.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1 .0.cmp(b.1 .0)));
        ranked.dedup_by(|a, b| a.1 .0 == b.1 .0);
        let sorted: Vec<(&str, TermClass)> = ranked.into_iter().map(|(_, c)| c).collect();
        // Each term's bag memberships, fetched once, in `sorted`'s order.
        let w = self.words;
        let mut rows: Vec<u64> = Vec::with_capacity(sorted.len() * w);
        for &(_, class) in &sorted {
            let (bits, i) = match class {
                TermClass::Primary(i) => (&self.primary_bits, i),
                TermClass::Secondary(r) => (&self.secondary_bits, r),
            };
            match bits.get(i * w..(i + 1) * w) {
                Some(row) => rows.extend_from_slice(row),
                // Not a term of this lexicon (cannot happen: classes come from it): in no bag.
                None => rows.extend(std::iter::repeat_n(0, w)),
            }
        }
        // Positions as bit sets: the primary terms', and each coordinate's members (set
        // without a branch per term: which terms a bag holds is a coin flip).
        let n = sorted.len();
        let mut primary = vec![0u64; n.div_ceil(64)];
        for (at, (_, class)) in sorted.iter().enumerate() {
            primary[at / 64] |= u64::from(matches!(class, TermClass::Primary(_))) << (at % 64);
        }
        let mut all = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            if let Some(last) = all.last_mut() {
                *last = (1 << (n % 64)) - 1;
            }
        }
        let mut out = Vec::with_capacity(self.coordinates());
        if with_full {
            out.push(self.sign_members(&sorted, unique_len, &all, &primary, 0));
        }
        // Each bag's members as bit sets over the positions, 64 terms at a time by a 64×64
        // bit transpose: `cols[k * blocks + b]`, bit j, is term `64 b + j` in bag k. Read
        // bit by bit per bag this was a tenth of `detect`'s I-Match signing (issue 16,
        // session 15).
        let bags = self.coordinates() - 1;
        let blocks = n.div_ceil(64);
        let mut cols = vec![0u64; bags * blocks];
        let mut block = [0u64; 64];
        for word in 0..w {
            for b in 0..blocks {
                block.fill(0);
                for (j, at) in (b * 64..n.min(b * 64 + 64)).enumerate() {
                    block[j] = rows[at * w + word];
                }
                transpose64(&mut block);
                for (bit, &col) in block.iter().enumerate() {
                    let k = word * 64 + bit;
                    if k < bags {
                        cols[k * blocks + b] = col;
                    }
                }
            }
        }
        for k in 1..self.coordinates() {
            let members = &cols[(k - 1) * blocks..k * blocks];
            out.push(self.sign_members(&sorted, unique_len, members, &primary, k));
        }
        out
    }

    /// The lexicon terms of U with their class, in term order.
    fn classify<'u>(&self, unique: &'u BTreeSet<String>) -> Vec<(&'u str, TermClass)> {
        unique
            .iter()
            .filter_map(|t| self.lexicon.class_of(t).map(|c| (t.as_str(), c)))
            .collect()
    }

    /// One coordinate of a document given its classified terms in any order.
    fn sign_classified(
        &self,
        classes: &[(&str, TermClass)],
        unique_len: usize,
        coordinate: usize,
    ) -> SigOutcome {
        let mut sorted = classes.to_vec();
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        sorted.dedup_by(|a, b| a.0 == b.0);
        self.sign_sorted(&sorted, unique_len, coordinate)
    }

    /// One coordinate of a document given its classified terms sorted by term, each once.
    /// Terms are chosen as positions in `sorted`, so position order is term order.
    fn sign_sorted(
        &self,
        sorted: &[(&str, TermClass)],
        unique_len: usize,
        coordinate: usize,
    ) -> SigOutcome {
        let bag = match coordinate {
            0 => None,
            k => match self.bags.get(k - 1) {
                Some(b) => Some(b),
                // No such coordinate: nothing to sign with.
                None => return SigOutcome::TooFewTerms { terms: 0 },
            },
        };
        self.sign_with(sorted, unique_len, coordinate, |at| match sorted[at].1 {
            TermClass::Primary(i) => bag.is_none_or(|b| b.primary[i]),
            TermClass::Secondary(r) => bag.is_none_or(|b| b.secondary[r]),
        })
    }

    /// [`Self::sign_sorted`] with the coordinate's lexicon given as `in_lexicon(at)`: whether
    /// the term at position `at` of `sorted` is in it.
    fn sign_with(
        &self,
        sorted: &[(&str, TermClass)],
        unique_len: usize,
        coordinate: usize,
        in_lexicon: impl Fn(usize) -> bool,
    ) -> SigOutcome {
        let mut chosen: Vec<u32> = Vec::new();
        let mut secondary: Vec<(usize, u32)> = Vec::new();
        for (at, &(_, class)) in (0u32..).zip(sorted) {
            if !in_lexicon(at as usize) {
                continue;
            }
            match class {
                TermClass::Primary(_) => chosen.push(at),
                TermClass::Secondary(r) => secondary.push((r, at)),
            }
        }
        self.finish(sorted, unique_len, coordinate, chosen, || secondary)
    }

    /// [`Self::sign_with`] with the coordinate's lexicon as a bit set over the positions of
    /// `sorted` (`members`), `primary` the positions of primary terms: the positions are
    /// read off the set bits, and the secondary terms only when coverage asks for them.
    fn sign_members(
        &self,
        sorted: &[(&str, TermClass)],
        unique_len: usize,
        members: &[u64],
        primary: &[u64],
        coordinate: usize,
    ) -> SigOutcome {
        let set_bits = |word: usize, mut x: u64, out: &mut dyn FnMut(u32)| {
            while x != 0 {
                out((word * 64) as u32 + x.trailing_zeros());
                x &= x - 1;
            }
        };
        let mut chosen: Vec<u32> = Vec::new();
        for (word, (m, p)) in members.iter().zip(primary).enumerate() {
            set_bits(word, m & p, &mut |at| chosen.push(at));
        }
        self.finish(sorted, unique_len, coordinate, chosen, || {
            let mut secondary = Vec::new();
            for (word, (m, p)) in members.iter().zip(primary).enumerate() {
                set_bits(word, m & !p, &mut |at| {
                    if let Some(&(_, TermClass::Secondary(r))) = sorted.get(at as usize) {
                        secondary.push((r, at));
                    }
                });
            }
            secondary
        })
    }

    /// A coordinate's outcome from its primary terms' positions in `sorted` (ascending) and
    /// its secondary terms (rank, position), asked for only when coverage needs them.
    fn finish(
        &self,
        sorted: &[(&str, TermClass)],
        unique_len: usize,
        coordinate: usize,
        mut chosen: Vec<u32>,
        secondary: impl FnOnce() -> Vec<(usize, u32)>,
    ) -> SigOutcome {
        let coverage = self.params.coverage_of(coordinate);
        let covered = |n: usize| n as f64 >= coverage * unique_len as f64;
        let mut extended = 0;
        if coverage > 0.0 && !covered(chosen.len()) {
            let mut secondary = secondary();
            // Most frequent secondary terms first: the rank order of B (ties by term, as
            // positions follow term order).
            secondary.sort_unstable();
            for (_, at) in secondary {
                if covered(chosen.len()) {
                    break;
                }
                chosen.push(at);
                extended += 1;
            }
            if !covered(chosen.len()) {
                return SigOutcome::Unreliable {
                    terms: chosen.len(),
                    unique: unique_len,
                };
            }
        }
        if chosen.len() < self.params.min_terms || chosen.is_empty() {
            return SigOutcome::TooFewTerms {
                terms: chosen.len(),
            };
        }
        // Position order is term order: `hash_terms` without sorting strings again.
        if extended > 0 {
            chosen.sort_unstable();
        }
        SigOutcome::Signed {
            sig: hash_sorted_terms(chosen.iter().map(|&at| sorted[at as usize].0)),
            terms: chosen.len(),
            extended,
        }
    }
}

/// The extended signature as cluster keys: `None` where a coordinate has no signature.
pub fn extended_signature(outcomes: &[SigOutcome]) -> Vec<Option<Signature>> {
    outcomes.iter().map(SigOutcome::signature).collect()
}

/// Two extended signatures match when any coordinate is present in both and equal.
pub fn extended_match(a: &[Option<Signature>], b: &[Option<Signature>]) -> bool {
    a.iter().zip(b).any(|(x, y)| x.is_some() && x == y)
}

/// The primary-lexicon terms of a document as their indices in [`Lexicon::primary`], sorted:
/// a compact, exact form of the primary-term set (the overlap check's Jaccard over sets) (indices are only
/// comparable under one lexicon, i.e. within one run).
pub fn primary_indices(classes: &[(&str, TermClass)]) -> Vec<u32> {
    let mut out: Vec<u32> = classes
        .iter()
        .filter_map(|(_, c)| match c {
            TermClass::Primary(i) => u32::try_from(*i).ok(),
            TermClass::Secondary(_) => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Weighted Jaccard of two sorted, de-duplicated index lists is at least `min`: the weight
/// of the shared indices over the weight of their union (`weight(i)` ≥ 0). `min` ≤ 0 always
/// holds; two lists of no weight hold.
pub fn sorted_overlap_holds(a: &[u32], b: &[u32], min: f64, weight: impl Fn(u32) -> f64) -> bool {
    if min <= 0.0 {
        return true;
    }
    let (mut i, mut j) = (0, 0);
    let (mut shared, mut union) = (0.0, 0.0);
    while i < a.len() || j < b.len() {
        let (x, y) = (a.get(i), b.get(j));
        match (x, y) {
            (Some(&x), Some(&y)) if x == y => {
                let w = weight(x);
                shared += w;
                union += w;
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                union += weight(x);
                i += 1;
            }
            (Some(&x), None) => {
                union += weight(x);
                i += 1;
            }
            (_, Some(&y)) => {
                union += weight(y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    // The tolerance lets a Jaccard of exactly `min` hold whatever the rounding of `min`.
    union <= 0.0 || shared >= min * union - 1e-9 * union.max(1.0)
}

/// The overlap check's weight of a primary lexicon term: its normalized idf in the collection
/// the lexicon was built from, to the power `power` (0 = every term weighs 1, plain Jaccard).
/// Rare terms weigh more: two different pages of one manual differ in the rare terms that name
/// them, two releases of one page mostly in common words.
pub fn overlap_weights(lexicon: &Lexicon, power: f64) -> Vec<f64> {
    lexicon
        .primary()
        .iter()
        .map(|t| {
            normalized_idf(lexicon.n_docs, t.df)
                .unwrap_or(1.0)
                .max(0.0)
                .powf(power)
        })
        .collect()
}

/// Signs a whole collection: the extended signatures (cluster keys, one row per document)
/// and how many documents each rule decided, per coordinate.
pub fn sign_documents(
    bagged: &BaggedLexicon<'_>,
    uniques: &[BTreeSet<String>],
) -> (Vec<Vec<Option<Signature>>>, Vec<RuleCounts>) {
    let outcomes: Vec<Vec<SigOutcome>> = uniques.iter().map(|u| bagged.sign(u)).collect();
    let counts = count_rules(outcomes.iter().map(Vec::as_slice));
    let sigs = outcomes.iter().map(|o| extended_signature(o)).collect();
    (sigs, counts)
}

/// How many documents each rule decided, per coordinate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RuleCounts {
    pub signed: usize,
    /// Of the signed, how many needed terms from the secondary lexicon.
    pub extended: usize,
    pub too_few_terms: usize,
    pub unreliable: usize,
}

/// Tallies outcomes of many documents, one [`RuleCounts`] per coordinate.
pub fn count_rules<'a>(docs: impl IntoIterator<Item = &'a [SigOutcome]>) -> Vec<RuleCounts> {
    let mut out: Vec<RuleCounts> = Vec::new();
    for doc in docs {
        if out.len() < doc.len() {
            out.resize(doc.len(), RuleCounts::default());
        }
        for (c, o) in doc.iter().enumerate() {
            match o {
                SigOutcome::Signed { extended, .. } => {
                    out[c].signed += 1;
                    if *extended > 0 {
                        out[c].extended += 1;
                    }
                }
                SigOutcome::TooFewTerms { .. } => out[c].too_few_terms += 1,
                SigOutcome::Unreliable { .. } => out[c].unreliable += 1,
            }
        }
    }
    out
}

/// A lexicon term with every place it occurs in one text (byte ranges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermSpans {
    pub term: String,
    pub spans: Vec<(usize, usize)>,
}

/// A term both documents contain, with its places in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedTerm {
    pub term: String,
    pub in_a: Vec<(usize, usize)>,
    pub in_b: Vec<(usize, usize)>,
}

/// Why two documents have (or do not have) the same I-Match signature: the lexicon terms
/// they share, and the ones only one of them has (the terms that break an equal signature).
/// All lists are sorted by term.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LexiconExplanation {
    pub shared: Vec<SharedTerm>,
    pub only_a: Vec<TermSpans>,
    pub only_b: Vec<TermSpans>,
}

fn lexicon_term_spans(
    text: &str,
    is_lexicon_term: &dyn Fn(&str) -> bool,
    opts: &TermOptions,
) -> BTreeMap<String, Vec<(usize, usize)>> {
    let mut out: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for t in term_tokens(text, opts) {
        if is_lexicon_term(&t.norm) {
            out.entry(t.norm).or_default().push((t.start, t.end));
        }
    }
    out
}

/// The primary-lexicon terms of `a_text` and `b_text`, split into shared and one-sided,
/// with byte spans into each text. For a bag coordinate, use
/// [`shared_terms_with`] and [`BaggedLexicon::in_primary`].
pub fn shared_lexicon_terms(
    a_text: &str,
    b_text: &str,
    lexicon: &Lexicon,
    opts: &TermOptions,
) -> LexiconExplanation {
    shared_terms_with(a_text, b_text, &|t| lexicon.in_primary(t), opts)
}

/// [`shared_lexicon_terms`] for any term set.
pub fn shared_terms_with(
    a_text: &str,
    b_text: &str,
    is_lexicon_term: &dyn Fn(&str) -> bool,
    opts: &TermOptions,
) -> LexiconExplanation {
    let a = lexicon_term_spans(a_text, is_lexicon_term, opts);
    let mut b = lexicon_term_spans(b_text, is_lexicon_term, opts);
    let mut out = LexiconExplanation::default();
    for (term, spans_a) in a {
        match b.remove(&term) {
            Some(in_b) => out.shared.push(SharedTerm {
                term,
                in_a: spans_a,
                in_b,
            }),
            None => out.only_a.push(TermSpans {
                term,
                spans: spans_a,
            }),
        }
    }
    out.only_b = b
        .into_iter()
        .map(|(term, spans)| TermSpans { term, spans })
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sig::lexicon::{DocFreqs, LexiconParams};

    /// Whether two term sets overlap enough: Jaccard `|A ∩ B| / |A ∪ B| ≥ min` (`min` ≤ 0
    /// always holds; two empty sets hold). The plain set form, the reference the sorted
    /// check of the detector is tested against (it has no caller outside tests).
    fn overlap_holds<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>, min: f64) -> bool {
        if min <= 0.0 {
            return true;
        }
        let shared = a.intersection(b).count();
        let union = a.len() + b.len() - shared;
        // The tolerance lets a Jaccard of exactly `min` hold whatever the rounding of `min`.
        union == 0 || shared as f64 >= min * union as f64 - 1e-9
    }

    fn set(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    /// A lexicon from explicit dfs over N = 100 documents: df 10 → idf 0.5 (L),
    /// df 1 / df 2 → B (df 2 ranked first).
    fn lexicon(primary: &[&str], secondary: &[(&str, u32)]) -> Lexicon {
        let mut dfs = DocFreqs {
            n_docs: 100,
            ..Default::default()
        };
        for t in primary {
            dfs.df.insert(t.to_string(), 10);
        }
        for (t, df) in secondary {
            dfs.df.insert(t.to_string(), *df);
        }
        Lexicon::build(&dfs, LexiconParams::default())
    }

    fn plain(min_terms: usize, min_coverage: f64) -> IMatchParams {
        IMatchParams {
            min_terms,
            min_coverage,
            bags: 0,
            seed: 1,
            bag_max_idf: 1.0,
            bag_draws: 1.0,
            short_min_terms: 0,
            scale_bag_coverage: false,
            bags_by_term: false,
        }
    }

    #[test]
    fn parameters_describe_themselves_with_the_seed() {
        let d = IMatchParams::default().describe();
        assert_eq!(
            d,
            "imatch v1 min_terms=5 min_coverage=0.1 bags=10 seed=0x5eed1a7c00000001 bag_max_idf=1 sep=LF sha1"
        );
    }

    #[test]
    fn later_rules_describe_themselves_only_when_on() {
        let p = IMatchParams {
            bag_draws: 0.5,
            short_min_terms: 5,
            ..IMatchParams::default()
        };
        assert_eq!(
            p.describe(),
            "imatch v1 min_terms=5 min_coverage=0.1 bags=10 seed=0x5eed1a7c00000001 bag_max_idf=1 bag_draws=0.5 short_min_terms=5 sep=LF sha1"
        );
        let scaled = IMatchParams {
            scale_bag_coverage: true,
            ..p
        };
        assert!(scaled
            .describe()
            .ends_with("short_min_terms=5 scale_bag_coverage sep=LF sha1"));
    }

    #[test]
    fn fewer_draws_make_smaller_bags_and_one_draw_per_term_is_the_bootstrap() {
        let n = 20_000;
        for (draws, expected) in [(0.5, 1.0 - (-0.5f64).exp()), (0.25, 1.0 - (-0.25f64).exp())] {
            let mask = sample_mask(n, bag_draw_count(n, draws), &mut SplitMix64::new(42));
            let kept = mask.iter().filter(|&&k| k).count() as f64 / n as f64;
            assert!((kept - expected).abs() < 0.015, "{draws}: kept {kept}");
        }
        // One draw per term is exactly the bootstrap (bags of earlier runs are unchanged).
        assert_eq!(
            sample_mask(n, bag_draw_count(n, 1.0), &mut SplitMix64::new(7)),
            bootstrap_mask(n, &mut SplitMix64::new(7))
        );
        assert_eq!(bag_draw_count(0, 0.5), 0);
        assert_eq!(bag_draw_count(1, 0.01), 1);
        assert!(sample_mask(0, 0, &mut SplitMix64::new(1)).is_empty());
    }

    #[test]
    fn a_short_page_is_signed_by_all_its_terms_when_the_rule_is_on() {
        let lex = lexicon(&["alpha", "beta", "gamma"], &[]);
        // Two lexicon terms (too few for min_terms 5) and four words outside the lexicon.
        let doc = set(&["alpha", "beta", "common", "index", "listing", "words"]);
        let off = BaggedLexicon::new(&lex, plain(5, 0.0));
        assert_eq!(off.sign(&doc)[0], SigOutcome::TooFewTerms { terms: 2 });
        let on = |min| {
            BaggedLexicon::new(
                &lex,
                IMatchParams {
                    short_min_terms: min,
                    ..plain(5, 0.0)
                },
            )
        };
        assert_eq!(
            on(5).sign(&doc)[0],
            SigOutcome::Signed {
                sig: hash_terms(doc.iter().map(String::as_str)),
                terms: 6,
                extended: 0
            }
        );
        // Fewer unique terms than the rule's minimum: still unsigned.
        assert_eq!(on(7).sign(&doc)[0], SigOutcome::TooFewTerms { terms: 2 });
        // A page the lexicon signs is not touched.
        let long = set(&["alpha", "beta", "gamma", "x1xx", "x2xx"]);
        let signs = |short_min_terms| {
            BaggedLexicon::new(
                &lex,
                IMatchParams {
                    short_min_terms,
                    ..plain(2, 0.0)
                },
            )
            .sign(&long)
        };
        assert_eq!(signs(1), signs(0));
        assert_eq!(
            signs(1)[0].signature(),
            Some(hash_terms(["alpha", "beta", "gamma"]))
        );
    }

    #[test]
    fn overlap_weights_are_powers_of_the_normalized_idf() {
        // N = 100, df 10: idf 0.5 for every primary term.
        let lex = lexicon(&["alpha", "beta"], &[]);
        assert_eq!(overlap_weights(&lex, 0.0), vec![1.0, 1.0]);
        let w2 = overlap_weights(&lex, 2.0);
        assert!(w2.iter().all(|w| (w - 0.25).abs() < 1e-12), "{w2:?}");
        // A differing rare term costs more than a differing common one.
        let w = |i: u32| if i == 9 { 4.0 } else { 1.0 };
        let (a, b): (Vec<u32>, Vec<u32>) = ((0..9).collect(), (0..10).collect());
        assert!(sorted_overlap_holds(&a, &b, 0.9, |_| 1.0));
        assert!(!sorted_overlap_holds(&a, &b, 0.9, w));
    }

    #[test]
    fn primary_indices_keep_only_the_primary_lexicon() {
        let lex = lexicon(&["alpha", "beta", "gamma"], &[("rare", 1)]);
        let doc = set(&["gamma", "alpha", "rare", "other"]);
        let classes: Vec<(&str, TermClass)> = doc
            .iter()
            .filter_map(|t| lex.class_of(t).map(|c| (t.as_str(), c)))
            .collect();
        // alpha = 0, gamma = 2 in the sorted primary lexicon.
        assert_eq!(primary_indices(&classes), vec![0, 2]);
    }

    proptest::proptest! {
        #[test]
        fn transpose64_swaps_rows_and_columns(rows in proptest::array::uniform32(proptest::num::u64::ANY), more in proptest::array::uniform32(proptest::num::u64::ANY)) {
            let mut a = [0u64; 64];
            a[..32].copy_from_slice(&rows);
            a[32..].copy_from_slice(&more);
            let mut t = a;
            transpose64(&mut t);
            for (i, row) in t.iter().enumerate() {
                for (j, col) in a.iter().enumerate() {
                    proptest::prop_assert_eq!(row >> j & 1, col >> i & 1);
                }
            }
        }

        /// The merge over sorted index lists is the set Jaccard test.
        #[test]
        fn sorted_overlap_is_the_set_jaccard(
            a in proptest::collection::btree_set(0u32..60, 0..40),
            b in proptest::collection::btree_set(0u32..60, 0..40),
            pct in proptest::sample::select(vec![0u32, 30, 50, 90, 97, 100]),
        ) {
            let min = f64::from(pct) / 100.0;
            let (va, vb): (Vec<u32>, Vec<u32>) = (a.iter().copied().collect(), b.iter().copied().collect());
            let shared = a.intersection(&b).count();
            let union = a.union(&b).count();
            let slow = union == 0 || shared as u32 * 100 >= pct * union as u32;
            proptest::prop_assert_eq!(sorted_overlap_holds(&va, &vb, min, |_| 1.0), slow);
            // Weighted: the slow sums over the sets.
            let w = |i: u32| f64::from(i % 7) / 3.0;
            let ws: f64 = a.intersection(&b).map(|&i| w(i)).sum();
            let wu: f64 = a.union(&b).map(|&i| w(i)).sum();
            let slow_w = min <= 0.0 || wu <= 0.0 || ws >= min * wu - 1e-9 * wu.max(1.0);
            proptest::prop_assert_eq!(sorted_overlap_holds(&va, &vb, min, w), slow_w);
            proptest::prop_assert_eq!(overlap_holds(&a, &b, min), slow);
        }
    }

    /// A made-up word of letters only (the tokenizer drops words with two digits): `n` in
    /// base 26, prefixed so every word has at least four characters.
    fn word(prefix: &str, mut n: usize) -> String {
        let mut w = String::from(prefix);
        loop {
            w.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
            if n == 0 {
                break;
            }
        }
        w
    }

    /// A news-like collection written here (no corpus data): 60 stories of 100 words from a
    /// pool of 400 common words (df about 15, inside the lexicon window) and 50 words of
    /// their own (rare: the secondary lexicon). Story 0 appears twice: framed as written,
    /// and truncated (its last 15 common words gone) with a wire trailer added.
    fn syndicated_story() -> (Vec<String>, String, String) {
        let mut rng = SplitMix64::new(14);
        let story = |rng: &mut SplitMix64, k: usize| -> Vec<String> {
            let mut words: Vec<String> = (0..100).map(|_| word("comm", rng.below(400))).collect();
            words.sort();
            words.dedup();
            words.extend((0..50).map(|i| word(&format!("st{}", word("", k)), i)));
            words
        };
        let stories: Vec<Vec<String>> = (0..60).map(|k| story(&mut rng, k)).collect();
        let original = stories[0].join(" ");
        let common: Vec<&String> = stories[0]
            .iter()
            .filter(|w| w.starts_with("comm"))
            .collect();
        let cut = &common[common.len() - 15..];
        let mut copy: Vec<&str> = stories[0]
            .iter()
            .filter(|w| !cut.contains(w))
            .map(String::as_str)
            .collect();
        copy.extend(["reporting", "janeberg", "editing", "wirenews"]);
        let others = stories[1..].iter().map(|s| s.join(" ")).collect();
        (others, original, copy.join(" "))
    }

    #[test]
    fn small_bags_with_scaled_coverage_find_a_truncated_copy_with_a_trailer() {
        use crate::sig::lexicon::unique_terms;
        let (others, original, copy) = syndicated_story();
        let opts = TermOptions::default();
        let mut docs: Vec<BTreeSet<String>> =
            others.iter().map(|t| unique_terms(t, &opts)).collect();
        let (a, b) = (unique_terms(&original, &opts), unique_terms(&copy, &opts));
        docs.push(a.clone());
        docs.push(b.clone());
        let lex = Lexicon::build(&DocFreqs::from_documents(&docs), LexiconParams::default());
        let found = |params: IMatchParams| {
            let bagged = BaggedLexicon::new(&lex, params);
            let (sa, sb) = (bagged.sign(&a), bagged.sign(&b));
            extended_match(&extended_signature(&sa), &extended_signature(&sb))
        };
        let params = |bag_draws, scale_bag_coverage| IMatchParams {
            min_terms: 5,
            min_coverage: 0.2,
            bags: 30,
            bag_draws,
            scale_bag_coverage,
            ..IMatchParams::default()
        };
        // The two differ in 19 primary terms: the full lexicon's signature differs, and so
        // does every bootstrap bag (a bag misses all 19 with probability 0.37^19).
        assert!(!found(params(1.0, false)));
        // Bags of 10% of the lexicon miss all 19 with probability 0.9^19 ≈ 0.14 each, but
        // under the papers' coverage rule a bag of 10% covers too little of U and is never
        // signed from its own terms; scaled, one of the 30 bags signs both copies alike.
        assert!(!found(params(0.1, false)));
        assert!(found(params(0.1, true)));
        // Another story never matches.
        let other = unique_terms(&others[0], &opts);
        let bagged = BaggedLexicon::new(&lex, params(0.1, true));
        assert!(!extended_match(
            &extended_signature(&bagged.sign(&a)),
            &extended_signature(&bagged.sign(&other))
        ));
    }

    #[test]
    fn bag_coverage_scales_with_the_bag_size_only_when_asked() {
        let p = IMatchParams {
            min_coverage: 0.2,
            bag_draws: 0.5,
            ..IMatchParams::default()
        };
        assert_eq!(p.coverage_of(0), 0.2);
        assert_eq!(p.coverage_of(3), 0.2);
        let s = IMatchParams {
            scale_bag_coverage: true,
            ..p
        };
        assert_eq!(s.coverage_of(0), 0.2);
        assert!((s.coverage_of(1) - 0.2 * (1.0 - (-0.5f64).exp())).abs() < 1e-12);
        // A bag of 39% of L asks a page for 0.079 coverage: 8 of 100 unique terms signs.
        let words: Vec<String> = (0..400).map(|i| word("term", i)).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let lex = lexicon(&refs, &[]);
        let doc: BTreeSet<String> = words[..100].iter().cloned().collect();
        let unique = 400; // 300 more terms outside the lexicon
        let classes: Vec<(&str, TermClass)> = doc
            .iter()
            .filter_map(|t| lex.class_of(t).map(|c| (t.as_str(), c)))
            .collect();
        let bags = |scale_bag_coverage| {
            BaggedLexicon::new(
                &lex,
                IMatchParams {
                    bags: 20,
                    scale_bag_coverage,
                    min_terms: 1,
                    ..p
                },
            )
            .sign_classes(&classes, unique)
        };
        // Coverage 100/400 = 0.25 signs coordinate 0 either way; a bag keeps about 39
        // terms (0.098): below 0.2, above 0.079.
        let (full, scaled) = (bags(false), bags(true));
        assert!(full[0].signature().is_some() && scaled[0].signature().is_some());
        assert!(full[1..]
            .iter()
            .all(|o| matches!(o, SigOutcome::Unreliable { .. })));
        assert!(
            scaled[1..]
                .iter()
                .filter(|o| o.signature().is_some())
                .count()
                >= 15
        );
    }

    #[test]
    fn signature_is_order_independent_and_deduplicated() {
        assert_eq!(
            hash_terms(["beta", "alpha", "gamma"]),
            hash_terms(["gamma", "alpha", "beta", "alpha"])
        );
        assert_ne!(
            hash_terms(["alpha", "beta"]),
            hash_terms(["alpha", "gamma"])
        );
    }

    #[test]
    fn separator_prevents_concatenation_collisions() {
        assert_ne!(hash_terms(["abcd", "efgh"]), hash_terms(["abc", "defgh"]));
        assert_ne!(hash_terms(["abcdefgh"]), hash_terms(["abcd", "efgh"]));
        // The separator cannot come out of the tokenizer.
        let u = crate::sig::lexicon::unique_terms("abcd\nefgh", &TermOptions::default());
        assert!(u.iter().all(|t| !t.as_bytes().contains(&TERM_SEPARATOR)));
    }

    #[test]
    fn sha1_of_known_input() {
        // sha1("abcd\nefgh") computed independently (`printf 'abcd\nefgh' | sha1sum`).
        assert_eq!(
            to_hex(&hash_terms(["efgh", "abcd"])),
            "a17becbfc892a4890fc468703c476e98b27ce56d"
        );
    }

    #[test]
    fn signature_uses_only_primary_terms() {
        let lex = lexicon(&["alpha", "beta", "gamma"], &[("rare", 1)]);
        let b = BaggedLexicon::new(&lex, plain(2, 0.0));
        let doc = set(&["alpha", "beta", "rare", "unknownword"]);
        let out = b.sign_coordinate(&doc, 0);
        assert_eq!(out.signature(), Some(hash_terms(["alpha", "beta"])));
    }

    #[test]
    fn too_few_terms_gives_no_signature() {
        let lex = lexicon(&["alpha", "beta", "gamma"], &[]);
        let b = BaggedLexicon::new(&lex, plain(3, 0.0));
        assert_eq!(
            b.sign_coordinate(&set(&["alpha", "beta"]), 0),
            SigOutcome::TooFewTerms { terms: 2 }
        );
        assert!(b
            .sign_coordinate(&set(&["alpha", "beta", "gamma"]), 0)
            .signature()
            .is_some());
        // Even min_terms = 0 never signs the empty set (all empty pages would cluster).
        let b0 = BaggedLexicon::new(&lex, plain(0, 0.0));
        assert_eq!(
            b0.sign_coordinate(&set(&[]), 0),
            SigOutcome::TooFewTerms { terms: 0 }
        );
    }

    #[test]
    fn reliability_extends_with_most_frequent_secondary_terms() {
        let lex = lexicon(&["alpha"], &[("often", 2), ("seldom", 1), ("never", 1)]);
        // U has 10 terms, 1 primary: coverage 0.1; require 0.3 → add 2 from B.
        let doc = set(&[
            "alpha", "often", "seldom", "never", "w1xx", "w2xx", "w3xx", "w4xx", "w5xx", "w6xx",
        ]);
        let b = BaggedLexicon::new(&lex, plain(1, 0.3));
        let out = b.sign_coordinate(&doc, 0);
        // B rank: often (df 2), never (df 1, 'n' < 's'), seldom.
        assert_eq!(
            out,
            SigOutcome::Signed {
                sig: hash_terms(["alpha", "often", "never"]),
                terms: 3,
                extended: 2
            }
        );
        // Exactly at the threshold: no extension.
        let b = BaggedLexicon::new(&lex, plain(1, 0.1));
        assert_eq!(
            b.sign_coordinate(&doc, 0),
            SigOutcome::Signed {
                sig: hash_terms(["alpha"]),
                terms: 1,
                extended: 0
            }
        );
    }

    #[test]
    fn reliability_rejects_when_secondary_terms_run_out() {
        let lex = lexicon(&["alpha"], &[("often", 2)]);
        let doc = set(&["alpha", "often", "w1xx", "w2xx", "w3xx", "w4xx"]);
        let b = BaggedLexicon::new(&lex, plain(1, 0.5));
        assert_eq!(
            b.sign_coordinate(&doc, 0),
            SigOutcome::Unreliable {
                terms: 2,
                unique: 6
            }
        );
        let counts = count_rules([b.sign(&doc).as_slice()]);
        assert_eq!(counts[0].unreliable, 1);
    }

    #[test]
    fn bootstrap_keeps_about_63_percent_and_reproduces() {
        let n = 20_000;
        let mask = bootstrap_mask(n, &mut SplitMix64::new(42));
        let kept = mask.iter().filter(|&&k| k).count() as f64 / n as f64;
        let expected = 1.0 - bag_absence_probability(n);
        // sd of the kept fraction is about sqrt(p(1-p)/n) ≈ 0.0034; allow 4 sd.
        assert!(
            (kept - expected).abs() < 0.014,
            "kept {kept}, expected {expected}"
        );
        assert!((expected - (1.0 - (-1f64).exp())).abs() < 1e-4);
        assert_eq!(mask, bootstrap_mask(n, &mut SplitMix64::new(42)));
        assert_ne!(mask, bootstrap_mask(n, &mut SplitMix64::new(43)));
    }

    #[test]
    fn bags_are_seeded_and_stable_when_k_grows() {
        let words: Vec<String> = (0..500).map(|i| format!("term{i:03}x")).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let lex = lexicon(&refs, &[]);
        let p = |bags, seed| IMatchParams {
            bags,
            seed,
            ..IMatchParams::default()
        };
        let a = BaggedLexicon::new(&lex, p(3, 7));
        let b = BaggedLexicon::new(&lex, p(5, 7));
        assert_eq!(a.bags[..], b.bags[..3]);
        assert_ne!(a.bags[0], a.bags[1]);
        assert_ne!(a.bags, BaggedLexicon::new(&lex, p(3, 8)).bags);
        assert_eq!(a.coordinates(), 4);
    }

    #[test]
    fn bags_by_term_keep_a_terms_place_whatever_else_the_lexicon_holds() {
        // One lexicon, and the same with its first term gone and two new ones: by index,
        // every later index moves and the bags are redrawn; by term, every term the two
        // share keeps its place in every bag, primary or secondary.
        let words: Vec<String> = (0..400).map(|i| format!("term{i:03}x")).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let secondary = [("solo1", 1), ("solo2", 2), ("solo3", 1)];
        let before = lexicon(&refs[..300], &secondary);
        let mut changed: Vec<&str> = refs[1..300].to_vec();
        changed.extend(["aardvark", "zebra"]);
        let after = lexicon(&changed, &secondary);
        let moved = |by_term: bool| -> usize {
            let p = IMatchParams {
                bags: 20,
                bags_by_term: by_term,
                ..IMatchParams::default()
            };
            let (a, b) = (
                BaggedLexicon::new(&before, p),
                BaggedLexicon::new(&after, p),
            );
            let mut moved = 0;
            for k in 1..=20 {
                for t in &refs[1..300] {
                    moved += usize::from(a.in_primary(k, t) != b.in_primary(k, t));
                }
                let in_b = |l: &BaggedLexicon, t: &str| match l.lexicon.class_of(t) {
                    Some(TermClass::Secondary(r)) => l.bags[k - 1].secondary[r],
                    _ => false,
                };
                for (t, _) in &secondary {
                    moved += usize::from(in_b(&a, t) != in_b(&b, t));
                }
            }
            moved
        };
        assert!(moved(false) > 1000, "by index: {} moved", moved(false));
        assert_eq!(moved(true), 0);
    }

    #[test]
    fn bags_by_term_keep_the_share_of_the_bootstrap() {
        // About 1 − e^−F of the terms, as the draws with replacement keep.
        let words: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let lex = lexicon(&refs, &[]);
        for draws in [1.0, 0.1] {
            let p = IMatchParams {
                bags: 4,
                bag_draws: draws,
                bags_by_term: true,
                ..IMatchParams::default()
            };
            let bagged = BaggedLexicon::new(&lex, p);
            let want: f64 = 1.0 - (-draws).exp();
            for bag in &bagged.bags {
                let share = bag.primary.iter().filter(|&&k| k).count() as f64 / 20_000.0;
                assert!(
                    (share - want).abs() < 0.015,
                    "{draws}: {share} against {want}"
                );
            }
            assert_ne!(bagged.bags[0], bagged.bags[1]);
        }
    }

    #[test]
    fn bags_keep_terms_rarer_than_bag_max_idf_in_every_bag() {
        // N = 100: "common…" df 30 → idf 0.26, "rare…" df 10 → idf 0.5 (both in L), "solo"
        // df 1 → idf 1 (B).
        let mut dfs = DocFreqs {
            n_docs: 100,
            ..Default::default()
        };
        let common: Vec<String> = (0..300).map(|i| format!("common{i:03}")).collect();
        let rare: Vec<String> = (0..300).map(|i| format!("rare{i:03}")).collect();
        for t in &common {
            dfs.df.insert(t.clone(), 30);
        }
        for t in &rare {
            dfs.df.insert(t.clone(), 10);
        }
        dfs.df.insert("solo".into(), 1);
        let lex = Lexicon::build(&dfs, LexiconParams::default());
        let bagged = |bag_max_idf| {
            BaggedLexicon::new(
                &lex,
                IMatchParams {
                    bags: 20,
                    bag_max_idf,
                    ..IMatchParams::default()
                },
            )
        };
        let (papers, ours) = (bagged(1.0), bagged(0.4));
        let idx = |t: &str| match lex.class_of(t) {
            Some(TermClass::Primary(i)) => i,
            other => panic!("{t}: {other:?}"),
        };
        let absent = |b: &BaggedLexicon, terms: &[String]| -> f64 {
            let n: usize = b
                .bags
                .iter()
                .map(|bag| terms.iter().filter(|t| !bag.primary[idx(t)]).count())
                .sum();
            n as f64 / (b.bags.len() * terms.len()) as f64
        };
        // The papers' bootstrap drops about 1/e of every kind of term.
        assert!((absent(&papers, &rare) - 0.368).abs() < 0.03);
        assert!((absent(&papers, &common) - 0.368).abs() < 0.03);
        // With bag_max_idf = 0.4, rare terms (idf 0.5) and B are in every bag; the common
        // ones are sampled exactly as before.
        assert_eq!(absent(&ours, &rare), 0.0);
        assert!(ours.bags.iter().all(|b| b.secondary.iter().all(|&k| k)));
        for (p, o) in papers.bags.iter().zip(&ours.bags) {
            for t in &common {
                assert_eq!(p.primary[idx(t)], o.primary[idx(t)]);
            }
        }
    }

    #[test]
    fn a_saved_lexicon_signs_another_collection_like_the_original() {
        use crate::sig::lexicon::unique_terms;
        let source: Vec<BTreeSet<String>> = (0..50)
            .map(|d| {
                // Word w is in every (w+2)-th document: df from 25 down to 2.
                (0..26)
                    .filter(|w| d % (w + 2) == 0)
                    .map(|w| format!("word{}x", char::from(b'a' + w as u8)))
                    .collect()
            })
            .collect();
        let lex = Lexicon::build(&DocFreqs::from_documents(&source), LexiconParams::default());
        assert!(lex.primary().len() >= 10, "{}", lex.primary().len());
        let loaded = Lexicon::from_text(&lex.to_text()).expect("round trip");
        let target = [
            "wordax wordbx wordcx worddx wordex wordfx wordgx wordhx other words",
            "wordix wordjx wordkx wordlx wordmx wordnx wordox wordpx wordqx",
        ];
        let params = IMatchParams {
            min_coverage: 0.0,
            ..IMatchParams::default()
        };
        let (a, b) = (
            BaggedLexicon::new(&lex, params),
            BaggedLexicon::new(&loaded, params),
        );
        for t in target {
            let u = unique_terms(t, &loaded.params.terms);
            assert_eq!(a.sign(&u), b.sign(&u));
        }
        let uniques: Vec<BTreeSet<String>> = target
            .iter()
            .map(|t| unique_terms(t, &loaded.params.terms))
            .collect();
        let (sigs, counts) = sign_documents(&b, &uniques);
        assert_eq!(sigs.len(), 2);
        assert_eq!(counts.len(), params.bags + 1);
        assert_eq!(
            counts[0].signed + counts[0].too_few_terms + counts[0].unreliable,
            2
        );
    }

    #[test]
    fn extended_match_needs_one_equal_present_coordinate() {
        let s = |b: u8| Some([b; 20]);
        assert!(extended_match(&[s(1), s(2)], &[s(3), s(2)]));
        assert!(!extended_match(&[s(1), None], &[s(3), None]));
        assert!(!extended_match(&[None], &[None]));
    }

    #[test]
    fn explanation_lists_shared_and_one_sided_terms_with_spans() {
        let lex = lexicon(&["market", "stocks", "bonds"], &[]);
        let a = "Stocks rose; the market, the MARKET.";
        let b = "Bonds fell and stocks too";
        let e = shared_lexicon_terms(a, b, &lex, &TermOptions::default());
        assert_eq!(e.shared.len(), 1);
        assert_eq!(e.shared[0].term, "stocks");
        assert_eq!(e.shared[0].in_a, vec![(0, 6)]);
        assert_eq!(e.shared[0].in_b, vec![(15, 21)]);
        assert_eq!(e.only_a[0].term, "market");
        assert_eq!(e.only_a[0].spans.len(), 2);
        assert_eq!(&a[e.only_a[0].spans[1].0..e.only_a[0].spans[1].1], "MARKET");
        assert_eq!(e.only_b[0].term, "bonds");
    }

    /// The signing of one coordinate as it was written before the terms were sorted once
    /// per document (strings chosen, then sorted by `hash_terms`): the slow reference.
    fn reference_coordinate(
        b: &BaggedLexicon<'_>,
        classes: &[(&str, TermClass)],
        unique_len: usize,
        coordinate: usize,
    ) -> SigOutcome {
        let bag = match coordinate {
            0 => None,
            k => match b.bags.get(k - 1) {
                Some(bag) => Some(bag),
                None => return SigOutcome::TooFewTerms { terms: 0 },
            },
        };
        let mut chosen: Vec<&str> = Vec::new();
        let mut secondary: Vec<(usize, &str)> = Vec::new();
        for &(t, class) in classes {
            match class {
                TermClass::Primary(i) if bag.is_none_or(|g| g.primary[i]) => chosen.push(t),
                TermClass::Secondary(r) if bag.is_none_or(|g| g.secondary[r]) => {
                    secondary.push((r, t))
                }
                _ => {}
            }
        }
        let coverage = if coordinate > 0 && b.params.scale_bag_coverage {
            b.params.min_coverage * (1.0 - (-b.params.bag_draws).exp())
        } else {
            b.params.min_coverage
        };
        let covered = |n: usize| n as f64 >= coverage * unique_len as f64;
        let mut extended = 0;
        if coverage > 0.0 && !covered(chosen.len()) {
            secondary.sort_unstable();
            for (_, t) in secondary {
                if covered(chosen.len()) {
                    break;
                }
                chosen.push(t);
                extended += 1;
            }
            if !covered(chosen.len()) {
                return SigOutcome::Unreliable {
                    terms: chosen.len(),
                    unique: unique_len,
                };
            }
        }
        if chosen.len() < b.params.min_terms || chosen.is_empty() {
            return SigOutcome::TooFewTerms {
                terms: chosen.len(),
            };
        }
        SigOutcome::Signed {
            sig: hash_terms(chosen.iter().copied()),
            terms: chosen.len(),
            extended,
        }
    }

    proptest::proptest! {
        /// Sorting a document's terms once for all coordinates signs every coordinate as
        /// the reference does, whatever the bags, coverage rule and term order.
        #[test]
        fn sorted_once_signs_like_the_reference(
            doc in proptest::collection::vec(0usize..200, 0..200),
            extra in 0usize..30,
            min_terms in 0usize..6,
            coverage in proptest::sample::select(vec![0.0, 0.1, 0.3, 0.6, 0.9]),
            bags in proptest::prop_oneof![0usize..6, 60usize..70],
            seed in 0u64..1000,
            scale_bag_coverage in proptest::bool::ANY,
            bag_draws in proptest::sample::select(vec![1.0, 0.5, 0.1]),
            bags_by_term in proptest::bool::ANY,
        ) {
            // Words 0..100 are primary (df 10), 100..200 secondary with df 1 or 2 (ranks
            // tie on df, broken by term); a document holds up to 200, more than one block
            // of 64 positions.
            let name = |i: usize| format!("w{:02}{}", (i * 7919) % 97, i);
            let primary: Vec<String> = (0..100).map(name).collect();
            let secondary: Vec<(String, u32)> =
                (100..200).map(|i| (name(i), 1 + (i % 2) as u32)).collect();
            let p: Vec<&str> = primary.iter().map(String::as_str).collect();
            let s: Vec<(&str, u32)> = secondary.iter().map(|(t, d)| (t.as_str(), *d)).collect();
            let lex = lexicon(&p, &s);
            let params = IMatchParams { min_terms, min_coverage: coverage, bags, seed, bag_max_idf: 1.0, bag_draws, short_min_terms: 0, scale_bag_coverage, bags_by_term };
            let b = BaggedLexicon::new(&lex, params);
            let words: BTreeSet<String> = doc.iter().map(|&i| name(i)).collect();
            // Terms not in the lexicon count in |U| only.
            let unique_len = words.len() + extra;
            let mut classes: Vec<(&str, TermClass)> = words
                .iter()
                .filter_map(|t| lex.class_of(t).map(|c| (t.as_str(), c)))
                .collect();
            classes.reverse();
            let fast = b.sign_classes(&classes, unique_len);
            let slow: Vec<SigOutcome> = (0..b.coordinates())
                .map(|c| reference_coordinate(&b, &classes, unique_len, c))
                .collect();
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
