//! Two processes on one database: two coders reviewing at once (each a review session in a
//! process of its own, driven key by key), a third connection holding the write lock while
//! a coder decides (SQLite's busy timeout must absorb it), and the real `detect` running
//! while both coders decide. No decision may be lost, no person may be shown "database is
//! locked", and a session started after the new run lists it with every label kept.
//! Processes take turns by waiting for each other's output lines, never by sleeping.

use std::io::{BufRead, BufReader, Lines, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::common;

/// A review session in a child process (this test binary, [`coder_child`]).
struct Coder {
    name: &'static str,
    child: Child,
    to: ChildStdin,
    from: Lines<BufReader<ChildStdout>>,
    /// Decisions in this coder's log, as the child last reported it.
    logged: usize,
}

impl Coder {
    fn start(db: &Path, name: &'static str) -> Coder {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "concurrent::coder_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CODER_DB", db)
            .env("CODER_NAME", name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut c = Coder {
            name,
            child,
            to,
            from,
            logged: 0,
        };
        c.logged = c.expect("READY ").parse().unwrap();
        c
    }

    /// The rest of the child's next line starting with `prefix` (other lines are the test
    /// harness's own).
    fn expect(&mut self, prefix: &str) -> String {
        for line in self.from.by_ref() {
            let line = line.unwrap();
            if let Some(rest) = line.strip_prefix(prefix) {
                return rest.to_string();
            }
        }
        panic!("coder {} ended without {prefix:?}", self.name);
    }

    /// Sends keys (space-separated) without waiting for them to be handled.
    fn send(&mut self, keys: &str) {
        writeln!(self.to, "{keys}").unwrap();
        self.to.flush().unwrap();
    }

    /// Waits for the keys sent to be handled: the decisions they added to the log (which
    /// must be `decisions`) and the session's message, which must show no failure.
    fn done(&mut self, keys: &str, decisions: usize) -> String {
        let line = self.expect("DONE ");
        let (n, message) = line.split_once(' ').unwrap_or((&line, ""));
        let n: usize = n.parse().unwrap();
        let lower = message.to_lowercase();
        assert!(
            !lower.contains("locked") && !lower.contains("busy") && !lower.contains("error"),
            "coder {} after {keys:?}: the session shows {message:?}",
            self.name
        );
        assert_eq!(
            n,
            self.logged + decisions,
            "coder {} after {keys:?} ({message:?}): decisions in the log",
            self.name
        );
        self.logged = n;
        message.to_string()
    }

    fn keys(&mut self, keys: &str, decisions: usize) -> String {
        self.send(keys);
        self.expect("PRESSING");
        self.done(keys, decisions)
    }

    fn quit(mut self) {
        self.send("quit");
        self.expect("BYE");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "coder {} exited {status}", self.name);
    }
}

/// The child process of the concurrency test: a review session for `CODER_NAME` on
/// `CODER_DB`. Each line on stdin is a space-separated key sequence (or `reopen`: a new
/// session, as a coder restarting the review; or `quit`); it answers `PRESSING`, handles
/// the keys, waits for the labels to be written and answers `DONE <decisions in the log>
/// <message>`.
#[test]
#[ignore = "child process of two_coders_and_a_detect_lose_no_decision"]
fn coder_child() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use spotcheck::review::Session;
    use spotcheck::store::Store;
    use spotcheck::tui::{handle_key, parse_key, render, Keymap};
    let (Some(db), Some(name)) = (
        std::env::var_os("CODER_DB").map(PathBuf::from),
        std::env::var("CODER_NAME").ok(),
    ) else {
        return;
    };
    let keys = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let open = || {
        let mut s = Session::new(Store::open(&db).unwrap(), &name, false).unwrap();
        s.prompt_above_pairs = u64::MAX;
        s
    };
    let mut s = open();
    render(&mut term, &mut s, &keys).unwrap();
    let logged = |s: &Session| s.store().decision_log(&name).unwrap().len();
    let mut out = std::io::stdout();
    // On a line of its own: the harness has written "test ... " without a newline.
    writeln!(out, "\nREADY {}", logged(&s)).unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        match line.trim() {
            "quit" => {
                s.request_quit();
                s.wait_background();
                writeln!(out, "BYE").unwrap();
                out.flush().unwrap();
                return;
            }
            "reopen" => {
                writeln!(out, "PRESSING").unwrap();
                out.flush().unwrap();
                s.wait_background();
                drop(s);
                s = open();
            }
            keys_line => {
                writeln!(out, "PRESSING").unwrap();
                out.flush().unwrap();
                for k in keys_line.split_whitespace() {
                    handle_key(&mut s, &keys, parse_key(k).unwrap());
                    render(&mut term, &mut s, &keys).unwrap();
                }
            }
        }
        spotcheck::tui::settle(&mut term, &mut s, &keys).unwrap();
        writeln!(out, "DONE {} {}", logged(&s), s.message.replace('\n', " ")).unwrap();
        out.flush().unwrap();
    }
}

/// The queue as `spotcheck queue` lists it: each entry's documents with its status.
fn statuses(db: &str) -> Vec<String> {
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all", "--format", "tsv"]);
    let mut rows: Vec<String> = out
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{} {}", f[8], f[10])
        })
        .collect();
    rows.sort();
    rows
}

/// Every coder's labels (set, status, tags, note) and labeled documents, without the
/// decision each came from (a redo is a decision of its own).
fn labels(db: &Path) -> Vec<String> {
    let s = spotcheck::store::Store::open(db).unwrap();
    s.derived_label_rows()
        .unwrap()
        .into_iter()
        .filter(|r| r.starts_with("label|") || r.starts_with("doc|"))
        .map(|r| match r.strip_prefix("label|") {
            Some(l) => format!("label|{}", l.rsplit_once('|').map_or(l, |(a, _)| a)),
            None => r,
        })
        .collect()
}

#[test]
fn two_coders_and_a_detect_lose_no_decision() {
    let (_dir, db) = common::temp_db();
    let db_s = db.to_str().unwrap();
    common::spotcheck_ok(&["demo", "--db", db_s, "--no-review"]);
    let mut ann = Coder::start(&db, "ann");
    let mut bob = Coder::start(&db, "bob");

    // Turn by turn: each decision is in the log when the session says it is done.
    ann.keys("y", 1);
    bob.keys("j j y", 1);
    ann.keys("y", 1);
    bob.keys("u", 1);
    bob.keys("y", 1);

    // Both at once: the keys reach both sessions before either reports.
    ann.send("y");
    bob.send("y");
    ann.expect("PRESSING");
    bob.expect("PRESSING");
    ann.done("y", 1);
    bob.done("y", 1);

    // A third connection holds the write lock while ann decides: her commit waits in the
    // busy timeout (30 s) and succeeds once the lock is released. The lock is released after
    // her session has started on the keys, so it is all but certain she meets it.
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "BEGIN IMMEDIATE; INSERT INTO meta(key, value) VALUES ('lock-holder', 'test')
             ON CONFLICT(key) DO UPDATE SET value = excluded.value;",
        )
        .unwrap();
        ann.send("y");
        ann.expect("PRESSING");
        bob.send("y");
        bob.expect("PRESSING");
        c.execute_batch("COMMIT").unwrap();
        ann.done("y", 1);
        bob.done("y", 1);
    }

    // `detect` (every default method, a new run each) while both coders decide.
    let labels_before_detect = labels(&db);
    let statuses_before = statuses(db_s);
    let mut detect = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(["detect", "--db", db_s])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its first method's summary line: detect is now between runs, with more to go, when
    // the coders start (Rust's stdout is line-buffered, also into a pipe).
    let mut detect_out = BufReader::new(detect.stdout.take().unwrap()).lines();
    let first = detect_out.next().unwrap().unwrap();
    assert!(first.contains(" run "), "detect's first line: {first}");
    let mut during = 0;
    for round in 0..4 {
        let (a, b) = if round % 2 == 0 {
            ("u", "u")
        } else {
            ("Ctrl-r", "Ctrl-r")
        };
        ann.send(a);
        bob.send(b);
        ann.expect("PRESSING");
        bob.expect("PRESSING");
        ann.done(a, 1);
        bob.done(b, 1);
        during += 2;
    }
    let rest: Vec<String> = detect_out.map(Result::unwrap).collect();
    assert!(
        rest.iter().any(|l| l.contains(" run ")),
        "detect's other runs: {rest:?}"
    );
    let out = detect.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "detect beside two coders: {err}");
    assert!(!err.to_lowercase().contains("locked"), "{err}");
    // Undo, redo, undo, redo: the labels are what they were.
    let labels_after_detect = labels(&db);
    assert_eq!(
        labels_after_detect, labels_before_detect,
        "labels before and after a detect run beside the coders"
    );

    // A coder restarting the review gets the new runs in the queue, with the labels kept.
    ann.keys("reopen", 0);
    bob.keys("reopen", 0);
    let s = spotcheck::store::Store::open(&db).unwrap();
    let max_run: i64 = {
        let (runs, _) = common::spotcheck_ok(&["runs", "--db", db_s]);
        runs.lines()
            .filter_map(|l| l.strip_prefix("run ")?.split(' ').next()?.parse().ok())
            .max()
            .unwrap()
    };
    assert_eq!(max_run, 6, "the demo's three runs and detect's three");
    let queue_runs = s.meta("review_queue_runs").unwrap().unwrap_or_default();
    assert!(
        queue_runs.contains("4,5,6"),
        "the queue is built from the new runs: {queue_runs}"
    );
    assert_eq!(
        statuses(db_s),
        statuses_before,
        "every entry's status after the new runs"
    );
    ann.keys("y", 1);
    bob.keys("y", 1);
    let (a_n, b_n) = (ann.logged, bob.logged);
    ann.quit();
    bob.quit();
    let s = spotcheck::store::Store::open(&db).unwrap();
    assert_eq!(s.decision_log("ann").unwrap().len(), a_n, "ann's decisions");
    assert_eq!(s.decision_log("bob").unwrap().len(), b_n, "bob's decisions");
    eprintln!(
        "two coders, a lock holder and a detect: {} decisions ({during} while detect ran), none lost",
        a_n + b_n
    );
}
