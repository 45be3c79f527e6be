//! Cooper, Coden, Brown (HICSS 2002) as a row of the method table: salient terms per
//! document, size-ratio candidates and the term-delta test. Its evidence is the pair's
//! detail ("3 of 47 terms differ"); it adds no spans of its own to the pair view.

use std::collections::BTreeSet;
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::explain::Highlight;
use super::method::{Detector, Found, InAll, PairText, RunContext};
use super::params::{Kind, Param, Value};
use super::shared::Shared;
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
}

impl Default for CooperSettings {
    fn default() -> Self {
        let p = CooperParams::default();
        CooperSettings {
            size_pct: p.size_tolerance_pct,
            delta_pct: p.delta_pct,
            min_idf: p.min_idf,
            text: TextKind::Content,
        }
    }
}

impl CooperSettings {
    fn params(&self) -> CooperParams {
        CooperParams {
            size_tolerance_pct: self.size_pct,
            delta_pct: self.delta_pct,
            min_idf: self.min_idf,
        }
    }
}

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
];

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
        Ok(Prepared {
            dfs: std::sync::Arc::new(dfs.clone()),
            params: s.params(),
            text: s.text,
        })
    }

    /// `cooper_terms`: the salient terms.
    fn sig_columns(sigs: Vec<BTreeSet<String>>) -> Vec<(&'static str, Column)> {
        vec![(
            "cooper_terms",
            Column::TextList(sigs.into_iter().map(|s| s.into_iter().collect()).collect()),
        )]
    }

    fn sigs_from_batch(batch: &arrow_array::RecordBatch) -> Result<Vec<BTreeSet<String>>> {
        Ok(crate::columnar::batch_text_lists(batch, "cooper_terms")?
            .into_iter()
            .map(|t| t.into_iter().collect())
            .collect())
    }
}

impl Detector for Cooper {
    type Settings = CooperSettings;
    type Prepared = Prepared;
    type Sig = BTreeSet<String>;

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

    fn signer(p: &Prepared) -> impl Fn(&DocText) -> BTreeSet<String> + Sync + '_ {
        let terms = TermOptions::default();
        move |d| cooper::salient_terms(&unique_terms(&d.text, &terms), &p.dfs, &p.params)
    }

    fn sig_bytes(sig: &BTreeSet<String>) -> Option<Vec<u8>> {
        serde_json::to_vec(sig).ok()
    }

    fn sig_from_bytes(bytes: &[u8]) -> Option<BTreeSet<String>> {
        serde_json::from_slice(bytes).ok()
    }

    fn find_pairs(p: Prepared, salient: Vec<BTreeSet<String>>, ctx: &RunContext) -> Result<Found> {
        let found = cooper::detect(&salient, &p.params);
        let summary = json!({
            "documents": ctx.ids.len(),
            "matchable": salient.iter().filter(|s| !s.is_empty()).count(),
            "pairs": found.len(),
        });
        let pairs = found.iter().map(|q| (q.a, q.b, q.score)).collect();
        Ok(Found {
            pairs,
            detail: Some(Box::new(move |i| Some(found.get(i)?.explanation()))),
            clusters: None,
            doc_sig: Box::new(move |i| {
                let s = salient.get(i).filter(|s| !s.is_empty())?;
                Some(json!({
                    "sum_signature": cooper::sum_signature(s) as i64,
                    "salient_terms": s.len(),
                }))
            }),
            summary,
        })
    }

    fn explain(_s: &S, _pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>) {
        (Vec::new(), Vec::new())
    }
}
