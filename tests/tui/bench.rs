//! Latency of the workbench on a large database (ignored by default): time to the first
//! frame, and per key event to a rendered frame (TestBackend) for moving in the queue,
//! opening a cluster, opening a pair and scrolling a 5,000-line document.
//!
//! Synthetic (100,000 generated documents, 10,000 clusters):
//! `cargo test --release --test tui -- --ignored --nocapture bench::synthetic`
//!
//! Real (a copy of a database of real pages with detector runs; the test migrates it and
//! builds its review tables):
//! `cp ~/.cache/spotcheck/dd-big.db /tmp/tui2-big.db`
//! `SPOTCHECK_BENCH_DB=/tmp/tui2-big.db cargo test --release --test tui -- --ignored --nocapture bench::real`
//! (skips when SPOTCHECK_BENCH_DB is unset). At its end it confirms the largest cluster and
//! undoes it, so the copy's log holds two decisions of the coder "bench".

use std::path::Path;
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spotcheck::review::Session;
use spotcheck::store::{ClusterRow, LogEntry, Store};
use spotcheck::tui::{handle_key, parse_key, render, Keymap};

/// This thread's CPU time so far, to tell the work a key costs from the time spent waiting
/// for a CPU on a busy machine.
fn cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    ok.then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// Key presses against a TestBackend, timed from the key event to the drawn frame (wall
/// clock; the UI thread's CPU time of each press is kept in `cpu`).
struct Driver {
    term: Terminal<TestBackend>,
    keys: Keymap,
    cpu: Vec<Duration>,
}

impl Driver {
    fn new() -> Driver {
        Driver {
            term: Terminal::new(TestBackend::new(160, 50)).unwrap(),
            keys: Keymap::defaults(),
            cpu: Vec::new(),
        }
    }

    /// Opens a session on `db` and draws its first frame; the time of both.
    fn start(&mut self, db: &Path) -> (Session, Duration) {
        let t = Instant::now();
        let mut s = Session::new(Store::open(db).unwrap(), "bench", false).unwrap();
        // Straight to saving: the consequence prompt has its own test (screens.rs).
        s.prompt_above_pairs = u64::MAX;
        render(&mut self.term, &mut s, &self.keys).unwrap();
        (s, t.elapsed())
    }

    fn press(&mut self, s: &mut Session, key: &str) -> Duration {
        let (t, c) = (Instant::now(), cpu_time());
        handle_key(s, &self.keys, parse_key(key).unwrap());
        render(&mut self.term, s, &self.keys).unwrap();
        let wall = t.elapsed();
        if let (Some(a), Some(b)) = (c, cpu_time()) {
            self.cpu.push(b.saturating_sub(a));
        }
        wall
    }

    /// Presses `key` `n` times: "wall p50 · p99 · max, UI-thread CPU p99".
    fn measure(&mut self, s: &mut Session, key: &str, n: usize) -> String {
        self.cpu.clear();
        let wall = self.presses(s, key, n);
        self.report(wall)
    }

    /// Wall-clock stats of `wall` with the CPU stats of the presses since `cpu` was cleared.
    fn report(&mut self, wall: Vec<Duration>) -> String {
        let cpu = std::mem::take(&mut self.cpu);
        if cpu.is_empty() {
            return stats(wall);
        }
        let mut c = cpu;
        c.sort();
        let p99 = c[(c.len() * 99 / 100).min(c.len() - 1)];
        format!("{} · UI-thread CPU p99 {p99:.2?}", stats(wall))
    }

    /// "UI-thread CPU p99 …" of the presses since `cpu` was cleared.
    fn cpu_p99(&mut self) -> String {
        let mut c = std::mem::take(&mut self.cpu);
        if c.is_empty() {
            return "UI-thread CPU not measured".into();
        }
        c.sort();
        let p99 = c[(c.len() * 99 / 100).min(c.len() - 1)];
        format!("UI-thread CPU p99 {p99:.2?} (n = {})", c.len())
    }

    /// Waits for the work running off the UI thread, then draws.
    fn settle(&mut self, s: &mut Session) -> Duration {
        let t = Instant::now();
        s.wait_background();
        render(&mut self.term, s, &self.keys).unwrap();
        t.elapsed()
    }

    fn presses(&mut self, s: &mut Session, key: &str, n: usize) -> Vec<Duration> {
        (0..n).map(|_| self.press(s, key)).collect()
    }
}

/// "p50 … · p99 … · max …" of key latencies.
fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let at = |q: usize| v[(v.len() * q / 100).min(v.len() - 1)];
    format!(
        "p50 {:.2?} · p99 {:.2?} · max {:.2?} (n = {})",
        at(50),
        at(99),
        v[v.len() - 1],
        v.len()
    )
}

/// Opens the current pair: the key to its first (placeholder) frame, and to the frame
/// with both documents compared and wrapped.
fn open_pair(d: &mut Driver, s: &mut Session) -> (Duration, Duration) {
    let key = d.press(s, "Enter");
    (key, key + d.settle(s))
}

#[test]
#[ignore = "benchmark: run explicitly in release mode (see the file header)"]
fn synthetic_first_frame_and_key_latency_on_a_large_database() {
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

    let mut d = Driver::new();
    // The queue table is built on the first start only; measure a restart too.
    let (_, first) = d.start(&db);
    let (mut s, restart) = d.start(&db);
    let moves = d.measure(&mut s, "j", 1000);
    let mut opens = Vec::new();
    let mut cpu = Vec::new();
    for _ in 0..100 {
        d.cpu.clear();
        opens.push(d.press(&mut s, "Enter"));
        cpu.append(&mut d.cpu);
        d.press(&mut s, "Esc");
        d.press(&mut s, "j");
    }
    d.cpu = cpu;
    let opens = d.report(opens);
    d.press(&mut s, "g");
    d.press(&mut s, "Enter");
    // The entry's members arrive from the worker.
    d.settle(&mut s);
    let (pair_key, pair_ready) = open_pair(&mut d, &mut s);
    assert!(s
        .pair
        .as_ref()
        .is_some_and(|p| p.left.lines().len() >= 5000));
    let scrolls = d.measure(&mut s, "j", 1000);
    assert!(s.pair.as_ref().is_some_and(|p| p.scroll >= 1000));
    eprintln!("first frame (new queue table): {first:?}; first frame on restart: {restart:?}");
    eprintln!("queue move {moves}");
    eprintln!("open cluster {opens}");
    eprintln!(
        "open 5,000-line pair: key to frame {pair_key:?}, to the compared documents {pair_ready:?}"
    );
    eprintln!("scroll 5,000-line document {scrolls}");
}

/// Resizes the terminal (the pair view open) to 20 widths it has not had, each time timed
/// to the first frame and to the frame with the documents wrapped for it, then back and
/// forth between two widths already wrapped; the three reports.
fn resizes(d: &mut Driver, s: &mut Session) -> (String, String, String) {
    let height = d.term.size().unwrap().height;
    let resize_to = |d: &mut Driver, s: &mut Session, w: u16| {
        d.term.backend_mut().resize(w, height);
        let (t, c) = (Instant::now(), cpu_time());
        render(&mut d.term, s, &d.keys).unwrap();
        let k = t.elapsed();
        if let (Some(a), Some(b)) = (c, cpu_time()) {
            d.cpu.push(b.saturating_sub(a));
        }
        (k, k + d.settle(s))
    };
    d.cpu.clear();
    let (new, wrapped): (Vec<_>, Vec<_>) = (0..20).map(|i| resize_to(d, s, 120 + i)).unzip();
    let new = d.report(new);
    d.cpu.clear();
    let back: Vec<_> = (0..20)
        .map(|i| resize_to(d, s, if i % 2 == 0 { 130 } else { 139 }).0)
        .collect();
    let back = d.report(back);
    resize_to(d, s, 160);
    (new, stats(wrapped), back)
}

/// Time from a key to its frame and to the moment the work it started is done (for a
/// decision: its labels durable, the derived labels written), with the UI-thread CPU of the
/// key.
fn press_and_settle(d: &mut Driver, s: &mut Session, key: &str) -> (Duration, Duration) {
    let k = d.press(s, key);
    (k, k + d.settle(s))
}

#[test]
#[ignore = "benchmark: run explicitly in release mode (see the file header)"]
fn confirming_a_large_cluster_batches_and_resizing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let mut store = Store::open(&db).unwrap();
    let doc = |store: &mut Store, url: String, title: &str, text: &str| {
        store.insert_test_document(&url, title, text, None).unwrap()
    };
    let big: Vec<i64> = (0..1000)
        .map(|i| {
            doc(
                &mut store,
                format!("http://big.example/{i}"),
                "big",
                &format!("text {i}"),
            )
        })
        .collect();
    let long: String = (0..5000)
        .map(|i| {
            format!(
                "line {i} of a very long document about the harbour bridge and its tram lines\n"
            )
        })
        .collect();
    let long_pair: Vec<i64> = (0..2)
        .map(|i| {
            doc(
                &mut store,
                format!("http://long.example/{i}"),
                "long",
                &long,
            )
        })
        .collect();
    let n_small = 5000;
    let small: Vec<i64> = (0..2 * n_small)
        .map(|i| {
            doc(
                &mut store,
                format!("http://pair.example/{i}"),
                "pair",
                &format!("pair text {i}"),
            )
        })
        .collect();
    let run = store
        .create_run("spotsigs", &serde_json::json!({}))
        .unwrap();
    let row = |members: Vec<i64>, score: f64| ClusterRow {
        members,
        min_score: Some(score),
        max_score: Some(score),
        weakest_bridge: None,
    };
    let mut clusters = vec![row(big.clone(), 0.9), row(long_pair.clone(), 0.99)];
    clusters.extend((0..n_small).map(|c| row(small[2 * c..2 * c + 2].to_vec(), 0.9)));
    store.write_run_clusters(run, &clusters).unwrap();
    store.finish_run(run, &serde_json::json!({})).unwrap();
    drop(store);

    let mut d = Driver::new();
    let (mut s, _) = d.start(&db);
    // The queue: the 1,000-member cluster first, then the long pair, then the pairs.
    assert_eq!(s.row_at(0).map(|r| r.size), Some(1000));
    let (mut keys, mut durable, mut undo_keys, mut undo_durable, mut cpu, mut undo_cpu) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut next_keys = Vec::new();
    for _ in 0..10 {
        d.press(&mut s, "g");
        d.cpu.clear();
        let (k, t) = press_and_settle(&mut d, &mut s, "y");
        keys.push(k);
        durable.push(t);
        cpu.append(&mut d.cpu);
        let (k, t) = press_and_settle(&mut d, &mut s, "u");
        undo_keys.push(k);
        undo_durable.push(t);
        undo_cpu.append(&mut d.cpu);
        // A second decision right behind the big one: confirm it, then at once reject the
        // next cluster (the cursor moved there), before the first is durable.
        d.press(&mut s, "g");
        d.press(&mut s, "y");
        d.cpu.clear();
        next_keys.push(d.press(&mut s, "x"));
        d.settle(&mut s);
        d.press(&mut s, "u");
        d.press(&mut s, "u");
        d.settle(&mut s);
    }
    assert_eq!(s.store().decision_log("bench").unwrap().len(), 10 * 6);
    d.cpu = cpu;
    let confirm = d.report(keys);
    d.cpu = undo_cpu;
    let undo = d.report(undo_keys);
    let next = stats(next_keys);
    // Batches over the 5,000 pair clusters: select all in the filter, confirm; undo; tag.
    for k in ["/", "p", "a", "i", "r", "Enter"] {
        d.press(&mut s, k);
    }
    assert_eq!(s.queue_len, n_small as u64);
    let select = d.press(&mut s, "a");
    assert_eq!(s.selection.len(), n_small);
    let (batch_key, batch_durable) = press_and_settle(&mut d, &mut s, "y");
    let (batch_undo_key, batch_undo_durable) = press_and_settle(&mut d, &mut s, "u");
    d.press(&mut s, "a");
    for k in ["t", "w", "i", "r", "e"] {
        d.press(&mut s, k);
    }
    let (tag_key, tag_durable) = press_and_settle(&mut d, &mut s, "Enter");
    eprintln!("confirm a 1,000-member cluster (499,500 pair labels): key to frame {confirm}; until durable {}", stats(durable));
    eprintln!(
        "undo it: key to frame {undo}; until durable {}",
        stats(undo_durable)
    );
    eprintln!("a second decision right behind it: key to frame {next}");
    eprintln!("select all {n_small} clusters in the filter: key to frame {select:?}");
    eprintln!("confirm the selection: key to frame {batch_key:?}, until durable {batch_durable:?}");
    eprintln!("undo it: key to frame {batch_undo_key:?}, until durable {batch_undo_durable:?}");
    eprintln!("tag the selection: Enter to frame {tag_key:?}, until durable {tag_durable:?}");

    // How long the writer holds the database per step (what a key waits for at most).
    {
        // As the writer thread runs them: no checkpoint inside a step.
        let mut st = Store::open(&db).unwrap();
        st.set_wal_autocheckpoint(0).unwrap();
        let steps = |st: &mut Store, entry: LogEntry| {
            let row = st
                .append_to_log("steps", vec![entry])
                .unwrap()
                .remove(0)
                .row;
            let mut job = st.label_job(row.clone()).unwrap();
            let mut writes = Vec::new();
            let mut longest = (Duration::ZERO, "");
            while !job.done() {
                let (writing, what) = (job.next_step_writes(), job.next_step());
                let t = Instant::now();
                st.label_job_step(&mut job).unwrap();
                if writing {
                    writes.push(t.elapsed());
                    longest = longest.max((t.elapsed(), what));
                    if writes.len() % 25 == 0 {
                        st.checkpoint_passive().unwrap();
                    }
                }
            }
            (
                row.id,
                format!("{}, the longest: {}", stats(writes), longest.1),
            )
        };
        let (id, confirm) = steps(
            &mut st,
            LogEntry::decision("confirm", &big, serde_json::json!({})),
        );
        let (_, undo) = steps(&mut st, LogEntry::Undo(id));
        eprintln!(
            "label writer, write steps of the 1,000-member confirm: {confirm}; of its undo: {undo}"
        );
    }

    // Resizing with two 5,000-line documents open in the pair view.
    d.press(&mut s, "C");
    d.press(&mut s, "g");
    d.press(&mut s, "j");
    d.press(&mut s, "Enter");
    d.press(&mut s, "Enter");
    d.settle(&mut s);
    assert!(s
        .pair
        .as_ref()
        .is_some_and(|p| p.left.lines().len() >= 5000));
    let (resize, rewrapped, cached) = resizes(&mut d, &mut s);
    eprintln!("resize the pair view of two 5,000-line documents to a new width: to the frame {resize}; to the re-wrapped frame {rewrapped}");
    eprintln!("… back to a width wrapped before: to the frame {cached}");
}

/// The pair to scroll: two members of one cluster of the latest runs whose visible texts
/// have at least 5,000 lines (the shortest such documents), as (run, cluster, doc a, doc b).
fn long_pair(db: &std::path::Path) -> Option<(i64, i64, i64, i64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(
        "WITH long AS (
           SELECT id, length(visible_text) - length(replace(visible_text, char(10), '')) AS nl
           FROM documents WHERE length(visible_text) > 150000),
         latest AS (SELECT max(id) AS id FROM runs WHERE finished_at IS NOT NULL GROUP BY method)
         SELECT m1.run_id, m1.cluster, a.id, b.id
         FROM long a JOIN long b ON b.id > a.id AND a.nl >= 5000 AND b.nl >= 5000
         JOIN run_cluster_members m1 ON m1.doc_id = a.id AND m1.run_id IN (SELECT id FROM latest)
         JOIN run_cluster_members m2 ON m2.doc_id = b.id AND m2.run_id = m1.run_id
              AND m2.cluster = m1.cluster
         ORDER BY max(a.nl, b.nl) LIMIT 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
    .ok()
}

#[test]
#[ignore = "benchmark: run explicitly in release mode (see the file header)"]
fn real_first_frame_and_key_latency() {
    let Ok(db) = std::env::var("SPOTCHECK_BENCH_DB") else {
        crate::common::skip(
            "benchmark: set SPOTCHECK_BENCH_DB to a copy of a large database (see the header)",
        );
        return;
    };
    let db = std::path::PathBuf::from(db);
    let t = Instant::now();
    drop(Store::open(&db).unwrap());
    let open = t.elapsed();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let docs: i64 = conn
            .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
            .unwrap();
        eprintln!(
            "{}: {docs} documents (open + migrate: {open:?})",
            db.display()
        );
        // Forget the queue table so the first start builds it.
        conn.execute("DELETE FROM meta WHERE key = 'review_queue_runs'", [])
            .unwrap();
    }
    let mut d = Driver::new();
    let c0 = cpu_time();
    let (_, first) = d.start(&db);
    let first_cpu = cpu_time().zip(c0).map(|(b, a)| b - a);
    let (mut s, restart) = d.start(&db);
    let clusters = s.queue_len;
    eprintln!("queue: {clusters} clusters of the latest runs");
    let moves = d.measure(&mut s, "j", 1000);
    // Open the largest clusters (the queue is sorted by size) and the ones after them.
    d.press(&mut s, "g");
    let mut opens = Vec::new();
    let mut sizes = Vec::new();
    let mut cpu = Vec::new();
    for _ in 0..100 {
        d.cpu.clear();
        opens.push(d.press(&mut s, "Enter"));
        cpu.append(&mut d.cpu);
        d.settle(&mut s);
        sizes.push(s.cluster.as_ref().map_or(0, |c| c.members.len()));
        d.press(&mut s, "Esc");
        d.press(&mut s, "j");
    }
    let slowest = (0..opens.len()).max_by_key(|&i| opens[i]).unwrap();
    let slowest_cpu = cpu[slowest];
    d.cpu = cpu;
    let opens = d.report(opens);
    eprintln!(
        "opened clusters of {}..{} members; the slowest open was #{slowest}, {} members (CPU {slowest_cpu:.2?})",
        sizes.iter().min().unwrap(),
        sizes.iter().max().unwrap(),
        sizes[slowest]
    );
    let (run, cluster, a, b) = long_pair(&db).expect("a cluster with two 5,000-line documents");
    // Find the cluster in the queue by paging through it.
    let mut pos = None;
    let mut offset = 0;
    while pos.is_none() && offset < clusters {
        let rows = s
            .store()
            .queue_page("bench", &s.filter, s.sort, offset, 1000)
            .unwrap();
        pos = rows
            .iter()
            .position(|r| r.run_id == run && r.cluster == cluster)
            .map(|p| offset + p as u64);
        offset += 1000;
    }
    s.cursor = pos.expect("the cluster is in the queue");
    d.press(&mut s, "Enter");
    d.settle(&mut s);
    let c = s.cluster.as_mut().unwrap();
    c.cursor = c.members.iter().position(|m| m.id == a).unwrap();
    d.press(&mut s, "A");
    let c = s.cluster.as_mut().unwrap();
    c.cursor = c.members.iter().position(|m| m.id == b).unwrap();
    let (pair_key, pair_ready) = open_pair(&mut d, &mut s);
    let p = s.pair.as_ref().unwrap();
    let lines = (p.left.lines().len(), p.right.lines().len());
    assert!(lines.0 >= 5000 && lines.1 >= 5000, "{lines:?}");
    let scrolls = d.measure(&mut s, "j", 1000);
    let pages = d.measure(&mut s, "PageDown", 100);
    let (resize, rewrapped, resize_back) = resizes(&mut d, &mut s);
    // The next member and back: each opens a pair.
    let mut steps = Vec::new();
    let mut ready = Vec::new();
    let mut cpu = Vec::new();
    for k in ["]", "["].iter().cycle().take(20) {
        d.cpu.clear();
        let key = d.press(&mut s, k);
        cpu.append(&mut d.cpu);
        steps.push(key);
        ready.push(key + d.settle(&mut s));
    }
    d.cpu = cpu;
    let steps = d.report(steps);
    eprintln!("first frame (builds the queue table): {first:?} (CPU {first_cpu:?}); on restart: {restart:?}");
    eprintln!("queue move {moves}");
    eprintln!("open cluster {opens}");
    eprintln!(
        "open pair {a}/{b} ({} / {} wrapped lines): key to frame {pair_key:?}, to the compared documents {pair_ready:?}",
        lines.0, lines.1
    );
    eprintln!(
        "next/previous member: key to frame {steps}; to the compared documents {}",
        stats(ready)
    );
    eprintln!("scroll {scrolls}");
    eprintln!("page down {pages}");
    eprintln!("resize to a new width: to the frame {resize}; to the re-wrapped frame {rewrapped}; back to a width wrapped before: {resize_back}");
    // The largest cluster of the queue confirmed and undone (this copy keeps the decisions).
    d.press(&mut s, "Esc");
    d.press(&mut s, "Esc");
    d.press(&mut s, "g");
    let size = s.row_at(0).map_or(0, |r| r.size);
    d.cpu.clear();
    let (confirm, confirmed) = press_and_settle(&mut d, &mut s, "y");
    let confirm_cpu = d.cpu.clone();
    d.cpu.clear();
    let (undo, undone) = press_and_settle(&mut d, &mut s, "u");
    eprintln!(
        "confirm the largest cluster ({size} members, {} pair labels): key to frame {confirm:?} (CPU {confirm_cpu:?}), until durable {confirmed:?}; undo: key to frame {undo:?} (CPU {:?}), until durable {undone:?}",
        size * (size - 1) / 2,
        d.cpu
    );
}

/// The two cold starts of `merged_queue_first_frame_and_key_latency`: the queue built on the
/// UI thread (`Session::new`, what `review` did before) and by the worker (`Session::start`,
/// what `review` does), each after `forget_queue`.
fn cold_starts(d: &mut Driver, db: &Path, forget_queue: impl Fn()) {
    // The queue built on the UI thread (`Session::new`, what `review` did before).
    forget_queue();
    let c0 = cpu_time();
    let (_, sync_first) = d.start(db);
    let sync_cpu = cpu_time().zip(c0).map(|(b, a)| b - a);
    eprintln!("first frame, queue built on the UI thread (Session::new) {sync_first:?} (CPU {sync_cpu:?})");
    // The queue built by the worker (`Session::start`, what `review` does).
    forget_queue();
    let (t, c0) = (Instant::now(), cpu_time());
    let mut cold = Session::start(Store::open(db).unwrap(), "bench", false).unwrap();
    render(&mut d.term, &mut cold, &d.keys).unwrap();
    let first = t.elapsed();
    let first_cpu = cpu_time().zip(c0).map(|(b, a)| b - a);
    let built = d.settle(&mut cold) + first;
    assert!(cold.queue_len > 0, "{}", cold.message);
    drop(cold);
    eprintln!("first frame, queue built off the UI thread (Session::start) {first:?} (CPU {first_cpu:?}); the queue shown {built:?}");
}

/// Issue 15's benchmark: a copy of a database of 100,000+ real pages after `detect` with
/// defaults. Times the first frame with the merged queue built by the session (cold: the
/// test drops the queue's fingerprint first, so `Session::new` rebuilds it) and on restart
/// (prebuilt), queue moves, opening entries and pairs, the group view (`w`: key to the
/// "computing…" frame and to the finished table; its keys `j`, `o`, `y` with the consequence
/// prompt and its answer) and the chart screen (`p` to its first frame and to the figures,
/// `]`/`[`, `m` to its frame and to the run's what-if).
/// `SPOTCHECK_BENCH_DB=/tmp/queuebg-run.db cargo test --release --test tui -- --ignored --nocapture bench::merged`
/// (BENCHMARKS.md "Issue 15: 100k keys, release (session 3)" says how the database is built).
#[test]
#[ignore = "benchmark: run explicitly in release mode (see the function's comment)"]
fn merged_queue_first_frame_and_key_latency() {
    let Ok(db) = std::env::var("SPOTCHECK_BENCH_DB") else {
        crate::common::skip(
            "benchmark: set SPOTCHECK_BENCH_DB to a copy of a database after detect (see the comment)",
        );
        return;
    };
    let db = std::path::PathBuf::from(db);
    // Cold: the next session rebuilds the merged queue (as after a new detector run).
    let forget_queue = || {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute("DELETE FROM meta WHERE key = 'review_queue_runs'", [])
            .unwrap();
    };
    let docs: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    let mut d = Driver::new();
    // SPOTCHECK_BENCH_WARM=1: only the restart and the keys (the queue as built before).
    let warm = std::env::var_os("SPOTCHECK_BENCH_WARM").is_some();
    if !warm {
        cold_starts(&mut d, &db, forget_queue);
    }
    let c0 = cpu_time();
    let (mut s, restart) = d.start(&db);
    let restart_cpu = cpu_time().zip(c0).map(|(b, a)| b - a);
    eprintln!(
        "{}: {docs} documents, {} queue entries",
        db.display(),
        s.queue_len
    );
    eprintln!("first frame, queue prebuilt (restart) {restart:?} (CPU {restart_cpu:?})");
    // As `review` starts (`Session::start`): the first frame, and the frame with the queue.
    {
        let (t, c0) = (Instant::now(), cpu_time());
        let mut started = Session::start(Store::open(&db).unwrap(), "bench", false).unwrap();
        render(&mut d.term, &mut started, &d.keys).unwrap();
        let first = t.elapsed();
        let first_cpu = cpu_time().zip(c0).map(|(b, a)| b - a);
        let shown = first + d.settle(&mut started);
        assert_eq!(started.queue_len, s.queue_len, "{}", started.message);
        eprintln!("first frame, review's start (Session::start) {first:?} (CPU {first_cpu:?}); the queue shown {shown:?}");
    }
    eprintln!("queue move (j) {}", d.measure(&mut s, "j", 1000));
    eprintln!("queue page down {}", d.measure(&mut s, "PageDown", 100));
    // Open the first 100 entries (the largest first), each entry's first pair for 20. The
    // key draws the entry at once; its members arrive from the worker ("to the members").
    d.press(&mut s, "g");
    let (mut opens, mut cpu, mut filled) = (Vec::new(), Vec::new(), Vec::new());
    let (mut pairs, mut pairs_ready) = (Vec::new(), Vec::new());
    let mut sizes = Vec::new();
    for i in 0..100 {
        d.cpu.clear();
        let key = d.press(&mut s, "Enter");
        opens.push(key);
        cpu.append(&mut d.cpu);
        filled.push(key + d.settle(&mut s));
        sizes.push(s.cluster.as_ref().map_or(0, |c| c.members.len()));
        if i < 20 {
            let (key, ready) = open_pair(&mut d, &mut s);
            pairs.push(key);
            pairs_ready.push(ready);
            d.press(&mut s, "Esc");
        }
        d.press(&mut s, "Esc");
        d.press(&mut s, "j");
    }
    d.cpu = cpu;
    eprintln!(
        "open entry (Enter; {}..{} members): key to frame {}; to the members {}",
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0),
        d.report(opens),
        stats(filled)
    );
    eprintln!(
        "open pair: key to frame {}; to the compared documents {}",
        stats(pairs),
        stats(pairs_ready)
    );
    // `v` in the pair view of the first entry (issue 16, session 15): the text cycles
    // visible → content → main (skipped, and said, without main texts) × 10; each key to
    // its frame, and to the documents in the new text.
    d.press(&mut s, "g");
    d.press(&mut s, "Enter");
    d.settle(&mut s);
    open_pair(&mut d, &mut s);
    let (mut keys, mut ready) = (Vec::new(), Vec::new());
    d.cpu.clear();
    for _ in 0..30 {
        let (key, done) = press_and_settle(&mut d, &mut s, "v");
        keys.push(key);
        ready.push(done);
    }
    eprintln!(
        "pair text (v) × 30: key to frame {}; to the documents {}",
        d.report(keys),
        stats(ready)
    );
    d.press(&mut s, "Esc");
    d.press(&mut s, "Esc");
    // The group view of the 50 largest entries: the key, the table's arrival, and keys in it.
    d.press(&mut s, "g");
    let (mut groups, mut groups_ready, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
    let (mut escs, mut moves, mut sorts, mut moves_cpu) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut sizes = Vec::new();
    for _ in 0..50 {
        d.cpu.clear();
        let key = d.press(&mut s, "w");
        cpu.append(&mut d.cpu);
        assert_eq!(s.mode(), spotcheck::review::Mode::Group);
        groups.push(key);
        groups_ready.push(key + d.settle(&mut s));
        sizes.push(s.cluster.as_ref().map_or(0, |c| c.members.len()));
        d.cpu.clear();
        for _ in 0..5 {
            moves.push(d.press(&mut s, "j"));
        }
        sorts.push(d.press(&mut s, "o"));
        moves_cpu.append(&mut d.cpu);
        escs.push(d.press(&mut s, "Esc"));
        // `w` from the queue opens the entry under the group view: back to the queue.
        d.press(&mut s, "Esc");
        d.press(&mut s, "j");
    }
    d.cpu = cpu;
    eprintln!(
        "group view (w; {}..{} members): key to frame {}; to the table {}",
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0),
        d.report(groups),
        stats(groups_ready)
    );
    d.cpu = moves_cpu;
    eprintln!(
        "group view: j {} · o {} · Esc {} · j and o {}",
        stats(moves),
        stats(sorts),
        stats(escs),
        d.cpu_p99()
    );
    // Confirming a story from the group view with the consequence prompt: every confirm
    // asks (threshold 0), `y` shows the prompt, `y` answers it; auto-advance moves on.
    s.prompt_above_pairs = 0;
    let (mut prompts, mut answers, mut durable) = (Vec::new(), Vec::new(), Vec::new());
    let mut prompted = Vec::new();
    let mut asked = 0;
    d.cpu.clear();
    let mut y_cpu = Vec::new();
    for _ in 0..20 {
        d.press(&mut s, "w");
        d.settle(&mut s);
        d.cpu.clear();
        let key = d.press(&mut s, "y");
        prompts.push(key);
        // The prompt may come from the worker (the coder's stored labels read there).
        prompted.push(key + d.settle(&mut s));
        asked += usize::from(s.pending.is_some());
        let (k, t) = press_and_settle(&mut d, &mut s, "y");
        y_cpu.append(&mut d.cpu);
        answers.push(k);
        durable.push(t);
        while s.mode() != spotcheck::review::Mode::Queue {
            d.press(&mut s, "Esc");
        }
    }
    s.prompt_above_pairs = u64::MAX;
    d.cpu = y_cpu;
    eprintln!(
        "group view confirm: y to the consequence prompt: key to frame {}; to the prompt {} ({asked} of 20 asked); y answering it {}; until durable {} · both keys' {}",
        stats(prompts),
        stats(prompted),
        stats(answers),
        stats(durable),
        d.cpu_p99()
    );
    // The chart screen: opened ten times (key to its frame, and to the figures), its keys.
    let (mut charts, mut charts_ready, mut closes) = (Vec::new(), Vec::new(), Vec::new());
    let (mut open_cpu, mut close_cpu) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        d.cpu.clear();
        let key = d.press(&mut s, "p");
        open_cpu.append(&mut d.cpu);
        charts.push(key);
        charts_ready.push(key + d.settle(&mut s));
        assert_eq!(s.mode(), spotcheck::review::Mode::Chart, "{}", s.message);
        d.cpu.clear();
        closes.push(d.press(&mut s, "Esc"));
        close_cpu.append(&mut d.cpu);
    }
    d.cpu = open_cpu;
    eprintln!(
        "chart screen (p): key to frame {}; to the figures {}",
        d.report(charts),
        stats(charts_ready)
    );
    d.cpu = close_cpu;
    eprintln!("chart screen closed (Esc) {}", d.report(closes));
    d.press(&mut s, "p");
    d.settle(&mut s);
    eprintln!(
        "chart: what-if threshold (]) {}",
        d.measure(&mut s, "]", 50)
    );
    eprintln!(
        "chart: what-if threshold ([) {}",
        d.measure(&mut s, "[", 50)
    );
    let runs = s.charts.as_ref().map_or(0, |v| v.figures.runs.len());
    let (mut switches, mut switched) = (Vec::new(), Vec::new());
    d.cpu.clear();
    for _ in 0..10 {
        let key = d.press(&mut s, "m");
        switches.push(key);
        switched.push(key + d.settle(&mut s));
    }
    eprintln!(
        "chart: next run (m, {runs} runs; the first {} switches compute a what-if): key to frame {}; to the what-if {}",
        runs.saturating_sub(1),
        d.report(switches),
        stats(switched)
    );
    d.press(&mut s, "Esc");
    tag_cut_and_adjudicate(&mut d, &mut s, &db);
    jumps_filters_and_search(&mut d, &mut s);
}

/// A key's frames: key to its frame, to the frame with what it read (its work off the UI
/// thread waited for), and the UI-thread CPU of the key.
#[derive(Default)]
struct Timed {
    keys: Vec<Duration>,
    done: Vec<Duration>,
    cpu: Vec<Duration>,
}

impl Timed {
    /// Presses `key` (the timed key `name`) and waits for what it started; then names it
    /// on stderr, so `examples/tui_cold/count.py` can count the UI thread's reads per key.
    fn press(&mut self, d: &mut Driver, s: &mut Session, key: &str, name: &str) {
        d.cpu.clear();
        let k = d.press(s, key);
        self.cpu.append(&mut d.cpu);
        self.keys.push(k);
        // Until nothing runs: the frame after a read may ask for more (the pages next to
        // the ones a jump showed), which is this key's work too, not the next key's.
        let mut t = d.settle(s);
        while s.busy() {
            t += d.settle(s);
        }
        self.done.push(k + t);
        // One write (count.py reads the name from it).
        let line = format!("bench key: {name}");
        eprintln!("{line}");
    }

    /// "key to frame … · UI-thread CPU p99 …; to the rows …".
    fn report(self, d: &mut Driver) -> String {
        d.cpu = self.cpu;
        format!(
            "key to frame {}; to the rows {}",
            d.report(self.keys),
            stats(self.done)
        )
    }
}

/// Issue 16 (session 13): the keys that read the queue anew — a sort, the filters, a
/// search, jumps to the end and back, select-all and its clearing — each timed to its frame
/// and to the frame with the rows read, 25 rounds. The search is for "api", or for
/// `SPOTCHECK_BENCH_SEARCH` (letters and digits: each character is typed as its key).
fn jumps_filters_and_search(d: &mut Driver, s: &mut Session) {
    use spotcheck::review::Mode;
    while s.mode() != Mode::Queue {
        d.press(s, "Esc");
    }
    d.settle(s);
    let search = std::env::var("SPOTCHECK_BENCH_SEARCH").unwrap_or_else(|_| "api".into());
    let search_keys: Vec<String> = search.chars().map(String::from).collect();
    let search_name = format!("search (/ {search} Enter)");
    let names = [
        "sort (o)",
        "jump to the end (G)",
        "jump to the top (g)",
        "filter method (m)",
        "filter size (z)",
        "filter status (f)",
        "select all (a)",
        "select all cleared (a)",
        &search_name,
        "clear filter (C)",
    ];
    let mut timed: Vec<Timed> = names.iter().map(|_| Timed::default()).collect();
    for _ in 0..25 {
        timed[0].press(d, s, "o", names[0]);
        timed[1].press(d, s, "G", names[1]);
        timed[2].press(d, s, "g", names[2]);
        timed[3].press(d, s, "m", names[3]);
        timed[1].press(d, s, "G", names[1]);
        timed[4].press(d, s, "z", names[4]);
        timed[5].press(d, s, "f", names[5]);
        timed[3].press(d, s, "m", names[3]);
        timed[6].press(d, s, "a", names[6]);
        timed[7].press(d, s, "a", names[7]);
        timed[9].press(d, s, "C", names[9]);
        d.press(s, "/");
        for k in &search_keys {
            d.press(s, k);
        }
        eprintln!("bench key: search typed");
        timed[8].press(d, s, "Enter", names[8]);
        timed[1].press(d, s, "G", names[1]);
        timed[2].press(d, s, "g", names[2]);
        timed[9].press(d, s, "C", names[9]);
    }
    for (name, t) in names.iter().zip(timed) {
        eprintln!("queue keys: {name}: {}", t.report(d));
    }
}

/// The last keys of `bench::merged`: a tag typed on 20 entries, a cut on 20, and the
/// adjudication screen on pairs two coders were made to disagree on.
fn tag_cut_and_adjudicate(d: &mut Driver, s: &mut Session, db: &Path) {
    use spotcheck::review::Mode;
    s.prompt_above_pairs = u64::MAX;
    d.press(s, "g");
    let (mut opens, mut typed, mut submits) = (Vec::new(), Vec::new(), Vec::new());
    let (mut open_cpu, mut typed_cpu) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        d.cpu.clear();
        let key = d.press(s, "t");
        opens.push(key);
        open_cpu.append(&mut d.cpu);
        d.settle(s);
        for c in ["b", "n"] {
            typed.push(d.press(s, c));
        }
        typed_cpu.append(&mut d.cpu);
        submits.push(press_and_settle(d, s, "Enter").0);
        d.press(s, "j");
    }
    d.cpu = open_cpu;
    eprintln!("tag prompt (t) {}", d.report(opens));
    d.cpu = typed_cpu;
    eprintln!(
        "tag prompt: typed {} · {}; Enter (records) {}",
        stats(typed),
        d.cpu_p99(),
        stats(submits)
    );
    // `c` cuts an entry at its weakest link (and moves on); entries without one say so.
    let (mut cuts, mut cut_done) = (Vec::new(), Vec::new());
    d.cpu.clear();
    for _ in 0..20 {
        let (k, t) = press_and_settle(d, s, "c");
        cuts.push(k);
        cut_done.push(t);
        while s.mode() != Mode::Queue {
            d.press(s, "Esc");
        }
    }
    eprintln!(
        "cut (c): key to frame {}; until done {}",
        d.report(cuts),
        stats(cut_done)
    );
    // Two more coders disagree on the first two members of 50 entries.
    let mut pairs = Vec::new();
    for pos in 0..s.queue_len.min(200) {
        if let Some(r) = s.row_at(pos) {
            if r.members.len() >= 2 && pairs.len() < 50 {
                pairs.push([r.members[0], r.members[1]]);
            }
        }
    }
    {
        let mut st = Store::open(db).unwrap();
        for p in &pairs {
            st.record_decision("bench-a", "confirm", p, serde_json::json!({}))
                .unwrap();
            st.record_decision("bench-b", "reject", p, serde_json::json!({}))
                .unwrap();
        }
    }
    eprintln!(
        "adjudication: {} pairs disputed by bench-a and bench-b",
        pairs.len()
    );
    let (mut adj_opens, mut adj_ready, mut adj_moves, mut adj_verdicts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut open_cpu, mut keys_cpu) = (Vec::new(), Vec::new());
    for round in 0..5 {
        d.cpu.clear();
        let key = d.press(s, "A");
        open_cpu.append(&mut d.cpu);
        adj_opens.push(key);
        adj_ready.push(key + d.settle(s));
        assert_eq!(s.mode(), Mode::Adjudicate, "{}", s.message);
        d.cpu.clear();
        for _ in 0..10 {
            adj_moves.push(press_and_settle(d, s, "j").0);
        }
        if round < 2 {
            for _ in 0..10 {
                adj_verdicts.push(press_and_settle(d, s, "x").0);
            }
        }
        keys_cpu.append(&mut d.cpu);
        d.press(s, "Esc");
    }
    d.cpu = open_cpu;
    eprintln!(
        "adjudication screen (A): key to frame {}; to the pairs {}",
        d.report(adj_opens),
        stats(adj_ready)
    );
    d.cpu = keys_cpu;
    eprintln!(
        "adjudication keys: j {} · x {} · {}",
        stats(adj_moves),
        stats(adj_verdicts),
        d.cpu_p99()
    );
}
