//! Exact copies are done once (issue 16): a page whose payload an earlier page of the run had
//! is stored from that page's texts instead of being extracted again, and a duplicate whose
//! content text is provably an earlier one's (same visible text, and same site or same
//! structure signals) is not computed or language-identified again. Checked against the
//! same ingest with every page done on its own (`IngestOptions::each_on_its_own`): every
//! stored row is identical, and no foreign key (not enforced during the load) is broken.

use crate::common;

use std::path::{Path, PathBuf};

use spotcheck::cmd::ingest::{ingest_paths, IngestOptions, IngestSummary};
use spotcheck::extract::content::ContentRule;
use spotcheck::store::Store;

/// Every row an ingest stores that a reader sees, as text, table by table.
fn dump(db: &Path) -> Vec<(String, Vec<String>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables = [
        ("documents", "SELECT * FROM documents ORDER BY id"),
        ("captures", "SELECT * FROM captures ORDER BY id"),
        (
            "content_texts",
            "SELECT * FROM content_texts ORDER BY doc_id",
        ),
        (
            "document_langs",
            "SELECT * FROM document_langs ORDER BY doc_id",
        ),
        (
            "block_signals",
            "SELECT * FROM block_signals ORDER BY doc_id",
        ),
        (
            "ingest_errors",
            "SELECT source_id, source_path, offset, reason FROM ingest_errors ORDER BY id",
        ),
        (
            "record_counts",
            "SELECT * FROM record_counts ORDER BY source_id, record_type",
        ),
    ];
    tables
        .iter()
        .map(|(name, sql)| {
            let mut st = conn.prepare(sql).unwrap();
            let n = st.column_count();
            let rows = st
                .query_map([], |r| {
                    Ok((0..n)
                        .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join("\t"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            (name.to_string(), rows)
        })
        .collect()
}

/// Ingests `paths` twice, reusing copies and each on its own, and checks both databases
/// hold the same rows. Returns the summary of the run with reuse.
fn same_either_way(paths: &[PathBuf], opts: &IngestOptions) -> IngestSummary {
    let (_a, reused_db) = common::temp_db();
    let (_b, each_db) = common::temp_db();
    let reused = ingest_paths(&reused_db, paths, opts).unwrap();
    let each = ingest_paths(
        &each_db,
        paths,
        &IngestOptions {
            each_on_its_own: true,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(each.payload_copies, 0);
    assert_eq!(each.content.reused, 0);
    assert_eq!(reused.documents_added, each.documents_added);
    assert_eq!(reused.exact_duplicates, each.exact_duplicates);
    assert_eq!(reused.errors, each.errors);
    assert_eq!(
        (
            reused.content.documents,
            reused.content.template,
            reused.content.per_page,
            reused.content.visible,
            reused.content.changed
        ),
        (
            each.content.documents,
            each.content.template,
            each.content.per_page,
            each.content.visible,
            each.content.changed
        )
    );
    for ((table, got), (_, want)) in dump(&reused_db).iter().zip(dump(&each_db)) {
        assert_eq!(got.len(), want.len(), "{table}: row counts differ");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{table}: a row differs");
        }
    }
    // Foreign keys are not enforced while loading: what was written satisfies them.
    let conn = rusqlite::Connection::open(&reused_db).unwrap();
    let violations: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(violations, 0);
    drop(conn);
    // And computing every content text again on its own changes none of them.
    let mut store = Store::open_existing(&reused_db).unwrap();
    let again = store
        .recompute_content_texts_each(&ContentRule::default())
        .unwrap();
    assert_eq!(again.changed, 0, "{again:?}");
    reused
}

fn page(title: &str, nav: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body>{nav}<div class=\"story\"><p>{body}</p>\
         <p>Second paragraph of the story, which is long enough to count as prose for the \
         per-page classification of the content text, and has the usual words in it.</p>\
         </div><footer><p>Copyright footer line</p></footer></body></html>"
    )
}

const STORY: &str = "The council voted on Tuesday to approve the new budget for the coming year, \
    after a long debate about the cost of the roads and the schools that the town has to pay for.";

#[test]
fn copies_on_one_site_across_sites_and_with_other_markup_store_what_extracting_each_stores() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pages");
    let menu =
        "<nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/news\">News</a></li></ul></nav>";
    let menu_as_div =
        "<div><ul><li><a href=\"/\">Home</a></li><li><a href=\"/news\">News</a></li></ul></div>";
    let mut files: Vec<(String, String)> = Vec::new();
    // A site with enough pages for its template to be removed, with two byte-identical
    // pages under other names.
    for i in 0..6 {
        files.push((
            format!("big/story-{i}.html"),
            page(&format!("Story {i}"), menu, &format!("{STORY} Item {i}.")),
        ));
    }
    files.push((
        "big/copy-of-2.html".into(),
        page("Story 2", menu, &format!("{STORY} Item 2.")),
    ));
    files.push((
        "big/copy-of-3.html".into(),
        page("Story 3", menu, &format!("{STORY} Item 3.")),
    ));
    // One page per site: content made within the page. The same payload on two of these
    // sites (reused), and the same visible text in other markup (other structure
    // signals: computed on its own).
    let lone = page("Lone", menu, STORY);
    files.push(("one/story.html".into(), lone.clone()));
    files.push(("two/story.html".into(), lone.clone()));
    files.push(("three/story.html".into(), page("Lone", menu_as_div, STORY)));
    // The big site's page copied onto a site of its own (the per-page way there).
    files.push((
        "four/story.html".into(),
        page("Story 2", menu, &format!("{STORY} Item 2.")),
    ));
    for (path, html) in &files {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, html).unwrap();
    }
    let mut opts = IngestOptions::default();
    opts.extract.main_content = false;
    let summary = same_either_way(std::slice::from_ref(&root), &opts);
    assert_eq!(summary.documents_added, files.len() as u64);
    // copy-of-2, copy-of-3, two/story, four/story.
    assert_eq!(summary.payload_copies, 4, "{summary:?}");
    // copy-of-2 and copy-of-3 (same site), two/story (same signals); not three/story (other
    // signals) nor four/story (another way).
    assert_eq!(summary.content.reused, 3, "{summary:?}");

    // Main-content texts are copied too.
    opts.extract.main_content = true;
    same_either_way(std::slice::from_ref(&root), &opts);
}

#[test]
fn a_copy_of_a_page_that_failed_to_extract_fails_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pages");
    std::fs::create_dir_all(root.join("site")).unwrap();
    let big = page("Big", "", &STORY.repeat(20));
    std::fs::write(root.join("site/a.html"), &big).unwrap();
    std::fs::write(root.join("site/b.html"), &big).unwrap();
    std::fs::write(root.join("site/c.html"), page("Small", "", STORY)).unwrap();
    let mut opts = IngestOptions::default();
    opts.extract.main_content = false;
    // The reader takes the page, the extractor finds it too large.
    opts.extract.max_bytes = 2_000;
    let summary = same_either_way(std::slice::from_ref(&root), &opts);
    assert_eq!(summary.documents_added, 1, "{summary:?}");
    assert_eq!(summary.errors, 2, "{summary:?}");
}

#[test]
fn real_captures_store_what_extracting_each_stores() {
    let Some(dir) = common::corpus("warc/real") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "tsv"))
        .collect();
    files.sort();
    let mut opts = IngestOptions::default();
    opts.extract.main_content = false;
    let summary = same_either_way(&files, &opts);
    assert!(summary.documents_added > 300, "{summary:?}");
    assert!(summary.payload_copies > 0, "{summary:?}");
    assert!(summary.content.reused > 0, "{summary:?}");
}
