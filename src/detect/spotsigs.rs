//! SpotSigs (Theobald, Siddharth, Paepcke, SIGIR 2008) as a row of the method table: spot
//! signatures per document, an idf window and the site-boilerplate rule, the exact
//! partitioned matcher, exact duplicates paired by content hash; a pair is explained by the
//! spot signatures both texts contain.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::explain::{Highlight, HighlightKind};
use super::method::{Detector, Found, InAll, PairText, RunContext};
use super::params::{Kind, Param, Value};
use super::shared::Shared;
use super::sig_codec;
use crate::cluster::spotsigs_matcher::{match_pairs, overlap, MatchMode};
use crate::columnar::Column;
use crate::sig::spotsigs::{
    self, build_vectors_from_ids, extract_packed, PackedSigs, SigVector, SigVocab, SiteBoilerplate,
    SpotSigParams, VectorOptions, DEFAULT_CHAIN, DEFAULT_DISTANCE,
};
use crate::store::{DocText, Store, TextKind};
use crate::text::{WordList, Words};

/// Default cap of the site rule: a signature on more than 50 pages of one site is the
/// site's boilerplate even when that is under 2% of it (see `SiteBoilerplate`; measured
/// in BENCHMARKS.md).
pub const DEFAULT_SITE_BOILERPLATE_PAGES: usize = 50;

/// Smallest site (in pages) the site rule applies to.
const SITE_RULE_MIN_PAGES: usize = 10;

/// SpotSigs settings of one run (stored as the run's parameters, keys as since v1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SpotSigsSettings {
    pub tau: f64,
    pub idf_min: f64,
    /// `None`: keep every signature found in at least two documents (see README).
    pub idf_max: Option<f64>,
    pub distance: usize,
    pub chain: usize,
    pub antecedents: Option<PathBuf>,
    pub text: TextKind,
    pub min_sigs: usize,
    /// Per-site boilerplate removal: (min pages of a site, max fraction of its pages).
    pub site_boilerplate: Option<(usize, f64)>,
    /// With the site rule: a signature on more than this many pages of one site is its
    /// boilerplate whatever the fraction (`None`: no cap).
    pub site_boilerplate_pages: Option<usize>,
    /// The truncation rule: a pair under τ is still a pair when at least this share of the
    /// smaller document's signatures is in the larger one (`None`: off)…
    pub containment: Option<f64>,
    /// …and its Jaccard is at least this floor (the guard against a short page whose few
    /// signatures a long one happens to hold).
    pub containment_floor: f64,
    /// Documents with the same content text (case and white space aside) are a pair at
    /// similarity 1 whatever their signatures: what matches the pages left with fewer than
    /// `min_sigs` signatures (index, table-of-contents and member-list pages).
    pub same_content: bool,
    /// Two differently named pages of one site (see [`page_name_key`]) are a pair only at a
    /// Jaccard of at least this (and never by the containment rule); `None`: off, every pair
    /// is judged by τ.
    pub sibling_tau: Option<f64>,
    /// The fallback for the pages left unsigned (fewer than `min_sigs` signatures: index,
    /// member-list and table-of-contents pages, whose text holds no antecedent): two of them
    /// are a pair at a Jaccard of their word 3-shingle sets of at least this, unless they are
    /// two differently named pages of one site or either has fewer than
    /// [`FALLBACK_MIN_SHINGLES`] shingles; `None`: off (the paper: such pages have no pair).
    pub fallback_tau: Option<f64>,
}

impl Default for SpotSigsSettings {
    fn default() -> Self {
        SpotSigsSettings {
            // On the content text, τ 0.4 is the best worst case of the syndication corpus
            // and the debian-docs families it was tuned on (BENCHMARKS.md, "Content text").
            tau: 0.4,
            idf_min: 0.2,
            idf_max: None,
            distance: DEFAULT_DISTANCE,
            chain: DEFAULT_CHAIN,
            antecedents: None,
            text: TextKind::Content,
            // Two or three signatures are a sentence of the site's own template (Qt's
            // "This is the complete list of members for …"): not evidence of a copy. Such
            // pages are matched by `same_content` instead (BENCHMARKS.md, issue 14).
            min_sigs: 3,
            site_boilerplate: Some((SITE_RULE_MIN_PAGES, 0.02)),
            site_boilerplate_pages: Some(DEFAULT_SITE_BOILERPLATE_PAGES),
            // A syndicated copy cut to a third of the story has Jaccard ≤ 0.35 with the
            // whole, yet keeps ≥ 80% of its signatures in it; doc look-alikes that reach
            // 80% containment already pass τ (measured in BENCHMARKS.md, issue 14).
            containment: Some(0.8),
            containment_floor: 0.2,
            same_content: true,
            // τ 0.4 and the containment rule are for copies edited on their way to another
            // site. Two pages of one site under two names share its template and its
            // vocabulary — a manual's sibling pages (`envvar/CFLAGS` / `envvar/FFLAGS`,
            // `git-annotate` / `git-blame`) reach 0.4–0.7 — so they must be close copies
            // (print versions, URL aliases) to be a pair (BENCHMARKS.md, issue 14 session 12).
            sibling_tau: Some(0.8),
            // A page SpotSigs cannot sign is still a page of two releases or two captures:
            // at 0.8 its word shingles (a member list with a few members added) find it
            // again, and no two pages of one template reach it under two names
            // (BENCHMARKS.md, issue 14 session 14).
            fallback_tau: Some(DEFAULT_FALLBACK_TAU),
        }
    }
}

impl SpotSigsSettings {
    /// The paper's exact setting: visible text, idf window [0.2, 0.85], no boilerplate rule.
    pub fn paper() -> Self {
        SpotSigsSettings {
            // The threshold tuned on visible text of doc families before the content text.
            tau: 0.9,
            idf_max: Some(0.85),
            text: TextKind::Visible,
            min_sigs: 1,
            site_boilerplate: None,
            site_boilerplate_pages: None,
            containment: None,
            same_content: false,
            sibling_tau: None,
            fallback_tau: None,
            ..Self::default()
        }
    }

    /// The signature extraction these settings describe.
    fn extraction(&self) -> Result<SpotSigParams> {
        Ok(SpotSigParams {
            antecedents: match &self.antecedents {
                Some(p) => WordList::load(p)?,
                None => spotsigs::default_antecedents(),
            },
            stopwords: WordList::default_stopwords(),
            distance: self.distance,
            chain: self.chain,
        })
    }
}

/// Default of `--fallback-tau`: chosen on ci-dd and dd-held8 (flat from 0.75 to 0.85 there),
/// confirmed on the doc families not looked at (issue 14 session 14, BENCHMARKS.md).
pub const DEFAULT_FALLBACK_TAU: f64 = 0.8;

/// The fallback's shingles: 3 consecutive words (`detect::minhash`'s word shingles).
const FALLBACK_SHINGLE_WORDS: usize = 3;

/// A page with fewer word 3-shingles than this (under about 27 words) is left out of the
/// fallback: a near-equal stub says little (doxygen's one-sentence graph legends of a dozen
/// example projects, each its own page: dd-held8's only false pairs of the fallback), and two
/// equal stubs are already a pair by `same_content`.
pub const FALLBACK_MIN_SHINGLES: usize = 25;

/// The SpotSigs row of the method table.
pub struct SpotSigs;

type S = SpotSigsSettings;

static PARAMS: &[Param<S>] = &[
    Param {
        flag: "paper",
        value_name: "",
        kind: Kind::Switch,
        help: "SpotSigs exactly as the paper: visible text, idf [0.2, 0.85], no site rule, no \
               containment or equal-text rule, min 1 signature (other flags still apply on top).",
        paper: Some("on"),
        get: |_| Some(Value::Switch(false)),
        unset: "",
        set: |s, v| {
            if v.on() {
                *s = S::paper();
            }
        },
    },
    Param {
        flag: "tau",
        value_name: "F",
        kind: Kind::open_closed(0.0, 1.0),
        help: "Multiset-Jaccard threshold τ of a pair.",
        paper: None,
        get: |s| Some(Value::Float(s.tau)),
        unset: "",
        set: |s, v| s.tau = v.float(),
    },
    Param {
        flag: "idf",
        value_name: "MIN,MAX",
        kind: Kind::Window { auto: true },
        help: "Normalized-idf window log(N/df)/log(N) of the signatures kept; `MIN,auto` keeps \
               every signature found in two or more documents.",
        paper: Some("0.2,0.85"),
        get: |s| Some(Value::Window(s.idf_min, s.idf_max)),
        unset: "",
        set: |s, v| (s.idf_min, s.idf_max) = v.window(),
    },
    Param {
        flag: "spot-distance",
        value_name: "N",
        kind: Kind::Int { min: 1, max: 64 },
        help: "Spot distance d: a chain takes every d-th non-stopword.",
        paper: Some("2"),
        get: |s| Some(Value::Int(s.distance as u64)),
        unset: "",
        set: |s, v| s.distance = v.int() as usize,
    },
    Param {
        flag: "chain",
        value_name: "N",
        kind: Kind::Int { min: 1, max: 64 },
        help: "Chain length c: non-stopwords per signature.",
        paper: Some("3"),
        get: |s| Some(Value::Int(s.chain as u64)),
        unset: "",
        set: |s, v| s.chain = v.int() as usize,
    },
    Param {
        flag: "antecedents",
        value_name: "FILE",
        kind: Kind::File,
        help: "Antecedent words (one per line) that start a signature.",
        paper: Some("articles, be, can, will, have, do"),
        get: |s| s.antecedents.clone().map(Value::File),
        unset: "assets/antecedents.txt",
        set: |s, v| s.antecedents = Some(v.path()),
    },
    Param {
        flag: "min-sigs",
        value_name: "N",
        kind: Kind::at_least(1),
        help: "Documents with fewer signatures are left out of matching.",
        paper: Some("1"),
        get: |s| Some(Value::Int(s.min_sigs as u64)),
        unset: "",
        set: |s, v| s.min_sigs = v.int() as usize,
    },
    Param {
        flag: "containment",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "Truncated copies: a pair under τ is a pair when this share of the smaller \
               document's signatures is in the larger one (and Jaccard ≥ --containment-floor); \
               0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Float(s.containment.unwrap_or(0.0))),
        unset: "",
        set: |s, v| {
            let f = v.float();
            s.containment = (f > 0.0).then_some(f);
        },
    },
    Param {
        flag: "containment-floor",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "The least Jaccard of a pair the containment rule adds.",
        paper: None,
        get: |s| Some(Value::Float(s.containment_floor)),
        unset: "",
        set: |s, v| s.containment_floor = v.float(),
    },
    Param {
        flag: "sibling-tau",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "Two pages of one site under different file names (the URL's last path segment \
               and query) are a pair only at Jaccard ≥ F, never by containment: sibling pages \
               of one template are not copies; 0 = off (τ for every pair).",
        paper: Some("0"),
        get: |s| Some(Value::Float(s.sibling_tau.unwrap_or(0.0))),
        unset: "",
        set: |s, v| {
            let f = v.float();
            s.sibling_tau = (f > 0.0).then_some(f);
        },
    },
    Param {
        flag: "fallback-tau",
        value_name: "F",
        kind: Kind::closed(0.0, 1.0),
        help: "Pages left unsigned (fewer than --min-sigs signatures: index and member-list \
               pages) are a pair at a Jaccard of their word 3-shingle sets of at least F, or \
               by --containment on the shingles (pages of 25 shingles or more; never two \
               differently named pages of one site); 0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Float(s.fallback_tau.unwrap_or(0.0))),
        unset: "",
        set: |s, v| {
            let f = v.float();
            s.fallback_tau = (f > 0.0).then_some(f);
        },
    },
    Param {
        flag: "no-same-content",
        value_name: "",
        kind: Kind::Switch,
        help: "Do not pair documents by equal text (case and white space aside); by default \
               they are a pair whatever their signatures: how pages with fewer than --min-sigs \
               signatures are matched.",
        paper: Some("on"),
        get: |s| Some(Value::Switch(!s.same_content)),
        unset: "",
        set: |s, v| {
            if v.on() {
                s.same_content = false;
            }
        },
    },
    Param {
        flag: "site-boilerplate",
        value_name: "FRACTION",
        kind: Kind::closed(0.0, 1.0),
        help: "Drop a site's boilerplate: signatures on more than this fraction of the site's \
               pages (sites of at least 10 pages); 0 = keep everything.",
        paper: Some("0"),
        get: |s| Some(Value::Float(s.site_boilerplate.map_or(0.0, |(_, f)| f))),
        unset: "",
        set: |s, v| {
            let f = v.float();
            s.site_boilerplate = (f > 0.0).then_some((SITE_RULE_MIN_PAGES, f));
        },
    },
    Param {
        flag: "site-boilerplate-pages",
        value_name: "N",
        kind: Kind::at_least(0),
        help: "With the site rule, a signature on more than N pages of one site is boilerplate \
               whatever the fraction; 0 = no cap.",
        paper: Some("0"),
        get: |s| Some(Value::Int(s.site_boilerplate_pages.unwrap_or(0) as u64)),
        unset: "",
        set: |s, v| {
            let n = v.int() as usize;
            s.site_boilerplate_pages = (n > 0).then_some(n);
        },
    },
];

/// A document's spot signatures, one per occurrence in text order: as strings when signed,
/// as ids of the run's [`Interner`] once the driver keeps them (a `String` per occurrence
/// was most of `detect`'s memory while SpotSigs ran on large collections; issue 16).
/// Serialized as the list of strings either way (see [`SpotSigs::sig_bytes`]). The signer
/// gives them packed in one buffer ([`PackedSigs`]); signatures read back from the index or
/// a stage's columns are `Text`.
#[derive(Debug)]
pub enum Sigs {
    Text(Vec<String>),
    Packed(PackedSigs),
    Ids(Vec<u32>),
}

impl<'de> Deserialize<'de> for Sigs {
    fn deserialize<De: serde::Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        Vec::<String>::deserialize(deserializer).map(Sigs::Text)
    }
}

/// The run's signature vocabulary: ids in order of first occurrence over the documents in
/// id order, the order [`build_vectors`] would give them, so the vectors are the same.
#[derive(Default)]
pub struct Interner(std::sync::Mutex<SigVocab>);

impl Interner {
    fn vocab(&self) -> std::sync::MutexGuard<'_, SigVocab> {
        // A panic while interning ends the run anyway; the vocabulary is plain data.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What signing one document keeps.
#[derive(Deserialize)]
pub struct DocSigs {
    sigs: Sigs,
    site: String,
    /// The exact-duplicate group of a document with some text.
    dup_group: Option<i64>,
    /// The hash of its text with case and white space folded (`None`: an empty text, or
    /// `same_content` off).
    same_content: Option<u64>,
    /// [`page_name_key`] of its URL (`None` in an index stored before names were kept: such
    /// a page is judged by τ alone).
    #[serde(default)]
    name: Option<u64>,
    /// The run-vocabulary ids this document was the first to hold (set by
    /// [`SpotSigs::keep`]; empty until then): its index row stores their strings, so the
    /// vocabulary is stored once, spread over the rows in document order.
    #[serde(skip)]
    fresh: std::ops::Range<u32>,
}

/// The key under which `same_content` pairs texts: the hash of the lowercased words joined
/// by single spaces (`None` for a text without words). Case and white space are what a
/// re-render of one page changes; anything else is left to the signatures.
///
/// The hash is `extract::content::block_hash` (FNV-1a, a byte at a time) of that folded
/// string, computed as the words are read instead of over a folded copy: building the copy
/// char by char was a tenth of `detect`'s CPU (issue 16, session 9). ASCII bytes are folded
/// without decoding a `char`; a proptest checks the key against the copy's hash.
pub fn same_content_key(text: &str) -> Option<u64> {
    const FNV_PRIME: u64 = 0x0100_0000_01b3;
    /// The ASCII bytes that are Unicode White_Space (`char::is_whitespace`): tab, line
    /// feed, vertical tab, form feed, carriage return, space.
    const ASCII_SPACE: u128 = 0x3e00 | 1 << 32;
    let step = |h: u64, b: u8| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    let bytes = text.as_bytes();
    // `at` only ever advances by whole characters, so it is a char boundary.
    let char_at = |at: usize| {
        text.get(at..)
            .and_then(|t| t.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER)
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut any = false;
    let mut i = 0;
    // Word by word: white space skipped, then one word hashed with a space before it
    // unless it is the first. ASCII bytes (most of most texts) are classified and folded
    // without decoding a `char`: the byte-at-a-time loop through `char` was 7% of
    // `detect`'s CPU on dd6k (issue 16, session 15); a proptest holds it to the folded copy.
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if ASCII_SPACE >> b & 1 == 1 {
                i += 1;
                continue;
            }
        } else {
            let c = char_at(i);
            if c.is_whitespace() {
                i += c.len_utf8();
                continue;
            }
        }
        if any {
            h = step(h, b' ');
        }
        any = true;
        while let Some(&b) = bytes.get(i) {
            if b < 0x80 {
                if ASCII_SPACE >> b & 1 == 1 {
                    break;
                }
                h = step(h, b.to_ascii_lowercase());
                i += 1;
                continue;
            }
            let c = char_at(i);
            if c.is_whitespace() {
                break;
            }
            i += c.len_utf8();
            let mut buf = [0u8; 4];
            for l in c.to_lowercase() {
                for &x in l.encode_utf8(&mut buf).as_bytes() {
                    h = step(h, x);
                }
            }
        }
    }
    any.then_some(h)
}

/// One document's [`DocSigs`] from its words ([`Words::of`] of its text).
fn sign_words(
    (params, s, _): &(SpotSigParams, SpotSigsSettings, Interner),
    d: &DocText,
    words: &Words,
) -> DocSigs {
    DocSigs {
        sigs: Sigs::Packed(extract_packed(words, params)),
        site: site_of(&d.url).to_string(),
        name: Some(page_name_key(&d.url)),
        // Exact duplicates (identical visible text) are pairs at similarity 1 whatever
        // their signatures: the content hash settles them without the matcher.
        dup_group: d.dup_group.filter(|_| !d.text.trim().is_empty()),
        same_content: if s.same_content {
            same_content_key(&d.text)
        } else {
            None
        },
        fresh: 0..0,
    }
}

/// Flags of the index's binary form ([`SpotSigs::sig_bytes`]): which optional fields follow.
const HAS_DUP_GROUP: u8 = 1;
const HAS_SAME_CONTENT: u8 = 2;
const HAS_NAME: u8 = 4;

/// A document's index row in the binary form, its parts as read ([`read_row`]).
struct Row<'a> {
    /// The first id of the strings it introduces to the run vocabulary, and those strings.
    fresh_from: u32,
    fresh: Vec<&'a str>,
    sig: DocSigs,
}

/// Reads a row of [`SpotSigs::sig_bytes`]' binary form, `None` when it is not one. Its ids
/// are not checked against any vocabulary here.
fn read_row(bytes: &[u8]) -> Option<Row<'_>> {
    let mut r = sig_codec::Reader::new(bytes)?;
    let fresh_from = r.u32()?;
    let n = r.count()?;
    let fresh = (0..n).map(|_| r.str()).collect::<Option<Vec<&str>>>()?;
    let site = r.str()?.to_string();
    let flags = r.byte()?;
    let dup_group = if flags & HAS_DUP_GROUP != 0 {
        Some(r.signed()?)
    } else {
        None
    };
    let same_content = if flags & HAS_SAME_CONTENT != 0 {
        Some(r.u64_le()?)
    } else {
        None
    };
    let name = if flags & HAS_NAME != 0 {
        Some(r.u64_le()?)
    } else {
        None
    };
    let n = r.count()?;
    let ids = (0..n).map(|_| r.u32()).collect::<Option<Vec<u32>>>()?;
    let end = u32::try_from(fresh.len()).ok()?.checked_add(fresh_from)?;
    r.at_end().then_some(Row {
        fresh_from,
        fresh,
        sig: DocSigs {
            sigs: Sigs::Ids(ids),
            site,
            dup_group,
            same_content,
            name,
            fresh: fresh_from..end,
        },
    })
}

/// The run's vectors (the idf window, the site rule, `min_sigs`) from every document's
/// signatures in document order: what `find_pairs` matches and what `sigs` shows. `vocab`
/// holds the ids of interned signatures; those not interned (read back from an older
/// index, or signed outside the run) join it in document order, as `build_vectors` would
/// number them. Returns the collection, each document's site and the idf ceiling used.
fn build_collection(
    s: &S,
    mut vocab: SigVocab,
    docs: Vec<DocSigs>,
) -> (spotsigs::SigCollection, Vec<String>, f64) {
    let n = docs.len();
    let (sig_lists, sites): (Vec<Vec<u32>>, Vec<String>) = docs
        .into_iter()
        .map(|d| {
            let ids = match d.sigs {
                Sigs::Ids(ids) => ids,
                Sigs::Text(t) => t.iter().map(|s| vocab.intern(s)).collect(),
                Sigs::Packed(t) => t.iter().map(|s| vocab.intern(s)).collect(),
            };
            (ids, d.site)
        })
        .unzip();
    // Keep every signature that occurs in two or more documents unless told otherwise:
    // the largest idf a shared signature can have is log(N/2)/log(N).
    let idf_max = s
        .idf_max
        .unwrap_or_else(|| spotsigs::normalized_idf(n.max(2), 2) + 1e-12);
    let opts = VectorOptions {
        idf_min: s.idf_min,
        idf_max,
        min_sigs: s.min_sigs,
        site_boilerplate: s
            .site_boilerplate
            .map(|(min_site_docs, max_site_fraction)| SiteBoilerplate {
                min_site_docs,
                max_site_fraction,
                max_site_pages: s.site_boilerplate_pages,
            }),
    };
    let site_refs: Vec<&str> = sites.iter().map(String::as_str).collect();
    let collection = build_vectors_from_ids(vocab, &sig_lists, Some(&site_refs), &opts);
    (collection, sites, idf_max)
}

/// What `spotcheck sigs` shows of document `i`: its vector as `{"signature": frequency}`
/// (`None` when it was left out of matching).
fn vector_sig(collection: &spotsigs::SigCollection, i: usize) -> Option<serde_json::Value> {
    let v = collection.vectors.get(i)?.as_ref()?;
    let m: serde_json::Map<String, serde_json::Value> = v
        .entries()
        .iter()
        .filter_map(|&(id, f)| Some((collection.vocab.name(id)?.to_string(), f.into())))
        .collect();
    Some(serde_json::Value::Object(m))
}

impl Detector for SpotSigs {
    type Settings = SpotSigsSettings;
    type Prepared = (SpotSigParams, SpotSigsSettings, Interner);
    type Sig = DocSigs;

    const NAME: &'static str = "spotsigs";
    const TITLE: &'static str = "SpotSigs";
    const IN_ALL: InAll = InAll::Always;

    fn params() -> &'static [Param<S>] {
        PARAMS
    }

    fn text(s: &mut S) -> Option<&mut TextKind> {
        Some(&mut s.text)
    }

    fn prepare(s: &S, _store: &Store, _shared: &Shared) -> Result<Self::Prepared> {
        Ok((s.extraction()?, s.clone(), Interner::default()))
    }

    fn reads(p: &Self::Prepared) -> TextKind {
        p.1.text
    }

    fn signer(p: &Self::Prepared) -> impl Fn(&DocText) -> DocSigs + Sync + '_ {
        move |d| crate::text::with_thread_words(&d.text, |words| sign_words(p, d, words))
    }

    fn word_signer(p: &Self::Prepared) -> Option<impl Fn(&DocText, &Words) -> DocSigs + Sync + '_> {
        Some(move |d: &DocText, words: &Words| sign_words(p, d, words))
    }

    fn keep((_, _, interner): &Self::Prepared, chunk: &mut [DocSigs]) {
        let mut vocab = interner.vocab();
        for d in chunk {
            let before = vocab.len() as u32;
            match &d.sigs {
                Sigs::Text(t) => d.sigs = Sigs::Ids(t.iter().map(|s| vocab.intern(s)).collect()),
                Sigs::Packed(t) => d.sigs = Sigs::Ids(t.iter().map(|s| vocab.intern(s)).collect()),
                Sigs::Ids(_) => continue,
            }
            d.fresh = before..vocab.len() as u32;
        }
    }

    /// The binary form (`sig_codec`, version 1): the first run-vocabulary id of the strings
    /// this document introduced and those strings (each string of the run is stored once,
    /// in the row of the first document that holds it), the site, a flags byte and the
    /// optional exact-duplicate group (zigzag), same-content key and page-name key (FNV-1a
    /// hashes, no seed; eight bytes each), then the signatures in text order as ids.
    /// Signatures the driver did not intern have no ids yet: `None`.
    fn sig_bytes((_, _, interner): &Self::Prepared, sig: &DocSigs) -> Option<Vec<u8>> {
        let Sigs::Ids(ids) = &sig.sigs else {
            return None;
        };
        let mut w = sig_codec::Writer::new();
        w.varint(u64::from(sig.fresh.start));
        w.varint(sig.fresh.len() as u64);
        {
            let vocab = interner.vocab();
            for id in sig.fresh.clone() {
                w.bytes(vocab.name(id)?.as_bytes());
            }
        }
        w.bytes(sig.site.as_bytes());
        let flags = if sig.dup_group.is_some() {
            HAS_DUP_GROUP
        } else {
            0
        } | if sig.same_content.is_some() {
            HAS_SAME_CONTENT
        } else {
            0
        } | if sig.name.is_some() { HAS_NAME } else { 0 };
        w.byte(flags);
        if let Some(g) = sig.dup_group {
            w.signed(g);
        }
        if let Some(k) = sig.same_content {
            w.u64_le(k);
        }
        if let Some(k) = sig.name {
            w.u64_le(k);
        }
        w.varint(ids.len() as u64);
        for &id in ids {
            w.varint(u64::from(id));
        }
        Some(w.finish())
    }

    /// Rebuilds the run vocabulary from the strings each row introduced, in document
    /// order: each must be new and take the next id, as when the run interned them.
    fn load_index<'a>(
        (_, _, interner): &Self::Prepared,
        rows: impl Iterator<Item = &'a [u8]>,
    ) -> bool {
        let mut vocab = interner.vocab();
        for bytes in rows {
            if !sig_codec::is_binary(bytes) {
                // JSON of an older version: strings in every row, nothing to load.
                continue;
            }
            let Some(row) = read_row(bytes) else {
                return false;
            };
            if row.fresh_from as usize != vocab.len() {
                return false;
            }
            for s in row.fresh {
                let next = vocab.len() as u32;
                if vocab.intern(s) != next {
                    return false;
                }
            }
        }
        true
    }

    fn sig_from_bytes((_, _, interner): &Self::Prepared, bytes: &[u8]) -> Option<DocSigs> {
        if !sig_codec::is_binary(bytes) {
            return serde_json::from_slice(bytes).ok();
        }
        let row = read_row(bytes)?;
        // Every id must name a string of the vocabulary `load_index` read.
        let known = interner.vocab().len();
        match &row.sig.sigs {
            Sigs::Ids(ids) if ids.iter().all(|&id| (id as usize) < known) => Some(row.sig),
            _ => None,
        }
    }

    const DOC_SIGS_FROM_INDEX: bool = true;
    const READS_SITES: bool = true;

    /// The vectors made again from the index under the run's stored parameters: the same
    /// signatures, sites and settings give `find_pairs`' vectors.
    fn doc_sigs_from_index(
        stored: &serde_json::Value,
        rows: &[&[u8]],
        sites: &crate::extract::sites::SiteFamilies,
    ) -> Option<Vec<Option<serde_json::Value>>> {
        let s: S = super::method::settings_from_stored(stored);
        let p = (SpotSigParams::default(), s, Interner::default());
        if !Self::load_index(&p, rows.iter().copied()) {
            return None;
        }
        let mut docs = rows
            .iter()
            .map(|b| Self::sig_from_bytes(&p, b))
            .collect::<Option<Vec<DocSigs>>>()?;
        join_site_families(&mut docs, sites);
        let (_, s, interner) = p;
        let vocab = interner
            .0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (collection, _, _) = build_collection(&s, vocab, docs);
        Some(
            (0..collection.vectors.len())
                .map(|i| vector_sig(&collection, i))
                .collect(),
        )
    }

    fn find_pairs(
        (_, s, interner): Self::Prepared,
        docs: Vec<DocSigs>,
        ctx: &RunContext,
    ) -> Result<Found> {
        let n = docs.len();
        let mut dup_groups: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        let mut content_groups: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (i, d) in docs.iter().enumerate() {
            if let Some(g) = d.dup_group {
                dup_groups.entry(g).or_default().push(i);
            }
            if let Some(k) = d.same_content {
                content_groups.entry(k).or_default().push(i);
            }
        }
        let vocab = interner
            .0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let names: Vec<Option<u64>> = docs.iter().map(|d| d.name).collect();
        let same_content: Vec<Option<u64>> = docs.iter().map(|d| d.same_content).collect();
        let mut docs = docs;
        join_site_families(&mut docs, ctx.sites);
        let (mut collection, sites, idf_max) = build_collection(&s, vocab, docs);
        let signed_at = ctx.started.elapsed().as_secs_f64();

        // The matchable vectors move to the matcher and back (the stored document
        // signatures read them after matching): a clone was one more copy of them all.
        let (index, vectors): (Vec<usize>, Vec<SigVector>) = collection
            .vectors
            .iter_mut()
            .enumerate()
            .filter_map(|(i, v)| v.take().map(|v| (i, v)))
            .unzip();
        // With the truncation rule the matcher goes down to its floor and the rule sorts
        // the pairs under τ.
        let match_tau = match s.containment {
            Some(_) => s.tau.min(s.containment_floor.max(f64::MIN_POSITIVE)),
            None => s.tau,
        };
        let (pairs, stats) = match_pairs(&vectors, match_tau, MatchMode::Full);
        let matched_at = ctx.started.elapsed().as_secs_f64();
        let mut contained = 0usize;
        let mut siblings_dropped = 0usize;
        let mut doc_pairs: Vec<(u32, u32, f64)> = pairs
            .iter()
            .filter(|&&(a, b, sim)| {
                if let Some(sibling_tau) = s.sibling_tau {
                    let (da, db) = (index[a as usize], index[b as usize]);
                    if siblings(&sites[da], names[da], &sites[db], names[db]) {
                        let keep = sim >= sibling_tau.max(s.tau);
                        siblings_dropped += usize::from(!keep);
                        return keep;
                    }
                }
                if sim >= s.tau {
                    return true;
                }
                let keep = s
                    .containment
                    .is_some_and(|c| containment(&vectors[a as usize], &vectors[b as usize]) >= c);
                contained += usize::from(keep);
                keep
            })
            .map(|&(a, b, sim)| (index[a as usize] as u32, index[b as usize] as u32, sim))
            .collect();
        let matched = doc_pairs.len();
        doc_pairs.extend(exact_duplicate_pairs(dup_groups.values()));
        doc_pairs.extend(exact_duplicate_pairs(content_groups.values()));
        doc_pairs.sort_by_key(|p| (p.0, p.1));
        doc_pairs.dedup_by(|x, y| (x.0, x.1) == (y.0, y.1));
        let exact_pairs_added = doc_pairs.len() - matched;
        let fallback_started = std::time::Instant::now();
        // (0 from stored parameters is off, as `--fallback-tau 0`.)
        let (fallback, fallback_docs) = match s.fallback_tau.filter(|&t| t > 0.0) {
            Some(tau) => {
                let mut signed = vec![false; n];
                for &i in &index {
                    signed[i] = true;
                }
                let unsigned: Vec<usize> = (0..n).filter(|&i| !signed[i]).collect();
                let meta = DocsMeta {
                    sites: &sites,
                    names: &names,
                    same_content: &same_content,
                    content_groups: &content_groups,
                };
                let contained = s.containment.map(|c| (c, s.containment_floor));
                fallback_pairs(&unsigned, &meta, tau, contained, s.text, ctx)?
            }
            None => (Vec::new(), 0),
        };
        let fallback_added = {
            let before = doc_pairs.len();
            doc_pairs.extend(fallback);
            doc_pairs.sort_by_key(|p| (p.0, p.1));
            doc_pairs.dedup_by(|x, y| (x.0, x.1) == (y.0, y.1));
            doc_pairs.len() - before
        };
        let summary = json!({
            "documents": n,
            "matchable": vectors.len(),
            "too_few_signatures": collection.too_few_sigs,
            "signatures_outside_idf_window": collection.sigs_outside_idf,
            "boilerplate_occurrences_dropped": collection.boilerplate_occurrences,
            "idf_max_used": idf_max,
            "pairs": doc_pairs.len(),
            "pairs_by_containment": contained,
            "sibling_pairs_dropped": siblings_dropped,
            "exact_duplicate_pairs_added": exact_pairs_added,
            "fallback_documents": fallback_docs,
            "fallback_pairs_added": fallback_added,
            "fallback_seconds": fallback_started.elapsed().as_secs_f64(),
            "match_stats": format!("{stats:?}"),
            "sign_seconds": signed_at,
            "match_seconds": matched_at - signed_at,
        });
        for (&i, v) in index.iter().zip(vectors) {
            collection.vectors[i] = Some(v);
        }
        Ok(Found {
            pairs: doc_pairs,
            detail: None,
            clusters: None,
            doc_sig: Box::new(move |i| vector_sig(&collection, i)),
            summary,
        })
    }

    /// The words of every spot signature (this run's antecedents, distance and chain) both
    /// texts contain.
    fn explain(s: &S, pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>) {
        // An antecedent file that is gone since the run explains with the default list
        // rather than not at all.
        let params = s.extraction().unwrap_or_else(|_| SpotSigParams {
            distance: s.distance,
            chain: s.chain,
            ..SpotSigParams::default()
        });
        let shared = spotsigs::shared_signatures(pair.left, pair.right, &params);
        let spot = Highlight::of(HighlightKind::SpotSig);
        (
            shared
                .iter()
                .flat_map(|sig| sig.spans_a.iter().map(&spot))
                .collect(),
            shared
                .iter()
                .flat_map(|sig| sig.spans_b.iter().map(&spot))
                .collect(),
        )
    }
}

impl super::staged::Staged for SpotSigs {
    fn counted_text(_: &S) -> Option<TextKind> {
        None
    }

    fn prepare_from(s: &S, _dfs: Option<&crate::sig::lexicon::DocFreqs>) -> Result<Self::Prepared> {
        // The fallback for unsigned pages reads their texts, which the signed files do not
        // carry: refuse rather than make other pairs than `detect`.
        if s.fallback_tau.is_some_and(|t| t > 0.0) {
            anyhow::bail!(
                "spotsigs: the fallback for unsigned pages (--fallback-tau) reads the texts, \
                 which the stages do not carry; give --params '{{\"fallback_tau\":0}}' to \
                 every stage and compare with detect --fallback-tau 0"
            );
        }
        Ok((s.extraction()?, s.clone(), Interner::default()))
    }

    /// `spotsigs` (the multiset, one string per occurrence), `site`, `dup_group`,
    /// `same_content` (the 64-bit key's bits as a signed integer: Parquet has no u64).
    fn sig_columns(docs: Vec<DocSigs>) -> Vec<(&'static str, Column)> {
        let mut sigs = Vec::with_capacity(docs.len());
        let mut sites = Vec::with_capacity(docs.len());
        let mut dups = Vec::with_capacity(docs.len());
        let mut same = Vec::with_capacity(docs.len());
        let mut names = Vec::with_capacity(docs.len());
        for d in docs {
            // Stages sign without the driver, so their signatures are never interned.
            sigs.push(match d.sigs {
                Sigs::Text(t) => t,
                Sigs::Packed(t) => t.iter().map(str::to_string).collect(),
                Sigs::Ids(_) => Vec::new(),
            });
            sites.push(Some(d.site));
            dups.push(d.dup_group);
            same.push(d.same_content.map(|k| k as i64));
            names.push(d.name.map(|k| k as i64));
        }
        vec![
            ("spotsigs", Column::TextList(sigs)),
            ("site", Column::Text(sites)),
            ("dup_group", Column::Int(dups)),
            ("same_content", Column::Int(same)),
            ("name", Column::Int(names)),
        ]
    }

    fn sigs_from_batch(batch: &arrow_array::RecordBatch) -> Result<Vec<DocSigs>> {
        use crate::columnar::{batch_ints, batch_text_lists, batch_texts};
        let sigs = batch_text_lists(batch, "spotsigs")?;
        let sites = batch_texts(batch, "site")?;
        let dups = batch_ints(batch, "dup_group")?;
        let same = batch_ints(batch, "same_content")?;
        // A stage file written before names were kept has no `name` column: its pages are
        // judged by τ alone, as `sig_from_bytes` reads an old index.
        let names = match batch.column_by_name("name") {
            Some(_) => batch_ints(batch, "name")?,
            None => vec![None; sigs.len()],
        };
        Ok(sigs
            .into_iter()
            .zip(sites)
            .zip(dups.into_iter().zip(same).zip(names))
            .map(|((sigs, site), ((dup_group, same), name))| DocSigs {
                sigs: Sigs::Text(sigs),
                site: site.unwrap_or_default(),
                dup_group,
                same_content: same.map(|k| k as u64),
                name: name.map(|k| k as u64),
                fresh: 0..0,
            })
            .collect())
    }
}

/// A pair of document indices with its similarity.
type DocPair = (u32, u32, f64);

/// What the fallback knows of each document beside its text: its site, its page name and
/// its equal-text key, by document index.
struct DocsMeta<'a> {
    sites: &'a [String],
    names: &'a [Option<u64>],
    same_content: &'a [Option<u64>],
    /// The equal-text groups `find_pairs` pairs by `same_content` (key → documents).
    content_groups: &'a BTreeMap<u64, Vec<usize>>,
}

/// SpotSigs' fallback ([`SpotSigsSettings::fallback_tau`]): the pairs at word 3-shingle
/// Jaccard ≥ `tau` among the `unsigned` documents (indices), and with `contained` =
/// `(c, floor)` (the containment rule's settings) the pairs of which the smaller page has
/// the share `c` of its shingles in the other at Jaccard ≥ `floor`, with the number of documents
/// it compared. Their texts are read from the store by id, as few as they are (a page the
/// signatures match is never read again). One document per equal-text key takes part (the
/// others are its pairs already, by `same_content`), so a template page repeated a
/// thousand times is one set, not half a million pairs. Two differently named pages of one
/// site never pair here: the fallback has no template rule, and sibling pages of a
/// generator share most of their words.
///
/// A query's outside documents (negative ids) have no stored text: a query runs without
/// the fallback (its answer leaves out what the fallback would add for an unsigned
/// outside page), rather than read every unsigned stored page for pairs it drops.
fn fallback_pairs(
    unsigned: &[usize],
    meta: &DocsMeta<'_>,
    tau: f64,
    contained: Option<(f64, f64)>,
    text: TextKind,
    ctx: &RunContext,
) -> Result<(Vec<DocPair>, usize)> {
    if ctx.ids.iter().any(|&id| id < 0) {
        return Ok((Vec::new(), 0));
    }
    // The first unsigned document of each equal-text group stands for it.
    let mut seen_keys = std::collections::HashSet::new();
    let members: Vec<usize> = unsigned
        .iter()
        .copied()
        .filter(|&i| meta.same_content[i].is_none_or(|k| seen_keys.insert(k)))
        .collect();
    let group = |i: usize| -> Vec<usize> {
        meta.same_content[i]
            .and_then(|k| meta.content_groups.get(&k))
            .map_or_else(|| vec![i], Clone::clone)
    };
    let mut texts: Vec<(usize, String)> = Vec::with_capacity(members.len());
    for &i in &members {
        if let Some(t) = ctx.store.doc_text(ctx.ids[i], text)? {
            texts.push((i, t));
        }
    }
    let shingled: Vec<(usize, Vec<u64>)> = texts
        .into_par_iter()
        .map(|(i, t)| {
            let set = super::minhash::shingle_set(
                &t,
                super::minhash::Shingle::Word,
                FALLBACK_SHINGLE_WORDS,
            );
            (i, set)
        })
        .filter(|(_, set)| set.len() >= FALLBACK_MIN_SHINGLES)
        .collect();
    let (doc_of, sets): (Vec<usize>, Vec<Vec<u64>>) = shingled.into_iter().unzip();
    let mut pairs = Vec::new();
    let mut joined = crate::cluster::set_join::jaccard_pairs(&sets, tau);
    // The containment rule of the signed pages, on shingles: a copy cut short (a news
    // story in a language whose prose rarely holds an antecedent, so no copy is signed).
    if let Some((c, floor)) = contained {
        joined.extend(crate::cluster::set_join::containment_pairs(&sets, c, floor));
        joined.sort_by_key(|p| (p.0, p.1));
        joined.dedup_by(|x, y| (x.0, x.1) == (y.0, y.1));
    }
    for (a, b, sim) in joined {
        let (a, b) = (doc_of[a as usize], doc_of[b as usize]);
        if siblings(&meta.sites[a], meta.names[a], &meta.sites[b], meta.names[b]) {
            continue;
        }
        // The pair stands for every pair of the two equal-text groups (`pairs` lists a
        // method's pairs, not only its clusters), up to the bound exact duplicates have.
        let (ga, gb) = (group(a), group(b));
        let (ga, gb) = if ga.len() * gb.len() <= MAX_EXACT_GROUP_PAIRS {
            (ga, gb)
        } else {
            (vec![a], vec![b])
        };
        for &x in &ga {
            for &y in &gb {
                pairs.push((x.min(y) as u32, x.max(y) as u32, sim));
            }
        }
    }
    Ok((pairs, sets.len()))
}

/// The key of a page's name in its site: the hash of its URL's last non-empty path segment
/// and its query (`envvar/CFLAGS.html` → `CFLAGS.html`; `article.php?id=2` →
/// `article.php?id=2`; `/2024/05/fire-kills-3/` → `fire-kills-3`). The same page in two
/// releases or directories of a site keeps its name; two pages of one template do not.
/// Unlike `extract::content::file_name` (the content rule's name, empty for a URL ending in
/// `/`), a directory-style URL is named by its last segment and the query is kept: news
/// sites name articles `/2024/05/slug/`, and `?id=1` / `?id=2` are two pages.
pub fn page_name_key(url: &str) -> u64 {
    let (path, query) = crate::extract::sites::path_in_site(url);
    let name = path.rsplit('/').find(|seg| !seg.is_empty()).unwrap_or("");
    let mut key = String::with_capacity(name.len() + query.len() + 1);
    key.push_str(name);
    key.push('?');
    key.push_str(query);
    crate::extract::content::block_hash(&key)
}

/// Whether two pages are siblings for `--sibling-tau`: one site, two known, different names.
fn siblings(site_a: &str, name_a: Option<u64>, site_b: &str, name_b: Option<u64>) -> bool {
    site_a == site_b && matches!((name_a, name_b), (Some(x), Some(y)) if x != y)
}

/// Gives each document its site's family name (`extract::sites`): releases of one manual
/// laid out as sites of their own are one site to the site rule and the sibling threshold.
/// Signatures keep the site they were signed with; the run joins them.
fn join_site_families(docs: &mut [DocSigs], sites: &crate::extract::sites::SiteFamilies) {
    if sites.is_empty() {
        return;
    }
    for d in docs {
        let family = sites.family(&d.site);
        if family != d.site {
            d.site = family.to_string();
        }
    }
}

/// The site of a URL: its host, or for a relative path (a folder ingest) its first segment
/// (`extract::sites::site_key`, the one definition).
pub fn site_of(url: &str) -> &str {
    crate::extract::sites::site_key(url)
}

/// The share of the smaller vector's signatures (as a multiset) that the other holds: 1 for
/// a copy cut short, whatever the length of what was cut.
pub fn containment(a: &SigVector, b: &SigVector) -> f64 {
    let smaller = a.len().min(b.len());
    if smaller == 0 {
        return 0.0;
    }
    overlap(a, b) as f64 / smaller as f64
}

/// Largest exact-duplicate group whose pairs are all listed.
const MAX_EXACT_GROUP_PAIRS: usize = 200;

/// Pairs at similarity 1 inside each exact-duplicate group (members are indices, in
/// order). A group larger than [`MAX_EXACT_GROUP_PAIRS`] members is linked as a star to its
/// first member, which keeps the cluster and bounds the pair count.
fn exact_duplicate_pairs<'a>(groups: impl Iterator<Item = &'a Vec<usize>>) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    for g in groups.filter(|g| g.len() > 1) {
        if g.len() > MAX_EXACT_GROUP_PAIRS {
            out.extend(g[1..].iter().map(|&m| (g[0] as u32, m as u32, 1.0)));
            continue;
        }
        for (i, &a) in g.iter().enumerate() {
            out.extend(g[i + 1..].iter().map(|&b| (a as u32, b as u32, 1.0)));
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_page_name_is_its_last_path_segment_and_query() {
        use super::{page_name_key, siblings};
        let k = page_name_key;
        assert_eq!(
            k("pkg/1.0/envvar/CFLAGS.html"),
            k("pkg/2.0/doc/envvar/CFLAGS.html")
        );
        assert_ne!(
            k("pkg/1.0/envvar/CFLAGS.html"),
            k("pkg/1.0/envvar/FFLAGS.html")
        );
        assert_eq!(
            k("https://a.example/2024/fire-kills-3/"),
            k("https://b.example/fire-kills-3")
        );
        assert_ne!(
            k("https://a.example/article.php?id=1"),
            k("https://a.example/article.php?id=2")
        );
        assert_eq!(
            k("https://a.example/x.html#top"),
            k("https://a.example/y/x.html")
        );
        assert!(siblings("a", Some(1), "a", Some(2)));
        assert!(!siblings("a", Some(1), "a", Some(1)));
        assert!(!siblings("a", Some(1), "b", Some(2)));
        assert!(!siblings("a", None, "a", Some(2)));
    }

    use super::{containment, same_content_key, SigVector};

    /// Interned signatures store in the binary form, each string once, in the row of the
    /// first document that holds it; the rows read back, in document order, into the same
    /// vocabulary and ids. An index an older version stored (JSON) reads back as strings.
    #[test]
    fn interned_signatures_store_each_string_once_and_read_back() {
        use super::{Detector, Shared, Sigs, SpotSigs, SpotSigsSettings};
        use crate::store::{DocText, Store};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let prepare =
            || SpotSigs::prepare(&SpotSigsSettings::default(), &store, &Shared::default()).unwrap();
        let p = prepare();
        let texts = [
            "the wire story is on the site and a copy of it is at the other site",
            "a copy of the story is at a site",
            "",
            "the wire story is on the site and a copy of it is at the other site",
        ];
        let docs: Vec<DocText> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| DocText {
                id: i as i64 + 1,
                url: format!("http://s{i}.example/p"),
                text: t.to_string(),
                dup_group: None,
            })
            .collect();
        let sign = SpotSigs::signer(&p);
        let mut signed: Vec<_> = docs.iter().map(&sign).collect();
        assert!(matches!(signed[0].sigs, Sigs::Packed(ref t) if !t.is_empty()));
        // Not interned: no ids to store.
        assert_eq!(SpotSigs::sig_bytes(&p, &signed[0]), None);
        let strings: Vec<Vec<String>> = signed
            .iter()
            .map(|s| match &s.sigs {
                Sigs::Packed(t) => t.iter().map(str::to_string).collect(),
                _ => unreachable!(),
            })
            .collect();
        SpotSigs::keep(&p, &mut signed);
        assert!(signed.iter().all(|s| matches!(s.sigs, Sigs::Ids(_))));
        let rows: Vec<Vec<u8>> = signed
            .iter()
            .map(|s| SpotSigs::sig_bytes(&p, s).unwrap())
            .collect();
        // The last text is the first again: its row holds no string.
        assert!(signed[3].fresh.is_empty() && !strings[3].is_empty());
        assert!(rows[3].len() < rows[0].len());
        let back = prepare();
        assert!(SpotSigs::load_index(
            &back,
            rows.iter().map(|r| r.as_slice())
        ));
        for (i, row) in rows.iter().enumerate() {
            let d = SpotSigs::sig_from_bytes(&back, row).unwrap();
            let Sigs::Ids(ids) = &d.sigs else {
                panic!("row {i} read back as {:?}", d.sigs)
            };
            let vocab = back.2.vocab();
            let names: Vec<&str> = ids.iter().map(|&id| vocab.name(id).unwrap()).collect();
            assert_eq!(names, strings[i]);
            assert_eq!((&d.site, d.name), (&signed[i].site, signed[i].name));
        }
        // Rows out of order do not make a vocabulary.
        let swapped = [rows[1].as_slice(), rows[0].as_slice()];
        assert!(!SpotSigs::load_index(&prepare(), swapped.into_iter()));
        // An older version's row: the JSON of the strings.
        let old = serde_json::json!({"sigs": ["a:b:c", "the:x:y"], "site": "s0.example",
            "dup_group": null, "same_content": 5, "name": 9});
        let old = serde_json::to_vec(&old).unwrap();
        let fresh = prepare();
        assert!(SpotSigs::load_index(&fresh, [old.as_slice()].into_iter()));
        let d = SpotSigs::sig_from_bytes(&fresh, &old).unwrap();
        assert!(matches!(d.sigs, Sigs::Text(ref t) if t == &["a:b:c", "the:x:y"]));
        assert_eq!((d.same_content, d.name), (Some(5), Some(9)));
    }

    #[test]
    fn containment_is_the_smaller_vectors_share_held_by_the_other() {
        let whole = SigVector::from_ids([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let cut = SigVector::from_ids([1, 2, 3, 11]);
        assert_eq!(containment(&whole, &cut), 0.75);
        assert_eq!(containment(&cut, &whole), 0.75);
        // Repeats count as a multiset: two copies of 1 are only matched by two.
        let twice = SigVector::from_ids([1, 1, 2, 3]);
        assert_eq!(containment(&whole, &twice), 0.75);
        assert_eq!(containment(&whole, &SigVector::default()), 0.0);
    }

    /// The key as it was first written: the folded copy's `block_hash`.
    fn folded_copy_key(text: &str) -> Option<u64> {
        let mut folded = String::with_capacity(text.len());
        for word in text.split_whitespace() {
            if !folded.is_empty() {
                folded.push(' ');
            }
            folded.extend(word.chars().flat_map(char::to_lowercase));
        }
        (!folded.is_empty()).then(|| crate::extract::content::block_hash(&folded))
    }

    proptest::proptest! {
        #[test]
        fn same_content_key_is_the_folded_copys_hash(
            text in "([a-zA-Z0-9 \t\n\u{b}\u{c}\r\u{1c}'.İßΣ\u{85}\u{a0}\u{2028}\u{3000}-]|\\PC){0,80}"
        ) {
            proptest::prop_assert_eq!(same_content_key(&text), folded_copy_key(&text));
        }
    }

    #[test]
    fn same_content_key_folds_case_and_white_space_only() {
        let a = same_content_key("List of All Members\n\nbegin()  const");
        assert!(a.is_some());
        assert_eq!(a, same_content_key("list of all members begin() const\n"));
        assert_ne!(a, same_content_key("list of all members begin() const;"));
        assert_eq!(same_content_key(" \n\t"), None);
    }
}
