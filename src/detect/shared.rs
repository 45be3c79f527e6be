//! What several methods of one `detect` compute identically from the collection, computed
//! once: today the document frequencies of the I-Match and Cooper terms (a pass that
//! tokenizes every document; with the defaults both read the content text with the same
//! term options, so the second pass was pure repetition). It lives for one `detect` only,
//! during which no document changes, so nothing in it can be stale.

use std::cell::RefCell;
use std::sync::Arc;

use anyhow::Result;

use super::imatch::collection_dfs;
use crate::sig::lexicon::{DocFreqs, TermOptions};
use crate::store::{Store, TextKind};

/// The memo of one `detect` (pass the same one to every run of the invocation).
#[derive(Default)]
pub struct Shared {
    dfs: RefCell<Vec<(TextKind, TermOptions, Arc<DocFreqs>)>>,
}

impl Shared {
    /// The collection's document frequencies of `terms` in `text`, from the memo or from
    /// one streamed pass ([`collection_dfs`]).
    pub fn dfs(&self, store: &Store, text: TextKind, terms: &TermOptions) -> Result<Arc<DocFreqs>> {
        if let Some((_, _, hit)) = self
            .dfs
            .borrow()
            .iter()
            .find(|(t, o, _)| *t == text && o == terms)
        {
            return Ok(Arc::clone(hit));
        }
        let fresh = Arc::new(collection_dfs(store, text, terms)?);
        self.dfs
            .borrow_mut()
            .push((text, *terms, Arc::clone(&fresh)));
        Ok(fresh)
    }
}
