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

/// A page named twice in one ingest (the same relative URL and bytes under two folders given,
/// as news-v2's `whole` and `single` layouts share pages) is one source: the repeat is always
/// skipped, whatever the writer has committed by the time the reader meets it.
#[test]
fn a_page_named_twice_in_one_ingest_is_skipped_the_second_time() {
    let (t, db) = common::temp_db();
    let (one, two) = (t.path().join("one"), t.path().join("two"));
    for root in [&one, &two] {
        std::fs::create_dir_all(root.join("site")).unwrap();
    }
    for i in 0..40 {
        let page = format!("<html><head><title>Page {i}</title></head><body><p>Story {i} of forty.</p></body></html>");
        std::fs::write(one.join(format!("site/p{i}.html")), &page).unwrap();
        // Half of them are the same page under the second folder; the rest differ there.
        let other = if i % 2 == 0 {
            page
        } else {
            format!("{page}<!-- changed -->")
        };
        std::fs::write(two.join(format!("site/p{i}.html")), other).unwrap();
    }
    let s = ingest_paths(&db, &[one, two], &IngestOptions::default()).unwrap();
    assert_eq!(s.sources_skipped, 20, "{s:?}");
    assert_eq!(s.documents_added, 60, "{s:?}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let sources: i64 = conn
        .query_row("SELECT count(*) FROM sources", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sources, 60);
}

/// The tables and indexes of a database, as SQLite stores their definitions.
fn schema(db: &std::path::Path) -> Vec<(String, String, Option<String>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn page_size(db: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap()
}

/// A WARC with two pages and a revisit of the first, written to `path`.
fn write_warc(path: &std::path::Path, site: &str) {
    use spotcheck::ingest::warc_write::WarcWriter;
    let mut w = WarcWriter::new(std::fs::File::create(path).unwrap(), true);
    let date = "2024-01-01T00:00:00Z";
    w.warcinfo(date, "software: test").unwrap();
    let a = format!("https://{site}/a");
    let (id, digest) = w
        .response(
            &a,
            date,
            "text/html",
            b"<html><title>A</title><p>first page text</p>",
        )
        .unwrap();
    w.response(
        &format!("https://{site}/b"),
        date,
        "text/html",
        b"<html><title>B</title><p>second page text</p>",
    )
    .unwrap();
    w.revisit(&a, "2024-02-01T00:00:00Z", &id, &a, date, &digest)
        .unwrap();
    w.into_inner().flush().unwrap();
}

/// An ingest into an empty database builds its secondary indexes after loading
/// (`Store::drop_load_indexes_if_empty`): the schema it leaves is the migrations' own, and
/// revisits (which read those indexes) resolve; a second ingest into the now non-empty
/// database keeps them. A new database has 16 KiB pages.
#[test]
fn an_ingest_into_an_empty_database_leaves_the_migrations_schema() {
    let (dir, db) = common::temp_db();
    let migrated = dir.path().join("migrated.db");
    drop(Store::open(&migrated).unwrap());
    let first = dir.path().join("first.warc.gz");
    write_warc(&first, "one.example");
    let summary = ingest_paths(&db, &[first], &IngestOptions::default()).unwrap();
    assert_eq!(summary.documents_added, 2, "{summary:?}");
    assert_eq!(summary.revisits.resolved, 1, "{summary:?}");
    assert_eq!(schema(&db), schema(&migrated));
    assert_eq!(page_size(&db), 16384);
    let second = dir.path().join("second.warc.gz");
    write_warc(&second, "two.example");
    let summary = ingest_paths(&db, &[second], &IngestOptions::default()).unwrap();
    assert_eq!(summary.documents_added, 2, "{summary:?}");
    // Counted over the whole database: the first file's and this one's.
    assert_eq!(summary.revisits.resolved, 2, "{summary:?}");
    assert_eq!(schema(&db), schema(&migrated));
}

/// Ten pages of a manual's release (written for this test): each its own paragraph, and on
/// three of them a generated legend.
fn release_pages(root: &std::path::Path, release: &str) {
    for i in 0..10 {
        let legend = if i < 3 {
            "<p>This legend explains the graph: a box is a class, a solid arrow is public \
             inheritance, and a dashed arrow is a template instantiation.</p>"
        } else {
            ""
        };
        let html = format!(
            "<html><head><title>Page {i}</title></head><body><p>Page {i} of the manual \
             describes function number {i} and how the library calls it, with the arguments \
             it takes and the errors it returns in release {release}.</p>{legend}</body></html>"
        );
        let file = root.join(release).join("doc").join(format!("p{i}.html"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, html).unwrap();
    }
}

#[test]
fn releases_in_folders_of_their_own_learn_one_template_for_the_content_text() {
    // Three releases, each a site of its own (a folder ingest's first segment), one family:
    // the legend is on 3 of each release's 10 pages (no more than a 10-page site's limit of
    // 3) but on 9 of the family's 30 (over its limit of 6): template, as under one host.
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    for release in ["manual-1.0", "manual-1.1", "manual-1.2"] {
        release_pages(&root, release);
    }
    ingest_paths(&db, std::slice::from_ref(&root), &IngestOptions::default()).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let text: String = conn
        .query_row(
            "SELECT coalesce(c.text, d.visible_text) FROM documents d
             LEFT JOIN content_texts c ON c.doc_id = d.id WHERE d.url = 'manual-1.1/doc/p0.html'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(text.contains("Page 0 of the manual"), "{text}");
    assert!(!text.contains("This legend explains"), "{text}");
}
