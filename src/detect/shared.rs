//! What several methods of one `detect` compute identically from the collection, computed
//! once: the unique terms of every document under the I-Match/Cooper term options, interned,
//! with their document frequencies ([`TermSets`]). One pass tokenizes every document; with
//! the defaults I-Match and Cooper both read the content text with the same term options, so
//! each of them builds its frequencies *and* signs every document from this memo instead of
//! streaming and tokenizing the texts again. With the defaults the pass is not even a pass of
//! its own: SpotSigs runs first on the same text, and the driver counts the terms from the
//! words it tokenized for SpotSigs' signer ([`CountingAlong`]), so each text is read from the
//! store and tokenized once per `detect`. It lives for one `detect` only, during which no
//! document changes, so nothing in it can be stale.

use std::cell::RefCell;
use std::sync::Arc;

use anyhow::Result;
use rayon::prelude::*;

use super::driver::CHUNK;
use crate::sig::lexicon::{DocFreqs, TermOptions};
use crate::sig::termsets::{PackedTerms, TermSets, TermSetsBuilder, DEFAULT_BUDGET};
use crate::store::{DocText, Store, TextKind};
use crate::text::Words;

/// The term sets of one text under one set of term options, with what was derived from them.
pub struct Counted {
    pub sets: TermSets,
    /// The document id of each of `sets`' documents.
    pub ids: Vec<i64>,
    /// The site hash of each of `sets`' documents (Cooper keeps its containment rule to
    /// pairs across sites).
    pub sites: Vec<u64>,
    pub dfs: Arc<DocFreqs>,
}

/// The memo of one `detect` (pass the same one to every run of the invocation).
#[derive(Default)]
pub struct Shared {
    counted: RefCell<Vec<(TextKind, TermOptions, Arc<Counted>)>>,
    /// The memo entries the runs after the current one read; `None`: not told, keep all.
    later: RefCell<Option<Vec<(TextKind, TermOptions)>>>,
    /// Each document's language profile, made once for every method's cross-language pair
    /// rule (`super::languages::pairs_kept_with`); a profile depends on the stored text only.
    pub language_profiles: RefCell<super::languages::Profiles>,
    /// Which sites are one (`extract::sites`), read once from the stored URLs.
    site_families: RefCell<Option<Arc<crate::extract::sites::SiteFamilies>>>,
    /// The language editions the stored paths name (`extract::editions`), read once.
    language_editions: RefCell<Option<Arc<crate::extract::editions::Editions>>>,
}

impl Shared {
    /// Which sites of the store are one, from the memo or read now.
    pub fn site_families(&self, store: &Store) -> Result<Arc<crate::extract::sites::SiteFamilies>> {
        if let Some(f) = self.site_families.borrow().as_ref() {
            return Ok(Arc::clone(f));
        }
        let fresh = Arc::new(store.site_families()?);
        *self.site_families.borrow_mut() = Some(Arc::clone(&fresh));
        Ok(fresh)
    }

    /// The language editions of the store's sites, from the memo or read now.
    pub fn language_editions(
        &self,
        store: &Store,
    ) -> Result<Arc<crate::extract::editions::Editions>> {
        if let Some(e) = self.language_editions.borrow().as_ref() {
            return Ok(Arc::clone(e));
        }
        let fresh = Arc::new(store.language_editions()?);
        *self.language_editions.borrow_mut() = Some(Arc::clone(&fresh));
        Ok(fresh)
    }

    /// The collection's document frequencies of `terms` in `text`, from the memo or from
    /// one streamed pass ([`count_terms`]), which also keeps every document's term set.
    pub fn dfs(&self, store: &Store, text: TextKind, terms: &TermOptions) -> Result<Arc<DocFreqs>> {
        Ok(Arc::clone(&self.counted(store, text, terms)?.dfs))
    }

    /// The counting pass of `terms` in `text`, from the memo or made now.
    pub fn counted(
        &self,
        store: &Store,
        text: TextKind,
        terms: &TermOptions,
    ) -> Result<Arc<Counted>> {
        if let Some(hit) = self.memo(text, terms) {
            return Ok(hit);
        }
        let (sets, ids, sites) = count_terms(store, text, terms, DEFAULT_BUDGET)?;
        Ok(self.insert(text, terms, sets, ids, sites))
    }

    fn insert(
        &self,
        text: TextKind,
        terms: &TermOptions,
        sets: TermSets,
        ids: Vec<i64>,
        sites: Vec<u64>,
    ) -> Arc<Counted> {
        let fresh = Arc::new(Counted {
            dfs: Arc::new(sets.doc_freqs()),
            sets,
            ids,
            sites,
        });
        self.counted
            .borrow_mut()
            .push((text, *terms, Arc::clone(&fresh)));
        fresh
    }

    /// The counting passes over `text` that the runs after the current one will read and
    /// that no run made yet, to be made along the current run's own stream of `text`
    /// ([`CountingAlong`]): the texts are then read and tokenized once for every default
    /// method (issue 16). Empty when `detect` did not say which runs follow.
    pub fn counting_along(&self, text: TextKind) -> CountingAlong {
        let mut wanted: Vec<TermOptions> = Vec::new();
        if let Some(later) = self.later.borrow().as_ref() {
            for (t, o) in later {
                if *t == text && self.memo(text, o).is_none() && !wanted.contains(o) {
                    wanted.push(*o);
                }
            }
        }
        CountingAlong {
            text,
            passes: wanted
                .into_iter()
                .map(|o| (o, TermSetsBuilder::with_budget(DEFAULT_BUDGET)))
                .collect(),
            ids: Vec::new(),
            sites: Vec::new(),
        }
    }

    /// Keeps the passes made along a run's stream in the memo.
    pub fn finish_along(&self, along: CountingAlong) {
        for (o, builder) in along.passes {
            self.insert(
                along.text,
                &o,
                builder.finish(),
                along.ids.clone(),
                along.sites.clone(),
            );
        }
    }

    /// Tells the memo which entries the runs after the current one will read (`detect`
    /// calls it before each run).
    pub fn set_later_readers(&self, keys: Vec<(TextKind, TermOptions)>) {
        *self.later.borrow_mut() = Some(keys);
    }

    /// Drops the entries no later run reads (the driver calls it once the current run has
    /// signed): the per-document term lists are four bytes a document-term, the largest
    /// thing `detect` holds, and the last reader's matching no longer needs them.
    pub fn release_unread(&self) {
        if let Some(later) = self.later.borrow().as_ref() {
            self.counted
                .borrow_mut()
                .retain(|(t, o, _)| later.iter().any(|(lt, lo)| lt == t && lo == o));
        }
    }

    /// The counting pass of `terms` in `text` if a run of this `detect` already made it
    /// (never makes one).
    pub fn memo(&self, text: TextKind, terms: &TermOptions) -> Option<Arc<Counted>> {
        self.counted
            .borrow()
            .iter()
            .find(|(t, o, _)| *t == text && o == terms)
            .map(|(_, _, hit)| Arc::clone(hit))
    }
}

/// Counting passes ([`count_terms`]) made along another run's stream of the same text:
/// the driver tokenizes each document once ([`Words::of`]), signs it from those words and
/// hands them to [`CountingAlong::terms`]; then [`CountingAlong::add_chunk`] counts the
/// chunk in document order, as [`count_terms`] would.
pub struct CountingAlong {
    text: TextKind,
    passes: Vec<(TermOptions, TermSetsBuilder)>,
    ids: Vec<i64>,
    sites: Vec<u64>,
}

impl CountingAlong {
    /// Whether any pass is wanted (else the driver neither tokenizes for it nor calls it).
    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// The term options of the passes wanted, for [`terms_of`] (called in parallel while
    /// [`Self::add_chunk`] counts the chunk before).
    pub fn options(&self) -> Vec<TermOptions> {
        self.passes.iter().map(|(o, _)| *o).collect()
    }

    /// Counts a chunk of documents given [`Self::terms`] of each, in document order.
    pub fn add_chunk(&mut self, chunk: &[DocText], terms: &[Vec<PackedTerms>]) {
        for (d, per_pass) in chunk.iter().zip(terms) {
            for ((_, builder), p) in self.passes.iter_mut().zip(per_pass) {
                builder.add_document(p.iter());
            }
            self.ids.push(d.id);
            self.sites.push(super::cooper::site_hash(&d.url));
        }
    }
}

/// One document's unique terms for each of `passes` ([`CountingAlong::options`]), from
/// its words.
pub fn terms_of(passes: &[TermOptions], words: &Words) -> Vec<PackedTerms> {
    passes
        .iter()
        .map(|o| PackedTerms::from_words(words, o))
        .collect()
}

/// One streamed pass over `text`: every document's unique terms (tokenized in parallel,
/// interned in document order), the document ids and their site hashes, keeping the per-document lists within
/// `budget` term numbers (see [`TermSetsBuilder::with_budget`]).
pub fn count_terms(
    store: &Store,
    text: TextKind,
    terms: &TermOptions,
    budget: usize,
) -> Result<(TermSets, Vec<i64>, Vec<u64>)> {
    let mut builder = TermSetsBuilder::with_budget(budget);
    let mut ids = Vec::new();
    let mut sites = Vec::new();
    store.for_each_text_chunk(text, CHUNK, |chunk| {
        let packed: Vec<PackedTerms> = chunk
            .par_iter()
            .map(|d| PackedTerms::of(&d.text, terms))
            .collect();
        for p in &packed {
            builder.add_document(p.iter());
        }
        ids.extend(chunk.iter().map(|d| d.id));
        sites.extend(chunk.iter().map(|d| super::cooper::site_hash(&d.url)));
        Ok(())
    })?;
    Ok((builder.finish(), ids, sites))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::cooper::{Cooper, CooperSettings};
    use crate::detect::imatch::{IMatch, IMatchSettings};
    use crate::detect::method::Detector;

    /// The signatures from the memo equal the signer's over the streamed texts.
    fn same_as_streamed<D: Detector>(settings: &D::Settings, store: &Store) -> Vec<D::Sig>
    where
        D::Sig: PartialEq + std::fmt::Debug,
    {
        let shared = Shared::default();
        let prepared = D::prepare(settings, store, &shared).unwrap();
        let (ids, sigs) = D::sign_from_shared(&prepared, &shared, store).expect("memo present");
        let sign = D::signer(&prepared);
        let mut streamed = Vec::new();
        store
            .for_each_text_chunk(D::reads(&prepared), 2, |chunk| {
                streamed.extend(chunk.iter().map(|d| (d.id, sign(d))));
                Ok(())
            })
            .unwrap();
        assert_eq!(ids.len(), streamed.len());
        for ((id, sig), (sid, ssig)) in ids.iter().zip(&sigs).zip(&streamed) {
            assert_eq!((id, sig), (sid, ssig));
            // And `query`'s index stores them alike.
            assert_eq!(D::sig_bytes(&prepared, sig), D::sig_bytes(&prepared, ssig));
        }
        sigs
    }

    #[test]
    fn the_memo_is_dropped_once_no_later_run_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("m.db")).unwrap();
        s.insert_test_document("u/1", "", "alpha bravo charlie", None)
            .unwrap();
        let opts = TermOptions::default();
        let shared = Shared::default();
        shared.counted(&s, TextKind::Visible, &opts).unwrap();
        // Not told what runs follow (a program's own runs): everything is kept.
        shared.release_unread();
        assert!(shared.memo(TextKind::Visible, &opts).is_some());
        shared.set_later_readers(vec![(TextKind::Visible, opts)]);
        shared.release_unread();
        assert!(shared.memo(TextKind::Visible, &opts).is_some());
        shared.set_later_readers(vec![(TextKind::Content, opts)]);
        shared.release_unread();
        assert!(shared.memo(TextKind::Visible, &opts).is_none());
    }

    /// The counting pass made along SpotSigs' stream is the one `count_terms` makes, and only
    /// the passes later runs read are made.
    #[test]
    fn counting_along_a_run_equals_the_counting_pass() {
        use crate::detect::spotsigs::{SpotSigs, SpotSigsSettings};
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("m.db")).unwrap();
        let texts = [
            "The quick brown foxes jumped; the QUICK brown dogs",
            "quick quick quick, 2008 mp3 mp33 don't won’t",
            "",
            "新闻报道 the wire story is on the site and a copy of it is at the other site",
        ];
        for (i, t) in texts.iter().enumerate() {
            s.insert_test_document(&format!("http://s{}.example/{i}", i % 2), "", t, None)
                .unwrap();
        }
        let opts = TermOptions::default();
        let settings = SpotSigsSettings {
            text: TextKind::Visible,
            ..SpotSigsSettings::default()
        };
        let shared = Shared::default();
        shared.set_later_readers(vec![(TextKind::Content, opts)]);
        crate::detect::driver::run_detector::<SpotSigs>(&mut s, &settings, &shared, &|_| {})
            .unwrap();
        assert!(
            shared.memo(TextKind::Visible, &opts).is_none(),
            "not asked for"
        );
        shared.set_later_readers(vec![(TextKind::Visible, opts), (TextKind::Visible, opts)]);
        crate::detect::driver::run_detector::<SpotSigs>(&mut s, &settings, &shared, &|_| {})
            .unwrap();
        let along = shared.memo(TextKind::Visible, &opts).expect("made along");
        let (sets, ids, sites) = count_terms(&s, TextKind::Visible, &opts, DEFAULT_BUDGET).unwrap();
        assert_eq!((&along.ids, &along.sites), (&ids, &sites));
        assert_eq!(along.sets.doc_freqs(), sets.doc_freqs());
        assert_eq!(
            along.sets.terms().collect::<Vec<_>>(),
            sets.terms().collect::<Vec<_>>()
        );
        for i in 0..texts.len() {
            assert_eq!(along.sets.document(i), sets.document(i));
        }
        assert_eq!(shared.counted.borrow().len(), 1);
    }

    #[test]
    fn imatch_and_cooper_sign_from_the_memo_as_from_the_texts() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("m.db")).unwrap();
        let words = [
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
            "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
        ];
        for i in 0..12 {
            let text: Vec<&str> = words
                .iter()
                .enumerate()
                .filter(|(w, _)| (w + i) % 3 != 0 || w % 5 == i % 5)
                .map(|(_, t)| *t)
                .collect();
            let text = format!("{} Don't {} x{i}", text.join(" "), text.join(", "));
            s.insert_test_document(&format!("u/{i}"), "", &text, None)
                .unwrap();
        }
        // Pages of two salient terms (Cooper's short lists, which carry their text's key; the
        // pages above have one or two, their words being on most pages), two with one text
        // and one with another.
        // And one of five (its own words), which carries none.
        for (i, text) in [
            "Graph Legend",
            "graph  LEGEND\n",
            "the Graph's legend",
            "zulu yankee xray whiskey victor",
        ]
        .iter()
        .enumerate()
        {
            s.insert_test_document(&format!("legend/{i}"), "", text, None)
                .unwrap();
        }
        let imatch = IMatchSettings {
            min_terms: 2,
            text: crate::store::TextKind::Visible,
            ..IMatchSettings::default()
        };
        same_as_streamed::<IMatch>(&imatch, &s);
        let cooper = CooperSettings {
            text: crate::store::TextKind::Visible,
            ..CooperSettings::default()
        };
        let keys = same_as_streamed::<Cooper>(&cooper, &s);
        let keys: Vec<Option<u64>> = keys.iter().map(|k| k.text_key).collect();
        assert_eq!(keys[15], None, "not a short list");
        assert_eq!(keys[12], keys[13]);
        assert!(keys[12].is_some() && keys[14].is_some() && keys[12] != keys[14]);
    }
}
