//! The keys that read the queue anew or show rows no page was read for — a filter, a
//! search, the order, a jump, select-all — read on the background worker (issue 16): the
//! frame at the key says the queue is being read (or its rows "reading…"), the frame after
//! shows the queue read, and keys typed before it lands wait in order, so every sequence
//! ends where it ends with each key waited for. The worker is held to look at the frames
//! drawn before its results land, never timed.

use crate::support::{fixture, press, press_held, release, text_of, typed, Fixture};
use crate::waiting::long_queue;
use spotcheck::review::{Mode, Session};
use spotcheck::store::{ClusterRow, Store};

/// The frame held (the worker not run yet) and the frame once released, with the session.
fn held_then_released(s: &mut Session, keys: &[&str]) -> (String, String) {
    let held = text_of(&press_held(s, keys));
    assert!(s.busy(), "{held}");
    let done = text_of(&release(s));
    assert!(!s.busy() && !s.awaiting(), "{done}");
    (held, done)
}

/// What a session shows and has recorded after its keys: the last frame, the mode, the
/// cursor, the selection and `coder`'s log.
fn outcome(db: &std::path::Path, s: &Session, frame: String) -> String {
    let log: Vec<String> = Store::open(db)
        .unwrap()
        .decision_log(&s.coder)
        .unwrap()
        .iter()
        .map(|d| {
            // A batch's token is made of the time: only whether there is one is compared.
            let mut payload = d.payload.clone();
            if let Some(b) = payload.get_mut("batch") {
                *b = serde_json::json!("B");
            }
            format!("{} {:?} {payload}", d.action, d.target)
        })
        .collect();
    format!(
        "{frame}\nmode {:?} · cursor {} · selected {} · log {log:?}",
        s.mode(),
        s.cursor,
        s.selection.len()
    )
}

/// `keys` pressed on a session of `make`'s database with the worker held, then released;
/// and the same keys on a fresh copy, each waited for: the two outcomes.
fn held_and_free(
    make: impl Fn(&tempfile::TempDir) -> std::path::PathBuf,
    keys: &[&str],
) -> (String, String) {
    let run = |held: bool| {
        let dir = tempfile::tempdir().unwrap();
        let db = make(&dir);
        let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
        let frame = if held {
            press_held(&mut s, keys);
            text_of(&release(&mut s))
        } else {
            text_of(&press(&mut s, keys))
        };
        outcome(&db, &s, frame)
    };
    (run(true), run(false))
}

/// The fixture's database, for `held_and_free`.
fn fixture_db(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let db = dir.path().join("review.db");
    crate::support::build_db(&db);
    db
}

#[test]
fn a_filter_reads_the_queue_on_the_worker() {
    let f = fixture();
    let mut s = f.session("ann");
    // `m`: only the entries I-Match found.
    let (held, done) = held_then_released(&mut s, &["m"]);
    insta::assert_snapshot!("filter_reading", held);
    assert!(
        held.contains("Reading the queue (found by imatch, sort: "),
        "{held}"
    );
    assert!(held.contains("reading the queue…"), "{held}");
    insta::assert_snapshot!("filter_read", done);
    assert!(done.contains("2 entries · found by imatch"), "{done}");
    assert_eq!(s.queue_len, 2);
    // Keys typed while it reads act on the filtered queue: the second entry I-Match found
    // is confirmed, as key by key.
    let (held, free) = held_and_free(fixture_db, &["m", "j", "y", "C", "G"]);
    assert_eq!(held, free);
    assert!(held.contains("log [\"confirm"), "{held}");
}

#[test]
fn a_search_reads_the_queue_on_the_worker() {
    let f = fixture();
    let mut s = f.session("ann");
    let mut keys = vec!["/"];
    let text = typed("help");
    keys.extend(text.iter().map(String::as_str));
    keys.push("Enter");
    let (held, done) = held_then_released(&mut s, &keys);
    insta::assert_snapshot!("search_reading", held);
    assert!(
        held.contains("Reading the queue (search=\"help\""),
        "{held}"
    );
    insta::assert_snapshot!("search_read", done);
    assert!(done.contains("1 clusters match"), "{done}");
    // Opening the match typed ahead opens it, as key by key.
    keys.extend(["Enter", "x"]);
    let (held, free) = held_and_free(fixture_db, &keys);
    assert_eq!(held, free);
    assert!(held.contains("reject [4, 5]"), "{held}");
}

#[test]
fn a_hostile_search_is_shown_sanitized_while_it_reads() {
    let f = fixture();
    let mut s = f.session("ann");
    // An escape typed into the prompt (a paste) never reaches the terminal.
    s.start_input(spotcheck::review::InputKind::Search);
    for c in "\u{1b}]0;pwned\u{7}x".chars() {
        s.input_char(c);
    }
    s.input.as_mut().unwrap().text.push('\u{1b}');
    let (held, _) = held_then_released(&mut s, &["Enter"]);
    assert!(
        !held.contains('\u{1b}') && !held.contains('\u{7}'),
        "{held:?}"
    );
    assert!(held.contains("Reading the queue (search="), "{held}");
}

#[test]
fn a_new_order_reads_the_queue_on_the_worker() {
    let f = fixture();
    let mut s = f.session("ann");
    let (held, done) = held_then_released(&mut s, &["o"]);
    insta::assert_snapshot!("sort_reading", held);
    insta::assert_snapshot!("sort_read", done);
    assert!(done.contains("3 entries · sort: size asc"), "{done}");
    let (held, free) = held_and_free(fixture_db, &["o", "j", "x", "o", "o", "Space", "a"]);
    assert_eq!(held, free);
    assert!(held.contains("\"reject"), "{held}");
}

#[test]
fn a_jump_shows_its_rows_reading_and_keys_on_them_wait() {
    let dir = tempfile::tempdir().unwrap();
    let db = long_queue(&dir);
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    // `G`: the last rows (page 2) were never read: they say so, the cursor's too.
    let (held, done) = held_then_released(&mut s, &["G"]);
    insta::assert_snapshot!("jump_reading", held);
    assert!(held.contains("reading…"), "{held}");
    assert_eq!(s.cursor, 249);
    insta::assert_snapshot!("jump_read", done);
    assert!(!done.contains("reading…"), "{done}");
    // A verdict, a tag and a selection on rows still being read wait for their page, then
    // act on it: the same as key by key.
    let mut keys = vec!["G", "y", "G", "t"];
    let tag = typed("late");
    keys.extend(tag.iter().map(String::as_str));
    keys.extend(["Enter", "G", "k", "Space", "Space", "y"]);
    let (held, free) = held_and_free(long_queue, &keys);
    assert_eq!(held, free);
    assert!(held.contains("confirm"), "{held}");
    assert!(held.contains("late"), "{held}");
    // The frame while a verdict waits for its row says so.
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    let t = text_of(&press_held(&mut s, &["G", "y"]));
    assert!(t.contains("reading entry 250 of the queue…"), "{t}");
    assert!(fixture_log_empty(&db));
    let t = text_of(&release(&mut s));
    assert!(t.contains("confirm: entry"), "{t}");
    assert_eq!(s.mode(), Mode::Queue);
}

fn fixture_log_empty(db: &std::path::Path) -> bool {
    crate::support::fixture_log_is_empty(db, "ann")
}

#[test]
fn select_all_reads_every_entry_on_the_worker() {
    let f = fixture();
    let mut s = f.session("ann");
    let (held, done) = held_then_released(&mut s, &["a"]);
    insta::assert_snapshot!("select_all_reading", held);
    assert!(held.contains("selecting every entry of 3"), "{held}");
    assert!(s.selection.len() == 3, "{done}");
    insta::assert_snapshot!("select_all_read", done);
    assert!(done.contains("3 clusters selected"), "{done}");
    // Select-all then a verdict typed ahead: every entry confirmed, one undo step.
    let (held, free) = held_and_free(fixture_db, &["a", "y"]);
    assert_eq!(held, free);
    assert_eq!(held.matches("confirm [").count(), 3, "{held}");
    check_batch(&f);
}

/// Select-all then confirm, on the fixture's own database: one batch of three.
fn check_batch(f: &Fixture) {
    let mut s = f.session("ann");
    press_held(&mut s, &["a", "y", "u"]);
    release(&mut s);
    let log = f.store().decision_log("ann").unwrap();
    let actions: Vec<&str> = log.iter().map(|d| d.action.as_str()).collect();
    assert_eq!(
        actions,
        ["confirm", "confirm", "confirm", "undo", "undo", "undo"]
    );
    let batch = |i: usize| log[i].payload.get("batch").cloned();
    assert!(batch(0).is_some() && batch(0) == batch(1) && batch(1) == batch(2));
}

#[test]
fn the_start_reads_the_queue_on_the_worker_and_keys_wait_for_it() {
    let f = fixture();
    // The queue built (a session of another coder), then ann confirmed the first entry:
    // the start builds nothing and resumes on the second.
    drop(f.session("bob"));
    f.store()
        .record_decision("ann", "confirm", &f.docs[..3], serde_json::json!({}))
        .unwrap();
    let mut s = Session::start_held(f.store(), "ann", false).unwrap();
    let (held, done) = held_then_released(&mut s, &[]);
    insta::assert_snapshot!("start_reading", held);
    insta::assert_snapshot!("start_read", done);
    assert!(
        done.contains("resumed at the first unreviewed cluster (2)"),
        "{done}"
    );
    // Keys typed before the queue lands act from the first unreviewed entry.
    let mut s = Session::start_held(f.store(), "ann", false).unwrap();
    press_held(&mut s, &["j", "x"]);
    release(&mut s);
    let log = f.store().decision_log("ann").unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].action, "reject");
    assert_eq!(log[1].target, vec![f.docs[3], f.docs[4]]);
}

/// A queue of three two-page entries: a hostile page whose title holds escape sequences,
/// control bytes and LIKE's wildcards (`%`, `_`, `\`), and two decoys that a search left
/// unescaped would match too.
fn wildcard_queue(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let db = dir.path().join("wildcards.db");
    let mut st = Store::open(&db).unwrap();
    let text = "a page long enough that triage does not take it for a near-empty page (a hundred characters or so)";
    let pages = [
        (
            "http://shop-a.example/sale",
            "Sale: 50%_off\\today\u{1b}[2J\u{1b}]0;pwned\u{7} \u{9b}31mnow\u{202e}!",
        ),
        ("http://shop-b.example/sale", "Sale at shop B"),
        // `%50%_off\%` unescaped matches this one ...
        ("http://decoy-a.example/sale", "Sale: 50 or 1 off\\ today"),
        ("http://decoy-b.example/sale", "Decoy sale"),
        // ... and `%%_%` every title.
        ("http://decoy-c.example/shirt", "100% cotton_shirt"),
        ("http://decoy-d.example/shirt", "Cotton shirt"),
    ];
    let ids: Vec<i64> = pages
        .iter()
        .enumerate()
        .map(|(i, (url, title))| {
            st.insert_test_document(url, title, &format!("{text} {i}"), None)
                .unwrap()
        })
        .collect();
    let run = st.create_run("spotsigs", &serde_json::json!({})).unwrap();
    let rows: Vec<ClusterRow> = ids
        .chunks(2)
        .map(|m| ClusterRow {
            members: m.to_vec(),
            min_score: Some(0.7),
            max_score: Some(0.9),
            weakest_bridge: None,
        })
        .collect();
    st.write_run_clusters(run, &rows).unwrap();
    st.finish_run(run, &serde_json::json!({})).unwrap();
    db
}

/// Whether a frame holds a control character (other than the rows' line ends) or a bidi
/// override.
fn has_control(frame: &str) -> bool {
    frame
        .chars()
        .any(|c| (c.is_control() && c != '\n') || matches!(c, '\u{202A}'..='\u{202E}'))
}

#[test]
fn a_search_for_a_hostile_title_finds_it_and_shows_no_control_byte() {
    let dir = tempfile::tempdir().unwrap();
    let db = wildcard_queue(&dir);
    let mut s = Session::new(Store::open(&db).unwrap(), "ann", false).unwrap();
    let all = text_of(&press(&mut s, &[]));
    assert_eq!(s.queue_len, 3, "{all}");
    assert!(!has_control(&all), "{all:?}");
    // The queue is built with its search index: a search of three characters or more reads
    // it, a shorter one its copy of the titles and URLs.
    assert!(Store::open(&db).unwrap().review_queue_is_current().unwrap());
    let search = |s: &mut Session, text: &str| {
        let mut keys = vec!["C".to_string(), "/".to_string()];
        keys.extend(typed(text));
        keys.push("Enter".into());
        let k: Vec<&str> = keys.iter().map(String::as_str).collect();
        text_of(&press(s, &k))
    };
    // `%`, `_` and `\` are the characters typed, not LIKE's wildcards and escape.
    let found = search(&mut s, "50%_off\\");
    insta::assert_snapshot!("hostile_title_searched", found);
    assert_eq!(s.queue_len, 1, "{found}");
    assert!(found.contains("1 clusters match"), "{found}");
    assert!(found.contains("Sale: 50%_off\\today now!"), "{found}");
    assert!(
        !found.contains("Decoy") && !found.contains("cotton"),
        "{found}"
    );
    assert!(!has_control(&found), "{found:?}");
    // Opened, its pages' titles and URLs are shown as safe text too.
    let opened = text_of(&press(&mut s, &["Enter"]));
    insta::assert_snapshot!("hostile_title_opened", opened);
    assert!(opened.contains("shop-a.example/sale"), "{opened}");
    assert!(!opened.contains("pwned"), "{opened}");
    assert!(!has_control(&opened), "{opened:?}");
    press(&mut s, &["Esc"]);
    // Two characters: the same entry, the decoys with a `%` and a `_` apart left out.
    let short = search(&mut s, "%_");
    assert_eq!(s.queue_len, 1, "{short}");
    assert!(short.contains("Sale: 50%_off"), "{short}");
    assert!(!has_control(&short), "{short:?}");
    // Shorter searches, each character matched as itself: the `%` and the `_` of the
    // hostile title and the cotton shirt's, the `\` of the hostile title and the first
    // decoy's.
    for (text, n) in [("50%_", 1), ("%", 2), ("_", 2), ("\\", 2), ("\\t", 1)] {
        let t = search(&mut s, text);
        assert_eq!(s.queue_len, n, "{text:?}: {t}");
        assert!(t.contains("Sale: 50%_off"), "{text:?}: {t}");
        assert!(!has_control(&t), "{t:?}");
    }
    // The escape itself, pasted into the prompt, finds the title that holds it; neither
    // the prompt nor the rows show it.
    press(&mut s, &["C", "/"]);
    if let Some(i) = s.input.as_mut() {
        i.text = "\u{1b}]0;pwned".into();
    }
    let pasted = text_of(&press(&mut s, &["Enter"]));
    assert_eq!(s.queue_len, 1, "{pasted}");
    assert!(pasted.contains("Sale: 50%_off"), "{pasted}");
    assert!(!has_control(&pasted), "{pasted:?}");
}
