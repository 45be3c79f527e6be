//! Labels out, end to end on a small review database: decisions made through the review
//! session (the workbench's own calls, driven by keys) → `spotcheck export` (andd-jsonl,
//! gold-tsv, gold-dirs) → `spotcheck eval --gold FILE|labels`, through the binary.

use crate::support as tui_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use spotcheck::store::{ClusterRow, LabelStatus, QueueFilter, QueueSort, Store};
use tui_support::{fixture, press, Fixture};

fn spotcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> Output {
    let out = spotcheck(args);
    assert!(
        out.status.success(),
        "spotcheck {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The queue position of the cluster with exactly these members.
fn row_of(store: &mut Store, coder: &str, members: &[i64]) -> usize {
    store.refresh_review_queue().unwrap();
    store
        .queue_page(coder, &QueueFilter::default(), QueueSort::SizeDesc, 0, 100)
        .unwrap()
        .iter()
        .position(|r| r.members == members)
        .unwrap()
}

/// Moves the queue cursor to `row` and presses `keys` there.
fn at_row(f: &Fixture, coder: &str, row: usize, keys: &[&str]) {
    let mut s = f.session(coder);
    let mut seq = vec!["g"];
    seq.extend(std::iter::repeat_n("j", row));
    seq.extend_from_slice(keys);
    press(&mut s, &seq);
}

/// ann: story {0,1,2} confirmed and tagged, help pages {3,4} rejected, {2,5} rejected.
/// bob: splits the story, the Valley Gazette version (2) out.
fn labeled_fixture() -> Fixture {
    let f = fixture();
    let d = f.docs.clone();
    let mut store = f.store();
    let story = row_of(&mut store, "ann", &d[..3]);
    let help = row_of(&mut store, "ann", &[d[3], d[4]]);
    let odd = row_of(&mut store, "ann", &[d[5], d[6]]);
    at_row(&f, "ann", story, &["y"]);
    at_row(&f, "ann", help, &["x"]);
    at_row(&f, "ann", odd, &["x"]);
    {
        let mut s = f.session("ann");
        let mut seq = vec!["g"];
        seq.extend(std::iter::repeat_n("j", story));
        seq.extend(["t", "w", "i", "r", "e", "Enter"]);
        press(&mut s, &seq);
    }
    // bob opens the story, moves to its third member and splits it out.
    at_row(&f, "bob", story, &["Enter", "j", "j", "s"]);
    let store = f.store();
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    assert_eq!(store.label("ann", &d[..3]).unwrap().tags, vec!["wire"]);
    assert_eq!(
        store.label("ann", &[d[3], d[4]]).unwrap().status,
        LabelStatus::Rejected
    );
    assert_eq!(
        store.label("ann", &[d[5], d[6]]).unwrap().status,
        LabelStatus::Rejected
    );
    assert_eq!(
        store.label("bob", &d[..3]).unwrap().status,
        LabelStatus::Split
    );
    assert_eq!(
        store.pair_label("bob", d[0], d[2]).unwrap().as_deref(),
        Some("different")
    );
    f
}

/// Adds a finished run whose clusters are exactly `clusters`, with all pairs inside them.
fn add_run(db: &Path, clusters: &[Vec<i64>]) -> i64 {
    let mut s = Store::open(db).unwrap();
    let run = s
        .create_run(
            "cooper",
            &serde_json::json!({"what": "the labeled clusters"}),
        )
        .unwrap();
    let mut pairs = Vec::new();
    for c in clusters {
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                pairs.push((a, b, 1.0, None));
            }
        }
    }
    s.write_run_pairs(run, pairs).unwrap();
    let rows: Vec<ClusterRow> = clusters
        .iter()
        .map(|m| ClusterRow {
            members: m.clone(),
            min_score: Some(1.0),
            max_score: Some(1.0),
            weakest_bridge: None,
        })
        .collect();
    s.write_run_clusters(run, &rows).unwrap();
    s.finish_run(run, &serde_json::json!({})).unwrap();
    run
}

fn url_of(store: &Store, id: i64) -> String {
    store.review_document(id).unwrap().unwrap().url
}

#[test]
fn gold_tsv_round_trip_scores_the_labeled_clusters_perfect() {
    let f = labeled_fixture();
    let d = f.docs.clone();
    let db = f.db.to_str().unwrap();
    let gold = f.dir.path().join("ann.tsv");
    let g = gold.to_str().unwrap();
    let out = ok(&[
        "export", "--db", db, "--format", "gold-tsv", "--coder", "ann", "--out", g,
    ]);
    assert!(stderr(&out).contains("5 clusters"), "{}", stderr(&out));
    // The file: the story as one cluster, the rejected pages alone.
    let store = f.store();
    let text = std::fs::read_to_string(&gold).unwrap();
    let rows: BTreeMap<String, String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (u, c) = l.split_once('\t').unwrap();
            (u.to_string(), c.to_string())
        })
        .collect();
    assert_eq!(rows.len(), 7);
    let cluster = |i: usize| rows[&url_of(&store, d[i])].clone();
    assert_eq!(cluster(0), cluster(1));
    assert_eq!(cluster(0), cluster(2));
    let alone: BTreeSet<String> = [3, 4, 5, 6].iter().map(|&i| cluster(i)).collect();
    assert_eq!(alone.len(), 4);
    assert!(!alone.contains(&cluster(0)));
    // A run made of the labeled clusters scores perfect against the exported file...
    let run = add_run(&f.db, &[d[..3].to_vec()]);
    let by_file = json_lines(&stdout(&ok(&["eval", "--db", db, "--gold", g, "--json"])));
    let e = by_file.iter().find(|e| e["run"] == run).unwrap();
    for part in ["pairs", "clusters", "max_f1"] {
        assert_eq!(e[part]["precision"], 1.0, "{part}: {e}");
        assert_eq!(e[part]["recall"], 1.0, "{part}: {e}");
        assert_eq!(e[part]["f1"], 1.0, "{part}: {e}");
    }
    assert_eq!(e["pairs"]["gold"], 3);
    // ... and every run scores the same against the labels themselves.
    let by_labels = json_lines(&stdout(&ok(&[
        "eval", "--db", db, "--gold", "labels", "--coder", "ann", "--json",
    ])));
    assert_eq!(by_file, by_labels);
    // The spotsigs run's help-page cluster is a false positive there.
    let spot = by_file.iter().find(|e| e["method"] == "spotsigs").unwrap();
    assert_eq!(spot["clusters"]["predicted"], 4);
    assert_eq!(spot["clusters"]["true_positives"], 3);
}

#[test]
fn coders_disagreeing_are_reported_and_left_out() {
    let f = labeled_fixture();
    let d = f.docs.clone();
    let db = f.db.to_str().unwrap();
    let both = f.dir.path().join("both.tsv");
    let conflicts = f.dir.path().join("conflicts.tsv");
    let out = ok(&[
        "export",
        "--db",
        db,
        "--format",
        "gold-tsv",
        "--out",
        both.to_str().unwrap(),
        "--conflicts",
        conflicts.to_str().unwrap(),
    ]);
    assert!(
        stderr(&out).contains("2 pairs the coders disagree on"),
        "{}",
        stderr(&out)
    );
    let store = f.store();
    let c = std::fs::read_to_string(&conflicts).unwrap();
    let lines: Vec<&str> = c.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 2, "{c}");
    // (0,2) and (1,2): ann said same, bob different.
    let expect = format!(
        "{}\t{}\tann\tbob",
        url_of(&store, d[0]),
        url_of(&store, d[2])
    );
    assert!(lines.contains(&expect.as_str()), "{c}");
    // Without --conflicts they are listed on stderr.
    let out = ok(&["eval", "--db", db, "--gold", "labels"]);
    let text = stdout(&out);
    assert!(text.contains("coders ann, bob"), "{text}");
    assert!(
        text.contains("2 pairs the coders disagree on left out"),
        "{text}"
    );
    // The merged gold: {0,1} together (both coders), 2 alone.
    let g = std::fs::read_to_string(&both).unwrap();
    let cluster = |i: usize| {
        let u = url_of(&store, d[i]);
        g.lines()
            .find_map(|l| l.strip_prefix(&format!("{u}\t")).map(str::to_string))
    };
    // (2 is in no other labeled set: with its disagreed pairs left out it is not listed.)
    assert!(cluster(0).is_some());
    assert_eq!(cluster(0), cluster(1));
    assert_ne!(cluster(0), cluster(2));
}

#[test]
fn andd_jsonl_lines_follow_the_rules_and_the_summary_counts_them() {
    let f = labeled_fixture();
    let d = f.docs.clone();
    let db = f.db.to_str().unwrap();
    let path = f.dir.path().join("pairs.jsonl");
    let p = path.to_str().unwrap();
    let out = ok(&[
        "export",
        "--db",
        db,
        "--format",
        "andd-jsonl",
        "--coder",
        "ann",
        "--out",
        p,
        "--test-fraction",
        "0",
        "--json",
    ]);
    let summary: Value = serde_json::from_str(stderr(&out).trim()).unwrap();
    let lines = json_lines(&std::fs::read_to_string(&path).unwrap());
    let c = &summary["counts"];
    assert_eq!(c["pairs"], lines.len());
    // ann: 3 positives from the confirmed story, 2 hard negatives judged as pairs, and one
    // sampled negative to reach one negative per positive.
    assert_eq!(c["positives"], 3);
    assert_eq!(c["hard_negatives"], 2);
    assert_eq!(c["sampled"], 1);
    assert_eq!(c["direct"], 2);
    assert_eq!(c["test_pairs"], 0);
    let store = f.store();
    let first = &lines[0];
    assert_eq!(first["a"], url_of(&store, d[0]));
    assert_eq!(first["b"], url_of(&store, d[1]));
    assert_eq!(first["label"], 1);
    assert_eq!(first["provenance"], "cluster");
    assert_eq!(first["hard"], false);
    assert_eq!(first["coders"], serde_json::json!(["ann"]));
    assert_eq!(first["tags"], serde_json::json!(["wire"]));
    assert_eq!(first["split"], "train");
    assert_eq!(first["text_a"], tui_support::STORY_A);
    assert_eq!(first["title_b"], "Harbour bridge opens | Metro Post");
    let help = lines
        .iter()
        .find(|l| l["id_a"] == d[3] && l["id_b"] == d[4])
        .unwrap();
    assert_eq!(
        (&help["label"], &help["provenance"], &help["hard"]),
        (&Value::from(0), &Value::from("direct"), &Value::from(true))
    );
    let sampled: Vec<&Value> = lines
        .iter()
        .filter(|l| l["provenance"] == "sampled")
        .collect();
    assert_eq!(sampled.len(), 1);
    let (sa, sb) = (
        sampled[0]["id_a"].as_i64().unwrap(),
        sampled[0]["id_b"].as_i64().unwrap(),
    );
    // Never a pair a detector proposed or a coder labeled, never inside the story.
    let known: BTreeSet<(i64, i64)> = [
        (d[0], d[1]),
        (d[0], d[2]),
        (d[1], d[2]),
        (d[3], d[4]),
        (d[5], d[6]),
    ]
    .into();
    assert!(!known.contains(&(sa, sb)));
    assert_eq!(sampled[0]["coders"], serde_json::json!([]));

    // The same seed gives the same file; --no-text gives ids and URLs only.
    let again = f.dir.path().join("again.jsonl");
    ok(&[
        "export",
        "--db",
        db,
        "--format",
        "andd-jsonl",
        "--coder",
        "ann",
        "--test-fraction",
        "0",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let bare = stdout(&ok(&[
        "export",
        "--db",
        db,
        "--format",
        "andd-jsonl",
        "--coder",
        "ann",
        "--no-text",
        "--test-fraction",
        "0",
        "--out",
        "-",
    ]));
    let bare = json_lines(&bare);
    assert_eq!(bare.len(), lines.len());
    assert!(bare
        .iter()
        .all(|l| l.get("text_a").is_none() && l.get("title_a").is_none()));
    assert!(bare
        .iter()
        .all(|l| l.get("a").is_some() && l.get("id_b").is_some()));
}

#[test]
fn export_refuses_to_overwrite_and_names_what_is_wrong() {
    let f = labeled_fixture();
    let db = f.db.to_str().unwrap();
    let path = f.dir.path().join("g.tsv");
    let p = path.to_str().unwrap();
    std::fs::write(&path, "precious\n").unwrap();
    let out = spotcheck(&["export", "--db", db, "--format", "gold-tsv", "--out", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious\n");
    ok(&[
        "export", "--db", db, "--format", "gold-tsv", "--out", p, "--force",
    ]);
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .starts_with("# spotcheck gold set"));
    // No temporary files are left behind.
    let leftovers: Vec<String> = std::fs::read_dir(f.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".spotcheck-export"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Usage errors (exit code 2, the option named), then an unknown coder, a missing
    // directory and a device, which is never replaced even with --force (exit code 1,
    // saying what is wrong).
    let usage = |args: &[&'static str]| [&["--out", "/nonexistent/x"], args].concat();
    let gold = |args: &[&'static str]| [&["--format", "gold-tsv"], args].concat();
    let mut failures = vec![
        (
            usage(&["--format", "gold-tsv", "--seed", "3"]),
            2,
            "--seed applies to",
        ),
        (
            usage(&["--format", "gold-tsv", "--text", "main"]),
            2,
            "--text applies to",
        ),
        (
            usage(&["--format", "gold-dirs", "--no-text"]),
            2,
            "--no-text applies to",
        ),
        (
            usage(&["--format", "andd-jsonl", "--test-fraction", "1.5"]),
            2,
            "between 0 and 1",
        ),
        (
            usage(&["--format", "andd-jsonl", "--negatives-per-positive=-1"]),
            2,
            "0 or more",
        ),
        (
            gold(&["--coder", "zoe", "--out", "-"]),
            1,
            "coders: ann, bob",
        ),
        (
            gold(&["--out", "/nonexistent/dir/g.tsv"]),
            1,
            "/nonexistent/dir",
        ),
    ];
    if cfg!(unix) {
        failures.push((
            gold(&["--out", "/dev/null", "--force"]),
            1,
            "not a regular file",
        ));
    }
    for (args, code, needle) in failures {
        let full = [&["export", "--db", db][..], &args].concat();
        let out = spotcheck(&full);
        assert_eq!(out.status.code(), Some(code), "{full:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{full:?}: {}", stderr(&out));
    }
    #[cfg(unix)]
    assert!(!Path::new("/dev/null").is_file());
    let out = spotcheck(&["eval", "--db", db, "--gold", p, "--coder", "ann"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_database_without_labels_has_nothing_to_export() {
    let f = fixture();
    let db = f.db.to_str().unwrap();
    for format in ["andd-jsonl", "gold-tsv", "gold-dirs"] {
        let out_path = f.dir.path().join(format!("out-{format}"));
        let out = spotcheck(&[
            "export",
            "--db",
            db,
            "--format",
            format,
            "--out",
            out_path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert!(
            stderr(&out).contains("nothing to export"),
            "{}",
            stderr(&out)
        );
        assert!(!out_path.exists(), "{format}: nothing written");
    }
    let out = spotcheck(&["eval", "--db", db, "--gold", "labels"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no labels"), "{}", stderr(&out));
}

#[test]
fn gold_dirs_hold_one_folder_per_cluster_and_ingest_back_to_the_same_gold() {
    let f = labeled_fixture();
    let d = f.docs.clone();
    let db = f.db.to_str().unwrap();
    let dir = f.dir.path().join("gold");
    let g = dir.to_str().unwrap();
    ok(&[
        "export",
        "--db",
        db,
        "--format",
        "gold-dirs",
        "--coder",
        "ann",
        "--out",
        g,
    ]);
    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert_eq!(
        folders,
        ["0001", "0002", "0003", "0004", "0005", "gold.tsv", "urls.tsv"]
    );
    // The largest cluster first: the story's three pages, as their visible text.
    let mut story: Vec<String> = std::fs::read_dir(dir.join("0001"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    story.sort();
    assert_eq!(
        story,
        [
            "daily-courier.example_2024_bridge.txt",
            "metro-post.example_news_bridge-opens.txt",
            "valley-gazette.example_b_id_7.txt"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("0001/metro-post.example_news_bridge-opens.txt")).unwrap(),
        tui_support::STORY_B
    );
    for one in ["0002", "0003", "0004"] {
        assert_eq!(std::fs::read_dir(dir.join(one)).unwrap().count(), 1);
    }
    let urls = std::fs::read_to_string(dir.join("urls.tsv")).unwrap();
    assert!(urls.contains(&format!(
        "0001/valley-gazette.example_b_id_7.txt\thttp://valley-gazette.example/b?id=7\t{}",
        d[2]
    )));
    // Refuses a directory that is not empty.
    let out = spotcheck(&["export", "--db", db, "--format", "gold-dirs", "--out", g]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not empty"), "{}", stderr(&out));
    // Ingested as a folder, its gold.tsv names every page, and a run of the exported
    // clusters scores perfect against it.
    let db2 = f.dir.path().join("again.db");
    let db2s = db2.to_str().unwrap();
    ok(&["ingest", "--quiet", "--db", db2s, g]);
    let store = Store::open(&db2).unwrap();
    let ids: BTreeMap<String, i64> = store.url_ids().unwrap().into_iter().collect();
    assert_eq!(ids.len(), 7, "{ids:?}");
    let story_ids: Vec<i64> = ids
        .iter()
        .filter(|(u, _)| u.starts_with("0001/"))
        .map(|(_, &i)| i)
        .collect();
    drop(store);
    add_run(&db2, &[story_ids]);
    let text = stdout(&ok(&[
        "eval",
        "--db",
        db2s,
        "--gold",
        dir.join("gold.tsv").to_str().unwrap(),
    ]));
    assert!(
        text.contains("gold: 7 documents in this database (0 gold URLs not found), 3 gold pairs"),
        "{text}"
    );
    let e = json_lines(&stdout(&ok(&[
        "eval",
        "--db",
        db2s,
        "--gold",
        dir.join("gold.tsv").to_str().unwrap(),
        "--json",
    ])));
    assert_eq!(e[0]["clusters"]["f1"], 1.0);
}

#[test]
fn the_demo_records_its_bundled_labels_and_prints_the_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let out = ok(&["demo", "--no-review", "--db", db.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        text.contains("recorded as decisions of coder \"demo\""),
        "{text}"
    );
    assert!(text.contains("gold: the labels of coder demo"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("run "))
        .skip(1)
        .take_while(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    let methods: Vec<&str> = rows
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(methods, ["spotsigs", "imatch", "cooper"], "{text}");
    // The labels are in the database as decisions, and eval reads them back the same way.
    let store = Store::open(&db).unwrap();
    assert!(store.decision_log("demo").unwrap().len() >= 9);
    let again = stdout(&ok(&[
        "eval",
        "--db",
        db.to_str().unwrap(),
        "--gold",
        "labels",
    ]));
    for r in &rows {
        assert!(again.contains(r), "{again}");
    }
    // The bundled labels name the two help pages as different: SpotSigs pairs them, so its
    // precision is below 1 while I-Match's is 1.
    let spot = rows[0].split_whitespace().nth(2).unwrap();
    let imatch = rows[1].split_whitespace().nth(2).unwrap();
    assert!(spot.parse::<f64>().unwrap() < 1.0, "{text}");
    assert_eq!(imatch, "1.0000", "{text}");
}
