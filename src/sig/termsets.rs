//! The unique terms of every document of a collection, tokenized once and interned: each
//! distinct term is stored once and numbered, each document is the list of its terms'
//! numbers, and every term's document frequency is counted on the way. I-Match and Cooper
//! both read a document as its set of unique terms under the same options, and both need the
//! collection's document frequencies first; with this, the frequency pass is the only pass
//! that tokenizes (issue 16: four tokenizations of every text per `detect` became two, one
//! here and SpotSigs' own, then one: `detect` builds these from the words SpotSigs' signer
//! tokenized, see `detect::shared::CountingAlong`).
//!
//! The per-document lists cost four bytes per (document, unique term); past
//! [`TermSetsBuilder::with_budget`]'s budget they are dropped (the frequencies are kept) and
//! the methods tokenize again, so memory stays bounded on any collection.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::lexicon::{DocFreqs, TermOptions};
use crate::text::Words;

/// A document's unique terms in one buffer (what the parallel part of a pass hands the
/// sequential interning part, without one `String` per term). Only the unique terms are
/// kept, not the document's words: a chunk's texts are tokenized into one reused word
/// buffer per thread, and the words of every document of a chunk held until its terms were
/// interned were most of `detect`'s fresh memory on a small corpus (page faults ~8% of its
/// CPU on dd6k, issue 16 session 20).
#[derive(Debug, Default)]
pub struct PackedTerms {
    /// The unique terms, in text order of their first occurrence, one after another.
    norms: String,
    /// End of each term in `norms` (it starts where the previous one ends).
    ends: Vec<usize>,
}

impl PackedTerms {
    /// The unique terms of `text` (the terms [`super::lexicon::unique_terms`] returns, in
    /// order of first occurrence).
    pub fn of(text: &str, opts: &TermOptions) -> PackedTerms {
        PackedTerms::from_words(&Words::of(text), opts)
    }

    /// [`PackedTerms::of`] a text from its words ([`Words::of`] of it), for a pass that
    /// tokenized the text for something else too.
    pub fn from_words(words: &Words, opts: &TermOptions) -> PackedTerms {
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        let mut packed = PackedTerms::default();
        for i in 0..words.len() {
            let norm = words.norm(i);
            if opts.keeps(norm) && seen.insert(norm) {
                packed.norms.push_str(norm);
                packed.ends.push(packed.norms.len());
            }
        }
        packed
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(from, to)| &self.norms[from..to])
    }
}

/// Every document's unique terms, interned, with the terms' document frequencies.
#[derive(Debug, Default)]
pub struct TermSets {
    /// Term number → term (shared: a method's signatures may keep the table after the
    /// per-document lists are gone).
    terms: Arc<[Box<str>]>,
    /// Term number → number of documents containing it.
    df: Vec<u32>,
    n_docs: u64,
    /// Document i's term numbers are `ids[ends[i-1]..ends[i]]`; `None` when the lists went
    /// over the budget and were dropped.
    lists: Option<(Vec<usize>, Vec<u32>)>,
}

impl TermSets {
    /// The document frequencies as [`DocFreqs`] (what lexicons are built from).
    pub fn doc_freqs(&self) -> DocFreqs {
        DocFreqs {
            n_docs: self.n_docs,
            df: self
                .terms
                .iter()
                .zip(&self.df)
                .map(|(t, &n)| (t.to_string(), n))
                .collect(),
        }
    }

    /// Number of documents counted.
    pub fn n_docs(&self) -> u64 {
        self.n_docs
    }

    /// The term of number `id`.
    pub fn term(&self, id: u32) -> &str {
        &self.terms[id as usize]
    }

    /// The term table (term number → term), shared.
    pub fn term_table(&self) -> Arc<[Box<str>]> {
        Arc::clone(&self.terms)
    }

    /// Every term, by number.
    pub fn terms(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.terms.iter().map(|t| &**t)
    }

    /// The document frequency of term `id`.
    pub fn df(&self, id: u32) -> u32 {
        self.df[id as usize]
    }

    /// Whether the per-document lists were kept (within the budget).
    pub fn has_documents(&self) -> bool {
        self.lists.is_some()
    }

    /// The term numbers of document `i` (in order of counting), in order of first
    /// occurrence; `None` when the lists were dropped or there is no such document.
    pub fn document(&self, i: usize) -> Option<&[u32]> {
        let (ends, ids) = self.lists.as_ref()?;
        let end = *ends.get(i)?;
        let start = if i == 0 { 0 } else { ends[i - 1] };
        Some(&ids[start..end])
    }
}

/// Builds [`TermSets`] one document at a time.
#[derive(Debug)]
pub struct TermSetsBuilder {
    index: FxHashMap<Box<str>, u32>,
    /// Term number → term, while counting.
    terms: Vec<Box<str>>,
    sets: TermSets,
    /// Most term numbers kept in the per-document lists.
    budget: usize,
}

/// Default budget of [`TermSetsBuilder`]: 256 Mi term numbers, 1 GiB (a million documents
/// of 250 unique terms each; debian-docs pages have 150–400).
pub const DEFAULT_BUDGET: usize = 256 << 20;

impl Default for TermSetsBuilder {
    fn default() -> Self {
        TermSetsBuilder::with_budget(DEFAULT_BUDGET)
    }
}

impl TermSetsBuilder {
    /// A builder that keeps the per-document lists while they hold at most `budget` term
    /// numbers in all (0: never keep them, only count).
    pub fn with_budget(budget: usize) -> Self {
        TermSetsBuilder {
            index: FxHashMap::default(),
            terms: Vec::new(),
            sets: TermSets {
                lists: (budget > 0).then(|| (Vec::new(), Vec::new())),
                ..TermSets::default()
            },
            budget,
        }
    }

    /// Counts one document given its unique terms (each term once).
    pub fn add_document<'a>(&mut self, unique: impl IntoIterator<Item = &'a str>) {
        self.sets.n_docs += 1;
        let terms = &mut self.terms;
        let TermSets { df, lists, .. } = &mut self.sets;
        for t in unique {
            let id = match self.index.get(t) {
                Some(&id) => id,
                None => {
                    let id = terms.len() as u32;
                    terms.push(t.into());
                    df.push(0);
                    self.index.insert(t.into(), id);
                    id
                }
            };
            df[id as usize] += 1;
            if let Some((_, ids)) = lists {
                ids.push(id);
            }
        }
        if let Some((ends, ids)) = lists {
            if ids.len() > self.budget {
                *lists = None;
            } else {
                ends.push(ids.len());
            }
        }
    }

    pub fn finish(self) -> TermSets {
        TermSets {
            terms: self.terms.into(),
            ..self.sets
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sig::lexicon::unique_terms;

    const DOCS: [&str; 3] = [
        "The quick brown foxes jumped; the QUICK brown dogs",
        "quick quick quick, 2008 mp3 mp33 don't won’t",
        "",
    ];

    fn build(budget: usize) -> TermSets {
        let mut b = TermSetsBuilder::with_budget(budget);
        for d in DOCS {
            b.add_document(PackedTerms::of(d, &TermOptions::default()).iter());
        }
        b.finish()
    }

    #[test]
    fn documents_and_frequencies_equal_the_unique_terms_of_each_text() {
        let opts = TermOptions::default();
        let sets = build(DEFAULT_BUDGET);
        let uniques: Vec<_> = DOCS.iter().map(|d| unique_terms(d, &opts)).collect();
        for (i, u) in uniques.iter().enumerate() {
            let got: std::collections::BTreeSet<String> = sets
                .document(i)
                .unwrap()
                .iter()
                .map(|&id| sets.term(id).to_string())
                .collect();
            assert_eq!(&got, u);
            assert_eq!(sets.document(i).unwrap().len(), u.len());
        }
        assert_eq!(sets.doc_freqs(), DocFreqs::from_documents(&uniques));
        assert!(sets.document(3).is_none());
    }

    #[test]
    fn lists_over_the_budget_are_dropped_and_the_frequencies_kept() {
        let full = build(DEFAULT_BUDGET);
        let small = build(3);
        assert!(full.has_documents() && !small.has_documents());
        assert!(small.document(0).is_none());
        assert_eq!(small.doc_freqs(), full.doc_freqs());
        assert!(!build(0).has_documents());
    }

    proptest::proptest! {
        #[test]
        fn packed_terms_are_the_unique_terms(text in "([a-zA-Z0-9 '’.,İß-]|\\PC){0,120}") {
            let opts = TermOptions::default();
            let mut sorted: Vec<String> =
                PackedTerms::of(&text, &opts).iter().map(str::to_string).collect();
            sorted.sort_unstable();
            let expected: Vec<String> = unique_terms(&text, &opts).into_iter().collect();
            proptest::prop_assert_eq!(sorted, expected);
        }
    }
}
