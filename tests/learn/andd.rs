//! ANDD end to end on a small synthetic collection: train through the library on labeled
//! pairs of some topics, detect with the model from the command line, and check the stored
//! run, its evidence in the review session, and the refusals.

use std::process::Command;

use spotcheck::cmd::train::{load_model, save_model, train_on_pairs};
use spotcheck::detect::andd::{Andd, AnddSettings};
use spotcheck::detect::run_with;
use spotcheck::learn::andd::{prior, TrainOptions};
use spotcheck::review::{HighlightKind, Session};
use spotcheck::store::{Store, TextKind};

use crate::common;

/// A manual of `topics` pages in two releases: every page has the same navigation and
/// footer; a page's body is its own words, and the second release changes two of them.
/// Words are letters only (`tmwordch`, not `t12word5`): made-up words with digits read as code
/// identifiers, and the queue leaves out a single-detector pair whose pages each name
/// identifiers the other lacks (template siblings, `model::siblings`).
/// A number as lowercase letters (0 → "a", 12 → "m", 27 → "bb").
fn letters(n: usize) -> String {
    let c = |k: usize| (b'a' + (k % 26) as u8) as char;
    if n < 26 {
        c(n).to_string()
    } else {
        format!("{}{}", c(n / 26), c(n))
    }
}

fn collection(store: &mut Store, topics: usize) -> Vec<[i64; 2]> {
    let mut ids = Vec::new();
    for t in 0..topics {
        let body: Vec<String> = (0..40)
            .map(|w| format!("t{}word{}", letters(t), letters((w * 7 + t) % 40)))
            .collect();
        let mut pair = [0i64; 2];
        for (r, slot) in pair.iter_mut().enumerate() {
            let mut words = body.clone();
            if r == 1 {
                words[5] = format!("changed{}a", letters(t));
                words[17] = format!("changed{}b", letters(t));
            }
            let text = format!(
                "Home Contents Search Previous Next The Manual. {} Copyright the authors. \
                 Built with the documentation generator.",
                words.join(" ")
            );
            *slot = store
                .insert_test_document(
                    &format!("manual/1.{r}/page{t}.html"),
                    &format!("Page {t} — The Manual"),
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
fn train_detect_and_review_show_the_models_evidence() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    let pages = collection(&mut store, 16);
    // Labels on the first 8 topics: each page's two releases are the same, neighbours not.
    let mut pairs = Vec::new();
    for t in 0..8 {
        pairs.push((pages[t][0], pages[t][1], true));
        pairs.push((pages[t][0], pages[t + 1][0], false));
        pairs.push((pages[t][1], pages[(t + 3) % 8][1], false));
    }
    let model = train_on_pairs(
        &store,
        &pairs,
        &TrainOptions::default(),
        TextKind::Main,
        |_, _| {},
    )
    .unwrap();
    assert!(model.training.mean_sim_positive > model.training.mean_sim_negative);
    // Topics 0..8 in both releases, and topic 8's first release as a negative.
    assert_eq!(model.training.documents, 17);
    let path = db.with_file_name("model.json");
    save_model(&model, &path).unwrap();
    assert_eq!(load_model(&path).unwrap(), model);

    // Detect through the command line, with the threshold chosen on this collection.
    let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(["detect", "--db"])
        .arg(&db)
        .args(["--method", "andd", "--json", "--model"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["method"], "andd");
    let run = store.resolve_run("andd", None).unwrap();
    let summary = run.summary.clone().unwrap();
    assert_eq!(summary["threshold_from"], "collection", "{summary}");
    assert_eq!(run.params["threshold_from"], "collection");
    assert!(run.params["threshold"].is_null());
    let mut found = store.run_pairs(run.id).unwrap();
    found.sort_by_key(|p| (p.0, p.1));
    let want: Vec<(i64, i64)> = pages.iter().map(|p| (p[0], p[1])).collect();
    let got: Vec<(i64, i64)> = found.iter().map(|p| (p.0, p.1)).collect();
    // Every page pairs with its other release, held-out topics included, and nothing else.
    assert_eq!(got, want);
    assert_eq!(store.run_clusters(run.id).unwrap().len(), 16);
    let ev = store.pair_evidence(pages[12][0], pages[12][1]).unwrap();
    let detail = ev[0].detail.clone().unwrap();
    let topic12 = format!("top k-grams: t{}word", letters(12));
    assert!(detail.starts_with(&topic12), "{detail}");

    // The review shows the top k-grams highlighted in both documents.
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    s.open().unwrap();
    s.open().unwrap();
    s.wait_background();
    let pair = s.pair.as_ref().unwrap();
    for pane in [&pair.left, &pair.right] {
        let grams: Vec<&str> = pane
            .highlights
            .iter()
            .filter(|h| h.kind == HighlightKind::AnddGram)
            .map(|h| &pane.text[h.start..h.end])
            .collect();
        assert!(
            !grams.is_empty() && grams.iter().all(|g| g.contains("word")),
            "{grams:?}"
        );
    }
    // Blind review hides the model's evidence.
    let mut blind = Session::new(Store::open(&db).unwrap(), "bob", true).unwrap();
    blind.open().unwrap();
    blind.open().unwrap();
    blind.wait_background();
    assert!(blind.pair.as_ref().unwrap().left.highlights.is_empty());

    // A stricter threshold through the library keeps fewer pairs; a rerun is a new run.
    let strict = run_with::<Andd>(
        &mut store,
        &AnddSettings {
            model: path.clone(),
            threshold: Some(0.999_999),
            ..AnddSettings::default()
        },
    )
    .unwrap();
    assert!(strict.run > run.id);
    assert_eq!(strict.summary["pairs"], 0);
    assert_eq!(strict.summary["threshold_from"], "flag");
    // The model's own threshold when asked for.
    let own = run_with::<Andd>(
        &mut store,
        &AnddSettings {
            model: path.clone(),
            model_threshold: true,
            ..AnddSettings::default()
        },
    )
    .unwrap();
    assert_eq!(own.summary["threshold_from"], "model");
    assert_eq!(own.summary["threshold"].as_f64(), Some(model.threshold));
    // LSH candidates find the same pairs here (they are far above the threshold).
    let lsh = run_with::<Andd>(
        &mut store,
        &AnddSettings {
            model: path,
            lsh_bits: Some(384),
            ..AnddSettings::default()
        },
    )
    .unwrap();
    let mut lsh_pairs: Vec<(i64, i64)> = store
        .run_pairs(lsh.run)
        .unwrap()
        .iter()
        .map(|p| (p.0, p.1))
        .collect();
    lsh_pairs.sort_unstable();
    assert_eq!(lsh_pairs, want);
    let sigs = store.run_doc_sigs(lsh.run, &[]).unwrap();
    let one = sigs.values().next().unwrap()[0].clone();
    assert_eq!(one["lsh"].as_str().unwrap().len(), 96);
}

#[test]
fn a_model_that_would_empty_the_collections_pages_is_shrunk_toward_tfidf() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    let pages = collection(&mut store, 16);
    let mut pairs = Vec::new();
    for t in 0..8 {
        pairs.push((pages[t][0], pages[t][1], true));
        pairs.push((pages[t][0], pages[t + 1][0], false));
    }
    let mut model = train_on_pairs(
        &store,
        &pairs,
        &TrainOptions::default(),
        TextKind::Main,
        |_, _| {},
    )
    .unwrap();
    // TF·IDF with a bias of −0.6: a topic word (tf 1, in 2 of 32 pages: idf 0.8, weight
    // ln 2 · 0.8 ≈ 0.55) goes; a page keeps at most its two changed words.
    model.lambda = prior(1);
    model.lambda[0] = -0.6;
    let path = db.with_file_name("offset.json");
    save_model(&model, &path).unwrap();
    let run = |model_lambda: bool, store: &mut Store| {
        run_with::<Andd>(
            store,
            &AnddSettings {
                model: path.clone(),
                model_lambda,
                ..AnddSettings::default()
            },
        )
        .unwrap()
    };
    let shrunk = run(false, &mut store);
    let s = &shrunk.summary["lambda_shrink"];
    assert_eq!(s["t"].as_f64(), Some(0.5), "{s}");
    assert_eq!(s["emptied_trained"], 32);
    assert_eq!(s["emptied_tfidf"], 0);
    assert_eq!(s["emptied_used"], 0);
    assert_eq!(s["checked"], 32);
    let params = store.resolve_run("andd", None).unwrap().params;
    assert_eq!(params["lambda"][0].as_f64(), Some(-0.3));
    assert_eq!(params["trained_lambda"][0].as_f64(), Some(-0.6));
    let mut got: Vec<(i64, i64)> = store
        .run_pairs(shrunk.run)
        .unwrap()
        .iter()
        .map(|p| (p.0, p.1))
        .collect();
    got.sort_unstable();
    let want: Vec<(i64, i64)> = pages.iter().map(|p| (p[0], p[1])).collect();
    assert_eq!(got, want, "every page with its other release");
    // As trained, the offset leaves no page a shared k-gram: nothing is found.
    let trained = run(true, &mut store);
    assert!(trained.summary["lambda_shrink"].is_null());
    assert_eq!(trained.summary["pairs"], 0);
}

#[test]
fn detect_andd_needs_a_readable_model() {
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    collection(&mut store, 2);
    drop(store);
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
            .args(["detect", "--db"])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, err) = run(&["--method", "andd"]);
    assert!(
        !ok && err.contains("needs a model") && err.contains("spotcheck train"),
        "{err}"
    );
    let bad = db.with_file_name("bad.json");
    std::fs::write(&bad, "{\"format\": \"something else\"}").unwrap();
    let (ok, err) = run(&["--method", "andd", "--model", bad.to_str().unwrap()]);
    assert!(
        !ok && err.contains("bad.json") && err.contains("not a spotcheck ANDD model"),
        "{err}"
    );
    let (ok, err) = run(&["--method", "andd", "--model", "/nonexistent/m.json"]);
    assert!(!ok && err.contains("/nonexistent/m.json"), "{err}");
    // `all` without a model runs the three other detectors and no ANDD.
    let (ok, err) = run(&["--method", "all"]);
    assert!(ok, "{err}");
    let store = Store::open(&db).unwrap();
    let methods: Vec<String> = store
        .runs()
        .unwrap()
        .into_iter()
        .map(|r| r.method)
        .collect();
    assert_eq!(methods, vec!["spotsigs", "imatch", "cooper"]);
}

#[test]
fn train_from_oracle_labels_is_reproducible_and_refuses_too_few_labels() {
    use spotcheck::review::oracle::{Oracle, OracleOptions};
    let (_dir, db) = common::temp_db();
    let mut store = Store::open(&db).unwrap();
    let pages = collection(&mut store, 12);
    let train = |out: &std::path::Path, extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
            .args(["train", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let m1 = db.with_file_name("m1.json");
    let (ok, _, err) = train(&m1, &[]);
    assert!(
        !ok && err.contains("too few labels") && err.contains("0 near-duplicate"),
        "{err}"
    );
    assert!(!m1.exists());

    // A scripted coder confirms the two releases of topics 0..2 only: 3 positives.
    let gold: Vec<(String, String)> = (0..12)
        .flat_map(|t| {
            (0..2).map(move |r| (format!("manual/1.{r}/page{t}.html"), format!("page{t}")))
        })
        .collect();
    let mut oracle = Oracle::new(&store, &gold, "oracle").unwrap();
    let sets: Vec<Vec<i64>> = pages[..3].iter().map(|p| p.to_vec()).collect();
    oracle
        .label_sets(&mut store, sets, &OracleOptions::default())
        .unwrap();
    let (ok, _, err) = train(&m1, &[]);
    assert!(!ok && err.contains("3 near-duplicate pair(s)"), "{err}");

    // Topics 0..8 confirmed, and look-alike pairs rejected: enough of both classes.
    let sets: Vec<Vec<i64>> = pages[3..8].iter().map(|p| p.to_vec()).collect();
    oracle
        .label_sets(&mut store, sets, &OracleOptions::default())
        .unwrap();
    let looks: Vec<(i64, i64)> = (0..6).map(|t| (pages[t][0], pages[t + 1][1])).collect();
    oracle
        .label_pairs(&mut store, &looks, &OracleOptions::default())
        .unwrap();
    let (ok, out, err) = train(&m1, &["--seed", "7"]);
    assert!(ok, "{err}");
    assert!(out.contains("wrote") && out.contains("threshold"), "{out}");
    assert!(
        err.contains("iteration") && err.contains("objective"),
        "{err}"
    );
    assert!(
        err.contains("8 near-duplicate") && err.contains("from oracle"),
        "{err}"
    );
    let model = load_model(&m1).unwrap();
    assert_eq!(model.training.positive_pairs, 8);
    assert_eq!(model.training.coders, vec!["oracle"]);
    assert!(model.training.loss_final <= model.training.loss_initial);
    // Same labels, same seed: the same file, byte for byte.
    let m2 = db.with_file_name("m2.json");
    assert!(train(&m2, &["--seed", "7"]).0);
    assert_eq!(std::fs::read(&m1).unwrap(), std::fs::read(&m2).unwrap());
    // k = 3 with the extended Jaccard trains too and records its settings.
    let m3 = db.with_file_name("m3.json");
    let (ok, _, err) = train(&m3, &["--k", "3", "--similarity", "jaccard", "--json"]);
    assert!(ok, "{err}");
    let m = load_model(&m3).unwrap();
    assert_eq!((m.k, m.features.len()), (3, 11));
    assert_eq!(m.similarity, spotcheck::sig::andd::Similarity::Jaccard);
    let (ok, _, err) = train(&m3, &["--k", "2"]);
    assert!(!ok && err.contains("k must be 1 or 3"), "{err}");
    // --l2-cv chooses α from its grid, says so, and records it in the model.
    let m4 = db.with_file_name("m4.json");
    let (ok, _, err) = train(&m4, &["--seed", "7", "--l2-cv"]);
    assert!(ok, "{err}");
    assert!(err.contains("by 3-fold cross-validation"), "{err}");
    let m = load_model(&m4).unwrap();
    assert!(
        spotcheck::learn::cv::DEFAULT_L2_GRID.contains(&m.l2),
        "{}",
        m.l2
    );
    let (ok, _, err) = train(&m4, &["--l2", "1", "--l2-cv"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    // The defaults (issue 20): content text, mined hard negatives and edited-copy
    // positives, each recorded in the model; α fixed; the labeled pairs counted apart.
    let m = load_model(&m1).unwrap();
    assert_eq!(m.text, "content");
    assert!(!m.training.l2_cv && m.l2 == 1.0);
    assert!(default_counts(&m), "{:?}", m.training);
    assert!(load_model(&m4).unwrap().training.l2_cv);
    // Each piece can be turned off; the labels alone give the session-3 training.
    let m5 = db.with_file_name("m5.json");
    let (ok, _, err) = train(
        &m5,
        &[
            "--seed",
            "7",
            "--hard-negatives",
            "0",
            "--edited-copies",
            "0",
        ],
    );
    assert!(ok, "{err}");
    let m = load_model(&m5).unwrap();
    assert_eq!(
        (
            m.training.mined_negatives,
            m.training.edited_positives,
            m.training.l2_cv,
            m.l2
        ),
        (0, 0, false, 1.0)
    );
    let (ok, _, err) = train(&m5, &["--edited-copies", "4"]);
    assert!(!ok && err.contains("--edited-copies"), "{err}");
    let (ok, _, err) = train(&m5, &["--text", "main"]);
    assert!(ok, "{err}");
    assert_eq!(load_model(&m5).unwrap().text, "main");
}

/// A default model made one edited copy of each labeled document (16 here) and mined at
/// most one negative per labeled positive (none here: pages of different topics share only
/// template words, whose TF·IDF is too low to pass the mining floor).
fn default_counts(m: &spotcheck::learn::andd::AnddModel) -> bool {
    m.training.edited_positives == m.training.documents
        && m.training.mined_negatives <= m.training.positive_pairs
}
