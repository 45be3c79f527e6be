//! I-Match's session-8 defaults (issue 14) through the CLI, on a small manual in two releases
//! written here (8 pages, made-up words; no corpus page is copied):
//! - a page whose second release changes one word into a word other pages use (a lexicon
//!   term rarer than session 3's bag ceiling, so every bag of those rules kept it and the two
//!   releases never shared a signature) is found: bags sample every term, smaller bags
//!   (`--bag-draws`), and the overlap check keeps the pair (Jaccard ≈ 0.99);
//! - an index page whose few words are mostly the manual's common ones (fewer than
//!   `--min-terms` lexicon terms) is found across releases by the short-page rule;
//! - with session 3's settings both pairs are missed, and no pair of different pages is made
//!   either way.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ter", "san", "vel", "dor", "pu", "ri", "ben", "tha", "gor", "ne", "wil",
    "fa", "zu", "mar", "ost", "qui", "len",
];

/// `n` paragraphs of 12 made-up words about `topic`, different for every topic.
fn paragraphs(topic: &str, n: usize) -> Vec<Vec<String>> {
    let mut state = topic.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut word = move || {
        let mut w = String::new();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            w.push_str(SYLLABLES[(state % SYLLABLES.len() as u64) as usize]);
        }
        w
    };
    (0..n).map(|_| (0..12).map(|_| word()).collect()).collect()
}

/// A page: its paragraphs, the first opening with the manual's common words (in every page,
/// so below the lexicon's idf window).
fn page(title: &str, paras: &[Vec<String>]) -> String {
    let body: String = paras
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let lead = if i == 0 {
                "This manual chapter section gives reference contents: "
            } else {
                ""
            };
            format!("<p>{lead}{}.</p>\n", p.join(" "))
        })
        .collect();
    format!("<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>")
}

/// The 8 pages (path → HTML).
fn manual() -> Vec<(String, String)> {
    let guide = paragraphs("guide", 20);
    let tools = paragraphs("tools", 20);
    let faq = paragraphs("faq", 8);
    // Release 2 of the guide says one word differently: a word the tools page uses.
    let mut guide2 = guide.clone();
    guide2[5][3] = tools[0][5].clone();
    let index = "<html><head><title>Index</title></head><body><p>Contents of the manual \
                 chapter section reference: zorvekal plimuton.</p></body></html>";
    let mut out = Vec::new();
    for (r, g) in [("r1", &guide), ("r2", &guide2)] {
        out.push((format!("manual/{r}/guide.html"), page("Guide", g)));
        out.push((format!("manual/{r}/tools.html"), page("Tools", &tools)));
        out.push((format!("manual/{r}/faq.html"), page("Questions", &faq)));
        out.push((format!("manual/{r}/index.html"), index.to_string()));
    }
    out
}

fn imatch_pairs(args: &[&str]) -> BTreeSet<(String, String)> {
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    for (path, html) in manual() {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, html).unwrap();
    }
    let db_s = db.to_str().unwrap();
    common::spotcheck_ok(&["ingest", "--db", db_s, root.to_str().unwrap()]);
    let mut detect = vec!["detect", "--db", db_s, "--method", "imatch"];
    detect.extend_from_slice(args);
    common::spotcheck_ok(&detect);
    pairs(Path::new(db_s))
}

fn pairs(db: &Path) -> BTreeSet<(String, String)> {
    let db = db.to_str().unwrap();
    let (out, _) =
        common::spotcheck_ok(&["pairs", "--db", db, "--method", "imatch", "--format", "tsv"]);
    out.lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split('\t');
            let (a, b) = (f.next().unwrap(), f.next().unwrap());
            (a.min(b).to_string(), a.max(b).to_string())
        })
        .collect()
}

/// The two releases of `name` as a pair of the ingested URLs.
fn releases(name: &str, found: &BTreeSet<(String, String)>) -> bool {
    found
        .iter()
        .any(|(a, b)| a.ends_with(&format!("r1/{name}")) && b.ends_with(&format!("r2/{name}")))
}

/// Every pair joins the two releases of one page.
fn only_releases(found: &BTreeSet<(String, String)>) {
    for (a, b) in found {
        assert_eq!(
            a.rsplit('/').next(),
            b.rsplit('/').next(),
            "two different pages paired: {found:?}"
        );
    }
}

#[test]
fn defaults_find_a_page_with_a_changed_word_and_a_short_index_page() {
    let found = imatch_pairs(&[]);
    assert!(releases("guide.html", &found), "{found:?}");
    assert!(releases("index.html", &found), "{found:?}");
    assert!(releases("tools.html", &found), "{found:?}");
    assert!(releases("faq.html", &found), "{found:?}");
    only_releases(&found);
}

#[test]
fn session_3_settings_miss_both() {
    let found = imatch_pairs(&[
        "--bag-max-idf",
        "0.3",
        "--bag-draws",
        "1",
        "--min-overlap",
        "0",
        "--short-min-terms",
        "0",
    ]);
    assert!(!releases("guide.html", &found), "{found:?}");
    assert!(!releases("index.html", &found), "{found:?}");
    assert!(releases("tools.html", &found), "{found:?}");
    only_releases(&found);
}
