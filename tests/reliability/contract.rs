//! The command-line contract: every listing and export into a closed pipe exits 0 with
//! nothing on stderr, and no control byte or escape payload of a hostile page (the demo's,
//! and one with every escape kind in its title, text, file name and folder name) reaches
//! a listing, a summary or an error; JSON output escapes what text output strips.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common;

/// Every escape kind, each carrying a payload marker that must never reach a terminal.
const EVERY_ESCAPE: &str = concat!(
    "CSI \u{1b}[31;1mPAYLOAD-CSI\u{1b}[0m ",
    "OSC-BEL \u{1b}]0;PAYLOAD-OSC-BEL\u{7} ",
    "OSC-ST \u{1b}]2;PAYLOAD-OSC-ST\u{1b}\\ ",
    "OSC52 \u{1b}]52;c;UEFZTE9BRC1PU0M1Mg==\u{7} ",
    "DCS \u{1b}P1$rPAYLOAD-DCS\u{1b}\\ ",
    "C1-CSI \u{9b}PAYLOAD-C1CSI ",
    "C1-OSC \u{9d}0;PAYLOAD-C1OSC\u{9c} ",
    "APC \u{1b}_PAYLOAD-APC\u{1b}\\ ",
    "BIDI \u{202e}desrever\u{202c} \u{2066}isolate\u{2069} ",
    "BEL\u{7} BS\u{8} NUL\u{0} DEL\u{7f} CR\r end"
);

/// Markers of payloads (and sequence remainders) that text output must not contain.
const PAYLOADS: [&str; 13] = [
    "PAYLOAD-OSC-BEL",
    "PAYLOAD-OSC-ST",
    "UEFZTE9BRC1PU0M1Mg",
    "PAYLOAD-DCS",
    "PAYLOAD-C1OSC",
    "PAYLOAD-APC",
    "]0;",
    "]2;",
    "]52;",
    "[31",
    "pwned",
    "cm0gLXJmIH4=",
    "[2J",
];

/// A folder whose name, file name, title and text hold every escape kind, plus a junk
/// crawl file with a hostile name (so an error row and an ingest error quote it).
pub fn hostile_folder(root: &Path) -> std::path::PathBuf {
    let dir = root.join("hostile\u{1b}]0;PAYLOAD-OSC-BEL\u{7}dir");
    std::fs::create_dir_all(&dir).unwrap();
    let page = format!(
        "<html><head><title>Every escape {EVERY_ESCAPE}</title></head><body>\
         <p>{EVERY_ESCAPE}</p><p>A second paragraph of ordinary text so the page has \
         something to match on, written by a site that hides sequences.</p></body></html>"
    );
    std::fs::write(
        dir.join("page\u{1b}[31mPAYLOAD-CSI\u{9d}0;PAYLOAD-C1OSC\u{7}.html"),
        &page,
    )
    .unwrap();
    std::fs::write(dir.join("again.html"), page.replace("second", "third")).unwrap();
    std::fs::write(
        dir.join("junk\u{1b}]52;c;UEFZTE9BRC1PU0M1Mg==\u{7}.warc"),
        b"WARC/1.1\r\nnot a header\r\n\x00\x01",
    )
    .unwrap();
    dir
}

/// A database with the demo (labels of coder `demo` included) and the hostile folder.
fn hostile_db() -> (tempfile::TempDir, String) {
    let (dir, db) = common::temp_db();
    let db_s = db.to_str().unwrap().to_string();
    common::spotcheck_ok(&["demo", "--db", &db_s, "--no-review"]);
    let folder = hostile_folder(dir.path());
    // The junk file makes ingest report an error; the pages are still ingested.
    let (code, out, err) = run_os(&[
        "ingest".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        "--quiet".as_ref(),
        folder.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_clean_text("ingest of the hostile folder", &out);
    assert_clean_text("ingest of the hostile folder (stderr)", &err);
    common::spotcheck_ok(&["detect", "--db", &db_s, "--method", "imatch"]);
    (dir, db_s)
}

fn run_os(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// Text for a terminal: no control character but newline (and tab in TSV), no bidi
/// control, no escape payload.
fn assert_clean_text(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|&c| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    }) {
        panic!("{what}: control or bidi character {c:?} in output:\n{text}");
    }
    for p in PAYLOADS {
        assert!(
            !text.contains(p),
            "{what}: payload {p:?} in output:\n{text}"
        );
    }
}

/// JSON lines for a terminal: no raw control or bidi character (they are escaped as
/// `\uXXXX`), and every line parses.
fn assert_clean_json(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    }) {
        panic!("{what}: raw control or bidi character {c:?} in JSON output");
    }
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {line}"));
    }
}

/// Every listing and export that writes to standard output, and whether it writes JSON.
fn listings(db: &str, gold: &str) -> Vec<(Vec<String>, bool)> {
    let l = |args: &[&str], json: bool| -> (Vec<String>, bool) {
        (args.iter().map(|s| s.to_string()).collect(), json)
    };
    let mut all = vec![
        l(&["docs", "--db", db], true),
        l(&["docs", "--db", db, "--format", "tsv"], false),
        l(&["errors", "--db", db], true),
        l(&["errors", "--db", db, "--format", "tsv"], false),
        l(&["stats", "--db", db], false),
        l(&["stats", "--db", db, "--sources"], false),
        l(&["stats", "--db", db, "--json", "--sources"], true),
        l(&["sigs", "--db", db], true),
        l(&["sigs", "--db", db, "--format", "tsv"], false),
        l(&["runs", "--db", db], false),
        l(&["runs", "--db", db, "--json"], true),
        l(&["queue", "--db", db, "--all"], true),
        l(&["queue", "--db", db, "--all", "--format", "tsv"], false),
        l(&["eval", "--db", db, "--gold", gold], false),
        l(&["eval", "--db", db, "--gold", gold, "--json"], true),
        l(&["eval", "--db", db, "--gold", "labels"], false),
        l(&["eval", "--db", db, "--gold", "labels", "--json"], true),
        l(
            &["export", "--db", db, "--format", "andd-jsonl", "--out", "-"],
            true,
        ),
        l(
            &["export", "--db", db, "--format", "gold-tsv", "--out", "-"],
            false,
        ),
    ];
    for m in ["spotsigs", "imatch", "cooper"] {
        for cmd in ["pairs", "clusters"] {
            all.push(l(&[cmd, "--db", db, "--method", m], true));
            all.push(l(
                &[cmd, "--db", db, "--method", m, "--format", "tsv"],
                false,
            ));
        }
    }
    all
}

/// A gold file naming the hostile pages and two demo pages.
fn gold_file(dir: &Path) -> String {
    let p = dir.join("gold.tsv");
    std::fs::write(&p, "# hostile\nagain.html\t1\npages/wire/daily-courier.html\t2\npages/wire/metro-post.html\t2\n").unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn no_control_byte_or_escape_payload_reaches_any_listing() {
    let (dir, db) = hostile_db();
    let gold = gold_file(dir.path());
    let mut saw_every_escape_page = false;
    for (args, json) in listings(&db, &gold) {
        let out = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "spotcheck {args:?}: {stderr}");
        let what = format!("spotcheck {}", args.join(" "));
        if json {
            assert_clean_json(&what, &stdout);
        } else {
            assert_clean_text(&what, &stdout);
        }
        assert_clean_text(&format!("{what} (stderr)"), &stderr);
        saw_every_escape_page |= stdout.contains("Every escape");
    }
    assert!(
        saw_every_escape_page,
        "the hostile page is listed by its cleaned title"
    );
}

/// JSON escapes rather than strips: the stored URL with its escape sequence comes back
/// whole from `docs` (a script gets the real URL), as `\u001b` in the bytes.
#[test]
fn json_escapes_what_text_strips() {
    let (dir, db) = common::temp_db();
    let folder = hostile_folder(dir.path());
    let (code, _, err) = run_os(&[
        "ingest".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        "--quiet".as_ref(),
        folder.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (out, _) = common::spotcheck_ok(&["docs", "--db", db.to_str().unwrap()]);
    assert!(out.contains("\\u001b[31mPAYLOAD-CSI"), "{out}");
    let urls: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["url"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        urls.iter()
            .any(|u| u.contains("\u{1b}[31mPAYLOAD-CSI\u{9d}0;PAYLOAD-C1OSC\u{7}")),
        "{urls:?}"
    );
    let (tsv, _) = common::spotcheck_ok(&["docs", "--db", db.to_str().unwrap(), "--format", "tsv"]);
    assert_clean_text("docs --format tsv", &tsv);
}

/// A pipe whose reading end is already closed: whatever writes to the other end gets
/// EPIPE at once, whatever the timing (no race with the reader going away).
fn pipe_without_reader() -> Stdio {
    use std::os::fd::FromRawFd;
    let mut fds = [0i32; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe(2) to fill.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe(2)");
    // SAFETY: both descriptors were just returned by pipe(2) and are owned here only.
    unsafe {
        drop(std::os::fd::OwnedFd::from_raw_fd(fds[0]));
        Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    }
}

/// Runs `args` with standard output a pipe nobody reads (`| head -0`), then reading only
/// the first line (`| head -1`): exit codes and standard error of both.
fn closed_pipe_runs(args: &[String]) -> [(Option<i32>, String); 2] {
    let spawn = |stdout: Stdio| {
        Command::new(env!("CARGO_BIN_EXE_spotcheck"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let closed = spawn(pipe_without_reader()).wait_with_output().unwrap();
    let mut head = spawn(Stdio::piped());
    let mut stdout = head.stdout.take().unwrap();
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {}
    drop(stdout);
    let head = head.wait_with_output().unwrap();
    [closed, head].map(|o| {
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    })
}

#[test]
fn every_listing_into_a_closed_pipe_exits_0_silently() {
    let (dir, db) = hostile_db();
    let gold = gold_file(dir.path());
    let mut cases = listings(&db, &gold);
    // Commands whose summary goes to standard output too.
    cases.push((
        ["detect", "--db", &db, "--method", "cooper"]
            .map(String::from)
            .to_vec(),
        false,
    ));
    let demo_db = dir.path().join("demo2.db");
    cases.push((
        ["demo", "--no-review", "--db", demo_db.to_str().unwrap()]
            .map(String::from)
            .to_vec(),
        false,
    ));
    for (args, _) in cases {
        for (i, (code, stderr)) in closed_pipe_runs(&args).into_iter().enumerate() {
            let how = ["closed", "| head -1"][i];
            assert_eq!(code, Some(0), "spotcheck {args:?} {how}: {stderr}");
            if i == 0 {
                // Nothing could be written: no summary, no complaint.
                assert!(
                    stderr.is_empty(),
                    "spotcheck {args:?} {how} wrote to stderr: {stderr}"
                );
            } else {
                // Whether the writes beat `head` is timing; either way no error is shown
                // (a summary that export prints on stderr by design may be).
                for bad in ["error", "Broken pipe", "panicked"] {
                    assert!(!stderr.contains(bad), "spotcheck {args:?} {how}: {stderr}");
                }
            }
        }
    }
}

/// A WARC whose record type is an escape sequence: the ingest summary and its "no document"
/// error count records by type, and the type is the crawl's own text.
#[test]
fn a_hostile_warc_record_type_reaches_no_summary() {
    let (dir, db) = common::temp_db();
    let warc = dir.path().join("types.warc");
    let mut bytes = Vec::new();
    for i in 0..2 {
        bytes.extend_from_slice(
            format!(
                "WARC/1.1\r\nWARC-Type: odd\u{1b}]0;PAYLOAD-OSC-BEL\u{7}type\r\n\
                 WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-00000000000{i}>\r\n\
                 WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n"
            )
            .as_bytes(),
        );
    }
    std::fs::write(&warc, bytes).unwrap();
    let (_, out, err) = run_os(&[
        "ingest".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        warc.as_os_str(),
    ]);
    assert!(out.contains("odd") || err.contains("odd"), "{out}\n{err}");
    assert_clean_text("ingest summary", &out);
    assert_clean_text("ingest error", &err);
}
