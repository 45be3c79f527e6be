//! The binary's contract for bad input: clear errors that name the path, exit codes.

use crate::common;

use std::process::Command;

fn spotcheck() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spotcheck"))
}

#[test]
fn a_missing_path_is_an_error_naming_it() {
    let (_t, db) = common::temp_db();
    let out = spotcheck()
        .args(["ingest", "--db"])
        .arg(&db)
        .arg("/no/such/crawl.warc.gz")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/no/such/crawl.warc.gz"), "{err}");
}

#[test]
fn a_directory_without_pages_is_an_error_naming_it() {
    let (t, db) = common::temp_db();
    let empty = t.path().join("nothing-here");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.md"), "# not a page").unwrap();
    let out = spotcheck()
        .args(["ingest", "--db"])
        .arg(&db)
        .arg(&empty)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing-here"));
}

#[test]
fn junk_that_yields_nothing_exits_non_zero_but_keeps_earlier_data() {
    let (t, db) = common::temp_db();
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/wire-feed.jsonl");
    let ok = spotcheck()
        .args(["ingest", "--quiet", "--db"])
        .arg(&db)
        .arg(demo)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let junk = t.path().join("junk.warc");
    std::fs::write(
        &junk,
        b"WARC/1.1\r\nthis is not a header\r\n\x00\x01\x02 garbage",
    )
    .unwrap();
    let out = spotcheck()
        .args(["ingest", "--quiet", "--db"])
        .arg(&db)
        .arg(&junk)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stats = spotcheck()
        .args(["stats", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(v["documents"], 2, "{v}");
    assert!(v["errors"].as_u64().unwrap() >= 1, "{v}");
    let errors = spotcheck()
        .args(["errors", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&errors.stdout).contains("junk.warc"));
}

#[test]
fn train_without_a_database_names_the_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("missing.db");
    let out = spotcheck()
        .args(["train", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.db"), "{err}");
    assert!(!db.exists(), "a failed train must not create a database");
}

/// Crawled text never steers a terminal: the demo's hostile page (an OSC title, an OSC 52
/// clipboard write, CSI colours and clears) leaves neither a control byte nor an escape
/// payload (`]0;pwned`, `]52;c;…`, `[31m`) in any listing, TSV or JSONL.
#[test]
fn no_escape_payload_of_a_hostile_page_reaches_a_listing() {
    let (_dir, db) = common::temp_db();
    let db = db.to_str().unwrap();
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo");
    common::spotcheck_ok(&["ingest", "--db", db, "--quiet", demo]);
    common::spotcheck_ok(&["detect", "--db", db]);
    let listings: [&[&str]; 8] = [
        &["docs", "--db", db, "--format", "tsv"],
        &["docs", "--db", db],
        &[
            "pairs", "--db", db, "--method", "spotsigs", "--format", "tsv",
        ],
        &[
            "clusters", "--db", db, "--method", "cooper", "--format", "tsv",
        ],
        &["sigs", "--db", db, "--format", "tsv"],
        &["queue", "--db", db, "--all", "--format", "tsv"],
        &["queue", "--db", db, "--all"],
        &["errors", "--db", db, "--format", "tsv"],
    ];
    let mut saw_hostile = false;
    for args in listings {
        let (out, err) = common::spotcheck_ok(args);
        saw_hostile |= out.contains("Totally normal page");
        for text in [&out, &err] {
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "a control character in `spotcheck {args:?}`"
            );
            for payload in ["pwned", "]52;", "cm0gLXJmIH4=", "[31m", "[2J"] {
                assert!(
                    !text.contains(payload),
                    "{payload:?} in `spotcheck {args:?}`"
                );
            }
        }
    }
    assert!(
        saw_hostile,
        "the hostile page is listed (by its cleaned title)"
    );
}
