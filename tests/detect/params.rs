//! `detect`'s parameters as declared in the method table: out-of-range and inconsistent
//! values are usage errors naming the flag, and the review explains a pair with the
//! parameters of the run that proposed it, not the defaults.

use spotcheck::review::{DetectorEvidence, EvidenceProvider, HighlightKind, Session};
use spotcheck::sig::spotsigs::{shared_signatures, SpotSigParams};
use spotcheck::store::Store;

use crate::common;

/// Two releases of `topics` pages: each page's sentences are its own words; the second
/// release changes a few of them.
/// `n` spelled in letters (0 → "a", 12 → "bc"): made-up words with digits in them read as
/// code identifiers, and the queue keeps pairs whose pages differ in identifiers apart as
/// template siblings.
fn letters(n: usize) -> String {
    n.to_string()
        .bytes()
        .map(|d| char::from(b'a' + (d - b'0')))
        .collect()
}

fn collection(store: &mut Store, topics: usize) -> Vec<[i64; 2]> {
    let mut ids = Vec::new();
    for t in 0..topics {
        let mut pair = [0i64; 2];
        for (r, slot) in pair.iter_mut().enumerate() {
            let w = |i: usize| {
                if r == 1 && i % 9 == 4 {
                    format!("changed{}x{}", letters(t), letters(i))
                } else {
                    format!("t{}word{}", letters(t), letters(i))
                }
            };
            let text: Vec<String> = (0..12)
                .map(|s| {
                    let i = s * 6;
                    format!(
                        "The {} {} is {} {} and the {} was {}.",
                        w(i),
                        w(i + 1),
                        w(i + 2),
                        w(i + 3),
                        w(i + 4),
                        w(i + 5)
                    )
                })
                .collect();
            let text = text.join(" ");
            *slot = store
                .insert_test_document(
                    &format!("site{t}/1.{r}/page.html"),
                    &format!("Page {t}"),
                    &text,
                    Some(&text),
                )
                .unwrap();
        }
        ids.push(pair);
    }
    ids
}

#[test]
fn out_of_range_and_inconsistent_values_are_usage_errors_naming_the_flag() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    collection(&mut store, 2);
    drop(store);
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--tau", "1.5"], "--tau", "(0, 1]"),
        (&["--tau", "0"], "--tau", "(0, 1]"),
        (&["--bags", "-1"], "--bags", "0..=1000"),
        (&["--idf", "0.9,0.1"], "--idf", "MIN <= MAX"),
        (&["--lexicon-idf", "0.2,auto"], "--lexicon-idf", "MIN,MAX"),
        (&["--spot-distance", "0"], "--spot-distance", "1..=64"),
        (&["--chain", "x"], "--chain", "1..=64"),
        (&["--min-sigs", "0"], "--min-sigs", "1 or more"),
        (
            &["--site-boilerplate", "1.5"],
            "--site-boilerplate",
            "[0, 1]",
        ),
        (&["--min-coverage", "-0.1"], "--min-coverage", "[0, 1]"),
        (&["--bag-max-idf", "2"], "--bag-max-idf", "[0, 1]"),
        (&["--min-agree", "0"], "--min-agree", "1..="),
        (&["--min-agree", "32"], "--min-agree", "K+1 = 31"),
        (
            &["--bags", "2", "--min-agree", "4"],
            "--min-agree",
            "K+1 = 3",
        ),
        (&["--cooper-size", "5000"], "--cooper-size", "0..=1000"),
        (
            &["--cooper-min-terms", "-1"],
            "--cooper-min-terms",
            "0..=100000",
        ),
        (&["--threshold", "0"], "--threshold", "(0, 1]"),
        (&["--lsh-bits", "9000"], "--lsh-bits", "0..=8192"),
        (
            &["--model", "m.json", "--lsh-bands", "4"],
            "--lsh-bands",
            "--lsh-bits",
        ),
        (
            &["--model", "m.json", "--lsh-bits", "64", "--lsh-bands", "65"],
            "--lsh-bands",
            "at most",
        ),
        (&["--method", "andd"], "--model", "spotcheck train"),
        (&["--method", "minhash2"], "--method", "spotsigs"),
    ];
    crate::assert_usage_errors(&["detect", "--db", db.to_str().unwrap()], cases);
    // Nothing was run.
    assert!(Store::open(&db).unwrap().runs().unwrap().is_empty());
}

#[test]
fn the_pair_view_explains_with_the_runs_own_parameters() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    let pages = collection(&mut store, 6);
    drop(store);
    common::spotcheck_ok(&[
        "detect",
        "--db",
        db.to_str().unwrap(),
        "--method",
        "spotsigs",
        "--tau",
        "0.6",
        "--chain",
        "2",
    ]);
    let store = Store::open(&db).unwrap();
    let run = store.resolve_run("spotsigs", None).unwrap();
    assert_eq!(
        (run.params["tau"].as_f64(), run.params["chain"].as_u64()),
        (Some(0.6), Some(2))
    );
    let pairs = store.run_pairs(run.id).unwrap();
    assert!(
        pairs
            .iter()
            .any(|p| (p.0, p.1) == (pages[0][0], pages[0][1])),
        "{pairs:?}"
    );

    let mut s = Session::new(store, "ann", false).unwrap();
    s.open().unwrap();
    s.open().unwrap();
    s.wait_background();
    let pair = s.pair.as_ref().unwrap();
    let (left, right) = (&pair.left, &pair.right);
    let spans = |hs: &[spotcheck::review::Highlight]| -> Vec<(usize, usize)> {
        hs.iter()
            .filter(|h| h.kind == HighlightKind::SpotSig)
            .map(|h| (h.start, h.end))
            .collect()
    };
    // The run's explanation: chain 2, as stored with the run.
    let runs = vec![("spotsigs".to_string(), run.params.clone(), None)];
    let (want_l, want_r) = DetectorEvidence::for_runs(runs).highlights(&left.text, &right.text);
    assert_eq!(left.highlights, want_l);
    assert_eq!(right.highlights, want_r);
    // … which is not the defaults' (chain 3) …
    let (default_l, _) = DetectorEvidence::default().highlights(&left.text, &right.text);
    assert_ne!(spans(&left.highlights), spans(&default_l));
    // … and covers exactly the words of the shared chain-2 signatures.
    let chain2 = SpotSigParams {
        chain: 2,
        ..SpotSigParams::default()
    };
    let shared = shared_signatures(&left.text, &right.text, &chain2);
    let words: Vec<(usize, usize)> = shared.iter().flat_map(|g| g.spans_a.clone()).collect();
    for (start, end) in &words {
        assert!(
            spans(&left.highlights)
                .iter()
                .any(|&(a, b)| a <= *start && *end <= b),
            "signature word {start}..{end} not highlighted"
        );
    }
    for (a, b) in spans(&left.highlights) {
        assert!(
            words.iter().any(|&(s, e)| s >= a && e <= b),
            "highlight {a}..{b} holds no signature word"
        );
    }
}
