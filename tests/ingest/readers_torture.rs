//! Every file of `warc/torture/` (the JHOVE WARC conformance files plus small ARC/WARC
//! samples) is read without panic; valid files yield their records without errors; each
//! invalid file yields at least one error with an offset, except the defects listed in
//! [`SEMANTIC_ONLY`], which are about meaning the reader does not need (and does not) check.

use crate::common;

use std::path::PathBuf;

use spotcheck::ingest::{expand_inputs, open_reader, CrawlRecord, ReadItem, ReaderOptions};

fn corpus() -> Option<PathBuf> {
    common::corpus("")
}

/// Invalid files whose defect is semantic (the bytes frame correctly, so every record is
/// readable): the reader yields their records and reports nothing. File → why.
const SEMANTIC_ONLY: &[(&str, &str)] = &[
    (
        "invalid-warcfile-contenttype-recommended.warc",
        "records lack the recommended Content-Type; framing is intact",
    ),
    (
        "invalid-warcfile-contenttype-warcinfo-recommended.warc",
        "warcinfo typed application/octet instead of application/warc-fields",
    ),
    (
        "invalid-warcfile-digest-fields.warc",
        "malformed digest values; digests are copied, never verified",
    ),
    (
        "invalid-warcfile-segment-number-continuation.warc",
        "segment numbering of continuation records; segments are not reassembled",
    ),
    (
        "invalid-warcfile-segment-number-response.warc",
        "segment number on a response; segments are not reassembled",
    ),
    (
        "invalid-warcheaderfieldpolicy-2.warc",
        "field policy for an empty warcinfo block (Content-Type with length 0)",
    ),
    (
        "invalid-warcheaderfieldpolicy-9.warc",
        "unknown media type hello/warc-fields on warcinfo",
    ),
    (
        "invalid-warcheaderfieldpolicy-10.warc",
        "media type application/kitty on warcinfo",
    ),
    (
        "invalid-warcrecord-2.warc",
        "msgtype=custom/request inside response records; the HTTP envelope is read as found",
    ),
    (
        "invalid-warcrecorddigests-1.warc",
        "block/payload digests do not match; digests are not verified",
    ),
    (
        "invalid-warcrecorddigests-2.warc",
        "digest values of the wrong form; digests are not verified",
    ),
    (
        "invalid-warcrecorddigests-3.warc",
        "digest values of the wrong form; digests are not verified",
    ),
];

/// Samples outside `valid/` and `invalid/` that do carry a defect. File → (error kind, why).
const DEFECTIVE_SAMPLES: &[(&str, &str, &str)] = &[(
    "hello-world2.arc",
    "bad length",
    "the filedesc header says 122 bytes but its block has 121: the length runs one byte into \
     the next record's URL line (warcio stumbles on it too). The header record is reported and \
     dropped; the URL record after it is read correctly.",
)];

fn read(path: &std::path::Path) -> (Vec<CrawlRecord>, Vec<(u64, String)>) {
    let inputs = expand_inputs(&[path.to_path_buf()]).expect("sniffed");
    let mut recs = Vec::new();
    let mut errs = Vec::new();
    for input in &inputs {
        for item in open_reader(input, &ReaderOptions::default()).expect("opens") {
            match item {
                ReadItem::Record(r) => recs.push(*r),
                ReadItem::Error(e) => errs.push((e.offset, e.reason)),
            }
        }
    }
    (recs, errs)
}

fn files(dir: PathBuf) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

#[test]
fn valid_files_yield_records_without_errors() {
    let Some(corpus) = corpus() else { return };
    let t = corpus.join("warc/torture");
    let all: Vec<PathBuf> = files(t.join("valid")).into_iter().chain(files(t)).collect();
    assert!(all.len() >= 14);
    for f in all {
        let (recs, errs) = read(&f);
        assert!(!recs.is_empty(), "{}: no records", f.display());
        let name = f.file_name().expect("name").to_string_lossy().into_owned();
        if let Some((_, kind, _)) = DEFECTIVE_SAMPLES.iter().find(|(n, _, _)| *n == name) {
            assert_eq!(errs.len(), 1, "{name}: {errs:?}");
            assert!(errs[0].1.starts_with(kind), "{name}: {errs:?}");
            continue;
        }
        assert!(errs.is_empty(), "{}: {errs:?}", f.display());
        for r in &recs {
            assert_eq!(r.record_type, r.record_type.trim().to_ascii_lowercase());
        }
    }
}

#[test]
fn invalid_files_yield_errors_with_offsets() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("warc/torture/invalid");
    let all = files(dir);
    assert!(all.len() >= 60);
    let mut semantic_seen = 0;
    for f in all {
        let name = f.file_name().expect("name").to_string_lossy().into_owned();
        let (recs, errs) = read(&f);
        let size = std::fs::metadata(&f).expect("meta").len();
        for (offset, reason) in &errs {
            assert!(
                *offset <= size.max(1),
                "{name}: offset {offset} beyond the file"
            );
            let kind = reason.split(':').next().unwrap_or("");
            assert!(
                !kind.is_empty() && kind.len() < 30 && reason.contains(':'),
                "{name}: reason without a kind: {reason}"
            );
        }
        if let Some((_, why)) = SEMANTIC_ONLY.iter().find(|(n, _)| *n == name) {
            assert!(
                errs.is_empty(),
                "{name} ({why}) now reports {errs:?}: update the table"
            );
            assert!(!recs.is_empty(), "{name}: records should still be readable");
            semantic_seen += 1;
        } else {
            assert!(
                !errs.is_empty(),
                "{name}: no error reported ({} records)",
                recs.len()
            );
        }
    }
    assert_eq!(semantic_seen, SEMANTIC_ONLY.len());
}

#[test]
fn empty_file_reports_empty_file() {
    let Some(corpus) = corpus() else { return };
    let (recs, errs) = read(&corpus.join("warc/torture/invalid/invalid-empty.warc"));
    assert!(recs.is_empty());
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].0, 0);
    assert!(errs[0].1.starts_with("empty file:"), "{:?}", errs[0]);
}

#[test]
fn bad_lengths_do_not_lose_following_records() {
    let Some(corpus) = corpus() else { return };
    // invalid-warcrecord-3 has records whose Content-Length is wrong; the well-framed
    // records after them are still found.
    let (recs, errs) = read(&corpus.join("warc/torture/invalid/invalid-warcrecord-3.warc"));
    assert!(
        errs.iter().any(|(_, r)| r.starts_with("bad length:")),
        "{errs:?}"
    );
    assert!(!recs.is_empty());
}

#[test]
fn arc_samples_parse_their_http_responses() {
    let Some(corpus) = corpus() else { return };
    let (recs, errs) = read(&corpus.join("warc/torture/hello-world.arc"));
    assert!(errs.is_empty());
    assert_eq!(recs[0].record_type, "arc-header");
    assert_eq!(recs[1].record_type, "arc");
    assert_eq!(
        recs[1].url.as_deref(),
        Some("http://www.dryswamp.edu:80/index.html")
    );
    assert_eq!(recs[1].http_status, Some(200));
    assert_eq!(recs[1].media_type.as_deref(), Some("text/html"));
    assert_eq!(recs[1].date.as_deref(), Some("19961104142103"));
    assert_eq!(
        recs[1].body.as_deref(),
        Some(&b"<HTML>\r\nHello World!!!\r\n</HTML>"[..])
    );
    // hello-world2.arc (ARC v2) has a filedesc length one byte too long and no blank line
    // between the HTTP head and the body.
    let (recs, errs) = read(&corpus.join("warc/torture/hello-world2.arc"));
    assert_eq!(errs.len(), 1);
    assert_eq!(recs.len(), 1);
    assert_eq!(
        recs[0].url.as_deref(),
        Some("http://www.dryswamp.edu:80/index.html")
    );
    assert_eq!(recs[0].http_status, Some(200));
    assert!(recs[0]
        .body
        .as_deref()
        .is_some_and(|b| b.starts_with(b"<HTML>")));
}

/// Prints what every file yields (run with --nocapture to see it); asserts only no panic.
#[test]
fn print_everything() {
    let Some(corpus) = corpus() else { return };
    let t = corpus.join("warc/torture");
    let all = files(t.join("valid"))
        .into_iter()
        .chain(files(t.clone()))
        .chain(files(t.join("invalid")));
    for f in all {
        let (recs, errs) = read(&f);
        let types: Vec<_> = recs.iter().map(|r| r.record_type.as_str()).collect();
        println!(
            "{} -> {} records {types:?} errors {errs:?}",
            f.display(),
            recs.len()
        );
    }
}
