//! SpotSigs signatures (Theobald, Siddharth, Paepcke, SIGIR 2008): extraction of spot
//! signatures from a token stream, their interning into multiset vectors, the
//! collection-level idf window, and the explanation of a match (shared signatures with
//! the byte spans of their words in both texts). Matching lives in
//! `cluster::spotsigs_matcher`.
//!
//! A spot signature `a(d,c)` is an antecedent word `a` followed by a chain of `c`
//! non-stopwords. The chain rule implemented here (see [`extract`]):
//! the first candidate is the `d`-th word after the antecedent; a candidate that is a
//! stopword is skipped by moving one word at a time to the next non-stopword, which is
//! taken; the next candidate is the `d`-th word after the word just taken. A chain cut
//! by the end of the document is kept when it holds at least one word.

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::text::{Token, WordList, Words};

/// Parameters of signature extraction. Part of a run's recorded parameters.
#[derive(Debug, Clone)]
pub struct SpotSigParams {
    /// Words that start a signature.
    pub antecedents: WordList,
    /// Words skipped inside a chain.
    pub stopwords: WordList,
    /// Spot distance `d` (≥ 1; 0 is treated as 1).
    pub distance: usize,
    /// Chain length `c`: non-stopwords per signature (≥ 1; 0 is treated as 1).
    pub chain: usize,
}

/// The paper's best distance on its news gold set (distance 2 with chain 3 was slightly
/// better than 1 and 2).
pub const DEFAULT_DISTANCE: usize = 2;
/// The paper's best chain length (see [`DEFAULT_DISTANCE`]).
pub const DEFAULT_CHAIN: usize = 3;

impl Default for SpotSigParams {
    /// Bundled antecedents and SMART stopwords, `d = 2`, `c = 3`.
    fn default() -> Self {
        SpotSigParams {
            antecedents: default_antecedents(),
            stopwords: WordList::default_stopwords(),
            distance: DEFAULT_DISTANCE,
            chain: DEFAULT_CHAIN,
        }
    }
}

/// The antecedents bundled in `assets/antecedents.txt`: articles plus the flexions of
/// be, can, will, have, do.
pub fn default_antecedents() -> WordList {
    WordList::parse(include_str!("../../assets/antecedents.txt"))
}

/// The bundled antecedents of each language (the `# lang:` sections of
/// `assets/antecedents.txt`, keyed by the codes `text::lang` reports). The default list is
/// their union: a page is signed with every language's antecedents, so a page whose
/// language is misidentified or mixed keeps its signatures (BENCHMARKS.md, issue 14
/// "Languages").
pub fn antecedents_by_language() -> std::collections::BTreeMap<String, WordList> {
    WordList::parse_by_language(include_str!("../../assets/antecedents.txt"))
}

/// One occurrence of a spot signature in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotSig {
    /// `antecedent:w1:w2...` (tokens never contain `:`, so the string is unambiguous).
    pub sig: String,
    /// Byte span of the antecedent in the text.
    pub antecedent: (usize, usize),
    /// Byte spans of the chain words, in order.
    pub chain: Vec<(usize, usize)>,
}

impl SpotSig {
    /// The antecedent's span followed by the chain's spans.
    pub fn spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        std::iter::once(self.antecedent).chain(self.chain.iter().copied())
    }
}

/// All spot signature occurrences of a token stream, in text order.
///
/// For each antecedent at position `i`: `pos = i + d`; while fewer than `c` words are
/// taken and `pos` is inside the text: if `tokens[pos]` is a stopword, `pos += 1`
/// (move on to the next non-stopword, which is then taken — not skipped, the
/// off-by-one of some public ports); otherwise take it and `pos += d`. With `d = 1` this
/// is simply "the next `c` non-stopwords".
pub fn extract(tokens: &[Token], params: &SpotSigParams) -> Vec<SpotSig> {
    extract_from(
        tokens.len(),
        |i| tokens[i].norm.as_str(),
        |i| (tokens[i].start, tokens[i].end),
        params,
    )
}

/// [`extract`] over any word sequence given by its length, forms and spans.
fn extract_from<'w>(
    len: usize,
    norm: impl Fn(usize) -> &'w str,
    span: impl Fn(usize) -> (usize, usize),
    params: &SpotSigParams,
) -> Vec<SpotSig> {
    let d = params.distance.max(1);
    let c = params.chain.max(1);
    let mut out = Vec::new();
    for i in 0..len {
        let ante = norm(i);
        if !is_antecedent(&params.antecedents, ante) {
            continue;
        }
        let mut sig = ante.to_owned();
        let mut chain = Vec::with_capacity(c);
        let mut pos = i + d;
        while chain.len() < c && pos < len {
            let t = norm(pos);
            if params.stopwords.contains(t) {
                pos += 1;
                continue;
            }
            sig.push(':');
            sig.push_str(t);
            chain.push(span(pos));
            pos += d;
        }
        if !chain.is_empty() {
            out.push(SpotSig {
                sig,
                antecedent: span(i),
                chain,
            });
        }
    }
    out
}

/// Whether a token starts a signature: it is listed, or it is a bigram of a script written
/// without spaces whose first character is listed (的X for 的: the bigrams of such text
/// never equal a one-character particle; see `text::tokenize`). Tokens of other scripts
/// are looked up once, as before.
pub fn is_antecedent(antecedents: &WordList, token: &str) -> bool {
    antecedents.contains(token)
        || crate::text::unspaced_head(token).is_some_and(|head| antecedents.contains(head))
}

/// Tokenizes `text` and extracts its signatures (the words in one buffer, [`Words`]: no
/// allocation per word).
pub fn extract_text(text: &str, params: &SpotSigParams) -> Vec<SpotSig> {
    let words = Words::of(text);
    extract_from(words.len(), |i| words.norm(i), |i| words.span(i), params)
}

/// A document's signature strings in text order, back to back in one buffer: what
/// [`extract_text`] gives without the spans and without two allocations per occurrence (its
/// `String` and its chain's spans; issue 16, session 9: they were most of SpotSigs' malloc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackedSigs {
    bytes: String,
    /// Signature `i` is `bytes[ends[i - 1]..ends[i]]`.
    ends: Vec<usize>,
}

impl PackedSigs {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The signatures in text order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.ends.iter().enumerate().map(|(i, &end)| {
            let start = if i == 0 { 0 } else { self.ends[i - 1] };
            &self.bytes[start..end]
        })
    }
}

/// The signatures of a tokenized text ([`Words::of`]), exactly [`extract_text`]'s `sig`s:
/// the same chain rule as [`extract_from`], writing only the strings.
pub fn extract_packed(words: &Words, params: &SpotSigParams) -> PackedSigs {
    let d = params.distance.max(1);
    let c = params.chain.max(1);
    let len = words.len();
    let mut out = PackedSigs::default();
    for i in 0..len {
        let ante = words.norm(i);
        if !is_antecedent(&params.antecedents, ante) {
            continue;
        }
        let start = out.bytes.len();
        out.bytes.push_str(ante);
        let mut taken = 0;
        let mut pos = i + d;
        while taken < c && pos < len {
            let t = words.norm(pos);
            if params.stopwords.contains(t) {
                pos += 1;
                continue;
            }
            out.bytes.push(':');
            out.bytes.push_str(t);
            taken += 1;
            pos += d;
        }
        if taken == 0 {
            out.bytes.truncate(start);
        } else {
            out.ends.push(out.bytes.len());
        }
    }
    out
}

/// A signature both texts contain, with the spans of all its occurrences in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedSig {
    pub sig: String,
    /// Spans (antecedent and chain words of every occurrence) in the first text.
    pub spans_a: Vec<(usize, usize)>,
    /// The same in the second text.
    pub spans_b: Vec<(usize, usize)>,
}

/// Why two texts matched: the signatures they share, sorted by signature, with the byte
/// spans of their words in both texts (for highlighting). No idf window is applied: the
/// explanation shows every shared signature the extraction produces (see
/// [`shared_signatures_where`] to show only those a run kept).
pub fn shared_signatures(a_text: &str, b_text: &str, params: &SpotSigParams) -> Vec<SharedSig> {
    shared_signatures_where(a_text, b_text, params, |_| true)
}

/// [`shared_signatures`] restricted to the signatures `keep` accepts, e.g. those inside a
/// run's idf window (`|s| vocab.get(s).is_some_and(|id| kept[id])`).
pub fn shared_signatures_where(
    a_text: &str,
    b_text: &str,
    params: &SpotSigParams,
    keep: impl Fn(&str) -> bool,
) -> Vec<SharedSig> {
    let spans_by_sig = |text: &str| {
        let mut m: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
        for s in extract_text(text, params) {
            if keep(&s.sig) {
                let spans = m.entry(s.sig.clone()).or_default();
                spans.extend(s.spans());
            }
        }
        m
    };
    let a = spans_by_sig(a_text);
    let mut b = spans_by_sig(b_text);
    a.into_iter()
        .filter_map(|(sig, mut spans_a)| {
            let mut spans_b = b.remove(&sig)?;
            // Two occurrences can share chain words ("the the cat sat": both antecedents
            // chain to cat, sat): sort and dedup so the UI highlights each word once.
            spans_a.sort_unstable();
            spans_a.dedup();
            spans_b.sort_unstable();
            spans_b.dedup();
            Some(SharedSig {
                sig,
                spans_a,
                spans_b,
            })
        })
        .collect()
}

/// Interns signature strings as dense `u32` ids (in order of first sight). Each string is
/// kept once, back to back in one buffer, and the hash table holds only ids: a map from
/// `String` to id beside a list of the `String`s held every signature twice with two
/// allocations each, about 120 bytes a signature where this is about 40 (issue 16: most
/// of a collection's signatures occur once, and the vocabulary was a quarter of SpotSigs'
/// peak memory).
#[derive(Clone, Default)]
pub struct SigVocab {
    table: hashbrown::HashTable<u32>,
    /// Every signature, back to back; signature `id` is `bytes[ends[id - 1]..ends[id]]`.
    bytes: String,
    ends: Vec<usize>,
}

impl std::fmt::Debug for SigVocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigVocab")
            .field("len", &self.len())
            .finish()
    }
}

fn hash_sig(sig: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(sig)
}

/// Signature `id` of a buffer and its ends (see [`SigVocab`]).
fn sig_at<'a>(bytes: &'a str, ends: &[usize], id: u32) -> Option<&'a str> {
    let id = id as usize;
    let end = *ends.get(id)?;
    let start = if id == 0 { 0 } else { ends[id - 1] };
    bytes.get(start..end)
}

impl SigVocab {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `sig`, assigning the next id when it is new.
    pub fn intern(&mut self, sig: &str) -> u32 {
        let hash = hash_sig(sig);
        let (bytes, ends) = (&self.bytes, &self.ends);
        if let Some(&id) = self
            .table
            .find(hash, |&id| sig_at(bytes, ends, id) == Some(sig))
        {
            return id;
        }
        let id = self.ends.len() as u32;
        self.bytes.push_str(sig);
        self.ends.push(self.bytes.len());
        let (bytes, ends) = (&self.bytes, &self.ends);
        self.table.insert_unique(hash, id, |&other| {
            hash_sig(sig_at(bytes, ends, other).unwrap_or_default())
        });
        id
    }

    pub fn get(&self, sig: &str) -> Option<u32> {
        self.table
            .find(hash_sig(sig), |&id| self.name(id) == Some(sig))
            .copied()
    }

    pub fn name(&self, id: u32) -> Option<&str> {
        sig_at(&self.bytes, &self.ends, id)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// A document as a multiset of signatures: `(id, freq)` sorted by id with `freq ≥ 1`,
/// and its length (the sum of the frequencies).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SigVector {
    entries: Vec<(u32, u32)>,
    len: u64,
}

impl SigVector {
    /// Builds a vector from ids in any order, repeats counting as frequency.
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> Self {
        let mut ids: Vec<u32> = ids.into_iter().collect();
        ids.sort_unstable();
        let mut entries: Vec<(u32, u32)> = Vec::new();
        for id in ids {
            match entries.last_mut() {
                Some((last, f)) if *last == id => *f += 1,
                _ => entries.push((id, 1)),
            }
        }
        Self::from_sorted_counts(entries)
    }

    /// Builds a vector from `(id, freq)` pairs in any order; equal ids add up and zero
    /// frequencies are dropped.
    pub fn from_counts(counts: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut v: Vec<(u32, u32)> = counts.into_iter().filter(|&(_, f)| f > 0).collect();
        v.sort_unstable();
        let mut entries: Vec<(u32, u32)> = Vec::with_capacity(v.len());
        for (id, f) in v {
            match entries.last_mut() {
                Some((last, g)) if *last == id => *g += f,
                _ => entries.push((id, f)),
            }
        }
        Self::from_sorted_counts(entries)
    }

    fn from_sorted_counts(entries: Vec<(u32, u32)>) -> Self {
        let len = entries.iter().map(|&(_, f)| u64::from(f)).sum();
        SigVector { entries, len }
    }

    /// `(id, freq)` pairs sorted by id.
    pub fn entries(&self) -> &[(u32, u32)] {
        &self.entries
    }

    /// Sum of frequencies (the multiset's size).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of distinct signatures.
    pub fn distinct(&self) -> usize {
        self.entries.len()
    }
}

/// Normalized inverse document frequency `log(N/df) / log(N)`, in `[0, 1]`. With one
/// document (or none) every signature is as rare as it can be: 1.
pub fn normalized_idf(n_docs: usize, df: usize) -> f64 {
    if n_docs <= 1 || df == 0 {
        return 1.0;
    }
    ((n_docs as f64) / (df as f64)).ln() / (n_docs as f64).ln()
}

/// Optional removal of a site's boilerplate signatures: navigation bars, footers and
/// "related stories" boxes repeat on most pages of one site and make unrelated pages of
/// that site look alike. For each site with at least `min_site_docs` documents, a
/// signature is dropped from that site's documents only (other sites keep it: a wire
/// story quoted on many sites is exactly what we want to match) when it occurs on more
/// than `min_site_docs` of them and either on more than `max_site_fraction` of them or on
/// more than `max_site_pages` of them. The fraction alone lets a large site keep its
/// generated prose: on a site of 88,000 pages (rustdoc) 2% is 1,777 pages, and sentences
/// that each repeat on a few hundred API pages glue unrelated pages together. A page has
/// only a handful of near-duplicates on its own site (releases, print and mobile
/// versions), so a sentence on more than `max_site_pages` of them is the site's, not a
/// page's. Dropping rather than down-weighting keeps the vectors integer multisets, which
/// the exact matcher needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteBoilerplate {
    pub min_site_docs: usize,
    pub max_site_fraction: f64,
    /// Absolute cap (`None`: only the fraction applies).
    pub max_site_pages: Option<usize>,
}

impl Default for SiteBoilerplate {
    /// Starting values, to be tuned on real crawls: sites with ≥ 10 pages, signatures on
    /// more than half of their pages.
    fn default() -> Self {
        SiteBoilerplate {
            min_site_docs: 10,
            max_site_fraction: 0.5,
            max_site_pages: None,
        }
    }
}

/// How per-document signature lists become matchable vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorOptions {
    /// Keep signatures whose normalized idf lies in `[idf_min, idf_max]` (paper: 0.2,
    /// 0.85). Signatures in a single document have idf 1 and are dropped by any
    /// `idf_max < 1`, which is what the paper does (they lengthen a document without
    /// ever matching).
    ///
    /// Beware on small collections: `idf ≤ idf_max` means `df ≥ N^(1 − idf_max)`, so with
    /// 0.85 and N = 157 a signature needs 3 documents; signatures shared by exactly two
    /// pages (the evidence of a near-duplicate pair) are dropped and template boilerplate
    /// is all that is left. Measured on `corpus/news/newspaper` (157 pages, crude visible
    /// text, d = 2, c = 3): the window keeps 70 of 18,101 distinct signatures and τ = 0.6
    /// gives 165 pairs, mostly across one newspaper network's shared template; with
    /// `idf_max = 1.0` only 3 same-site pairs remain. Tune per collection size.
    pub idf_min: f64,
    pub idf_max: f64,
    /// Documents with fewer kept signatures (sum of frequencies) are left out of matching.
    pub min_sigs: usize,
    /// Per-site boilerplate removal; `None` (the default) keeps everything.
    pub site_boilerplate: Option<SiteBoilerplate>,
}

impl Default for VectorOptions {
    fn default() -> Self {
        VectorOptions {
            idf_min: 0.2,
            idf_max: 0.85,
            min_sigs: 1,
            site_boilerplate: None,
        }
    }
}

/// The outcome of [`build_vectors`].
#[derive(Debug, Clone, Default)]
pub struct SigCollection {
    pub vocab: SigVocab,
    /// Document frequency of each id over all input documents (before any filtering).
    pub df: Vec<u32>,
    /// One entry per input document; `None` when it kept fewer than `min_sigs`
    /// signatures (left out of matching).
    pub vectors: Vec<Option<SigVector>>,
    /// Distinct signatures dropped by the idf window.
    pub sigs_outside_idf: usize,
    /// Signature occurrences dropped as site boilerplate.
    pub boilerplate_occurrences: usize,
    /// Documents left out for having too few signatures.
    pub too_few_sigs: usize,
}

impl SigCollection {
    /// One vector per input document, aligned with the input: left-out documents get
    /// an empty vector, which never matches. The shape `match_pairs` takes.
    pub fn matching_vectors(&self) -> Vec<SigVector> {
        self.vectors
            .iter()
            .map(|v| v.clone().unwrap_or_default())
            .collect()
    }

    /// The documents that take part in matching, as `(document index, vector)`.
    pub fn matchable(&self) -> impl Iterator<Item = (usize, &SigVector)> {
        self.vectors
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (i, v)))
    }
}

/// Builds the collection's vectors from per-document signature strings (occurrences,
/// repeats count). `sites`, when given, holds one site key per document (e.g. the host)
/// and is used only by the optional boilerplate removal, which is skipped when `sites`
/// is absent or its length differs from `docs`.
pub fn build_vectors<S: AsRef<str>>(
    docs: &[Vec<S>],
    sites: Option<&[&str]>,
    opts: &VectorOptions,
) -> SigCollection {
    let mut vocab = SigVocab::new();
    let id_docs: Vec<Vec<u32>> = docs
        .iter()
        .map(|sigs| sigs.iter().map(|s| vocab.intern(s.as_ref())).collect())
        .collect();
    build_vectors_from_ids(vocab, &id_docs, sites, opts)
}

/// [`build_vectors`] on documents already interned in `vocab` (each document's signature
/// occurrences as ids, in text order): what a caller that interns while signing passes,
/// instead of holding every occurrence as a `String`.
pub fn build_vectors_from_ids(
    vocab: SigVocab,
    id_docs: &[Vec<u32>],
    sites: Option<&[&str]>,
    opts: &VectorOptions,
) -> SigCollection {
    // Each step is per document (or per site) and runs on every core: done one document
    // at a time after the signing, this held one core for 0.09 s of dd6k's 3.3 s `detect`
    // while the other idled (issue 16, session 15). Results are as the serial loops':
    // counts add up, and vectors are collected in document order.
    // One frequency array per core (a fold per rayon split would make one per split: an
    // array of the vocabulary's size each).
    let per_core = id_docs
        .len()
        .div_ceil(rayon::current_num_threads().max(1))
        .max(1);
    let df = id_docs
        .par_chunks(per_core)
        .map(|docs| {
            let mut df = vec![0u32; vocab.len()];
            let mut distinct: Vec<u32> = Vec::new();
            for ids in docs {
                distinct.clear();
                distinct.extend_from_slice(ids);
                distinct.sort_unstable();
                distinct.dedup();
                for &id in &distinct {
                    df[id as usize] += 1;
                }
            }
            df
        })
        .reduce_with(|mut a, b| {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
            a
        })
        .unwrap_or_else(|| vec![0u32; vocab.len()]);
    let n = id_docs.len();
    let keep: Vec<bool> = df
        .iter()
        .map(|&f| {
            let idf = normalized_idf(n, f as usize);
            idf >= opts.idf_min && idf <= opts.idf_max
        })
        .collect();
    let sigs_outside_idf = keep.iter().filter(|k| !**k).count();

    let boilerplate = match (sites, &opts.site_boilerplate) {
        (Some(sites), Some(rule)) if sites.len() == n => site_boilerplate(id_docs, sites, rule),
        _ => Boilerplate::default(),
    };

    let vectors: Vec<(Option<SigVector>, usize)> = id_docs
        .par_iter()
        .enumerate()
        .map(|(i, ids)| {
            let mut dropped = 0;
            let kept = ids.iter().copied().filter(|&id| {
                if !keep[id as usize] {
                    return false;
                }
                let is_boilerplate = boilerplate.contains(i, id);
                dropped += usize::from(is_boilerplate);
                !is_boilerplate
            });
            let v = SigVector::from_ids(kept);
            let v = (!v.is_empty() && (v.len() as usize) >= opts.min_sigs).then_some(v);
            (v, dropped)
        })
        .collect();
    let mut out = SigCollection {
        df,
        sigs_outside_idf,
        ..Default::default()
    };
    out.vectors.reserve(vectors.len());
    for (v, dropped) in vectors {
        out.boilerplate_occurrences += dropped;
        out.too_few_sigs += usize::from(v.is_none());
        out.vectors.push(v);
    }
    out.vocab = vocab;
    out
}

/// The boilerplate signatures of each site under `rule`: `sets[s]` holds the ids, sorted,
/// that count as boilerplate on the documents whose `site_of[i]` is `s`.
#[derive(Debug, Default)]
struct Boilerplate {
    site_of: Vec<u32>,
    sets: Vec<Vec<u32>>,
}

impl Boilerplate {
    fn contains(&self, doc: usize, id: u32) -> bool {
        self.site_of
            .get(doc)
            .and_then(|&s| self.sets.get(s as usize))
            .is_some_and(|set| set.binary_search(&id).is_ok())
    }
}

/// The `(site, signature id)` pairs that count as boilerplate under `rule`, counted one
/// site at a time on the sorted ids of its documents: a hash map with an entry per
/// distinct (site, signature) was half of SpotSigs' peak memory (208 MB at 56,638 pages;
/// issue 16), a site's sorted ids are four bytes an occurrence and only while it is counted.
fn site_boilerplate(id_docs: &[Vec<u32>], sites: &[&str], rule: &SiteBoilerplate) -> Boilerplate {
    let mut index: FxHashMap<&str, u32> = FxHashMap::default();
    let site_of: Vec<u32> = sites
        .iter()
        .map(|&site| {
            let next = index.len() as u32;
            *index.entry(site).or_insert(next)
        })
        .collect();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); index.len()];
    for (doc, &s) in site_of.iter().enumerate() {
        members[s as usize].push(doc as u32);
    }
    // One site at a time on each core (each site's counting is its own).
    let sets: Vec<Vec<u32>> = members
        .par_iter()
        .map(|docs_of_site| {
            let docs = docs_of_site.len();
            // A signature on a handful of pages is a page's own (a page in three releases),
            // however small the site: it must exceed `min_site_docs` pages too.
            let mut limit = rule.max_site_fraction * docs as f64;
            if let Some(cap) = rule.max_site_pages {
                limit = limit.min(cap as f64);
            }
            let floor = limit.max(rule.min_site_docs as f64);
            let mut set = Vec::new();
            if docs < rule.min_site_docs.max(1) || docs as f64 <= floor {
                return set;
            }
            let mut ids: Vec<u32> = Vec::new();
            for &doc in docs_of_site {
                let start = ids.len();
                ids.extend_from_slice(&id_docs[doc as usize]);
                ids[start..].sort_unstable();
                let mut kept = start;
                for k in start..ids.len() {
                    if k == start || ids[k] != ids[kept - 1] {
                        ids[kept] = ids[k];
                        kept += 1;
                    }
                }
                ids.truncate(kept);
            }
            ids.sort_unstable();
            for run in ids.chunk_by(|x, y| x == y) {
                if (run.len() as f64) > floor {
                    set.push(run[0]);
                }
            }
            set
        })
        .collect();
    Boilerplate { site_of, sets }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sentence of the paper's §3.2 example.
    const OBAMA: &str = "At a rally to kick off a weeklong campaign for the South Carolina \
        primary, Obama tried to set the record straight from an attack circulating widely on \
        the Internet that is designed to play into prejudices against Muslims and fears of \
        terrorism.";

    fn paper_example_params() -> SpotSigParams {
        SpotSigParams {
            antecedents: WordList::parse("a\nan\nthe\nis"),
            stopwords: WordList::default_stopwords(),
            distance: 1,
            chain: 2,
        }
    }

    fn sigs(text: &str, p: &SpotSigParams) -> Vec<String> {
        extract_text(text, p).into_iter().map(|s| s.sig).collect()
    }

    #[test]
    fn reproduces_the_papers_extraction_example() {
        assert_eq!(
            sigs(OBAMA, &paper_example_params()),
            [
                "a:rally:kick",
                "a:weeklong:campaign",
                "the:south:carolina",
                "the:record:straight",
                "an:attack:circulating",
                "the:internet:designed",
                "is:designed:play",
            ]
        );
    }

    #[test]
    fn spans_point_at_the_signature_words() {
        for s in extract_text(OBAMA, &paper_example_params()) {
            let words: Vec<String> = s.spans().map(|(a, b)| OBAMA[a..b].to_lowercase()).collect();
            assert_eq!(words.join(":"), s.sig);
        }
    }

    fn params(d: usize, c: usize) -> SpotSigParams {
        SpotSigParams {
            antecedents: WordList::parse("the\nis"),
            stopwords: WordList::parse("the\nis\nof\nand\nto"),
            distance: d,
            chain: c,
        }
    }

    #[test]
    fn distance_two_takes_every_second_word_and_restarts_after_a_skipped_stopword() {
        // After "the": pos 2 = "w2" taken; pos 4 = "of" stopword -> pos 5 "w5" taken
        // (the word after a skipped stopword is kept); pos 7 = "w7" taken.
        let text = "the w1 w2 w3 of w5 w6 w7 w8";
        assert_eq!(sigs(text, &params(2, 3)), ["the:w2:w5:w7"]);
    }

    #[test]
    fn chains_cut_by_the_end_are_kept_only_with_a_word() {
        assert_eq!(sigs("x the alpha", &params(1, 3)), ["the:alpha"]);
        assert!(sigs("x the of and", &params(1, 3)).is_empty());
        assert!(sigs("alpha the", &params(1, 2)).is_empty());
        // Distance 2 jumps over the last word: nothing found.
        assert!(sigs("the alpha", &params(2, 2)).is_empty());
    }

    #[test]
    fn antecedents_inside_a_chain_are_skipped_as_stopwords() {
        assert_eq!(
            sigs("the cat is big", &params(1, 2)),
            ["the:cat:big", "is:big"]
        );
    }

    #[test]
    fn apostrophe_stopwords_are_skipped() {
        let p = SpotSigParams {
            distance: 1,
            chain: 2,
            ..SpotSigParams::default()
        };
        assert_eq!(sigs("The cat don't sleep", &p), ["the:cat:sleep"]);
    }

    #[test]
    fn default_word_lists_have_the_documented_sizes() {
        let sw = WordList::default_stopwords();
        assert_eq!(sw.len(), 570, "571 SMART lines, 'would' twice");
        let ante = default_antecedents();
        let others = ante.len() - 27;
        assert_eq!(
            ante.len(),
            395,
            "27 English, {others} of 50 other languages"
        );
        // The English ones are stopwords (skipped inside a chain, as in the paper); those of
        // other languages are not in the English stopword list and count as chain words.
        let english = [
            "a", "an", "the", "be", "am", "is", "are", "was", "were", "been", "being", "can",
            "could", "cannot", "can't", "will", "would", "won't", "have", "has", "had", "having",
            "do", "does", "did", "doing", "done",
        ];
        for w in english {
            assert!(ante.contains(w), "{w}");
            assert!(sw.contains(w), "antecedent {w} should be a stopword");
        }
    }

    #[test]
    fn every_language_s_antecedents_are_single_tokens_of_the_default_list() {
        let by = antecedents_by_language();
        for lang in [
            "en", "de", "fr", "es", "it", "pt", "nl", "cs", "ru", "ar", "zh", "ja", "pl", "tr",
            "id", "vi", "ko", "ur", "fa", "hi", "uk", "el", "he", "th", "sv", "da", "nb", "fi",
            "hu", "ro", "bg", "hr", "sr", "bs", "mk", "sl", "sk", "ca", "lt", "lv", "et", "be",
            "tl", "az", "hy", "ka", "bn", "ta", "mr", "ne",
        ] {
            assert!(by.get(lang).is_some_and(|l| l.len() >= 4), "{lang}");
        }
        let all = default_antecedents();
        let mut union = std::collections::HashSet::new();
        for (lang, list) in &by {
            for w in list.iter() {
                // A word the tokenizer splits (a Devanagari vowel sign, a Hebrew or Urdu
                // letter it took for punctuation) could never start a signature.
                let tokens: Vec<String> = crate::text::tokenize(w)
                    .into_iter()
                    .map(|t| t.norm)
                    .collect();
                assert_eq!(tokens, [w], "{lang} antecedent {w:?}");
                assert!(
                    all.contains(w),
                    "{lang} antecedent {w:?} not in the default list"
                );
                union.insert(w.to_string());
            }
        }
        assert_eq!(
            union.len(),
            all.len(),
            "every default antecedent has a language"
        );
    }

    #[test]
    fn sentences_of_languages_without_english_antecedents_are_signed() {
        let p = SpotSigParams::default();
        for (lang, text) in [
            (
                "ur",
                "وزیر نے منگل کو کہا کہ حکومت اس سال ٹیکس میں اضافہ نہیں کرے گی اور بجٹ پر بحث جاری ہے",
            ),
            (
                "hi",
                "मंत्री ने मंगलवार को कहा कि सरकार इस साल कर नहीं बढ़ाएगी और बजट पर बहस जारी है",
            ),
            (
                "pl",
                "Minister powiedział we wtorek, że rząd nie podniesie podatków; budżet jest nadal przedmiotem debaty",
            ),
        ] {
            assert!(!extract_text(text, &p).is_empty(), "{lang}: no signature");
        }
    }

    /// Stories in the languages added in session 20 were signed nowhere (sv, fi, da, nb:
    /// no antecedent among their words) or on the article "a" alone (hu, ro). Each sentence
    /// here was written for this test; each must give at least two signatures.
    #[test]
    fn stories_of_the_languages_added_later_are_signed() {
        let p = SpotSigParams::default();
        for (lang, text) in [
            (
                "sv",
                "Regeringen har meddelat att skatten kommer att sänkas nästa månad och ministern sade att beslutet är ett steg i rätt riktning",
            ),
            (
                "da",
                "Regeringen har meddelt at afgiften bliver sænket fra næste måned og ministeren sagde at beslutningen vil hjælpe familierne",
            ),
            (
                "nb",
                "Regjeringen har varslet at avgiften blir satt ned neste måned og ministeren sa at vedtaket ble fattet etter lange forhandlinger",
            ),
            (
                "fi",
                "Hallitus ilmoitti että veroa lasketaan ensi kuussa ja ministerin mukaan päätös oli tehty pitkien neuvottelujen jälkeen",
            ),
            (
                "hu",
                "A kormány bejelentette hogy az adót csökkentik és a miniszter szerint egy hosszú tárgyalás után lett meg a döntés",
            ),
            (
                "ro",
                "Guvernul a anunțat că taxa va fi redusă și ministrul a declarat că decizia a fost luată după negocieri care sunt lungi",
            ),
            (
                "bg",
                "Правителството обяви че данъкът ще бъде намален и министърът каза че решението е било взето след дълги преговори",
            ),
            (
                "hr",
                "Vlada je objavila da će porez biti smanjen a ministar je rekao da je odluka bila donesena nakon dugih pregovora",
            ),
            (
                "bn",
                "সরকার একটি ঘোষণা করেছে যে কর কমানো হবে এবং মন্ত্রী বলেছেন যে সিদ্ধান্তটি দীর্ঘ আলোচনার পরে নেওয়া হয়েছে এবং এটি কার্যকর হবে আগামী মাসে",
            ),
        ] {
            let n = extract_text(text, &p).len();
            assert!(n >= 2, "{lang}: {n} signatures");
        }
    }

    #[test]
    fn unspaced_texts_are_signed_from_bigrams_that_start_with_an_antecedent() {
        let p = SpotSigParams::default();
        // 的 starts 的决: the chain takes every second bigram after it (d = 2): 定将, 于明.
        let zh = sigs("政府的决定将于明天公布", &p);
        assert!(zh.contains(&"的决:定将:于明:天公".to_string()), "{zh:?}");
        // The Thai ที่ (one character: letter, vowel sign, tone mark) starts ที่รั (รั: letter and vowel sign)
        let th = sigs("รัฐบาลที่รัฐสภาประกาศว่าจะไม่ขึ้นภาษี", &p);
        assert!(th.iter().any(|s| s.starts_with("ที่รั:")), "{th:?}");
        assert!(th.iter().any(|s| s.starts_with("จะ:")), "{th:?}");
        // Latin tokens are still looked up whole: "the" starts a signature, "there" none.
        assert!(is_antecedent(&p.antecedents, "the"));
        assert!(!is_antecedent(&p.antecedents, "there"));
        assert!(!is_antecedent(&p.antecedents, "政府"));
    }

    #[test]
    fn shared_signatures_report_spans_in_both_texts() {
        let p = params(1, 2);
        let a = "the cat sat. the dog ran";
        let b = "so the dog ran and the cat sat and the cat sat";
        let shared = shared_signatures(a, b, &p);
        let names: Vec<&str> = shared.iter().map(|s| s.sig.as_str()).collect();
        assert_eq!(names, ["the:cat:sat", "the:dog:ran"]);
        let cat = &shared[0];
        assert_eq!(cat.spans_a, [(0, 3), (4, 7), (8, 11)]);
        assert_eq!(cat.spans_b.len(), 6);
        let only_dog = shared_signatures_where(a, b, &p, |s| s.contains("dog"));
        assert_eq!(only_dog.len(), 1);
        assert_eq!(only_dog[0].sig, "the:dog:ran");
        for &(s, e) in &cat.spans_b {
            assert!(["the", "cat", "sat"].contains(&&b[s..e]));
        }
    }

    #[test]
    fn vectors_count_repeats_and_sort_ids() {
        let v = SigVector::from_ids([5, 1, 5, 3, 5]);
        assert_eq!(v.entries(), &[(1, 1), (3, 1), (5, 3)]);
        assert_eq!(v.len(), 5);
        assert_eq!(
            SigVector::from_counts([(5, 2), (1, 0), (5, 1)]).entries(),
            &[(5, 3)]
        );
    }

    #[test]
    fn normalized_idf_spans_zero_to_one() {
        assert_eq!(normalized_idf(100, 100), 0.0);
        assert_eq!(normalized_idf(100, 1), 1.0);
        assert!((normalized_idf(100, 10) - 0.5).abs() < 1e-12);
        assert_eq!(normalized_idf(1, 1), 1.0);
    }

    #[test]
    fn build_vectors_applies_the_idf_window_and_minimum() {
        // 10 docs: "common" in all (idf 0), "pair" in 2 (idf 0.70), "solo" in 1 (idf 1).
        let mut docs: Vec<Vec<&str>> = (0..10).map(|_| vec!["common"]).collect();
        docs[0].extend(["pair", "pair", "solo"]);
        docs[1].push("pair");
        let c = build_vectors(&docs, None, &VectorOptions::default());
        assert_eq!(c.sigs_outside_idf, 2);
        let pair = c.vocab.get("pair").unwrap();
        assert_eq!(c.df[pair as usize], 2);
        assert_eq!(c.vectors[0].as_ref().unwrap().entries(), &[(pair, 2)]);
        assert_eq!(c.vectors[1].as_ref().unwrap().entries(), &[(pair, 1)]);
        assert!(c.vectors[2..].iter().all(Option::is_none));
        assert_eq!(c.too_few_sigs, 8);
        assert_eq!(c.matchable().count(), 2);
        let aligned = c.matching_vectors();
        assert_eq!(aligned.len(), 10);
        assert!(aligned[0].len() == 2 && aligned[5].is_empty());

        let strict = VectorOptions {
            min_sigs: 2,
            ..VectorOptions::default()
        };
        let c = build_vectors(&docs, None, &strict);
        assert!(c.vectors[0].is_some() && c.vectors[1].is_none());
    }

    #[test]
    fn site_boilerplate_is_dropped_only_on_its_site() {
        // Site "s" has 4 pages all carrying "nav"; site "t" has 4 pages, one with "nav".
        let mut docs: Vec<Vec<&str>> = Vec::new();
        let mut sites = Vec::new();
        for i in 0..4 {
            docs.push(vec!["nav", if i < 2 { "story" } else { "other" }]);
            sites.push("s");
        }
        for i in 0..4 {
            docs.push(match i {
                0 => vec!["nav", "story"],
                1 => vec!["x1"],
                2 => vec!["x2"],
                _ => vec!["x3"],
            });
            sites.push("t");
        }
        let opts = VectorOptions {
            idf_min: 0.0,
            idf_max: 1.0,
            min_sigs: 1,
            site_boilerplate: Some(SiteBoilerplate {
                min_site_docs: 3,
                max_site_fraction: 0.5,
                max_site_pages: None,
            }),
        };
        let c = build_vectors(&docs, Some(&sites), &opts);
        let nav = c.vocab.get("nav").unwrap();
        assert_eq!(c.boilerplate_occurrences, 4);
        assert!(c.vectors[0]
            .as_ref()
            .unwrap()
            .entries()
            .iter()
            .all(|e| e.0 != nav));
        assert!(c.vectors[4]
            .as_ref()
            .unwrap()
            .entries()
            .iter()
            .any(|e| e.0 == nav));
        let without = build_vectors(
            &docs,
            Some(&sites),
            &VectorOptions {
                site_boilerplate: None,
                ..opts
            },
        );
        assert_eq!(without.boilerplate_occurrences, 0);
    }

    #[test]
    fn site_boilerplate_caps_the_pages_of_a_large_site() {
        // One site of 200 pages: "blurb" on 30 of them (15%, under a 20% fraction),
        // "pair" on two, every page with its own "own{i}".
        let docs: Vec<Vec<String>> = (0..200)
            .map(|i| {
                let mut d = vec![format!("own{i}")];
                if i < 30 {
                    d.push("blurb".into());
                }
                if i < 2 {
                    d.push("pair".into());
                }
                d
            })
            .collect();
        let sites = vec!["s"; 200];
        let rule = |cap| VectorOptions {
            idf_min: 0.0,
            idf_max: 1.0,
            min_sigs: 1,
            site_boilerplate: Some(SiteBoilerplate {
                min_site_docs: 10,
                max_site_fraction: 0.2,
                max_site_pages: cap,
            }),
        };
        let has = |c: &SigCollection, sig: &str| {
            let id = c.vocab.get(sig).unwrap();
            c.vectors[0]
                .as_ref()
                .unwrap()
                .entries()
                .iter()
                .any(|e| e.0 == id)
        };
        let fraction_only = build_vectors(&docs, Some(&sites), &rule(None));
        assert!(has(&fraction_only, "blurb") && has(&fraction_only, "pair"));
        // A cap of 25 pages drops "blurb" (30 pages); the floor of 10 pages still keeps
        // "pair" with a cap below it.
        let capped = build_vectors(&docs, Some(&sites), &rule(Some(25)));
        assert!(!has(&capped, "blurb") && has(&capped, "pair"));
        assert_eq!(capped.boilerplate_occurrences, 30);
        let tiny_cap = build_vectors(&docs, Some(&sites), &rule(Some(1)));
        assert!(!has(&tiny_cap, "blurb") && has(&tiny_cap, "pair"));
        let at_cap = build_vectors(&docs, Some(&sites), &rule(Some(30)));
        assert!(
            has(&at_cap, "blurb"),
            "more than the cap is boilerplate, not as many"
        );
    }

    /// The rule as first written: a hash map counting every (site, signature).
    fn boilerplate_by_hash_map(
        id_docs: &[Vec<u32>],
        sites: &[&str],
        rule: &SiteBoilerplate,
    ) -> std::collections::BTreeSet<(String, u32)> {
        let mut site_docs: FxHashMap<&str, usize> = FxHashMap::default();
        let mut site_df: FxHashMap<(&str, u32), usize> = FxHashMap::default();
        for (ids, &site) in id_docs.iter().zip(sites) {
            *site_docs.entry(site).or_default() += 1;
            let mut distinct = ids.clone();
            distinct.sort_unstable();
            distinct.dedup();
            for id in distinct {
                *site_df.entry((site, id)).or_default() += 1;
            }
        }
        site_df
            .into_iter()
            .filter(|&((site, _), f)| {
                let docs = site_docs[site];
                let mut limit = rule.max_site_fraction * docs as f64;
                if let Some(cap) = rule.max_site_pages {
                    limit = limit.min(cap as f64);
                }
                let floor = limit.max(rule.min_site_docs as f64);
                docs >= rule.min_site_docs.max(1) && (f as f64) > floor
            })
            .map(|((site, id), _)| (site.to_string(), id))
            .collect()
    }

    proptest::proptest! {
        /// Counting on each site's sorted ids finds the (site, signature) pairs the hash
        /// map did.
        #[test]
        fn site_boilerplate_equals_the_hash_map_count(
            docs in proptest::collection::vec(
                (0usize..4, proptest::collection::vec(0u32..12, 0..8)), 0..60),
            min_site_docs in 0usize..6,
            fraction in 0.0f64..1.0,
            cap in proptest::option::of(0usize..8),
        ) {
            let names = ["a", "b", "c", "d"];
            let sites: Vec<&str> = docs.iter().map(|(s, _)| names[*s]).collect();
            let id_docs: Vec<Vec<u32>> = docs.iter().map(|(_, ids)| ids.clone()).collect();
            let rule = SiteBoilerplate { min_site_docs, max_site_fraction: fraction, max_site_pages: cap };
            let fast = site_boilerplate(&id_docs, &sites, &rule);
            let mut got = std::collections::BTreeSet::new();
            for (doc, ids) in id_docs.iter().enumerate() {
                for &id in ids {
                    if fast.contains(doc, id) {
                        got.insert((sites[doc].to_string(), id));
                    }
                }
            }
            proptest::prop_assert_eq!(got, boilerplate_by_hash_map(&id_docs, &sites, &rule));
        }
    }

    proptest::proptest! {
        #[test]
        fn packed_signatures_are_the_extracted_ones(
            text in "(the |a |is |of |and |don't |cat |sat |mat |dog |x1 |Be |的新闻 |\\PC){0,60}",
            d in 1usize..4,
            c in 1usize..4,
        ) {
            let p = SpotSigParams { distance: d, chain: c, ..SpotSigParams::default() };
            let packed: Vec<String> =
                extract_packed(&Words::of(&text), &p).iter().map(str::to_string).collect();
            proptest::prop_assert_eq!(packed, sigs(&text, &p));
        }
    }

    #[test]
    fn vocabulary_numbers_signatures_in_order_of_first_sight() {
        let mut v = SigVocab::new();
        let words = ["the:cat", "", "a:dog:sat", "the:cat", "é:ü", "", "a:dog"];
        let ids: Vec<u32> = words.iter().map(|w| v.intern(w)).collect();
        assert_eq!(ids, [0, 1, 2, 0, 3, 1, 4]);
        assert_eq!(v.len(), 5);
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(v.name(*id), Some(*w));
            assert_eq!(v.get(w), Some(*id));
        }
        assert_eq!(v.get("a:do"), None);
        assert_eq!(v.name(5), None);
        // Past the table's first growths every id still finds its string.
        for i in 0..5000 {
            assert_eq!(v.intern(&format!("s{i}")), 5 + i);
        }
        assert!((0..5000).all(|i| v.get(&format!("s{i}")) == Some(5 + i)));
    }
}
