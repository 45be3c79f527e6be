//! The real binary in a real terminal (tmux): confirm a cluster, tag a selection, undo one
//! step, kill the terminal without quitting, restart, and find every committed decision;
//! and the terminal given back (cooked mode, main screen, cursor shown) after a panic,
//! Ctrl-C and SIGTERM. Skips with a message when tmux is not installed.

use crate::support as tui_support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use spotcheck::store::{LabelStatus, QueueFilter, QueueSort, Store};

/// The bundled demo crawl (SQLite documentation releases, wire stories) ingested by the
/// real readers and clustered by the real binary's `detect`; the small fixture database
/// when this build cannot ingest it.
fn real_crawl_db(db: &Path) {
    use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
    let demo = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo"));
    if let Err(e) = ingest_paths(db, &[demo], &IngestOptions::default()) {
        eprintln!("the demo crawl cannot be ingested ({e:#}): using the fixture database");
        let _ = std::fs::remove_file(db);
        tui_support::build_db(db);
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(["detect", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut s = Store::open(db).unwrap();
    s.refresh_review_queue().unwrap();
}

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn start(&self, db: &Path) {
        let line = format!(
            "{} review --db {} --coder tmuxer",
            env!("CARGO_BIN_EXE_spotcheck"),
            db.display()
        );
        self.start_line(&line);
    }

    /// Runs the review under `sh` (which leaves the terminal modes alone), then prints its
    /// exit status and stays, so the terminal the review left behind can be inspected.
    fn start_then_inspect(&self, db: &Path, env: &str) {
        let line = format!(
            "sh -c '{env} {} review --db {} --coder tmuxer; echo EXIT=$?; exec sleep 600'",
            env!("CARGO_BIN_EXE_spotcheck"),
            db.display()
        );
        self.start_line(&line);
    }

    /// `#{name}` of the pane.
    fn format(&self, name: &str) -> String {
        let out = self.cmd(&["display", "-p", "-t", "sc", &format!("#{{{name}}}")]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The pane's terminal modes as `stty` reports them, one setting per item.
    fn stty(&self) -> Vec<String> {
        let tty = self.format("pane_tty");
        let out = Command::new("stty")
            .args(["-a", "-F", &tty])
            .output()
            .expect("stty runs");
        String::from_utf8_lossy(&out.stdout)
            .split(|c: char| c.is_whitespace() || c == ';')
            .map(str::to_string)
            .collect()
    }

    /// The pid of the review process: the pane's process itself, or its child when a shell
    /// runs it.
    fn review_pid(&self) -> String {
        let pane = self.format("pane_pid");
        let comm = std::fs::read_to_string(format!("/proc/{pane}/comm")).unwrap_or_default();
        if comm.trim() == "spotcheck" {
            return pane;
        }
        let out = Command::new("pgrep")
            .args(["-P", &pane])
            .output()
            .expect("pgrep runs");
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty(), "the review process under {pane}");
        pid
    }

    fn start_line(&self, line: &str) {
        // A server whose last session was just killed may still be exiting: then the new
        // session fails with "server exited unexpectedly"; try again until it starts.
        wait_for("a new tmux session", || {
            let out = self.cmd(&[
                "new-session",
                "-d",
                "-s",
                "sc",
                "-x",
                "110",
                "-y",
                "30",
                line,
            ]);
            let error = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() || error.contains("server exited"),
                "{error}"
            );
            out.status.success()
        });
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "sc"]).stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "sc"];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status.success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// Polls `cond` until it holds (the UI runs in another process; a generous bound, never a
/// fixed sleep that a slow machine could miss).
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` still runs (a zombie waiting to be reaped has ended).
fn is_running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state is the first field after the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

fn log_len(db: &Path) -> usize {
    Store::open(db)
        .unwrap()
        .decision_log("tmuxer")
        .unwrap()
        .len()
}

/// False (after saying why) when tmux is missing; CI installs tmux and sets
/// SPOTCHECK_REQUIRE_TMUX=1, and there skipping is a failure.
fn have_tmux() -> bool {
    if Command::new("tmux").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("SPOTCHECK_REQUIRE_TMUX").as_deref() != Ok("1"),
        "tmux is required but not installed"
    );
    crate::common::skip("tmux not found (apt-get install tmux)");
    false
}

#[test]
fn decisions_survive_killing_the_terminal() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("review.db");
    real_crawl_db(&db);
    // The clusters the test will act on, as the session orders them: it confirms row 0,
    // then selects and tags rows 1 and 2.
    let rows = Store::open(&db)
        .unwrap()
        .queue_page(
            "tmuxer",
            &QueueFilter::default(),
            QueueSort::default(),
            0,
            3,
        )
        .unwrap();
    let (first, second, third) = (&rows[0].members, &rows[1].members, &rows[2].members);
    let tmux = Tmux {
        socket: format!("spotcheck-test-{}", std::process::id()),
    };
    tmux.start(&db);
    wait_for("the queue", || tmux.screen().contains(" in queue"));
    tmux.keys(&["y"]);
    wait_for("the confirm row", || log_len(&db) == 1);
    tmux.keys(&["Space", "Space", "t", "w", "i", "r", "e", "Enter"]);
    wait_for("two tag rows", || log_len(&db) == 3);
    wait_for("the tags on screen", || {
        tmux.screen().contains("tagged 2 cluster")
    });
    tmux.keys(&["u"]);
    wait_for("the undo of the tag batch", || log_len(&db) == 5);
    // Kill the terminal without quitting: the review must exit, not outlive its terminal
    // (crossterm alone would spin on the dead tty forever).
    let pid = tmux.review_pid();
    assert!(tmux.cmd(&["kill-session", "-t", "sc"]).status.success());
    wait_for("the review to exit with its terminal", || !is_running(&pid));
    let store = Store::open(&db).unwrap();
    assert_eq!(
        store.label("tmuxer", first).unwrap().status,
        LabelStatus::Confirmed
    );
    assert!(store.label("tmuxer", second).unwrap().tags.is_empty());
    assert!(store.label("tmuxer", third).unwrap().tags.is_empty());
    let actions: Vec<String> = store
        .decision_log("tmuxer")
        .unwrap()
        .into_iter()
        .map(|r| r.action)
        .collect();
    assert_eq!(actions, ["confirm", "tag", "tag", "undo", "undo"]);
    // Restart: everything is there, and the session resumes after the confirmed cluster.
    // (Another detector may propose the same member set: it counts as reviewed too, since
    // decisions refer to documents.)
    let reviewed = store
        .review_progress("tmuxer")
        .unwrap()
        .into_iter()
        .find(|p| p.coder == "tmuxer")
        .unwrap()
        .reviewed;
    assert!(reviewed >= 1);
    // The queue's length, for select-all below (read before the session runs).
    let entries = store.queue_len("tmuxer", &QueueFilter::default()).unwrap();
    drop(store);
    tmux.start(&db);
    wait_for("the restarted queue", || {
        tmux.screen().contains(&format!("reviewed {reviewed}/"))
    });
    let screen = tmux.screen();
    assert!(screen.contains("confirmed"), "{screen}");
    assert!(
        screen.contains("resumed at the first unreviewed cluster (2)"),
        "{screen}"
    );
    // Redo works on the restarted session too, then quit cleanly with q.
    tmux.keys(&["C-r"]);
    wait_for("the redo", || log_len(&db) == 7);
    // A new order, a jump to its end and select-all, typed at once: the order's read and
    // the last rows' page run on the worker, the keys behind them wait and replay in
    // order (select-all selects every entry of the queue read for the new order).
    tmux.keys(&["o", "G", "a"]);
    wait_for("select-all after the new order", || {
        tmux.screen()
            .contains(&format!("{entries} clusters selected"))
    });
    let screen = tmux.screen();
    assert!(!screen.contains("reading…"), "{screen}");
    tmux.keys(&["a", "/", "w", "i", "r", "e", "Enter"]);
    wait_for("the search", || tmux.screen().contains("clusters match"));
    tmux.keys(&["q"]);
    wait_for("the session to end", || {
        !tmux.cmd(&["has-session", "-t", "sc"]).status.success()
    });
    let store = Store::open(&db).unwrap();
    assert_eq!(store.label("tmuxer", second).unwrap().tags, vec!["wire"]);
    assert_eq!(store.label("tmuxer", third).unwrap().tags, vec!["wire"]);
    assert_eq!(
        store.label("tmuxer", first).unwrap().status,
        LabelStatus::Confirmed
    );
}

/// The review is running in the pane: alternate screen, raw mode, cursor hidden.
fn assert_taken_over(tmux: &Tmux) {
    wait_for("the queue", || tmux.screen().contains(" in queue"));
    assert_eq!(tmux.format("alternate_on"), "1");
    assert_eq!(tmux.format("cursor_flag"), "0");
    let modes = tmux.stty();
    assert!(
        modes.iter().any(|m| m == "-icanon") && modes.iter().any(|m| m == "-echo"),
        "raw mode while running: {modes:?}"
    );
}

/// After the review ended with `status`: main screen, cursor shown, cooked mode.
fn assert_given_back(tmux: &Tmux, status: &str) -> String {
    wait_for("the exit status", || tmux.screen().contains("EXIT="));
    let screen = tmux.screen();
    assert!(screen.contains(&format!("EXIT={status}")), "{screen}");
    assert_eq!(tmux.format("alternate_on"), "0", "{screen}");
    assert_eq!(tmux.format("cursor_flag"), "1", "{screen}");
    let modes = tmux.stty();
    for m in ["icanon", "echo", "isig", "icrnl", "opost"] {
        assert!(modes.iter().any(|x| x == m), "{m} after exit: {modes:?}");
    }
    screen
}

#[test]
fn a_panic_gives_the_terminal_back() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("review.db");
    tui_support::build_db(&db);
    let tmux = Tmux {
        socket: format!("spotcheck-panic-{}", std::process::id()),
    };
    // A test-only variable makes F12 panic inside the event loop.
    tmux.start_then_inspect(&db, "SPOTCHECK_DEBUG_PANIC_KEY=F12");
    assert_taken_over(&tmux);
    tmux.keys(&["Enter", "F12"]);
    let screen = assert_given_back(&tmux, "101");
    // The panic message is printed on the restored screen, readable.
    assert!(
        screen.contains("SPOTCHECK_DEBUG_PANIC_KEY was pressed"),
        "{screen}"
    );
}

#[test]
fn ctrl_c_and_sigterm_give_the_terminal_back() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("review.db");
    tui_support::build_db(&db);
    let tmux = Tmux {
        socket: format!("spotcheck-ctrlc-{}", std::process::id()),
    };
    // Ctrl-C in a prompt (raw mode: a key, not a signal) quits.
    tmux.start_then_inspect(&db, "");
    assert_taken_over(&tmux);
    tmux.keys(&["t", "w", "C-c"]);
    assert_given_back(&tmux, "0");
    assert!(tui_support::fixture_log_is_empty(&db, "tmuxer"));
    // SIGTERM from outside ends the loop and restores the terminal too (in a second tmux
    // server: a new session on a server whose last session just ended can race its exit).
    let tmux = Tmux {
        socket: format!("spotcheck-term-{}", std::process::id()),
    };
    tmux.start_then_inspect(&db, "");
    assert_taken_over(&tmux);
    let pid = tmux.review_pid();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    assert_given_back(&tmux, "0");
}

/// The real binary walks the first merged entry of the queue in the group view and confirms
/// the whole of it with one key.
#[test]
fn a_merged_entry_is_walked_in_the_group_view_and_confirmed() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("review.db");
    real_crawl_db(&db);
    let rows = Store::open(&db)
        .unwrap()
        .queue_page(
            "tmuxer",
            &QueueFilter::default(),
            QueueSort::default(),
            0,
            1,
        )
        .unwrap();
    let first = &rows[0].members;
    let tmux = Tmux {
        socket: format!("spotcheck-group-{}", std::process::id()),
    };
    tmux.start(&db);
    wait_for("the queue", || tmux.screen().contains(" in queue"));
    tmux.keys(&["w"]);
    wait_for("the group view", || {
        tmux.screen().contains("sorted by date")
    });
    let screen = tmux.screen();
    assert!(
        screen.contains("vs source") || screen.contains("vs anchor"),
        "{screen}"
    );
    tmux.keys(&["j", "k", "y"]);
    // A big entry shows its consequence first and waits for a second y.
    wait_for("the confirm or its consequence", || {
        log_len(&db) == 1 || tmux.screen().contains("y: go ahead")
    });
    if log_len(&db) == 0 {
        tmux.keys(&["y"]);
    }
    wait_for("the confirm row", || log_len(&db) == 1);
    wait_for("back on the queue", || {
        !tmux.screen().contains("sorted by date")
    });
    tmux.keys(&["q"]);
    wait_for("the session to end", || {
        !tmux.cmd(&["has-session", "-t", "sc"]).status.success()
    });
    let store = Store::open(&db).unwrap();
    assert_eq!(
        store.label("tmuxer", first).unwrap().status,
        LabelStatus::Confirmed
    );
}
