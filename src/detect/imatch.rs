//! Bagged I-Match (Chowdhury et al. 2002; Kolcz, Chowdhury, Alspector 2004) as a row of the
//! method table: a lexicon (built from the collection or loaded), K+1 SHA-1 signatures per
//! document, pairs and union-find clusters from signature collisions; a pair is explained by
//! the terms both texts contain.

use std::path::PathBuf;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::driver::cluster_rows;
use super::explain::{Highlight, HighlightKind};
use super::method::{Detector, Found, InAll, PairText, RunContext};
use super::params::{Kind, Param, Value};
use super::shared::Shared;
use super::sig_codec;
use crate::cluster::buckets::{cluster_signatures, cross_site_pairs, BucketOptions};
use crate::columnar::Column;
use crate::sig::imatch::{
    count_rules, extended_signature, overlap_weights, primary_indices, shared_terms_with,
    sorted_overlap_holds, to_hex, BaggedLexicon, IMatchParams, SigOutcome, Signature,
};
use crate::sig::lexicon::{unique_terms, DocFreqs, Lexicon, LexiconParams, TermClass, TermOptions};
use crate::store::{ClusterRow, DocText, Store, TextKind};
use crate::text::WordList;

/// Default of `--bag-max-idf` (see `IMatchParams::bag_max_idf`): the papers' 1, every
/// lexicon term is sampled. Session 3's 0.3 kept rare terms in every bag, so a page whose
/// releases differ in one rare term (ci-dd: 460 of 566 missed true pairs) was never found
/// by a bag; since the overlap check (`--min-overlap`) keeps the pages that differ in such a
/// term apart, bags sample every term again (BENCHMARKS.md, issue 14 session 8).
pub const DEFAULT_BAG_MAX_IDF: f64 = 1.0;

/// Default of `--bag-draws`: half a draw per term, bags of about 39% of the lexicon instead
/// of the bootstrap's 63%, so a bag misses all of d differing terms with probability
/// 0.61^d instead of 0.37^d (ci-dd, with the plain overlap check at 0.97: F1 .903 at 1,
/// .913 at 0.5). Session 10 (with bag coverage scaled): 0.1 raises news-v2 whole .136 → .221
/// and ci-dd .921 → .923 but lowers the held-out dd-held3 .751 → .719, so 0.5 stays.
pub const DEFAULT_BAG_DRAWS: f64 = 0.5;

/// Default of `--min-overlap`: a pair's primary lexicon sets must have an idf²-weighted
/// Jaccard ≥ 0.97 (sweep in BENCHMARKS.md, issue 14 session 8: plain Jaccard at 0.97 gave
/// ci-dd .913 / dd-held4 .750, idf² at 0.97 .920 / .768 with dd-held4's I-Match precision
/// above session 3's rules; idf² at 0.96 gains on ci-dd (.923) but lowers the union's
/// precision on dd-held3, .627 → .624).
pub const DEFAULT_MIN_OVERLAP: f64 = 0.97;

/// Default of `--overlap-idf-power`: terms weigh their normalized idf squared in the overlap
/// check, so a rare term (the name a page documents) that differs counts more than a common
/// word (at 0.97: power 2 ci-dd .920, 1 .918, 0 .913).
pub const DEFAULT_OVERLAP_IDF_POWER: f64 = 2.0;

/// Default of `--short-min-terms`: a page with fewer than `--min-terms` lexicon terms but
/// at least 5 unique terms is signed by all of them (ci-dd: 104 of 566 missed true pairs
/// were such pages; 3 finds more but lowers dd-held3/4 precision).
pub const DEFAULT_SHORT_MIN_TERMS: usize = 5;

/// Default of `--across-bags`: extra small bags whose collisions count only between two
/// pages on two sites (0 = off, the papers' rule). Syndicated news copies are on different
/// sites and differ in ≥ 10 lexicon terms (only small bags survive that); the doc families'
/// false collisions in small bags are template pages of one manual, one site. Measured
/// (BENCHMARKS.md, issue 14 session 11, with `--across-min-terms 14`): news-v2 whole F1
/// .136 → .469 (30 bags), .487 (40), .495 (50); no doc corpus moves. 60 since session 26
/// (20 news layouts, BENCHMARKS.md "issue 14 session 26"): I-Match's news F1 +.008 … +.055 at
/// precision 1.000 and no union precision lowered on any of 33 layouts, where 80 and 100
/// found more but paired two pages of news-v8 single that share a template's article; 8
/// bytes a bag for each page a cross-site bag signs (most doc pages are signed by none).
pub const DEFAULT_ACROSS_BAGS: usize = 60;

/// Default of `--across-bag-draws`: bags of about 1 − e^−0.1 ≈ 9.5% of the lexicon (session
/// 10: small bags of 0.1 draws are the ones syndicated copies collide in; 0.15 and 0.2 with
/// the fewest terms scaled found fewer: news-v2 whole .420, .389).
pub const DEFAULT_ACROSS_BAG_DRAWS: f64 = 0.1;

/// Default of `--across-min-terms`: a cross-site bag coordinate is signed only from at least
/// this many lexicon terms, so two pages of a few words each (an index page, a stub) cannot
/// meet across sites on the two or three terms a small bag keeps of them: at a million pages
/// such tiny signatures would collide by the thousand. Measured (30 bags, session 11): 8
/// finds the most news (news-v2 whole .537) but pairs doxygen's legend page of two manuals
/// of dd-held3; 12 still does; 14 (.469) was the smallest that did not. 12 since session 27
/// (60 bags; BENCHMARKS.md "issue 14 session 27"): I-Match's news F1 +.019 … +.072 on 21 of
/// 22 news layouts at precision 1.000, every union unchanged on 46 layouts (releases laid out
/// as sites among them: tried in session 26 before releases so laid out were one site, it
/// paired their template siblings across releases); the legend pair is
/// back (dd-held3 I-Match precision .720 → .719, F1 .735 both: the same generated text in
/// two manuals), and at a million 14,671 more pairs (+0.2%), 14,609 of them one page in two
/// versioned packages of one manual (vtk7/vtk9-doc, rust-doc/rust-web-doc, openjdk-17/21).
pub const DEFAULT_ACROSS_MIN_TERMS: usize = 12;

/// Default of `--across-min-overlap`: the overlap check of a pair only the cross-site bags
/// found (the main coordinates' pairs keep `--min-overlap`, on one site or two). News
/// copies have an idf²-weighted Jaccard of 0.5–0.97; measured on news-v2 whole (40 bags,
/// 14 terms): 0.3 and 0.5 .487, 0.7 .481 (at 8 terms and 30 bags, 0.95 .309 and 0.97 .220
/// against 0.5's .537); dd-held3 and dd-held4 do not move at 0.3 or 0.7. 0.5 guards at
/// scale at no measured cost.
pub const DEFAULT_ACROSS_MIN_OVERLAP: f64 = 0.5;

/// Mixed into `--seed` for the cross-site bags, so they are not a prefix of the main bags'
/// sample streams.
const ACROSS_SEED_SALT: u64 = 0xC055_5173_0000_0000;

/// Default of `--bags` (the papers: 10). Measured on the content text (BENCHMARKS.md,
/// issue 14 session 3): on ci-dd K = 30 recovers 103 more true pairs than K = 10 at the same
/// 35 false ones (F1 0.850 → 0.874); cc-held, dd6k and the union's pairs on every corpus
/// are unchanged; K = 50 or 100 adds 1 pair more.
pub const DEFAULT_BAGS: usize = 30;

/// I-Match settings of one run (stored as the run's parameters, keys as since v1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct IMatchSettings {
    pub lexicon_file: Option<PathBuf>,
    pub idf_min: f64,
    pub idf_max: f64,
    pub bags: usize,
    pub seed: u64,
    pub min_terms: usize,
    pub min_coverage: f64,
    pub text: TextKind,
    pub max_pair_bucket: usize,
    /// A pair needs this many equal coordinates (1 = any, the papers' rule).
    pub min_agree: usize,
    /// Bags sample only terms with normalized idf ≤ this; rarer ones are in every bag
    /// (1.0 = the papers' bootstrap of the whole lexicon).
    pub bag_max_idf: f64,
    /// Draws per lexicon term of a bag (1.0 = the papers' bootstrap; see
    /// `IMatchParams::bag_draws`). A run stored before this setting existed read the papers'
    /// bootstrap, and reads back so (the same holds for the two settings below).
    #[serde(default = "papers_bag_draws")]
    pub bag_draws: f64,
    /// A pair found by a bag is kept only when the Jaccard of the two pages' primary lexicon
    /// term sets is at least this (0 = off, the papers' rule).
    #[serde(default)]
    pub min_overlap: f64,
    /// The overlap check weighs a term by its normalized idf to this power (0 = plain
    /// Jaccard).
    #[serde(default)]
    pub overlap_idf_power: f64,
    /// Short documents are signed by all their unique terms from this many (0 = off; see
    /// `IMatchParams::short_min_terms`).
    #[serde(default)]
    pub short_min_terms: usize,
    /// Bag coordinates need the coverage scaled by the bag's size (see
    /// `IMatchParams::scale_bag_coverage`); a run stored before this setting existed did not
    /// scale (the field's own default, `false`, not the struct's).
    #[serde(default)]
    pub scale_bag_coverage: bool,
    /// Bag membership by a hash of the term (see `IMatchParams::bags_by_term`); a run stored
    /// before this setting existed drew lexicon indices (the field's own default, `false`).
    #[serde(default)]
    pub bags_by_term: bool,
    /// Extra small bags whose collisions count only for two pages on two sites (0 = off; a
    /// run stored before this setting existed had none, the field's own default).
    #[serde(default)]
    pub across_bags: usize,
    /// Draws per lexicon term of a cross-site bag (see `bag_draws`).
    pub across_bag_draws: f64,
    /// Fewest lexicon terms a cross-site bag coordinate is signed from.
    pub across_min_terms: usize,
    /// The overlap check of a pair only the cross-site bags found; `None`: `min_overlap` (a
    /// run stored before this setting existed, which had no such pairs).
    #[serde(default)]
    pub across_min_overlap: Option<f64>,
}

/// What a run stored before `bag_draws` existed drew: the bootstrap.
fn papers_bag_draws() -> f64 {
    1.0
}

impl Default for IMatchSettings {
    /// What `detect` runs. The library's `IMatchParams::default()` is the signing rule as
    /// first written (coverage 0.1, bags over the whole lexicon); `detect` departs from it
    /// where measured, here and only here.
    fn default() -> Self {
        let p = IMatchParams::default();
        let l = LexiconParams::default();
        IMatchSettings {
            lexicon_file: None,
            idf_min: l.idf_min,
            idf_max: l.idf_max,
            bags: DEFAULT_BAGS,
            seed: p.seed,
            min_terms: p.min_terms,
            // Measured on debian-docs: 0.2 separates template pages that share their
            // mid-frequency terms (the papers' long-document rule, tightened).
            min_coverage: 0.2,
            text: TextKind::Content,
            max_pair_bucket: BucketOptions::default().max_pair_bucket,
            min_agree: 1,
            bag_max_idf: DEFAULT_BAG_MAX_IDF,
            bag_draws: DEFAULT_BAG_DRAWS,
            min_overlap: DEFAULT_MIN_OVERLAP,
            overlap_idf_power: DEFAULT_OVERLAP_IDF_POWER,
            short_min_terms: DEFAULT_SHORT_MIN_TERMS,
            scale_bag_coverage: true,
            bags_by_term: true,
            across_bags: DEFAULT_ACROSS_BAGS,
            across_bag_draws: DEFAULT_ACROSS_BAG_DRAWS,
            across_min_terms: DEFAULT_ACROSS_MIN_TERMS,
            across_min_overlap: Some(DEFAULT_ACROSS_MIN_OVERLAP),
        }
    }
}

/// One document's I-Match signature: its K + 1 coordinates and, when the run checks the
/// overlap of a pair's lexicon terms (`--min-overlap`), its primary lexicon terms as indices
/// into the run's lexicon; with the cross-site rules on, its site and its cross-site bags'
/// coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IMatchSig {
    pub outcomes: Vec<SigOutcome>,
    /// `None`: not kept (the check is off, or a signature index stored before the check
    /// existed); a pair with such a side is not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<Vec<u32>>,
    /// The page's site (`cooper::site_hash` of its URL) when a cross-site rule is on; a pair
    /// with a side of no site is judged as a pair within one site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<u64>,
    /// The cross-site bags' coordinates (`--across-bags`), each the first 8 bytes of its
    /// SHA-1 (0 = not signed; empty when none is): eight bytes a coordinate, not an
    /// outcome's 48, since at a million pages every document holds them until the pairs are
    /// made. Two 64-bit hashes
    /// of different term sets agree by chance with probability 2^−64 a pair, and such a
    /// pair still has to pass the overlap check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub across: Vec<u64>,
}

/// What `spotcheck sigs` shows of a document's extended signature: each coordinate in hex
/// (`null` where unsigned); `None` when no coordinate is signed.
fn doc_sig_of(ext: &[Option<Signature>]) -> Option<serde_json::Value> {
    if !ext.iter().any(Option::is_some) {
        return None;
    }
    Some(serde_json::Value::Array(
        ext.iter()
            .map(|c| {
                c.as_ref()
                    .map_or(serde_json::Value::Null, |x| to_hex(x).into())
            })
            .collect(),
    ))
}

/// Outcome tags of the index's binary form ([`IMatchSig::index_bytes`]).
const SIGNED: u8 = 0;
const TOO_FEW_TERMS: u8 = 1;
const UNRELIABLE: u8 = 2;

impl IMatchSig {
    /// The signature in `query`'s index (`detect::sig_codec`, version 1): the outcomes
    /// (per coordinate a tag, the 20 bytes of a signature and the counts), a flags byte
    /// (bit 0: terms kept, bit 1: a site), the primary term indices as zigzag deltas, the
    /// site's 64-bit hash and the cross-site coordinates, eight bytes each, little-endian.
    /// The signatures are SHA-1 of the terms (unseeded); the site is `cooper::site_hash`.
    pub fn index_bytes(&self) -> Vec<u8> {
        let mut w = sig_codec::Writer::new();
        w.varint(self.outcomes.len() as u64);
        for o in &self.outcomes {
            match *o {
                SigOutcome::Signed {
                    sig,
                    terms,
                    extended,
                } => {
                    w.byte(SIGNED);
                    w.raw(&sig);
                    w.varint(terms as u64);
                    w.varint(extended as u64);
                }
                SigOutcome::TooFewTerms { terms } => {
                    w.byte(TOO_FEW_TERMS);
                    w.varint(terms as u64);
                }
                SigOutcome::Unreliable { terms, unique } => {
                    w.byte(UNRELIABLE);
                    w.varint(terms as u64);
                    w.varint(unique as u64);
                }
            }
        }
        w.byte(u8::from(self.terms.is_some()) | (u8::from(self.site.is_some()) << 1));
        if let Some(terms) = &self.terms {
            w.varint(terms.len() as u64);
            let mut prev = 0i64;
            for &t in terms {
                w.signed(i64::from(t) - prev);
                prev = i64::from(t);
            }
        }
        if let Some(site) = self.site {
            w.u64_le(site);
        }
        w.varint(self.across.len() as u64);
        for &a in &self.across {
            w.u64_le(a);
        }
        w.finish()
    }

    /// A signature from `query`'s index: the binary form of [`Self::index_bytes`], or the
    /// JSON of older versions (an object since the overlap check, before it the array of
    /// outcomes).
    pub fn from_index_bytes(bytes: &[u8]) -> Option<IMatchSig> {
        let Some(mut r) = sig_codec::Reader::new(bytes) else {
            return serde_json::from_slice(bytes).ok().or_else(|| {
                serde_json::from_slice(bytes)
                    .ok()
                    .map(|outcomes| IMatchSig {
                        outcomes,
                        terms: None,
                        site: None,
                        across: Vec::new(),
                    })
            });
        };
        let n = r.count()?;
        let mut outcomes = Vec::with_capacity(n);
        for _ in 0..n {
            let count = |r: &mut sig_codec::Reader<'_>| usize::try_from(r.varint()?).ok();
            outcomes.push(match r.byte()? {
                SIGNED => {
                    let mut sig: Signature = [0; 20];
                    sig.copy_from_slice(r.raw(20)?);
                    SigOutcome::Signed {
                        sig,
                        terms: count(&mut r)?,
                        extended: count(&mut r)?,
                    }
                }
                TOO_FEW_TERMS => SigOutcome::TooFewTerms {
                    terms: count(&mut r)?,
                },
                UNRELIABLE => SigOutcome::Unreliable {
                    terms: count(&mut r)?,
                    unique: count(&mut r)?,
                },
                _ => return None,
            });
        }
        let flags = r.byte()?;
        let terms = if flags & 1 != 0 {
            let n = r.count()?;
            let mut terms = Vec::with_capacity(n);
            let mut prev = 0i64;
            for _ in 0..n {
                prev = prev.checked_add(r.signed()?)?;
                terms.push(u32::try_from(prev).ok()?);
            }
            Some(terms)
        } else {
            None
        };
        let site = if flags & 2 != 0 {
            Some(r.u64_le()?)
        } else {
            None
        };
        let n = r.count()?;
        let across = (0..n).map(|_| r.u64_le()).collect::<Option<Vec<u64>>>()?;
        r.at_end().then_some(IMatchSig {
            outcomes,
            terms,
            site,
            across,
        })
    }
}

/// A signed coordinate as the cross-site bags keep it: the first 8 bytes of its SHA-1, never
/// 0 (0 = not signed).
fn short_signature(o: &SigOutcome) -> u64 {
    o.signature().map_or(0, |s| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&s[..8]);
        u64::from_le_bytes(b).max(1)
    })
}

/// What signs a document: the main bags and, with `--across-bags`, the cross-site ones.
struct Signers<'a> {
    main: BaggedLexicon<'a>,
    across: Option<BaggedLexicon<'a>>,
    check_overlap: bool,
    with_site: bool,
}

impl<'a> Signers<'a> {
    fn new(lexicon: &'a Lexicon, s: &IMatchSettings) -> Self {
        Signers {
            main: BaggedLexicon::new(lexicon, s.signing()),
            across: s.across_signing().map(|p| BaggedLexicon::new(lexicon, p)),
            check_overlap: s.checks_overlap(),
            with_site: s.site_rules(),
        }
    }
}

/// A document's extended signature: one SHA-1 per coordinate, `None` where unsigned.
type ExtendedSig = Vec<Option<[u8; 20]>>;

impl IMatchSig {
    /// Signs one document given its lexicon terms with their class, its number of unique
    /// terms, and (called only for the short-document rule) all its unique terms.
    fn sign<'t>(
        signers: &Signers<'_>,
        site: impl FnOnce() -> u64,
        classes: &[(&str, TermClass)],
        unique_len: usize,
        all_terms: impl FnOnce() -> Vec<&'t str>,
    ) -> IMatchSig {
        let mut outcomes = signers.main.sign_classes(classes, unique_len);
        signers
            .main
            .sign_short(&mut outcomes, unique_len, all_terms);
        let mut across: Vec<u64> = signers.across.as_ref().map_or_else(Vec::new, |b| {
            b.sign_coordinates(classes, unique_len, false)
                .iter()
                .map(short_signature)
                .collect()
        });
        // A page with no cross-site coordinate signed (fewer lexicon terms than a small bag
        // needs; how many pages that is was not counted) keeps none, not K zeros: at a
        // million pages the coordinates are 8 bytes × K a page until the pairs are made.
        if across.iter().all(|&x| x == 0) {
            across = Vec::new();
        }
        IMatchSig {
            outcomes,
            terms: signers.check_overlap.then(|| primary_indices(classes)),
            site: signers.with_site.then(site),
            across,
        }
    }
}

/// Most extra bootstrap lexicons (each costs a signature per document and a bucket pass).
const MAX_BAGS: u64 = 1000;

/// The I-Match row of the method table.
pub struct IMatch;

type S = IMatchSettings;

static PARAMS: &[Param<S>] = &[
    Param {
        flag: "lexicon",
        value_name: "FILE",
        kind: Kind::File,
        help: "A lexicon file (from `lexicon build`, e.g. of a cleaner collection) instead of \
               one built from this collection.",
        paper: None,
        get: |s| s.lexicon_file.clone().map(Value::File),
        unset: "built from this collection",
        set: |s, v| s.lexicon_file = Some(v.path()),
    },
    Param {
        flag: "lexicon-idf",
        value_name: "MIN,MAX",
        kind: Kind::Window { auto: false },
        help: "Normalized-idf window of the lexicon L (rarer terms form the secondary lexicon).",
        paper: Some("0.2,0.8"),
        get: |s| Some(Value::Window(s.idf_min, Some(s.idf_max))),
        unset: "",
        set: |s, v| {
            let (lo, hi) = v.window();
            s.idf_min = lo;
            s.idf_max = hi.unwrap_or(s.idf_max);
        },
    },
    Param {
        flag: "bags",
        value_name: "K",
        kind: Kind::Int {
            min: 0,
            max: MAX_BAGS,
        },
        help: "Number K of extra bootstrap lexicons; 0 = plain I-Match.",
        paper: Some("10"),
        get: |s| Some(Value::Int(s.bags as u64)),
        unset: "",
        set: |s, v| s.bags = v.int() as usize,
    },
    Param {
        flag: "seed",
        value_name: "N",
        kind: Kind::at_least(0),
        help: "Seed of the bag sampler (recorded with the run, so bags reproduce).",
        paper: None,
        get: |s| Some(Value::Int(s.seed)),
        unset: "",
        set: |s, v| s.seed = v.int(),
    },
    Param {
        flag: "min-terms",
        value_name: "N",
        kind: Kind::at_least(1),
        help: "No signature from fewer lexicon terms (stubs never cluster together).",
        paper: None,
        get: |s| Some(Value::Int(s.min_terms as u64)),
        unset: "",
        set: |s, v| s.min_terms = v.int() as usize,
    },
    Param {
        flag: "min-coverage",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "Long-document reliability: extend S from the secondary lexicon until |S|/|U| ≥ F, \
               else no signature; 0 = off.",
        paper: None,
        get: |s| Some(Value::Float(s.min_coverage)),
        unset: "",
        set: |s, v| s.min_coverage = v.float(),
    },
    Param {
        flag: "min-agree",
        value_name: "M",
        kind: Kind::Int {
            min: 1,
            max: MAX_BAGS + 1,
        },
        help: "A pair needs M equal coordinates of K+1 (1 = any; higher trades recall for \
               precision).",
        paper: Some("1"),
        get: |s| Some(Value::Int(s.min_agree as u64)),
        unset: "",
        set: |s, v| s.min_agree = v.int() as usize,
    },
    Param {
        flag: "bag-max-idf",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "Bags sample only lexicon terms with normalized idf ≤ F; rarer terms are in every \
               bag (1 = the papers' bootstrap of the whole lexicon).",
        paper: Some("1"),
        get: |s| Some(Value::Float(s.bag_max_idf)),
        unset: "",
        set: |s, v| s.bag_max_idf = v.float(),
    },
    Param {
        flag: "bag-draws",
        value_name: "F",
        kind: Kind::closed(0.01, 1.0),
        help: "Draws per lexicon term of a bag: a bag keeps about 1 − e^−F of the terms it \
               samples (1 = the papers' bootstrap, 63%); smaller bags survive more terms that \
               differ between two copies.",
        paper: Some("1"),
        get: |s| Some(Value::Float(s.bag_draws)),
        unset: "",
        set: |s, v| s.bag_draws = v.float(),
    },
    Param {
        flag: "min-overlap",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "A pair needs this (weighted, see --overlap-idf-power) Jaccard of the two pages' \
               primary lexicon terms (pages that share a bag's signature but differ in more are \
               two pages); 0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Float(s.min_overlap)),
        unset: "",
        set: |s, v| s.min_overlap = v.float(),
    },
    Param {
        flag: "overlap-idf-power",
        value_name: "P",
        kind: Kind::closed(0.0, 4.0),
        help: "The overlap check weighs each term by its normalized idf to the power P (rare \
               terms, which name a page, count more); 0 = plain Jaccard.",
        paper: None,
        get: |s| Some(Value::Float(s.overlap_idf_power)),
        unset: "",
        set: |s, v| s.overlap_idf_power = v.float(),
    },
    Param {
        flag: "short-min-terms",
        value_name: "N",
        kind: Kind::at_least(0),
        help: "A page with too few lexicon terms to sign but at least N unique terms is signed \
               by all its terms (small index pages); 0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Int(s.short_min_terms as u64)),
        unset: "",
        set: |s, v| s.short_min_terms = v.int() as usize,
    },
    Param {
        flag: "bag-coverage-full",
        value_name: "",
        kind: Kind::Switch,
        help: "The papers' long-document rule in every bag: a bag needs the whole \
               --min-coverage (without it a bag needs --min-coverage times the fraction of the \
               lexicon it keeps, 1 − e^−F of --bag-draws F).",
        paper: Some("on"),
        get: |s| Some(Value::Switch(!s.scale_bag_coverage)),
        unset: "",
        set: |s, v| s.scale_bag_coverage = !v.on(),
    },
    Param {
        flag: "bags-by-index",
        value_name: "",
        kind: Kind::Switch,
        help: "Draw each bag's terms by lexicon index with replacement (the papers' bootstrap: \
               one term entering or leaving the lexicon redraws every bag); without it a bag \
               keeps a term by a hash of the term and the bag's seed, the same share of the \
               lexicon, and a term's place in a bag depends on the term alone.",
        paper: Some("on"),
        get: |s| Some(Value::Switch(!s.bags_by_term)),
        unset: "",
        set: |s, v| s.bags_by_term = !v.on(),
    },
    Param {
        flag: "across-bags",
        value_name: "K",
        kind: Kind::Int {
            min: 0,
            max: MAX_BAGS,
        },
        help: "Extra small bags (see --across-bag-draws) whose collisions count only for two \
               pages on two sites (a URL's host; a folder's first directory): syndicated \
               copies differ in too many terms for the main bags, template pages of one site \
               collide in small ones; 0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Int(s.across_bags as u64)),
        unset: "",
        set: |s, v| s.across_bags = v.int() as usize,
    },
    Param {
        flag: "across-bag-draws",
        value_name: "F",
        kind: Kind::closed(0.01, 1.0),
        help: "Draws per lexicon term of a cross-site bag (as --bag-draws).",
        paper: None,
        get: |s| Some(Value::Float(s.across_bag_draws)),
        unset: "",
        set: |s, v| s.across_bag_draws = v.float(),
    },
    Param {
        flag: "across-min-terms",
        value_name: "N",
        kind: Kind::at_least(1),
        help: "A cross-site bag signs a page only from at least N lexicon terms (pages of a \
               few words must not meet across sites on the two or three terms a small bag \
               keeps).",
        paper: None,
        get: |s| Some(Value::Int(s.across_min_terms as u64)),
        unset: "",
        set: |s, v| s.across_min_terms = v.int() as usize,
    },
    Param {
        flag: "across-min-overlap",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "--min-overlap for a pair only the cross-site bags found (a copy on another \
               site is edited more than two pages of one site differ).",
        paper: Some("0"),
        get: |s| s.across_min_overlap.map(Value::Float),
        unset: "as --min-overlap",
        set: |s, v| s.across_min_overlap = Some(v.float()),
    },
];

impl IMatchSettings {
    /// The signing rule of these settings.
    pub fn signing(&self) -> IMatchParams {
        IMatchParams {
            min_terms: self.min_terms,
            min_coverage: self.min_coverage,
            bags: self.bags,
            seed: self.seed,
            bag_max_idf: self.bag_max_idf,
            bag_draws: self.bag_draws,
            short_min_terms: self.short_min_terms,
            scale_bag_coverage: self.scale_bag_coverage,
            bags_by_term: self.bags_by_term,
        }
    }

    /// The signing rule of the cross-site bags (`--across-bags`), `None` when there are
    /// none: the main rule with the cross-site bags' number, size and fewest terms, its own
    /// sample streams, and no short-document rule (which signs coordinate 0 only).
    pub fn across_signing(&self) -> Option<IMatchParams> {
        (self.across_bags > 0).then(|| IMatchParams {
            bags: self.across_bags,
            bag_draws: self.across_bag_draws,
            seed: self.seed ^ ACROSS_SEED_SALT,
            min_terms: self.min_terms.max(self.across_min_terms),
            short_min_terms: 0,
            ..self.signing()
        })
    }

    /// The overlap check of a pair on two sites.
    pub fn across_overlap(&self) -> f64 {
        self.across_min_overlap.unwrap_or(self.min_overlap)
    }

    /// Whether a pair is ever checked, so the pages' primary terms must be kept.
    pub fn checks_overlap(&self) -> bool {
        self.min_overlap > 0.0 || (self.across_bags > 0 && self.across_overlap() > 0.0)
    }

    /// Whether a rule tells pairs across sites from pairs within one (the cross-site bags),
    /// so the pages' sites must be kept.
    pub fn site_rules(&self) -> bool {
        self.across_bags > 0
    }
}

/// What signing needs: the lexicon and the settings.
pub struct Prepared {
    lexicon: Lexicon,
    settings: IMatchSettings,
}

impl Detector for IMatch {
    type Settings = IMatchSettings;
    type Prepared = Prepared;
    type Sig = IMatchSig;

    const NAME: &'static str = "imatch";
    const TITLE: &'static str = "I-Match";
    const IN_ALL: InAll = InAll::Always;

    fn params() -> &'static [Param<S>] {
        PARAMS
    }

    fn text(s: &mut S) -> Option<&mut TextKind> {
        Some(&mut s.text)
    }

    fn check(s: &S) -> Result<(), String> {
        if s.min_agree > s.bags + 1 {
            return Err(format!(
                "--min-agree: expected at most K+1 = {} (the coordinates of --bags {}), got {}",
                s.bags + 1,
                s.bags,
                s.min_agree
            ));
        }
        Ok(())
    }

    fn prepare(s: &S, store: &Store, shared: &Shared) -> Result<Prepared> {
        Ok(Prepared {
            lexicon: lexicon_from(store, s, shared)?,
            settings: s.clone(),
        })
    }

    fn reads(p: &Prepared) -> TextKind {
        p.settings.text
    }

    fn signer(p: &Prepared) -> impl Fn(&DocText) -> IMatchSig + Sync + '_ {
        // The bags are drawn once per run, then shared by the signing threads.
        let signers = Signers::new(&p.lexicon, &p.settings);
        let terms = p.lexicon.params.terms;
        move |d| {
            let unique = unique_terms(&d.text, &terms);
            let classes: Vec<(&str, TermClass)> = unique
                .iter()
                .filter_map(|t| p.lexicon.class_of(t).map(|c| (t.as_str(), c)))
                .collect();
            IMatchSig::sign(
                &signers,
                || super::cooper::site_hash(&d.url),
                &classes,
                unique.len(),
                || unique.iter().map(String::as_str).collect(),
            )
        }
    }

    fn memo_key(s: &S) -> Option<(TextKind, TermOptions)> {
        s.lexicon_file
            .is_none()
            .then(|| (s.text, lexicon_params(s).terms))
    }

    fn sign_from_shared(
        p: &Prepared,
        shared: &Shared,
        _store: &Store,
    ) -> Option<(Vec<i64>, Vec<IMatchSig>)> {
        let counted = shared.memo(p.settings.text, &p.lexicon.params.terms)?;
        let sets = &counted.sets;
        if !sets.has_documents() {
            return None;
        }
        let signers = Signers::new(&p.lexicon, &p.settings);
        // Each distinct term is looked up in the lexicon once, not once per document.
        let class: Vec<Option<TermClass>> = sets
            .terms()
            .collect::<Vec<&str>>()
            .par_iter()
            .map(|t| p.lexicon.class_of(t))
            .collect();
        let sigs = (0..counted.ids.len())
            .into_par_iter()
            .map(|i| {
                let doc = sets.document(i).unwrap_or_default();
                let classes: Vec<(&str, TermClass)> = doc
                    .iter()
                    .filter_map(|&id| class[id as usize].map(|c| (sets.term(id), c)))
                    .collect();
                IMatchSig::sign(
                    &signers,
                    || counted.sites.get(i).copied().unwrap_or(0),
                    &classes,
                    doc.len(),
                    || doc.iter().map(|&id| sets.term(id)).collect(),
                )
            })
            .collect();
        Some((counted.ids.clone(), sigs))
    }

    fn sig_bytes(_p: &Prepared, sig: &IMatchSig) -> Option<Vec<u8>> {
        Some(sig.index_bytes())
    }

    fn sig_from_bytes(_p: &Prepared, bytes: &[u8]) -> Option<IMatchSig> {
        IMatchSig::from_index_bytes(bytes)
    }

    const DOC_SIGS_FROM_INDEX: bool = true;
    const READS_SITES: bool = true;

    /// Each document's coordinates in hex, from the index: what `find_pairs` stored.
    fn doc_sigs_from_index(
        _stored: &serde_json::Value,
        rows: &[&[u8]],
        _sites: &crate::extract::sites::SiteFamilies,
    ) -> Option<Vec<Option<serde_json::Value>>> {
        rows.iter()
            .map(|b| {
                IMatchSig::from_index_bytes(b).map(|s| doc_sig_of(&extended_signature(&s.outcomes)))
            })
            .collect()
    }

    fn find_pairs(p: Prepared, signed: Vec<IMatchSig>, ctx: &RunContext) -> Result<Found> {
        let s = &p.settings;
        let ids = ctx.ids;
        let rules = count_rules(signed.iter().map(|d| d.outcomes.as_slice()));
        // Each document's outcomes (31 coordinates of 48 bytes) are freed as its extended
        // signature (31 of 21 bytes) is made: made beside all of them, the signatures were
        // the largest part of the run's peak at a million pages (issue 16).
        let n = signed.len();
        let (mut sigs, mut terms, mut sites, mut across): (Vec<ExtendedSig>, _, _, _) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for d in signed {
            sigs.push(extended_signature(&d.outcomes));
            terms.push(d.terms);
            // Releases laid out as sites of their own are one site (`extract::sites`).
            sites.push(d.site.map(|h| ctx.sites.family_hash(h)));
            across.push(d.across);
        }
        let signed_at = ctx.started.elapsed().as_secs_f64();
        let result = cluster_signatures(
            &sigs,
            &BucketOptions {
                max_pair_bucket: s.max_pair_bucket,
            },
        );
        let k1 = result.coordinates.max(1);
        // The papers match on any equal coordinate; `min_agree` > 1 asks for more of them,
        // `min_overlap` > 0 for that share of the two pages' primary lexicon terms, and a
        // pair on two sites `--across-min-overlap`.
        let weights = overlap_weights(&p.lexicon, s.overlap_idf_power);
        let weight = |i: u32| weights.get(i as usize).copied().unwrap_or(1.0);
        let two_sites = |a: u32, b: u32| matches!((sites[a as usize], sites[b as usize]), (Some(x), Some(y)) if x != y);
        // The main coordinates judge every pair alike, within a site or across: a looser
        // check for their pairs on two sites admitted template pages of two manuals of one
        // doc family (session 11: dd-held3/4 precision and the union's fell at 0.5).
        let overlaps = |a: u32, b: u32, min: f64| match (&terms[a as usize], &terms[b as usize]) {
            (Some(x), Some(y)) => sorted_overlap_holds(x, y, min, weight),
            _ => true,
        };
        let below_min_agree = result
            .pairs
            .iter()
            .filter(|q| (q.agreeing as usize) < s.min_agree)
            .count();
        // The overlap check on both cores (a merge of two term lists per pair; tens of
        // millions of pairs at a million pages); the kept pairs in their order, as a
        // sequential filter keeps them. The detail is the number of agreeing coordinates,
        // negated for a pair only the cross-site bags found.
        let mut kept: Vec<((u32, u32, f64), i64)> = result
            .pairs
            .par_iter()
            .filter(|q| q.agreeing as usize >= s.min_agree && overlaps(q.a, q.b, s.min_overlap))
            .map(|q| ((q.a, q.b, q.score(k1)), i64::from(q.agreeing)))
            .collect();
        let main_kept = kept.len();
        // The cross-site bags: pairs on two sites sharing a small bag's signature, less those
        // the main coordinates kept, judged by `--across-min-overlap`.
        let site_keys: Vec<u64> = sites.iter().map(|x| x.unwrap_or(0)).collect();
        let any_across = across.iter().any(|a| !a.is_empty());
        let cross = if any_across {
            cross_site_pairs(&across, &site_keys, s.max_pair_bucket)
        } else {
            Vec::new()
        };
        drop(across);
        drop(site_keys);
        let k_across = s.across_bags.max(1);
        let cross_site_collisions = cross.len();
        // `kept` is in the bucket pairs' order, by (a, b).
        let kept_already = |q: &crate::cluster::buckets::BucketPair| {
            kept.binary_search_by(|((a, b, _), _)| (*a, *b).cmp(&(q.a, q.b)))
                .is_ok()
        };
        let across_only: Vec<((u32, u32, f64), i64)> = cross
            .par_iter()
            .filter(|q| {
                q.agreeing as usize >= s.min_agree
                    && two_sites(q.a, q.b)
                    && !kept_already(q)
                    && overlaps(q.a, q.b, s.across_overlap())
            })
            // Scored below the main pairs that agree as often: as a share of every
            // coordinate, main and cross-site.
            .map(|q| {
                (
                    (q.a, q.b, f64::from(q.agreeing) / (k1 + k_across) as f64),
                    -i64::from(q.agreeing),
                )
            })
            .collect();
        drop(cross);
        let cross_site_kept = across_only.len();
        if cross_site_kept > 0 {
            kept.extend(across_only);
            kept.par_sort_unstable_by_key(|((a, b, _), _)| (*a, *b));
        }
        let (pairs, agreeing): (Vec<(u32, u32, f64)>, Vec<i64>) = kept.into_iter().unzip();
        // The term lists were for the check only; the bucket pairs are now `pairs`.
        drop(terms);
        drop(sites);
        let below_min_overlap = result.pairs.len() - below_min_agree - main_kept;
        let crate::cluster::buckets::BucketResult {
            clusters: bucket_clusters,
            oversized,
            ..
        } = result;
        let clusters = if s.min_agree <= 1 && below_min_overlap == 0 && cross_site_kept == 0 {
            // Union-find over every coordinate collision, oversized buckets included.
            bucket_clusters
                .iter()
                .map(|c| ClusterRow {
                    members: c.members.iter().map(|&m| ids[m as usize]).collect(),
                    min_score: c.min_agreeing.map(|x| f64::from(x) / k1 as f64),
                    max_score: c.max_agreeing.map(|x| f64::from(x) / k1 as f64),
                    weakest_bridge: None,
                })
                .collect()
        } else {
            cluster_rows(ids, &pairs)
        };
        let signed_docs = sigs
            .iter()
            .filter(|s| s.iter().any(Option::is_some))
            .count();
        let summary = json!({
            "documents": ids.len(),
            "matchable": signed_docs,
            "lexicon_terms": p.lexicon.primary().len(),
            "secondary_terms": p.lexicon.secondary().len(),
            "coordinates": k1,
            "pairs_below_min_agree": below_min_agree,
            "pairs_below_min_overlap": below_min_overlap,
            "full_lexicon_rules": rules.first().map(|r| json!({
                "signed": r.signed, "extended_by_secondary": r.extended,
                "too_few_terms": r.too_few_terms, "unreliable": r.unreliable})),
            "pairs": pairs.len(),
            "cross_site_collisions": cross_site_collisions,
            "cross_site_pairs": cross_site_kept,
            "oversized_buckets": oversized.len(),
            "sign_seconds": signed_at,
        });
        Ok(Found {
            pairs,
            detail: Some(Box::new(move |i| {
                let n = *agreeing.get(i)?;
                Some(if n >= 0 {
                    format!("{n} of {k1} lexicons agree")
                } else {
                    format!(
                        "{} of {k_across} cross-site bags agree (none of {k1} lexicons)",
                        -n
                    )
                })
            })),
            clusters: Some(clusters),
            doc_sig: Box::new(move |i| doc_sig_of(sigs.get(i)?)),
            summary,
        })
    }

    /// Every term (I-Match's term filter, minus stopwords) both texts contain. The run's
    /// lexicon is not at hand in the pair view, so every shared term is shown.
    fn explain(_s: &S, pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>) {
        let stopwords = WordList::default_stopwords();
        let terms = shared_terms_with(
            pair.left,
            pair.right,
            &|t| !stopwords.contains(t),
            &TermOptions::default(),
        );
        let term = Highlight::of(HighlightKind::LexiconTerm);
        (
            terms
                .shared
                .iter()
                .flat_map(|t| t.in_a.iter().map(&term))
                .collect(),
            terms
                .shared
                .iter()
                .flat_map(|t| t.in_b.iter().map(&term))
                .collect(),
        )
    }
}

/// Document frequencies of the collection's terms (one streaming pass).
pub fn collection_dfs(store: &Store, text: TextKind, terms: &TermOptions) -> Result<DocFreqs> {
    // Only the frequencies: no per-document lists (budget 0).
    Ok(super::shared::count_terms(store, text, terms, 0)?
        .0
        .doc_freqs())
}

impl super::staged::Staged for IMatch {
    fn counted_text(s: &S) -> Option<TextKind> {
        s.lexicon_file.is_none().then_some(s.text)
    }

    fn prepare_from(s: &S, dfs: Option<&DocFreqs>) -> Result<Prepared> {
        let lexicon = match (&s.lexicon_file, dfs) {
            (Some(_), _) => lexicon_from_file(s)?,
            (None, Some(dfs)) => Lexicon::build(dfs, lexicon_params(s)),
            (None, None) => anyhow::bail!(
                "imatch needs the collection's term frequencies (--stats) or a lexicon file"
            ),
        };
        Ok(Prepared {
            lexicon,
            settings: s.clone(),
        })
    }

    /// `imatch_sigs`: the K+1 coordinates as hex SHA-1 ("" where a coordinate is not
    /// signed), and `imatch_outcomes` how each was decided: "signed TERMS EXTENDED",
    /// "few TERMS" or "unreliable TERMS UNIQUE" (the run summary's counts).
    fn sig_columns(sigs: Vec<IMatchSig>) -> Vec<(&'static str, Column)> {
        let mut hex = Vec::with_capacity(sigs.len());
        let mut how = Vec::with_capacity(sigs.len());
        let mut terms = Vec::with_capacity(sigs.len());
        let mut sites = Vec::with_capacity(sigs.len());
        let mut across = Vec::with_capacity(sigs.len());
        for IMatchSig {
            outcomes: doc,
            terms: t,
            site,
            across: small,
        } in sigs
        {
            terms.push(t.map(|t| t.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")));
            // The site hash as Cooper's `cooper_site` stores it (its bits as an int64).
            sites.push(site.map(|h| h as i64));
            across.push((!small.is_empty()).then(|| {
                small
                    .iter()
                    .map(|x| format!("{x:016x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            }));
            hex.push(
                doc.iter()
                    .map(|o| o.signature().map(|s| to_hex(&s)).unwrap_or_default())
                    .collect(),
            );
            how.push(
                doc.iter()
                    .map(|o| match o {
                        SigOutcome::Signed {
                            terms, extended, ..
                        } => format!("signed {terms} {extended}"),
                        SigOutcome::TooFewTerms { terms } => format!("few {terms}"),
                        SigOutcome::Unreliable { terms, unique } => {
                            format!("unreliable {terms} {unique}")
                        }
                    })
                    .collect(),
            );
        }
        vec![
            ("imatch_sigs", Column::TextList(hex)),
            ("imatch_outcomes", Column::TextList(how)),
            // The overlap check's primary term indices, space-separated (null: not kept).
            ("imatch_terms", Column::Text(terms)),
            // The cross-site rules' site (null: off) and cross-site bags' coordinates, 16 hex
            // digits each, space-separated, 0 where not signed (null: off).
            ("imatch_site", Column::Int(sites)),
            ("imatch_across", Column::Text(across)),
        ]
    }

    /// The overlap check's term weights (`--min-overlap`), indexed as `imatch_terms`: the
    /// Spark job checks a pair with them exactly as [`sorted_overlap_holds`] does.
    fn sign_meta(p: &Prepared, s: &S) -> Vec<(&'static str, String)> {
        if s.min_overlap <= 0.0 {
            return Vec::new();
        }
        let weights = overlap_weights(&p.lexicon, s.overlap_idf_power);
        vec![(
            "spotcheck.imatch_weights",
            serde_json::Value::from(weights).to_string(),
        )]
    }

    fn sigs_from_batch(batch: &arrow_array::RecordBatch) -> Result<Vec<IMatchSig>> {
        use crate::columnar::{batch_text_lists, batch_texts};
        let hex = batch_text_lists(batch, "imatch_sigs")?;
        let how = batch_text_lists(batch, "imatch_outcomes")?;
        // Written by every build since the overlap check; older files have no such column.
        let terms = batch_texts(batch, "imatch_terms").unwrap_or_else(|_| vec![None; hex.len()]);
        // Written since the cross-site rules (session 11); older files have neither.
        let sites = crate::columnar::batch_ints(batch, "imatch_site")
            .unwrap_or_else(|_| vec![None; hex.len()]);
        let across = batch_texts(batch, "imatch_across").unwrap_or_else(|_| vec![None; hex.len()]);
        hex.into_iter()
            .zip(how)
            .zip(terms)
            .zip(sites.into_iter().zip(across))
            .map(|(((hex, how), terms), (site, small))| {
                if hex.len() != how.len() {
                    anyhow::bail!("imatch_sigs and imatch_outcomes differ in length");
                }
                let outcomes = hex
                    .iter()
                    .zip(&how)
                    .map(|(h, o)| outcome_from(h, o))
                    .collect::<Result<_>>()?;
                let terms = terms
                    .map(|t| {
                        t.split_ascii_whitespace()
                            .map(|n| {
                                n.parse::<u32>().map_err(|_| {
                                    anyhow::anyhow!("not an imatch_terms index: {n:?}")
                                })
                            })
                            .collect::<Result<Vec<u32>>>()
                    })
                    .transpose()?;
                let across = small
                    .map(|t| {
                        t.split_ascii_whitespace()
                            .map(|x| {
                                u64::from_str_radix(x, 16).map_err(|_| {
                                    anyhow::anyhow!("not an imatch_across coordinate: {x:?}")
                                })
                            })
                            .collect::<Result<Vec<u64>>>()
                    })
                    .transpose()?
                    .unwrap_or_default();
                Ok(IMatchSig {
                    outcomes,
                    terms,
                    site: site.map(|h| h as u64),
                    across,
                })
            })
            .collect()
    }
}

fn lexicon_params(s: &IMatchSettings) -> LexiconParams {
    LexiconParams {
        idf_min: s.idf_min,
        idf_max: s.idf_max,
        terms: TermOptions::default(),
    }
}

fn lexicon_from_file(s: &IMatchSettings) -> Result<Lexicon> {
    let Some(p) = &s.lexicon_file else {
        anyhow::bail!("no lexicon file");
    };
    let text = std::fs::read_to_string(p)
        .with_context(|| format!("cannot read lexicon {}", p.display()))?;
    Lexicon::from_text(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// The lexicon of a run: loaded from a file, or built from this collection.
pub fn lexicon_for(store: &Store, s: &IMatchSettings) -> Result<Lexicon> {
    lexicon_from(store, s, &Shared::default())
}

/// [`lexicon_for`] with the document frequencies from `shared` (one pass per `detect`).
fn lexicon_from(store: &Store, s: &IMatchSettings, shared: &Shared) -> Result<Lexicon> {
    match &s.lexicon_file {
        Some(_) => lexicon_from_file(s),
        None => {
            let params = lexicon_params(s);
            let dfs = shared.dfs(store, s.text, &params.terms)?;
            Ok(Lexicon::build(&dfs, params))
        }
    }
}

/// One I-Match coordinate back from its two Parquet cells (see `sig_columns`).
fn outcome_from(hex: &str, how: &str) -> Result<SigOutcome> {
    let bad = || anyhow::anyhow!("not an I-Match outcome: {how:?} {hex:?}");
    let nums: Vec<usize> = how
        .split(' ')
        .skip(1)
        .map(|n| n.parse().map_err(|_| bad()))
        .collect::<Result<_>>()?;
    Ok(match (how.split(' ').next(), nums.as_slice()) {
        (Some("signed"), &[terms, extended]) => {
            let mut sig = [0u8; 20];
            if hex.len() != 40 {
                return Err(bad());
            }
            for (k, b) in sig.iter_mut().enumerate() {
                *b = u8::from_str_radix(hex.get(2 * k..2 * k + 2).ok_or_else(bad)?, 16)
                    .map_err(|_| bad())?;
            }
            SigOutcome::Signed {
                sig,
                terms,
                extended,
            }
        }
        (Some("few"), &[terms]) => SigOutcome::TooFewTerms { terms },
        (Some("unreliable"), &[terms, unique]) => SigOutcome::Unreliable { terms, unique },
        _ => return Err(bad()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::method::settings_from_stored;
    use std::collections::BTreeSet;

    #[test]
    fn a_run_stored_before_the_session_8_rules_reads_back_with_the_papers_rules() {
        // The keys every run stored before bag draws, the overlap check and the short rule.
        let stored = json!({"lexicon_file": null, "idf_min": 0.2, "idf_max": 0.8, "bags": 30,
            "seed": 1, "min_terms": 5, "min_coverage": 0.2, "text": "Content",
            "max_pair_bucket": 2000, "min_agree": 1, "bag_max_idf": 0.3});
        let s: IMatchSettings = settings_from_stored(&stored);
        assert_eq!(
            (s.bag_draws, s.min_overlap, s.short_min_terms),
            (1.0, 0.0, 0)
        );
        assert_eq!(s.bag_max_idf, 0.3);
        // A new run's settings read back as themselves.
        let now = IMatchSettings::default();
        let back: IMatchSettings = settings_from_stored(&serde_json::to_value(&now).unwrap());
        assert_eq!(
            (back.bag_draws, back.min_overlap, back.short_min_terms),
            (
                DEFAULT_BAG_DRAWS,
                DEFAULT_MIN_OVERLAP,
                DEFAULT_SHORT_MIN_TERMS
            )
        );
    }

    #[test]
    fn a_run_stored_before_the_cross_site_rules_reads_back_without_them() {
        let stored = json!({"bags": 30, "min_overlap": 0.97, "bag_draws": 0.5});
        let s: IMatchSettings = settings_from_stored(&stored);
        assert_eq!((s.across_bags, s.across_min_overlap), (0, None));
        assert_eq!(s.across_overlap(), 0.97);
        assert!(!s.site_rules());
        assert!(s.across_signing().is_none());
        // A new run's settings read back as themselves.
        let now = IMatchSettings::default();
        let back: IMatchSettings = settings_from_stored(&serde_json::to_value(&now).unwrap());
        assert_eq!(
            (back.across_bags, back.across_min_overlap),
            (DEFAULT_ACROSS_BAGS, Some(DEFAULT_ACROSS_MIN_OVERLAP))
        );
    }

    #[test]
    fn the_cross_site_bags_switch_on_sites_and_their_overlap_check() {
        let off = IMatchSettings {
            across_bags: 0,
            across_min_overlap: None,
            min_overlap: 0.0,
            ..IMatchSettings::default()
        };
        assert!(!off.site_rules() && !off.checks_overlap());
        // A check of the cross-site bags' pairs alone, without such bags, checks nothing.
        let check = IMatchSettings {
            across_min_overlap: Some(0.5),
            ..off.clone()
        };
        assert!(!check.site_rules() && !check.checks_overlap());
        let bags = IMatchSettings {
            across_bags: 4,
            across_bag_draws: 0.1,
            across_min_terms: 12,
            across_min_overlap: Some(0.5),
            ..off
        };
        assert!(bags.site_rules() && bags.checks_overlap());
        let p = bags.across_signing().unwrap();
        assert_eq!(
            (p.bags, p.bag_draws, p.min_terms, p.short_min_terms),
            (4, 0.1, 12, 0)
        );
        assert_ne!(
            p.seed, bags.seed,
            "the cross-site bags draw their own samples"
        );
    }

    #[test]
    fn cross_site_bags_sign_only_from_enough_terms_and_keep_eight_bytes() {
        let words: Vec<String> = (0..40).map(|i| format!("term{i:02}")).collect();
        // Every term in 2 of 10 documents: all primary.
        let mut docs: Vec<BTreeSet<String>> = Vec::new();
        for d in 0..10 {
            docs.push(words.iter().skip(d * 4).take(8).cloned().collect());
        }
        docs.extend(docs.clone());
        let dfs = DocFreqs::from_documents(&docs);
        let lexicon = Lexicon::build(&dfs, LexiconParams::default());
        let settings = |min: usize| IMatchSettings {
            across_bags: 8,
            across_bag_draws: 1.0,
            across_min_terms: min,
            min_coverage: 0.0,
            ..IMatchSettings::default()
        };
        let sign = |s: &IMatchSettings| {
            let signers = Signers::new(&lexicon, s);
            let unique: BTreeSet<String> = words.iter().take(8).cloned().collect();
            let classes: Vec<(&str, TermClass)> = unique
                .iter()
                .filter_map(|t| lexicon.class_of(t).map(|c| (t.as_str(), c)))
                .collect();
            IMatchSig::sign(&signers, || 7, &classes, unique.len(), Vec::new)
        };
        // Bags of 63% keep about 5 of the 8 terms: signed from 1 term, never from 9.
        let loose = sign(&settings(1));
        assert_eq!(loose.across.len(), 8);
        assert!(loose.across.iter().any(|&x| x != 0), "{loose:?}");
        assert_eq!(loose.site, Some(7));
        let strict = sign(&settings(9));
        assert!(
            strict.across.is_empty(),
            "none signed, none kept: {strict:?}"
        );
        // The main coordinates are not the cross-site rule's business.
        assert_eq!(loose.outcomes, strict.outcomes);
    }

    #[test]
    fn signatures_read_back_from_the_query_index_old_and_new() {
        let outcomes = vec![SigOutcome::TooFewTerms { terms: 2 }];
        // An index written before the overlap check: a plain array, no terms.
        let old = serde_json::to_vec(&outcomes).unwrap();
        assert_eq!(
            IMatchSig::from_index_bytes(&old),
            Some(IMatchSig {
                outcomes: outcomes.clone(),
                terms: None,
                site: None,
                across: Vec::new(),
            })
        );
        let new = IMatchSig {
            outcomes,
            terms: Some(vec![1, 5, 9]),
            site: Some(u64::MAX),
            across: vec![0, 1, u64::MAX],
        };
        let bytes = serde_json::to_vec(&new).unwrap();
        assert_eq!(IMatchSig::from_index_bytes(&bytes), Some(new.clone()));
        // This version's binary form, with every kind of outcome, and without the optional
        // fields.
        let mut every = new.clone();
        every.outcomes = vec![
            SigOutcome::Signed {
                sig: [7; 20],
                terms: 300,
                extended: 2,
            },
            SigOutcome::TooFewTerms { terms: 2 },
            SigOutcome::Unreliable {
                terms: 4,
                unique: 90,
            },
        ];
        let bare = IMatchSig {
            terms: None,
            site: None,
            across: Vec::new(),
            ..every.clone()
        };
        for sig in [new, every, bare] {
            let bytes = sig.index_bytes();
            assert!(crate::detect::sig_codec::is_binary(&bytes));
            assert_eq!(IMatchSig::from_index_bytes(&bytes), Some(sig.clone()));
            assert_eq!(IMatchSig::from_index_bytes(&bytes[..bytes.len() - 1]), None);
        }
    }
}
