//! Pairs across languages: a pair whose two documents are in different languages through
//! and through is no near-duplicate, whatever method matched it (a translation is not a
//! copy of its original). The run driver drops such pairs from every method's pairs
//! before they are stored ([`pairs_kept`]); the test is [`crate::text::lang::across_languages`]
//! on the two documents' language profiles.
//!
//! Only the pairs whose stored languages differ (neither `und`) are looked at further:
//! their documents' texts are read again and profiled line by line, so the cost is that of
//! the cross-language pairs, not of the collection. A translated manual section matched on
//! the English command names left in it (dd-lang: 181 of SpotSigs' 505 false pairs across
//! editions) is dropped; an English wire story in a German site's template is kept beside
//! its English copies, since both hold the story's English lines (BENCHMARKS.md, "Issue 14
//! (session 10): languages").

use anyhow::Result;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::extract::editions::Editions;
use crate::store::Store;
use crate::text::lang::{self, LineMemo, Profile};

/// Documents whose texts are read and profiled at a time.
const CHUNK: usize = 1024;

/// Which of `pairs` (indices into `ids`) are kept: `None` when all are, else one flag per
/// pair, `false` for a pair across languages.
pub fn pairs_kept(
    store: &Store,
    ids: &[i64],
    pairs: &[(u32, u32, f64)],
) -> Result<Option<Vec<bool>>> {
    let editions = store.language_editions()?;
    pairs_kept_with(store, ids, pairs, &mut Profiles::default(), &editions)
}

/// The language profiles made so far (by document id) and the languages of their lines:
/// one `detect` makes each document's profile once for all its methods (at a million pages
/// three methods profiled the same documents again), and each distinct line's language
/// once for all profiles ([`LineMemo`]).
#[derive(Debug, Default)]
pub struct Profiles {
    by_document: FxHashMap<i64, Profile>,
    lines: LineMemo,
}

impl Profiles {
    /// Documents profiled.
    pub fn len(&self) -> usize {
        self.by_document.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_document.is_empty()
    }

    /// Distinct lines whose language is remembered.
    pub fn lines(&self) -> usize {
        self.lines.len()
    }
}

/// [`pairs_kept`] with the profiles already made, which it extends, and the site's
/// language editions read.
pub fn pairs_kept_with(
    store: &Store,
    ids: &[i64],
    pairs: &[(u32, u32, f64)],
    memo: &mut Profiles,
    editions: &Editions,
) -> Result<Option<Vec<bool>>> {
    if pairs.is_empty() {
        return Ok(None);
    }
    let across_editions =
        |&(a, b, _): &(u32, u32, f64)| editions.apart(ids[a as usize], ids[b as usize]);
    let in_pairs: FxHashSet<i64> = pairs
        .iter()
        .flat_map(|&(a, b, _)| [ids[a as usize], ids[b as usize]])
        .collect();
    // Each document's stored language, as an index into `codes` (a few dozen codes).
    let mut codes: Vec<String> = Vec::new();
    let mut code_of: FxHashMap<i64, u16> = FxHashMap::default();
    store.for_each_doc_lang(&in_pairs, |id, code| {
        let i = match codes.iter().position(|c| c == code) {
            Some(i) => i,
            None => {
                codes.push(code.to_string());
                codes.len() - 1
            }
        };
        code_of.insert(id, i as u16);
    })?;
    drop(in_pairs);
    let code = |i: u32| -> Option<&str> {
        let c = codes.get(*code_of.get(&ids[i as usize])? as usize)?;
        (c != lang::UNDETERMINED).then_some(c.as_str())
    };
    let differ = |&(a, b, _): &(u32, u32, f64)| match (code(a), code(b)) {
        (Some(x), Some(y)) => x != y,
        _ => false,
    };
    let mut wanted: Vec<i64> = pairs
        .iter()
        .filter(|p| differ(p) && !across_editions(p))
        .flat_map(|&(a, b, _)| [ids[a as usize], ids[b as usize]])
        .collect();
    if wanted.is_empty() && (editions.is_empty() || !pairs.iter().any(across_editions)) {
        return Ok(None);
    }
    wanted.sort_unstable();
    wanted.dedup();
    wanted.retain(|id| !memo.by_document.contains_key(id));
    for chunk in wanted.chunks(CHUNK) {
        let texts = store.language_texts(chunk)?;
        let lines = &memo.lines;
        let made: Vec<(i64, Profile, Vec<_>)> = texts
            .par_iter()
            .map(|(id, text)| {
                let (profile, learned) = Profile::of_with(text, lines);
                (*id, profile, learned)
            })
            .collect();
        for (id, profile, learned) in made {
            memo.lines.learn(learned);
            memo.by_document.insert(id, profile);
        }
    }
    let profiles = &memo.by_document;
    let keep: Vec<bool> = pairs
        .iter()
        .map(|p| {
            if across_editions(p) {
                return false;
            }
            if !differ(p) {
                return true;
            }
            let (a, b) = (p.0, p.1);
            let (Some(la), Some(lb)) = (code(a), code(b)) else {
                return true;
            };
            match (
                profiles.get(&ids[a as usize]),
                profiles.get(&ids[b as usize]),
            ) {
                (Some(pa), Some(pb)) => !lang::across_languages(la, pa, lb, pb),
                _ => true,
            }
        })
        .collect();
    Ok(keep.contains(&false).then_some(keep))
}
