//! Keeping a learned λ from emptying the target collection's short documents (issue 20).
//!
//! ANDD's weights are clamped at zero (`sig::andd::weigh`): a k-gram with λ·φ ≤ 0 is
//! dropped. A model trained on a family of long pages can learn a negative offset (the
//! `bias`, `log_tf` and `doc_length` weights below zero: "drop the common words"), harmless
//! there, that on a family of short pages leaves a document only a handful of k-grams — and
//! two different short pages whose one or two surviving k-grams agree score 1. Measured
//! (BENCHMARKS, issue 20 session 7): libgtk-3-doc (content text, median 5,209 characters)
//! → sqlite3-doc (median 1,687; release-log and syntax-diagram pages of 70–300): 339 false
//! pairs at ≥ 0.99 under the learned λ against 15 under TF·IDF, Max-F1 0.847 against 0.937.
//!
//! The rule ([`shrink_to_collection`]), label-free and applied where the model meets the
//! collection: a document the stub rule lets through (at least `min_kgrams` distinct
//! k-grams in its text) must keep at least `min_kgrams` k-grams with a positive weight —
//! the same minimum, now asked of the weighted vector. λ₀ (TF·IDF) keeps every k-gram
//! that is not in every document, so it is the reference: when λ leaves more documents
//! under the minimum than λ₀ does, λ is moved toward λ₀ along the line between them,
//! λ_t = λ₀ + t (λ − λ₀), t halved from 1 until no more documents are under the minimum
//! than under λ₀ (t = 0 after [`HALVINGS`]: λ₀ itself). A model that empties no document
//! is used unchanged. This is not the session-3 stub rule on the weighted vector (which
//! dropped such documents from matching, a knife edge in λ): no document is dropped, the
//! model is shrunk for all of them alike.

use crate::sig::andd::{linear, DocFeatures};

/// How often t is halved before the rule gives λ₀ itself.
pub const HALVINGS: u32 = 6;

/// What [`shrink_to_collection`] chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Shrunk {
    /// The weights to use: λ₀ + t (λ − λ₀).
    pub lambda: Vec<f64>,
    /// The share of the learned step kept (1: λ unchanged, 0: λ₀).
    pub t: f64,
    /// Documents (of those with at least the minimum of distinct k-grams) the learned λ
    /// leaves with fewer positive weights than the minimum.
    pub emptied: usize,
    /// The same under λ₀.
    pub emptied_prior: usize,
    /// The same under the chosen weights.
    pub emptied_chosen: usize,
    /// Documents checked (those with at least the minimum of distinct k-grams).
    pub checked: usize,
}

/// Whether `f` keeps fewer than `min` k-grams of positive weight under `lambda` (stops
/// counting at `min`).
fn emptied(f: &DocFeatures, lambda: &[f64], min: usize) -> bool {
    let mut kept = 0;
    for i in 0..f.len() {
        if linear(lambda, f.row(i)) > 0.0 {
            kept += 1;
            if kept >= min {
                return false;
            }
        }
    }
    true
}

/// Documents of `docs` with at least `min` distinct k-grams that keep fewer than `min`
/// positive weights under `lambda`.
pub fn count_emptied(docs: &[&DocFeatures], lambda: &[f64], min: usize) -> usize {
    docs.iter().filter(|f| emptied(f, lambda, min)).count()
}

/// λ₀ + t (λ − λ₀).
pub fn toward(prior: &[f64], lambda: &[f64], t: f64) -> Vec<f64> {
    prior
        .iter()
        .zip(lambda)
        .map(|(p, l)| p + t * (l - p))
        .collect()
}

/// The learned `lambda`, shrunk toward `prior` until it leaves no more of the collection's
/// documents `docs` under `min` positive weights than `prior` does (see the module header).
/// Documents with fewer than `min` distinct k-grams are not matched anyway and not counted.
pub fn shrink_to_collection(
    docs: &[DocFeatures],
    lambda: &[f64],
    prior: &[f64],
    min: usize,
) -> Shrunk {
    let checked: Vec<&DocFeatures> = docs.iter().filter(|f| f.len() >= min).collect();
    let emptied_learned = count_emptied(&checked, lambda, min);
    let emptied_prior = count_emptied(&checked, prior, min);
    let mut out = Shrunk {
        lambda: lambda.to_vec(),
        t: 1.0,
        emptied: emptied_learned,
        emptied_prior,
        emptied_chosen: emptied_learned,
        checked: checked.len(),
    };
    if emptied_learned <= emptied_prior {
        return out;
    }
    let mut t = 1.0;
    for _ in 0..HALVINGS {
        t /= 2.0;
        let l = toward(prior, lambda, t);
        let e = count_emptied(&checked, &l, min);
        if e <= emptied_prior {
            out.lambda = l;
            out.t = t;
            out.emptied_chosen = e;
            return out;
        }
    }
    out.lambda = prior.to_vec();
    out.t = 0.0;
    out.emptied_chosen = emptied_prior;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::andd::prior;
    use crate::sig::andd::{doc_terms, features, DocFreqs, DocInput, DocTerms};
    use proptest::prelude::*;

    fn terms(text: &str) -> DocTerms {
        doc_terms(
            &DocInput {
                text,
                title: "",
                url: "",
            },
            1,
        )
    }

    /// Long pages of distinct words and short ones of common words plus one rare word.
    fn collection() -> Vec<DocFeatures> {
        let mut texts: Vec<String> = (0..20)
            .map(|d| {
                let own: String = (0..200).map(|w| format!("d{d}w{w} ")).collect();
                format!("release notes sqlite version {own}")
            })
            .collect();
        // Short pages: four words of every page (idf 0), one of the ten short pages (idf
        // 0.32), one of five (0.53), one of three or four (0.6–0.66), one of two (0.80),
        // one of their own (1): five positive weights under λ₀.
        texts.extend((0..10).map(|d| {
            format!(
                "release notes sqlite version change fix{} note{} bug{} r{d}",
                d % 2,
                d % 3,
                d % 5
            )
        }));
        let t: Vec<DocTerms> = texts.iter().map(|x| terms(x)).collect();
        let mut df = DocFreqs::default();
        t.iter().for_each(|x| df.add(x));
        t.iter().map(|x| features(x, &df)).collect()
    }

    #[test]
    fn a_model_that_empties_no_document_is_kept() {
        let docs = collection();
        let l0 = prior(1);
        let s = shrink_to_collection(&docs, &l0, &l0, 5);
        assert_eq!((s.t, s.emptied, s.emptied_prior), (1.0, 0, 0));
        assert_eq!(s.checked, 30);
        // A mild offset keeps every short page's rare words too.
        let mut mild = l0.clone();
        mild[0] = -0.01;
        let s = shrink_to_collection(&docs, &mild, &l0, 5);
        assert_eq!(s.t, 1.0);
        assert_eq!(s.lambda, mild);
    }

    #[test]
    fn an_offset_that_empties_short_pages_is_shrunk_until_it_does_not() {
        let docs = collection();
        let l0 = prior(1);
        // bias −0.5: a k-gram needs ln 2 · idf > 0.5, idf > 0.72: a short page keeps two
        // (bug, its own word), the long pages keep their own 200.
        let mut learned = l0.clone();
        learned[0] = -0.5;
        let s = shrink_to_collection(&docs, &learned, &l0, 5);
        assert_eq!(s.emptied, 10, "{s:?}");
        assert_eq!(s.emptied_prior, 0);
        assert!(s.t < 1.0 && s.t > 0.0, "{s:?}");
        assert_eq!(s.emptied_chosen, 0);
        assert_eq!(
            count_emptied(&docs.iter().collect::<Vec<_>>(), &s.lambda, 5),
            0
        );
        // The largest step that empties nothing: twice t would still empty some.
        let twice = toward(&l0, &learned, s.t * 2.0);
        assert!(count_emptied(&docs.iter().collect::<Vec<_>>(), &twice, 5) > 0);
    }

    #[test]
    fn a_model_that_empties_everything_gives_the_prior() {
        let docs = collection();
        let l0 = prior(1);
        let mut learned = vec![0.0; l0.len()];
        learned[0] = -1.0;
        let s = shrink_to_collection(&docs, &learned, &l0, 5);
        assert!(s.t < 1.0);
        assert_eq!(s.emptied_chosen, 0);
        // A document too short for the stub rule is neither checked nor counted.
        let few = vec![features(&terms("a b"), &DocFreqs::default())];
        let s = shrink_to_collection(&few, &learned, &l0, 5);
        assert_eq!((s.checked, s.emptied, s.t), (0, 0, 1.0));
    }

    proptest! {
        /// Whatever λ, the chosen weights empty no more documents than λ₀, and λ is kept
        /// unchanged exactly when it empties no more itself.
        #[test]
        fn the_chosen_weights_never_empty_more_than_the_prior(
            l in proptest::collection::vec(-1.0f64..1.0, 9),
            min in 1usize..8,
        ) {
            let docs = collection();
            let l0 = prior(1);
            let s = shrink_to_collection(&docs, &l, &l0, min);
            prop_assert!(s.emptied_chosen <= s.emptied_prior);
            prop_assert_eq!(s.t == 1.0, s.emptied <= s.emptied_prior);
            let line = toward(&l0, &l, s.t);
            prop_assert!(s.lambda.iter().zip(&line).all(|(a, b)| (a - b).abs() < 1e-12));
        }
    }
}
