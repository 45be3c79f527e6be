//! Shared helpers of the integration tests: where the real corpus is, and whether a test
//! may skip when it is missing (`SPOTCHECK_REQUIRE_CORPUS=1`, set by CI, forbids skipping).
#![allow(dead_code)]

use std::path::PathBuf;

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
    eprintln!("skipping: corpus not found at {}", p.display());
    None
}

/// A fresh database path in a temporary directory (kept alive by the returned guard).
pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("test.db");
    (dir, db)
}
