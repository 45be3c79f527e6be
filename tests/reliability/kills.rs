//! Kills anywhere: the real binary (ingest, detect) and a review session (a big confirm,
//! a batch tag over thousands of entries, an undo) are killed inside their N-th commit
//! (`SPOTCHECK_KILL_AT_COMMIT=N`, the store's fault-injection hook: the process aborts in
//! SQLite's commit hook, before the commit is durable, as a SIGKILL there would), for N
//! over every commit of ingest and detect, and over a seeded sample of the review's 3,000
//! (each step's first and last commit and a few drawn with a fixed seed, see
//! [`review_kill_points`]); then the next command runs, and the database must
//! pass `PRAGMA integrity_check`, hold no duplicate rows, have lost no committed decision
//! and end exactly where an unkilled run ends. Kill points are commit counts, never times.

use std::path::{Path, PathBuf};
use std::process::Command;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spotcheck::review::Session;
use spotcheck::store::{ClusterRow, Store};
use spotcheck::tui::{handle_key, parse_key, render, Keymap};

use crate::common;

const KILL: &str = "SPOTCHECK_KILL_AT_COMMIT";

/// Runs the binary with the kill hook at commit `n`: whether it was killed.
fn run_killed(args: &[&str], n: u64) -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(args)
        .env(KILL, n.to_string())
        .output()
        .unwrap();
    let killed = out.status.code().is_none();
    if !killed {
        assert!(
            out.status.success(),
            "{args:?} with {KILL}={n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    killed
}

fn sql_one(db: &Path, sql: &str) -> String {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row(sql, [], |r| r.get::<_, rusqlite::types::Value>(0))
        .map(|v| format!("{v:?}"))
        .unwrap()
}

fn assert_integrity(db: &Path, what: &str) {
    assert_eq!(
        sql_one(db, "PRAGMA integrity_check"),
        "Text(\"ok\")",
        "{what}: integrity_check"
    );
}

/// What ingest and detect leave that must not depend on a kill: the listings.
fn listings(db: &str) -> Vec<String> {
    let mut all = Vec::new();
    for args in [
        &["docs", "--db", db, "--format", "tsv"][..],
        &["errors", "--db", db, "--format", "tsv"],
        &["stats", "--db", db, "--json"],
    ] {
        let (out, _) = common::spotcheck_ok(args);
        let mut lines: Vec<String> = out.lines().map(String::from).collect();
        lines.sort();
        all.extend(lines);
    }
    all
}

fn demo_dir() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo")
}

/// Kill points 1..=max over ingest of the demo crawl: a rerun finishes it exactly.
#[test]
fn a_killed_ingest_resumes_without_loss_or_duplicates() {
    let (_r, reference) = common::temp_db();
    let reference = reference.to_str().unwrap().to_string();
    common::spotcheck_ok(&["ingest", "--db", &reference, "--quiet", demo_dir()]);
    let want = listings(&reference);
    let mut n = 1;
    loop {
        let (_t, db) = common::temp_db();
        let db_s = db.to_str().unwrap();
        let killed = run_killed(&["ingest", "--db", db_s, "--quiet", demo_dir()], n);
        if !killed {
            break;
        }
        assert_integrity(&db, &format!("ingest killed at commit {n}"));
        common::spotcheck_ok(&["ingest", "--db", db_s, "--quiet", demo_dir()]);
        assert_integrity(&db, &format!("ingest rerun after commit {n}"));
        assert_eq!(
            listings(db_s),
            want,
            "ingest killed at commit {n}, then rerun"
        );
        n += 1;
    }
    assert!(n > 2, "ingest made {} commits: too few kill points", n - 1);
    eprintln!("ingest: {} kill points, all resumed exactly", n - 1);
}

/// Kill points over `detect` (all default methods): the killed run never shows as
/// finished, and a rerun lists what an unkilled detect lists.
#[test]
fn a_killed_detect_leaves_no_half_run_and_a_rerun_finishes() {
    let (_r, reference) = common::temp_db();
    let reference = reference.to_str().unwrap().to_string();
    common::spotcheck_ok(&["ingest", "--db", &reference, "--quiet", demo_dir()]);
    let ingested = std::fs::read(&reference).unwrap();
    common::spotcheck_ok(&["detect", "--db", &reference]);
    let results = |db: &str| -> Vec<String> {
        let mut all = Vec::new();
        for m in ["spotsigs", "imatch", "cooper"] {
            for cmd in ["pairs", "clusters"] {
                let (out, _) =
                    common::spotcheck_ok(&[cmd, "--db", db, "--method", m, "--format", "tsv"]);
                all.push(out);
            }
        }
        let (q, _) = common::spotcheck_ok(&["queue", "--db", db, "--all", "--format", "tsv"]);
        all.push(q);
        all
    };
    let want = results(&reference);
    let mut n = 1;
    loop {
        let (t, db) = common::temp_db();
        // Start from the ingested database (a checkpointed copy: the WAL was merged when
        // the ingest closed).
        let _ = t;
        std::fs::write(&db, &ingested).unwrap();
        let db_s = db.to_str().unwrap();
        if !run_killed(&["detect", "--db", db_s], n) {
            break;
        }
        assert_integrity(&db, &format!("detect killed at commit {n}"));
        common::spotcheck_ok(&["detect", "--db", db_s]);
        assert_integrity(&db, &format!("detect rerun after commit {n}"));
        assert_eq!(
            results(db_s),
            want,
            "detect killed at commit {n}, then rerun"
        );
        n += 1;
    }
    assert!(n > 2, "detect made {} commits: too few kill points", n - 1);
    eprintln!("detect: {} kill points, all finished by a rerun", n - 1);
}

/// Documents in the review database: one cluster of [`BIG`] and [`SMALL`] pairs.
const BIG: usize = 100;
const SMALL: usize = 1500;

fn review_db(db: &Path) {
    let mut s = Store::open(db).unwrap();
    let n = BIG + 2 * SMALL;
    let ids: Vec<i64> = (0..n)
        .map(|i| {
            s.insert_test_document(
                &format!("http://site.example/{i}"),
                // One title for all: pages of one site with titles of their own
                // ("Page 7", "Page 8") are two pages, which the queue leaves out.
                "Page",
                &format!("text of page {i}, long enough that triage does not take it for a near-empty page (a hundred characters)"),
                None,
            )
            .unwrap()
        })
        .collect();
    let run = s.create_run("spotsigs", &serde_json::json!({})).unwrap();
    let row = |members: Vec<i64>| ClusterRow {
        members,
        min_score: Some(0.5),
        max_score: Some(0.9),
        weakest_bridge: None,
    };
    let mut rows = vec![row(ids[..BIG].to_vec())];
    rows.extend(ids[BIG..].chunks(2).map(|c| row(c.to_vec())));
    s.write_run_clusters(run, &rows).unwrap();
    s.finish_run(run, &serde_json::json!({})).unwrap();
}

/// The review script: a big confirm (4,950 pairs), a batch tag of every entry (1,501),
/// an undo of the tag, then a confirm of the next entry. After each step the child
/// waits for the labels to be written, and (unkilled) records the state.
const STEPS: [&[&str]; 4] = [
    &["y"],
    &["a", "t", "b", "a", "t", "c", "h", "Enter"],
    &["u"],
    &["j", "y"],
];

/// The decision log (without times) and every derived label row.
fn state(db: &Path) -> (Vec<String>, Vec<String>) {
    let s = Store::open(db).unwrap();
    let log = s
        .decision_log("ann")
        .unwrap()
        .into_iter()
        .map(|d| {
            without_batch_id(&format!(
                "{} {} {:?} {} {} {:?}",
                d.id, d.action, d.target, d.payload, d.previous, d.undoes
            ))
        })
        .collect();
    (log, s.derived_label_rows().unwrap())
}

/// A log entry with its batch id (made from the clock) replaced by `B`.
fn without_batch_id(entry: &str) -> String {
    let key = "\"batch\":\"";
    match entry.find(key) {
        Some(i) => {
            let from = i + key.len();
            let end = entry[from..].find('"').map_or(entry.len(), |j| from + j);
            format!("{}B{}", &entry[..from], &entry[end..])
        }
        None => entry.to_string(),
    }
}

/// The child process of the review kill test (run by it through this test binary, with
/// `KILLS_REVIEW_DB` set); records the state after each step to `KILLS_REVIEW_STATES`.
#[test]
#[ignore = "child process of a_killed_review_loses_no_committed_decision"]
fn kills_review_child() {
    let Some(db) = std::env::var_os("KILLS_REVIEW_DB").map(PathBuf::from) else {
        return;
    };
    let keys = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    s.prompt_above_pairs = u64::MAX;
    render(&mut term, &mut s, &keys).unwrap();
    let mut states = Vec::new();
    // Commits made by the end of each step (counted with the kill hook set to 0).
    let mut commits = Vec::new();
    for step in STEPS {
        for k in step {
            handle_key(&mut s, &keys, parse_key(k).unwrap());
            render(&mut term, &mut s, &keys).unwrap();
        }
        spotcheck::tui::settle(&mut term, &mut s, &keys).unwrap();
        states.push(state(&db));
        commits.push(spotcheck::store::commits_counted());
    }
    if let Some(out) = std::env::var_os("KILLS_REVIEW_STATES") {
        std::fs::write(out, serde_json::to_string(&(states, commits)).unwrap()).unwrap();
    }
}

fn run_review_child(db: &Path, kill_at: Option<u64>, states: Option<&Path>) -> bool {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "--ignored",
        "--exact",
        "kills::kills_review_child",
        "--nocapture",
    ])
    .env("KILLS_REVIEW_DB", db);
    // Unkilled, the hook is set to 0 (never fires) so that the child counts its commits.
    c.env(KILL, kill_at.unwrap_or(0).to_string());
    if let Some(p) = states {
        c.env("KILLS_REVIEW_STATES", p);
    }
    let out = c.output().unwrap();
    let killed = out.status.code().is_none();
    assert!(
        killed || out.status.success(),
        "review child (kill at {kill_at:?}): {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    killed
}

/// The kill points the review test tries: the first and last commit of each step, the
/// commit after the last (the unkilled end, which must not fire), and [`SAMPLED`] more
/// drawn with a fixed seed from all of them (`SPOTCHECK_REVIEW_KILLS=all` tries every
/// commit, over 5 minutes). `ends[i]` is the commit count at the end of step `i`.
fn review_kill_points(ends: &[u64]) -> Vec<u64> {
    let last = ends.last().copied().unwrap_or(0);
    if std::env::var("SPOTCHECK_REVIEW_KILLS").as_deref() == Ok("all") {
        return (1..=last + 1).collect();
    }
    let mut points = std::collections::BTreeSet::new();
    let mut start = 1;
    for &end in ends {
        if end >= start {
            points.insert(start);
            points.insert(end);
        }
        start = end + 1;
    }
    points.insert(last + 1);
    // splitmix64 with a fixed seed: the same sample every run.
    let mut x: u64 = 0x5eed_0017;
    let mut next = || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for _ in 0..SAMPLED {
        if last > 0 {
            points.insert(1 + next() % last);
        }
    }
    points.into_iter().collect()
}

/// Seeded kill points beyond each step's first and last commit.
const SAMPLED: usize = 6;

#[test]
fn a_killed_review_loses_no_committed_decision() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.db");
    review_db(&base);
    {
        // A single file to copy: the WAL merged.
        let c = rusqlite::Connection::open(&base).unwrap();
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    }
    let fresh = |name: &str| -> PathBuf {
        let p = dir.path().join(name);
        std::fs::copy(&base, &p).unwrap();
        p
    };
    let reference = fresh("reference.db");
    let states_file = dir.path().join("states.json");
    assert!(!run_review_child(&reference, None, Some(&states_file)));
    type States = Vec<(Vec<String>, Vec<String>)>;
    let (states, ends): (States, Vec<u64>) =
        serde_json::from_str(&std::fs::read_to_string(&states_file).unwrap()).unwrap();
    assert_eq!(states.len(), STEPS.len());
    assert!(
        ends.windows(2).all(|w| w[0] < w[1]),
        "every step commits: {ends:?}"
    );
    let total = *ends.last().unwrap();
    let points = review_kill_points(&ends);
    let mut lost = 0;
    for &n in &points {
        let db = fresh(&format!("killed-{n}.db"));
        if !run_review_child(&db, Some(n), None) {
            assert_eq!(n, total + 1, "the review ended before its commit {n}");
            continue;
        }
        assert!(
            n <= total,
            "killed at {n}, past the {total} commits counted"
        );
        assert_integrity(&db, &format!("review killed at commit {n}"));
        // The next command (any `Store::open`) writes the labels of every committed
        // decision: the state is one the unkilled review passed through, with as many
        // decisions as the log kept.
        let (log, labels) = state(&db);
        assert_integrity(&db, &format!("review reopened after commit {n}"));
        let matching = std::iter::once((Vec::new(), Vec::new()))
            .chain(states.iter().cloned())
            .find(|(l, _)| l.len() == log.len());
        match matching {
            Some((want_log, want_labels)) => {
                for (got, want) in log.iter().zip(&want_log) {
                    if got != want {
                        let at = got
                            .bytes()
                            .zip(want.bytes())
                            .position(|(a, b)| a != b)
                            .unwrap_or(0);
                        let from = at.saturating_sub(80);
                        panic!(
                            "kill at commit {n}: log entries differ at byte {at}: got \
                             …{:.300}… want …{:.300}…",
                            &got[from..],
                            &want[from.min(want.len())..]
                        );
                    }
                }
                assert_eq!(labels, want_labels, "kill at commit {n}: the labels");
            }
            None => lost += 1,
        }
        std::fs::remove_file(&db).ok();
    }
    assert_eq!(
        lost, 0,
        "kill points whose log matches no state of the unkilled run"
    );
    eprintln!(
        "review: {} of {total} commits tried as kill points ({points:?}), no decision lost",
        points.len() - 1
    );
}
