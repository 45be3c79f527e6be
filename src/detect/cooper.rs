//! Cooper, Coden, Brown (HICSS 2002) as a row of the method table: salient terms per
//! document, size-ratio candidates and the term-delta test. Its evidence is the pair's
//! detail ("3 of 47 terms differ"); it adds no spans of its own to the pair view.

use std::collections::BTreeSet;
use std::sync::Arc;

use anyhow::Result;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::explain::Highlight;
use super::method::{Detector, Found, InAll, PairText, RunContext};
use super::params::{Kind, Param, Value};
use super::shared::Shared;
use super::sig_codec;
use crate::columnar::Column;
use crate::sig::cooper::{self, CooperParams};
use crate::sig::lexicon::{unique_terms, DocFreqs, TermOptions};
use crate::store::{DocText, Store, TextKind};

/// Cooper settings of one run (stored as the run's parameters, keys as since v1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct CooperSettings {
    pub size_pct: u32,
    pub delta_pct: u32,
    pub min_idf: f64,
    pub text: TextKind,
    /// Containment (see `CooperParams::contained_pct`); a run stored before it existed
    /// had it off, so a missing key reads as 0.
    #[serde(default)]
    pub contained_pct: u32,
    #[serde(default)]
    pub contained_size_pct: u32,
    /// Containment's floor (see `CooperParams::contained_min_terms`); 0 for a run stored
    /// before it existed.
    #[serde(default)]
    pub contained_min_terms: u32,
    /// The passage rule's floor (see `CooperParams::passage_min_terms`); 0 (off) for a run
    /// stored before it existed.
    #[serde(default)]
    pub passage_min_terms: u32,
    /// The passage's fewest paragraphs (see `CooperParams::passage_min_paragraphs`); 0 (any)
    /// for a run stored before it existed.
    #[serde(default)]
    pub passage_min_paragraphs: u32,
    /// The passage rule on large sites' pages (see `CooperParams::passage_cover_pct`); 0
    /// (off) for a run stored before it existed.
    #[serde(default)]
    pub passage_cover_pct: u32,
    /// The equal-text rule's floor (see `CooperParams::min_terms`); 0 (off) for a run
    /// stored before it existed.
    #[serde(default)]
    pub min_terms: u32,
}

impl Default for CooperSettings {
    fn default() -> Self {
        let p = CooperParams::default();
        CooperSettings {
            size_pct: p.size_tolerance_pct,
            delta_pct: p.delta_pct,
            min_idf: p.min_idf,
            text: TextKind::Content,
            contained_pct: DEFAULT_CONTAINED_PCT,
            contained_size_pct: DEFAULT_CONTAINED_SIZE_PCT,
            contained_min_terms: DEFAULT_CONTAINED_MIN_TERMS,
            passage_min_terms: DEFAULT_PASSAGE_MIN_TERMS,
            passage_min_paragraphs: DEFAULT_PASSAGE_MIN_PARAGRAPHS,
            passage_cover_pct: 0,
            min_terms: DEFAULT_MIN_TERMS,
        }
    }
}

impl CooperSettings {
    fn params(&self) -> CooperParams {
        CooperParams {
            size_tolerance_pct: self.size_pct,
            delta_pct: self.delta_pct,
            min_idf: self.min_idf,
            contained_pct: self.contained_pct,
            contained_size_pct: self.contained_size_pct,
            contained_min_terms: self.contained_min_terms,
            passage_min_terms: self.passage_min_terms,
            passage_min_paragraphs: self.passage_min_paragraphs,
            passage_cover_pct: self.passage_cover_pct,
            min_terms: self.min_terms,
        }
    }
}

/// Default of `--cooper-contained`: measured on news-v2 whole and ci-dd (BENCHMARKS.md,
/// issue 14 session 3), a truncated syndicated copy keeps nearly all its salient terms in
/// the full story.
pub const DEFAULT_CONTAINED_PCT: u32 = 30;
/// Default of `--cooper-contained-size`: a copy cut to 40% of its paragraphs has a list
/// about 2.5 times shorter, and content texts keep some template; past 4× the shorter
/// list, short pages of one doc family fall inside another family's index pages.
pub const DEFAULT_CONTAINED_SIZE_PCT: u32 = 300;

/// Default of `--cooper-contained-min`: on the million pages (BENCHMARKS.md, issue 16
/// session 8) 97.6% of the cross-site pairs had a shorter list under 20 salient terms (tiny
/// generated pages of two packages); no true cross-site copy of the news corpora had fewer
/// than 26.
pub const DEFAULT_CONTAINED_MIN_TERMS: u32 = 20;

/// Default of `--cooper-passage`: measured on news-v4 and news-v3 one page per site (issue
/// 14, session 12; BENCHMARKS.md), 40 terms is the floor that adds no false pair on any
/// corpus; 30 added pairs of two folders of one real site sharing its template's prose.
pub const DEFAULT_PASSAGE_MIN_TERMS: u32 = 40;

/// Default of `--cooper-passage-paragraphs`: on news-v8 (issue 14, session 21; BENCHMARKS.md)
/// the false passage pairs were a paragraph of another story quoted whole (43–111 salient
/// terms), alone or under a commenter's name line, where a copy of a story, truncated to
/// its first two paragraphs at the least, holds two paragraphs or more.
pub const DEFAULT_PASSAGE_MIN_PARAGRAPHS: u32 = 2;

/// Default of `--cooper-min-terms`: on dd-held8 (issue 14, session 13; BENCHMARKS.md) 819
/// of Cooper's 1,129 false pairs were pages whose smaller list had one to three terms
/// (doxygen example indexes, legend pages: "0 of 1 terms differ"); a plain floor of 4 lost
/// the small true pairs of ci-dd and dd-held3/4/5, which are pages with equal texts.
pub const DEFAULT_MIN_TERMS: u32 = 4;

/// The Cooper row of the method table.
pub struct Cooper;

type S = CooperSettings;

/// Largest tolerance in percent (a larger list up to 11 times the smaller one).
const MAX_PCT: u64 = 1000;

static PARAMS: &[Param<S>] = &[
    Param {
        flag: "cooper-inserted",
        value_name: "",
        kind: Kind::Switch,
        help: "Cooper: the paper's \"contains inserted material\" setting, 50% size and 50% \
               delta tolerance.",
        paper: None,
        get: |_| Some(Value::Switch(false)),
        unset: "",
        set: |s, v| {
            if v.on() {
                let p = CooperParams::inserted_material();
                s.size_pct = p.size_tolerance_pct;
                s.delta_pct = p.delta_pct;
            }
        },
    },
    Param {
        flag: "cooper-size",
        value_name: "PCT",
        kind: Kind::Int {
            min: 0,
            max: MAX_PCT,
        },
        help: "Size tolerance in percent: candidates' term lists differ in size by at most this.",
        paper: Some("10"),
        get: |s| Some(Value::Int(u64::from(s.size_pct))),
        unset: "",
        set: |s, v| s.size_pct = v.int() as u32,
    },
    Param {
        flag: "cooper-delta",
        value_name: "PCT",
        kind: Kind::Int {
            min: 0,
            max: MAX_PCT,
        },
        help: "Term-delta tolerance in percent: near-duplicates have fewer differing terms than \
               this share of the smaller list.",
        paper: Some("10"),
        get: |s| Some(Value::Int(u64::from(s.delta_pct))),
        unset: "",
        set: |s, v| s.delta_pct = v.int() as u32,
    },
    Param {
        flag: "cooper-contained",
        value_name: "PCT",
        kind: Kind::Int { min: 0, max: 100 },
        help: "Containment: a shorter term list is also a near-duplicate of a longer one on \
               another site when fewer than this percentage of its terms are missing from it \
               (finds truncated copies); 0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Int(u64::from(s.contained_pct))),
        unset: "",
        set: |s, v| s.contained_pct = v.int() as u32,
    },
    Param {
        flag: "cooper-contained-size",
        value_name: "PCT",
        kind: Kind::Int {
            min: 0,
            max: MAX_PCT,
        },
        help: "Containment's size limit: the longer list is at most this percentage larger \
               than the shorter.",
        paper: None,
        get: |s| Some(Value::Int(u64::from(s.contained_size_pct))),
        unset: "",
        set: |s, v| s.contained_size_pct = v.int() as u32,
    },
    Param {
        flag: "cooper-contained-min",
        value_name: "TERMS",
        kind: Kind::Int {
            min: 0,
            max: 100_000,
        },
        help: "Containment's floor: the shorter list has at least this many salient terms (a \
               page of a few words is contained in thousands of others); 0 = none.",
        paper: None,
        get: |s| Some(Value::Int(u64::from(s.contained_min_terms))),
        unset: "",
        set: |s, v| s.contained_min_terms = v.int() as u32,
    },
    Param {
        flag: "cooper-passage",
        value_name: "TERMS",
        kind: Kind::Int {
            min: 0,
            max: 100_000,
        },
        help: "Passage rule: a page of a site with too few pages to learn its template from \
               (whose content text may keep the template's prose) is also a near-duplicate of \
               a page of another site when a run of its lines with at least this many salient \
               terms is contained in it by the containment percentage, and those terms sit \
               together there too; 0 = off.",
        paper: Some("0"),
        get: |s| Some(Value::Int(u64::from(s.passage_min_terms))),
        unset: "",
        set: |s, v| s.passage_min_terms = v.int() as u32,
    },
    Param {
        flag: "cooper-passage-paragraphs",
        value_name: "PARAGRAPHS",
        kind: Kind::Int { min: 0, max: 1_000 },
        help: "The passage rule's passage holds at least this many paragraphs (lines of 5 \
               salient terms or more): one paragraph, with a name or label line beside it, is \
               what different stories share as a quote, a related story's lead or an \
               \"About\" paragraph; 0 = any.",
        paper: None,
        get: |s| Some(Value::Int(u64::from(s.passage_min_paragraphs))),
        unset: "",
        set: |s, v| s.passage_min_paragraphs = v.int() as u32,
    },
    Param {
        flag: "cooper-passage-cover",
        value_name: "PCT",
        kind: Kind::Int { min: 0, max: 100 },
        help: "The passage rule on pages of large sites too (whole-site crawls, where a copy's \
               content text keeps what is its page's own, such as a reader discussion under \
               the story): two such pages of different sites are a near-duplicate when their \
               passages pass the rule, one of them covers at least this percentage of its \
               page's salient terms and the other holds at least 30% as many; 0 = off (small \
               sites only). Candidates: pages sharing runs of four salient terms in the same \
               order. Off by default: on a 29,530-page mix of 13 doc corpora and a news \
               crawl `detect` took 1.42 times as long with it (peak 710 against 596 MB), \
               and it reads the large sites' texts again, which a million pages would not \
               fit in time and memory; on one site's pages it costs nothing.",
        paper: None,
        get: |s| Some(Value::Int(u64::from(s.passage_cover_pct))),
        unset: "",
        set: |s, v| s.passage_cover_pct = v.int() as u32,
    },
    Param {
        flag: "cooper-min-terms",
        value_name: "TERMS",
        kind: Kind::Int {
            min: 0,
            max: 100_000,
        },
        help: "Equal-text rule: two pages whose smaller list has fewer than this many salient \
               terms are a pair only when their texts are equal (case and white space aside): \
               a page of one to three terms has the list of every other page of its kind; 0 = \
               off.",
        paper: Some("0"),
        get: |s| Some(Value::Int(u64::from(s.min_terms))),
        unset: "",
        set: |s, v| s.min_terms = v.int() as u32,
    },
];

/// The site of a document's URL as Cooper compares it: pages on one site get only the
/// paper's test, the containment rule is for copies across sites.
pub fn site_hash(url: &str) -> u64 {
    crate::extract::sites::site_hash(super::spotsigs::site_of(url))
}

/// A document's salient terms: as strings (signed from its text, or read back from a stored
/// index or a stage's file), or as numbers of the term table of `detect`'s shared memo (signed
/// from it). Numbers are four bytes a term where a `String` in a B-tree node was about
/// seventy; the sets were most of `detect`'s peak memory on large collections (issue 16).
/// Both forms serialize alike: the terms as a sorted list of strings.
#[derive(Debug, Clone)]
pub enum Salient {
    Terms(BTreeSet<String>),
    Numbered {
        table: Arc<[Box<str>]>,
        ids: Box<[u32]>,
    },
}

impl Salient {
    /// The terms, sorted (as a `BTreeSet<String>` iterates).
    pub fn sorted(&self) -> Vec<&str> {
        match self {
            Salient::Terms(t) => t.iter().map(String::as_str).collect(),
            Salient::Numbered { table, ids } => {
                let mut v: Vec<&str> = ids.iter().map(|&i| &*table[i as usize]).collect();
                v.sort_unstable();
                v
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Salient::Terms(t) => t.len(),
            Salient::Numbered { ids, .. } => ids.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The paper's sum-of-hashes signature of the terms (order-independent).
    fn sum_signature(&self) -> u64 {
        match self {
            Salient::Terms(t) => cooper::sum_signature(t),
            Salient::Numbered { table, ids } => ids.iter().fold(0u64, |acc, &i| {
                acc.wrapping_add(cooper::fnv1a64(table[i as usize].as_bytes()))
            }),
        }
    }

    fn into_terms(self) -> BTreeSet<String> {
        match self {
            Salient::Terms(t) => t,
            numbered => numbered.sorted().into_iter().map(String::from).collect(),
        }
    }
}

impl PartialEq for Salient {
    fn eq(&self, other: &Self) -> bool {
        self.sorted() == other.sorted()
    }
}

impl Serialize for Salient {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.sorted())
    }
}

impl<'de> Deserialize<'de> for Salient {
    fn deserialize<De: serde::Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        BTreeSet::<String>::deserialize(deserializer).map(Salient::Terms)
    }
}

/// One document's signature: its site (a hash of its host: the containment rule is for
/// pairs across sites), its salient terms, and when its list is short under the equal-text
/// rule ([`keyed`]) the key of its text ([`super::spotsigs::same_content_key`]; `None`
/// otherwise, or for a text without words).
///
/// Stored (`query`'s index, as JSON) as the list `[site, terms, key]`; an index stored
/// before the key existed holds `[site, terms]` and reads back with no key (its run had
/// the rule off).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CooperSig {
    pub site: u64,
    pub salient: Salient,
    #[serde(default)]
    pub text_key: Option<u64>,
}

impl Serialize for CooperSig {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        (self.site, &self.salient, self.text_key).serialize(serializer)
    }
}

impl CooperSig {
    /// The signature in `query`'s index (`detect::sig_codec`, version 1): the site's 64-bit
    /// hash ([`site_hash`], FNV-1a: no seed) in eight bytes little-endian, a flags byte (bit
    /// 0: a text key, then its eight bytes: `same_content_key`, FNV-1a), and the salient
    /// terms sorted and front-coded.
    pub fn index_bytes(&self) -> Vec<u8> {
        let mut w = sig_codec::Writer::new();
        w.u64_le(self.site);
        match self.text_key {
            Some(k) => {
                w.byte(1);
                w.u64_le(k);
            }
            None => w.byte(0),
        }
        sig_codec::write_sorted_strs(&mut w, &self.salient.sorted());
        w.finish()
    }

    /// A signature from `query`'s index: the binary form of [`Self::index_bytes`], or the
    /// JSON list `[site, terms, key]` of older versions (`[site, terms]` before the key).
    pub fn from_index_bytes(bytes: &[u8]) -> Option<CooperSig> {
        let Some(mut r) = sig_codec::Reader::new(bytes) else {
            return serde_json::from_slice(bytes).ok();
        };
        let site = r.u64_le()?;
        let text_key = match r.byte()? {
            0 => None,
            1 => Some(r.u64_le()?),
            _ => return None,
        };
        let terms = sig_codec::read_sorted_strs(&mut r)?;
        r.at_end().then(|| CooperSig {
            site,
            salient: Salient::Terms(terms.into_iter().collect()),
            text_key,
        })
    }
}

/// What `spotcheck sigs` shows of a document's salient terms: their sum signature (as a
/// signed 64-bit number) and how many; `None` for a document without any.
fn doc_sig_of(sum: u64, len: usize) -> Option<serde_json::Value> {
    (len > 0).then(|| {
        json!({
            "sum_signature": sum as i64,
            "salient_terms": len,
        })
    })
}

/// Whether a document with `terms` salient terms carries a text key under `params`: with the
/// equal-text rule on, when its list is short enough for the rule to judge its pairs.
///
/// Only those: two texts equal but for case and white space have the same terms, so a pair
/// of equal texts whose smaller list is short has two short lists, and a short list paired
/// with a longer one never stands. Hashing every text was 12% of a Cooper run's CPU on
/// dd6k (issue 14, session 13).
fn keyed(terms: usize, params: &CooperParams) -> bool {
    terms < params.min_terms as usize
}

/// A document's text key under `params` given its number of salient terms ([`keyed`]).
fn text_key(text: &str, terms: usize, params: &CooperParams) -> Option<u64> {
    keyed(terms, params)
        .then(|| super::spotsigs::same_content_key(text))
        .flatten()
}

/// What signing needs: the collection's document frequencies and the test's parameters.
pub struct Prepared {
    dfs: Arc<DocFreqs>,
    params: CooperParams,
    text: TextKind,
}

impl super::staged::Staged for Cooper {
    fn counted_text(s: &S) -> Option<TextKind> {
        Some(s.text)
    }

    fn prepare_from(s: &S, dfs: Option<&DocFreqs>) -> Result<Prepared> {
        let Some(dfs) = dfs else {
            anyhow::bail!("cooper needs the collection's term frequencies (--stats)");
        };
        // The passage rule reads the lines of the documents' texts, which the signed files do
        // not carry: refuse rather than make other pairs than `detect`.
        if s.passage_min_terms > 0 {
            anyhow::bail!(
                "cooper: the passage rule (--cooper-passage) reads the texts, which the stages do \
                 not carry; give --params '{{\"passage_min_terms\":0}}' to every stage and compare \
                 with detect --cooper-passage 0"
            );
        }
        Ok(Prepared {
            dfs: std::sync::Arc::new(dfs.clone()),
            params: s.params(),
            text: s.text,
        })
    }

    /// `cooper_terms`: the salient terms; `cooper_site`: the site hash (its bits as an
    /// int64), which keeps the containment rule to pairs across sites; `cooper_text_key`:
    /// the text key of the equal-text rule (its bits as an int64; null but for a document
    /// with a short list, see [`keyed`]).
    fn sig_columns(sigs: Vec<CooperSig>) -> Vec<(&'static str, Column)> {
        let mut sites = Vec::with_capacity(sigs.len());
        let mut terms = Vec::with_capacity(sigs.len());
        let mut keys = Vec::with_capacity(sigs.len());
        for sig in sigs {
            sites.push(sig.site);
            terms.push(sig.salient);
            keys.push(sig.text_key.map(|k| k as i64));
        }
        vec![
            (
                "cooper_terms",
                Column::TextList(
                    terms
                        .into_iter()
                        .map(|s| s.into_terms().into_iter().collect())
                        .collect(),
                ),
            ),
            (
                "cooper_site",
                Column::Int(sites.into_iter().map(|h| Some(h as i64)).collect()),
            ),
            ("cooper_text_key", Column::Int(keys)),
        ]
    }

    fn sigs_from_batch(batch: &arrow_array::RecordBatch) -> Result<Vec<CooperSig>> {
        let terms = crate::columnar::batch_text_lists(batch, "cooper_terms")?;
        let sites = crate::columnar::batch_ints(batch, "cooper_site")?;
        // A file signed before the equal-text rule has no key column: its rows carry no keys,
        // as rows signed with the rule off (match it with the rule off too).
        let keys = match batch.column_by_name("cooper_text_key") {
            Some(_) => crate::columnar::batch_ints(batch, "cooper_text_key")?,
            None => vec![None; terms.len()],
        };
        Ok(sites
            .into_iter()
            .zip(terms)
            .zip(keys)
            .map(|((site, t), key)| CooperSig {
                site: site.unwrap_or_default() as u64,
                salient: Salient::Terms(t.into_iter().collect()),
                text_key: key.map(|k| k as u64),
            })
            .collect())
    }
}

/// The term table every set is numbered in, when all are numbered in one table (signed from
/// one memo); `None` when some are strings.
fn one_table(salient: &[Salient]) -> Option<Arc<[Box<str>]>> {
    let mut table: Option<&Arc<[Box<str>]>> = None;
    for s in salient {
        match (s, table) {
            (Salient::Terms(_), _) => return None,
            (Salient::Numbered { table: t, .. }, None) => table = Some(t),
            (Salient::Numbered { table: t, .. }, Some(seen)) if !Arc::ptr_eq(t, seen) => {
                return None
            }
            _ => {}
        }
    }
    table.cloned()
}

impl Detector for Cooper {
    type Settings = CooperSettings;
    type Prepared = Prepared;
    type Sig = CooperSig;

    const NAME: &'static str = "cooper";
    const TITLE: &'static str = "Cooper";
    const IN_ALL: InAll = InAll::Always;

    fn params() -> &'static [Param<S>] {
        PARAMS
    }

    fn text(s: &mut S) -> Option<&mut TextKind> {
        Some(&mut s.text)
    }

    fn prepare(s: &S, store: &Store, shared: &Shared) -> Result<Prepared> {
        Ok(Prepared {
            dfs: shared.dfs(store, s.text, &TermOptions::default())?,
            params: s.params(),
            text: s.text,
        })
    }

    fn reads(p: &Prepared) -> TextKind {
        p.text
    }

    fn signer(p: &Prepared) -> impl Fn(&DocText) -> CooperSig + Sync + '_ {
        let terms = TermOptions::default();
        move |d| {
            let salient = cooper::salient_terms(&unique_terms(&d.text, &terms), &p.dfs, &p.params);
            CooperSig {
                site: site_hash(&d.url),
                text_key: text_key(&d.text, salient.len(), &p.params),
                salient: Salient::Terms(salient),
            }
        }
    }

    fn memo_key(s: &S) -> Option<(TextKind, TermOptions)> {
        Some((s.text, TermOptions::default()))
    }

    fn sign_from_shared(
        p: &Prepared,
        shared: &Shared,
        store: &Store,
    ) -> Option<(Vec<i64>, Vec<CooperSig>)> {
        let counted = shared.memo(p.text, &TermOptions::default())?;
        // Only the frequencies `prepare` took from this very pass make the same salient sets.
        if !Arc::ptr_eq(&counted.dfs, &p.dfs) || !counted.sets.has_documents() {
            return None;
        }
        let sets = &counted.sets;
        let table = sets.term_table();
        let mut sigs: Vec<CooperSig> = (0..counted.ids.len())
            .into_par_iter()
            .map(|i| {
                let ids = sets
                    .document(i)
                    .unwrap_or_default()
                    .iter()
                    .copied()
                    .filter(|&id| cooper::is_salient(sets.df(id), sets.n_docs(), &p.params))
                    .collect();
                let table = Arc::clone(&table);
                CooperSig {
                    site: counted.sites[i],
                    salient: Salient::Numbered { table, ids },
                    text_key: None,
                }
            })
            .collect();
        // The text keys of the documents with short lists, from their texts read by id (few:
        // the pages of one to three salient terms). A text that cannot be read: sign from the
        // streamed texts instead.
        for (sig, &id) in sigs.iter_mut().zip(&counted.ids) {
            if keyed(sig.salient.len(), &p.params) {
                let text = store.doc_text(id, p.text).ok()??;
                sig.text_key = super::spotsigs::same_content_key(&text);
            }
        }
        Some((counted.ids.clone(), sigs))
    }

    fn sig_bytes(_p: &Prepared, sig: &CooperSig) -> Option<Vec<u8>> {
        Some(sig.index_bytes())
    }

    fn sig_from_bytes(_p: &Prepared, bytes: &[u8]) -> Option<CooperSig> {
        CooperSig::from_index_bytes(bytes)
    }

    const DOC_SIGS_FROM_INDEX: bool = true;
    const READS_SITES: bool = true;

    /// Each document's sum signature and salient-term count, from its stored terms: what
    /// `find_pairs` stored.
    fn doc_sigs_from_index(
        _stored: &serde_json::Value,
        rows: &[&[u8]],
        _sites: &crate::extract::sites::SiteFamilies,
    ) -> Option<Vec<Option<serde_json::Value>>> {
        rows.iter()
            .map(|b| {
                CooperSig::from_index_bytes(b)
                    .map(|s| doc_sig_of(s.salient.sum_signature(), s.salient.len()))
            })
            .collect()
    }

    fn find_pairs(p: Prepared, signed: Vec<CooperSig>, ctx: &RunContext) -> Result<Found> {
        let n = signed.len();
        let mut sites = Vec::with_capacity(n);
        let mut salient = Vec::with_capacity(n);
        let mut keys = Vec::with_capacity(n);
        for sig in signed {
            // Releases of one manual laid out as sites of their own are one site: the rules
            // for copies across sites (containment, the passage rule) do not pair them.
            sites.push(ctx.sites.family_hash(sig.site));
            salient.push(sig.salient);
            keys.push(sig.text_key);
        }
        // What the stored document signatures need, taken before the sets are consumed.
        // On both cores (a hash of every salient term's text), in document order.
        let sums: Vec<(u64, usize)> = salient
            .par_iter()
            .map(|s| (s.sum_signature(), s.len()))
            .collect();
        let short_lists = sums
            .iter()
            .filter(|s| s.1 > 0 && s.1 < p.params.min_terms as usize)
            .count();
        let matching = std::time::Instant::now();
        // The passage rule's candidates, while the term lists are here; the collection's
        // frequencies are kept for its lines only when it has candidates.
        let mut candidates = super::cooper_passage::candidates(&sites, &salient, &p.params);
        let lens: Vec<usize> = sums.iter().map(|s| s.1).collect();
        candidates.add_covering(&sites, &lens, ctx.store, ctx.ids, p.text, &p.dfs, &p.params)?;
        drop(lens);
        let passage_candidates = candidates.len();
        let dfs = (!candidates.is_empty()).then_some(p.dfs);
        let found = match one_table(&salient) {
            Some(table) => {
                let numbered = salient
                    .into_iter()
                    .map(|s| match s {
                        Salient::Numbered { ids, .. } => ids.into_vec(),
                        Salient::Terms(_) => Vec::new(),
                    })
                    .collect();
                let ranked = cooper::rank_numbered(numbered, &table);
                // The term table (a string per distinct term of the collection, the memo's
                // last holder by now) is not needed for matching.
                drop(table);
                cooper::detect_ranked_lists(ranked, &sites, Some(&keys), &p.params)
            }
            None => {
                let terms: Vec<BTreeSet<String>> =
                    salient.into_iter().map(Salient::into_terms).collect();
                cooper::detect_across_sites_with_keys(&terms, &sites, Some(&keys), &p.params)
            }
        };
        // The equal-text rule was applied by the matching (the passage rule's pairs are
        // judged on a passage of at least `passage_min_terms` terms, not on the lists).
        drop(keys);
        let passage_started = std::time::Instant::now();
        let found = match dfs {
            Some(dfs) => {
                let more = super::cooper_passage::passage_pairs(
                    candidates, &found, ctx.store, ctx.ids, p.text, &dfs, &p.params,
                )?;
                let mut all = found;
                all.extend(more);
                all.par_sort_unstable_by_key(|q| (q.a, q.b));
                all
            }
            None => found,
        };
        let passage_seconds = passage_started.elapsed().as_secs_f64();
        let passage = found
            .iter()
            .filter(|q| matches!(q.rule, cooper::Rule::Passage { .. }))
            .count();
        let contained = found
            .iter()
            .filter(|q| matches!(q.rule, cooper::Rule::Contained { .. }))
            .count();
        let summary = json!({
            "documents": ctx.ids.len(),
            "matchable": sums.iter().filter(|s| s.1 > 0).count(),
            "pairs": found.len(),
            "contained_pairs": contained,
            // Documents whose lists are short (under `min_terms` terms): paired only with
            // documents of the same text.
            "short_lists": short_lists,
            "passage_candidates": passage_candidates,
            "passage_pairs": passage,
            "passage_seconds": passage_seconds,
            // Ranking the lists and finding the pairs, apart from signing and storing.
            "matching_seconds": matching.elapsed().as_secs_f64(),
        });
        let pairs = found.iter().map(|q| (q.a, q.b, q.score())).collect();
        Ok(Found {
            pairs,
            detail: Some(Box::new(move |i| Some(found.get(i)?.explanation()))),
            clusters: None,
            doc_sig: Box::new(move |i| {
                let &(sum, len) = sums.get(i)?;
                doc_sig_of(sum, len)
            }),
            summary,
        })
    }

    fn explain(_s: &S, _pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>) {
        (Vec::new(), Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_stored_before_the_text_key_reads_back_without_one() {
        let old = br#"[12,["alpha","bravo"]]"#;
        let sig = CooperSig::from_index_bytes(old).expect("old index");
        assert_eq!(sig.site, 12);
        assert_eq!(sig.salient.sorted(), ["alpha", "bravo"]);
        assert_eq!(sig.text_key, None);
        let new = CooperSig {
            text_key: Some(u64::MAX - 3),
            ..sig
        };
        let bytes = serde_json::to_vec(&new).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            format!(r#"[12,["alpha","bravo"],{}]"#, u64::MAX - 3)
        );
        assert_eq!(CooperSig::from_index_bytes(&bytes), Some(new.clone()));
        // This version's binary form, with and without a key, terms sharing prefixes.
        let terms = ["alpha", "alphabet", "bravo", "brave", "zürich"];
        let many = CooperSig {
            site: 7,
            salient: Salient::Terms(terms.iter().map(|t| t.to_string()).collect()),
            text_key: None,
        };
        for sig in [new, many] {
            let bytes = sig.index_bytes();
            assert!(crate::detect::sig_codec::is_binary(&bytes));
            assert_eq!(CooperSig::from_index_bytes(&bytes), Some(sig.clone()));
            assert_eq!(CooperSig::from_index_bytes(&bytes[..bytes.len() - 1]), None);
        }
    }

    #[test]
    fn the_text_key_is_taken_only_for_short_lists_with_the_rule_on() {
        let on = CooperSettings::default().params();
        assert_eq!(on.min_terms, DEFAULT_MIN_TERMS);
        let off = CooperParams { min_terms: 0, ..on };
        let text = "List of All Members\n begin()";
        assert_eq!(
            text_key(text, 3, &on),
            super::super::spotsigs::same_content_key("list of all members begin()")
        );
        assert!(text_key(text, 0, &on).is_some());
        assert_eq!(text_key(text, 4, &on), None, "not a short list");
        assert_eq!(text_key(text, 1, &off), None);
        assert_eq!(text_key(" \n", 0, &on), None);
        // A run stored before the rule had it off.
        let stored: CooperSettings =
            serde_json::from_value(serde_json::json!({"size_pct": 10})).expect("old settings");
        assert_eq!(stored.min_terms, 0);
    }
}
