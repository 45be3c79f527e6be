//! `detect`'s parameters as declared in the method table: out-of-range and inconsistent
//! values are usage errors naming the flag.

use std::process::Command;

use spotcheck::store::Store;

mod common;

fn detect(db: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(["detect", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Two releases of `topics` pages: each page's sentences are its own words; the second
/// release changes a few of them.
fn collection(store: &mut Store, topics: usize) -> Vec<[i64; 2]> {
    let mut ids = Vec::new();
    for t in 0..topics {
        let mut pair = [0i64; 2];
        for (r, slot) in pair.iter_mut().enumerate() {
            let w = |i: usize| {
                if r == 1 && i % 9 == 4 {
                    format!("changed{t}x{i}")
                } else {
                    format!("t{t}word{i}")
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
        (&["--min-agree", "12"], "--min-agree", "K+1 = 11"),
        (
            &["--bags", "2", "--min-agree", "4"],
            "--min-agree",
            "K+1 = 3",
        ),
        (&["--cooper-size", "5000"], "--cooper-size", "0..=1000"),
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
    for (args, flag, range) in cases {
        let (code, err) = detect(&db, args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains(range), "{args:?}: {err}");
    }
    // Nothing was run.
    assert!(Store::open(&db).unwrap().runs().unwrap().is_empty());
}
