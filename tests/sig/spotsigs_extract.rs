//! Properties of SpotSigs extraction on random word sequences: the chain rule stated
//! independently of the implementation's loop, spans that point at the right words, and
//! the explanation of a match being the intersection of the two signature sets.

use std::collections::BTreeSet;

use proptest::prelude::*;
use spotcheck::sig::spotsigs::{extract_text, shared_signatures, SpotSigParams};
use spotcheck::text::{tokenize, WordList};

/// Words: antecedents (the, is), other stopwords (of, to), content words (w0..w5).
const WORDS: [&str; 10] = ["the", "is", "of", "to", "w0", "w1", "w2", "w3", "w4", "w5"];

fn params(distance: usize, chain: usize) -> SpotSigParams {
    SpotSigParams {
        antecedents: WordList::parse("the\nis"),
        stopwords: WordList::parse("the\nis\nof\nto"),
        distance,
        chain,
    }
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(0usize..WORDS.len(), 0..40)
        .prop_map(|ix| ix.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The chain rule as a statement about positions: the first chain word is the first
    /// non-stopword at or after `i + d`; each next one is the first non-stopword at or
    /// after `previous + d`; the chain stops at `c` words or at the end of the text.
    #[test]
    fn chain_rule_holds((t, d, c) in (text(), 1usize..4, 1usize..4)) {
        let p = params(d, c);
        let tokens = tokenize(&t);
        let is_stop = |k: usize| p.stopwords.contains(&tokens[k].norm);
        let first_content_from = |k: usize| (k..tokens.len()).find(|&j| !is_stop(j));
        let sigs = extract_text(&t, &p);
        let antecedents: Vec<usize> = (0..tokens.len())
            .filter(|&k| p.antecedents.contains(&tokens[k].norm))
            .collect();
        let mut expected = Vec::new();
        for &i in &antecedents {
            let mut words = vec![tokens[i].norm.clone()];
            let mut next = first_content_from(i + d);
            while let Some(j) = next {
                words.push(tokens[j].norm.clone());
                if words.len() > c {
                    break;
                }
                next = first_content_from(j + d);
            }
            if words.len() > 1 {
                expected.push(words.join(":"));
            }
        }
        let got: Vec<String> = sigs.iter().map(|s| s.sig.clone()).collect();
        prop_assert_eq!(got, expected);
        for s in &sigs {
            let from_spans: Vec<&str> = s.spans().map(|(a, b)| &t[a..b]).collect();
            prop_assert_eq!(from_spans.join(":"), s.sig.clone());
        }
    }

    #[test]
    fn shared_signatures_are_the_intersection((a, b) in (text(), text())) {
        let p = params(1, 2);
        let set = |t: &str| -> BTreeSet<String> {
            extract_text(t, &p).into_iter().map(|s| s.sig).collect()
        };
        let expected: Vec<String> = set(&a).intersection(&set(&b)).cloned().collect();
        let shared = shared_signatures(&a, &b, &p);
        let got: Vec<String> = shared.iter().map(|s| s.sig.clone()).collect();
        prop_assert_eq!(got, expected);
        for s in &shared {
            for &(x, y) in &s.spans_a {
                prop_assert!(s.sig.split(':').any(|w| w == &a[x..y]));
            }
            for &(x, y) in &s.spans_b {
                prop_assert!(s.sig.split(':').any(|w| w == &b[x..y]));
            }
        }
    }
}
