//! I-Match's cross-site bags (issue 14, session 11) through the CLI, on a small crawl written
//! here (8 pages on 6 sites, made-up words; no corpus page is copied):
//! - a wire story on site `alpha` and its copy on site `beta`, cut short by its last
//!   paragraph and ending in a trailer: the two differ in about 17 lexicon terms, so no main
//!   bag keeps none of them, and the overlap check (0.97) would reject the pair anyway. The
//!   small cross-site bags (`--across-bags`) collide, and the check of their pairs
//!   (`--across-min-overlap`) keeps it;
//! - two template pages of site `alpha` that differ in 5 lexicon terms (the doc families'
//!   false pairs): they collide in small bags too, but on one site only the main bags and the
//!   0.97 check judge them, and they stay apart;
//! - without the cross-site bags (`--across-bags 0`) the copy is missed.

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

fn page(title: &str, paras: &[Vec<String>]) -> String {
    let body: String = paras
        .iter()
        .map(|p| format!("<p>{}.</p>\n", p.join(" ")))
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}\
         </article></body></html>"
    )
}

/// The crawl (path → HTML); a folder's first directory is a page's site.
fn crawl() -> Vec<(String, String)> {
    let story = paragraphs("story", 18);
    let filler_a = paragraphs("filler-a", 12);
    let filler_b = paragraphs("filler-b", 12);
    let filler_c = paragraphs("filler-c", 12);
    // The copy on beta: the last paragraph cut, a trailer of words other pages use.
    let mut copy = story[..story.len() - 1].to_vec();
    copy.push(filler_a[0][..5].to_vec());
    // Two template pages of alpha: the second says five words differently, words another
    // page uses (so lexicon terms, not words of one page).
    let template = paragraphs("template", 10);
    let mut sibling = template.clone();
    for (k, w) in filler_b[1][..5].iter().enumerate() {
        sibling[2 * k][4] = w.clone();
    }
    vec![
        ("alpha/story.html".into(), page("Story", &story)),
        (
            "alpha/template-one.html".into(),
            page("Reference", &template),
        ),
        (
            "alpha/template-two.html".into(),
            page("Reference", &sibling),
        ),
        ("beta/wire/story.html".into(), page("Story, updated", &copy)),
        // A third copy, whole: the cut paragraph's words are then lexicon terms (in two pages).
        ("gamma/news/story.html".into(), page("The story", &story)),
        ("delta/a.html".into(), page("Filler A", &filler_a)),
        ("epsilon/b.html".into(), page("Filler B", &filler_b)),
        ("zeta/c.html".into(), page("Filler C", &filler_c)),
    ]
}

fn imatch_pairs(args: &[&str]) -> BTreeSet<(String, String)> {
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    for (path, html) in crawl() {
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

fn has(found: &BTreeSet<(String, String)>, a: &str, b: &str) -> bool {
    found
        .iter()
        .any(|(x, y)| (x.ends_with(a) && y.ends_with(b)) || (x.ends_with(b) && y.ends_with(a)))
}

/// Every pair found is two copies of the story.
fn only_story(found: &BTreeSet<(String, String)>) {
    for (a, b) in found {
        assert!(
            a.ends_with("story.html") && b.ends_with("story.html"),
            "not two copies of the story: {a} {b}"
        );
    }
}

#[test]
fn defaults_find_a_cut_copy_on_another_site_and_not_a_template_sibling() {
    let found = imatch_pairs(&[]);
    assert!(
        has(&found, "alpha/story.html", "beta/wire/story.html"),
        "{found:?}"
    );
    assert!(
        !has(&found, "alpha/template-one.html", "alpha/template-two.html"),
        "{found:?}"
    );
    only_story(&found);
}

#[test]
fn without_the_cross_site_rules_the_cut_copy_is_missed() {
    let found = imatch_pairs(&["--across-bags", "0"]);
    assert!(
        !has(&found, "alpha/story.html", "beta/wire/story.html"),
        "{found:?}"
    );
    assert!(
        !has(&found, "alpha/template-one.html", "alpha/template-two.html"),
        "{found:?}"
    );
    only_story(&found);
}
