//! End-to-end tests of the readers on small crawls built in memory: locators that reopen
//! their record, gzip member handling, HTTP decoding and resync after damage.

use std::io::{Read, Write};
use std::path::PathBuf;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

use super::*;

fn warc_record(kind: &str, uri: &str, extra: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\n{extra}Content-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn http_response(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 200 OK\r\n{headers}\r\n").into_bytes();
    r.extend_from_slice(body);
    r
}

fn response(uri: &str, html: &str) -> Vec<u8> {
    warc_record(
        "response",
        uri,
        "Content-Type: application/http; msgtype=response\r\n",
        &http_response(
            "Content-Type: text/html; charset=UTF-8\r\n",
            html.as_bytes(),
        ),
    )
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = MultiGzDecoder::new(data).read_to_end(&mut out);
    out
}

struct Read2 {
    records: Vec<CrawlRecord>,
    errors: Vec<RecordError>,
    _dir: tempfile::TempDir,
}

fn read_bytes(name: &str, data: &[u8], opts: &ReaderOptions) -> Read2 {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    let inputs = expand_inputs(std::slice::from_ref(&path)).unwrap();
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for item in open_reader(&inputs[0], opts).unwrap() {
        match item {
            ReadItem::Record(r) => records.push(*r),
            ReadItem::Error(e) => errors.push(e),
        }
    }
    Read2 {
        records,
        errors,
        _dir: dir,
    }
}

fn read(name: &str, data: &[u8]) -> Read2 {
    read_bytes(name, data, &ReaderOptions::default())
}

fn urls(r: &Read2) -> Vec<&str> {
    r.records.iter().filter_map(|r| r.url.as_deref()).collect()
}

/// The raw record a locator points at, decompressed.
fn reopen(file: &[u8], loc: Locator) -> Vec<u8> {
    match loc.compression {
        Compression::None => file[loc.offset as usize..(loc.offset + loc.length) as usize].to_vec(),
        Compression::GzipMember => {
            gunzip(&file[loc.offset as usize..(loc.offset + loc.length) as usize])
        }
        Compression::GzipStream => {
            let all = gunzip(file);
            all[loc.offset as usize..(loc.offset + loc.length) as usize].to_vec()
        }
    }
}

fn three_records() -> Vec<Vec<u8>> {
    vec![
        warc_record("warcinfo", "info", "", b"software: test\r\n"),
        response("http://a/", "<html><title>A</title>alpha</html>"),
        response("http://b/", "<html>beta</html>"),
    ]
}

fn assert_reopens(file: &[u8], r: &Read2, expect: Compression) {
    assert_eq!(r.records.len(), 3, "{:?}", r.errors);
    for rec in &r.records {
        let loc = rec.locator.unwrap();
        assert_eq!(loc.compression, expect);
        let raw = reopen(file, loc);
        assert!(
            raw.starts_with(b"WARC/1.0\r\n"),
            "{:?}",
            &raw[..20.min(raw.len())]
        );
        let id = format!("WARC-Record-ID: {}", rec.record_id.as_deref().unwrap());
        assert!(memchr::memmem::find(&raw, id.as_bytes()).is_some());
        assert!(raw.ends_with(b"\r\n\r\n"));
    }
}

#[test]
fn plain_locators_reopen_records() {
    let file: Vec<u8> = three_records().concat();
    let r = read("x.warc", &file);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_reopens(&file, &r, Compression::None);
    assert_eq!(
        r.records[1].body.as_deref(),
        Some(&b"<html><title>A</title>alpha</html>"[..])
    );
    assert_eq!(r.records[1].http_status, Some(200));
    assert_eq!(r.records[1].header_charset.as_deref(), Some("utf-8"));
    assert_eq!(r.records[0].body, None);
}

#[test]
fn per_record_gzip_locators_are_members() {
    let file: Vec<u8> = three_records()
        .iter()
        .map(|r| gz(r))
        .collect::<Vec<_>>()
        .concat();
    let r = read("x.warc.gz", &file);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_reopens(&file, &r, Compression::GzipMember);
}

#[test]
fn whole_file_gzip_locators_are_stream_offsets() {
    let file = gz(&three_records().concat());
    let r = read("x.warc.gz", &file);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_reopens(&file, &r, Compression::GzipStream);
}

#[test]
fn record_spanning_two_members_gets_both() {
    let recs = three_records();
    let split = recs[1].len() / 2;
    let file = [
        gz(&recs[0]),
        gz(&recs[1][..split]),
        gz(&recs[1][split..]),
        gz(&recs[2]),
    ]
    .concat();
    let r = read("x.warc.gz", &file);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_reopens(&file, &r, Compression::GzipMember);
    let loc = r.records[1].locator.unwrap();
    assert_eq!(loc.offset, gz(&recs[0]).len() as u64);
}

#[test]
fn truncated_last_member_keeps_earlier_records() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gz(r)).collect();
    let mut file = members.concat();
    file.truncate(file.len() - 10);
    let r = read("x.warc.gz", &file);
    assert_eq!(urls(&r), vec!["info", "http://a/"]);
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert_eq!(
        r.errors[0].offset,
        (members[0].len() + members[1].len()) as u64
    );
    assert!(
        r.errors[0].reason.starts_with("corrupt gzip:"),
        "{:?}",
        r.errors
    );
}

#[test]
fn corrupt_member_in_the_middle_is_skipped() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gz(r)).collect();
    let mut file = members.concat();
    let mid = members[0].len() + members[1].len() / 2;
    file[mid] ^= 0x55;
    file[mid + 1] ^= 0x55;
    let r = read("x.warc.gz", &file);
    assert_eq!(urls(&r), vec!["info", "http://b/"], "{:?}", r.errors);
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert_eq!(r.errors[0].offset, members[0].len() as u64);
}

#[test]
fn junk_between_members_is_reported_and_skipped() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gz(r)).collect();
    let file = [
        members[0].clone(),
        b"\x00\x00garbage!!".to_vec(),
        members[1].clone(),
        members[2].clone(),
    ]
    .concat();
    let r = read("x.warc.gz", &file);
    assert_eq!(urls(&r), vec!["info", "http://a/", "http://b/"]);
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert_eq!(r.errors[0].offset, members[0].len() as u64);
    assert_eq!(
        r.errors[0].reason,
        "junk: 11 bytes skipped, not a gzip member"
    );
    // Locators after the junk still reopen.
    assert_eq!(
        r.records[1].locator.unwrap().offset,
        (members[0].len() + 11) as u64
    );
}

#[test]
fn junk_between_plain_records() {
    let recs = three_records();
    let file = [
        recs[0].clone(),
        b"binary\x00junk\r\n".to_vec(),
        recs[1].clone(),
        recs[2].clone(),
    ]
    .concat();
    let r = read("x.warc", &file);
    assert_eq!(urls(&r), vec!["info", "http://a/", "http://b/"]);
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.errors[0].offset, recs[0].len() as u64);
    assert_eq!(r.errors[0].reason, "junk: 13 bytes skipped");
}

fn with_length(rec: &[u8], new_len: usize) -> Vec<u8> {
    let s = String::from_utf8_lossy(rec).into_owned();
    let at = s.find("Content-Length: ").unwrap() + "Content-Length: ".len();
    let end = at + s[at..].find('\r').unwrap();
    format!("{}{}{}", &s[..at], new_len, &s[end..]).into_bytes()
}

#[test]
fn too_long_content_length_does_not_swallow_records() {
    let recs = three_records();
    let bad = with_length(&recs[0], recs[0].len() + 50);
    for gzip in [false, true] {
        let file = if gzip {
            [gz(&bad), gz(&recs[1]), gz(&recs[2])].concat()
        } else {
            [bad.clone(), recs[1].clone(), recs[2].clone()].concat()
        };
        let r = read(if gzip { "x.warc.gz" } else { "x.warc" }, &file);
        assert_eq!(
            urls(&r),
            vec!["http://a/", "http://b/"],
            "gzip={gzip} {:?}",
            r.errors
        );
        assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
        assert_eq!(r.errors[0].offset, 0);
        assert!(
            r.errors[0].reason.starts_with("bad length:"),
            "{:?}",
            r.errors
        );
    }
    // Longer than the whole rest of the file: reported as truncation, records still found.
    let bad = with_length(&recs[0], 1 << 30);
    let file = [bad, recs[1].clone(), recs[2].clone()].concat();
    let r = read("x.warc", &file);
    assert_eq!(urls(&r), vec!["http://a/", "http://b/"]);
    assert!(
        r.errors[0].reason.starts_with("truncated:"),
        "{:?}",
        r.errors
    );
}

#[test]
fn too_short_content_length_resyncs() {
    let recs = three_records();
    let block_len = b"software: test\r\n".len();
    let bad = with_length(&recs[0], block_len - 5);
    let file = [bad, recs[1].clone(), recs[2].clone()].concat();
    let r = read("x.warc", &file);
    assert_eq!(urls(&r), vec!["http://a/", "http://b/"]);
    assert_eq!(r.errors.len(), 1);
    assert!(r.errors[0].reason.starts_with("bad length:"));
}

#[test]
fn file_ending_mid_record() {
    let recs = three_records();
    let file = [recs[0].clone(), recs[1].clone(), recs[2][..40].to_vec()].concat();
    let r = read("x.warc", &file);
    assert_eq!(urls(&r), vec!["info", "http://a/"]);
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.errors[0].offset, (recs[0].len() + recs[1].len()) as u64);
    assert!(r.errors[0].reason.starts_with("truncated:"));
}

#[test]
fn chunked_gzip_body_is_decoded() {
    let html = b"<html><body>chunked and gzipped</body></html>";
    let z = gz(html);
    let mut chunked = Vec::new();
    for part in z.chunks(7) {
        chunked.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        chunked.extend_from_slice(part);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let block = http_response(
        "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n",
        &chunked,
    );
    let file = warc_record("response", "http://c/", "", &block);
    let r = read("x.warc", &file);
    assert!(r.errors.is_empty());
    assert_eq!(r.records[0].body.as_deref(), Some(&html[..]));
}

#[test]
fn chunked_header_with_dechunked_payload_keeps_raw() {
    // Common Crawl keeps the header but stores the payload de-chunked.
    let html = b"<html>already de-chunked</html>";
    let block = http_response(
        "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\n",
        html,
    );
    let r = read("x.warc", &warc_record("response", "http://c/", "", &block));
    assert_eq!(r.records[0].body.as_deref(), Some(&html[..]));
}

#[test]
fn mislabelled_gzip_text_is_kept_and_binary_is_reported() {
    let block = http_response(
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
        b"<p>plain</p>",
    );
    let r = read("x.warc", &warc_record("response", "http://c/", "", &block));
    assert_eq!(r.records[0].body.as_deref(), Some(&b"<p>plain</p>"[..]));
    let block = http_response(
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
        b"\x00\x01\x02\x03\x04\x05",
    );
    let r = read("x.warc", &warc_record("response", "http://c/", "", &block));
    assert_eq!(r.records[0].body, None);
    assert!(r.errors[0].reason.starts_with("bad encoding:"));
}

#[test]
fn revisit_resource_and_sniffing() {
    let revisit = warc_record(
        "revisit",
        "http://r/",
        "WARC-Refers-To: <urn:uuid:x>\r\nWARC-Refers-To-Target-URI: http://r/\r\nWARC-Refers-To-Date: 2023-01-01T00:00:00Z\r\nWARC-Payload-Digest: sha1:ABC\r\n",
        b"HTTP/1.1 304 Not Modified\r\nContent-Type: text/html\r\n\r\n",
    );
    let resource = warc_record(
        "resource",
        "file:///a.txt",
        "Content-Type: text/plain\r\n",
        b"just text",
    );
    let untyped = warc_record(
        "response",
        "http://u/",
        "",
        &http_response("", b"<!DOCTYPE html><p>x"),
    );
    let untyped_bin = warc_record("response", "http://v/", "", &http_response("", b"GIF89a"));
    let file = [revisit, resource, untyped, untyped_bin].concat();
    let r = read("x.warc", &file);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let rv = &r.records[0];
    assert_eq!(rv.record_type, "revisit");
    assert_eq!(rv.http_status, Some(304));
    assert_eq!(rv.media_type.as_deref(), Some("text/html"));
    assert_eq!(rv.body, None);
    assert_eq!(rv.refers_to.as_deref(), Some("<urn:uuid:x>"));
    assert_eq!(rv.refers_to_uri.as_deref(), Some("http://r/"));
    assert_eq!(rv.payload_digest.as_deref(), Some("sha1:ABC"));
    assert_eq!(r.records[1].body.as_deref(), Some(&b"just text"[..]));
    assert!(r.records[1].body_is_text);
    assert!(r.records[2].body.is_some());
    assert!(r.records[3].body.is_none());
}

#[test]
fn too_large_pages_become_errors() {
    let big = format!("<html>{}</html>", "x".repeat(5000));
    let file = [
        response("http://big/", &big),
        response("http://ok/", "<html>ok</html>"),
    ]
    .concat();
    let r = read_bytes(
        "x.warc",
        &file,
        &ReaderOptions {
            max_body_bytes: 1000,
            ..ReaderOptions::default()
        },
    );
    assert_eq!(urls(&r), vec!["http://big/", "http://ok/"]);
    assert_eq!(r.records[0].body, None);
    assert!(r.records[1].body.is_some());
    assert_eq!(r.errors.len(), 1);
    assert!(r.errors[0].reason.starts_with("page too large:"));
}

#[test]
fn angle_bracket_uris_and_lowercase_types() {
    let rec = warc_record(
        "Response",
        "<http://x/>",
        "",
        &http_response("Content-Type: text/html\r\n", b"<p>"),
    );
    let r = read("x.warc", &rec);
    assert_eq!(r.records[0].record_type, "response");
    assert_eq!(r.records[0].url.as_deref(), Some("http://x/"));
}

#[test]
fn jsonl_lines_and_errors() {
    let text = "{\"url\":\"u1\",\"html\":\"<p>a</p>\",\"title\":\"T\"}\nnot json\n\n{\"url\":\"u2\",\"text\":\"plain\"}\n{\"html\":\"x\"}\n";
    let r = read("x.jsonl", text.as_bytes());
    assert_eq!(urls(&r), vec!["u1", "u2"]);
    assert_eq!(r.records[0].given_title.as_deref(), Some("T"));
    assert!(!r.records[0].body_is_text);
    assert!(r.records[1].body_is_text);
    let second = text.find("not json").unwrap() as u64;
    assert_eq!(r.errors[0].offset, second);
    assert!(r.errors[0].reason.starts_with("bad json:"));
    assert!(r.errors[1].reason.starts_with("missing field:"));
    let loc = r.records[1].locator.unwrap();
    assert_eq!(loc.offset, text.find("{\"url\":\"u2\"").unwrap() as u64);
    assert_eq!(
        &text[loc.offset as usize..(loc.offset + loc.length) as usize],
        "{\"url\":\"u2\",\"text\":\"plain\"}"
    );

    let r = read("x.jsonl.gz", &gz(text.as_bytes()));
    assert_eq!(urls(&r), vec!["u1", "u2"]);
    assert_eq!(
        r.records[1].locator.unwrap().compression,
        Compression::GzipStream
    );
    assert_eq!(r.records[1].locator.unwrap().offset, loc.offset);
}

#[test]
fn single_pages() {
    let r = read("page.html", b"<html>hi</html>");
    assert_eq!(r.records.len(), 1);
    assert_eq!(r.records[0].record_type, "file");
    assert_eq!(r.records[0].url.as_deref(), Some("page.html"));
    assert_eq!(r.records[0].locator.unwrap().length, 15);
    let r = read_bytes(
        "notes.txt",
        b"0123456789",
        &ReaderOptions {
            max_body_bytes: 5,
            ..ReaderOptions::default()
        },
    );
    assert_eq!(r.records[0].body, None);
    assert!(r.errors[0].reason.starts_with("page too large:"));
}

#[test]
fn arc_gzip_per_record() {
    let head = b"filedesc://t.arc 0.0.0.0 20080430204825 text/plain 14\n1 0 Test\nURL\n\n".to_vec();
    let http = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>arc</html>";
    let mut rec = format!(
        "http://arc/ 1.2.3.4 20080430204826 text/html {}\n",
        http.len()
    )
    .into_bytes();
    rec.extend_from_slice(http);
    rec.push(b'\n');
    let file = [gz(&head), gz(&rec)].concat();
    let r = read("x.arc.gz", &file);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.records[0].record_type, "arc-header");
    let a = &r.records[1];
    assert_eq!(a.record_type, "arc");
    assert_eq!(a.url.as_deref(), Some("http://arc/"));
    assert_eq!(a.body.as_deref(), Some(&b"<html>arc</html>"[..]));
    let loc = a.locator.unwrap();
    assert_eq!(loc.compression, Compression::GzipMember);
    assert!(reopen(&file, loc).starts_with(b"http://arc/ "));
}

#[test]
fn empty_and_blank_files() {
    let r = read("e.warc", b"");
    assert_eq!(r.errors.len(), 1);
    assert!(r.errors[0].reason.starts_with("empty file:"));
    let r = read("e.warc.gz", &gz(b""));
    assert!(
        r.errors[0].reason.starts_with("empty file:"),
        "{:?}",
        r.errors
    );
}

#[test]
fn truncated_whole_file_gzip_keeps_what_decodes() {
    let recs = three_records();
    let plain = recs.concat();
    // Enough records that the stream is cut well after the first ones.
    let many: Vec<u8> = (0..200).flat_map(|_| plain.clone()).collect();
    let mut file = gz(&many);
    file.truncate(file.len() * 3 / 4);
    let r = read("x.warc.gz", &file);
    assert!(r.records.len() > 100, "{}", r.records.len());
    assert!(r.records.len() < 600);
    for (i, rec) in r.records.iter().enumerate() {
        assert_eq!(rec.url.as_deref(), urls_of_three()[i % 3]);
        assert_eq!(rec.locator.unwrap().compression, Compression::GzipStream);
    }
    assert!(!r.errors.is_empty());
    assert!(
        r.errors
            .iter()
            .all(|e| e.reason.starts_with("corrupt gzip:")),
        "{:?}",
        r.errors
    );
}

fn urls_of_three() -> [Option<&'static str>; 3] {
    [Some("info"), Some("http://a/"), Some("http://b/")]
}

#[test]
fn bad_record_inside_a_big_member_names_its_decompressed_offset() {
    let recs = three_records();
    let bad = with_length(&recs[1], 3);
    let file = gz(&[recs[0].clone(), bad, recs[2].clone()].concat());
    let r = read("x.warc.gz", &file);
    assert_eq!(urls(&r), vec!["info", "http://b/"]);
    assert_eq!(r.errors.len(), 1);
    assert_eq!(
        r.errors[0].reason,
        format!(
            "bad length: Content-Length 3 does not end the record (decompressed offset {})",
            recs[0].len()
        )
    );
}

#[test]
fn resync_finds_records_across_buffer_boundaries() {
    let recs = three_records();
    for junk_len in [256 * 1024 - 3, 256 * 1024 - 1, 256 * 1024, 300 * 1024] {
        let junk = vec![b'j'; junk_len];
        let file = [
            recs[0].clone(),
            junk.clone(),
            b"\n".to_vec(),
            recs[1].clone(),
        ]
        .concat();
        let r = read("x.warc", &file);
        assert_eq!(urls(&r), vec!["info", "http://a/"], "junk {junk_len}");
        assert_eq!(r.errors.len(), 1);
        assert_eq!(
            r.errors[0].reason,
            format!("junk: {} bytes skipped", junk_len + 1)
        );

        let file = [gz(&recs[0]), junk, gz(&recs[1])].concat();
        let r = read("x.warc.gz", &file);
        assert_eq!(urls(&r), vec!["info", "http://a/"], "gz junk {junk_len}");
        assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
        assert_eq!(r.errors[0].offset, gz(&recs[0]).len() as u64);
    }
}

#[test]
fn corrupt_whole_file_gzip_keeps_records_before_the_damage() {
    let plain = three_records().concat();
    let many: Vec<u8> = (0..2000).flat_map(|_| plain.clone()).collect();
    let mut file = gz(&many);
    let at = file.len() / 2;
    for b in &mut file[at..at + 64] {
        *b ^= 0xa5;
    }
    let r = read("x.warc.gz", &file);
    // About half of the 6000 records lie before the damage (about 2550 decode cleanly);
    // allow for the decoder's last output before the error being dropped.
    assert!(r.records.len() > 2400, "{} records", r.records.len());
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert!(r.errors[0].reason.starts_with("corrupt gzip:"));
    for (i, rec) in r.records.iter().enumerate() {
        assert_eq!(rec.url.as_deref(), urls_of_three()[i % 3]);
    }
    assert!(!r.errors.is_empty());
}

#[test]
fn unlimited_page_size_does_not_overflow() {
    let opts = ReaderOptions {
        max_body_bytes: usize::MAX,
        ..ReaderOptions::default()
    };
    let file = three_records().concat();
    assert_eq!(read_bytes("x.warc", &file, &opts).records.len(), 3);
    let r = read_bytes("x.jsonl", b"{\"url\":\"u\",\"html\":\"<p>\"}\n", &opts);
    assert_eq!(r.records.len(), 1);
    let body = b"<html>x</html>";
    let block = http_response(
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
        &gz(body),
    );
    let r = read_bytes(
        "x.warc",
        &warc_record("response", "http://g/", "", &block),
        &opts,
    );
    assert_eq!(r.records[0].body.as_deref(), Some(&body[..]));
}

/// A page read once (for the pipeline) gives the records `open_reader` gives, the SHA-1 of
/// the whole file, and the body's SHA-1 when the body is the file.
#[test]
fn page_read_with_digest_equals_open_reader() {
    use sha1::{Digest, Sha1};
    for (name, data, max) in [
        ("page.html", &b"<html>hi</html>"[..], 1 << 20),
        ("empty.html", &b""[..], 1 << 20),
        ("notes.txt", &b"0123456789"[..], 5),
        ("edge.html", &b"0123456789"[..], 10),
        ("over.html", &b"0123456789a"[..], 10),
    ] {
        let opts = ReaderOptions {
            max_body_bytes: max,
            ..ReaderOptions::default()
        };
        let expected = read_bytes(name, data, &opts);
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = dir.path().join(name);
        std::fs::write(&path, data).unwrap();
        let inputs = expand_inputs(std::slice::from_ref(&path)).unwrap();
        let (size, digest, items) = read_page_with_digest(&inputs[0], &opts).unwrap();
        assert_eq!(size, data.len() as u64);
        assert_eq!(digest, <[u8; 20]>::from(Sha1::digest(data)));
        let (mut records, mut errors) = (Vec::new(), Vec::new());
        for item in items {
            match item {
                ReadItem::Record(r) => records.push(*r),
                ReadItem::Error(e) => errors.push(e),
            }
        }
        assert_eq!(errors, expected.errors, "{name}");
        assert_eq!(records.len(), 1);
        let (got, want) = (&records[0], &expected.records[0]);
        assert_eq!(got.body, want.body, "{name}");
        assert_eq!(got.url, want.url);
        assert_eq!(got.locator, want.locator);
        assert_eq!(got.record_type, want.record_type);
        assert_eq!(got.media_type, want.media_type);
        assert_eq!(got.body_is_text, want.body_is_text);
        assert_eq!(got.body_sha1, got.body.as_ref().map(|_| digest), "{name}");
    }
}
