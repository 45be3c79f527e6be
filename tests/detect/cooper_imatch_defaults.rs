//! Cooper's default containment rule (issue 14, session 3) through the CLI, on small pages
//! written here (no corpus page is copied): a wire story cut to its first paragraphs, with
//! a dateline and a trailer, inside another site's template is found; with
//! `--cooper-contained 0` (the paper) it is missed. I-Match with its defaults finds an
//! untruncated copy with a dateline, a trailer and a rewritten headline: their words are
//! rarer than the lexicon window, so they do not enter the signature. (That containment leaves pages of one
//! site to the paper's test is a unit test of `sig::cooper`: two pages of one site sharing
//! paragraphs would have those removed as the site's template before Cooper reads them.)

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ter", "san", "vel", "dor", "pu", "ri", "ben", "tha", "gor", "ne", "wil",
    "fa", "zu", "mar", "ost", "qui", "len",
];

/// `n` paragraphs of made-up words about `topic`, different for every topic.
pub(crate) fn story(topic: &str, n: usize) -> Vec<String> {
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
    (0..n)
        .map(|_| (0..12).map(|_| word()).collect::<Vec<_>>().join(" ") + ".")
        .collect()
}

/// A page of `site`'s template: its own navigation and footer around the paragraphs.
pub(crate) fn page(site: &str, title: &str, paragraphs: &[String]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        "<html><head><title>{title}</title></head><body><nav><a href=/>{site} home</a> \
         <a href=/world>{site} world</a></nav><h1>{title}</h1>{body}<footer>{site} \
         subscriptions and newsletters</footer></body></html>"
    )
}

/// Ingests the pages (path → HTML) with six unrelated stories on sites of their own, runs
/// `detect --method METHOD` with `args` and returns the pairs (URLs, sorted in a pair).
pub(crate) fn method_pairs(
    method: &str,
    pages: &[(&str, String)],
    args: &[&str],
) -> BTreeSet<(String, String)> {
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    let others: Vec<(String, String)> = ["storm", "court", "ferry", "museum", "voters", "rail"]
        .iter()
        .map(|t| {
            let site = format!("{t}.example");
            (format!("{site}/{t}.html"), page(&site, t, &story(t, 5)))
        })
        .collect();
    let all = pages
        .iter()
        .map(|(p, h)| (p.to_string(), h.clone()))
        .chain(others);
    for (path, html) in all {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, html).unwrap();
    }
    let db = db.to_str().unwrap();
    common::spotcheck_ok(&["ingest", "--db", db, root.to_str().unwrap()]);
    let mut detect = vec!["detect", "--db", db, "--method", method];
    detect.extend_from_slice(args);
    common::spotcheck_ok(&detect);
    pairs(Path::new(db), method)
}

fn cooper_pairs(pages: &[(&str, String)], args: &[&str]) -> BTreeSet<(String, String)> {
    method_pairs("cooper", pages, args)
}

fn pairs(db: &Path, method: &str) -> BTreeSet<(String, String)> {
    let db = db.to_str().unwrap();
    let (out, _) =
        common::spotcheck_ok(&["pairs", "--db", db, "--method", method, "--format", "tsv"]);
    out.lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split('\t');
            let (a, b) = (f.next().unwrap(), f.next().unwrap());
            (a.min(b).to_string(), a.max(b).to_string())
        })
        .collect()
}

pub(crate) fn pair(a: &str, b: &str) -> (String, String) {
    (a.min(b).to_string(), a.max(b).to_string())
}

/// The full story on its own site, a copy cut to its first four of ten paragraphs with a
/// dateline and a trailer on a wire client's site.
fn pages() -> Vec<(&'static str, String)> {
    let full = story("harbour", 10);
    let mut cut: Vec<String> = full[..4].to_vec();
    cut[0].insert_str(0, "LONDON (Reuters) - ");
    cut.push("(Reporting by Jane Doe; Editing by Tom Berg)".into());
    vec![
        (
            "herald.example/harbour.html",
            page("herald.example", "Harbour", &full),
        ),
        (
            "gazette.example/wire-1.html",
            page("gazette.example", "UPDATE 1-Harbour", &cut),
        ),
    ]
}

#[test]
fn a_truncated_copy_on_another_site_is_found_by_default() {
    let found = cooper_pairs(&pages(), &[]);
    assert!(
        found.contains(&pair(
            "herald.example/harbour.html",
            "gazette.example/wire-1.html"
        )),
        "{found:?}"
    );
    // Nothing else: the unrelated stories share no terms with it or with each other.
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn the_papers_setting_misses_the_truncated_copy() {
    let found = cooper_pairs(&pages(), &["--cooper-contained", "0"]);
    assert!(
        !found.contains(&pair(
            "herald.example/harbour.html",
            "gazette.example/wire-1.html"
        )),
        "{found:?}"
    );
}

#[test]
fn imatch_finds_a_copy_with_a_dateline_trailer_and_new_headline() {
    let full = story("harbour", 10);
    let mut copy = full.clone();
    copy[0].insert_str(0, "LONDON (Reuters) - ");
    copy.push("(Reporting by Jane Doe; Editing by Tom Berg)".into());
    let pages = [
        (
            "herald.example/harbour.html",
            page("herald.example", "Harbour", &full),
        ),
        (
            "gazette.example/wire-1.html",
            page("gazette.example", "UPDATE 1-Harbour - report", &copy),
        ),
    ];
    let found = method_pairs("imatch", &pages, &[]);
    assert!(
        found.contains(&pair(
            "herald.example/harbour.html",
            "gazette.example/wire-1.html"
        )),
        "{found:?}"
    );
    assert_eq!(found.len(), 1, "{found:?}");
}
