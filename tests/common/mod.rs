//! Shared helpers of the integration tests: where the real corpus is, whether a test may
//! skip when it is missing (`SPOTCHECK_REQUIRE_CORPUS=1`, set by CI, forbids skipping), and
//! the one way a test skips ([`skip`]), so every skip reaches the final summary with its
//! reason.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// Where skips are recorded: one `crate<TAB>test<TAB>reason` line each. `.ci/run` empties
/// it before the tests and prints it as the last part of its summary.
pub fn skips_file() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spotcheck-skips.tsv")
}

/// Records that the calling test skips part or all of its work, and why: said on stderr at
/// once and appended to [`skips_file`] (the test harness names each test's thread after the
/// test, which is how the line names the test).
pub fn skip(reason: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_string();
    eprintln!("skipping {test}: {reason}");
    let line = format!("{}\t{test}\t{reason}\n", env!("CARGO_CRATE_NAME"));
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(skips_file())
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = appended {
        eprintln!(
            "could not record the skip in {}: {e}",
            skips_file().display()
        );
    }
}

/// `../shared/corpus/<rel>` if present. Without it: `None` after printing why, or a panic
/// when the environment requires the corpus.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")).join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var("SPOTCHECK_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!("corpus path {} is required but missing", p.display());
    }
    skip(&format!("corpus not found at {}", p.display()));
    None
}

/// The small labeled debian-docs corpus the tests use: linux-doc-6.1 (2 patch releases),
/// qtbase5-doc-html (3 patch releases) and sqlite3-doc (3 major releases), 400 pages per
/// release, with `html/` and `gold.tsv`. Built by `.ci/run` (or by hand) with
/// `../shared/corpus/debian-docs.sh $HOME/.cache/spotcheck/ci-dd linux-doc-6.1
/// qtbase5-doc-html sqlite3-doc --max-pages 400`; `SPOTCHECK_DD_CORPUS` names another
/// directory of the same layout. Missing: `None`, or a panic when the corpus is required.
pub fn debian_docs_small() -> Option<PathBuf> {
    let dir = match std::env::var_os("SPOTCHECK_DD_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/spotcheck/ci-dd"),
    };
    if dir.join("gold.tsv").is_file() && dir.join("html").is_dir() {
        return Some(dir);
    }
    if std::env::var("SPOTCHECK_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!(
            "debian-docs corpus {} is required but missing (run .ci/run or debian-docs.sh)",
            dir.display()
        );
    }
    skip(&format!(
        "debian-docs corpus not found at {} (run .ci/run or debian-docs.sh)",
        dir.display()
    ));
    None
}

/// A fresh database path in a temporary directory (kept alive by the returned guard).
pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("test.db");
    (dir, db)
}

/// Runs the spotcheck binary with `args`: its exit code, stdout and stderr (lossy UTF-8).
pub fn spotcheck_run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Runs the spotcheck binary with `args`, asserts that it succeeded (the failure message
/// carries its stderr), and returns its stdout and stderr.
pub fn spotcheck_ok(args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "spotcheck {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}
