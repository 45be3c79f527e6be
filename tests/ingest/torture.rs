//! Every file of the WARC conformance set (`warc/torture/`) is ingested without a crash;
//! what is readable is kept, and each defect is an error row with file and offset.

use crate::common;

use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
use spotcheck::store::Store;

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

#[test]
fn invalid_files_never_crash_and_every_defect_is_an_error_row() {
    let Some(dir) = common::corpus("warc/torture/invalid") else {
        return;
    };
    // One database per file: two conformance files with identical bytes would otherwise
    // be one source (ingest identifies files by content), and a failure names the file.
    let mut errors_by_source = std::collections::BTreeMap::new();
    for f in files(&dir) {
        let (_t, db) = common::temp_db();
        let r = ingest_paths(&db, std::slice::from_ref(&f), &IngestOptions::default());
        assert!(r.is_ok(), "{}: {:?}", f.display(), r.err());
        let store = Store::open_existing(&db).unwrap();
        store
            .for_each_error(|e| {
                assert!(!e.reason.is_empty());
                *errors_by_source.entry(e.source).or_insert(0) += 1;
                Ok(())
            })
            .unwrap();
    }
    // Files whose defect is semantic (a digest that does not match, a recommended field
    // missing, segment numbers) rather than structural: the records are readable and kept.
    // The reasons, file by file, are in tests/readers_torture.rs (SEMANTIC_ONLY).
    let semantic = [
        "invalid-warcfile-contenttype-recommended.warc",
        "invalid-warcfile-contenttype-warcinfo-recommended.warc",
        "invalid-warcfile-digest-fields.warc",
        "invalid-warcfile-segment-number-continuation.warc",
        "invalid-warcfile-segment-number-response.warc",
        "invalid-warcheaderfieldpolicy-2.warc",
        "invalid-warcheaderfieldpolicy-9.warc",
        "invalid-warcheaderfieldpolicy-10.warc",
        "invalid-warcrecord-2.warc",
        "invalid-warcrecorddigests-1.warc",
        "invalid-warcrecorddigests-2.warc",
        "invalid-warcrecorddigests-3.warc",
    ];
    let mut silent = Vec::new();
    for f in files(&dir) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let key = f.display().to_string();
        if !errors_by_source.contains_key(&key) && !semantic.contains(&name.as_str()) {
            silent.push(name);
        }
    }
    println!("errors by file: {errors_by_source:#?}");
    assert!(silent.is_empty(), "defects with no error row: {silent:?}");
}

#[test]
fn valid_files_keep_their_records() {
    let Some(dir) = common::corpus("warc/torture/valid") else {
        return;
    };
    let (_t, db) = common::temp_db();
    let s = ingest_paths(&db, &files(&dir), &IngestOptions::default()).unwrap();
    let records: u64 = s.records_by_type.values().sum();
    assert!(records >= 19, "{s:?}");
    // valid-warcrecorddigests-1.warc and -2.warc are the same bytes: one source, read once
    // and skipped the second time (a crawl file is identified by its bytes).
    assert_eq!(s.sources_read, files(&dir).len() as u64 - 1, "{s:?}");
    assert_eq!(s.sources_skipped, 1, "{s:?}");
}
