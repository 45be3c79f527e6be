//! MinHash LSH through the command line: `detect --method minhash` stores a run whose pairs
//! are exact Jaccard pairs, `pairs` and `sigs` show it, `--method all` does not run it, and
//! every out-of-range value is a usage error naming the flag.

use std::path::Path;

use spotcheck::detect::minhash::{intersection_union, jaccard, shingle_set, Shingle};
use spotcheck::review::{DetectorEvidence, EvidenceProvider, Highlight, HighlightKind};
use spotcheck::store::Store;

use crate::common;

use common::spotcheck_run as spotcheck;

/// `topics` pages in two releases (the second changes every ninth word) and one unrelated
/// page; returns the texts by document id.
fn collection(store: &mut Store, topics: usize) -> Vec<(i64, String)> {
    let mut docs = Vec::new();
    for t in 0..topics {
        for r in 0..2 {
            let text: Vec<String> = (0..90)
                .map(|i| {
                    if r == 1 && i % 9 == 4 {
                        format!("changed{t}x{i}")
                    } else {
                        format!("t{t}word{}", i % 40)
                    }
                })
                .collect();
            let text = text.join(" ");
            let id = store
                .insert_test_document(
                    &format!("site{t}/1.{r}/page.html"),
                    &format!("Page {t}"),
                    &text,
                    Some(&text),
                )
                .unwrap();
            docs.push((id, text));
        }
    }
    let other = "An unrelated page about something else entirely, with its own words.";
    let id = store
        .insert_test_document("other/page.html", "Other", other, Some(other))
        .unwrap();
    docs.push((id, other.to_string()));
    docs
}

fn db_str(db: &Path) -> &str {
    db.to_str().unwrap()
}

#[test]
fn detect_pairs_and_sigs_with_minhash() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    let docs = collection(&mut store, 4);
    drop(store);
    let db = db_str(&db);

    // `all` does not run MinHash.
    let (code, _, err) = spotcheck(&["detect", "--db", db, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let store = Store::open(Path::new(db)).unwrap();
    assert!(store.resolve_run("minhash", None).is_err());
    drop(store);

    let args = [
        "detect",
        "--db",
        db,
        "--method",
        "minhash",
        "--shingle-size",
        "2",
        "--minhash-threshold",
        "0.6",
        // 64 bands of 2 rows: a release pair (Jaccard 2/3) is a candidate with probability
        // 1 − (1 − (2/3)²)⁶⁴ > 1 − 10⁻¹⁶, so the test does not depend on LSH luck.
        "--minhash-bands",
        "64",
        "--json",
    ];
    let (code, out, err) = spotcheck(&args);
    assert_eq!(code, Some(0), "{err}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(report["method"], "minhash");

    let store = Store::open(Path::new(db)).unwrap();
    let run = store.resolve_run("minhash", None).unwrap();
    // Stored parameters: the given ones, the bands and their rows.
    assert_eq!(run.params["shingle_size"], 2);
    assert_eq!(run.params["threshold"], 0.6);
    assert_eq!(
        (&run.params["bands"], &run.params["rows"]),
        (&64.into(), &2.into())
    );
    let b = 64;

    // Every pair is exact: its score is the Jaccard of the two shingle sets, ≥ 0.6; and the
    // four release pairs are found.
    let pairs = store.run_pairs(run.id).unwrap();
    let text = |id: i64| &docs.iter().find(|d| d.0 == id).unwrap().1;
    for p in &pairs {
        let (sa, sb) = (
            shingle_set(text(p.0), Shingle::Word, 2),
            shingle_set(text(p.1), Shingle::Word, 2),
        );
        let j = jaccard(intersection_union(&sa, &sb));
        assert!((p.2 - j).abs() < 1e-12 && j >= 0.6, "{p:?}: {j}");
    }
    for t in 0..4 {
        let (a, b) = (docs[2 * t].0, docs[2 * t + 1].0);
        assert!(pairs.iter().any(|p| (p.0, p.1) == (a, b)), "{pairs:?}");
    }
    assert_eq!(pairs.len(), 4, "{pairs:?}");

    // The review explains a pair with the run's own shingles (2 words, not the default 5):
    // the shared passages are highlighted in both texts, and no changed word is.
    let (ta, tb) = (&docs[0].1, &docs[1].1);
    let evidence = |params: serde_json::Value| {
        DetectorEvidence::for_runs(vec![("minhash".into(), params, None)])
    };
    let (l, r) = evidence(run.params.clone()).highlights(ta, tb);
    for (hs, text) in [(&l, ta), (&r, tb)] {
        let shingles: Vec<&Highlight> = hs
            .iter()
            .filter(|h| h.kind == HighlightKind::SpotSig)
            .collect();
        assert!(!shingles.is_empty());
        assert!(
            shingles
                .iter()
                .all(|h| !text[h.start..h.end].contains("changed")),
            "{shingles:?}"
        );
    }
    // Every 9 consecutive words of the second release hold a changed word: under 9-word
    // shingles nothing of it is shared, under the run's 2-word shingles most of it is.
    let (_, r9) = evidence(serde_json::json!({"shingle_size": 9})).highlights(ta, tb);
    assert!(r9.is_empty(), "{r9:?}");
    drop(store);

    let (code, out, err) = spotcheck(&["pairs", "--db", db, "--method", "minhash"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.contains("shingles shared"), "{out}");

    let (code, out, err) = spotcheck(&["sigs", "--db", db, "--url", "site0/1.0/page.html"]);
    assert_eq!(code, Some(0), "{err}");
    let line: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let sig = &line["minhash"];
    // 90 words cycling through 40: 40 distinct bigrams.
    assert_eq!(sig["shingles"], 40, "{line}");
    let bands = sig["bands"].as_array().unwrap();
    assert_eq!(bands.len() as u64, b);
    assert!(bands.iter().all(|h| h.as_str().unwrap().len() == 16
        && h.as_str().unwrap().chars().all(|c| c.is_ascii_hexdigit())));
}

#[test]
fn out_of_range_minhash_values_are_usage_errors_naming_the_flag() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    collection(&mut store, 1);
    drop(store);
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["--minhash-threshold", "0"],
            "--minhash-threshold",
            "(0, 1]",
        ),
        (
            &["--minhash-threshold", "1.5"],
            "--minhash-threshold",
            "(0, 1]",
        ),
        (&["--minhash-perms", "0"], "--minhash-perms", "1..=4096"),
        (&["--minhash-perms", "5000"], "--minhash-perms", "1..=4096"),
        (&["--minhash-bands", "0"], "--minhash-bands", "1..=4096"),
        (
            &["--minhash-perms", "64", "--minhash-bands", "65"],
            "--minhash-bands",
            "at most",
        ),
        (&["--shingle-size", "0"], "--shingle-size", "1..=64"),
        (&["--shingle-size", "x"], "--shingle-size", "1..=64"),
        (&["--minhash-seed", "-1"], "--minhash-seed", "0 or more"),
    ];
    crate::assert_usage_errors(
        &["detect", "--db", db_str(&db), "--method", "minhash"],
        cases,
    );
    assert!(Store::open(&db).unwrap().runs().unwrap().is_empty());
}
