//! Property: damaging a real WARC or ARC (truncation, byte flips) never makes the reader panic or
//! loop, and every record whose bytes all lie before the first damaged byte is still yielded
//! with the same URL, type and body.

use crate::common;

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use spotcheck::ingest::{
    open_reader, CrawlRecord, InputFile, InputFormat, ReadItem, ReaderOptions,
};

const FILES: &[&str] = &[
    "books.toscrape.warc",
    "nutch-warcfile.warc.gz",
    "ukwa-govuk-crawl2-revisits.warc.gz",
    "wget-sample-0000.warc.gz",
    "IAH-20080430204825-00000-blackbook.arc.gz",
];

fn corpus() -> Option<PathBuf> {
    common::corpus("")
}

fn read_file(path: PathBuf) -> (Vec<CrawlRecord>, usize) {
    let is_arc = path.to_string_lossy().contains(".arc");
    let input = InputFile {
        path,
        format: if is_arc {
            InputFormat::Arc
        } else {
            InputFormat::Warc
        },
        page_url: None,
    };
    let mut recs = Vec::new();
    let mut errors = 0;
    for item in open_reader(&input, &ReaderOptions::default()).expect("open") {
        match item {
            ReadItem::Record(r) => recs.push(*r),
            ReadItem::Error(_) => errors += 1,
        }
    }
    (recs, errors)
}

struct Original {
    bytes: Vec<u8>,
    records: Vec<CrawlRecord>,
}

fn originals(corpus: &std::path::Path) -> &'static Vec<Original> {
    static CELL: OnceLock<Vec<Original>> = OnceLock::new();
    CELL.get_or_init(|| {
        FILES
            .iter()
            .map(|f| {
                let path = corpus.join("warc/real").join(f);
                let bytes = std::fs::read(&path).expect("read");
                let (records, errors) = read_file(path);
                assert_eq!(errors, 0, "{f} reads cleanly");
                Original { bytes, records }
            })
            .collect()
    })
}

#[derive(Debug, Clone)]
enum Damage {
    Truncate(f64),
    Flips(Vec<(f64, u8)>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (0.0..1.0f64).prop_map(Damage::Truncate),
        prop::collection::vec((0.0..1.0f64, 1..=255u8), 1..4).prop_map(Damage::Flips),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn damage_keeps_records_before_it(which in 0..FILES.len(), dmg in damage()) {
        let Some(corpus) = corpus() else { return Ok(()) };
        let orig = &originals(&corpus)[which];
        let mut bytes = orig.bytes.clone();
        let first_damaged = match &dmg {
            Damage::Truncate(at) => {
                let at = (*at * bytes.len() as f64) as usize;
                bytes.truncate(at);
                at
            }
            Damage::Flips(flips) => {
                let mut first = usize::MAX;
                for (at, mask) in flips {
                    let at = ((*at * bytes.len() as f64) as usize).min(bytes.len() - 1);
                    bytes[at] ^= mask;
                    first = first.min(at);
                }
                first
            }
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILES[which]);
        std::fs::write(&path, &bytes).expect("write");
        let (got, _errors) = read_file(path);

        let intact: Vec<&CrawlRecord> = orig
            .records
            .iter()
            .filter(|r| {
                let loc = r.locator.expect("locator");
                loc.offset + loc.length <= first_damaged as u64
            })
            .collect();
        prop_assert!(got.len() >= intact.len(), "{} of {} intact records yielded", got.len(), intact.len());
        for (want, have) in intact.iter().zip(&got) {
            prop_assert_eq!(&want.url, &have.url);
            prop_assert_eq!(&want.record_type, &have.record_type);
            prop_assert_eq!(&want.body, &have.body);
            prop_assert_eq!(want.locator, have.locator);
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

/// Random bytes behind a plausible start, in every format: the reader ends without panic
/// and yields a bounded number of items.
fn garbage_case(format: InputFormat, prefix: &[u8], body: &[u8], gz: bool) -> usize {
    let mut data = prefix.to_vec();
    data.extend_from_slice(body);
    if gz {
        data = gzip(&data);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("garbage");
    std::fs::write(&path, &data).expect("write");
    let input = InputFile {
        path,
        format,
        page_url: Some("garbage".into()),
    };
    let items = open_reader(
        &input,
        &ReaderOptions {
            max_body_bytes: 512,
            ..ReaderOptions::default()
        },
    )
    .expect("open")
    .count();
    assert!(
        items <= data.len() + 2,
        "{items} items from {} bytes",
        data.len()
    );
    items
}

fn texty_bytes() -> impl Strategy<Value = Vec<u8>> {
    // Mostly header-like characters so parsers get deep before failing.
    let alphabet: Vec<u8> =
        b"WARC/1.0\r\n: Content-Length0123456789 HTTP/1.1 200\x1f\x8b\x08{}\"url\"<html>".to_vec();
    prop::collection::vec(
        prop_oneof![prop::sample::select(alphabet), any::<u8>()],
        0..2048,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn garbage_never_panics(body in texty_bytes(), gz in any::<bool>(), which in 0..4usize) {
        let (format, prefix): (InputFormat, &[u8]) = match which {
            0 => (InputFormat::Warc, b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 40\r\n\r\nHTTP/1.1 200 OK\r\n"),
            1 => (InputFormat::Arc, b"filedesc://x.arc 0.0.0.0 20000101000000 text/plain 5\n"),
            2 => (InputFormat::Jsonl, b"{\"url\":\"u\",\"html\":\""),
            _ => (InputFormat::Html, b"<html>"),
        };
        garbage_case(format, prefix, &body, gz);
    }
}
