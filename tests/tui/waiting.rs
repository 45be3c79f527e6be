//! Keys whose effect needs a read of the store read it on the background worker: a verdict
//! (what it would change), the tag prompt (the tags in use), a cut (the entry's links), the
//! adjudication screen (the pairs and their documents), and the queue's next pages (read
//! ahead). The frame at the key says what is being read; keys typed before it lands wait
//! in order, so every sequence ends where it ended when the key read on the UI thread. The
//! worker is held to look at the frames drawn before its results land, never timed.

use crate::support::{fixture, press, press_held, release, text_of, typed, Fixture};
use serde_json::json;
use spotcheck::review::Mode;
use spotcheck::store::{ClusterRow, Store};

/// What a session shows and has recorded after `keys`: the last frame, the mode, the
/// cursor and the coder's log (actions and targets).
fn outcome(f: &Fixture, s: &spotcheck::review::Session, frame: String) -> String {
    let log: Vec<String> = f
        .store()
        .decision_log("ann")
        .unwrap()
        .iter()
        .map(|d| format!("{} {:?}", d.action, d.target))
        .collect();
    format!(
        "{frame}\nmode {:?} · cursor {} · log {log:?}",
        s.mode(),
        s.cursor
    )
}

/// `keys` pressed with the worker held, then released; and the same keys on a fresh
/// fixture with the worker free (each key waited for): the two outcomes.
fn held_and_free(keys: &[&str], before: &[&str]) -> (String, String) {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, before);
    press_held(&mut s, keys);
    let held = text_of(&release(&mut s));
    let held = outcome(&f, &s, held);
    let g = fixture();
    let mut t = g.session("ann");
    press(&mut t, before);
    let free = text_of(&press(&mut t, keys));
    (held, outcome(&g, &t, free))
}

#[test]
fn a_verdict_is_recorded_when_its_stored_labels_land() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press_held(&mut s, &["y"]);
    let t = text_of(&buf);
    insta::assert_snapshot!("verdict_reading", t);
    assert!(
        t.contains("confirm: reading what it changes among 3 pages…"),
        "{t}"
    );
    assert!(s.awaiting());
    assert!(f.store().decision_log("ann").unwrap().is_empty());
    let t = text_of(&release(&mut s));
    assert!(!s.awaiting() && !s.busy());
    assert!(t.contains("confirm: entry 1"), "{t}");
    assert_eq!(f.store().decision_log("ann").unwrap().len(), 1);
    assert_eq!(s.cursor, 1, "auto-advance, as before");
}

#[test]
fn keys_typed_while_a_verdict_reads_do_what_they_did() {
    // A verdict, then moves and another verdict typed ahead.
    let (held, free) = held_and_free(&["y", "j", "x", "k"], &[]);
    assert_eq!(held, free);
    assert!(held.contains("log [\"confirm"), "{held}");
    assert!(held.contains("\"reject"), "{held}");
    // A verdict that overrides a stored label asks first: the `y` typed ahead answers the
    // prompt that came, as it did.
    let (held, free) = held_and_free(&["g", "y", "y"], &["Enter", "Enter", "x", "q", "q"]);
    assert_eq!(held, free);
    assert!(
        held.contains("overrides 1 earlier 'different' label by ann: done"),
        "{held}"
    );
    // Any other key typed ahead cancels it.
    let (held, free) = held_and_free(&["g", "y", "n", "j"], &["Enter", "Enter", "x", "q", "q"]);
    assert_eq!(held, free);
    assert!(!held.contains("\"confirm"), "{held}");
}

#[test]
fn the_tag_prompt_completes_from_the_tags_the_worker_read() {
    let f = fixture();
    let mut s = f.session("ann");
    let mut keys = vec!["t"];
    let tag = typed("wire");
    keys.extend(tag.iter().map(String::as_str));
    keys.push("Enter");
    press(&mut s, &keys);
    // The prompt opens at once; the letters typed before the tags land wait for them.
    let t = text_of(&press_held(&mut s, &["j", "t", "w"]));
    assert!(s.input.is_some() && s.awaiting(), "{t}");
    assert!(s.input.as_ref().unwrap().text.is_empty());
    let t = text_of(&release(&mut s));
    assert!(t.contains("Tab: wire"), "{t}");
    assert_eq!(
        s.input.as_ref().unwrap().completions,
        vec!["wire".to_string()]
    );
    let (held, free) = held_and_free(&["t", "w", "Tab", "Enter"], &keys);
    assert_eq!(held, free);
}

/// An entry of three pages linked in a chain (a–b strong, b–c weak: a weakest link),
/// and one of two pages.
fn chain_db(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let db = dir.path().join("chain.db");
    let mut st = Store::open(&db).unwrap();
    let ids: Vec<i64> = (0..5)
        .map(|i| {
            st.insert_test_document(
                &format!("http://site{i}.example/story"),
                "Story",
                &format!("text of page {i}, long enough that triage does not take it for a near-empty page (a hundred characters)"),
                None,
            )
            .unwrap()
        })
        .collect();
    let run = st.create_run("spotsigs", &json!({})).unwrap();
    st.write_run_pairs(
        run,
        vec![
            (ids[0], ids[1], 0.9, None),
            (ids[1], ids[2], 0.4, None),
            (ids[3], ids[4], 0.8, None),
        ],
    )
    .unwrap();
    st.write_run_clusters(
        run,
        &[
            ClusterRow {
                members: ids[..3].to_vec(),
                min_score: Some(0.4),
                max_score: Some(0.9),
                weakest_bridge: Some((ids[1], ids[2], 0.4)),
            },
            ClusterRow {
                members: ids[3..].to_vec(),
                min_score: Some(0.8),
                max_score: Some(0.8),
                weakest_bridge: None,
            },
        ],
    )
    .unwrap();
    st.finish_run(run, &json!({})).unwrap();
    db
}

#[test]
fn a_cut_is_recorded_when_the_entrys_links_land() {
    let keys = ["c", "Enter", "c", "Esc", "k", "c"];
    let run = |held: bool| {
        let dir = tempfile::tempdir().unwrap();
        let db = chain_db(&dir);
        let mut s =
            spotcheck::review::Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
        let first = text_of(&press_held(&mut s, &["c"]));
        assert!(first.contains("cut: reading entry 1's links…"), "{first}");
        assert!(Store::open(&db)
            .unwrap()
            .decision_log("ann")
            .unwrap()
            .is_empty());
        let t = text_of(&release(&mut s));
        assert!(t.contains("cut at 2–3 into 2 groups"), "{t}");
        let frame = if held {
            press_held(&mut s, &keys);
            text_of(&release(&mut s))
        } else {
            text_of(&press(&mut s, &keys))
        };
        let log: Vec<String> = Store::open(&db)
            .unwrap()
            .decision_log("ann")
            .unwrap()
            .iter()
            .map(|d| format!("{} {:?} {}", d.action, d.target, d.payload))
            .collect();
        (frame, s.mode(), s.cursor, log)
    };
    let (held, free) = (run(true), run(false));
    assert_eq!(held, free);
    // Entry 1 cut, then entry 2 (from its cluster screen, then again from the queue).
    assert_eq!(held.3.len(), 4, "{:?}", held.3);
    assert!(held.3.iter().all(|l| l.contains("\"cut\"")), "{:?}", held.3);
}

/// Two coders disagreeing on two pairs (as in adjudicate.rs).
fn disputed(f: &Fixture) {
    let d = &f.docs;
    let mut st = f.store();
    st.record_decision("ann", "confirm", &[d[0], d[1]], json!({}))
        .unwrap();
    st.record_decision("bob", "reject", &[d[0], d[1]], json!({}))
        .unwrap();
    st.record_decision("ann", "reject", &[d[3], d[4]], json!({}))
        .unwrap();
    st.record_decision("bob", "confirm", &[d[3], d[4]], json!({}))
        .unwrap();
}

#[test]
fn the_adjudication_screen_opens_at_once_and_its_pairs_fill_in() {
    let f = fixture();
    disputed(&f);
    let mut s = f.session("lead");
    let buf = press_held(&mut s, &["A"]);
    insta::assert_snapshot!("adjudication_reading", text_of(&buf));
    let t = text_of(&buf);
    assert_eq!(s.mode(), Mode::Adjudicate);
    assert!(t.contains("Reading the pairs coders disagree on…"), "{t}");
    let t = text_of(&release(&mut s));
    assert!(t.contains("2 pairs the coders disagree on, 2 open"), "{t}");
    assert!(t.contains("The new harbour bridge opened"), "{t}");
    // The next pair's documents are read on the worker: "reading…" in their panes.
    let t = text_of(&press_held(&mut s, &["j"]));
    assert!(t.contains("pair 4 / 5"), "{t}");
    assert_eq!(t.matches("reading…").count(), 2, "{t}");
    let t = text_of(&release(&mut s));
    assert!(!t.contains("reading…"), "{t}");
    assert!(t.contains("Reset your password"), "{t}");
    // Final labels typed ahead of the pairs: the same store and screen as key by key.
    let g = fixture();
    disputed(&g);
    let mut a = g.session("lead");
    press_held(&mut a, &["A", "x", "y", "k"]);
    let held = text_of(&release(&mut a));
    let h = fixture();
    disputed(&h);
    let mut b = h.session("lead");
    let free = text_of(&press(&mut b, &["A", "x", "y", "k"]));
    assert_eq!(held, free);
    assert_eq!(g.store().decision_log("adjudicator:lead").unwrap().len(), 2);
}

/// A queue of 250 two-page entries (three pages of 100 rows).
pub(crate) fn long_queue(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let db = dir.path().join("long.db");
    let mut st = Store::open(&db).unwrap();
    let ids: Vec<i64> = (0..500)
        .map(|i| {
            st.insert_test_document(
                &format!("http://site{}.example/{i}", i % 7),
                "Page",
                &format!("text of page {i}, long enough that triage does not take it for a near-empty page (a hundred characters)"),
                None,
            )
            .unwrap()
        })
        .collect();
    let run = st.create_run("spotsigs", &json!({})).unwrap();
    let rows: Vec<ClusterRow> = ids
        .chunks(2)
        .enumerate()
        .map(|(i, m)| ClusterRow {
            members: m.to_vec(),
            min_score: Some(0.5 + (i % 50) as f64 / 100.0),
            max_score: Some(0.9),
            weakest_bridge: None,
        })
        .collect();
    st.write_run_clusters(run, &rows).unwrap();
    st.finish_run(run, &json!({})).unwrap();
    db
}

#[test]
fn the_next_queue_page_is_read_ahead_on_the_worker() {
    let dir = tempfile::tempdir().unwrap();
    let db = long_queue(&dir);
    let session =
        || spotcheck::review::Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    let mut s = session();
    // The first frame reads its page here and asks the worker for the next one.
    press_held(&mut s, &[]);
    assert_eq!(s.loaded_pages(), 1);
    assert!(s.busy());
    // Held, the next page is not there: its rows say so, the cursor's too.
    let t = text_of(&press_held(&mut s, &["PageDown"; 6]));
    assert!(s.cursor >= 100, "{}", s.cursor);
    assert!(t.contains("reading…"), "{t}");
    assert_eq!(s.loaded_pages(), 1);
    let held = text_of(&release(&mut s));
    assert!(!held.contains("reading…"), "{held}");
    assert!(s.loaded_pages() >= 2);
    // The same frame as key by key with the worker free.
    let mut t = session();
    let free = text_of(&press(&mut t, &["PageDown"; 6]));
    assert_eq!(held, free);
    // With the worker free, moving onto the next page reads nothing on the UI thread: it
    // was read ahead while the cursor was on the page before.
    assert!(t.loaded_pages() >= 3, "{}", t.loaded_pages());
    // Acting on a row whose page is still being read reads it here (a verdict on it).
    let mut u = session();
    press_held(&mut u, &["PageDown"; 6]);
    let cursor = u.cursor;
    press_held(&mut u, &["y"]);
    let t = text_of(&release(&mut u));
    assert!(t.contains("confirm: entry"), "{t}");
    assert_eq!(u.cursor, cursor + 1);
}
