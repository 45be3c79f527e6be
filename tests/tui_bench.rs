//! Latency of the workbench on a large database (ignored by default; run with
//! `cargo test --release --test tui_bench -- --ignored --nocapture`): 100,000 documents,
//! 10,000 clusters; time to the first frame, and per key event to a rendered frame
//! (TestBackend) for moving in the queue, opening a cluster and scrolling a 5,000-line
//! document.

use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spotcheck::review::Session;
use spotcheck::store::{ClusterRow, Store};
use spotcheck::tui::{handle_key, parse_key, render, Keymap};

fn p99(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[(v.len() * 99 / 100).min(v.len() - 1)]
}

#[test]
#[ignore]
fn first_frame_and_key_latency_on_a_large_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("big.db");
    let n_docs = 100_000;
    let mut store = Store::open(&db).unwrap();
    let t = Instant::now();
    let long: String = (0..5000)
        .map(|i| format!("line {i} of a very long document about the harbour bridge\n"))
        .collect();
    let mut ids = Vec::with_capacity(n_docs);
    for i in 0..n_docs {
        let text = if i < 3 {
            long.clone()
        } else {
            format!(
                "document {i} about topic {} with some shared words",
                i % 977
            )
        };
        ids.push(
            store
                .insert_test_document(
                    &format!("http://site{}.example/{i}", i % 50),
                    &format!("Title {i}"),
                    &text,
                    None,
                )
                .unwrap(),
        );
    }
    let run = store
        .create_run("spotsigs", &serde_json::json!({}))
        .unwrap();
    let clusters: Vec<ClusterRow> = (0..10_000)
        .map(|c| ClusterRow {
            members: ids[c * 3..c * 3 + 2 + usize::from(c % 2 == 0)].to_vec(),
            min_score: Some(0.5 + (c % 40) as f64 / 100.0),
            max_score: Some(if c == 0 { 0.99 } else { 0.9 }),
            weakest_bridge: None,
        })
        .collect();
    store.write_run_clusters(run, &clusters).unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    drop(store);
    eprintln!(
        "built {n_docs} documents, 10000 clusters in {:?}",
        t.elapsed()
    );

    let keys = Keymap::defaults();
    let start = Instant::now();
    let store = Store::open(&db).unwrap();
    let mut s = Session::new(store, "bench", false).unwrap();
    let mut term = Terminal::new(TestBackend::new(160, 50)).unwrap();
    render(&mut term, &mut s, &keys).unwrap();
    let first = start.elapsed();
    // The queue table is built on the first start only; measure a restart too.
    let start = Instant::now();
    let mut s = Session::new(Store::open(&db).unwrap(), "bench", false).unwrap();
    render(&mut term, &mut s, &keys).unwrap();
    let restart = start.elapsed();

    let mut press = |s: &mut Session, k: &str| -> Duration {
        let t = Instant::now();
        handle_key(s, &keys, parse_key(k).unwrap());
        render(&mut term, s, &keys).unwrap();
        t.elapsed()
    };
    let moves: Vec<Duration> = (0..1000).map(|_| press(&mut s, "j")).collect();
    let mut opens = Vec::new();
    for _ in 0..100 {
        opens.push(press(&mut s, "Enter"));
        press(&mut s, "Esc");
        press(&mut s, "j");
    }
    press(&mut s, "g");
    press(&mut s, "Enter");
    let open_pair = press(&mut s, "Enter");
    assert!(s
        .pair
        .as_ref()
        .is_some_and(|p| p.left.lines().len() >= 5000));
    let scrolls: Vec<Duration> = (0..1000).map(|_| press(&mut s, "j")).collect();
    assert!(s.pair.as_ref().is_some_and(|p| p.scroll >= 1000));
    eprintln!("first frame (new queue table): {first:?}; first frame on restart: {restart:?}");
    eprintln!("queue move p99 {:?}", p99(moves));
    eprintln!("open cluster p99 {:?}", p99(opens));
    eprintln!("open 5,000-line pair {open_pair:?}");
    eprintln!("scroll 5,000-line document p99 {:?}", p99(scrolls));
}

#[test]
#[ignore]
fn confirming_a_large_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("c.db")).unwrap();
    let ids: Vec<i64> = (0..1000)
        .map(|i| {
            store
                .insert_test_document(&format!("u{i}"), "t", &format!("text {i}"), None)
                .unwrap()
        })
        .collect();
    let t = Instant::now();
    store
        .record_decision("c", "confirm", &ids, serde_json::json!({}))
        .unwrap();
    eprintln!(
        "confirm 1,000 members (499,500 pair labels): {:?}",
        t.elapsed()
    );
    let t = Instant::now();
    let row = store.decision_log("c").unwrap()[0].id;
    store.record_undo("c", row).unwrap();
    eprintln!("undo it (rebuild): {:?}", t.elapsed());
}
