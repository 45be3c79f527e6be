//! The workbench driven by key sequences on a TestBackend: each screen and action, with
//! snapshots of the frames and assertions on styled cells and on the decision log.

use crate::support as tui_support;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use spotcheck::review::{HighlightKind, ACTIONS};
use spotcheck::store::{LabelStatus, Store};
use spotcheck::tui::view::{help_rows, highlight_style};
use spotcheck::tui::Keymap;
use tui_support::{fixture, press, text_of, typed};

/// The text of the cells drawn in `style`'s background/foreground, as runs per row.
fn styled_runs(buf: &Buffer, kind: HighlightKind) -> Vec<String> {
    let want = highlight_style(kind);
    let mut runs = Vec::new();
    for y in 0..buf.area.height {
        let mut cur = String::new();
        for x in 0..buf.area.width {
            let c = &buf[(x, y)];
            let same = Some(c.fg) == want.fg
                && (want.bg.is_none() || Some(c.bg) == want.bg)
                && c.modifier.contains(want.add_modifier);
            if same {
                cur.push_str(c.symbol());
            } else if !cur.is_empty() {
                runs.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            runs.push(cur);
        }
    }
    runs
}

#[test]
fn queue_screen_lists_every_cluster_with_status_and_progress() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &[]);
    insta::assert_snapshot!("queue", text_of(&buf));
    let text = text_of(&buf);
    // One entry per question: both detectors' story clusters are one entry.
    assert!(text.contains("reviewed 0/3"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("[ ]")).collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(
        rows[0].contains("2 of 2") && rows[1].contains("imatch only"),
        "{text}"
    );
    assert!(rows.iter().all(|r| r.contains("unreviewed")));
}

#[test]
fn opening_a_cluster_shows_members_anchor_and_comparison() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &["Enter"]);
    insta::assert_snapshot!("cluster", text_of(&buf));
    let text = text_of(&buf);
    // The story's three pairs form a cycle: no weakest link to show.
    assert!(
        text.contains("entry 1 · 2 of 2 detectors · 3 members"),
        "{text}"
    );
    assert!(!text.contains("weakest"), "{text}");
    assert!(text.contains("anchor: 1 │ comparing: 2"), "{text}");
}

#[test]
fn pair_view_highlights_shared_evidence_in_two_styles() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &["Enter", "Enter"]);
    insta::assert_snapshot!("pair", text_of(&buf));
    let text = text_of(&buf);
    assert!(
        text.contains("imatch: 1.00 (7 of 11 lexicons agree) · spotsigs: Jaccard 0.91"),
        "{text}"
    );
    let spots = styled_runs(&buf, HighlightKind::SpotSig);
    // The words of shared spot signatures (antecedent + chain), in both panes.
    for w in ["harbour", "opened", "Monday", "The bridge carries"] {
        assert_eq!(
            spots.iter().filter(|r| *r == w).count(),
            2,
            "{w}: {spots:?}"
        );
    }
    // Shared non-stopword terms outside any shared signature.
    let terms = styled_runs(&buf, HighlightKind::LexiconTerm);
    assert!(
        terms.iter().any(|r| r.eq_ignore_ascii_case("news")),
        "{terms:?}"
    );
    // Words only one side has are not highlighted.
    assert!(!spots.iter().any(|r| r.contains("subscribe")), "{spots:?}");
    // Scrolling is synchronized: one line down moves both panes.
    // (A short terminal, so the documents are longer than the panes.)
    let down = spotcheck::tui::render_keys(&mut s, &Keymap::defaults(), &["j"], 100, 12).unwrap();
    let first_row = text_of(&down)
        .lines()
        .nth(3)
        .unwrap_or_default()
        .to_string();
    assert!(first_row.starts_with("│decade of delays."), "{first_row}");
    assert!(
        first_row.contains("││The new harbour bridge opened on"),
        "{first_row}"
    );
}

#[test]
fn diff_view_marks_insertions_and_deletions() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &["Enter", "Enter", "d"]);
    insta::assert_snapshot!("pair_diff", text_of(&buf));
    let deleted = styled_runs(&buf, HighlightKind::DiffDelete);
    let inserted = styled_runs(&buf, HighlightKind::DiffInsert);
    assert!(deleted.iter().any(|r| r == "as"), "{deleted:?}");
    assert!(inserted.iter().any(|r| r == "while"), "{inserted:?}");
    assert!(text_of(&buf).contains("cut the ribbon as while crowds"));
    assert_eq!(buf.area.width, 100);
    // Back to the side-by-side view.
    let t = text_of(&press(&mut s, &["d"]));
    assert!(t.contains("anchor 1"), "{t}");
}

#[test]
fn text_toggle_switches_to_main_content() {
    let f = fixture();
    let mut s = f.session("ann");
    // `v` cycles visible → content → main.
    let t = text_of(&press(&mut s, &["Enter", "Enter", "v"]));
    assert!(t.contains("content text"), "{t}");
    let t = text_of(&press(&mut s, &["v"]));
    assert!(t.contains("main text"), "{t}");
    assert!(
        !t.contains("Daily Courier: subscribe"),
        "main text of doc 1 drops the footer: {t}"
    );
    // And back to the visible text.
    let t = text_of(&press(&mut s, &["v"]));
    assert!(t.contains("showing visible text"), "{t}");
    assert_eq!(
        s.pair.as_ref().map(|p| p.text),
        Some(spotcheck::store::TextKind::Visible)
    );
}

#[test]
fn text_toggle_skips_main_content_on_a_database_without_it() {
    use spotcheck::store::TextKind;
    let f = fixture();
    // As if ingested without `--main`: no document has a main-content text.
    rusqlite::Connection::open(&f.db)
        .unwrap()
        .execute("UPDATE documents SET main_text = NULL", [])
        .unwrap();
    let mut s = f.session("ann");
    let text = |s: &spotcheck::review::Session| s.pair.as_ref().map(|p| p.text);
    press(&mut s, &["Enter", "Enter"]);
    assert_eq!(text(&s), Some(TextKind::Visible));
    let t = text_of(&press(&mut s, &["v"]));
    assert!(t.contains("showing content text"), "{t}");
    // The cycle skips the main text (whether there is one was read by the start's job on
    // the worker: the key reads nothing) and says why.
    let t = text_of(&press(&mut s, &["v"]));
    assert_eq!(text(&s), Some(TextKind::Visible));
    insta::assert_snapshot!("text_toggle_without_main", t);
    // Typed ahead of the start, the same keys end on the same panes (the message line
    // may be the entry's, whose members' read lands after the keys).
    let mut s = spotcheck::review::Session::start_held(f.store(), "ann", false).unwrap();
    tui_support::press_held(&mut s, &["Enter", "Enter", "v", "v"]);
    let held = text_of(&tui_support::release(&mut s));
    assert_eq!(text(&s), Some(TextKind::Visible));
    let panes = |t: &str| t.lines().take(22).collect::<Vec<_>>().join("\n");
    assert_eq!(panes(&held), panes(&t));
}

#[test]
fn confirm_records_a_decision_and_moves_on() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &["y"]);
    insta::assert_snapshot!("queue_after_confirm", text_of(&buf));
    assert_eq!(s.cursor, 1);
    let store = f.store();
    assert_eq!(
        store.label("ann", &f.docs[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    assert_eq!(
        store
            .pair_label("ann", f.docs[0], f.docs[2])
            .unwrap()
            .as_deref(),
        Some("same")
    );
}

#[test]
fn split_moves_the_current_member_out() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["Enter", "s"]);
    let store = f.store();
    let d = &f.docs;
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Split
    );
    assert_eq!(
        store.pair_label("ann", d[0], d[2]).unwrap().as_deref(),
        Some("same")
    );
    assert_eq!(
        store.pair_label("ann", d[0], d[1]).unwrap().as_deref(),
        Some("different")
    );
    let log = store.decision_log("ann").unwrap();
    assert_eq!(
        log[0].payload["groups"],
        serde_json::json!([[d[1]], [d[0], d[2]]])
    );
}

#[test]
fn cut_splits_at_the_weakest_bridge() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["Enter", "c"]);
    let log = f.store().decision_log("ann").unwrap();
    let d = &f.docs;
    // Without the 2–3 edge, 1–2 and 1–3 still connect everything: nothing to cut.
    assert!(log.is_empty(), "{log:?}");
    assert!(s.message.contains("no weakest link"), "{}", s.message);
    let _ = d;
}

#[test]
fn reject_in_the_pair_view_labels_only_that_pair() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["Enter", "Enter", "x"]);
    let store = f.store();
    let d = &f.docs;
    assert_eq!(
        store.pair_label("ann", d[0], d[1]).unwrap().as_deref(),
        Some("different")
    );
    assert_eq!(store.pair_label("ann", d[0], d[2]).unwrap(), None);
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Unreviewed
    );
}

#[test]
fn tagging_a_selection_tags_each_cluster_and_completes_tags() {
    let f = fixture();
    let mut s = f.session("ann");
    let mut keys: Vec<String> = vec!["Space".into(), "Space".into(), "t".into()];
    keys.extend(typed("wire story"));
    keys.push("Enter".into());
    let k: Vec<&str> = keys.iter().map(String::as_str).collect();
    let buf = press(&mut s, &k);
    insta::assert_snapshot!("queue_tagged", text_of(&buf));
    let store = f.store();
    let d = &f.docs;
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().tags,
        vec!["wire story"]
    );
    assert_eq!(
        store.label("ann", &[d[5], d[6]]).unwrap().tags,
        vec!["wire story"]
    );
    assert!(s.selection.is_empty());
    // Completion from existing tags.
    let t = text_of(&press(&mut s, &["t", "w", "Tab"]));
    assert!(t.contains("tag: wire story█"), "{t}");
    press(&mut s, &["Esc"]);
    assert!(s.input.is_none());
}

#[test]
fn undo_and_redo_walk_the_log_and_a_batch_is_one_step() {
    let f = fixture();
    let mut s = f.session("ann");
    let d = f.docs.clone();
    let mut keys: Vec<String> = vec!["y".into(), "Space".into(), "Space".into(), "t".into()];
    keys.extend(typed("x"));
    keys.push("Enter".into());
    let k: Vec<&str> = keys.iter().map(String::as_str).collect();
    press(&mut s, &k);
    let store = Store::open(&f.db).unwrap();
    // y confirmed the story and moved on to the hostile pages; both Spaces select.
    assert_eq!(store.label("ann", &[d[5], d[6]]).unwrap().tags, vec!["x"]);
    press(&mut s, &["u"]);
    assert!(store.label("ann", &[d[5], d[6]]).unwrap().tags.is_empty());
    assert!(store.label("ann", &[d[3], d[4]]).unwrap().tags.is_empty());
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    let buf = press(&mut s, &["u"]);
    insta::assert_snapshot!("queue_after_two_undos", text_of(&buf));
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Unreviewed
    );
    press(&mut s, &["Ctrl-r"]);
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    press(&mut s, &["Ctrl-r"]);
    assert_eq!(store.label("ann", &[d[3], d[4]]).unwrap().tags, vec!["x"]);
    let t = text_of(&press(&mut s, &["Ctrl-r"]));
    assert!(t.contains("nothing to redo"), "{t}");
}

#[test]
fn help_screen_is_generated_from_the_action_table() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = press(&mut s, &["?"]);
    insta::assert_snapshot!("help", text_of(&buf));
    let rows = help_rows(&Keymap::defaults());
    assert_eq!(rows.len(), ACTIONS.len());
    for (row, a) in rows.iter().zip(ACTIONS) {
        assert_eq!(row[1], a.name);
        assert_ne!(row[0], "(unbound)", "{}", a.name);
    }
    let text = text_of(&buf);
    assert!(text.contains("Esc q ?          back"), "{text}");
    assert!(text.contains("y                confirm"), "{text}");
    // The status bar of the queue is generated from the same table.
    let q = text_of(&press(&mut s, &["Esc"]));
    assert!(q.contains("q quit · ? help · j down · Enter open"), "{q}");
}

#[test]
fn a_small_terminal_gets_a_clear_message() {
    let f = fixture();
    let mut s = f.session("ann");
    let buf = spotcheck::tui::render_keys(&mut s, &Keymap::defaults(), &["j"], 40, 10).unwrap();
    insta::assert_snapshot!("too_small", text_of(&buf));
    assert!(text_of(&buf).contains("Terminal too small: 40×10"));
}

#[test]
fn hostile_text_renders_as_harmless_visible_text() {
    let f = fixture();
    let mut s = f.session("ann");
    // Entry 2 of the queue is I-Match's {6, 7}; open it and compare the hostile pages.
    let cluster = press(&mut s, &["j", "Enter"]);
    let ct = text_of(&cluster);
    assert!(ct.contains("Totally normal page"), "{ct}");
    assert!(!ct.contains("pwned"), "{ct}");
    let buf = press(&mut s, &["Enter"]);
    insta::assert_snapshot!("pair_hostile", text_of(&buf));
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let sym = buf[(x, y)].symbol();
            assert!(
                !sym.chars()
                    .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
                "control character in cell ({x},{y}): {sym:?}"
            );
        }
    }
    let t = text_of(&buf);
    assert!(t.contains("RED ALERT       after a tab"), "{t}");
    assert!(t.contains("reversed and a link and a C1 sequence"), "{t}");
}

#[test]
fn blind_mode_hides_scores_and_evidence() {
    let f = fixture();
    let mut s = spotcheck::review::Session::new(f.store(), "gold", true).unwrap();
    let q = text_of(&press(&mut s, &[]));
    assert!(!q.contains("0.91") && q.contains("BLIND"), "{q}");
    let buf = press(&mut s, &["Enter", "Enter"]);
    let t = text_of(&buf);
    assert!(t.contains("blind mode: scores and evidence hidden"), "{t}");
    assert!(styled_runs(&buf, HighlightKind::SpotSig).is_empty());
    assert!(!t.contains("lexicons"), "{t}");
    // No evidence is drawn, so no legend of its styles either.
    assert!(
        !t.contains("ANDD k-grams") && !t.contains("SpotSigs"),
        "{t}"
    );
    let _ = (Color::Reset, Modifier::empty());
}

#[test]
fn filters_sort_and_search_narrow_the_queue() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["m"]); // first method alphabetically: imatch
    assert_eq!(s.queue_len, 2);
    press(&mut s, &["m", "m", "D"]); // spotsigs, then none; not every detector
    assert_eq!(s.filter.method, None);
    // The help pages (SpotSigs only) and the hostile pages (I-Match only).
    assert_eq!(s.queue_len, 2);
    let mut keys = vec!["C".to_string(), "/".to_string()];
    keys.extend(typed("help/"));
    keys.push("Enter".into());
    let k: Vec<&str> = keys.iter().map(String::as_str).collect();
    let t = text_of(&press(&mut s, &k));
    assert_eq!(s.queue_len, 1, "{t}");
    assert!(t.contains("Reset your password"), "{t}");
    press(&mut s, &["C", "y", "f", "f", "f"]); // status: unreviewed → partial → confirmed
    assert_eq!(s.filter.status, Some(LabelStatus::Confirmed));
    // The confirmed {1,2,3}: one entry for both detectors' clusters.
    assert_eq!(s.queue_len, 1);
    press(&mut s, &["o"]);
    assert_eq!(s.sort, spotcheck::store::QueueSort::SizeAsc);
}

#[test]
fn keys_a_user_keymap_rebinds_work() {
    let f = fixture();
    let mut s = f.session("ann");
    let mut k = Keymap::defaults();
    k.merge("queue J down\nglobal y none\nqueue Y confirm\n", "user")
        .unwrap();
    spotcheck::tui::render_keys(&mut s, &k, &["J", "y"], 100, 24).unwrap();
    assert_eq!(s.cursor, 1);
    assert!(f.store().decision_log("ann").unwrap().is_empty());
    spotcheck::tui::render_keys(&mut s, &k, &["Y"], 100, 24).unwrap();
    assert_eq!(f.store().decision_log("ann").unwrap().len(), 1);
}

#[test]
fn notes_show_on_the_cluster_and_tag_and_size_filters_narrow_the_queue() {
    let f = fixture();
    let mut s = f.session("ann");
    let mut keys = vec!["t".to_string()];
    keys.extend(typed("wire"));
    keys.extend(["Enter", "T", "w", "Tab", "Enter"].map(String::from));
    let k: Vec<&str> = keys.iter().map(String::as_str).collect();
    press(&mut s, &k);
    assert_eq!(s.filter.tag.as_deref(), Some("wire"));
    // The tagged {1,2,3}: one entry for both detectors' clusters.
    assert_eq!(s.queue_len, 1);
    press(&mut s, &["C", "z"]);
    assert_eq!((s.filter.min_size, s.queue_len), (Some(3), 1));
    let mut keys = vec!["C".to_string(), "Enter".to_string(), "N".to_string()];
    keys.extend(typed("check the date"));
    keys.push("Enter".into());
    let k: Vec<&str> = keys.iter().map(String::as_str).collect();
    let t = text_of(&press(&mut s, &k));
    assert!(t.contains("tags: wire │ note: check the date"), "{t}");
    assert_eq!(
        f.store()
            .label("ann", &f.docs[..3])
            .unwrap()
            .note
            .as_deref(),
        Some("check the date")
    );
}

#[test]
fn digits_partition_members_into_groups_and_one_split_records_them_all() {
    let f = fixture();
    let mut s = f.session("ann");
    let d = f.docs.clone();
    // Cluster {1,2,3}: document 2 (the current member) to group 1, document 3 to group 2;
    // document 1 stays in the rest.
    let buf = press(&mut s, &["Enter", "1", "j", "2"]);
    insta::assert_snapshot!("cluster_groups", text_of(&buf));
    let t = text_of(&buf);
    assert!(t.contains("groups 1: 1 · 2: 1 · rest: 1 (S splits)"), "{t}");
    let grp_column: Vec<&str> = t
        .lines()
        .filter(|l| l.contains("http://"))
        .take(3)
        .map(|l| l[6..9].trim())
        .collect();
    assert_eq!(grp_column, ["", "1", "2"], "{t}");
    assert!(
        f.store().decision_log("ann").unwrap().is_empty(),
        "nothing recorded yet"
    );
    let t = text_of(&press(&mut s, &["S"]));
    assert!(t.contains("split into 3 groups (1 + 1 + 1)"), "{t}");
    let store = f.store();
    let log = store.decision_log("ann").unwrap();
    assert_eq!(log.len(), 1, "one decision for the whole partition");
    assert_eq!(
        log[0].payload["groups"],
        serde_json::json!([[d[1]], [d[2]], [d[0]]])
    );
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        assert_eq!(
            store.pair_label("ann", d[a], d[b]).unwrap().as_deref(),
            Some("different")
        );
    }
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Split
    );
    // Undo takes the whole split back.
    press(&mut s, &["u"]);
    assert_eq!(store.pair_label("ann", d[0], d[1]).unwrap(), None);
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Unreviewed
    );
}

#[test]
fn a_selection_moves_into_a_new_group_and_the_pair_view_assigns_the_compared_member() {
    let f = fixture();
    let mut s = f.session("ann");
    let d = f.docs.clone();
    // Select documents 2 and 3, move them into a new group (1): {2,3} vs the rest {1}.
    press(&mut s, &["Enter", "Space", "j", "Space", "+"]);
    assert_eq!(s.prepared_groups(), vec![vec![d[1], d[2]], vec![d[0]]]);
    assert!(s.cluster.as_ref().unwrap().selected.is_empty());
    // 0 takes document 3 back to the rest; a split of one group is refused.
    press(&mut s, &["0", "k", "0"]);
    let t = text_of(&press(&mut s, &["S"]));
    assert!(t.contains("a split needs two groups"), "{t}");
    assert!(f.store().decision_log("ann").unwrap().is_empty());
    // In the pair view a digit assigns the compared member; ] moves on.
    press(&mut s, &["g", "j", "Enter", "3", "]", "3"]);
    assert_eq!(s.prepared_groups(), vec![vec![d[1], d[2]], vec![d[0]]]);
    press(&mut s, &["S"]);
    let store = f.store();
    assert_eq!(
        store.pair_label("ann", d[1], d[2]).unwrap().as_deref(),
        Some("same")
    );
    assert_eq!(
        store.pair_label("ann", d[0], d[2]).unwrap().as_deref(),
        Some("different")
    );
    assert_eq!(s.mode(), spotcheck::review::Mode::Queue);
}

#[test]
fn a_pair_opens_at_once_with_a_placeholder_while_the_documents_are_prepared() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use spotcheck::tui::{handle_key, parse_key, render};
    let f = fixture();
    let mut s = f.session("ann");
    let keys = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let mut key = |s: &mut spotcheck::review::Session, k: &str| {
        handle_key(s, &keys, parse_key(k).unwrap());
        render(&mut term, s, &keys).unwrap();
        term.backend().buffer().clone()
    };
    key(&mut s, "Enter");
    // The entry's members (read by the worker) are there before the pair is asked for.
    s.wait_background();
    s.hold_background(true);
    let buf = key(&mut s, "Enter");
    insta::assert_snapshot!("pair_loading", text_of(&buf));
    let t = text_of(&buf);
    assert!(s.busy());
    assert_eq!(
        t.matches("reading and comparing the documents…").count(),
        2,
        "{t}"
    );
    // The titles come at once; the evidence line is read with the documents, off the UI
    // thread.
    assert!(t.contains("reading each detector's score…"), "{t}");
    assert!(
        t.contains("compare 2 · en · http://metro-post.example"),
        "{t}"
    );
    // Keys still work: the diff is asked for, the next member replaces the queued job, and
    // the previous one replaces that.
    let t = text_of(&key(&mut s, "d"));
    assert!(t.contains("computing the word diff…"), "{t}");
    key(&mut s, "d");
    key(&mut s, "]");
    key(&mut s, "[");
    s.hold_background(false);
    s.wait_background();
    let t = text_of(&key(&mut s, "j"));
    assert!(!s.busy());
    assert!(
        t.contains("compare 2 · en · http://metro-post.example"),
        "{t}"
    );
    assert!(t.contains("imatch: 1.00 (7 of 11 lexicons agree)"), "{t}");
    assert!(t.contains("│Metro Post | News"), "{t}");
    assert!(!t.contains("reading and comparing"), "{t}");
    assert_eq!(
        styled_runs(&buf, HighlightKind::SpotSig),
        Vec::<String>::new()
    );
}

#[test]
fn the_readme_key_table_is_the_help_screen() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let table = spotcheck::tui::view::help_markdown(&Keymap::defaults());
    let start = readme
        .find("<!-- keys:start -->\n")
        .expect("README key table start marker");
    let end = readme
        .find("<!-- keys:end -->")
        .expect("README key table end marker");
    let current = &readme[start + "<!-- keys:start -->\n".len()..end];
    if current != table && std::env::var("SPOTCHECK_UPDATE_README").as_deref() == Ok("1") {
        let updated = format!(
            "{}{table}{}",
            &readme[..start + "<!-- keys:start -->\n".len()],
            &readme[end..]
        );
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"), updated).unwrap();
        return;
    }
    assert!(
        current == table,
        "README.md's key table is out of date: run this test with SPOTCHECK_UPDATE_README=1"
    );
}

#[test]
fn a_resize_draws_the_old_lines_at_once_and_the_long_documents_are_wrapped_off_the_ui_thread() {
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;
    use ratatui::Terminal;
    use spotcheck::review::wrap::wrap;
    use spotcheck::review::SYNC_WRAP_BYTES;
    use spotcheck::tui::{handle_key, parse_key, render, viewport_for};
    // Two documents of one long paragraph (unique words), longer than is wrapped on the UI
    // thread.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("long.db");
    let text: String = (0..16_000).map(|i| format!("w{i} ")).collect();
    assert!(text.len() > SYNC_WRAP_BYTES);
    let mut store = Store::open(&db).unwrap();
    let a = store.insert_test_document("a", "A", &text, None).unwrap();
    let b = store
        .insert_test_document("b", "B", &format!("{text}end"), None)
        .unwrap();
    let run = store
        .create_run("spotsigs", &serde_json::json!({}))
        .unwrap();
    store
        .write_run_clusters(
            run,
            &[spotcheck::store::ClusterRow {
                members: vec![a, b],
                min_score: Some(0.9),
                max_score: Some(0.9),
                weakest_bridge: None,
            }],
        )
        .unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    let mut s = spotcheck::review::Session::new(store, "ann", false).unwrap();
    let keys = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let draw = |s: &mut spotcheck::review::Session, term: &mut Terminal<TestBackend>| {
        render(term, s, &keys).unwrap();
        text_of(term.backend().buffer())
    };
    draw(&mut s, &mut term);
    for k in ["Enter", "Enter"] {
        handle_key(&mut s, &keys, parse_key(k).unwrap());
        draw(&mut s, &mut term);
    }
    s.wait_background();
    // The start of a pane's second line, as it appears after the pane's left border.
    let second = |width: u16| {
        let w = viewport_for(Rect::new(0, 0, width, 24)).pane_width;
        let line = &text[wrap(&text, w)[1].clone()];
        format!("│{}", line.split(' ').take(2).collect::<Vec<_>>().join(" "))
    };
    let t = draw(&mut s, &mut term);
    assert!(t.contains(&second(100)), "{t}");
    assert_ne!(second(100), second(70));

    // Narrower: the frame comes at once with the old lines (clipped), the new ones are
    // wrapped by the held worker.
    s.hold_background(true);
    term.backend_mut().resize(70, 24);
    let t = draw(&mut s, &mut term);
    assert!(s.busy() && s.pair.as_ref().unwrap().wrap_job.is_some());
    assert!(t.contains(&second(100)), "the old lines are drawn: {t}");
    assert!(!t.contains(&second(70)), "{t}");
    s.hold_background(false);
    s.wait_background();
    let t = draw(&mut s, &mut term);
    assert!(t.contains(&second(70)), "the new lines once wrapped: {t}");
    assert!(!s.busy());

    // Back to the old width: its lines are cached, nothing to wait for even with the
    // worker held.
    s.hold_background(true);
    term.backend_mut().resize(100, 24);
    let t = draw(&mut s, &mut term);
    assert!(!s.busy(), "drawn from the cache");
    assert!(t.contains(&second(100)), "{t}");
    s.hold_background(false);
}

#[test]
fn q_in_a_sub_screen_goes_back_and_only_the_queue_quits() {
    let f = fixture();
    let mut s = f.session("ann");
    press(&mut s, &["Enter", "Enter"]);
    assert_eq!(s.mode(), spotcheck::review::Mode::Pair);
    let buf = press(&mut s, &["q"]);
    insta::assert_snapshot!("q_from_pair", text_of(&buf));
    assert_eq!(s.mode(), spotcheck::review::Mode::Cluster);
    assert!(!s.quit);
    press(&mut s, &["?", "q"]);
    assert_eq!(
        s.mode(),
        spotcheck::review::Mode::Cluster,
        "q leaves the help"
    );
    press(&mut s, &["q"]);
    assert_eq!(s.mode(), spotcheck::review::Mode::Queue);
    assert!(!s.quit);
    press(&mut s, &["q"]);
    assert!(s.quit, "the queue's q quits");
}

#[test]
fn the_help_scrolls_and_fits_80x24() {
    let f = fixture();
    let mut s = f.session("ann");
    let first = spotcheck::tui::render_keys(&mut s, &Keymap::defaults(), &["?"], 80, 24).unwrap();
    let t = text_of(&first);
    assert!(t.lines().all(|l| l.chars().count() <= 80));
    assert!(t.contains("quit"), "{t}");
    let later = spotcheck::tui::render_keys(&mut s, &Keymap::defaults(), &["G"], 80, 24).unwrap();
    let last = ACTIONS.last().unwrap().name;
    assert!(text_of(&later).contains(last), "{}", text_of(&later));
}

/// A third detector pairs a byte-identical copy of the Daily Courier story with the Metro
/// Post one: the copy is collapsed into its original ("×2 captures") and the story stays
/// one entry, now found by all three detectors.
#[test]
fn a_merged_entry_shows_its_agreement_and_collapses_exact_copies() {
    let f = fixture();
    let d = f.docs.clone();
    let mut store = f.store();
    let copy = store
        .insert_test_document(
            "http://daily-courier.example/2024/bridge?amp",
            "Harbour bridge opens after decade of delays",
            crate::support::STORY_A,
            None,
        )
        .unwrap();
    let run = store.create_run("cooper", &serde_json::json!({})).unwrap();
    store
        .write_run_pairs(run, vec![(d[1], copy, 0.8, None), (d[0], d[2], 0.6, None)])
        .unwrap();
    store
        .write_run_clusters(
            run,
            &[spotcheck::store::ClusterRow {
                members: vec![d[0], d[1], d[2], copy],
                min_score: Some(0.6),
                max_score: Some(0.8),
                weakest_bridge: None,
            }],
        )
        .unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    drop(store);
    let mut s = f.session("ann");
    let q = press(&mut s, &[]);
    insta::assert_snapshot!("queue_merged", text_of(&q));
    let t = text_of(&q);
    let rows: Vec<&str> = t.lines().filter(|l| l.starts_with("[ ]")).collect();
    assert_eq!(rows.len(), 3, "{t}");
    assert!(
        rows[0].contains("3 of 3") && rows[0].contains("(×4 captures)"),
        "{t}"
    );
    let c = press(&mut s, &["Enter"]);
    insta::assert_snapshot!("cluster_merged", text_of(&c));
    let ct = text_of(&c);
    assert!(
        ct.contains("entry 1 · 3 of 3 detectors · 3 members"),
        "{ct}"
    );
    assert!(ct.contains("×2 captures · http://daily-courier"), "{ct}");
    assert!(ct.contains("triaged: 1 exact copies"), "{ct}");
    // Confirming labels the members (the copy stands with its original).
    press(&mut s, &["q", "y"]);
    s.wait_background();
    assert_eq!(
        f.store().label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
}

/// A verdict that changes the coder's earlier labels, or labels more pairs than the
/// threshold, shows what it will do and waits for `y`; any other key cancels.
#[test]
fn a_contradicting_or_big_decision_shows_its_consequence_first() {
    let f = fixture();
    let d = f.docs.clone();
    let mut s = f.session("ann");
    // ann says Daily Courier and Metro Post differ, in the pair view.
    press(&mut s, &["Enter", "Enter", "x", "q", "q"]);
    s.wait_background();
    let buf = press(&mut s, &["g", "y"]);
    insta::assert_snapshot!("consequence_prompt", text_of(&buf));
    let t = text_of(&buf);
    assert!(
        t.contains("confirms 3 pairs among 3 pages; overrides 1 earlier 'different' label by ann"),
        "{t}"
    );
    // Any other key cancels: nothing recorded.
    press(&mut s, &["n"]);
    assert!(
        s.pending.is_none() && s.message.starts_with("cancelled"),
        "{}",
        s.message
    );
    assert_eq!(f.store().decision_log("ann").unwrap().len(), 1);
    // y goes ahead.
    press(&mut s, &["g", "y", "y"]);
    s.wait_background();
    assert_eq!(
        f.store().label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    // A big decision asks too, without any contradiction.
    s.prompt_above_pairs = 0;
    let t = text_of(&press(&mut s, &["j", "x"]));
    assert!(
        t.contains("rejects 1 pairs among 2 pages. y: go ahead"),
        "{t}"
    );
}

/// Two documents sharing three sentences, each after lines of words only one document has:
/// the left one opens with a long preamble. Returns the session on that pair's cluster.
fn evidence_after_a_preamble(dir: &std::path::Path, blind: bool) -> spotcheck::review::Session {
    let shared = [
        "The bridge carries two tram lines and a path.",
        "Mayor Ana Ruiz cut the ribbon on the quay.",
        "It was the first new bridge in a decade.",
    ];
    // Lines of made-up words, unique to one document (nothing in them is shared evidence).
    let filler = |tag: &str, from: usize, n: usize| -> String {
        (from..from + n)
            .map(|i| format!("{tag}{i}a {tag}{i}b {tag}{i}c\n"))
            .collect()
    };
    let left = format!(
        "{}{}\n{}{}\n{}{}\n{}",
        filler("lp", 0, 30),
        shared[0],
        filler("lg", 0, 20),
        shared[1],
        filler("lh", 0, 20),
        shared[2],
        filler("lt", 0, 20),
    );
    let right = format!(
        "{}{}\n{}\n{}\n",
        filler("rp", 0, 28),
        shared[0],
        shared[1],
        shared[2]
    );
    let mut store = Store::open(&dir.join("preamble.db")).unwrap();
    let a = store
        .insert_test_document("left", "L", &left, None)
        .unwrap();
    let b = store
        .insert_test_document("right", "R", &right, None)
        .unwrap();
    let run = store
        .create_run("spotsigs", &serde_json::json!({}))
        .unwrap();
    store.write_run_pairs(run, vec![(a, b, 0.8, None)]).unwrap();
    store
        .write_run_clusters(
            run,
            &[spotcheck::store::ClusterRow {
                members: vec![a, b],
                min_score: Some(0.8),
                max_score: Some(0.8),
                weakest_bridge: None,
            }],
        )
        .unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    spotcheck::review::Session::new(store, "ann", blind).unwrap()
}

#[test]
fn a_pair_opens_at_its_first_evidence_and_e_and_shift_e_jump_between_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = evidence_after_a_preamble(dir.path(), false);
    let buf = press(&mut s, &["Enter", "Enter"]);
    let t = text_of(&buf);
    insta::assert_snapshot!("pair_first_evidence", t);
    // The first shared sentence is line 30 of the left document: one line of context above.
    assert_eq!(s.pair.as_ref().unwrap().scroll, 29, "{t}");
    let rows: Vec<&str> = t.lines().collect();
    assert!(rows[3].starts_with("│lp29a"), "{t}");
    assert!(rows[4].starts_with("│The bridge carries"), "{t}");
    let spots = styled_runs(&buf, HighlightKind::SpotSig);
    let terms = styled_runs(&buf, HighlightKind::LexiconTerm);
    assert!(spots.iter().any(|r| r == "carries"), "{spots:?} {terms:?}");
    // The legend names each highlight style in that style.
    assert!(
        t.contains("SpotSigs signatures, MinHash shingles · I-Match lexicon terms · ANDD k-grams"),
        "{t}"
    );
    assert!(styled_runs(&buf, HighlightKind::AnddGram).contains(&"ANDD k-grams".to_string()));

    // e: the next evidence (the second sentence, line 51), then the third (line 72).
    let buf = press(&mut s, &["e"]);
    assert_eq!(s.pair.as_ref().unwrap().scroll, 50);
    insta::assert_snapshot!("pair_next_evidence", text_of(&buf));
    press(&mut s, &["e"]);
    assert_eq!(s.pair.as_ref().unwrap().scroll, 71);
    let t = text_of(&press(&mut s, &["e"]));
    assert_eq!(
        s.pair.as_ref().unwrap().scroll,
        71,
        "no further evidence: {t}"
    );
    assert!(t.contains("no more evidence below"), "{t}");
    // E: back to the previous ones, and a message before the first.
    press(&mut s, &["E", "E"]);
    assert_eq!(s.pair.as_ref().unwrap().scroll, 29);
    let t = text_of(&press(&mut s, &["E"]));
    assert_eq!(s.pair.as_ref().unwrap().scroll, 29);
    assert!(t.contains("no evidence above"), "{t}");
}

#[test]
fn a_scroll_before_the_texts_arrive_is_kept_over_the_jump_to_evidence() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use spotcheck::tui::{handle_key, parse_key, render};
    let dir = tempfile::tempdir().unwrap();
    let mut s = evidence_after_a_preamble(dir.path(), false);
    let keys = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    render(&mut term, &mut s, &keys).unwrap();
    handle_key(&mut s, &keys, parse_key("Enter").unwrap());
    render(&mut term, &mut s, &keys).unwrap();
    // The entry's members (read by the worker) are there before the pair is opened.
    s.wait_background();
    s.hold_background(true);
    for k in ["Enter", "j", "j"] {
        handle_key(&mut s, &keys, parse_key(k).unwrap());
        render(&mut term, &mut s, &keys).unwrap();
    }
    s.hold_background(false);
    s.wait_background();
    render(&mut term, &mut s, &keys).unwrap();
    // The coder's scroll wins over the jump to the first evidence (line 29). While the panes
    // were empty the scroll was clamped to them, so it reads 0.
    let p = s.pair.as_ref().unwrap();
    assert!(p.scrolled);
    assert_eq!(p.scroll, 0);
}

#[test]
fn evidence_jumps_say_so_in_blind_mode() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = evidence_after_a_preamble(dir.path(), true);
    let t = text_of(&press(&mut s, &["Enter", "Enter", "e"]));
    assert_eq!(
        s.pair.as_ref().unwrap().scroll,
        0,
        "blind mode opens at the top: {t}"
    );
    assert!(t.contains("blind mode: no evidence is shown"), "{t}");
    assert!(!t.contains("ANDD k-grams"), "{t}");
}

/// Auto-advance is on by default: a verdict in the cluster screen goes back to the queue, on
/// the next entry. `Ctrl-a` turns it off (the header says so): the next verdict stays on the
/// entry it decided, in the cluster screen, its status updated.
#[test]
fn auto_advance_moves_on_after_a_verdict_and_ctrl_a_makes_the_screen_stay() {
    let f = fixture();
    let mut s = f.session("ann");
    assert!(s.auto_advance);
    press(&mut s, &["Enter", "y"]);
    assert_eq!(s.mode(), spotcheck::review::Mode::Queue);
    assert_eq!(s.cursor, 1);
    let buf = press(&mut s, &["Ctrl-a", "Enter", "x"]);
    insta::assert_snapshot!("cluster_stays_after_verdict", text_of(&buf));
    let t = text_of(&buf);
    assert!(!s.auto_advance);
    assert_eq!(s.mode(), spotcheck::review::Mode::Cluster, "{t}");
    assert_eq!(s.cursor, 1);
    assert!(t.contains("stays after verdicts"), "{t}");
    assert!(t.contains("rejected"), "{t}");
    // Toggled back on, the header no longer mentions it and verdicts move on again.
    let t = text_of(&press(&mut s, &["Ctrl-a", "Esc", "j", "Enter", "y"]));
    assert!(s.auto_advance && !t.contains("stays after verdicts"), "{t}");
    assert_eq!(s.mode(), spotcheck::review::Mode::Queue, "{t}");
}

#[test]
fn replay_links_show_on_the_cluster_screen_and_w_copies_one() {
    let f = fixture();
    let mut plain = f.session("ann");
    press(&mut plain, &["Enter", "W"]);
    assert!(plain.message.contains("--replay-url"), "{}", plain.message);
    assert!(plain.clipboard.is_none());

    let mut s = f.session("ann");
    s.replay_base = Some("https://web.archive.org/web/".into());
    let buf = press(&mut s, &["Enter"]);
    let text = text_of(&buf);
    assert!(
        text.contains("replay (W copies): https://web.archive.org/web/"),
        "{text}"
    );
    press(&mut s, &["W"]);
    let copied = s.clipboard.clone().expect("W asks for the clipboard");
    let c = s.cluster.as_ref().unwrap();
    let member = &c.members[c.cursor];
    assert!(
        copied.starts_with("https://web.archive.org/web/") && copied.ends_with(&member.url),
        "{copied} for {}",
        member.url
    );
    assert!(!copied.chars().any(char::is_control));
    assert!(s.message.starts_with("copied (OSC 52): "), "{}", s.message);
}
