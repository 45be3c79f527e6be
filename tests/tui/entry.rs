//! Opening an entry reads nothing on the UI thread: the cluster screen shows at once what
//! the queue row knows, the members arrive from the background worker, and keys pressed
//! meanwhile do what they can (Esc leaves, moves wait, a pair waits for the members). The
//! worker is held to look at the frames drawn before its results land, never timed.

use crate::support::{fixture, press, press_held, release, text_of};
use spotcheck::review::Mode;

#[test]
fn an_entry_opens_at_once_and_its_members_fill_in() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press_held(&mut s, &["Enter"]);
    insta::assert_snapshot!("entry_loading", text_of(&buf));
    let t = text_of(&buf);
    assert_eq!(s.mode(), Mode::Cluster);
    assert!(s.busy());
    // What the queue row knows: number, agreement, size, status, scores, title.
    assert!(
        t.contains("entry 1 · 2 of 2 detectors · 3 members · unreviewed"),
        "{t}"
    );
    assert!(t.contains("reading the 3 members…"), "{t}");
    assert!(t.contains("title: "), "{t}");
    let c = s.cluster.as_ref().unwrap();
    assert!(c.is_loading() && c.members.is_empty());
    let buf = release(&mut s);
    insta::assert_snapshot!("entry_filled", text_of(&buf));
    let t = text_of(&buf);
    assert!(!s.busy());
    assert!(!t.contains("reading"), "{t}");
    assert!(t.contains("anchor: 1 │ comparing: 2"), "{t}");
    assert!(t.contains("Mayor Ana Ruiz cut the ribbon"), "{t}");
    // The same frame as opening with the worker free (what every other test sees).
    let mut again = f.session("ann");
    assert_eq!(text_of(&press(&mut again, &["Enter"])), t);
}

#[test]
fn keys_pressed_while_the_members_are_read_do_not_act_on_missing_rows() {
    let f = fixture();
    let mut s = f.session("ann");
    // Moves, select, anchor, a group and a split: nothing to act on yet.
    let t = text_of(&press_held(
        &mut s,
        &["Enter", "j", "k", "j", "Space", "A", "1", "s"],
    ));
    assert_eq!(s.mode(), Mode::Cluster, "{t}");
    assert!(t.contains("still reading the entry's members…"), "{t}");
    assert!(s.pair.is_none());
    let c = s.cluster.as_ref().unwrap();
    assert!(c.selected.is_empty() && c.groups.is_empty());
    assert!(f.store().decision_log("ann").unwrap().is_empty());
    // The members land: the screen is the one opened without waiting.
    let t = text_of(&release(&mut s));
    assert!(t.contains("anchor: 1 │ comparing: 2"), "{t}");
    let c = s.cluster.as_ref().unwrap();
    assert_eq!(c.members.len(), 3);
    assert_eq!((c.anchor, c.cursor), (0, 1));
}

#[test]
fn enter_typed_ahead_opens_the_first_pair_when_the_members_land() {
    let f = fixture();
    let mut s = f.session("ann");
    let t = text_of(&press_held(&mut s, &["Enter", "Enter"]));
    assert_eq!(s.mode(), Mode::Cluster);
    assert!(
        t.contains("the pair opens when the entry's members are read…"),
        "{t}"
    );
    let t = text_of(&release(&mut s));
    assert_eq!(s.mode(), Mode::Pair, "{t}");
    let p = s.pair.as_ref().unwrap();
    assert_eq!((p.left.doc_id, p.right.doc_id), (f.docs[0], f.docs[1]));
    assert!(
        t.contains("imatch: 1.00 (7 of 11 lexicons agree) · spotsigs: Jaccard 0.91"),
        "{t}"
    );
}

#[test]
fn esc_while_the_members_are_read_leaves_and_their_result_is_dropped() {
    let f = fixture();
    let mut s = f.session("ann");
    press_held(&mut s, &["Enter", "Esc"]);
    assert_eq!(s.mode(), Mode::Queue);
    assert!(s.cluster.is_none());
    // The queued read was cancelled: nothing is pending.
    assert!(!s.busy());
    let t = text_of(&release(&mut s));
    assert_eq!(s.mode(), Mode::Queue);
    assert!(s.cluster.is_none());
    assert!(!t.contains("reading the"), "{t}");
    // The next entry opened before the worker ran: its members, not the story's.
    press_held(&mut s, &["Enter", "Esc", "j", "Enter"]);
    release(&mut s);
    let c = s.cluster.as_ref().unwrap();
    let ids: Vec<i64> = c.members.iter().map(|m| m.id).collect();
    assert_eq!(ids, c.row.members);
    assert!(!ids.contains(&f.docs[0]), "{ids:?}");
}

#[test]
fn the_group_view_from_the_queue_waits_for_the_members_then_builds_its_table() {
    let f = fixture();
    let mut s = f.session("ann");
    let t = text_of(&press_held(&mut s, &["w"]));
    assert_eq!(s.mode(), Mode::Group);
    assert!(t.contains("entry 1 · 3 members"), "{t}");
    assert!(
        t.contains("computing… (reading the entry's members first)"),
        "{t}"
    );
    let t = text_of(&release(&mut s));
    assert!(!s.busy());
    let rows: Vec<&str> = t.lines().filter(|l| l.contains(".example")).collect();
    assert_eq!(rows.len(), 3, "{t}");
}

#[test]
fn the_pair_view_reads_its_scores_with_the_documents() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["Enter"]);
    let t = text_of(&press_held(&mut s, &["Enter"]));
    assert_eq!(s.mode(), Mode::Pair);
    assert!(t.contains("reading each detector's score…"), "{t}");
    assert!(s.pair.as_ref().unwrap().evidence.is_empty());
    let t = text_of(&release(&mut s));
    assert!(
        t.contains("imatch: 1.00 (7 of 11 lexicons agree) · spotsigs: Jaccard 0.91"),
        "{t}"
    );
}

#[test]
fn previews_of_later_members_come_from_the_worker() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["Enter"]);
    // The third member's preview was not read with the entry: "reading…" until it lands.
    let t = text_of(&press_held(&mut s, &["j"]));
    assert!(t.contains("comparing 3"), "{t}");
    assert!(t.contains("reading…"), "{t}");
    assert!(s.busy());
    let t = text_of(&release(&mut s));
    assert!(t.contains("Editor's note"), "{t}");
    assert!(!s.busy());
}
