//! A cheap candidate generator for the estimation sample (`spotcheck sample`) that sees
//! copies whose texts overlap only in part: one story inside two sites' frames, an edited or
//! shortened copy. MinHash LSH at Jaccard ≥ 0.3 misses them (the shared story is a small part
//! of the union); here every pair of documents sharing at least [`MIN_SHARED`] *rare* word
//! 5-shingles of the content text is a candidate (rare: in at most [`MAX_DF`] documents, so a
//! template line in every page of a site does not pair the whole site), found through an
//! inverted index over the rare shingles only.
//!
//! A candidate's score is a lower bound of its Jaccard similarity: shared rare shingles
//! over the union of both shingle sets. It places a pair among the other candidates' score
//! strata (most of these pairs fall in the lowest, "candidate < 0.3"), which is what moves
//! the true pairs no detector proposed out of the random stratum, where a sample almost
//! never finds them.
//!
//! Cost: Σ df² over the rare shingles, at most `MAX_DF` times the number of shingles.

use std::collections::HashMap;

use anyhow::Result;
use rayon::prelude::*;

use super::minhash::{shingle_set, Shingle};
use crate::store::{Store, TextKind};

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 5;

/// A shingle in more documents than this is template or boilerplate, not shared content.
pub const MAX_DF: usize = 50;

/// Rare shingles a pair must share to be a candidate.
pub const MIN_SHARED: u32 = 3;

/// Candidate pairs (a < b, sorted) with their score (see the module header) from the
/// documents' `text`.
pub fn overlap_pairs(store: &Store, text: TextKind) -> Result<Vec<(i64, i64, f64)>> {
    let mut ids: Vec<i64> = Vec::new();
    let mut sets: Vec<Vec<u64>> = Vec::new();
    store.for_each_text_chunk(text, 1024, |chunk| {
        let signed: Vec<Vec<u64>> = chunk
            .par_iter()
            .map(|d| shingle_set(&d.text, Shingle::Word, SHINGLE_WORDS))
            .collect();
        ids.extend(chunk.iter().map(|d| d.id));
        sets.extend(signed);
        Ok(())
    })?;
    let mut out: Vec<(i64, i64, f64)> = overlap_of(&sets)
        .into_iter()
        .map(|(i, j, s)| {
            let (a, b) = (ids[i as usize], ids[j as usize]);
            (a.min(b), a.max(b), s)
        })
        .collect();
    out.sort_by_key(|p| (p.0, p.1));
    Ok(out)
}

/// The candidate pairs of documents (indices into `sets`, each a sorted shingle set) with
/// their scores.
pub fn overlap_of(sets: &[Vec<u64>]) -> Vec<(u32, u32, f64)> {
    let mut postings: HashMap<u64, Vec<u32>> = HashMap::new();
    for (d, set) in sets.iter().enumerate() {
        for &h in set {
            postings.entry(h).or_default().push(d as u32);
        }
    }
    let mut shared: HashMap<(u32, u32), u32> = HashMap::new();
    for docs in postings.values() {
        if docs.len() < 2 || docs.len() > MAX_DF {
            continue;
        }
        for (k, &x) in docs.iter().enumerate() {
            for &y in &docs[k + 1..] {
                *shared.entry((x, y)).or_default() += 1;
            }
        }
    }
    let mut out: Vec<(u32, u32, f64)> = shared
        .into_iter()
        .filter(|&(_, n)| n >= MIN_SHARED)
        .map(|((x, y), n)| {
            let union = sets[x as usize].len() + sets[y as usize].len() - n as usize;
            (x, y, n as f64 / union.max(1) as f64)
        })
        .collect();
    out.sort_by_key(|p| (p.0, p.1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_story_in_two_frames_is_a_candidate_and_a_shared_template_is_not() {
        let story = "the council approved the new budget for schools and roads on monday \
                     after a long debate about taxes and the mayor said it was fair";
        let frame = |site: &str, n: usize| {
            (0..n)
                .map(|i| format!("{site}nav{i} {site}menu {site}login {site}search {site}more"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let a = format!("{} {story} {}", frame("daily", 40), frame("daily", 40));
        let b = format!("{} {story}", frame("metro", 60));
        let c = format!(
            "{} an unrelated report about the harbour storm",
            frame("metro", 60)
        );
        let sets: Vec<Vec<u64>> = [a, b, c]
            .iter()
            .map(|t| shingle_set(t, Shingle::Word, SHINGLE_WORDS))
            .collect();
        let found = overlap_of(&sets);
        let pairs: Vec<(u32, u32)> = found.iter().map(|p| (p.0, p.1)).collect();
        // a and b share the story; b and c share metro's frame, which is rare here too (two
        // documents), so they pair as well: only a frame in more than MAX_DF pages is left out.
        assert!(pairs.contains(&(0, 1)), "{found:?}");
        let ab = found.iter().find(|p| (p.0, p.1) == (0, 1)).unwrap().2;
        assert!(
            ab > 0.0 && ab < 0.3,
            "the story is a small part of the union: {ab}"
        );
        // A shingle in more than MAX_DF documents pairs nobody.
        let many: Vec<Vec<u64>> = (0..MAX_DF + 1).map(|_| vec![1, 2, 3]).collect();
        assert!(overlap_of(&many).is_empty());
        let few: Vec<Vec<u64>> = (0..3).map(|_| vec![1, 2, 3]).collect();
        assert_eq!(overlap_of(&few).len(), 3);
    }
}
