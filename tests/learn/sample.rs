//! `spotcheck sample`, `queue --sample` and `eval --sample`: a deterministic stored sample,
//! blind by default, labeled through the store and estimated with intervals; and the
//! interval-coverage study on a small real corpus with gold.

use std::path::Path;

use serde_json::Value;
use spotcheck::cmd::eval::read_gold_file;
use spotcheck::model::Decision;
use spotcheck::review::coverage::{coverage_study, Allocation};
use spotcheck::store::Store;

use crate::common;

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// 40 documents in 10 gold groups of 4 ("g0".."g9"), texts alike within a group; one run
/// that proposes the pairs within the first 6 groups and 5 wrong pairs.
fn fixture(db: &Path) -> Vec<(i64, usize)> {
    let mut s = Store::open(db).unwrap();
    let mut docs = Vec::new();
    for i in 0..40usize {
        let g = i % 10;
        let text = format!(
            "story {g} about the river and the town council meeting held on day {g} {}",
            "with many words repeated so shingles overlap ".repeat(3)
        ) + &format!(" copy {i}");
        let id = s
            .insert_test_document(&format!("u/{i}"), "t", &text, None)
            .unwrap();
        docs.push((id, g));
    }
    let run = s.create_run("spotsigs", &serde_json::json!({})).unwrap();
    let mut pairs = Vec::new();
    for (x, &(a, ga)) in docs.iter().enumerate() {
        for &(b, gb) in &docs[x + 1..] {
            if ga == gb && ga < 6 {
                pairs.push((a, b, 0.95, None));
            }
        }
    }
    for k in 0..5 {
        pairs.push((docs[k].0, docs[k + 1].0, 0.75, None));
    }
    s.write_run_pairs(run, pairs).unwrap();
    s.finish_run(run, &serde_json::json!({})).unwrap();
    docs
}

#[test]
fn a_sample_is_deterministic_blind_and_its_labels_give_estimates_with_intervals() {
    let (_dir, db) = common::temp_db();
    let docs = fixture(&db);
    let copy = db.with_file_name("copy.db");
    std::fs::copy(&db, &copy).unwrap();
    let d = db.to_str().unwrap();
    let c = copy.to_str().unwrap();
    let (out, _) =
        common::spotcheck_ok(&["sample", "--db", d, "--size", "60", "--seed", "9", "--json"]);
    let summary = &json_lines(&out)[0];
    assert_eq!(summary["pairs"], 60);
    let strata = summary["strata"].as_array().unwrap();
    let population: u64 = strata
        .iter()
        .map(|s| s["population"].as_u64().unwrap())
        .sum();
    assert_eq!(population, 40 * 39 / 2, "the strata partition every pair");
    common::spotcheck_ok(&["sample", "--db", c, "--size", "60", "--seed", "9"]);
    let list =
        |db: &str| common::spotcheck_ok(&["queue", "--db", db, "--sample", "--coder", "x"]).0;
    let first = list(d);
    assert_eq!(first, list(c), "same database and seed: same sample");
    let rows = json_lines(&first);
    assert_eq!(rows.len(), 60);
    assert!(
        rows.iter()
            .all(|r| r.get("score").is_none() && r.get("stratum").is_none()),
        "blind by default: {}",
        rows[0]
    );
    // Label every sampled pair from the gold through the store, as the workbench would.
    let group_of = |url: &str| -> usize {
        let i: usize = url.trim_start_matches("u/").parse().unwrap();
        docs[i].1
    };
    let mut store = Store::open(&db).unwrap();
    let id_of = |url: &str| docs[url.trim_start_matches("u/").parse::<usize>().unwrap()].0;
    for r in &rows {
        let (a, b) = (r["a"].as_str().unwrap(), r["b"].as_str().unwrap());
        let decision = if group_of(a) == group_of(b) {
            Decision::Confirm
        } else {
            Decision::Reject
        };
        store.decide("x", &decision, &[id_of(a), id_of(b)]).unwrap();
    }
    drop(store);
    assert_eq!(
        list(d),
        "",
        "a labeled pair leaves the coder's sample queue"
    );
    let (out, _) = common::spotcheck_ok(&["eval", "--db", d, "--sample", "--json"]);
    let e = &json_lines(&out)[0];
    assert_eq!(e["labeled"], 60);
    let run = &e["runs"][0];
    // True values: 6 groups × 6 pairs = 36 true pairs proposed, 5 wrong ones (k, k+1 are in
    // different groups); 60 true pairs in all. P = 36/41, R = 36/60.
    assert_eq!(run["predicted"], 41);
    for (what, truth) in [("precision", 36.0 / 41.0), ("recall", 0.6)] {
        let i = &run[what];
        let (est, low, high) = (
            i["estimate"].as_f64().unwrap(),
            i["low"].as_f64().unwrap(),
            i["high"].as_f64().unwrap(),
        );
        assert!(low <= est && est <= high, "{what}: {i}");
        assert!(low <= truth && truth <= high, "{what} {truth} outside {i}");
    }
    let (text, _) = common::spotcheck_ok(&["eval", "--db", d, "--sample"]);
    assert!(text.contains("Bayesian-bootstrap"), "{text}");
    assert!(text.contains("random (no candidate)"), "{text}");
}

/// Labels every pair the coder's sample queue lists, from the fixture's groups.
fn label_queue(db: &Path, docs: &[(i64, usize)], coder: &str) -> usize {
    let d = db.to_str().unwrap();
    let (out, _) = common::spotcheck_ok(&["queue", "--db", d, "--sample", "--coder", coder]);
    let rows = json_lines(&out);
    let doc = |url: &str| docs[url.trim_start_matches("u/").parse::<usize>().unwrap()];
    let mut store = Store::open(db).unwrap();
    for r in &rows {
        let (a, b) = (doc(r["a"].as_str().unwrap()), doc(r["b"].as_str().unwrap()));
        let decision = if a.1 == b.1 {
            Decision::Confirm
        } else {
            Decision::Reject
        };
        store.decide(coder, &decision, &[a.0, b.0]).unwrap();
    }
    rows.len()
}

#[test]
fn a_pilot_sample_is_kept_and_the_rest_allocated_by_neyman() {
    let (_dir, db) = common::temp_db();
    let docs = fixture(&db);
    let d = db.to_str().unwrap();
    let (out, _) = common::spotcheck_ok(&["sample", "--db", d, "--width", "0.4", "--json"]);
    let pilot = &json_lines(&out)[0];
    let pilot_id = pilot["sample"].as_i64().unwrap();
    let pilot_pairs = pilot["pairs"].as_u64().unwrap();
    assert!(pilot_pairs > 0);
    let id = pilot_id.to_string();
    // An unlabeled pilot, or no such sample: refused, naming the sample.
    let (code, _, err) = common::spotcheck_run(&["sample", "--db", d, "--pilot", &id]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("none of its pairs is labeled"), "{err}");
    let (code, _, err) = common::spotcheck_run(&["sample", "--db", d, "--pilot", "999"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("999"), "{err}");
    assert_eq!(label_queue(&db, &docs, "x"), pilot_pairs as usize);
    let total = pilot_pairs + 40;
    let (out, _) = common::spotcheck_ok(&[
        "sample",
        "--db",
        d,
        "--pilot",
        &id,
        "--size",
        &total.to_string(),
        "--json",
    ]);
    let s = &json_lines(&out)[0];
    assert_eq!(s["params"]["allocation"], "neyman", "{s}");
    assert_eq!(s["params"]["pilot"], pilot_id);
    assert_eq!(s["pairs"].as_u64(), Some(total), "{s}");
    let drawn: u64 = s["strata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["drawn"].as_u64().unwrap())
        .sum();
    assert_eq!(drawn, total);
    // The pilot's labels carry over: only the new pairs are queued.
    assert_eq!(label_queue(&db, &docs, "x"), 40);
    let (out, _) = common::spotcheck_ok(&["eval", "--db", d, "--sample", "--json"]);
    let e = &json_lines(&out)[0];
    assert_eq!(e["labeled"].as_u64(), Some(total), "{e}");
    let recall = &e["runs"][0]["recall"];
    let (low, high) = (
        recall["low"].as_f64().unwrap(),
        recall["high"].as_f64().unwrap(),
    );
    assert!(low <= 0.6 && 0.6 <= high, "{recall}");
}

#[test]
fn sample_and_eval_refuse_bad_flags_with_usage_errors() {
    let (_dir, db) = common::temp_db();
    fixture(&db);
    let d = db.to_str().unwrap();
    let (code, _, err) = common::spotcheck_run(&["sample", "--db", d, "--width", "0"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = common::spotcheck_run(&["eval", "--db", d]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = common::spotcheck_run(&["eval", "--db", d, "--sample"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("no sample in"), "{err}");
}

#[test]
fn sampled_intervals_cover_the_true_precision_and_recall_on_a_real_family() {
    // The small version of the coverage study (examples/coverage_study.rs): one doc family
    // of the debian-docs corpus (linux-doc-6.1, two releases, 800 pages), 3 seeds.
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    let family = corpus.join("html/linux-doc-6.1");
    let (_dir, db) = common::temp_db();
    let d = db.to_str().unwrap();
    common::spotcheck_ok(&["ingest", "--db", d, "--quiet", family.to_str().unwrap()]);
    common::spotcheck_ok(&["detect", "--db", d]);
    // The folder named on the command line is the URLs' root: strip the family prefix.
    let rows: Vec<(String, String)> = read_gold_file(&corpus.join("gold.tsv"))
        .unwrap()
        .into_iter()
        .filter_map(|(u, c)| Some((u.strip_prefix("linux-doc-6.1/")?.to_string(), c)))
        .collect();
    let mut store = Store::open(&db).unwrap();
    let checks =
        coverage_study(&mut store, &rows, &[1, 2, 3], None, 0.2, Allocation::Width).unwrap();
    assert_eq!(checks.len(), 3);
    let runs = checks[0].runs.len();
    assert!(runs >= 3, "the default detectors ran: {runs}");
    let mut covered = 0;
    let mut total = 0;
    for c in &checks {
        assert!(
            c.labeled > 100,
            "the oracle labeled the sample: {}",
            c.labeled
        );
        assert!(c.true_pairs_estimate.contains(c.true_pairs as f64) || c.true_pairs > 0);
        for r in &c.runs {
            covered += usize::from(r.precision_covered) + usize::from(r.recall_covered);
            total += 2;
        }
    }
    // Nominal 95%; over these fixed seeds at least 80% of the intervals cover the truth.
    assert!(
        covered * 5 >= total * 4,
        "{covered} of {total} intervals cover the truth: {checks:#?}"
    );
}
