//! The papers' spurious-match case (Kolcz & Chowdhury 2008): two long documents with
//! different content but an identical banner. The banner is full of mid-frequency lexicon
//! words; the content is made of rare words (secondary lexicon B) plus two lexicon words
//! both share. Plain I-Match sees only the banner and gives both the same signature; the
//! long-document reliability rule notices that the lexicon covers a small fraction of the
//! documents' terms, pulls in their (different) secondary terms, and separates them.

use std::collections::BTreeSet;

use spotcheck::cluster::buckets::{cluster_signatures, BucketOptions};
use spotcheck::sig::imatch::{
    count_rules, extended_match, extended_signature, to_hex, BaggedLexicon, IMatchParams,
    SigOutcome,
};
use spotcheck::sig::lexicon::{unique_terms, DocFreqs, Lexicon, LexiconParams};

const N_DOCS: usize = 200;

fn word(prefix: &str, i: usize) -> String {
    // Letters only: the preprocessing drops words with more than one digit.
    let mut s = prefix.to_string();
    let mut i = i;
    for _ in 0..3 {
        s.push(char::from(b'a' + (i % 26) as u8));
        i /= 26;
    }
    s
}

/// Builds the collection. Documents 0 and 1 are the long pair; the other 198 give the
/// banner and shared words their document frequencies:
/// - banner words (30): in documents 0..40 → df 40, normalized idf 0.30 (in L);
/// - `shared` words (2): in documents 0..20 → df 20, idf 0.43 (in L);
/// - `everywhere` words (5): in every document → idf 0 (dropped);
/// - content words of document 0 / 1 (400 each): each also in one filler document → df 2,
///   idf 0.87 (in B, rarer than the window).
fn collection() -> Vec<String> {
    let banner: Vec<String> = (0..30).map(|i| word("banner", i)).collect();
    let shared: Vec<String> = (0..2).map(|i| word("shared", i)).collect();
    let everywhere: Vec<String> = (0..5).map(|i| word("every", i)).collect();
    let content = |doc: usize| -> Vec<String> {
        (0..400)
            .map(|i| word(&format!("content{}x", ["a", "b"][doc]), i))
            .collect()
    };
    let mut docs: Vec<Vec<String>> = (0..N_DOCS).map(|_| everywhere.clone()).collect();
    for (d, doc) in docs.iter_mut().enumerate() {
        if d < 40 {
            doc.extend(banner.iter().cloned());
        }
        if d < 20 {
            doc.extend(shared.iter().cloned());
        }
        // A filler word of its own so filler documents are not empty of B terms.
        doc.push(word("filler", d));
    }
    for (d, words) in [(0usize, content(0)), (1, content(1))] {
        for (i, w) in words.iter().enumerate() {
            docs[d].push(w.clone());
            // Each content word also appears in one filler document (df 2).
            docs[100 + (i % 100)].push(w.clone());
        }
    }
    docs.into_iter().map(|w| w.join(" ")).collect()
}

fn lexicon_and_terms() -> (Lexicon, Vec<BTreeSet<String>>) {
    let params = LexiconParams::default();
    let uniques: Vec<BTreeSet<String>> = collection()
        .iter()
        .map(|t| unique_terms(t, &params.terms))
        .collect();
    let dfs = DocFreqs::from_documents(&uniques);
    (Lexicon::build(&dfs, params), uniques)
}

#[test]
fn the_construction_is_what_the_test_claims() {
    let (lex, uniques) = lexicon_and_terms();
    assert_eq!(lex.primary().len(), 32, "30 banner + 2 shared words in L");
    assert!(lex.in_primary(&word("banner", 0)));
    assert!(!lex.in_primary(&word("every", 0)));
    assert!(lex
        .secondary()
        .iter()
        .any(|t| t.term == word("contentax", 0) && t.df == 2));
    let s = uniques[0].iter().filter(|t| lex.in_primary(t)).count();
    println!(
        "document 0: |U| = {}, |S| = {s}, coverage = {:.3}",
        uniques[0].len(),
        s as f64 / uniques[0].len() as f64
    );
    assert!(s as f64 / (uniques[0].len() as f64) < IMatchParams::default().min_coverage);
}

#[test]
fn plain_imatch_matches_the_banner_and_the_reliability_rule_separates() {
    let (lex, uniques) = lexicon_and_terms();
    let plain = IMatchParams {
        min_coverage: 0.0,
        bags: 0,
        ..IMatchParams::default()
    };
    let plain = BaggedLexicon::new(&lex, plain);
    let a = plain.sign_coordinate(&uniques[0], 0);
    let b = plain.sign_coordinate(&uniques[1], 0);
    assert!(a.signature().is_some());
    assert_eq!(
        a.signature(),
        b.signature(),
        "plain I-Match: spurious match"
    );

    let reliable = BaggedLexicon::new(
        &lex,
        IMatchParams {
            bags: 0,
            ..IMatchParams::default()
        },
    );
    let a = reliable.sign_coordinate(&uniques[0], 0);
    let b = reliable.sign_coordinate(&uniques[1], 0);
    let show = |o: &SigOutcome| match o {
        SigOutcome::Signed {
            sig,
            terms,
            extended,
        } => {
            format!("{} ({terms} terms, {extended} from B)", to_hex(sig))
        }
        other => format!("{other:?}"),
    };
    println!("with the reliability rule: {} / {}", show(&a), show(&b));
    assert!(
        matches!(a, SigOutcome::Signed { extended, .. } if extended > 0),
        "document 0 is extended with secondary terms"
    );
    assert!(a.signature().is_none() || a.signature() != b.signature());
}

#[test]
fn bagged_imatch_inherits_the_fix() {
    let (lex, uniques) = lexicon_and_terms();
    let sign_all = |params: IMatchParams| -> Vec<Vec<Option<[u8; 20]>>> {
        let b = BaggedLexicon::new(&lex, params);
        uniques
            .iter()
            .map(|u| extended_signature(&b.sign(u)))
            .collect()
    };
    let off = sign_all(IMatchParams {
        min_coverage: 0.0,
        ..IMatchParams::default()
    });
    assert!(extended_match(&off[0], &off[1]));
    let on = IMatchParams::default();
    let sigs = sign_all(on);
    assert!(!extended_match(&sigs[0], &sigs[1]));

    // Clusters: with the rule off the long pair joins the banner cluster; with it on,
    // neither long document shares a cluster with the other.
    let clusters_on = cluster_signatures(&sigs, &BucketOptions::default()).clusters;
    assert!(!clusters_on
        .iter()
        .any(|c| c.members.contains(&0) && c.members.contains(&1)));
    let clusters_off = cluster_signatures(&off, &BucketOptions::default()).clusters;
    assert!(clusters_off
        .iter()
        .any(|c| c.members.contains(&0) && c.members.contains(&1)));

    let b = BaggedLexicon::new(&lex, on);
    let outcomes: Vec<Vec<SigOutcome>> = uniques.iter().map(|u| b.sign(u)).collect();
    let counts = count_rules(outcomes.iter().map(Vec::as_slice));
    println!("rule counts per coordinate (rule on): {counts:?}");
    assert!(counts[0].extended >= 2);
}
