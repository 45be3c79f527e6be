//! The readers against real crawls: per-file counts must equal `warc/real/MANIFEST.tsv`,
//! which was made with warcio.
//!
//! Definitions (checked with warcio 1.7 over every file): a "response" is a record whose
//! warcio `rec_type` is `response` (for ARC files warcio calls every URL record a response:
//! our `arc` records); an "HTML response" is such a record whose HTTP Content-Type contains
//! `html` (our `media_type`, the lowercase type without parameters, gives the same count on
//! every file: `text/html` or `application/xhtml+xml`); `records` counts every record, the
//! ARC `filedesc://` header included; distinct HTML URIs are distinct WARC-Target-URIs of HTML
//! responses.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use spotcheck::ingest::{expand_inputs, open_reader, CrawlRecord, ReadItem, ReaderOptions};

fn corpus() -> Option<PathBuf> {
    common::corpus("")
}

/// Differences from the manifest we expect, with the record-level reason. None today: every
/// file matches warcio on every column.
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[];

#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    records: u64,
    responses: u64,
    html_responses: u64,
    revisits: u64,
    distinct_html_uris: u64,
}

fn read_all(path: &Path) -> (Vec<CrawlRecord>, Vec<String>) {
    let inputs = expand_inputs(&[path.to_path_buf()]).expect("recognized");
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for input in &inputs {
        for item in open_reader(input, &ReaderOptions::default()).expect("opens") {
            match item {
                ReadItem::Record(r) => records.push(*r),
                ReadItem::Error(e) => errors.push(format!("@{} {}", e.offset, e.reason)),
            }
        }
    }
    (records, errors)
}

fn is_response(r: &CrawlRecord) -> bool {
    r.record_type == "response" || r.record_type == "arc"
}

fn is_html_response(r: &CrawlRecord) -> bool {
    is_response(r) && r.media_type.as_deref().is_some_and(|m| m.contains("html"))
}

fn counts(records: &[CrawlRecord]) -> Counts {
    let uris: BTreeSet<_> = records
        .iter()
        .filter(|r| is_html_response(r))
        .map(|r| r.url.clone())
        .collect();
    Counts {
        records: records.len() as u64,
        responses: records.iter().filter(|r| is_response(r)).count() as u64,
        html_responses: records.iter().filter(|r| is_html_response(r)).count() as u64,
        revisits: records
            .iter()
            .filter(|r| r.record_type == "revisit")
            .count() as u64,
        distinct_html_uris: uris.len() as u64,
    }
}

#[test]
fn counts_match_the_manifest() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("warc/real");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("manifest");
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for line in manifest.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let n = |i: usize| f[i].parse::<u64>().expect("number");
        let want = Counts {
            records: n(1),
            responses: n(2),
            html_responses: n(3),
            revisits: n(4),
            distinct_html_uris: n(5),
        };
        let (records, errors) = read_all(&dir.join(f[0]));
        let got = counts(&records);
        println!("{}\t{:?}\terrors={}", f[0], got, errors.len());
        assert!(errors.is_empty(), "{}: unexpected errors {errors:?}", f[0]);
        // Every HTML response is a document candidate with a body.
        for r in records.iter().filter(|r| is_html_response(r)) {
            assert!(r.body.is_some(), "{}: {:?} has no body", f[0], r.url);
            assert!(
                r.http_status.is_some(),
                "{}: {:?} has no status",
                f[0],
                r.url
            );
        }
        if got != want && !KNOWN_DIFFERENCES.iter().any(|(file, _, _)| *file == f[0]) {
            mismatches.push(format!("{}: got {got:?}, manifest {want:?}", f[0]));
        }
        checked += 1;
    }
    assert_eq!(checked, 15, "manifest lists 15 files");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn crawl2_revisits_point_at_crawl1_responses() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("warc/real");
    let (crawl1, e1) = read_all(&dir.join("ukwa-govuk-crawl1.warc.gz"));
    let (crawl2, e2) = read_all(&dir.join("ukwa-govuk-crawl2-revisits.warc.gz"));
    assert!(e1.is_empty() && e2.is_empty(), "{e1:?} {e2:?}");
    let mut by_digest: BTreeMap<&str, Vec<&CrawlRecord>> = BTreeMap::new();
    let mut by_id: BTreeMap<&str, &CrawlRecord> = BTreeMap::new();
    let mut by_uri_date: BTreeSet<(&str, &str)> = BTreeSet::new();
    for r in crawl1.iter().filter(|r| r.record_type == "response") {
        if let Some(d) = &r.payload_digest {
            by_digest.entry(d).or_default().push(r);
        }
        if let Some(id) = &r.record_id {
            by_id.insert(id, r);
        }
        if let (Some(u), Some(d)) = (&r.url, &r.date) {
            by_uri_date.insert((u, d));
        }
    }
    let revisits: Vec<&CrawlRecord> = crawl2
        .iter()
        .filter(|r| r.record_type == "revisit")
        .collect();
    assert_eq!(revisits.len(), 55);
    for r in &revisits {
        let by_digest_hit = r
            .payload_digest
            .as_deref()
            .and_then(|d| by_digest.get(d))
            .is_some();
        let by_ref_hit = r
            .refers_to
            .as_deref()
            .is_some_and(|id| by_id.contains_key(id))
            || matches!((&r.refers_to_uri, &r.refers_to_date), (Some(u), Some(d)) if by_uri_date.contains(&(u.as_str(), d.as_str())));
        assert!(
            by_digest_hit || by_ref_hit,
            "revisit {:?} matches no crawl-1 response",
            r.url
        );
        assert!(r.body.is_none(), "revisits carry no document body");
    }
}

/// The bytes a locator points at, decompressed.
fn reopen(file: &[u8], loc: spotcheck::ingest::Locator) -> Vec<u8> {
    use spotcheck::ingest::Compression;
    use std::io::Read;
    let span = |o: u64, l: u64| &file[o as usize..(o + l) as usize];
    match loc.compression {
        Compression::None => span(loc.offset, loc.length).to_vec(),
        Compression::GzipMember => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(span(loc.offset, loc.length))
                .read_to_end(&mut out)
                .expect("member decodes");
            out
        }
        Compression::GzipStream => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(file)
                .read_to_end(&mut out)
                .expect("file decodes");
            out[loc.offset as usize..(loc.offset + loc.length) as usize].to_vec()
        }
    }
}

#[test]
fn locators_reopen_the_same_record() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("warc/real");
    let mut checked = 0;
    for name in [
        "books.toscrape.warc",
        "pywb-iana.warc.gz",
        "IAH-20080430204825-00000-blackbook.arc.gz",
        "servo-qq.warc.gz",
    ] {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).expect("read");
        let (records, _) = read_all(&path);
        for r in records.iter().step_by(5) {
            let loc = r.locator.expect("locator");
            let raw = reopen(&bytes, loc);
            if r.record_type.starts_with("arc") {
                let first_line = format!("{} ", r.url.as_deref().expect("url"));
                assert!(raw.starts_with(first_line.as_bytes()), "{name}: {loc:?}");
            } else {
                assert!(raw.starts_with(b"WARC/"), "{name}: {loc:?}");
                let id = r.record_id.as_deref().expect("id");
                assert!(
                    raw.windows(id.len()).any(|w| w == id.as_bytes()),
                    "{name}: {loc:?} does not hold {id}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}
