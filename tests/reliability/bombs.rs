//! Bounded resources: decompression bombs (a 10 MB file that inflates to 10 GB, as a
//! whole-file gzip and as one record's members) and parser bombs (100,000-deep nesting, a
//! 50 MB attribute, a million entities, 200,000 attributes on one tag) each cost bounded
//! time and memory and become error rows or plain documents; the rest of the file is kept.
//! The bombs are generated here (never committed). Time and peak RSS are measured by hand
//! with `/usr/bin/time -v` (README, Reliability); this test asserts the outcome only.

use std::io::Write;
use std::path::Path;

use crate::common;

/// One gzip member of `n` zero bytes (about n/1030 bytes: deflate's best ratio).
fn zeros_member(n: usize) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..n / chunk.len() {
        enc.write_all(&chunk).unwrap();
    }
    enc.finish().unwrap()
}

fn member(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn response(url: &str, http: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\nWARC-Record-ID: \
         <urn:uuid:{url}>\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

const PAGE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><title>after the \
    bomb</title><p>This page comes after the bomb and is still read.</p></html>";

/// Writes the bombs into `dir`: (file name, whether the page after the bomb must be kept).
fn write_gzip_bombs(dir: &Path) -> Vec<(&'static str, bool)> {
    let zeros = zeros_member(100 << 20); // 100 MB → ~100 KB
    let hundred: Vec<u8> = zeros.repeat(100); // 10 GB → ~10 MB
                                              // Whole-file gzip of zeros: junk that inflates to 10 GB.
    std::fs::write(dir.join("zeros.warc.gz"), &hundred).unwrap();
    // A record header claiming 10 GB, its block 10 GB of zeros in members, then a page.
    let head = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://bomb.example/\r\n\
         WARC-Record-ID: <urn:uuid:bomb>\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        100u64 * (100 << 20)
    );
    let mut record = member(head.as_bytes());
    record.extend_from_slice(&hundred);
    record.extend_from_slice(&member(b"\r\n\r\n"));
    record.extend_from_slice(&member(&response("http://ok.example/", PAGE)));
    std::fs::write(dir.join("record.warc.gz"), &record).unwrap();
    // An HTTP body with Content-Encoding: gzip of 10 GB (5 MB: under the page limit, so
    // only the inflate cap stops it), then a page.
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
    http.extend_from_slice(&zeros.repeat(50));
    let mut warc = response("http://bomb.example/ce", &http);
    warc.extend_from_slice(&response("http://ok.example/ce", PAGE));
    std::fs::write(dir.join("content-encoding.warc"), &warc).unwrap();
    vec![
        ("zeros.warc.gz", false),
        ("record.warc.gz", false),
        ("content-encoding.warc", true),
    ]
}

#[test]
fn gzip_bombs_become_error_rows_and_the_rest_is_read() {
    let (dir, db) = common::temp_db();
    let db = db.to_str().unwrap();
    for (name, page_kept) in write_gzip_bombs(dir.path()) {
        let path = dir.path().join(name);
        let (code, _, err) =
            common::spotcheck_run(&["ingest", "--db", db, "--quiet", path.to_str().unwrap()]);
        assert!(
            matches!(code, Some(0 | 1)),
            "{name}: exit {code:?}, a crash: {err}"
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
        let (errors, _) = common::spotcheck_ok(&["errors", "--db", db, "--format", "tsv"]);
        let rows: Vec<&str> = errors.lines().filter(|l| l.contains(name)).collect();
        assert!(
            rows.iter()
                .any(|r| r.contains("bomb:") || r.contains("too large")),
            "{name}: no bomb or size error row: {errors}"
        );
        let (docs, _) = common::spotcheck_ok(&["docs", "--db", db, "--format", "tsv"]);
        if page_kept {
            assert!(docs.contains("http://ok.example/ce"), "{name}: {docs}");
        }
        assert!(
            !docs.contains("bomb.example"),
            "{name}: the bomb became a document"
        );
    }
}

#[test]
fn html_bombs_cost_bounded_work_and_keep_the_page() {
    let (dir, db) = common::temp_db();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    let n = 100_000;
    let bombs: [(&str, String); 4] = [
        (
            "deep.html",
            format!(
                "<title>deep</title>{}deep text{}",
                "<div>".repeat(n),
                "</div>".repeat(n)
            ),
        ),
        (
            "attr.html",
            format!(
                "<title>attr</title><p title=\"{}\">attribute text</p>",
                "a".repeat(50 << 20)
            ),
        ),
        (
            "entities.html",
            format!(
                "<title>ents</title><p>{}</p>",
                "&amp;&#x41;&eacute;".repeat(333_334)
            ),
        ),
        (
            "attributes.html",
            format!(
                "<title>attrs</title><p {}>many attributes</p>",
                (0..200_000).map(|i| format!("a{i}=x ")).collect::<String>()
            ),
        ),
    ];
    for (name, html) in &bombs {
        std::fs::write(pages.join(name), html).unwrap();
    }
    let db = db.to_str().unwrap();
    // A page limit over the 50 MB attribute, so the parsers (not the size cap) meet it.
    common::spotcheck_ok(&[
        "ingest",
        "--db",
        db,
        "--quiet",
        "--max-page-bytes",
        "60000000",
        pages.to_str().unwrap(),
    ]);
    let (docs, _) = common::spotcheck_ok(&["docs", "--db", db, "--format", "tsv"]);
    for (name, _) in &bombs {
        assert!(docs.contains(name), "{name} is a document: {docs}");
    }
    assert!(
        docs.contains("many attributes") || docs.contains("attrs"),
        "{docs}"
    );
}
