//! Persistence of review decisions across restarts and detector reruns, through the
//! session API (what the workbench does), checked in the store.

use crate::support as tui_support;

use spotcheck::review::Session;
use spotcheck::store::{ClusterRow, LabelStatus, QueueFilter, QueueSort, Store};
use tui_support::{fixture, press, text_of};

#[test]
fn decisions_survive_a_restart_and_the_session_resumes_at_the_first_unreviewed() {
    let f = fixture();
    let d = f.docs.clone();
    {
        let mut s = f.session("ann");
        press(&mut s, &["y", "j", "x"]);
        // Dropped without quitting: nothing else to flush.
    }
    let s = f.session("ann");
    let store = f.store();
    assert_eq!(
        store.label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    // y confirmed the story and moved on to the hostile pages; j went to the help pages.
    assert_eq!(
        store.label("ann", &[d[3], d[4]]).unwrap().status,
        LabelStatus::Rejected
    );
    // Rows 0 and 2 are decided: the first unreviewed is row 1.
    assert_eq!(s.cursor, 1);
    assert_eq!(s.undo_depth(), (2, 0));
}

#[test]
fn undo_and_redo_work_across_restarts() {
    let f = fixture();
    let d = f.docs.clone();
    press(&mut f.session("ann"), &["y"]);
    press(&mut f.session("ann"), &["u"]);
    assert_eq!(
        f.store().label("ann", &d[..3]).unwrap().status,
        LabelStatus::Unreviewed
    );
    let mut s = f.session("ann");
    assert_eq!(s.undo_depth(), (0, 1));
    press(&mut s, &["Ctrl-r"]);
    assert_eq!(
        f.store().label("ann", &d[..3]).unwrap().status,
        LabelStatus::Confirmed
    );
    // Another coder's undo never touches ann's decisions.
    press(&mut f.session("bob"), &["u"]);
    assert_eq!(f.store().decision_log("ann").unwrap().len(), 3);
    assert!(f.store().decision_log("bob").unwrap().is_empty());
}

#[test]
fn labels_survive_a_detector_rerun_with_other_cluster_ids() {
    let f = fixture();
    let d = f.docs.clone();
    press(&mut f.session("ann"), &["y"]);
    let mut store = Store::open(&f.db).unwrap();
    let run = store
        .create_run("spotsigs", &serde_json::json!({"tau": 0.4}))
        .unwrap();
    store
        .write_run_clusters(
            run,
            &[
                ClusterRow {
                    members: vec![d[3], d[4]],
                    min_score: Some(0.6),
                    max_score: Some(0.6),
                    weakest_bridge: None,
                },
                ClusterRow {
                    members: vec![d[0], d[1], d[2]],
                    min_score: Some(0.6),
                    max_score: Some(0.95),
                    weakest_bridge: None,
                },
            ],
        )
        .unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    drop(store);
    let s = f.session("ann");
    let store = s.store();
    let rows = store
        .queue_page(
            "ann",
            &QueueFilter {
                method: Some("spotsigs".into()),
                ..QueueFilter::default()
            },
            QueueSort::SizeDesc,
            0,
            10,
        )
        .unwrap();
    assert_eq!(rows.len(), 2);
    // One entry per member set, whatever the run's cluster numbers.
    assert_eq!(rows[0].members, d[..3].to_vec());
    assert_eq!(rows[0].status, LabelStatus::Confirmed);
}

#[test]
fn a_rerun_cluster_with_a_new_member_shows_partly_reviewed_and_is_finished_in_the_ui() {
    let f = fixture();
    let d = f.docs.clone();
    // ann confirms {1,2,3} and tags it.
    let mut keys = vec!["y", "k", "t"];
    keys.extend(["w", "i", "r", "e", "Enter"]);
    press(&mut f.session("ann"), &keys);
    // A rerun adds document 4 to the story and drops document 5 from the help pages.
    let mut store = Store::open(&f.db).unwrap();
    let run = store
        .create_run("spotsigs", &serde_json::json!({"tau": 0.3}))
        .unwrap();
    let cluster = |members: Vec<i64>| ClusterRow {
        members,
        min_score: Some(0.4),
        max_score: Some(0.9),
        weakest_bridge: None,
    };
    store
        .write_run_clusters(run, &[cluster(vec![d[0], d[1], d[2], d[3]])])
        .unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    drop(store);
    let mut s = f.session("ann");
    // The new cluster is the first in the queue (size 4) and not fully reviewed: the
    // session resumes there.
    assert_eq!(s.cursor, 0);
    let t = text_of(&press(&mut s, &[]));
    let row = t
        .lines()
        .find(|l| l.starts_with('[') && l.contains(" 4 "))
        .unwrap();
    assert!(row.contains("partly 3/6"), "{t}");
    assert!(
        row.contains("wire"),
        "the tag of the confirmed set carries over: {t}"
    );
    let t = text_of(&press(&mut s, &["Enter"]));
    assert!(t.contains("partly reviewed (3 of 6 pairs)"), "{t}");
    // Confirming the whole cluster labels the three new pairs.
    press(&mut s, &["y"]);
    let r = s
        .store()
        .cluster_review("ann", spotcheck::store::MERGED_QUEUE, 1)
        .unwrap();
    assert_eq!(
        (r.status, r.labeled, r.pairs),
        (LabelStatus::Confirmed, 6, 6)
    );
    assert_eq!(
        s.store().pair_label("ann", d[0], d[3]).unwrap().as_deref(),
        Some("same")
    );
}

#[test]
fn two_coders_agreement_is_reported() {
    let f = fixture();
    // ann confirms the 3-story cluster; bob splits document 2 out of it.
    press(&mut f.session("ann"), &["y"]);
    press(&mut f.session("bob"), &["Enter", "s"]);
    let a = f.store().agreement("ann", "bob").unwrap();
    // Pairs (1,2) (1,3) (2,3): ann same,same,same; bob diff,same,diff → agree on 1 of 3.
    // pa_same = 1, pb_same = 1/3, pe = 1/3, po = 1/3 → kappa 0.
    assert_eq!((a.shared_pairs, a.agreed), (3, 1));
    assert_eq!(a.kappa, Some(0.0));
    let s = Session::new(f.store(), "carol", false).unwrap();
    let coders: Vec<&str> = s.progress.iter().map(|p| p.coder.as_str()).collect();
    assert_eq!(coders, vec!["ann", "bob", "carol"]);
}

/// The bundled demo crawl through the real readers and extractors, clustered by title (a
/// stand-in detector run), renders in the workbench without a control character, the
/// hostile page included. Skips while the readers are not merged.
#[test]
fn the_demo_crawl_renders_safely_in_the_workbench() {
    use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let demo = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo"));
    if let Err(e) = ingest_paths(&db, &[demo], &IngestOptions::default()) {
        panic!("the bundled demo crawl must ingest: {e:#}");
    }
    let mut store = Store::open(&db).unwrap();
    // One cluster per host-less file name (the same page in several releases or sites),
    // plus one with the hostile page and the first document.
    let mut by_name: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    let mut first = None;
    let mut hostile = None;
    store
        .for_each_document(|d| {
            first.get_or_insert(d.id);
            if d.url.contains("escapes") {
                hostile = Some(d.id);
            }
            let name = d.url.rsplit('/').next().unwrap_or("").to_string();
            by_name.entry(name).or_default().push(d.id);
            Ok(())
        })
        .unwrap();
    let mut clusters: Vec<ClusterRow> = by_name
        .into_values()
        .filter(|m| m.len() > 1)
        .map(|members| ClusterRow {
            members,
            min_score: Some(0.5),
            max_score: Some(0.9),
            weakest_bridge: None,
        })
        .collect();
    if let (Some(a), Some(h)) = (first, hostile) {
        clusters.insert(
            0,
            ClusterRow {
                members: vec![a, h],
                min_score: Some(1.0),
                max_score: Some(1.0),
                weakest_bridge: None,
            },
        );
    }
    let run = store
        .create_run("spotsigs", &serde_json::json!({}))
        .unwrap();
    store.write_run_clusters(run, &clusters).unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    drop(store);
    let mut s = Session::new(Store::open(&db).unwrap(), "demo", false).unwrap();
    s.sort = QueueSort::ScoreDesc;
    for keys in [
        &[][..],
        &["g", "Enter"],
        &["Enter"],
        &["j", "j", "j"],
        &["d"],
        &["v"],
    ] {
        let buf = press(&mut s, keys);
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                let sym = buf[(x, y)].symbol();
                assert!(
                    !sym.chars().any(|c| c.is_control()),
                    "control character at ({x},{y}) after {keys:?}"
                );
            }
        }
    }
}

#[test]
fn the_queue_reads_only_the_pages_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("many.db");
    let mut store = Store::open(&db).unwrap();
    let ids: Vec<i64> = (0..1000)
        .map(|i| {
            store
                .insert_test_document(
                    &format!("u{i}"),
                    &format!("t{i}"),
                    &format!("text {i}, long enough that triage does not take it for a near-empty page (a hundred characters)"),
                    None,
                )
                .unwrap()
        })
        .collect();
    let run = store
        .create_run("spotsigs", &serde_json::json!({}))
        .unwrap();
    let clusters: Vec<ClusterRow> = ids
        .chunks(2)
        .map(|m| ClusterRow {
            members: m.to_vec(),
            min_score: Some(0.9),
            max_score: Some(0.9),
            weakest_bridge: None,
        })
        .collect();
    store.write_run_clusters(run, &clusters).unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    let mut s = Session::new(store, "ann", false).unwrap();
    assert_eq!(s.queue_len, 500);
    press(&mut s, &[]);
    assert_eq!(s.loaded_pages(), 1);
    press(&mut s, &["G"]);
    assert_eq!(s.cursor, 499);
    // The last rows live on page 4 (rows 400..500): pages 0 and 4 were shown, their
    // neighbours 1 and 3 read ahead on the worker; page 2 was never read.
    assert_eq!(s.loaded_pages(), 4);
    assert!(s.row_at(250).is_none() && s.row_at(499).is_some());
    // Paging up reads each page before the loaded one; the rows equal a read by offset.
    let pages: Vec<&str> = vec!["PageUp"; 30];
    press(&mut s, &pages);
    assert_eq!(s.cursor, 0);
    assert_eq!(s.loaded_pages(), 5);
    let all = s
        .store()
        .queue_page("ann", &s.filter, s.sort, 0, 1000)
        .unwrap();
    for (pos, row) in all.iter().enumerate() {
        assert_eq!(s.row_at(pos as u64).map(|r| r.cluster), Some(row.cluster));
    }
}

#[test]
fn the_review_command_explains_what_it_needs() {
    let bin = env!("CARGO_BIN_EXE_spotcheck");
    let out = std::process::Command::new(bin)
        .args(["review", "--db", "/nonexistent/x.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database at /nonexistent/x.db"));
    let f = fixture();
    let out = std::process::Command::new(bin)
        .args(["review", "--coder", "ann", "--db"])
        .arg(&f.db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("needs a terminal"),
        "{out:?}"
    );
    let keymap = f.dir.path().join("keys.txt");
    std::fs::write(&keymap, "queue j fly\n").unwrap();
    let out = std::process::Command::new(bin)
        .args(["review", "--keymap"])
        .arg(&keymap)
        .arg("--db")
        .arg(&f.db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keys.txt:1: unknown action \"fly\""), "{err}");
}

/// The pair view opens on the text the entry's detectors read: after `detect` with the
/// defaults (the content text), a coder comparing two copies starts on their content, not on
/// the sites' menus; `v` still reaches every text.
#[test]
fn the_pair_view_opens_on_the_text_the_detectors_read() {
    use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
    use spotcheck::detect::spotsigs::{SpotSigs, SpotSigsSettings};
    use spotcheck::store::TextKind;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let demo = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo"));
    ingest_paths(&db, &[demo], &IngestOptions::default()).unwrap();
    let mut store = Store::open(&db).unwrap();
    let defaults = SpotSigsSettings::default();
    assert_eq!(defaults.text, TextKind::Content);
    spotcheck::detect::run_with::<SpotSigs>(&mut store, &defaults).unwrap();
    let mut s = Session::new(store, "demo", false).unwrap();
    press(&mut s, &["Enter", "Enter"]);
    assert_eq!(s.pair.as_ref().map(|p| p.text), Some(TextKind::Content));
    press(&mut s, &["v"]);
    assert_eq!(s.pair.as_ref().map(|p| p.text), Some(TextKind::Main));

    // A run that read the visible text opens the pair there.
    let mut store = Store::open(&db).unwrap();
    let visible = SpotSigsSettings {
        text: TextKind::Visible,
        ..SpotSigsSettings::default()
    };
    spotcheck::detect::run_with::<SpotSigs>(&mut store, &visible).unwrap();
    drop(s);
    let mut s = Session::new(store, "demo", false).unwrap();
    press(&mut s, &["Enter", "Enter"]);
    assert_eq!(s.pair.as_ref().map(|p| p.text), Some(TextKind::Visible));
}

#[test]
fn a_queue_to_rebuild_is_built_off_the_ui_thread_and_the_first_frame_says_so() {
    let f = fixture();
    // The fixture's runs were never merged into a queue: the workbench's start builds it
    // on the background worker, held here to see the frames. The first frame is drawn
    // before anything is read (the start's reads are the worker's first job).
    let mut s = Session::start_held(f.store(), "ann", false).unwrap();
    let t = text_of(&tui_support::press_held(&mut s, &[]));
    assert!(s.busy() && s.queue_reading());
    assert!(t.contains("reading the queue…"), "{t}");
    // The start's reads landed: the queue must be built, and the frame says so.
    s.step_background();
    let buf = tui_support::press_held(&mut s, &[]);
    let t = text_of(&buf);
    assert!(s.busy() && !s.queue_reading());
    assert_eq!(s.queue_len, 0);
    assert!(
        t.contains("building the review queue from the detector runs"),
        "{t}"
    );
    // Keys meanwhile do nothing harmful (an empty queue).
    tui_support::press_held(&mut s, &["j", "Enter", "y"]);
    assert_eq!(s.mode(), spotcheck::review::Mode::Queue);
    let t = text_of(&tui_support::release(&mut s));
    assert!(!s.busy());
    assert_eq!(s.queue_len, 3);
    assert!(
        t.contains("resumed at the first unreviewed cluster (1)"),
        "{t}"
    );
    assert!(f.store().decision_log("ann").unwrap().is_empty());
    // The queue is current now: the next start builds nothing, and reads the queue on the
    // worker too (its first frame says so; keys typed meanwhile wait for it).
    let mut s = Session::start_held(f.store(), "ann", false).unwrap();
    let t = text_of(&tui_support::press_held(&mut s, &["j"]));
    assert!(s.busy() && s.queue_reading());
    assert!(t.contains("Reading the queue (sort: "), "{t}");
    assert!(t.contains("reading the queue…"), "{t}");
    assert!(!t.contains("building the review queue"), "{t}");
    let t = text_of(&tui_support::release(&mut s));
    assert_eq!(s.queue_len, 3);
    assert!(
        t.contains("resumed at the first unreviewed cluster (1)"),
        "{t}"
    );
    assert_eq!(
        s.cursor, 1,
        "the `j` typed ahead moved from the first unreviewed entry"
    );
}

#[test]
fn a_news_pair_of_the_demo_opens_on_the_content_text_at_its_evidence() {
    use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
    use spotcheck::detect::spotsigs::{SpotSigs, SpotSigsSettings};
    use spotcheck::store::TextKind;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let demo = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo"));
    ingest_paths(&db, &[demo], &IngestOptions::default()).unwrap();
    let mut store = Store::open(&db).unwrap();
    spotcheck::detect::run_with::<SpotSigs>(&mut store, &SpotSigsSettings::default()).unwrap();
    let mut s = Session::new(store, "ann", false).unwrap();
    // The wire story (Harrow Bridge's ferry) on three sites' templates and in a feed: found
    // by its URLs, its entry opened, its first pair compared.
    let mut keys = vec!["/"];
    keys.extend(["w", "i", "r", "e", "Enter", "Enter", "Enter"]);
    let buf = press(&mut s, &keys);
    let t = text_of(&buf);
    insta::assert_snapshot!("news_pair_first_evidence", t);
    let p = s.pair.as_ref().expect("the pair view is open");
    assert_eq!(p.text, TextKind::Content, "{t}");
    assert!(!p.left.highlights.is_empty(), "no evidence: {t}");
    // The story, not the sites' menus, is what the coder reads first.
    assert!(t.contains("ferry"), "{t}");
    assert!(!t.contains("Podcasts"), "{t}");
}
