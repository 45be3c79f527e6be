//! Staged detection (`spotcheck stage count|stats|sign|match|import`) on a real corpus
//! split in shards gives exactly the pairs (with their scores) and the clusters of a
//! single-process `detect` with the same parameters, for SpotSigs, I-Match with bags and
//! Cooper; the imported run is what `pairs`, `clusters` and `eval` read.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::common;

fn pair_set(pairs: impl Iterator<Item = Value>) -> BTreeSet<(String, String, String)> {
    pairs
        .map(|p| {
            let (a, b) = (p["a"].as_str().unwrap(), p["b"].as_str().unwrap());
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            let score = format!("{:.9}", p["score"].as_f64().unwrap());
            (a.to_string(), b.to_string(), score)
        })
        .collect()
}

fn cluster_set(clusters: impl Iterator<Item = Value>) -> BTreeSet<Vec<String>> {
    clusters
        .map(|c| {
            let mut urls: Vec<String> = c["urls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_str().unwrap().to_string())
                .collect();
            urls.sort();
            urls
        })
        .collect()
}

fn lines(s: &str) -> impl Iterator<Item = Value> + '_ {
    s.lines().map(|l| serde_json::from_str(l).unwrap())
}

fn link_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            link_tree(&e.path(), &dest);
        } else {
            std::fs::hard_link(e.path(), &dest)
                .or_else(|_| std::fs::copy(e.path(), &dest).map(|_| ()))
                .unwrap();
        }
    }
}

#[test]
fn shards_through_the_stages_give_exactly_the_pairs_and_clusters_of_detect() {
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    // sqlite3-doc: three releases of 400 pages, one shard per release. The shards split the
    // package's site, so both paths read the visible text (the content text is made per
    // site, from the pages one database holds).
    let package = corpus.join("html/sqlite3-doc");
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole.db");
    let whole_s = whole.to_str().unwrap();
    let mut shard_dbs = Vec::new();
    for (k, release) in std::fs::read_dir(&package).unwrap().enumerate() {
        let release = release.unwrap();
        let dir = tmp.path().join(format!("shard{k}/sqlite3-doc"));
        let dest = dir.join(release.file_name());
        std::fs::create_dir_all(&dest).unwrap();
        link_tree(&release.path(), &dest);
        let db = tmp.path().join(format!("shard{k}.db"));
        let root = tmp.path().join(format!("shard{k}"));
        common::spotcheck_ok(&[
            "ingest",
            "--quiet",
            "--no-main",
            "--db",
            db.to_str().unwrap(),
            root.to_str().unwrap(),
        ]);
        common::spotcheck_ok(&[
            "ingest",
            "--quiet",
            "--no-main",
            "--db",
            whole_s,
            root.to_str().unwrap(),
        ]);
        shard_dbs.push(db);
    }
    assert_eq!(shard_dbs.len(), 3);
    for method in ["spotsigs", "imatch", "cooper"] {
        // Cooper's passage rule and SpotSigs' fallback for unsigned pages read the texts,
        // which the stages do not carry: they refuse them, and both sides run without them.
        let (params, extra): (&str, &[&str]) = match method {
            "cooper" => (
                r#"{"text":"Visible","passage_min_terms":0}"#,
                &["--cooper-passage", "0"],
            ),
            "spotsigs" => (
                r#"{"text":"Visible","fallback_tau":0}"#,
                &["--fallback-tau", "0"],
            ),
            _ => (r#"{"text":"Visible"}"#, &[]),
        };
        let mut detect = vec![
            "detect", "--db", whole_s, "--method", method, "--text", "visible",
        ];
        detect.extend_from_slice(extra);
        common::spotcheck_ok(&detect);
        let (detect_pairs, _) =
            common::spotcheck_ok(&["pairs", "--db", whole_s, "--method", method]);
        let (detect_clusters, _) =
            common::spotcheck_ok(&["clusters", "--db", whole_s, "--method", method]);
        let file = |name: String| tmp.path().join(name).to_str().unwrap().to_string();
        let mut counts = Vec::new();
        for (k, db) in shard_dbs.iter().enumerate() {
            let out = file(format!("{k}.{method}.counts.parquet"));
            common::spotcheck_ok(&[
                "stage",
                "count",
                "--db",
                db.to_str().unwrap(),
                "--method",
                method,
                "--params",
                params,
                "--out",
                &out,
            ]);
            counts.push(out);
        }
        let stats = file(format!("{method}.stats.parquet"));
        let mut args = vec!["stage", "stats", "--out", &stats];
        args.extend(counts.iter().map(String::as_str));
        common::spotcheck_ok(&args);
        let mut signed = Vec::new();
        for (k, db) in shard_dbs.iter().enumerate() {
            let out = file(format!("{k}.{method}.signed.parquet"));
            common::spotcheck_ok(&[
                "stage",
                "sign",
                "--db",
                db.to_str().unwrap(),
                "--method",
                method,
                "--params",
                params,
                "--stats",
                &stats,
                "--out",
                &out,
            ]);
            signed.push(out);
        }
        let run = file(format!("{method}.run.parquet"));
        let mut args = vec![
            "stage", "match", "--method", method, "--params", params, "--stats", &stats, "--out",
            &run,
        ];
        args.extend(signed.iter().map(String::as_str));
        common::spotcheck_ok(&args);
        // The run file is Parquet: pairs rows, then cluster-member rows.
        let staged = spotcheck::detect::staged::read_run(Path::new(&run)).unwrap();
        let staged_pairs = staged
            .pairs
            .iter()
            .map(|p| serde_json::json!({"a": p.a, "b": p.b, "score": p.score}));
        let staged_clusters = staged
            .clusters
            .as_ref()
            .unwrap()
            .iter()
            .map(|c| serde_json::json!({ "urls": c.urls }));
        let want_pairs = pair_set(lines(&detect_pairs));
        assert!(
            want_pairs.len() > 100,
            "{method}: {} pairs",
            want_pairs.len()
        );
        assert_eq!(pair_set(staged_pairs), want_pairs, "{method} pairs");
        let want_clusters = cluster_set(lines(&detect_clusters));
        assert_eq!(
            cluster_set(staged_clusters),
            want_clusters,
            "{method} clusters"
        );

        // Imported, it is the method's latest run: what pairs, clusters and eval read.
        common::spotcheck_ok(&["stage", "import", "--db", whole_s, "--run", &run]);
        let (imported_pairs, _) =
            common::spotcheck_ok(&["pairs", "--db", whole_s, "--method", method]);
        let (imported_clusters, _) =
            common::spotcheck_ok(&["clusters", "--db", whole_s, "--method", method]);
        assert_eq!(
            pair_set(lines(&imported_pairs)),
            want_pairs,
            "{method} imported pairs"
        );
        assert_eq!(
            cluster_set(lines(&imported_clusters)),
            want_clusters,
            "{method} imported clusters"
        );
    }
    let (eval, _) = common::spotcheck_ok(&[
        "eval",
        "--db",
        whole_s,
        "--gold",
        corpus.join("gold.tsv").to_str().unwrap(),
        "--json",
    ]);
    assert!(eval.lines().count() >= 3, "{eval}");
}

/// The match stage on local-mode Spark (`examples/spark/match.py`, run by
/// `examples/spark/test_local.sh`) gives exactly `detect`'s pairs (with their scores) and
/// clusters for SpotSigs, I-Match and Cooper on ci-dd and news-v2 pages in 4 shards. CI runs
/// the script itself, once, from `.ci/run` ("Spark check", with the release binary); here
/// it is ignored so that the two `cargo test` passes of CI do not run it again (it installs
/// pyspark into `~/.cache/spotcheck/spark-venv` on first use and starts a JVM). Run it with
/// `cargo test --test detect -- --ignored spark`. The 20,000-page run is
/// `examples/spark/bench_20k.sh`.
#[test]
#[ignore]
fn spark_match_gives_exactly_the_pairs_and_clusters_of_detect() {
    if common::debian_docs_small().is_none() {
        return;
    }
    let has_java = std::process::Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_java {
        common::skip("spark match: no java on PATH");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/spark/test_local.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_spotcheck"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.matches("EQUAL").count(), 3, "{stdout}");
}
