//! SpotSigs' default rules of issue 14 through the CLI, on small pages written here (no corpus
//! page is copied): a truncated syndicated copy is found by the containment rule, a short
//! page whose few signatures a long page happens to hold is not; pages with too few
//! signatures (member lists) are matched by their equal text, and two different member lists
//! are not a pair; such pages of two releases that differ by a few members are matched by
//! the fallback's word shingles, two such pages of one site under two names are not.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;

/// Syllables of the made-up words the stories are written in: 8,000 words, so two stories
/// share words by chance but hardly a signature.
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ter", "san", "vel", "dor", "pu", "ri", "ben", "tha", "gor", "ne", "wil",
    "fa", "zu", "mar", "ost", "qui", "len",
];

/// `n` paragraphs of a story about `topic`, different for every topic.
fn story(topic: &str, n: usize) -> Vec<String> {
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
    (1..=n)
        .map(|_| {
            let mut p = String::new();
            for _ in 0..3 {
                p.push_str(&format!(
                    "The {} of the {} is {} {} and the {} will have a {} {}. ",
                    word(),
                    word(),
                    word(),
                    word(),
                    word(),
                    word(),
                    word()
                ));
            }
            p.trim_end().to_string()
        })
        .collect()
}

fn html(title: &str, paragraphs: &[String]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!("<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>")
}

/// Writes the pages (path → HTML) into a folder with six unrelated stories on sites of their
/// own (so that the idf window keeps what two or three pages share), ingests it and runs
/// `detect --method spotsigs` with `args`; returns the pairs (URLs, sorted within a pair).
fn spotsigs_pairs(pages: &[(&str, String)], args: &[&str]) -> BTreeSet<(String, String)> {
    let (dir, db) = common::temp_db();
    let root = dir.path().join("crawl");
    let others: Vec<(String, String)> = ["storm", "court", "ferry", "museum", "voters", "rail"]
        .iter()
        .map(|t| (format!("{t}.example/{t}.html"), html(t, &story(t, 4))))
        .collect();
    let all = pages
        .iter()
        .map(|(p, h)| (p.to_string(), h.clone()))
        .chain(others);
    for (path, page) in all {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, page).unwrap();
    }
    let db = db.to_str().unwrap();
    common::spotcheck_ok(&["ingest", "--db", db, root.to_str().unwrap()]);
    let mut detect = vec!["detect", "--db", db, "--method", "spotsigs"];
    detect.extend_from_slice(args);
    common::spotcheck_ok(&detect);
    pairs(Path::new(db))
}

fn pairs(db: &Path) -> BTreeSet<(String, String)> {
    let db = db.to_str().unwrap();
    let (out, _) = common::spotcheck_ok(&[
        "pairs", "--db", db, "--method", "spotsigs", "--format", "tsv",
    ]);
    out.lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split('\t');
            let (a, b) = (f.next().unwrap(), f.next().unwrap());
            (a.min(b).to_string(), a.max(b).to_string())
        })
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.min(b).to_string(), a.max(b).to_string())
}

#[test]
fn a_copy_cut_to_a_third_is_found_by_containment_and_a_short_lookalike_is_not() {
    let full = story("harbour", 9);
    // The wire copy: the first three paragraphs, a dateline, a trailer.
    let mut cut: Vec<String> = full[..3].to_vec();
    cut[0].insert_str(0, "LONDON (Reuters) - ");
    cut.push("(Reporting by Jane Doe; Editing by Tom Berg)".into());
    // A short page quoting one paragraph of a long page (mirrored on a second site, so
    // its signatures are not rare): everything it has is in the long one, but it is a
    // twelfth of it.
    let long = story("library", 12);
    let short = vec![long[5].clone()];
    // The whole story on a second site too: its last paragraphs are not rare signatures.
    let mut whole = full.clone();
    whole.push("(Reporting by Ann Smith)".into());
    let pages = [
        ("first.example/a.html", html("Harbour plan", &full)),
        ("second.example/b.html", html("UPDATE 1-Harbour plan", &cut)),
        ("fifth.example/e.html", html("Harbour plan", &whole)),
        ("third.example/c.html", html("Library plan", &long)),
        ("mirror.example/c.html", html("Library plan", &long)),
        ("fourth.example/d.html", html("In brief", &short)),
    ];
    let found = spotsigs_pairs(&pages, &[]);
    let copy = pair("first.example/a.html", "second.example/b.html");
    let mirror = pair("mirror.example/c.html", "third.example/c.html");
    let expected = BTreeSet::from([
        copy.clone(),
        pair("fifth.example/e.html", "second.example/b.html"),
        pair("fifth.example/e.html", "first.example/a.html"),
        mirror,
    ]);
    assert_eq!(found, expected);
    // The copy is under τ: without the rule it is missed (what the rule is for).
    let without = spotsigs_pairs(&pages, &["--containment", "0"]);
    assert!(!without.contains(&copy), "{without:?}");
}

/// A member-list page of an API manual: one template sentence and a list without a single
/// antecedent.
fn members(class: &str, names: &[&str]) -> String {
    let items: String = names
        .iter()
        .map(|n| format!("<li>{n}() const : {class}</li>"))
        .collect();
    format!(
        "<html><head><title>List of All Members for {class}</title></head><body>\
         <h1>List of All Members for {class}</h1><p>This is the complete list of members for \
         {class}, including inherited members.</p><ul>{items}</ul></body></html>"
    )
}

#[test]
fn member_lists_with_too_few_signatures_pair_by_equal_text_only() {
    let hash = ["begin", "end", "insert", "remove", "find", "count", "clear"];
    let iter = [
        "key", "value", "next", "previous", "hasNext", "peekNext", "toFront",
    ];
    let pages = [
        ("qt-5.15.2/qhash-members.html", members("QHash", &hash)),
        // The same page of the next release, re-rendered: case and white space only.
        (
            "qt-5.15.8/qhash-members.html",
            members("QHash", &hash).replace("List of All Members", "List of all  members"),
        ),
        (
            "qt-5.15.2/qhashiterator-members.html",
            members("QHashIterator", &iter),
        ),
    ];
    let found = spotsigs_pairs(&pages, &[]);
    let same = pair(
        "qt-5.15.2/qhash-members.html",
        "qt-5.15.8/qhash-members.html",
    );
    assert_eq!(found, BTreeSet::from([same.clone()]));
    // Their signatures (the template sentence's) are too few to match on: without the
    // equal-text rule the two releases of one page are missed.
    let without = spotsigs_pairs(&pages, &["--no-same-content", "--fallback-tau", "0"]);
    assert!(!without.contains(&same), "{without:?}");
}

/// A member list of a page of two releases, one member added in the newer: too few
/// signatures to match on and texts not equal, the fallback's word 3-shingles (Jaccard ≥ 0.8)
/// pair them. The same list under another name of that site (an "obsolete members" page) is
/// no pair whatever its likeness, nor are two near-equal stubs of a few words on two sites.
#[test]
fn unsigned_pages_of_two_releases_pair_by_their_word_shingles_and_siblings_do_not() {
    let names: Vec<String> = (0..20).map(|i| format!("member{i}Name")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut newer = names.clone();
    newer.push("addedLater");
    let stub = |site: &str| {
        format!(
            "<html><head><title>Legend</title></head><body><p>A blue arrow shows a public \
             inheritance relation between two classes of {site}.</p></body></html>"
        )
    };
    let pages = [
        ("qt/5.15.2/qhash-members.html", members("QHash", &names)),
        ("qt/5.15.8/qhash-members.html", members("QHash", &newer)),
        (
            "qt/5.15.2/qhash-obsolete-members.html",
            members("QHash", &newer[1..]),
        ),
        ("one.example/legend.html", stub("one")),
        ("two.example/legend.html", stub("two")),
    ];
    let releases = pair(
        "qt/5.15.2/qhash-members.html",
        "qt/5.15.8/qhash-members.html",
    );
    let found = spotsigs_pairs(&pages, &[]);
    assert_eq!(found, BTreeSet::from([releases.clone()]));
    let off = spotsigs_pairs(&pages, &["--fallback-tau", "0"]);
    assert!(off.is_empty(), "{off:?}");
}

/// Two pages of one manual under two names that share most of their text (one template,
/// one subject: `git-annotate` / `git-blame`) are not a pair under the default
/// `--sibling-tau`, while the same page in two releases (one name) and a copy on another
/// site, just as far apart, are; `--sibling-tau 0` pairs the siblings again.
#[test]
fn sibling_pages_of_one_site_need_a_close_copy_but_releases_and_other_sites_do_not() {
    let base = story("harbour", 6);
    let with = |keep: std::ops::Range<usize>, extra: &str| -> Vec<String> {
        let mut p = base[keep].to_vec();
        p.extend(story(extra, 2));
        p
    };
    let mut sibling = story("beta", 2);
    sibling.extend_from_slice(&base[2..6]);
    let pages = [
        ("manual.example/1.0/guide/lock.html", html("Locks", &base)),
        (
            "manual.example/2.0/guide/lock.html",
            html("Locks", &with(0..4, "alpha")),
        ),
        (
            "manual.example/1.0/guide/latch.html",
            html("Latches", &sibling),
        ),
        (
            "other.example/lock-copy.html",
            html("Locks", &with(0..4, "gamma")),
        ),
    ];
    let old = "manual.example/1.0/guide/lock.html";
    let new = "manual.example/2.0/guide/lock.html";
    let latch = "manual.example/1.0/guide/latch.html";
    let copy = "other.example/lock-copy.html";
    let found = spotsigs_pairs(&pages, &[]);
    let expected = BTreeSet::from([pair(old, new), pair(old, copy), pair(new, copy)]);
    assert_eq!(found, expected);
    let off = spotsigs_pairs(&pages, &["--sibling-tau", "0"]);
    assert!(off.contains(&pair(old, latch)), "{off:?}");
}
