//! The group view: an entry's members as a table of sites, capture dates, lengths and
//! differences from the likely source, sorted by keys; one key confirms the story, two split
//! off an odd copy.

use crate::support::{fixture, press, press_held, release, text_of};
use spotcheck::review::Mode;
use spotcheck::store::LabelStatus;

/// The story's three framings with capture dates: Metro Post first (the likely source), the
/// Daily Courier an hour later, the Valley Gazette's short version a day later.
fn dated_fixture() -> crate::support::Fixture {
    let f = fixture();
    let store = f.store();
    for (doc, date) in [
        (f.docs[0], "2024-03-01T10:05:00Z"),
        (f.docs[1], "2024-03-01T09:00:00Z"),
        (f.docs[2], "2024-03-02T17:30:00Z"),
    ] {
        store.set_test_capture_date(doc, date).unwrap();
    }
    f
}

#[test]
fn the_group_view_marks_the_source_and_sorts_by_date_site_and_length() {
    let f = dated_fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &["w"]);
    insta::assert_snapshot!("group_view", text_of(&buf));
    let t = text_of(&buf);
    assert_eq!(s.mode(), Mode::Group);
    let rows: Vec<&str> = t.lines().filter(|l| l.contains(".example")).collect();
    assert_eq!(rows.len(), 3, "{t}");
    // By date: the earliest capture first, marked as the source.
    assert!(
        rows[0].starts_with("source") && rows[0].contains("metro-post.example"),
        "{t}"
    );
    assert!(rows[0].contains("2024-03-01 09:00"), "{t}");
    assert!(rows[2].contains("valley-gazette.example"), "{t}");
    // The Daily Courier adds its sign-off and says "as" where Metro Post says "while".
    assert!(rows[1].contains("+"), "{t}");
    // By site, then by length (longest first).
    let t = text_of(&press(&mut s, &["o"]));
    assert!(t.contains("sorted by site"), "{t}");
    let sites: Vec<&str> = t.lines().filter(|l| l.contains(".example")).collect();
    assert!(sites[0].contains("daily-courier"), "{t}");
    let t = text_of(&press(&mut s, &["o"]));
    let by_len: Vec<&str> = t.lines().filter(|l| l.contains(".example")).collect();
    assert!(by_len[2].contains("valley-gazette"), "{t}");
}

#[test]
fn one_key_confirms_the_story_and_two_split_off_an_odd_copy() {
    let f = dated_fixture();
    let mut s = f.session("ann");
    press(&mut s, &["w", "y"]);
    assert_eq!(s.mode(), Mode::Queue);
    let store = f.store();
    assert_eq!(
        store.label("ann", &f.docs[..3]).unwrap().status,
        LabelStatus::Confirmed
    );

    let f = dated_fixture();
    let mut s = f.session("bob");
    press(&mut s, &["w"]);
    // The cursor starts on the first copy after the source; the odd copy is one row down.
    let buf = press(&mut s, &["j", "s"]);
    let t = text_of(&buf);
    assert!(t.contains("split into 1 + 2"), "{t}");
    let log = f.store().decision_log("bob").unwrap();
    let last = log.last().unwrap();
    assert_eq!(last.action, "split");
    assert_eq!(
        last.payload["groups"],
        serde_json::json!([[f.docs[2]], [f.docs[0], f.docs[1]]])
    );
}

#[test]
fn the_group_view_opens_at_once_and_fills_in_when_its_table_arrives() {
    let f = dated_fixture();
    let mut s = f.session("ann");
    // The worker held: the view is there with a placeholder, the members not yet diffed.
    let buf = press_held(&mut s, &["w"]);
    insta::assert_snapshot!("group_view_computing", text_of(&buf));
    let t = text_of(&buf);
    assert_eq!(s.mode(), Mode::Group);
    assert!(s.busy());
    assert!(t.contains("entry 1 · 3 members"), "{t}");
    assert!(t.contains("computing…"), "{t}");
    assert!(!t.contains("source"), "{t}");
    let t = text_of(&release(&mut s));
    assert!(!s.busy());
    assert!(!t.contains("computing…"), "{t}");
    let rows: Vec<&str> = t.lines().filter(|l| l.contains(".example")).collect();
    assert_eq!(rows.len(), 3, "{t}");
    assert!(rows[0].starts_with("source"), "{t}");
    // Back and in again: the table was kept, shown at once even with the worker held.
    press(&mut s, &["w"]);
    assert_eq!(s.mode(), Mode::Cluster);
    let t = text_of(&press_held(&mut s, &["w"]));
    assert!(!s.busy());
    assert!(t.lines().any(|l| l.starts_with("source")), "{t}");
    s.hold_background(false);
}

#[test]
fn a_group_table_the_coder_moved_past_is_dropped() {
    let f = dated_fixture();
    let mut s = f.session("ann");
    // The story's table is asked for; the coder goes back to the queue and opens the next
    // entry's group view before the worker ran.
    press_held(&mut s, &["w", "Esc", "Esc", "j", "w"]);
    assert_eq!(s.mode(), Mode::Group);
    let t = text_of(&release(&mut s));
    assert!(t.contains("2 members · "), "{t}");
    assert!(!t.contains(".example"), "{t}");
    // The table shown is the open entry's, not the story's.
    let c = s.cluster.as_ref().unwrap();
    let mut shown: Vec<i64> = c
        .table
        .as_ref()
        .unwrap()
        .rows
        .iter()
        .map(|r| r.id)
        .collect();
    let mut members: Vec<i64> = c.members.iter().map(|m| m.id).collect();
    shown.sort();
    members.sort();
    assert_eq!(shown, members);
    assert!(!members.contains(&f.docs[0]));
}
