//! Decisions whose derived labels are written off the UI thread: the key returns with the
//! decision's log row committed and the decision shown ("saving…"), the label writer thread
//! writes the labels behind it in log order, and a kill in between loses nothing. The
//! writer is held and released by the tests (never timed).

use crate::support as tui_support;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use spotcheck::review::Session;
use spotcheck::store::{ClusterRow, Store};
use spotcheck::tui::{handle_key, parse_key, render, Keymap};
use tui_support::text_of;

/// Members of the big cluster: 4,950 pairs, more than one step of the writer (PAIR_CHUNK).
const BIG: usize = 100;

/// A database with one cluster of `BIG` documents and one of two.
fn big_db(dir: &tempfile::TempDir, name: &str) -> (std::path::PathBuf, Vec<i64>) {
    let db = dir.path().join(name);
    let mut s = Store::open(&db).unwrap();
    let ids: Vec<i64> = (0..BIG + 2)
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
    let run = s.create_run("spotsigs", &json!({})).unwrap();
    let row = |members: Vec<i64>| ClusterRow {
        members,
        min_score: Some(0.5),
        max_score: Some(0.9),
        weakest_bridge: None,
    };
    s.write_run_clusters(run, &[row(ids[..BIG].to_vec()), row(ids[BIG..].to_vec())])
        .unwrap();
    s.finish_run(run, &json!({})).unwrap();
    (db, ids)
}

struct Screen {
    term: Terminal<TestBackend>,
    keys: Keymap,
}

impl Screen {
    fn new() -> Screen {
        Screen {
            term: Terminal::new(TestBackend::new(100, 24)).unwrap(),
            keys: Keymap::defaults(),
        }
    }

    /// One key and the frame drawn right after it, waiting only for the key's own read
    /// (a verdict's stored labels), never for the label writer.
    fn key(&mut self, s: &mut Session, name: &str) -> String {
        handle_key(s, &self.keys, parse_key(name).unwrap());
        s.wait_key();
        self.draw(s)
    }

    fn keys(&mut self, s: &mut Session, names: &[&str]) -> String {
        let mut last = String::new();
        for n in names {
            last = self.key(s, n);
        }
        last
    }

    fn draw(&mut self, s: &mut Session) -> String {
        render(&mut self.term, s, &self.keys).unwrap();
        text_of(self.term.backend().buffer())
    }
}

/// Counts rows in the database at `db` through a plain connection (`Store::open` would
/// write pending labels first).
fn count(db: &std::path::Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The queue line of the cluster of `size` members.
fn line_of(frame: &str, size: usize) -> String {
    frame
        .lines()
        .find(|l| l.starts_with('[') && l.contains(&format!(" {size} ")))
        .unwrap_or_else(|| panic!("no cluster of {size} in\n{frame}"))
        .to_string()
}

/// Asserts two lists are equal, showing only where they differ (they are long).
fn assert_same(got: &[String], want: &[String], what: &str) {
    let only_got: Vec<&String> = got.iter().filter(|x| !want.contains(x)).take(5).collect();
    let only_want: Vec<&String> = want.iter().filter(|x| !got.contains(x)).take(5).collect();
    assert!(
        got == want,
        "{what} differ ({} vs {} rows): only here {only_got:.200?}, only in the reference {only_want:.200?}",
        got.len(),
        want.len()
    );
}

/// The log without the times, and every derived label row.
fn state(db: &std::path::Path) -> (Vec<String>, Vec<String>) {
    let s = Store::open(db).unwrap();
    let log = s
        .decision_log("ann")
        .unwrap()
        .into_iter()
        .map(|d| {
            format!(
                "{} {} {:?} {} {} {:?}",
                d.id, d.action, d.target, d.payload, d.previous, d.undoes
            )
        })
        .collect();
    (log, s.derived_label_rows().unwrap())
}

#[test]
fn a_big_confirm_returns_at_once_and_later_decisions_queue_behind_it() {
    let dir = tempfile::tempdir().unwrap();
    let (db, ids) = big_db(&dir, "async.db");
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    // Straight to saving: the consequence prompt has its own test (screens.rs).
    s.prompt_above_pairs = u64::MAX;
    let mut screen = Screen::new();
    screen.draw(&mut s);
    s.hold_saving(true);

    // The key returns to the event loop with the log row committed and the labels not
    // written: the frame shows the decision and that it is being saved.
    let frame = screen.key(&mut s, "y");
    assert!(line_of(&frame, BIG).contains("confirmed"), "{frame}");
    assert!(frame.contains("saving 1 decision…"), "{frame}");
    assert_eq!(s.saving(), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM decisions"), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM pair_labels"), 0);
    assert_eq!(
        count(
            &db,
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'labels_through'"
        ),
        0
    );

    // More decisions on the same cluster while it is being saved: tag it, undo the tag,
    // reject it. Each is committed at its key and shown at once.
    screen.key(&mut s, "g");
    let mut tag = vec!["t"];
    tag.extend(["w", "i", "r", "e", "Enter"]);
    let frame = screen.keys(&mut s, &tag);
    let line = line_of(&frame, BIG);
    assert!(
        line.contains("confirmed") && line.contains("wire"),
        "{frame}"
    );
    let frame = screen.key(&mut s, "u");
    assert!(!line_of(&frame, BIG).contains("wire"), "{frame}");
    let frame = screen.key(&mut s, "x");
    assert!(line_of(&frame, BIG).contains("rejected"), "{frame}");
    assert!(frame.contains("saving 4 decisions…"), "{frame}");
    assert_eq!(count(&db, "SELECT count(*) FROM decisions"), 4);
    assert_eq!(count(&db, "SELECT count(*) FROM pair_labels"), 0);

    // Released, the writer writes the four rows in log order.
    s.hold_saving(false);
    s.wait_background();
    let frame = screen.draw(&mut s);
    assert!(!frame.contains("saving"), "{frame}");
    assert!(line_of(&frame, BIG).contains("rejected"), "{frame}");
    assert_eq!(s.saving(), 0);
    drop(s);

    // The same decisions through the one-call path end in the same store.
    let (reference, _) = big_db(&dir, "sync.db");
    let mut r = Store::open(&reference).unwrap();
    r.refresh_review_queue().unwrap();
    let big = &ids[..BIG];
    r.record_decision("ann", "confirm", big, json!({})).unwrap();
    let t = r
        .record_decision("ann", "tag", big, json!({"tag": "wire"}))
        .unwrap();
    r.record_undo("ann", t.id).unwrap();
    r.record_decision("ann", "reject", big, json!({})).unwrap();
    drop(r);
    let (want, got) = (state(&reference), state(&db));
    assert_same(&got.0, &want.0, "logs");
    assert_same(&got.1, &want.1, "derived labels");
    assert_eq!(
        got.1.iter().filter(|r| r.starts_with("pair|")).count(),
        BIG * (BIG - 1) / 2
    );
    assert!(got
        .1
        .iter()
        .filter(|r| r.starts_with("pair|"))
        .all(|r| r.contains("|different|")));
}

#[test]
fn a_kill_before_the_labels_are_written_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, ids) = big_db(&dir, "kill.db");
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    // Straight to saving: the consequence prompt has its own test (screens.rs).
    s.prompt_above_pairs = u64::MAX;
    let mut screen = Screen::new();
    screen.draw(&mut s);
    s.hold_saving(true);
    screen.key(&mut s, "y");
    // Killed: the session goes away with the writer held (it stops before any step).
    drop(s);
    assert_eq!(count(&db, "SELECT count(*) FROM decisions"), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM pair_labels"), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM labels"), 0);

    // The next start writes them before anything reads them, and resumes after the
    // confirmed cluster.
    let s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    assert_eq!(
        count(&db, "SELECT count(*) FROM pair_labels"),
        (BIG * (BIG - 1) / 2) as i64
    );
    assert_eq!(s.cursor, 1, "the confirmed cluster is reviewed");
    assert_eq!(
        s.store().label("ann", &ids[..BIG]).unwrap().status,
        spotcheck::store::LabelStatus::Confirmed
    );
    drop(s);
    let (reference, _) = big_db(&dir, "sync.db");
    let mut r = Store::open(&reference).unwrap();
    r.refresh_review_queue().unwrap();
    r.record_decision("ann", "confirm", &ids[..BIG], json!({}))
        .unwrap();
    drop(r);
    let (want, got) = (state(&reference), state(&db));
    assert_same(&got.0, &want.0, "logs");
    assert_same(&got.1, &want.1, "derived labels");
}

#[test]
fn quitting_waits_for_the_labels_or_leaves_them_to_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = big_db(&dir, "quit.db");
    let mut screen = Screen::new();
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    // Straight to saving: the consequence prompt has its own test (screens.rs).
    s.prompt_above_pairs = u64::MAX;
    screen.draw(&mut s);
    s.hold_saving(true);
    screen.key(&mut s, "y");
    let frame = screen.key(&mut s, "q");
    assert!(!s.quit, "q waits for the labels being written");
    assert!(frame.contains("then quitting"), "{frame}");
    s.hold_saving(false);
    s.wait_background();
    assert!(s.quit, "and quits once they are");
    assert_eq!(
        count(&db, "SELECT count(*) FROM pair_labels"),
        (BIG * (BIG - 1) / 2) as i64
    );
    drop(s);

    // A second q does not wait: the labels are left to the next open.
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    screen.draw(&mut s);
    s.hold_saving(true);
    // Rejecting the confirmed cluster overrides its labels: y answers the prompt.
    screen.keys(&mut s, &["g", "x", "y", "q", "q"]);
    assert!(s.quit);
    drop(s);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM pair_labels WHERE label = 'different'"
        ),
        0
    );
    drop(Store::open(&db).unwrap());
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM pair_labels WHERE label = 'different'"
        ),
        (BIG * (BIG - 1) / 2) as i64
    );
}
