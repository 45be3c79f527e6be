//! A full disk and a corrupt database file. A size-limited tmpfs (mounted by the test,
//! which needs root; without it the test skips with the reason) fills up during ingest and
//! during a review: a clear error naming the database, a database that is still readable,
//! and every decision committed before the fault still there. A garbage or truncated
//! database file: a clear error naming it for every command, no panic, and the file is
//! never written to.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

/// A tmpfs of `size` at a fresh directory, unmounted on drop; `None` (after a skip) when
/// mounting is not permitted.
struct Tmpfs(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Tmpfs(dir.path().to_path_buf(), dir)),
            Ok(o) => {
                common::skip(&format!(
                    "cannot mount a tmpfs (needs root): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
                None
            }
            Err(e) => {
                common::skip(&format!("cannot run mount: {e}"));
                None
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn demo_dir() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo")
}

/// Fills the filesystem of `dir` with one file until writing fails.
fn fill(dir: &Path) {
    use std::io::Write;
    let mut f = std::fs::File::create(dir.join("filler")).unwrap();
    let chunk = vec![0xA5u8; 64 * 1024];
    while f.write_all(&chunk).is_ok() {}
    let small = [0u8; 512];
    while f.write_all(&small).is_ok() {}
    let _ = f.sync_all();
}

#[test]
fn ingest_onto_a_full_disk_fails_clearly_and_keeps_the_database_readable() {
    let Some(fs) = Tmpfs::mount("1500k") else {
        return;
    };
    let db = fs.0.join("crawl.db");
    let db_s = db.to_str().unwrap();
    let (code, _, err) = common::spotcheck_run(&["ingest", "--db", db_s, "--quiet", demo_dir()]);
    assert_eq!(code, Some(1), "ingest onto a 1.5 MB filesystem: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("crawl.db"),
        "the error names the database: {err}"
    );
    assert!(
        err.to_lowercase().contains("full"),
        "the error says the disk is full: {err}"
    );
    eprintln!("full disk during ingest: {}", err.trim());
    // Readable: the listings work and the file checks out.
    common::spotcheck_ok(&["stats", "--db", db_s]);
    common::spotcheck_ok(&["docs", "--db", db_s]);
    let c = rusqlite::Connection::open(&db).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn a_review_on_a_full_disk_keeps_every_decision_committed_before_the_fault() {
    let Some(fs) = Tmpfs::mount("24m") else {
        return;
    };
    let db = fs.0.join("review.db");
    let db_s = db.to_str().unwrap();
    common::spotcheck_ok(&["demo", "--db", db_s, "--no-review"]);
    fill(&fs.0);
    // The review child confirms entries until the session reports an error; it prints
    // how many decisions it saw succeed and the message it showed.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "disk::full_disk_review_child",
            "--nocapture",
        ])
        .env("FULL_DISK_DB", &db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("DECIDED "))
        .unwrap_or_else(|| panic!("no report from the child: {stdout}"));
    let (n, message) = line.split_once(' ').unwrap();
    let decided: usize = n.parse().unwrap();
    eprintln!("full disk during review: {decided} decisions, then {message:?}");
    // Room again: every decision the coder saw succeed is in the log, with its labels.
    std::fs::remove_file(fs.0.join("filler")).unwrap();
    let store = spotcheck::store::Store::open(&db).unwrap();
    let log = store.decision_log("fullness").unwrap();
    assert!(
        log.len() >= decided,
        "{} of {decided} decisions in the log",
        log.len()
    );
}

/// The child of the full-disk review test: presses `y` until the session shows an error
/// (or 200 times), then reports `DECIDED <n> <message>`.
#[test]
#[ignore = "child process of a_review_on_a_full_disk_keeps_every_decision_committed_before_the_fault"]
fn full_disk_review_child() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use spotcheck::review::Session;
    use spotcheck::store::Store;
    use spotcheck::tui::{handle_key, parse_key, render, Keymap};
    let Some(db) = std::env::var_os("FULL_DISK_DB").map(PathBuf::from) else {
        return;
    };
    let keys = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let mut s = match Store::open(&db).and_then(|st| Session::new(st, "fullness", false)) {
        Ok(s) => s,
        Err(e) => {
            println!("DECIDED 0 {e:#}");
            return;
        }
    };
    s.prompt_above_pairs = u64::MAX;
    render(&mut term, &mut s, &keys).unwrap();
    let mut decided = 0;
    let mut message = String::new();
    for _ in 0..200 {
        let before = s
            .store()
            .decision_log("fullness")
            .map(|l| l.len())
            .unwrap_or(0);
        handle_key(&mut s, &keys, parse_key("y").unwrap());
        s.wait_background();
        render(&mut term, &mut s, &keys).unwrap();
        let after = s
            .store()
            .decision_log("fullness")
            .map(|l| l.len())
            .unwrap_or(before);
        if after > before {
            decided += 1;
        }
        if s.message.to_lowercase().contains("full") || s.message.contains("error") {
            message = s.message.clone();
            break;
        }
    }
    println!("DECIDED {decided} {message}");
}

/// Every command on a file that is not a database, and on a truncated one.
#[test]
fn a_garbage_or_truncated_database_is_a_clear_error_and_never_written() {
    let (dir, good) = common::temp_db();
    let good_s = good.to_str().unwrap();
    common::spotcheck_ok(&["demo", "--db", good_s, "--no-review"]);
    {
        let c = rusqlite::Connection::open(&good).unwrap();
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    }
    let bytes = std::fs::read(&good).unwrap();
    let garbage = dir.path().join("garbage.db");
    std::fs::write(
        &garbage,
        b"this is not a database, it is a note\n".repeat(300),
    )
    .unwrap();
    let truncated = dir.path().join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let header_only = dir.path().join("header.db");
    std::fs::write(&header_only, &bytes[..100]).unwrap();
    for file in [&garbage, &truncated, &header_only] {
        let before = std::fs::read(file).unwrap();
        let f = file.to_str().unwrap();
        let name = file.file_name().unwrap().to_str().unwrap();
        let commands: [&[&str]; 9] = [
            &["docs", "--db", f],
            &["errors", "--db", f],
            &["stats", "--db", f],
            &["queue", "--db", f, "--all"],
            &["runs", "--db", f],
            &["pairs", "--db", f, "--method", "spotsigs"],
            &["detect", "--db", f],
            &["ingest", "--db", f, "--quiet", demo_dir()],
            &["review", "--db", f],
        ];
        let mut failed = 0;
        for args in commands {
            let (code, _, err) = common::spotcheck_run(args);
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                matches!(code, Some(0 | 1)),
                "{args:?}: exit {code:?}: {err}"
            );
            if code == Some(1) {
                failed += 1;
                assert!(
                    err.contains(name),
                    "{args:?}: the error names the file: {err}"
                );
            }
            eprintln!("{name} {}: {}", args[0], err.lines().next().unwrap_or(""));
        }
        assert!(failed > 0, "{name}: some command noticed the damage");
        assert_eq!(
            std::fs::read(file).unwrap(),
            before,
            "{name} was written to"
        );
        let wal = PathBuf::from(format!("{f}-wal"));
        assert!(
            !wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0,
            "{name}: a WAL was written"
        );
    }
}
