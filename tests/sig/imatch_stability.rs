//! Stability of the bagged I-Match extended signature under lexicon-word edits, measured on
//! real news pages and compared with the model `1 − (1 − p^n)^K` (Kolcz et al. 2004).
//!
//! Model: an edit inserts a lexicon word the document lacks or deletes every occurrence of
//! one it has, so it changes L ∩ U by exactly one term. A bag's signature survives n such
//! edits iff none of the n edited terms is in the bag; p is the probability that a given
//! term is absent from a bag, `(1 − 1/|L|)^|L|` ≈ 1/e for bootstrap bags. With K
//! independent bags the extended signature still matches (some coordinate equal) with
//! probability `1 − (1 − p^n)^K`. Coordinate 0 (the full lexicon) contains every lexicon
//! word, so it never survives an edit and adds nothing to the formula: the test asserts
//! that it always changed and uses K (the bags only).
//!
//! The reliability rule is turned off here (it would pull in secondary terms, which the
//! model does not describe) and only documents with at least 20 lexicon terms are used, so
//! no bag is empty (probability p^20 ≈ 2·10⁻⁹).

use crate::imatch_support;
use std::collections::BTreeSet;

use imatch_support::{corpus_dir, load_pages};

use spotcheck::sig::imatch::{
    bag_absence_probability, extended_match, extended_signature, sign_documents, BaggedLexicon,
    IMatchParams, SplitMix64,
};
use spotcheck::sig::lexicon::{term_tokens, unique_terms, DocFreqs, Lexicon, LexiconParams};

/// Applies `n` distinct lexicon-word edits to `text`: each an insertion of a lexicon word
/// the text lacks (at a random word boundary) or the deletion of every occurrence of a
/// spaced-script one it has, chosen by a coin flip (falling back to the other kind when one is impossible).
fn edit(
    text: &str,
    unique: &BTreeSet<String>,
    lexicon_words: &[String],
    n: usize,
    rng: &mut SplitMix64,
) -> String {
    // A character bigram of Chinese, Japanese or Thai text overlaps its neighbours: deleting
    // one would change the bigrams on either side too, so only spaced words are deleted.
    let present: Vec<&String> = unique
        .iter()
        .filter(|t| lexicon_words.binary_search(t).is_ok())
        .filter(|t| {
            !t.chars()
                .next()
                .is_some_and(spotcheck::text::unspaced_letter)
        })
        .collect();
    let mut chosen: BTreeSet<&str> = BTreeSet::new();
    let mut deletions: BTreeSet<&str> = BTreeSet::new();
    let mut insertions: Vec<&str> = Vec::new();
    while chosen.len() < n {
        let delete = rng.next_u64() & 1 == 0;
        let word: &str = if delete {
            present[rng.below(present.len())]
        } else {
            let w = &lexicon_words[rng.below(lexicon_words.len())];
            if unique.contains(w) {
                continue;
            }
            w
        };
        if chosen.insert(word) {
            if delete {
                deletions.insert(word);
            } else {
                insertions.push(word);
            }
        }
    }
    let opts = LexiconParams::default().terms;
    let tokens = term_tokens(text, &opts);
    let mut out = String::with_capacity(text.len() + 16 * n);
    let mut last = 0;
    for t in &tokens {
        if deletions.contains(t.norm.as_str()) {
            out.push_str(&text[last..t.start]);
            out.push(' ');
            last = t.end;
        }
    }
    out.push_str(&text[last..]);
    for w in insertions {
        // Insert at a random word boundary of the edited text (a space is always one).
        let spaces: Vec<usize> = out.match_indices(' ').map(|(i, _)| i).collect();
        let at = if spaces.is_empty() {
            out.len()
        } else {
            spaces[rng.below(spaces.len())]
        };
        out.insert_str(at, &format!(" {w} "));
    }
    out
}

#[test]
fn extended_signature_stability_matches_the_bagging_model() {
    let Some(dir) = corpus_dir() else { return };
    let texts: Vec<String> = load_pages(&dir).into_iter().map(|(_, t)| t).collect();
    assert!(
        texts.len() >= 200,
        "expected the news corpus, found {} pages",
        texts.len()
    );
    let params = LexiconParams::default();
    let uniques: Vec<BTreeSet<String>> = texts
        .iter()
        .map(|t| unique_terms(t, &params.terms))
        .collect();
    let dfs = DocFreqs::from_documents(&uniques);
    let lexicon = Lexicon::build(&dfs, params);
    let lexicon_words: Vec<String> = lexicon.primary().iter().map(|t| t.term.clone()).collect();
    let l_size = lexicon_words.len();
    let p = bag_absence_probability(l_size);
    println!(
        "corpus: {} pages, {} distinct terms; |L| = {l_size}, |B| = {}; p = (1-1/|L|)^|L| = {p:.4}",
        texts.len(),
        dfs.df.len(),
        lexicon.secondary().len()
    );

    // Coverage |L ∩ U| / |U| of the real pages, to judge the reliability default.
    let mut coverage: Vec<f64> = uniques
        .iter()
        .filter(|u| !u.is_empty())
        .map(|u| u.iter().filter(|t| lexicon.in_primary(t)).count() as f64 / u.len() as f64)
        .collect();
    coverage.sort_by(f64::total_cmp);
    let q = |f: f64| coverage[((coverage.len() - 1) as f64 * f) as usize];
    println!(
        "coverage |S|/|U|: min {:.3}  p10 {:.3}  median {:.3}  p90 {:.3}; below 0.1: {}",
        q(0.0),
        q(0.1),
        q(0.5),
        q(0.9),
        coverage.iter().filter(|&&c| c < 0.1).count()
    );

    // What the default rules (min 5 terms, coverage 0.1, K = 10) do on these pages.
    let defaults = BaggedLexicon::new(&lexicon, IMatchParams::default());
    let (_, counts) = sign_documents(&defaults, &uniques);
    println!("default rules, coordinate 0: {:?}", counts[0]);
    for (d, u) in uniques.iter().enumerate() {
        let s = u.iter().filter(|t| lexicon.in_primary(t)).count();
        if !u.is_empty() && (s as f64) < 0.1 * u.len() as f64 {
            println!("  low coverage page {d}: |U| = {}, |S| = {s}", u.len());
        }
    }

    let eligible: Vec<usize> = (0..texts.len())
        .filter(|&d| uniques[d].iter().filter(|t| lexicon.in_primary(t)).count() >= 20)
        .collect();
    assert!(
        eligible.len() >= 150,
        "only {} pages with 20+ lexicon terms",
        eligible.len()
    );

    const KS: [usize; 3] = [2, 5, 10];
    const SEEDS: [u64; 3] = [11, 22, 33];
    const REPS: usize = 4;
    let bagged: Vec<Vec<BaggedLexicon>> = KS
        .iter()
        .map(|&k| {
            SEEDS
                .iter()
                .map(|&seed| {
                    BaggedLexicon::new(
                        &lexicon,
                        IMatchParams {
                            min_terms: 1,
                            min_coverage: 0.0,
                            bags: k,
                            seed,
                            // The papers' rule: every lexicon term is sampled.
                            bag_max_idf: 1.0,
                            bag_draws: 1.0,
                            short_min_terms: 0,
                            scale_bag_coverage: false,
                            bags_by_term: false,
                        },
                    )
                })
                .collect()
        })
        .collect();
    // originals[ki][si][doc]
    let originals: Vec<Vec<Vec<_>>> = bagged
        .iter()
        .map(|per_seed| {
            per_seed
                .iter()
                .map(|b| {
                    uniques
                        .iter()
                        .map(|u| extended_signature(&b.sign(u)))
                        .collect()
                })
                .collect()
        })
        .collect();

    // matches[ki][n-1], trials per cell.
    let mut matches = [[0usize; 5]; 3];
    let mut trials = 0usize;
    let mut rng = SplitMix64::new(2024);
    for n in 1..=5 {
        for &d in &eligible {
            for _ in 0..REPS {
                let edited = edit(&texts[d], &uniques[d], &lexicon_words, n, &mut rng);
                let u2 = unique_terms(&edited, &params.terms);
                let changed = uniques[d]
                    .symmetric_difference(&u2)
                    .filter(|t| lexicon.in_primary(t))
                    .count();
                assert_eq!(changed, n, "an edit must change L ∩ U by exactly one term");
                if n == 1 {
                    trials += 1;
                }
                for (ki, per_seed) in bagged.iter().enumerate() {
                    for (si, b) in per_seed.iter().enumerate() {
                        let sig2 = extended_signature(&b.sign(&u2));
                        let orig = &originals[ki][si][d];
                        assert_ne!(
                            orig[0], sig2[0],
                            "coordinate 0 must change under a lexicon edit"
                        );
                        if extended_match(orig, &sig2) {
                            matches[ki][n - 1] += 1;
                        }
                    }
                }
            }
        }
    }
    let m = (trials * SEEDS.len()) as f64;
    println!(
        "trials per cell: {m} ({} pages × {REPS} edits × {} seeds)",
        eligible.len(),
        SEEDS.len()
    );
    println!(" K  n  measured  model   |diff|  tolerance");
    let mut failures = Vec::new();
    for (ki, &k) in KS.iter().enumerate() {
        for n in 1..=5 {
            let measured = matches[ki][n - 1] as f64 / m;
            let model = 1.0 - (1.0 - p.powi(n as i32)).powi(k as i32);
            // 3 standard errors of a binomial proportion plus 0.02 for what the model
            // ignores: per-seed bag sizes vary by ±√(p(1−p)/|L|) around p, and only 5
            // bag sets are averaged, so trials within a seed are correlated.
            let se = (model * (1.0 - model) / m).sqrt();
            let tol = 3.0 * se + 0.02;
            let diff = (measured - model).abs();
            println!("{k:2} {n:2}  {measured:.4}    {model:.4}  {diff:.4}  {tol:.4}");
            if diff > tol {
                failures.push((k, n, measured, model, tol));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "measured stability outside tolerance: {failures:?}"
    );
}
