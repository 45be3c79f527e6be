//! What a detection method is: the [`Detector`] trait a method module implements (its
//! declarations, and the three steps the driver calls: prepare, sign, find pairs), what it
//! hands the driver back ([`Found`]), and how a pair is explained. The table (`METHODS`)
//! and the driver are built on this; a method module depends on nothing above it.

use std::time::Instant;

use anyhow::Result;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::explain::Highlight;
use super::params::Param;
use super::shared::Shared;
use crate::sig::lexicon::TermOptions;
use crate::store::{ClusterRow, DocText, Store, TextKind};
use crate::text::Words;

/// Whether `--method all` runs a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InAll {
    Always,
    /// Only when this flag is given (ANDD needs `--model`).
    WhenGiven(&'static str),
    Never,
}

/// A detection method with typed settings. Everything but `prepare`, `signer` and
/// `find_pairs` is a declaration the table, the command line and the review read.
pub trait Detector: Sync + Send + 'static {
    /// The run parameters: `Default` holds the defaults (their one home), `Serialize` is the
    /// stored form, `Deserialize` reads a stored run back (missing keys take the defaults,
    /// so runs stored by older versions still explain their pairs).
    type Settings: Serialize + DeserializeOwned + Default + Clone + Send + Sync + 'static;
    /// What `prepare` computes over the whole collection before signing (a lexicon,
    /// document frequencies, a model), shared by the signing threads.
    type Prepared: Sync;
    /// One document's signature, as `find_pairs` needs it.
    type Sig: Send + Sync;

    /// The name in `--method`, in the store and in `pairs --method`.
    const NAME: &'static str;
    /// The name as prose writes it (help headings, the README).
    const TITLE: &'static str;
    /// Whether `--method all` runs it.
    const IN_ALL: InAll;

    /// The parameters, in the order they are applied (presets first).
    fn params() -> &'static [Param<Self::Settings>];
    /// The stored text it reads, the field `--text` sets (`None`: the method decides in
    /// `prepare`; ANDD reads the text its model was trained on and ignores `--text`).
    fn text(settings: &mut Self::Settings) -> Option<&mut TextKind>;
    /// What a method without a `text` field reads, for help and the README.
    fn text_unset() -> &'static str {
        "chosen by the method"
    }
    /// Checks values that constrain each other (each value's own range is its kind's): a
    /// usage error that names the flags.
    fn check(_settings: &Self::Settings) -> Result<(), String> {
        Ok(())
    }
    /// Collection-wide work before signing.
    /// `shared` holds what other runs of the same `detect` already computed.
    fn prepare(settings: &Self::Settings, store: &Store, shared: &Shared)
        -> Result<Self::Prepared>;
    /// The text the documents are signed on.
    fn reads(prepared: &Self::Prepared) -> TextKind;
    /// The parameters stored with the run (by default the settings themselves).
    fn stored_params(
        settings: &Self::Settings,
        _prepared: &Self::Prepared,
    ) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(settings)?)
    }
    /// The function that signs one document (made once per run, called in parallel).
    fn signer(prepared: &Self::Prepared) -> impl Fn(&DocText) -> Self::Sig + Sync + '_;
    /// The signer for a method that reads a document as its words ([`Words::of`] of its
    /// text): it signs from words the driver tokenized, which the driver also hands to the
    /// term counting later runs of the same `detect` read (one tokenizing pass for every
    /// default method; issue 16). It must give what [`Self::signer`] gives. `None` (the
    /// default): the driver calls [`Self::signer`].
    fn word_signer(
        _prepared: &Self::Prepared,
    ) -> Option<impl Fn(&DocText, &Words) -> Self::Sig + Sync + '_> {
        None::<fn(&DocText, &Words) -> Self::Sig>
    }
    /// Every document's signature from what this `detect` already computed (`shared`: the
    /// interned term sets of the frequency pass), without streaming and tokenizing the texts
    /// again: the document ids and their signatures, exactly what [`Self::signer`] gives
    /// over the streamed texts. `None` (the default, or when `shared` lacks what it needs):
    /// the driver streams the text and calls the signer.
    /// The memo entry (text, term options) this run reads from `Shared`, if any: `detect`
    /// drops an entry once the last run reading it has signed (see
    /// [`Shared::set_later_readers`]).
    fn memo_key(_settings: &Self::Settings) -> Option<(TextKind, TermOptions)> {
        None
    }
    /// `store`: for the few documents whose text a signature needs besides their terms
    /// (Cooper's text key of a document with a short list), read by id.
    fn sign_from_shared(
        _prepared: &Self::Prepared,
        _shared: &Shared,
        _store: &Store,
    ) -> Option<(Vec<i64>, Vec<Self::Sig>)> {
        None
    }
    /// Finds the pairs (and what else the run stores) from every document's signature;
    /// `sigs[i]` is the signature of document `ctx.ids[i]`.
    fn find_pairs(
        prepared: Self::Prepared,
        sigs: Vec<Self::Sig>,
        ctx: &RunContext,
    ) -> Result<Found>;
    /// Called by the driver on each chunk of signatures, in document order, before it
    /// keeps them for [`Self::find_pairs`]: a method may move them into a compact form
    /// (SpotSigs interns its signature strings). Default: kept as they are.
    fn keep(_prepared: &Self::Prepared, _chunk: &mut [Self::Sig]) {}
    /// A signature as bytes for `query`'s index (`None`: the method keeps none, and a query
    /// signs the stored documents again), given the run's `prepared` (what [`Self::keep`]
    /// interned into).
    fn sig_bytes(_prepared: &Self::Prepared, _sig: &Self::Sig) -> Option<Vec<u8>> {
        None
    }
    /// Called once with every stored signature of a run, in document id order, before
    /// [`Self::sig_from_bytes`] reads them (in parallel): a method whose signatures refer to
    /// a run vocabulary spread over the rows (SpotSigs) loads it into `prepared` here.
    /// `false`: the rows cannot be read (the caller signs the documents again).
    fn load_index<'a>(_prepared: &Self::Prepared, _rows: impl Iterator<Item = &'a [u8]>) -> bool {
        true
    }
    /// A signature back from [`Self::sig_bytes`] (or from the JSON an older version stored),
    /// given `prepared` after [`Self::load_index`].
    fn sig_from_bytes(_prepared: &Self::Prepared, _bytes: &[u8]) -> Option<Self::Sig> {
        None
    }
    /// Whether `spotcheck sigs` shows this method's runs from their index
    /// ([`Self::doc_sigs_from_index`]): the driver then stores no `run_doc_sigs` rows (a
    /// second copy of every signature, issue 16 session 14).
    const DOC_SIGS_FROM_INDEX: bool = false;
    /// Whether the method tells one site's pairs from pairs across sites: only then does the
    /// driver read which sites are one ([`RunContext::sites`], `extract::sites`; every stored
    /// URL) and the run's summary say so. Otherwise `sites` joins none.
    const READS_SITES: bool = false;
    /// What [`Found::doc_sig`] gave each document of a run, made again from the run's
    /// stored signatures (`rows`, every one of the run in document id order, as
    /// [`Self::sig_bytes`] wrote them) under its stored parameters, with the store's site
    /// families (as `find_pairs` had them). `None`: not possible.
    fn doc_sigs_from_index(
        _stored: &serde_json::Value,
        _rows: &[&[u8]],
        _sites: &crate::extract::sites::SiteFamilies,
    ) -> Option<Vec<Option<serde_json::Value>>> {
        None
    }
    /// The spans of `left` and `right` that are this method's evidence that the two are
    /// near-duplicates, under the parameters stored with a run (`detail`: the pair's detail
    /// in that run, if it proposed the pair).
    fn explain(settings: &Self::Settings, pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>);
}

/// The texts of a pair to explain.
#[derive(Debug, Clone, Copy)]
pub struct PairText<'a> {
    pub left: &'a str,
    pub right: &'a str,
    /// The pair's detail in the run (`None` when the run did not propose the pair).
    pub detail: Option<&'a str>,
}

/// What a method's `find_pairs` may use besides its signatures.
pub struct RunContext<'a> {
    /// The store, for a method that needs another pass over the texts (ANDD names its
    /// evidence k-grams from them).
    pub store: &'a Store,
    /// The document id of each signature.
    pub ids: &'a [i64],
    /// When the run started (methods report their phases' seconds from it).
    pub started: Instant,
    /// Which sites are one (releases of one manual laid out as sites of their own): every
    /// rule that tells a pair of one site from a pair across sites reads its sites through
    /// this (`extract::sites`).
    pub sites: &'a crate::extract::sites::SiteFamilies,
}

/// A pair's stored detail, made when the pair is written (`i` indexes `Found::pairs`).
pub type DetailFn = Box<dyn Fn(usize) -> Option<String> + Send>;
/// A document's stored signature, made when it is written (`i` indexes the documents).
pub type DocSigFn = Box<dyn Fn(usize) -> Option<serde_json::Value> + Send + Sync>;

/// What a method found.
pub struct Found {
    /// Pairs of document indices with their score.
    pub pairs: Vec<(u32, u32, f64)>,
    /// The detail stored with each pair (the review's evidence line), if the method has one.
    pub detail: Option<DetailFn>,
    /// The clusters, when the method has its own (I-Match's union-find over signature
    /// collisions); `None`: the connected components of `pairs` with their weakest bridge.
    pub clusters: Option<Vec<ClusterRow>>,
    /// The signature stored for document `i`, if any (what `spotcheck sigs` shows).
    pub doc_sig: DocSigFn,
    /// The method's summary fields (the driver adds the clusters' and the total seconds).
    pub summary: serde_json::Value,
}

/// The settings a run stored, read back; what cannot be read takes the defaults key by key.
pub fn settings_from_stored<S: DeserializeOwned + Default + Serialize>(
    stored: &serde_json::Value,
) -> S {
    if let Ok(s) = serde_json::from_value::<S>(stored.clone()) {
        return s;
    }
    // Merge the stored keys over the defaults, dropping those that do not parse.
    let mut merged = serde_json::to_value(S::default()).unwrap_or_default();
    if let (Some(m), Some(st)) = (merged.as_object_mut(), stored.as_object()) {
        for (k, v) in st {
            if !m.contains_key(k) {
                continue;
            }
            let old = m.insert(k.clone(), v.clone());
            if serde_json::from_value::<S>(serde_json::Value::Object(m.clone())).is_err() {
                if let Some(old) = old {
                    m.insert(k.clone(), old);
                }
            }
        }
    }
    serde_json::from_value(merged).unwrap_or_default()
}

/// Checks every declared value of `settings` against its range, then the method's own
/// consistency rules. The message names the flag and what is valid.
pub fn validate<D: Detector>(settings: &D::Settings) -> Result<(), String> {
    for p in D::params() {
        if let Some(v) = (p.get)(settings) {
            p.kind.check(&v).map_err(|e| format!("--{}: {e}", p.flag))?;
        }
    }
    D::check(settings)
}

#[cfg(test)]
mod tests {
    use super::settings_from_stored;
    use crate::detect::spotsigs::SpotSigsSettings;
    use crate::store::TextKind;

    #[test]
    fn stored_params_of_older_runs_read_back_with_defaults_for_what_is_missing() {
        let s: SpotSigsSettings = settings_from_stored(&serde_json::json!({"tau": 0.5}));
        // (Every stored run names its text; a key left out takes today's default.)
        assert_eq!((s.tau, s.chain, s.text), (0.5, 3, TextKind::Content));
        // A key of the wrong type keeps its default; the others are read.
        let s: SpotSigsSettings =
            settings_from_stored(&serde_json::json!({"chain": "two", "distance": 1}));
        assert_eq!((s.chain, s.distance), (3, 1));
        // Today's stored form reads back as itself.
        let stored = serde_json::to_value(SpotSigsSettings::paper()).unwrap();
        let back: SpotSigsSettings = settings_from_stored(&stored);
        assert_eq!(serde_json::to_value(back).unwrap(), stored);
    }
}
