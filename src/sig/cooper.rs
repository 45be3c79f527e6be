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
//!
//! Containment (spotcheck's reading of the paper's "one document contains inserted
//! material", off in the paper's setting): a shorter list S and a longer list L, at most
//! `contained_size_pct` larger, are near-duplicates when the terms of S missing from L are
//! fewer than `contained_pct` of S. The terms of L missing from S are the inserted material
//! and are not counted. This is what finds a truncated copy (a wire story cut to its first
//! half keeps its terms in the full story, but its list is half the size, so the two-way
//! delta can never pass).

use std::collections::BTreeSet;

use rayon::prelude::*;
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
    /// Containment: a shorter list is a near-duplicate of a longer one when fewer than this
    /// percentage of its terms are missing from the longer (strict). 0 = off (the paper).
    pub contained_pct: u32,
    /// Containment's size limit: the longer list has at most `shorter · (1 + pct/100)`
    /// terms (inclusive).
    pub contained_size_pct: u32,
    /// Containment's floor: the shorter list has at least this many terms (0 = none). A
    /// generated page whose content text is a few words (a rustdoc intrinsic) is "contained"
    /// in thousands of others across sites; no syndicated copy is that short.
    pub contained_min_terms: u32,
    /// The passage rule ([`super::passage`]) for a page of a one-page site: its passage of
    /// at least this many terms, contained by `contained_pct`, is a near-duplicate of the
    /// other page. 0 = off (the paper). Applied by the detector, which has the texts'
    /// lines (`detect::cooper_passage`), not by [`detect`].
    pub passage_min_terms: u32,
    /// The passage rule's passage holds at least this many paragraphs, lines of
    /// [`super::passage::PARAGRAPH_MIN_TERMS`] terms or more (one paragraph is what
    /// different stories share as a quote; see [`super::passage::passage_pair`]). 0 = any.
    pub passage_min_paragraphs: u32,
    /// The passage rule for pages of sites large enough to learn a template from (their
    /// content text lost it across the site's pages, but keeps what is the page's own: a
    /// reader discussion under the story, a caption): a pair of two such pages of different
    /// sites whose passages pass the rule is a near-duplicate when one page's passage covers
    /// at least this percentage of its salient terms and the other's holds at least
    /// [`super::passage::COVER_BALANCE_PCT`]% as many
    /// ([`super::passage::covering_pair`]). 0 = off: the rule reads small sites' pages only.
    pub passage_cover_pct: u32,
    /// The equal-text rule for short lists: a pair whose smaller list has fewer than this
    /// many terms is a near-duplicate only when the two documents' texts are equal (case
    /// and white space aside). 0 = off (the paper). Applied by the matchers given the
    /// texts' keys ([`detect_across_sites_with_keys`], [`detect_ranked_lists`]); [`detect`]
    /// does not apply it.
    pub min_terms: u32,
}

impl Default for CooperParams {
    /// The paper's 10% size and 10% delta.
    fn default() -> Self {
        CooperParams {
            size_tolerance_pct: 10,
            delta_pct: 10,
            min_idf: 0.2,
            contained_pct: 0,
            contained_size_pct: 0,
            contained_min_terms: 0,
            passage_min_terms: 0,
            passage_min_paragraphs: 0,
            passage_cover_pct: 0,
            min_terms: 0,
        }
    }
}

impl CooperParams {
    /// A one-line description to store with a run.
    pub fn describe(&self) -> String {
        let contained = if self.contained_pct > 0 {
            format!(
                " contained={}% contained_size={}%",
                self.contained_pct, self.contained_size_pct
            )
        } else {
            String::new()
        };
        let passage = if self.passage_min_terms > 0 && self.contained_pct > 0 {
            let lines = if self.passage_min_paragraphs > 0 {
                format!(" passage_paragraphs={}", self.passage_min_paragraphs)
            } else {
                String::new()
            };
            let cover = if self.passage_cover_pct > 0 {
                format!(" passage_cover={}%", self.passage_cover_pct)
            } else {
                String::new()
            };
            format!(" passage={}{lines}{cover}", self.passage_min_terms)
        } else {
            String::new()
        };
        let short = if self.min_terms > 0 {
            format!(" min_terms={}", self.min_terms)
        } else {
            String::new()
        };
        format!(
            "cooper v1 size={}% delta={}% min_idf={}{contained}{passage}{short} sum=fnv1a64",
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

    /// Whether the containment rule accepts a shorter list of `smaller` terms, `missing` of
    /// them absent from a longer list of `larger` terms. Never with the rule off, never for
    /// an empty list.
    pub fn contained_ok(&self, missing: usize, smaller: usize, larger: usize) -> bool {
        let (s, l) = (smaller as u128, larger as u128);
        self.contained_pct > 0
            && smaller >= self.contained_min_terms as usize
            && l * 100 <= s * (100 + u128::from(self.contained_size_pct))
            && (missing as u128) * 100 < s * u128::from(self.contained_pct)
    }

    /// Whether the equal-text rule lets a pair whose smaller list has `smaller` terms stand:
    /// always at `min_terms` terms or more, below that only when the two texts are equal
    /// (`same_text`).
    pub fn short_ok(&self, smaller: usize, same_text: bool) -> bool {
        same_text || smaller >= self.min_terms as usize
    }

    /// The test on list sizes and counts: `a_only` terms of a list of `a` terms are missing
    /// from a list of `b` terms, `b_only` the other way.
    fn passes(&self, a: usize, b: usize, a_only: usize, b_only: usize) -> Option<Rule> {
        let smaller = a.min(b);
        if self.sizes_compatible(a, b) && self.delta_ok(a_only + b_only, smaller) {
            return Some(Rule::Delta);
        }
        // The shorter list's missing terms; on equal sizes, the better direction.
        let missing = match a.cmp(&b) {
            std::cmp::Ordering::Less => a_only,
            std::cmp::Ordering::Greater => b_only,
            std::cmp::Ordering::Equal => a_only.min(b_only),
        };
        self.contained_ok(missing, smaller, a.max(b))
            .then_some(Rule::Contained {
                // A count of a list's terms, which `CooperPair` keeps as u32 (see there).
                missing: missing as u32,
            })
    }
}

/// Which rule made a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The paper's test: similar sizes, few terms differ (counted both ways).
    Delta,
    /// Containment: `missing` terms of the shorter list are absent from the longer.
    Contained { missing: u32 },
    /// The passage rule ([`super::passage`]): a passage of `smaller` terms of a one-page
    /// site's page, `missing` of them absent from the other page.
    Passage { missing: u32 },
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

/// The full test: sizes compatible and delta small enough, or (with containment on) the
/// shorter list nearly contained in the longer.
pub fn near_duplicates(a: &BTreeSet<String>, b: &BTreeSet<String>, params: &CooperParams) -> bool {
    let a_only = a.difference(b).count();
    let b_only = b.difference(a).count();
    params.passes(a.len(), b.len(), a_only, b_only).is_some()
}

/// A pair the detector reports, documents as indices into its input, `a < b`.
///
/// Counts are u32 (a list of 2³² terms would be 16 GB of term numbers) and the score is
/// computed from them: 24 bytes a pair, where usize counts and a stored score took 48 — a
/// million pages make tens of millions of pairs (issue 16).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CooperPair {
    pub a: u32,
    pub b: u32,
    pub differing: u32,
    pub smaller: u32,
    /// Which rule accepted the pair.
    pub rule: Rule,
}

impl CooperPair {
    /// `1 − differing / smaller` (the paper's test), `1 − missing / smaller` (containment;
    /// the passage rule, `smaller` then the passage's terms).
    pub fn score(&self) -> f64 {
        let lost = match self.rule {
            Rule::Delta => self.differing,
            Rule::Contained { missing } | Rule::Passage { missing } => missing,
        };
        1.0 - f64::from(lost) / f64::from(self.smaller)
    }

    /// "3 of 47 terms differ", or for containment "2 of 47 terms of the shorter missing
    /// from the longer (31 more there)".
    pub fn explanation(&self) -> String {
        match self.rule {
            Rule::Delta => format!("{} of {} terms differ", self.differing, self.smaller),
            Rule::Contained { missing } => format!(
                "{missing} of {} terms of the shorter missing from the longer ({} more there)",
                self.smaller,
                self.differing - missing
            ),
            Rule::Passage { missing } => format!(
                "{missing} of {} terms of a passage of one page missing from the other (the \
                 rest of that page is its own)",
                self.smaller
            ),
        }
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

/// The equal-text rule ([`CooperParams::min_terms`]) over a matcher's pairs, as the tests'
/// reference (the matchers given keys apply it without making the pairs it drops): drops a pair
/// whose smaller list has fewer than `min_terms` terms unless its two documents have the
/// same text key, `keys[i]` being document `i`'s (the hash of its text with case and white
/// space folded; `None`, a text without words or a key not taken, equals nothing). Keys are
/// only needed for documents whose own list is short: equal texts have equal lists.
///
/// Why: a page whose salient terms are one to three words (a doxygen example's index, a
/// legend page) has the same list as every other page of its kind, so the delta test passes
/// them all ("0 of 1 terms differ"), though most are different pages; the copies among
/// them are pages with the same text (BENCHMARKS.md, issue 14 session 13).
#[cfg(test)]
pub fn keep_short_pairs(pairs: &mut Vec<CooperPair>, keys: &[Option<u64>], params: &CooperParams) {
    if params.min_terms == 0 {
        return;
    }
    let key = |i: u32| keys.get(i as usize).copied().flatten();
    pairs.retain(|p| {
        let same_text = matches!((key(p.a), key(p.b)), (Some(x), Some(y)) if x == y);
        params.short_ok(p.smaller as usize, same_text)
    });
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
///
/// In u64 (a 128-bit division was 4% of the matching at a million pages, issue 16): `len`
/// is a list's length and `delta_pct` at most `u32::MAX`, so the product overflows only
/// for lists of more than 2³² terms, which saturate (and are then cut to `len` anyway).
fn prefix_len(len: usize, delta_pct: u32) -> usize {
    let scaled = (len as u64).saturating_mul(u64::from(delta_pct));
    if scaled == 0 {
        return 0;
    }
    let missing = ((scaled - 1) / 100) as usize;
    (missing + 1).min(len)
}

/// Length of the prefix a list of `len` terms needs under `params`: the delta test's (see
/// [`prefix_len`]) or, with containment on, the containment rule's, whichever is longer.
/// As the shorter list S of a contained pair, at most `⌊(c·|S| − 1)/100⌋` of its terms are
/// missing from the longer list, so its first that-many-plus-one terms meet the longer
/// list somewhere (not necessarily in its prefix: the longer list is indexed whole).
fn probe_len(len: usize, params: &CooperParams) -> usize {
    prefix_len(len, params.delta_pct).max(prefix_len(len, params.contained_pct))
}

/// Whether a list of `short` terms is too short to pass the test with a list of `long`
/// terms (`short ≤ long`): it fails the size filter of the paper's test and, with
/// containment on, that of the containment rule (`larger · 100 ≤ smaller · (100 + pct)`).
/// Exact cross-multiplication in u128, no division; monotone in `short`, so the partners of
/// a list in a posting sorted by length start where this turns false.
fn too_short(short: usize, long: usize, params: &CooperParams) -> bool {
    let fails = |pct: u32| (short as u128) * (100 + u128::from(pct)) < (long as u128) * 100;
    fails(params.size_tolerance_pct)
        && (params.contained_pct == 0 || fails(params.contained_size_pct))
}

/// The most terms of a list of `len` terms that may be missing from a partner under a
/// tolerance of `pct` percent: one less than [`prefix_len`].
fn max_missing(len: usize, pct: u32) -> usize {
    prefix_len(len, pct).saturating_sub(1)
}

/// How many of a list's first terms are indexed. Without containment: the prefix the
/// delta test needs. With it: the terms the looser rule lets go missing plus
/// [`COUNT_FILTER_HITS`] — a longer prefix than the lemma needs (`may_miss + 1`), so that a
/// candidate must meet the probing list in at least `indexed − may_miss` of them (the count
/// filter of AllPairs/PPJoin; Bayardo et al. 2007, Xiao et al. 2008; the prefix extended by
/// a few terms as in AdaptJoin, Wang et al. 2012), which turns away the many lists that
/// share one mid-frequency term before any of their terms is read.
///
/// The terms that may go missing are those of the rules that can accept the list as the
/// shorter of a pair ([`may_miss_as_shorter`]): a list under containment's floor of terms
/// is indexed for the paper's test alone (with the defaults a list of 19 terms had 11
/// terms indexed where that test needs 3).
fn indexed_len(len: usize, params: &CooperParams) -> usize {
    if params.contained_pct == 0 {
        return probe_len(len, params);
    }
    let may_miss = may_miss_as_shorter(len, params);
    if len == 0 {
        0
    } else {
        (may_miss + COUNT_FILTER_HITS.min(may_miss + 1)).min(len)
    }
}

/// The hits a candidate needs in the indexed prefix beyond the lemma's one (see
/// [`indexed_len`]; at most `may_miss + 1`, which indexes `2·may_miss + 1` terms).
///
/// Why 4: until session 19 the prefix was `2·may_miss + 1` terms (30% containment: 60% of a
/// list), whose last terms are the most frequent of the prefix and have the longest posting
/// lists. On 175,058 pages of rust-doc, openjdk, libstdc++ and boost (BENCHMARKS.md, issue
/// 16 session 19) 76% of the 1.37 G hits counted went to 333 M candidates across sites that
/// then failed the count filter; indexing `may_miss + ℓ` terms and verifying the survivors'
/// remaining terms against a bit set of the probing list took the matching from 4.2 s to
/// 2.15 / 2.04 / 2.19 / 2.19 s for ℓ = 3 / 4 / 5 / 6 (first of two runs each; the same pairs).
const COUNT_FILTER_HITS: usize = 4;

/// The most terms of a list of `len` terms that may be missing from a partner at least as
/// long in a pair that passes: the paper's count, or containment's when that rule can
/// accept the list (it is on, and the list has at least `contained_min_terms` terms; see
/// [`CooperParams::contained_ok`]), whichever is larger.
fn may_miss_as_shorter(len: usize, params: &CooperParams) -> usize {
    let paper = max_missing(len, params.delta_pct);
    if params.contained_pct > 0 && len >= params.contained_min_terms as usize {
        paper.max(max_missing(len, params.contained_pct))
    } else {
        paper
    }
}

/// `|a ∩ b|` of two sorted lists, or `None` as soon as more than `may_miss` terms of `a`
/// are known to be missing from `b`.
fn overlap_within(a: &[u32], b: &[u32], may_miss: usize) -> Option<usize> {
    let (mut i, mut j, mut common, mut missed) = (0, 0, 0, 0);
    while i < a.len() {
        if j == b.len() {
            missed += a.len() - i;
            break;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                missed += 1;
                if missed > may_miss {
                    return None;
                }
                i += 1;
            }
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (missed <= may_miss).then_some(common)
}

/// How many of `terms` are in `set` (a bit per term rank), or `None` as soon as more than
/// `may_miss` of them are not.
fn in_set_within(terms: &[u32], set: &[u64], may_miss: usize) -> Option<usize> {
    let mut missed = 0;
    for &t in terms {
        if set[t as usize / 64] >> (t % 64) & 1 == 0 {
            missed += 1;
            if missed > may_miss {
                return None;
            }
        }
    }
    Some(terms.len() - missed)
}

/// All pairs of `docs` (salient-term lists) that pass the test, sorted by `(a, b)`.
///
/// Candidates come from prefix filtering: every list is ordered rarest term first (by
/// document frequency within `docs`), only its first few terms are indexed (see
/// [`prefix_len`]: 10% of the list with the default parameters), and a pair is examined
/// only if the two prefixes share a term and the sizes are compatible. With containment
/// on, a pair is examined when the shorter list's prefix meets the longer list anywhere.
/// Lists are visited shortest first, so a posting list is sorted by length and the
/// partners too short for either rule are skipped by binary search. This is exact (the
/// property test compares it with all pairs) and keeps posting lists short because the
/// indexed terms are the rare ones.
pub fn detect(docs: &[BTreeSet<String>], params: &CooperParams) -> Vec<CooperPair> {
    detect_across_sites(docs, &[], params)
}

/// [`detect`] where `sites[i]` names the site of document `i` (any key, e.g. a hash of
/// its host): containment then only pairs documents of different sites. Within one site,
/// a page whose terms a longer page of the site holds is a template sibling (a class's
/// member list and the class page, one release note and the next), not a copy; across
/// sites it is what syndication makes. The paper's test applies to every pair. An empty
/// `sites` treats every document as its own site.
pub fn detect_across_sites(
    docs: &[BTreeSet<String>],
    sites: &[u64],
    params: &CooperParams,
) -> Vec<CooperPair> {
    detect_across_sites_with_keys(docs, sites, None, params)
}

/// [`detect_across_sites`], and with `keys` (document `i`'s text key `keys[i]`) the
/// equal-text rule applied as [`detect_ranked_lists`] applies it.
pub fn detect_across_sites_with_keys(
    docs: &[BTreeSet<String>],
    sites: &[u64],
    keys: Option<&[Option<u64>]>,
    params: &CooperParams,
) -> Vec<CooperPair> {
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
    detect_ranked_in(ranked, order.len(), sites, keys, params, MATCH_CHUNK)
}

/// [`detect_across_sites`] on lists of term numbers: `docs[i]` holds the distinct numbers of
/// document `i`'s terms, `terms[n]` is term number `n`. The same pairs as the string
/// version, which it ranks the same way (by the number of lists holding a term, then by the
/// term), without a `String` per term: the lists are turned into ranks in place.
pub fn detect_numbered(
    docs: Vec<Vec<u32>>,
    terms: &[Box<str>],
    sites: &[u64],
    params: &CooperParams,
) -> Vec<CooperPair> {
    detect_ranked_lists(rank_numbered(docs, terms), sites, None, params)
}

/// Term lists turned into ranks (see [`rank_numbered`]): what the matching reads.
pub struct RankedLists {
    /// Each document's term ranks, ascending (rank 0 the rarest term).
    lists: Vec<Vec<u32>>,
    /// Distinct ranks in all.
    n_terms: usize,
}

/// The first half of [`detect_numbered`]: numbers of `terms` turned into ranks in place, by
/// the number of lists holding a term, then by the term. The term table is not needed
/// after this (the caller may drop it before matching).
pub fn rank_numbered(mut docs: Vec<Vec<u32>>, terms: &[Box<str>]) -> RankedLists {
    let mut df = vec![0u32; terms.len()];
    for d in &docs {
        for &t in d {
            df[t as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..terms.len() as u32)
        .filter(|&t| df[t as usize] > 0)
        .collect();
    order.par_sort_unstable_by(|&x, &y| {
        (df[x as usize], &*terms[x as usize]).cmp(&(df[y as usize], &*terms[y as usize]))
    });
    let n_terms = order.len();
    let mut rank = df;
    for (i, &t) in order.iter().enumerate() {
        rank[t as usize] = i as u32;
    }
    drop(order);
    docs.par_iter_mut().for_each(|d| {
        for t in d.iter_mut() {
            *t = rank[*t as usize];
        }
        d.sort_unstable();
    });
    RankedLists {
        lists: docs,
        n_terms,
    }
}

/// The second half of [`detect_numbered`]: the matching, consuming the lists (they are
/// freed before the pairs are sorted). With `keys` (document `i`'s text key `keys[i]`),
/// the equal-text rule is applied: the pairs are those of `keep_short_pairs` on the
/// matching's, but the pairs it drops are never made (see [`equal_text_pairs`]).
pub fn detect_ranked_lists(
    ranked: RankedLists,
    sites: &[u64],
    keys: Option<&[Option<u64>]>,
    params: &CooperParams,
) -> Vec<CooperPair> {
    let RankedLists { lists, n_terms } = ranked;
    detect_ranked_in(lists, n_terms, sites, keys, params, MATCH_CHUNK)
}

/// The pairs whose smaller list is short (under `min_terms` terms) that the equal-text rule
/// lets stand: pairs of documents with the same text key that pass the test, as the
/// matching reports them. The short lists are then emptied in `ranked`, so that the
/// matching never meets them (an empty list has no prefix): every pair it makes has two
/// lists of `min_terms` terms or more, which the rule keeps.
///
/// Why not match them and drop the pairs after (`keep_short_pairs`): a short list has the
/// list of every other page of its kind, and at a million pages the matching made 14.8 M
/// such pairs that the rule then dropped (BENCHMARKS.md, issue 16 session 16). Only pairs
/// of equal keys can stand, so they are found by grouping the keys instead. Keys are
/// compared, not trusted: a pair in a group is tested on its lists like any other.
fn equal_text_pairs(
    ranked: &mut [Vec<u32>],
    sites: &[u64],
    keys: &[Option<u64>],
    params: &CooperParams,
) -> Vec<CooperPair> {
    let short = |len: usize| len < params.min_terms as usize;
    // An empty list never pairs (see `CooperParams::delta_ok`), whatever its key.
    let mut keyed: Vec<(u64, u32)> = keys
        .iter()
        .take(ranked.len())
        .enumerate()
        .filter(|&(i, _)| !ranked[i].is_empty())
        .filter_map(|(i, k)| k.map(|k| (k, i as u32)))
        .collect();
    keyed.sort_unstable();
    let mut out = Vec::new();
    for group in keyed.chunk_by(|x, y| x.0 == y.0) {
        for (at, &(_, a)) in group.iter().enumerate() {
            for &(_, b) in &group[at + 1..] {
                // Sorted by (key, document): a < b.
                let (a, b) = (a as usize, b as usize);
                let (la, lb) = (ranked[a].len(), ranked[b].len());
                if !short(la.min(lb)) {
                    continue; // the matching makes it
                }
                // Allowed to miss every term, the count always comes back.
                let common = overlap_within(&ranked[a], &ranked[b], la).unwrap_or(0);
                let same = match (sites.get(a), sites.get(b)) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                };
                out.extend(tested_pair((a, la), (b, lb), common, same, params));
            }
        }
    }
    for list in ranked.iter_mut() {
        if short(list.len()) {
            *list = Vec::new();
        }
    }
    out
}

/// The pair of documents `a < b` (each with its list's length) sharing `common` terms, if
/// the test accepts it; containment only across sites (`same`: one site).
#[inline]
fn tested_pair(
    (a, la): (usize, usize),
    (b, lb): (usize, usize),
    common: usize,
    same: bool,
    params: &CooperParams,
) -> Option<CooperPair> {
    let rule = params
        .passes(la, lb, la - common, lb - common)
        .filter(|r| *r == Rule::Delta || !same)?;
    // Documents are numbered and lists hold terms in u32 (see `detect_ranked_in`).
    Some(CooperPair {
        a: a as u32,
        b: b as u32,
        differing: (la + lb - 2 * common) as u32,
        smaller: la.min(lb) as u32,
        rule,
    })
}

/// Lists visited by one parallel task of the matching: many tasks, so that rayon spreads the
/// long lists (visited last, the most work each) over both cores.
const MATCH_CHUNK: usize = 512;

/// The indexed prefixes of every list, as one posting list per term rank of the positions
/// (in visiting order) whose prefix holds it, ascending; stored flat (offsets into one
/// array), where a `Vec` per term was 24 bytes a term before its first entry.
struct PrefixIndex {
    starts: Vec<usize>,
    positions: Vec<u32>,
}

impl PrefixIndex {
    /// `visit[pos]` is the list at position `pos`, `indexed[pos]` how many of its first
    /// terms are indexed.
    fn build(ranked: &[Vec<u32>], visit: &[u32], indexed: &[u32], n_terms: usize) -> Self {
        let prefixes = || {
            visit
                .iter()
                .zip(indexed)
                .map(|(&i, &n)| &ranked[i as usize][..n as usize])
        };
        let mut starts = vec![0usize; n_terms + 1];
        for prefix in prefixes() {
            for &t in prefix {
                starts[t as usize + 1] += 1;
            }
        }
        for t in 0..n_terms {
            starts[t + 1] += starts[t];
        }
        let mut positions = vec![0u32; starts[n_terms]];
        let mut next = starts.clone();
        for (pos, prefix) in prefixes().enumerate() {
            for &t in prefix {
                positions[next[t as usize]] = pos as u32;
                next[t as usize] += 1;
            }
        }
        PrefixIndex { starts, positions }
    }

    fn posting(&self, t: u32) -> &[u32] {
        &self.positions[self.starts[t as usize]..self.starts[t as usize + 1]]
    }
}

/// The candidate search and tests on lists of term ranks (each list sorted ascending, rank
/// 0 the rarest term, `n_terms` distinct ranks in all), `chunk` lists a parallel task.
///
/// Lists are visited shortest first (position = place in that order), so every earlier
/// list is at most as long as the current one and each posting list, ascending by
/// position, is sorted by length: the partners a list can have start at a length found by
/// binary search (the length filter), and with containment the shorter list of a pair is
/// always the earlier one, so only prefixes need indexing (on equal sizes both directions
/// miss equally many terms). The prefix index is built once for all positions; a list
/// probes only the entries of earlier positions, which is exactly the index a sequential
/// visit would have grown by then, so lists can be probed in any order and in parallel
/// (each task with its own hit counters) and give the same pairs, sorted by `(a, b)`.
fn detect_ranked_in(
    mut ranked: Vec<Vec<u32>>,
    n_terms: usize,
    sites: &[u64],
    keys: Option<&[Option<u64>]>,
    params: &CooperParams,
    chunk: usize,
) -> Vec<CooperPair> {
    let equal_texts = match keys {
        Some(keys) if params.min_terms > 0 => equal_text_pairs(&mut ranked, sites, keys, params),
        _ => Vec::new(),
    };
    let contained = params.contained_pct > 0;
    let mut visit: Vec<u32> = (0..ranked.len() as u32).collect();
    visit.sort_by_key(|&i| (ranked[i as usize].len(), i));
    let len_at: Vec<usize> = visit.iter().map(|&i| ranked[i as usize].len()).collect();
    // Sites by position, read next to the other per-position arrays; a document without
    // an entry in `sites` (all of them when it is empty) is its own site.
    let site_at: Vec<Option<u64>> = visit
        .iter()
        .map(|&i| sites.get(i as usize).copied())
        .collect();
    // Prefix lengths are at most a list's length, which is below 2³² here (`visit` numbers
    // the lists in u32 and each holds distinct u32 ranks).
    let indexed: Vec<u32> = len_at
        .iter()
        .map(|&l| indexed_len(l, params) as u32)
        .collect();
    let index = PrefixIndex::build(&ranked, &visit, &indexed, n_terms);
    let starts: Vec<usize> = (0..visit.len()).step_by(chunk.max(1)).collect();
    let found: Vec<Vec<CooperPair>> = starts
        .into_par_iter()
        .map_init(
            || {
                let in_b = if contained {
                    vec![0u64; n_terms.div_ceil(64)]
                } else {
                    Vec::new()
                };
                (vec![0u32; visit.len()], Vec::<u32>::new(), in_b)
            },
            |(hits, touched, in_b), start| {
                let mut out = Vec::new();
                for pos_b in start..(start + chunk.max(1)).min(visit.len()) {
                    let b = visit[pos_b] as usize;
                    let terms_b = &ranked[b];
                    let lb = terms_b.len();
                    touched.clear();
                    // Without containment the two prefixes share a term. With it, the
                    // earlier (shorter) list's indexed prefix is probed with this whole
                    // list, so every hit is a term the two lists share and the hits can be
                    // counted (see `indexed_len`).
                    let probe: &[u32] = if contained {
                        terms_b
                    } else {
                        &terms_b[..indexed[pos_b] as usize]
                    };
                    for &t in probe {
                        let posting = index.posting(t);
                        let earlier =
                            &posting[..posting.partition_point(|&p| (p as usize) < pos_b)];
                        let from =
                            earlier.partition_point(|&p| too_short(len_at[p as usize], lb, params));
                        for &pos_a in &earlier[from..] {
                            let n = &mut hits[pos_a as usize];
                            if *n == 0 {
                                touched.push(pos_a);
                            }
                            *n += 1;
                        }
                    }
                    if contained {
                        for &t in terms_b {
                            in_b[t as usize / 64] |= 1 << (t % 64);
                        }
                    }
                    for &pos_a in touched.iter() {
                        let found = std::mem::take(&mut hits[pos_a as usize]) as usize;
                        let la = len_at[pos_a as usize];
                        // The count filter first, before the list's site and terms are read
                        // (most candidates share one mid-frequency term and fail it; their
                        // `sites` entries were most of the matching's cache misses at a
                        // million pages). With containment all of a's indexed terms were
                        // probed, so at least `indexed − may_miss` of them are hits in a pair
                        // that passes, `may_miss` being the terms of the shorter list `a`
                        // missing from `b`: at most the looser rule's count, and at most the
                        // paper's when only the paper's test applies (checked below).
                        let may_miss_either = may_miss_as_shorter(la, params);
                        let indexed_a = indexed[pos_a as usize] as usize;
                        if contained && found + may_miss_either < indexed_a {
                            continue;
                        }
                        let same = match (site_at[pos_a as usize], site_at[pos_b]) {
                            (Some(x), Some(y)) => x == y,
                            _ => false,
                        };
                        let only_paper = same || !contained;
                        if only_paper && !params.sizes_compatible(la, lb) {
                            continue;
                        }
                        let may_miss = if only_paper {
                            max_missing(la, params.delta_pct)
                        } else {
                            may_miss_either
                        };
                        if contained && found + may_miss < indexed_a {
                            continue;
                        }
                        let a = visit[pos_a as usize] as usize;
                        let common = if contained {
                            // Every term of b was probed, so `found` of a's indexed terms are
                            // b's and the rest of them are missing (the count filter above
                            // left `found + may_miss ≥ indexed_a`); only the terms past the
                            // prefix are looked up, in b's bit set.
                            let budget = found + may_miss - indexed_a;
                            match in_set_within(&ranked[a][indexed_a..], in_b, budget) {
                                Some(more) => found + more,
                                None => continue,
                            }
                        } else {
                            match overlap_within(&ranked[a], terms_b, may_miss) {
                                Some(common) => common,
                                None => continue,
                            }
                        };
                        // The pair in input order, as the test and the output see it.
                        let pair = if a < b {
                            tested_pair((a, la), (b, lb), common, same, params)
                        } else {
                            tested_pair((b, lb), (a, la), common, same, params)
                        };
                        out.extend(pair);
                    }
                    if contained {
                        for &t in terms_b {
                            in_b[t as usize / 64] = 0;
                        }
                    }
                }
                out
            },
        )
        .collect();
    drop(index);
    drop(ranked);
    let mut out = Vec::with_capacity(found.iter().map(Vec::len).sum::<usize>() + equal_texts.len());
    for part in found {
        out.extend(part);
    }
    out.extend(equal_texts);
    out.par_sort_unstable_by_key(|p| (p.a, p.b));
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
    fn containment_needs_the_floor_of_terms_on_the_shorter_list() {
        let p = CooperParams {
            contained_pct: 30,
            contained_size_pct: 300,
            contained_min_terms: 20,
            ..CooperParams::default()
        };
        // 19 terms, all in a list of 40: under the floor, not contained; 20 terms are.
        assert!(!p.contained_ok(0, 19, 40));
        assert!(p.contained_ok(0, 20, 40));
        // No floor: a list of 3 terms is contained as the rule always had it.
        let none = CooperParams {
            contained_min_terms: 0,
            ..p
        };
        assert!(none.contained_ok(0, 3, 6));
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
        assert!((pairs[0].score() - (1.0 - 2.0 / 47.0)).abs() < 1e-12);
    }

    fn containment() -> CooperParams {
        CooperParams {
            contained_pct: 20,
            contained_size_pct: 200,
            ..CooperParams::default()
        }
    }

    #[test]
    fn containment_describes_itself_only_when_on() {
        assert_eq!(
            containment().describe(),
            "cooper v1 size=10% delta=10% min_idf=0.2 contained=20% contained_size=200% sum=fnv1a64"
        );
    }

    #[test]
    fn containment_finds_a_truncated_copy_the_delta_test_misses() {
        // A story of 100 terms and a copy cut to its first 40, with 3 terms of a dateline.
        let full = terms(0..100);
        let mut cut = terms(0..40);
        cut.extend(["berlin", "reuters", "dpa"].map(String::from));
        assert!(!near_duplicates(&full, &cut, &CooperParams::default()));
        assert!(!near_duplicates(
            &full,
            &cut,
            &CooperParams::inserted_material()
        ));
        assert!(near_duplicates(&full, &cut, &containment()));
        let pairs = detect(&[full.clone(), cut.clone()], &containment());
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].rule, Rule::Contained { missing: 3 });
        assert_eq!(
            pairs[0].explanation(),
            "3 of 43 terms of the shorter missing from the longer (60 more there)"
        );
        // Past the size limit (more than 3× the shorter) the rule does not apply.
        let stub = terms(0..30);
        assert!(!near_duplicates(&terms(0..91), &stub, &containment()));
        assert!(near_duplicates(&terms(0..90), &stub, &containment()));
    }

    #[test]
    fn containment_pairs_only_documents_of_different_sites() {
        let full = terms(0..100);
        let cut = terms(0..50);
        let docs = [full.clone(), cut.clone()];
        assert_eq!(detect_across_sites(&docs, &[1, 2], &containment()).len(), 1);
        assert!(detect_across_sites(&docs, &[7, 7], &containment()).is_empty());
        // The paper's test still pairs two near-equal pages of one site.
        let docs = [full.clone(), terms(0..99)];
        assert_eq!(detect_across_sites(&docs, &[7, 7], &containment()).len(), 1);
    }

    #[test]
    fn containment_boundary_is_strict_and_off_by_default() {
        let p = containment();
        // 50 terms at 20%: fewer than 10 missing.
        assert!(p.contained_ok(9, 50, 150));
        assert!(!p.contained_ok(10, 50, 150));
        assert!(!p.contained_ok(0, 50, 151));
        assert!(!p.contained_ok(0, 0, 0), "empty lists never match");
        assert!(!CooperParams::default().contained_ok(0, 50, 50));
    }

    #[test]
    fn short_lists_need_equal_texts() {
        let rule = CooperParams {
            min_terms: 4,
            ..CooperParams::default()
        };
        // Three pages of one term (two with one text), two of three terms with two texts,
        // and two of four terms with two texts.
        let docs = [
            terms(0..1),
            terms(0..1),
            terms(0..1),
            terms(10..13),
            terms(10..13),
            terms(20..24),
            terms(20..24),
        ];
        let keys = [
            Some(7),
            Some(8),
            Some(7),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
        ];
        let all: Vec<(u32, u32)> = detect(&docs, &rule).iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(all, [(0, 1), (0, 2), (1, 2), (3, 4), (5, 6)]);
        let mut pairs = detect(&docs, &rule);
        keep_short_pairs(&mut pairs, &keys, &rule);
        let kept: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        // One term, equal texts; four terms, any texts.
        assert_eq!(kept, [(0, 2), (5, 6)]);
        assert_eq!(pairs[0].explanation(), "0 of 1 terms differ");
        // No key (a text without words, or none computed) equals nothing, not even itself.
        let mut pairs = detect(&docs, &rule);
        keep_short_pairs(&mut pairs, &[None; 7], &rule);
        assert_eq!(pairs.len(), 1);
        // Off (the paper): every pair stands, keys or not.
        let mut pairs = detect(&docs, &CooperParams::default());
        keep_short_pairs(&mut pairs, &[], &CooperParams::default());
        assert_eq!(pairs.len(), 5);
        assert!(rule.short_ok(4, false) && rule.short_ok(3, true) && !rule.short_ok(3, false));
        assert!(
            !rule.short_ok(0, false),
            "two empty lists need equal texts too"
        );
        assert_eq!(
            rule.describe(),
            "cooper v1 size=10% delta=10% min_idf=0.2 min_terms=4 sum=fnv1a64"
        );
    }

    // The sequential matching as it was before the parallel one (session 7), with its
    // 128-bit length filter: the reference the parallel matching must equal.
    fn old_prefix_len(len: usize, delta_pct: u32) -> usize {
        let scaled = len as u128 * u128::from(delta_pct);
        if scaled == 0 {
            return 0;
        }
        let missing = ((scaled - 1) / 100) as usize;
        (missing + 1).min(len)
    }

    fn old_max_missing(len: usize, pct: u32) -> usize {
        old_prefix_len(len, pct).saturating_sub(1)
    }

    fn old_indexed_len(len: usize, params: &CooperParams) -> usize {
        if params.contained_pct == 0 {
            return old_prefix_len(len, params.delta_pct)
                .max(old_prefix_len(len, params.contained_pct));
        }
        let may_miss =
            old_max_missing(len, params.delta_pct).max(old_max_missing(len, params.contained_pct));
        if len == 0 {
            0
        } else {
            (2 * may_miss + 1).min(len)
        }
    }

    fn old_shortest_partner(len: usize, params: &CooperParams) -> usize {
        let floor = |pct: u32| (len as u128 * 100).div_ceil(100 + u128::from(pct)) as usize;
        let paper = floor(params.size_tolerance_pct);
        if params.contained_pct > 0 {
            paper.min(floor(params.contained_size_pct))
        } else {
            paper
        }
    }

    fn sequential_reference(
        ranked: &[Vec<u32>],
        n_terms: usize,
        sites: &[u64],
        params: &CooperParams,
    ) -> Vec<CooperPair> {
        let same_site = |a: usize, b: usize| match (sites.get(a), sites.get(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        };
        let contained = params.contained_pct > 0;
        // Lists are visited shortest first, so every earlier list is at most as long as the
        // current one and each posting list (positions in visiting order) is sorted by length:
        // the partners a list can have start at a length found by binary search (the length
        // filter), and with containment the shorter list of a pair is always the earlier one,
        // so only prefixes need indexing (on equal sizes both directions miss equally many
        // terms).
        let mut visit: Vec<u32> = (0..ranked.len() as u32).collect();
        visit.sort_by_key(|&i| (ranked[i as usize].len(), i));
        let len_at: Vec<usize> = visit.iter().map(|&i| ranked[i as usize].len()).collect();
        let mut prefixes: Vec<Vec<u32>> = vec![Vec::new(); n_terms];
        // Hits of the current list in each earlier list's indexed prefix, and who was hit.
        let mut hits = vec![0u32; ranked.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut out = Vec::new();
        for (pos_b, &b) in visit.iter().enumerate() {
            let b = b as usize;
            let terms_b = &ranked[b];
            let lb = terms_b.len();
            let shortest = old_shortest_partner(lb, params);
            touched.clear();
            // Without containment the two prefixes share a term. With it, the earlier (shorter)
            // list's indexed prefix is probed with this whole list, so every hit is a term the
            // two lists share and the hits can be counted (see `indexed_len`).
            let probe: &[u32] = if contained {
                terms_b
            } else {
                &terms_b[..old_indexed_len(lb, params)]
            };
            for &t in probe {
                let posting = &prefixes[t as usize];
                let from = posting.partition_point(|&pos| len_at[pos as usize] < shortest);
                for &pos_a in &posting[from..] {
                    let n = &mut hits[pos_a as usize];
                    if *n == 0 {
                        touched.push(pos_a);
                    }
                    *n += 1;
                }
            }
            for &t in &terms_b[..old_indexed_len(lb, params)] {
                prefixes[t as usize].push(pos_b as u32);
            }
            for &pos_a in &touched {
                let found = std::mem::take(&mut hits[pos_a as usize]);
                let a = visit[pos_a as usize] as usize;
                let la = len_at[pos_a as usize];
                let same = same_site(a, b);
                let only_paper = same || !contained;
                if only_paper && !params.sizes_compatible(la, lb) {
                    continue;
                }
                // At most `may_miss` terms of the shorter list `a` are missing from `b` in a
                // pair that passes; with containment all of a's indexed terms were probed, so
                // at least `indexed − may_miss` of them must have been hits.
                let may_miss = if only_paper {
                    old_max_missing(la, params.delta_pct)
                } else {
                    old_max_missing(la, params.delta_pct)
                        .max(old_max_missing(la, params.contained_pct))
                };
                if contained && (found as usize) + may_miss < old_indexed_len(la, params) {
                    continue;
                }
                let Some(common) = overlap_within(&ranked[a], terms_b, may_miss) else {
                    continue;
                };
                // The pair in input order, as the test and the output see it.
                let (first, second, l1, l2) = if a < b {
                    (a, b, la, lb)
                } else {
                    (b, a, lb, la)
                };
                let rule = params
                    .passes(l1, l2, l1 - common, l2 - common)
                    .filter(|r| *r == Rule::Delta || !same);
                if let Some(rule) = rule {
                    out.push(CooperPair {
                        a: first as u32,
                        b: second as u32,
                        differing: (l1 + l2 - 2 * common) as u32,
                        smaller: l1.min(l2) as u32,
                        rule,
                    });
                }
            }
        }
        out.sort_unstable_by_key(|p| (p.a, p.b));
        out
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
            setting in 0u8..5,
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
            let p = match setting {
                0 => CooperParams::default(),
                1 => CooperParams::inserted_material(),
                2 => CooperParams { contained_pct: 20, contained_size_pct: 200, ..CooperParams::default() },
                // Containment's floor in the middle of the lists' sizes.
                3 => CooperParams { contained_pct: 30, contained_size_pct: 300, contained_min_terms: 20, ..CooperParams::default() },
                _ => CooperParams { contained_pct: 35, contained_size_pct: 1000, ..CooperParams::inserted_material() },
            };
            let fast: Vec<(u32, u32, usize)> =
                detect(&docs, &p).iter().map(|x| (x.a, x.b, x.differing as usize)).collect();
            prop_assert_eq!(fast, brute_force(&docs, &p));
            // Two sites: containment within a site is left to the paper's test.
            let sites: Vec<u64> = (0..docs.len() as u64).map(|i| i % 2).collect();
            let fast: Vec<(u32, u32, usize)> = detect_across_sites(&docs, &sites, &p)
                .iter()
                .map(|x| (x.a, x.b, x.differing as usize))
                .collect();
            let slow: Vec<(u32, u32, usize)> = brute_force(&docs, &p)
                .into_iter()
                .filter(|&(a, b, _)| {
                    let (x, y) = (&docs[a as usize], &docs[b as usize]);
                    sites[a as usize] != sites[b as usize]
                        || near_duplicates(x, y, &CooperParams { contained_pct: 0, ..p })
                })
                .collect();
            prop_assert_eq!(fast, slow);
            // The same lists as term numbers of a table in another order (as a shared
            // memo numbers them, by first occurrence) give the same pairs.
            let mut table: Vec<Box<str>> = docs.iter().flatten().map(|t| t.as_str().into()).collect();
            table.sort_unstable_by(|x, y| y.cmp(x));
            table.dedup();
            let numbered: Vec<Vec<u32>> = docs
                .iter()
                .map(|d| d.iter().map(|t| table.iter().position(|x| **x == **t).unwrap() as u32).rev().collect())
                .collect();
            let by_numbers: Vec<CooperPair> = detect_numbered(numbered, &table, &sites, &p);
            prop_assert_eq!(by_numbers, detect_across_sites(&docs, &sites, &p));
        }

        /// The equal-text rule inside the matching (short lists paired by their keys, never
        /// matched) gives the pairs of matching everything and dropping after, by terms and
        /// by numbers, with keys shared by equal and by different lists (a key is compared,
        /// not trusted), keys missing, and lists long enough for the rule to keep.
        #[test]
        fn the_equal_text_rule_in_the_matching_equals_dropping_after(
            lists in proptest::collection::vec(
                (proptest::collection::btree_set(0u16..8, 0..7), proptest::option::of(0u64..4), 0u64..3),
                0..40),
            min_terms in 0u32..6,
            setting in 0u8..3,
        ) {
            let docs: Vec<BTreeSet<String>> = lists
                .iter()
                .map(|(l, _, _)| l.iter().map(|t| format!("w{t}")).collect())
                .collect();
            let keys: Vec<Option<u64>> = lists.iter().map(|l| l.1).collect();
            let sites: Vec<u64> = lists.iter().map(|l| l.2).collect();
            let base = match setting {
                0 => CooperParams::default(),
                1 => CooperParams::inserted_material(),
                _ => CooperParams { contained_pct: 40, contained_size_pct: 300, ..CooperParams::default() },
            };
            let p = CooperParams { min_terms, ..base };
            let mut slow = detect_across_sites(&docs, &sites, &p);
            keep_short_pairs(&mut slow, &keys, &p);
            prop_assert_eq!(&detect_across_sites_with_keys(&docs, &sites, Some(&keys), &p), &slow);
            let mut table: Vec<Box<str>> = docs.iter().flatten().map(|t| t.as_str().into()).collect();
            table.sort_unstable();
            table.dedup();
            let numbered: Vec<Vec<u32>> = docs
                .iter()
                .map(|d| d.iter().map(|t| table.iter().position(|x| **x == **t).unwrap() as u32).collect())
                .collect();
            let ranked = rank_numbered(numbered, &table);
            prop_assert_eq!(detect_ranked_lists(ranked, &sites, Some(&keys), &p), slow);
        }

        /// The parallel matching (any task size) equals the sequential one it replaced, on
        /// lists of term ranks made as small edits of a few bases, over up to three sites.
        #[test]
        fn parallel_matching_equals_the_sequential_one(
            bases in proptest::collection::vec(proptest::collection::btree_set(0u32..90, 3..60), 1..5),
            edits in proptest::collection::vec(
                (0usize..5, proptest::collection::btree_set(0u32..120, 0..6),
                 proptest::collection::btree_set(0u32..90, 0..6), 0u64..3), 0..60),
            setting in 0u8..6,
            chunk in 1usize..9,
        ) {
            let docs: Vec<Vec<u32>> = edits
                .iter()
                .map(|(base, add, remove, _)| {
                    let base = &bases[base % bases.len()];
                    let set: BTreeSet<u32> =
                        base.iter().filter(|t| !remove.contains(t)).chain(add.iter()).copied().collect();
                    set.into_iter().collect()
                })
                .collect();
            let sites: Vec<u64> = edits.iter().map(|e| e.3).collect();
            let p = match setting {
                0 => CooperParams::default(),
                1 => CooperParams::inserted_material(),
                2 => CooperParams { contained_pct: 20, contained_size_pct: 200, ..CooperParams::default() },
                3 => CooperParams { contained_pct: 30, contained_size_pct: 300, ..CooperParams::default() },
                4 => CooperParams { contained_pct: 30, contained_size_pct: 300, contained_min_terms: 25, ..CooperParams::default() },
                _ => CooperParams { contained_pct: 35, contained_size_pct: 1000, ..CooperParams::inserted_material() },
            };
            let slow = sequential_reference(&docs, 120, &sites, &p);
            prop_assert!(slow.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
            prop_assert_eq!(detect_ranked_in(docs.clone(), 120, &sites, None, &p, chunk), slow.clone());
            prop_assert_eq!(detect_ranked_in(docs, 120, &sites, None, &p, MATCH_CHUNK), slow);
        }
    }
}
