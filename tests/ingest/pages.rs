//! Folders of real pages, JSONL, idempotence and resume.

use crate::common;

use std::io::Write;

use spotcheck::cmd::ingest::{ingest_paths, IngestOptions};
use spotcheck::store::Store;

fn docs(db: &std::path::Path) -> Vec<(String, String, u64)> {
    let store = Store::open_existing(db).unwrap();
    let mut v = Vec::new();
    store
        .for_each_document(|d| {
            v.push((d.url, d.title, d.chars));
            Ok(())
        })
        .unwrap();
    v
}

#[test]
fn news_folder_ingests_with_titles_and_texts_and_twice_changes_nothing() {
    let Some(dir) = common::corpus("news/newspaper") else {
        return;
    };
    let (_t, db) = common::temp_db();
    let first = ingest_paths(&db, std::slice::from_ref(&dir), &IngestOptions::default()).unwrap();
    assert_eq!(first.documents_added, 157, "{first:?}");
    let listed = docs(&db);
    let titled = listed.iter().filter(|d| !d.1.trim().is_empty()).count();
    assert!(
        titled >= 150,
        "only {titled} of {} have titles",
        listed.len()
    );
    // Two pages truly have no visible text: a bare meta refresh, and a page whose body
    // is empty custom elements that JavaScript fills in (see tests/extract_news.rs).
    let empty: Vec<&str> = listed
        .iter()
        .filter(|d| d.2 == 0)
        .map(|d| d.0.as_str())
        .collect();
    assert_eq!(empty, ["google_meta_refresh.html", "readwrite.com1.html"]);
    // URLs are paths relative to the folder named on the command line.
    assert!(
        listed.iter().any(|d| d.0 == "cnn_article.html"),
        "{:?}",
        &listed[..3]
    );
    let stats_before = Store::open_existing(&db).unwrap().stats().unwrap();
    let second = ingest_paths(&db, &[dir], &IngestOptions::default()).unwrap();
    assert_eq!(second.documents_added, 0);
    assert_eq!(second.sources_skipped, 157);
    assert_eq!(
        Store::open_existing(&db).unwrap().stats().unwrap(),
        stats_before
    );
}

#[test]
fn jsonl_with_html_and_text_fields_ingests_with_titles() {
    let Some(dir) = common::corpus("news/readability") else {
        return;
    };
    let (t, db) = common::temp_db();
    let jsonl = t.path().join("pages.jsonl");
    let mut f = std::fs::File::create(&jsonl).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().take(20) {
        let p = e.unwrap().path();
        let html = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        let url = format!(
            "https://example.org/{}",
            p.file_name().unwrap().to_string_lossy()
        );
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
        n += 1;
    }
    writeln!(
        f,
        "{}",
        serde_json::json!({"url": "https://example.org/plain", "title": "A plain text",
                           "text": "Just words.\nOn two lines."})
    )
    .unwrap();
    writeln!(f, "{{not json").unwrap();
    drop(f);
    let s = ingest_paths(&db, std::slice::from_ref(&jsonl), &IngestOptions::default()).unwrap();
    assert_eq!(s.documents_added, n + 1, "{s:?}");
    assert_eq!(s.errors, 1, "the broken line is one error");
    let listed = docs(&db);
    let plain = listed
        .iter()
        .find(|d| d.0 == "https://example.org/plain")
        .unwrap();
    assert_eq!(plain.1, "A plain text");
    assert!(listed.iter().all(|d| d.2 > 0));
    let again = ingest_paths(&db, &[jsonl], &IngestOptions::default()).unwrap();
    assert_eq!((again.documents_added, again.sources_skipped), (0, 1));
}

#[test]
fn a_killed_ingest_resumes_without_duplicates() {
    let crawl = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/demo/sqlite-docs.warc.gz"
    ));
    let (_t, db) = common::temp_db();
    let (_t2, reference) = common::temp_db();
    ingest_paths(
        &reference,
        std::slice::from_ref(&crawl),
        &IngestOptions::default(),
    )
    .unwrap();
    ingest_paths(&db, std::slice::from_ref(&crawl), &IngestOptions::default()).unwrap();
    // What a kill leaves behind: a source still marked partial with part of its documents.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "UPDATE sources SET status = 'partial';
             DELETE FROM captures WHERE id % 2 = 0;
             UPDATE captures SET document_id = NULL WHERE document_id IN
               (SELECT id FROM documents WHERE id % 2 = 0 OR id > 40);
             DELETE FROM documents WHERE id % 2 = 0 OR id > 40;
             DELETE FROM record_counts;",
        )
        .unwrap();
    }
    let resumed =
        ingest_paths(&db, std::slice::from_ref(&crawl), &IngestOptions::default()).unwrap();
    assert!(resumed.documents_added > 0);
    assert_eq!(resumed.sources_skipped, 0);
    let a = Store::open_existing(&db).unwrap().stats().unwrap();
    let b = Store::open_existing(&reference).unwrap().stats().unwrap();
    assert_eq!(a, b);
    let mut da = docs(&db);
    let mut dbb = docs(&reference);
    da.sort();
    dbb.sort();
    assert_eq!(da, dbb);
}

#[test]
fn identical_pages_under_two_urls_are_two_documents_in_one_duplicate_group() {
    let (t, db) = common::temp_db();
    let site = t.path().join("site");
    std::fs::create_dir_all(site.join("v1")).unwrap();
    std::fs::create_dir_all(site.join("v2")).unwrap();
    let page = "<html><head><title>Same</title></head><body><p>The same bytes.</p></body></html>";
    std::fs::write(site.join("v1/page.html"), page).unwrap();
    std::fs::write(site.join("v2/page.html"), page).unwrap();
    let s = ingest_paths(&db, std::slice::from_ref(&site), &IngestOptions::default()).unwrap();
    assert_eq!((s.documents_added, s.sources_skipped), (2, 0));
    assert_eq!(s.exact_duplicates, 1);
    let again = ingest_paths(&db, &[site], &IngestOptions::default()).unwrap();
    assert_eq!((again.documents_added, again.sources_skipped), (0, 2));
}
