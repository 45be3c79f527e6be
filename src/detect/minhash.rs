//! MinHash LSH (Broder 1997; banding as in Leskovec, Rajaraman, Ullman, *Mining of Massive
//! Datasets* ch. 3) as a row of the method table: the baseline every peer uses (datasketch,
//! datatrove, NeMo Curator, rensa). This module owns the whole method: shingling (word or
//! character k-shingles hashed to 64 bits), the MinHash signature under universal-hash
//! permutations, the choice of bands × rows from a Jaccard threshold (datasketch's
//! `_optimal_param`), banded candidate generation, the exact Jaccard check of every candidate
//! (so every reported pair is exact and its score is its Jaccard), and the explanation (the
//! shingles both texts contain).
//!
//! Hashing. A shingle is hashed with a small hand-written function: each word (or character)
//! is folded 8 bytes at a time through MurmurHash3's 64-bit finalizer `fmix64`, then the k
//! word hashes are folded the same way, from fixed seeds ([`SHINGLE_SEED`]). Written here
//! rather than taken from a crate so a stored signature can never change with a dependency
//! upgrade (the reason I-Match's `SplitMix64` is hand-written too); `fmix64` is a bijection
//! with full avalanche, which is all a non-adversarial 64-bit set hash needs. Two distinct
//! shingles of a collection collide with probability about n²/2⁶⁵, negligible below 10⁸
//! shingles. The permutations are `π_i(x) = (a_i·x + b_i) mod (2⁶¹ − 1)` as in datasketch,
//! with `a_i ∈ [1, p)`, `b_i ∈ [0, p)` drawn from SplitMix64 seeded by `--minhash-seed`.

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::explain::{Highlight, HighlightKind};
use super::method::{Detector, Found, InAll, PairText, RunContext};
use super::params::{Kind, Param, Value};
use super::shared::Shared;
use crate::sig::imatch::SplitMix64;
use crate::store::{DocText, Store, TextKind};
use crate::text::tokenize;

/// The Mersenne prime 2⁶¹ − 1 the permutations work modulo (datasketch's `_mersenne_prime`).
pub const MERSENNE_61: u64 = (1 << 61) - 1;

/// Seed of the shingle hash. Fixed: it is part of what a stored signature means.
pub const SHINGLE_SEED: u64 = 0x5EED_5407_C4EC_0001;

/// Default permutation seed (datasketch's default `seed=1`).
pub const DEFAULT_SEED: u64 = 1;

/// Most permutations `--minhash-perms` takes (a signature of 4096 × 8 bytes per document).
const MAX_PERMS: u64 = 4096;

/// Which units a shingle is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shingle {
    /// k consecutive words (lowercased tokens, see `text::tokenize`).
    Word,
    /// k consecutive characters (lowercased, whitespace runs as one space).
    Char,
}

/// MinHash settings of one run (stored as the run's parameters, with the bands and rows
/// actually used; see `stored_params`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct MinHashSettings {
    /// Jaccard threshold: the bands are chosen for it and every reported pair reaches it.
    pub threshold: f64,
    /// Number of permutations (the signature's length).
    pub perms: usize,
    /// Bands (`None`: chosen from the threshold); rows are `perms / bands`.
    pub bands: Option<usize>,
    pub shingle: Shingle,
    /// Words or characters per shingle.
    pub shingle_size: usize,
    /// Seed of the permutations.
    pub seed: u64,
    pub text: TextKind,
}

impl Default for MinHashSettings {
    fn default() -> Self {
        MinHashSettings {
            threshold: 0.8,
            perms: 128,
            bands: None,
            shingle: Shingle::Word,
            shingle_size: 5,
            seed: DEFAULT_SEED,
            // The peers run MinHash on extracted content (datatrove after trafilatura); here
            // that is the content text every detector reads by default.
            text: TextKind::Content,
        }
    }
}

impl MinHashSettings {
    /// The bands and rows this run uses.
    pub fn bands_rows(&self) -> (usize, usize) {
        match self.bands {
            Some(b) if b > 0 => (b, self.perms / b),
            _ => optimal_bands_rows(self.threshold, self.perms, 0.5, 0.5),
        }
    }
}

/// The MinHash row of the method table.
pub struct MinHash;

type S = MinHashSettings;

static PARAMS: &[Param<S>] = &[
    Param {
        flag: "minhash-threshold",
        value_name: "F",
        kind: Kind::open_closed(0.0, 1.0),
        help: "MinHash: Jaccard threshold of a pair over shingle sets; chooses the bands, and \
               every candidate is checked exactly against it.",
        paper: None,
        get: |s| Some(Value::Float(s.threshold)),
        unset: "",
        set: |s, v| s.threshold = v.float(),
    },
    Param {
        flag: "minhash-perms",
        value_name: "N",
        kind: Kind::Int {
            min: 1,
            max: MAX_PERMS,
        },
        help: "MinHash: number of permutations (signature length).",
        paper: None,
        get: |s| Some(Value::Int(s.perms as u64)),
        unset: "",
        set: |s, v| s.perms = v.int() as usize,
    },
    Param {
        flag: "minhash-bands",
        value_name: "B",
        kind: Kind::Int {
            min: 1,
            max: MAX_PERMS,
        },
        help: "MinHash: LSH bands of perms/B rows each (at most --minhash-perms).",
        paper: None,
        get: |s| s.bands.map(|b| Value::Int(b as u64)),
        unset: "chosen from the threshold as datasketch does (0.8, 128 perms: 9 × 13 rows)",
        set: |s, v| s.bands = Some(v.int() as usize),
    },
    Param {
        flag: "char-shingles",
        value_name: "",
        kind: Kind::Switch,
        help: "MinHash: shingles of characters (lowercased, whitespace runs as one space) \
               instead of words.",
        paper: None,
        get: |s| Some(Value::Switch(s.shingle == Shingle::Char)),
        unset: "",
        set: |s, v| {
            if v.on() {
                s.shingle = Shingle::Char;
            }
        },
    },
    Param {
        flag: "shingle-size",
        value_name: "K",
        kind: Kind::Int { min: 1, max: 64 },
        help: "MinHash: words (or characters) per shingle.",
        paper: None,
        get: |s| Some(Value::Int(s.shingle_size as u64)),
        unset: "",
        set: |s, v| s.shingle_size = v.int() as usize,
    },
    Param {
        flag: "minhash-seed",
        value_name: "N",
        kind: Kind::at_least(0),
        help: "MinHash: seed of the permutations (recorded with the run).",
        paper: None,
        get: |s| Some(Value::Int(s.seed)),
        unset: "",
        set: |s, v| s.seed = v.int(),
    },
];

// ---------------------------------------------------------------------------------------
// Hashing and shingles

/// MurmurHash3's 64-bit finalizer: a bijection with full avalanche.
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// One step of the fold: for a fixed state, distinct inputs give distinct outputs.
fn fold(h: u64, x: u64) -> u64 {
    fmix64(h ^ x)
}

/// Hash of a byte string (8 bytes at a time; the length goes first so zero padding of the
/// last word cannot make two strings equal).
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = fold(SHINGLE_SEED, bytes.len() as u64);
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = fold(h, u64::from_le_bytes(word));
    }
    h
}

/// A unit (word or character) of a text: its hash and its byte span.
struct Unit {
    hash: u64,
    start: usize,
    end: usize,
}

/// The units of `text` that shingles are made of.
fn units(text: &str, kind: Shingle) -> Vec<Unit> {
    match kind {
        Shingle::Word => tokenize(text)
            .into_iter()
            .map(|t| Unit {
                hash: hash_bytes(t.norm.as_bytes()),
                start: t.start,
                end: t.end,
            })
            .collect(),
        Shingle::Char => {
            let mut out: Vec<Unit> = Vec::with_capacity(text.len());
            let mut space = true; // no leading space
            for (i, c) in text.char_indices() {
                let end = i + c.len_utf8();
                if c.is_whitespace() {
                    if !space {
                        out.push(Unit {
                            hash: hash_bytes(b" "),
                            start: i,
                            end,
                        });
                    }
                    space = true;
                    continue;
                }
                space = false;
                let lower: String = c.to_lowercase().collect();
                out.push(Unit {
                    hash: hash_bytes(lower.as_bytes()),
                    start: i,
                    end,
                });
            }
            // A text ending in whitespace pushed one space for it last: no trailing space.
            if space && !out.is_empty() {
                out.pop();
            }
            out
        }
    }
}

/// The k-shingles of `text` as `(hash, start byte, end byte)`, in text order (repeats kept).
/// A text with fewer than k units has none: it is left out of matching.
pub fn shingles_with_spans(text: &str, kind: Shingle, k: usize) -> Vec<(u64, usize, usize)> {
    let units = units(text, kind);
    if k == 0 || units.len() < k {
        return Vec::new();
    }
    units
        .windows(k)
        .map(|w| {
            let h = w
                .iter()
                .fold(fold(SHINGLE_SEED, k as u64), |h, u| fold(h, u.hash));
            (h, w[0].start, w[k - 1].end)
        })
        .collect()
}

/// The set of k-shingle hashes of `text`, sorted and without repeats.
pub fn shingle_set(text: &str, kind: Shingle, k: usize) -> Vec<u64> {
    let mut s: Vec<u64> = shingles_with_spans(text, kind, k)
        .into_iter()
        .map(|(h, _, _)| h)
        .collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// Exact Jaccard of two sorted sets: `(|A ∩ B|, |A ∪ B|)` (the set join's, one loop for both).
pub use crate::cluster::set_join::intersection_union;

/// Jaccard from `(intersection, union)`; two empty sets are not similar.
pub fn jaccard((inter, union): (usize, usize)) -> f64 {
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

// ---------------------------------------------------------------------------------------
// Bands and rows

/// Probability that a pair of Jaccard `s` shares at least one of `b` bands of `r` rows.
fn collision(s: f64, b: usize, r: usize) -> f64 {
    1.0 - (1.0 - s.powi(r as i32)).powi(b as i32)
}

/// ∫ f over [lo, hi] by composite Simpson with 1000 intervals; the integrands are smooth
/// polynomials in s, so this agrees with scipy's `quad` (what datasketch calls) to far more
/// digits than the choice of (b, r) depends on.
fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    const N: usize = 1000;
    let h = (hi - lo) / N as f64;
    let mut sum = f(lo) + f(hi);
    for i in 1..N {
        let x = lo + i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    sum * h / 3.0
}

/// The bands and rows datasketch's `MinHashLSH` chooses (`_optimal_param`): over every
/// `b ≥ 1`, `r ≥ 1` with `b·r ≤ perms`, the pair minimizing the weighted false-positive area
/// ∫₀ᵗ P(s) ds plus false-negative area ∫ₜ¹ (1 − P(s)) ds, first minimum in b-then-r order.
pub fn optimal_bands_rows(
    threshold: f64,
    perms: usize,
    fp_weight: f64,
    fn_weight: f64,
) -> (usize, usize) {
    let mut best = (f64::INFINITY, (1, perms.max(1)));
    for b in 1..=perms {
        for r in 1..=perms / b {
            let fp = integrate(|s| collision(s, b, r), 0.0, threshold);
            let fneg = integrate(|s| 1.0 - collision(s, b, r), threshold, 1.0);
            let err = fp * fp_weight + fneg * fn_weight;
            if err < best.0 {
                best = (err, (b, r));
            }
        }
    }
    best.1
}

// ---------------------------------------------------------------------------------------
// Signing and matching

/// Everything signing needs, made once per run.
pub struct Prepared {
    settings: S,
    /// `(a_i, b_i)` of each permutation.
    perms: Vec<(u64, u64)>,
    bands: usize,
    rows: usize,
}

/// `x mod (2⁶¹ − 1)` for any 128-bit x below 2¹²².
fn mod_m61(x: u128) -> u64 {
    let m = u128::from(MERSENNE_61);
    let mut v = (x & m) + (x >> 61);
    v = (v & m) + (v >> 61);
    let v = v as u64;
    if v >= MERSENNE_61 {
        v - MERSENNE_61
    } else {
        v
    }
}

impl Prepared {
    pub fn new(settings: &S) -> Prepared {
        let mut rng = SplitMix64::new(settings.seed);
        // Uniform in [lo, p) by rejection: 2⁶⁴ is not a multiple of p, and a biased draw
        // would make the family slightly less universal.
        let mut draw = |lo: u64| loop {
            let x = rng.next_u64() >> 3;
            if (lo..MERSENNE_61).contains(&x) {
                break x;
            }
        };
        let perms = (0..settings.perms).map(|_| (draw(1), draw(0))).collect();
        let (bands, rows) = settings.bands_rows();
        Prepared {
            settings: settings.clone(),
            perms,
            bands,
            rows,
        }
    }

    /// `(bands, rows)` of this run.
    pub fn bands_rows(&self) -> (usize, usize) {
        (self.bands, self.rows)
    }

    /// The MinHash signature of a shingle set (empty for an empty set).
    pub fn minhash(&self, shingles: &[u64]) -> Vec<u64> {
        if shingles.is_empty() {
            return Vec::new();
        }
        let mut mins = vec![u64::MAX; self.perms.len()];
        for &h in shingles {
            let x = u128::from(mod_m61(u128::from(h)));
            for (m, &(a, b)) in mins.iter_mut().zip(&self.perms) {
                let v = mod_m61(u128::from(a) * x + u128::from(b));
                if v < *m {
                    *m = v;
                }
            }
        }
        mins
    }

    /// One hash per band of a signature.
    pub fn band_hashes(&self, minhash: &[u64]) -> Vec<u64> {
        if minhash.is_empty() {
            return Vec::new();
        }
        (0..self.bands)
            .map(|band| {
                let rows = &minhash[band * self.rows..(band + 1) * self.rows];
                rows.iter()
                    .fold(fold(SHINGLE_SEED, band as u64), |h, &v| fold(h, v))
            })
            .collect()
    }

    /// Signs one text: its shingle set and band hashes.
    pub fn sign(&self, text: &str) -> DocSig {
        let shingles = shingle_set(text, self.settings.shingle, self.settings.shingle_size);
        let bands = self.band_hashes(&self.minhash(&shingles));
        DocSig { shingles, bands }
    }
}

/// A document's signature: its shingle set (kept for the exact check) and band hashes.
pub struct DocSig {
    pub shingles: Vec<u64>,
    pub bands: Vec<u64>,
}

/// A pair that passed the exact check: document indices, shared and total shingles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinHashPair {
    pub a: u32,
    pub b: u32,
    pub shared: usize,
    pub union: usize,
}

impl MinHashPair {
    pub fn score(&self) -> f64 {
        jaccard((self.shared, self.union))
    }
}

/// Candidate pairs `(a < b)`: documents that share some band hash, sorted, without repeats.
pub fn candidates(sigs: &[DocSig], bands: usize) -> Vec<(u32, u32)> {
    let mut all: Vec<(u32, u32)> = (0..bands)
        .into_par_iter()
        .flat_map_iter(|band| {
            let mut buckets: HashMap<u64, Vec<u32>> = HashMap::new();
            for (i, s) in sigs.iter().enumerate() {
                if let Some(&h) = s.bands.get(band) {
                    buckets.entry(h).or_default().push(i as u32);
                }
            }
            let mut out = Vec::new();
            for members in buckets.values().filter(|m| m.len() > 1) {
                for (x, &a) in members.iter().enumerate() {
                    out.extend(members[x + 1..].iter().map(|&b| (a, b)));
                }
            }
            out
        })
        .collect();
    all.par_sort_unstable();
    all.dedup();
    all
}

/// The candidates whose exact Jaccard reaches the threshold.
pub fn verify(sigs: &[DocSig], candidates: &[(u32, u32)], threshold: f64) -> Vec<MinHashPair> {
    candidates
        .par_iter()
        .filter_map(|&(a, b)| {
            let (shared, union) =
                intersection_union(&sigs[a as usize].shingles, &sigs[b as usize].shingles);
            let p = MinHashPair {
                a,
                b,
                shared,
                union,
            };
            (p.score() >= threshold).then_some(p)
        })
        .collect()
}

/// Every pair (document ids, a < b, sorted) whose exact Jaccard under `settings` reaches
/// its threshold, with that Jaccard, without storing a run: the cheap candidate generator
/// of `spotcheck sample` (run at a low threshold, so its strata reach pairs no detector
/// proposed).
pub fn candidate_pairs(store: &Store, settings: &MinHashSettings) -> Result<Vec<(i64, i64, f64)>> {
    let prepared = Prepared::new(settings);
    let mut ids: Vec<i64> = Vec::new();
    let mut sigs: Vec<DocSig> = Vec::new();
    store.for_each_text_chunk(settings.text, 1024, |chunk| {
        let signed: Vec<DocSig> = chunk.par_iter().map(|d| prepared.sign(&d.text)).collect();
        ids.extend(chunk.iter().map(|d| d.id));
        sigs.extend(signed);
        Ok(())
    })?;
    let (bands, _) = prepared.bands_rows();
    let found = verify(&sigs, &candidates(&sigs, bands), settings.threshold);
    let mut out: Vec<(i64, i64, f64)> = found
        .into_iter()
        .map(|p| {
            let (a, b) = (ids[p.a as usize], ids[p.b as usize]);
            (a.min(b), a.max(b), p.score())
        })
        .collect();
    out.sort_by_key(|x| (x.0, x.1));
    Ok(out)
}

/// Lower-case hex of a band hash, as `spotcheck sigs` shows it.
fn hex(h: u64) -> String {
    format!("{h:016x}")
}

impl Detector for MinHash {
    type Settings = MinHashSettings;
    type Prepared = Prepared;
    type Sig = DocSig;

    const NAME: &'static str = "minhash";
    const TITLE: &'static str = "MinHash LSH";
    const IN_ALL: InAll = InAll::Never;

    fn params() -> &'static [Param<S>] {
        PARAMS
    }

    fn text(s: &mut S) -> Option<&mut TextKind> {
        Some(&mut s.text)
    }

    fn check(s: &S) -> Result<(), String> {
        match s.bands {
            Some(b) if b > s.perms => Err(format!(
                "--minhash-bands: expected at most --minhash-perms ({}), got {b}",
                s.perms
            )),
            _ => Ok(()),
        }
    }

    fn prepare(s: &S, _store: &Store, _shared: &Shared) -> Result<Prepared> {
        Ok(Prepared::new(s))
    }

    fn reads(p: &Prepared) -> TextKind {
        p.settings.text
    }

    /// The settings with the bands actually used, and the rows.
    fn stored_params(s: &S, p: &Prepared) -> Result<serde_json::Value> {
        let mut v = serde_json::to_value(s)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("bands".into(), json!(p.bands));
            o.insert("rows".into(), json!(p.rows));
        }
        Ok(v)
    }

    fn signer(p: &Prepared) -> impl Fn(&DocText) -> DocSig + Sync + '_ {
        move |d| p.sign(&d.text)
    }

    fn find_pairs(p: Prepared, sigs: Vec<DocSig>, ctx: &RunContext) -> Result<Found> {
        let signed_at = ctx.started.elapsed().as_secs_f64();
        let matched = Instant::now();
        let cands = candidates(&sigs, p.bands);
        let pairs = verify(&sigs, &cands, p.settings.threshold);
        let match_seconds = matched.elapsed().as_secs_f64();
        let matchable = sigs.iter().filter(|s| !s.shingles.is_empty()).count();
        let summary = json!({
            "documents": sigs.len(),
            "matchable": matchable,
            "too_short": sigs.len() - matchable,
            "bands": p.bands,
            "rows": p.rows,
            "candidates": cands.len(),
            "pairs": pairs.len(),
            "sign_seconds": signed_at,
            "match_seconds": match_seconds,
        });
        // Only what `sigs` shows is kept past here: shingle count and band hashes.
        let doc_sigs: Vec<(usize, Vec<u64>)> = sigs
            .into_iter()
            .map(|s| (s.shingles.len(), s.bands))
            .collect();
        Ok(Found {
            pairs: pairs.iter().map(|q| (q.a, q.b, q.score())).collect(),
            detail: Some(Box::new(move |i| {
                let q = pairs.get(i)?;
                Some(format!(
                    "Jaccard {:.3}: {} of {} shingles shared",
                    q.score(),
                    q.shared,
                    q.union
                ))
            })),
            clusters: None,
            doc_sig: Box::new(move |i| {
                let (n, bands) = doc_sigs.get(i).filter(|(n, _)| *n > 0)?;
                Some(json!({
                    "shingles": n,
                    "bands": bands.iter().map(|&h| hex(h)).collect::<Vec<_>>(),
                }))
            }),
            summary,
        })
    }

    /// The shingles (of this run's kind and size) both texts contain, merged into runs.
    fn explain(s: &S, pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>) {
        let left = shingles_with_spans(pair.left, s.shingle, s.shingle_size);
        let right = shingles_with_spans(pair.right, s.shingle, s.shingle_size);
        let set = |v: &[(u64, usize, usize)]| {
            let mut s: Vec<u64> = v.iter().map(|x| x.0).collect();
            s.sort_unstable();
            s
        };
        let (ls, rs) = (set(&left), set(&right));
        let shared = |spans: &[(u64, usize, usize)], other: &[u64]| {
            merge_spans(
                spans
                    .iter()
                    .filter(|(h, _, _)| other.binary_search(h).is_ok())
                    .map(|&(_, a, b)| (a, b)),
            )
            .iter()
            .map(Highlight::of(HighlightKind::SpotSig))
            .collect::<Vec<_>>()
        };
        (shared(&left, &rs), shared(&right, &ls))
    }
}

/// Overlapping or touching spans (in text order of their starts) merged into runs:
/// consecutive shared shingles overlap in k−1 units, and one highlight per run reads better.
fn merge_spans(spans: impl Iterator<Item = (usize, usize)>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bands_and_rows_are_datasketchs() {
        // datasketch MinHashLSH(threshold, num_perm).b, .r
        assert_eq!(optimal_bands_rows(0.8, 128, 0.5, 0.5), (9, 13));
        assert_eq!(optimal_bands_rows(0.5, 128, 0.5, 0.5), (25, 5));
        assert_eq!(optimal_bands_rows(0.9, 128, 0.5, 0.5), (5, 25));
        assert_eq!(optimal_bands_rows(0.8, 64, 0.5, 0.5), (5, 11));
        assert_eq!(optimal_bands_rows(0.7, 256, 0.5, 0.5), (25, 10));
        assert_eq!(MinHashSettings::default().bands_rows(), (9, 13));
        let explicit = MinHashSettings {
            bands: Some(16),
            ..MinHashSettings::default()
        };
        assert_eq!(explicit.bands_rows(), (16, 8));
    }

    #[test]
    fn word_shingles_have_the_spans_of_their_words() {
        let t = "One two, three four five six.";
        let sh = shingles_with_spans(t, Shingle::Word, 5);
        assert_eq!(sh.len(), 2);
        assert_eq!(&t[sh[0].1..sh[0].2], "One two, three four five");
        assert_eq!(&t[sh[1].1..sh[1].2], "two, three four five six");
        // Case and punctuation do not change a word shingle.
        assert_eq!(
            shingle_set("one TWO three four five", Shingle::Word, 5),
            shingle_set("One two; three, four five!", Shingle::Word, 5)
        );
        assert!(shingle_set("too short", Shingle::Word, 5).is_empty());
    }

    #[test]
    fn char_shingles_fold_case_and_whitespace() {
        assert_eq!(
            shingle_set("Ab  c\n d", Shingle::Char, 3),
            shingle_set("ab c d", Shingle::Char, 3)
        );
        let t = "  héllo wörld ";
        let sh = shingles_with_spans(t, Shingle::Char, 3);
        assert_eq!(sh.len(), "héllo wörld".chars().count() - 2);
        assert_eq!(&t[sh[0].1..sh[0].2], "hél");
        assert_eq!(&t[sh.last().unwrap().1..sh.last().unwrap().2], "rld");
    }

    #[test]
    fn the_minhash_estimates_jaccard() {
        let p = Prepared::new(&MinHashSettings {
            perms: 512,
            ..MinHashSettings::default()
        });
        let a: Vec<u64> = (0..1000)
            .map(|i| hash_bytes(&[i as u8, (i >> 8) as u8]))
            .collect();
        let mut sa = a.clone();
        sa.sort_unstable();
        let mut sb: Vec<u64> = a[250..]
            .iter()
            .copied()
            .chain((0..250).map(|i| fmix64(i + 7)))
            .collect();
        sb.sort_unstable();
        let exact = jaccard(intersection_union(&sa, &sb));
        let (ma, mb) = (p.minhash(&sa), p.minhash(&sb));
        let est = ma.iter().zip(&mb).filter(|(x, y)| x == y).count() as f64 / 512.0;
        assert!((est - exact).abs() < 0.08, "estimate {est}, exact {exact}");
    }

    #[test]
    fn explanation_highlights_the_shared_shingles_in_both_texts() {
        let left = "alpha beta gamma delta epsilon zeta. Something else entirely here now.";
        let right = "Intro words first. Alpha beta gamma delta epsilon zeta";
        let s = MinHashSettings::default();
        let (l, r) = MinHash::explain(
            &s,
            &PairText {
                left,
                right,
                detail: None,
            },
        );
        assert_eq!(l.len(), 1);
        assert_eq!(r.len(), 1);
        assert_eq!(
            &left[l[0].start..l[0].end],
            "alpha beta gamma delta epsilon zeta"
        );
        assert_eq!(
            &right[r[0].start..r[0].end],
            "Alpha beta gamma delta epsilon zeta"
        );
        assert!(l.iter().all(|h| h.kind == HighlightKind::SpotSig));
        // With 7-word shingles the six shared words are no shared shingle.
        let s7 = MinHashSettings {
            shingle_size: 7,
            ..s
        };
        let (l, r) = MinHash::explain(
            &s7,
            &PairText {
                left,
                right,
                detail: None,
            },
        );
        assert!(l.is_empty() && r.is_empty());
    }

    #[test]
    fn bands_beyond_perms_are_rejected_naming_the_flag() {
        let s = MinHashSettings {
            perms: 16,
            bands: Some(17),
            ..MinHashSettings::default()
        };
        let e = MinHash::check(&s).unwrap_err();
        assert!(e.contains("--minhash-bands"), "{e}");
    }

    fn brute_force(sigs: &[DocSig], threshold: f64) -> Vec<MinHashPair> {
        let mut out = Vec::new();
        for a in 0..sigs.len() {
            for b in a + 1..sigs.len() {
                let (shared, union) = intersection_union(&sigs[a].shingles, &sigs[b].shingles);
                let p = MinHashPair {
                    a: a as u32,
                    b: b as u32,
                    shared,
                    union,
                };
                if p.score() >= threshold {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Texts over a small vocabulary: a few originals and copies with a few words changed,
    /// so that pairs span the whole range of Jaccard values.
    fn texts() -> impl Strategy<Value = Vec<String>> {
        let doc = prop::collection::vec(0u8..30, 8..40);
        (
            prop::collection::vec(doc, 2..6),
            prop::collection::vec(
                (
                    0usize..6,
                    prop::collection::vec((0usize..40, 0u8..30), 0..4),
                ),
                0..10,
            ),
        )
            .prop_map(|(originals, copies)| {
                let mut docs = originals.clone();
                for (src, edits) in copies {
                    let mut d = originals[src % originals.len()].clone();
                    for (at, w) in edits {
                        let at = at % d.len();
                        d[at] = w;
                    }
                    docs.push(d);
                }
                docs.into_iter()
                    .map(|d| {
                        d.iter()
                            .map(|w| format!("w{w}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn reported_pairs_are_exact_and_with_one_row_bands_equal_brute_force(
            texts in texts(),
            threshold in 0.5f64..1.0,
            k in 1usize..4,
            seed in 0u64..1000,
        ) {
            let s = MinHashSettings { threshold, shingle_size: k, seed, ..MinHashSettings::default() };
            let p = Prepared::new(&s);
            let sigs: Vec<DocSig> = texts.iter().map(|t| p.sign(t)).collect();
            let truth = brute_force(&sigs, threshold);
            // The chosen bands: every reported pair is a brute-force pair with its score.
            let found = verify(&sigs, &candidates(&sigs, p.bands), threshold);
            for q in &found {
                prop_assert!(q.score() >= threshold);
                prop_assert!(truth.contains(q), "{q:?} not in brute force");
            }
            // 128 bands of one row: a pair at J ≥ 0.5 is missed with probability
            // (1 − J)^128 ≤ 2^-128, so the pair set is brute force's.
            let one_row = Prepared::new(&MinHashSettings { bands: Some(128), ..s });
            prop_assert_eq!(one_row.bands_rows(), (128, 1));
            let sigs: Vec<DocSig> = texts.iter().map(|t| one_row.sign(t)).collect();
            let found = verify(&sigs, &candidates(&sigs, 128), threshold);
            prop_assert_eq!(found, truth);
        }
    }
}
