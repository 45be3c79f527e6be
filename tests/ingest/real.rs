//! Ingest of the real WARC/ARC captures in `../shared/corpus/warc/real/`, checked against
//! the reference counts of `MANIFEST.tsv` (made with warcio), and the crawl-to-crawl
//! revisits of the UK Web Archive sample.

use crate::common;

use std::collections::BTreeMap;

use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
use spotcheck::store::Store;

fn fast() -> IngestOptions {
    let mut o = IngestOptions::default();
    o.extract.main_content = false;
    o
}

/// Differences from MANIFEST.tsv that are explained record by record:
/// (file, column, our value, manifest value, why). Empty when everything agrees.
const EXPLAINED: &[(&str, &str, u64, u64, &str)] = &[];

#[test]
fn real_captures_match_the_manifest() {
    let Some(dir) = common::corpus("warc/real") else {
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let (_t, db) = common::temp_db();
    let mut files = Vec::new();
    let mut expected: BTreeMap<String, BTreeMap<&str, u64>> = BTreeMap::new();
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let mut row = BTreeMap::new();
        for (h, v) in header.iter().zip(&cols).skip(1) {
            if let Ok(n) = v.parse::<u64>() {
                row.insert(*h, n);
            }
        }
        files.push(dir.join(cols[0]));
        expected.insert(cols[0].to_string(), row);
    }
    let summary = ingest_paths(&db, &files, &fast()).unwrap();
    assert!(summary.documents_added > 300, "{summary:?}");
    let store = Store::open_existing(&db).unwrap();
    let mut mismatches = Vec::new();
    for s in store.source_summaries().unwrap() {
        let name = std::path::Path::new(&s.path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let want = &expected[&name];
        let records: u64 = s.records_by_type.values().sum();
        let responses = s.records_by_type.get("response").copied().unwrap_or(0)
            + s.records_by_type.get("arc").copied().unwrap_or(0);
        let got = [
            ("records", records),
            ("responses", responses),
            ("html_responses", s.html_responses),
            (
                "revisits",
                s.records_by_type.get("revisit").copied().unwrap_or(0),
            ),
            ("distinct_html_uris", s.distinct_html_urls),
        ];
        println!("{name}: {got:?} errors {}", s.errors);
        for (col, value) in got {
            let reference = want[col];
            if value != reference
                && !EXPLAINED
                    .iter()
                    .any(|e| e.0 == name && e.1 == col && e.2 == value && e.3 == reference)
            {
                mismatches.push(format!("{name} {col}: ours {value}, manifest {reference}"));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "unexplained differences:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn ukwa_revisits_become_exact_duplicates_of_the_first_crawl() {
    let Some(dir) = common::corpus("warc/real") else {
        return;
    };
    let (_t, db) = common::temp_db();
    // The revisits first: resolution must also work when the originals arrive later.
    ingest_paths(
        &db,
        &[dir.join("ukwa-govuk-crawl2-revisits.warc.gz")],
        &fast(),
    )
    .unwrap();
    let s = ingest_paths(&db, &[dir.join("ukwa-govuk-crawl1.warc.gz")], &fast()).unwrap();
    let total = s.revisits.resolved + s.revisits.not_a_document + s.revisits.unresolved;
    assert_eq!(total, 55, "{:?}", s.revisits);
    assert_eq!(s.revisits.unresolved, 0, "{:?}", s.revisits);
    assert!(s.revisits.resolved > 0, "{:?}", s.revisits);
    // Every resolved revisit shares the duplicate group of a page of crawl 1.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let orphans: i64 = conn
        .query_row(
            "SELECT count(*) FROM documents r WHERE r.record_type = 'revisit' AND NOT EXISTS (
               SELECT 1 FROM documents o JOIN sources so ON so.id = o.source_id
               WHERE o.dup_group = r.dup_group AND o.record_type != 'revisit'
                 AND so.path LIKE '%crawl1%')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0);
    let revisit_docs: i64 = conn
        .query_row(
            "SELECT count(*) FROM documents WHERE record_type = 'revisit'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(revisit_docs as u64, s.revisits.resolved);
}
