//! The entry points fuzzing drives (issue 17): one function per parser that reads what
//! strangers wrote (WARC and ARC records, HTTP heads and chunking, gzip members and other
//! content codings, charset decoding, HTML extraction), each taking arbitrary bytes and
//! panicking only when an invariant breaks. The cargo-fuzz targets in `fuzz/`, the
//! property tests and the replay of inputs found so far (`tests/reliability/fuzzing.rs`)
//! all call these, so a finding reproduces the same way everywhere. Not part of the
//! command-line tool.

use crate::extract::{charset, extract, ExtractOptions};
use crate::ingest::{http, read_crawl_bytes, ReadItem, ReaderOptions};

/// Limits small enough that one input costs little (the bomb caps themselves are tested
/// in `tests/reliability/bombs.rs`).
const MAX_BODY: usize = 1 << 20;

fn reader_options() -> ReaderOptions {
    ReaderOptions {
        max_body_bytes: MAX_BODY,
        ..ReaderOptions::default()
    }
}

/// Reads every record of `data` as a WARC (or ARC) file: the reader must end, each item
/// must move past at least one byte (so no more items than bytes, plus the end), and every
/// record and error offset must lie inside the input (error rows name a real place).
fn crawl_records(data: &[u8], arc: bool) {
    let len = data.len() as u64;
    let mut items = 0u64;
    for item in read_crawl_bytes(data.to_vec(), arc, &reader_options()) {
        items += 1;
        assert!(
            items <= len + 2,
            "the reader yields more items ({items}) than the input has bytes ({len})"
        );
        match item {
            ReadItem::Record(r) => {
                if let Some(l) = r.locator {
                    assert!(l.offset <= len, "record offset {} past {len}", l.offset);
                }
                if let Some(body) = &r.body {
                    assert!(
                        body.len() <= MAX_BODY,
                        "a body of {} bytes past the limit",
                        body.len()
                    );
                }
            }
            ReadItem::Error(e) => {
                assert!(
                    e.offset <= len,
                    "error offset {} past {len}: {}",
                    e.offset,
                    e.reason
                );
                assert!(!e.reason.is_empty(), "an error without a reason");
            }
        }
    }
}

/// WARC record parsing (plain or gzip, by the first bytes).
pub fn warc_records(data: &[u8]) {
    crawl_records(data, false);
}

/// ARC record parsing (plain or gzip, by the first bytes).
pub fn arc_records(data: &[u8]) {
    crawl_records(data, true);
}

/// HTTP response heads, chunked transfer coding and the text checks on bodies.
pub fn http_head(data: &[u8]) {
    let head = http::parse_http_head(data);
    if let Some(ct) = &head.content_type {
        let _ = http::media_type(ct);
        let _ = http::charset_param(ct);
    }
    if let Some(body) = http::dechunk(data) {
        assert!(body.len() <= data.len(), "de-chunking made the body longer");
    }
    let _ = http::looks_chunked(data);
    let _ = http::sniff_html(data);
    let _ = http::looks_like_text(data);
}

/// Content codings (gzip members, deflate, and the rest `decode_content` knows), under a
/// limit the output must respect; and the same bytes as a gzip crawl file.
pub fn gzip_members(data: &[u8]) {
    let limit = 64 * 1024;
    for coding in [
        "gzip", "x-gzip", "deflate", "br", "zstd", "identity", "bogus",
    ] {
        if let Ok(out) = http::decode_content(coding, data, limit) {
            assert!(
                coding == "identity" || out.len() <= limit,
                "{coding}: {} bytes past the limit {limit}",
                out.len()
            );
        }
    }
    if data.starts_with(&[0x1f, 0x8b]) {
        crawl_records(data, false);
    }
}

/// Charset decoding: header charsets (the input's first line names one), the `<meta>`
/// prescan and sniffing. The borrowing and the owning decoder must agree.
pub fn charset_decode(data: &[u8]) {
    let (label, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) if i <= 40 => (
            Some(String::from_utf8_lossy(&data[..i]).to_string()),
            &data[i + 1..],
        ),
        _ => (None, data),
    };
    let owned = charset::decode(body, label.as_deref(), true);
    let (borrowed, encoding, _) = charset::decode_borrowed(body, label.as_deref(), true);
    assert_eq!(owned.text, borrowed, "decode and decode_borrowed differ");
    assert_eq!(owned.encoding, encoding);
    let _ = charset::prescan_meta(&body[..body.len().min(1024)]);
}

/// HTML extraction: visible text, title and (on) the main-content extractor, under the
/// default budgets. A parser panic must be caught and returned as an error, never escape.
pub fn html_extract(data: &[u8]) {
    let opts = ExtractOptions {
        main_content: true,
        ..ExtractOptions::default()
    };
    if let Ok(page) = extract(data, None, false, &opts) {
        assert!(
            !page.visible_text.contains('\u{1b}') || data.contains(&0x1b),
            "an escape byte the page did not contain"
        );
    }
    let _ = extract(data, None, true, &opts);
}

/// An entry point: arbitrary bytes in, a panic only when an invariant breaks.
pub type Target = fn(&[u8]);

/// Every target by name, for the replay of found inputs.
pub const TARGETS: &[(&str, Target)] = &[
    ("warc_records", warc_records),
    ("arc_records", arc_records),
    ("http_head", http_head),
    ("gzip_members", gzip_members),
    ("charset_decode", charset_decode),
    ("html_extract", html_extract),
];
