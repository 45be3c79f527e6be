//! What several methods of one `detect` compute identically from the collection, computed
//! once: the unique terms of every document under the I-Match/Cooper term options, interned,
//! with their document frequencies ([`TermSets`]). One pass tokenizes every document; with
//! the defaults I-Match and Cooper both read the content text with the same term options, so
//! each of them builds its frequencies *and* signs every document from this memo instead of
//! streaming and tokenizing the texts again. It lives for one `detect` only, during which no
//! document changes, so nothing in it can be stale.

use std::cell::RefCell;
use std::sync::Arc;

use anyhow::Result;
use rayon::prelude::*;

use super::driver::CHUNK;
use crate::sig::lexicon::{DocFreqs, TermOptions};
use crate::sig::termsets::{PackedTerms, TermSets, TermSetsBuilder, DEFAULT_BUDGET};
use crate::store::{Store, TextKind};

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
}

impl Shared {
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
        let fresh = Arc::new(Counted {
            dfs: Arc::new(sets.doc_freqs()),
            sets,
            ids,
            sites,
        });
        self.counted
            .borrow_mut()
            .push((text, *terms, Arc::clone(&fresh)));
        Ok(fresh)
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
    fn same_as_streamed<D: Detector>(settings: &D::Settings, store: &Store)
    where
        D::Sig: PartialEq + std::fmt::Debug,
    {
        let shared = Shared::default();
        let prepared = D::prepare(settings, store, &shared).unwrap();
        let (ids, sigs) = D::sign_from_shared(&prepared, &shared).expect("memo present");
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
        same_as_streamed::<Cooper>(&cooper, &s);
    }
}
