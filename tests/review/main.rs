//! Tests of the merged review queue on real data (`src/model/entries.rs`,
//! `src/model/triage.rs`, `src/store/review_queue.rs`, `spotcheck queue`): one entry per
//! candidate group on the debian-docs corpus, labels kept across a detector rerun, and noise
//! triage on the real WARCs counted as the stored records say.
//! One test crate per source area (`cargo test --test review`).

#[path = "../common/mod.rs"]
mod common;

mod adjudicate;
mod merge;

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;
use spotcheck::review::Session;
use spotcheck::store::{LabelStatus, NoiseShown, QueueFilter, QueueSort, Store};
use spotcheck::tui::{render_keys, Keymap};

fn json_lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn member_urls(entry: &Value) -> Vec<String> {
    entry["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["url"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn debian_docs_one_entry_per_member_set_and_no_document_in_two_entries() {
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    let (_tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let html = corpus.join("html");
    common::spotcheck_ok(&[
        "ingest",
        "--quiet",
        "--no-main",
        "--db",
        db,
        html.to_str().unwrap(),
    ]);
    common::spotcheck_ok(&["detect", "--db", db]);
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all", "--coder", "ann"]);
    let entries = json_lines(&out);
    assert!(entries.len() > 100, "{} entries", entries.len());
    let sets: HashSet<BTreeSet<String>> = entries
        .iter()
        .map(|e| member_urls(e).into_iter().collect())
        .collect();
    let ratio = entries.len() as f64 / sets.len() as f64;
    eprintln!(
        "queue rows {} / distinct member sets {} = {ratio:.2}",
        entries.len(),
        sets.len()
    );
    assert_eq!(ratio, 1.0);
    let mut seen: HashMap<String, u64> = HashMap::new();
    for e in &entries {
        for u in member_urls(e) {
            if let Some(other) = seen.insert(u.clone(), e["entry"].as_u64().unwrap()) {
                panic!("{u} is in entries {other} and {}", e["entry"]);
            }
        }
        assert!(e["size"].as_u64().unwrap() >= 2);
        assert!(!e["detectors"].as_array().unwrap().is_empty());
        // Every pair names the detectors that found it.
        for p in e["pairs"].as_array().unwrap() {
            assert!(!p["detectors"].as_object().unwrap().is_empty(), "{p}");
        }
    }
    // The default listing is the open entries, in the workbench's order.
    let (open, _) = common::spotcheck_ok(&["queue", "--db", db, "--coder", "ann"]);
    let open = json_lines(&open);
    let mut store = Store::open(&dbp).unwrap();
    let rows = store
        .queue_page(
            "ann",
            &QueueFilter::default(),
            QueueSort::default(),
            0,
            100_000,
        )
        .unwrap();
    assert_eq!(open.len(), rows.len());
    for (o, r) in open.iter().zip(&rows) {
        assert_eq!(o["entry"].as_i64(), Some(r.cluster));
    }

    // A label survives a rerun of one detector unchanged, and the entry holding its
    // documents still shows it.
    let first = &rows[0];
    store
        .record_decision("ann", "confirm", &first.members, serde_json::json!({}))
        .unwrap();
    let before = store.label("ann", &first.members).unwrap();
    let pairs_before: Vec<Option<String>> = pair_labels(&store, &first.members);
    drop(store);
    common::spotcheck_ok(&["detect", "--db", db, "--method", "spotsigs"]);
    let mut store = Store::open(&dbp).unwrap();
    store.refresh_review_queue().unwrap();
    assert_eq!(store.label("ann", &first.members).unwrap(), before);
    assert_eq!(pair_labels(&store, &first.members), pairs_before);
    let all = QueueFilter {
        noise: NoiseShown::Include,
        ..QueueFilter::default()
    };
    let rows = store
        .queue_page("ann", &all, QueueSort::default(), 0, 100_000)
        .unwrap();
    let holder = rows
        .iter()
        .find(|r| r.members.contains(&first.members[0]))
        .expect("the documents are still queued");
    if holder.members == first.members {
        assert_eq!(holder.status, LabelStatus::Confirmed);
    } else {
        assert!(holder.labeled > 0, "{holder:?}");
    }
}

fn pair_labels(store: &Store, members: &[i64]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for (i, &a) in members.iter().enumerate() {
        for &b in &members[i + 1..] {
            out.push(store.pair_label("ann", a, b).unwrap());
        }
    }
    out
}

#[test]
fn real_warcs_noise_is_triaged_and_counted_as_the_records_say() {
    let Some(dir) = common::corpus("warc/real") else {
        return;
    };
    let (_tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.ends_with(".warc") || n.ends_with(".warc.gz") || n.ends_with(".arc.gz")
        })
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    files.sort();
    let mut args = vec!["ingest", "--quiet", "--no-main", "--db", db];
    args.extend(files.iter().map(String::as_str));
    common::spotcheck_ok(&args);
    common::spotcheck_ok(&["detect", "--db", db]);

    // The stored records, counted with the rules' own order (first match wins).
    let store = Store::open(&dbp).unwrap();
    let session = Session::new(store, "ann", false).unwrap();
    let triage = session.triage.clone();
    let facts = records(&dbp);
    let expected =
        |rule: &str| -> u64 { facts.iter().filter(|f| first_rule(f) == Some(rule)).count() as u64 };
    for (rule, n) in &triage.rules {
        assert_eq!(*n, expected(rule), "rule {rule}");
    }
    let copies = facts
        .iter()
        .filter(|f| f.dup_group.unwrap_or(f.id) != f.id)
        .count() as u64;
    assert_eq!(triage.copies, copies);
    let errors = expected("error");
    assert!(
        errors > 0 || copies > 0,
        "the real WARCs hold noise: {triage:?}"
    );
    eprintln!(
        "noise triaged on the real WARCs: {triage:?}, {} noise entries",
        session.triaged_entries
    );

    // The status line says the same numbers.
    let mut session = session;
    let buf = render_keys(&mut session, &Keymap::defaults(), &[], 250, 24).unwrap();
    let header: String = (0..buf.area.width)
        .map(|x| buf[(x, 0)].symbol().to_string())
        .collect();
    assert!(header.contains(&triage.summary()), "{header}");

    // No default-queue entry is made only of byte-identical pages or error responses.
    let rows = session
        .store()
        .queue_page(
            "ann",
            &QueueFilter::default(),
            QueueSort::default(),
            0,
            100_000,
        )
        .unwrap();
    let by_id: HashMap<i64, &Fact> = facts.iter().map(|f| (f.id, f)).collect();
    for r in &rows {
        assert!(r.noise.is_none());
        let groups: BTreeSet<i64> = r
            .members
            .iter()
            .map(|d| by_id[d].dup_group.unwrap_or(*d))
            .collect();
        assert!(groups.len() >= 2, "an entry of copies: {r:?}");
        assert!(
            r.members
                .iter()
                .any(|d| by_id[d].status.is_none_or(|s| s < 400)),
            "an entry of errors: {r:?}"
        );
        assert!(
            r.members.iter().all(|d| first_rule(by_id[d]).is_none()),
            "a noise page in the default queue: {r:?}"
        );
    }
}

/// What the test reads per stored document, independently of the store's triage.
struct Fact {
    id: i64,
    url: String,
    status: Option<i64>,
    chars: i64,
    dup_group: Option<i64>,
    redirect_stub: bool,
}

fn records(db: &std::path::Path) -> Vec<Fact> {
    let store = Store::open(db).unwrap();
    let mut out = Vec::new();
    store
        .for_each_document(|d| {
            out.push(d);
            Ok(())
        })
        .unwrap();
    // The stub flag as ingest stored it, read from the table itself.
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT id FROM documents WHERE redirect_stub = 1")
        .unwrap();
    let stubs: HashSet<i64> = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    out.into_iter()
        .map(|d| Fact {
            id: d.id,
            url: d.url,
            status: d.http_status,
            chars: d.chars as i64,
            dup_group: d.dup_group,
            redirect_stub: stubs.contains(&d.id),
        })
        .collect()
}

/// The triage rules written out again (README's table): error ≥ 400, redirect 3xx,
/// client-side redirect stubs (the flag ingest stored), robots.txt, fewer than 50 characters.
fn first_rule(f: &Fact) -> Option<&'static str> {
    let path = f
        .url
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if f.status.is_some_and(|s| s >= 400) {
        Some("error")
    } else if f.status.is_some_and(|s| (300..400).contains(&s)) {
        Some("redirect")
    } else if f.redirect_stub {
        Some("client-redirect")
    } else if path.ends_with("/robots.txt") || path == "robots.txt" {
        Some("robots")
    } else if f.chars < 50 {
        Some("near-empty")
    } else {
        None
    }
}

#[test]
fn the_readme_triage_table_is_the_rule_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (start, end) = ("<!-- triage:start -->\n", "<!-- triage:end -->");
    let a = readme.find(start).unwrap() + start.len();
    let b = readme.find(end).unwrap();
    let table = spotcheck::model::triage_markdown();
    if readme[a..b] != table {
        if std::env::var("SPOTCHECK_UPDATE_README").as_deref() == Ok("1") {
            std::fs::write(path, format!("{}{table}{}", &readme[..a], &readme[b..])).unwrap();
        } else {
            panic!("README.md's triage table is out of date: run this test with SPOTCHECK_UPDATE_README=1");
        }
    }
}

/// The two Qt patch releases the template-sibling fixtures compare.
const QT_RELEASES: [&str; 2] = ["5.15.8+dfsg-11+deb12u3", "5.15.15+dfsg-6+deb13u1"];

/// A fixture folder holding, under `sub/RELEASE/`, the qtcore pages of both releases whose
/// file name `keep` accepts, copied from the debian-docs test corpus.
fn qtcore_pages_of_two_releases(
    corpus: &std::path::Path,
    sub: &str,
    keep: impl Fn(&str) -> bool,
) -> tempfile::TempDir {
    let fixture = tempfile::tempdir().unwrap();
    for v in QT_RELEASES {
        let from = corpus.join(format!(
            "html/qtbase5-doc-html/{v}/usr/share/qt5/doc/qtcore"
        ));
        let to = fixture.path().join(sub).join(v);
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(&from).unwrap() {
            let f = f.unwrap();
            if keep(&f.file_name().to_string_lossy()) {
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
        }
    }
    fixture
}

/// The qtcore iterator pages of both releases, each release a top-level folder
/// (`qtcore_pages_of_two_releases`), ingested into a fresh database: the fixture and the
/// database's guards, and its path.
fn iterator_pages_of_two_release_folders(
    corpus: &std::path::Path,
) -> (tempfile::TempDir, tempfile::TempDir, String) {
    let fixture = qtcore_pages_of_two_releases(corpus, "html", |name| name.contains("iterator"));
    let (tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap().to_string();
    let html = fixture.path().join("html");
    common::spotcheck_ok(&["ingest", "--quiet", "--db", &db, html.to_str().unwrap()]);
    (fixture, tmp, db)
}

/// Issue 14 (session 3), template siblings: Qt's `QMapIterator` and `QMutableMapIterator`
/// pages of one release are one template with different identifiers, which SpotSigs alone
/// pairs (Jaccard 0.6); the queue must not show them as one entry, while the same page in two
/// patch releases (5.15.8, 5.15.15) still is one. Fixture: the 72 iterator pages of qtcore
/// in both releases, from the debian-docs test corpus.
#[test]
fn template_siblings_are_not_one_entry_but_patch_release_copies_are() {
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    let releases = QT_RELEASES;
    let (_fixture, _tmp, db) = iterator_pages_of_two_release_folders(&corpus);
    let db = db.as_str();
    // Each release is a top-level folder here, two sites by their names but one by their
    // pages (`extract::sites`: the same places), as both releases under one package folder
    // in the corpus are. The site rule then leaves SpotSigs no sibling pair to test the
    // queue's rule with: off here, and so is SpotSigs' own sibling rule (`--sibling-tau`,
    // session 12), which would keep the pair from the queue before its rule sees it. Cooper's
    // containment rule (for copies across sites) stays off as before this fixture's two
    // folders were one site.
    common::spotcheck_ok(&[
        "detect",
        "--db",
        db,
        "--cooper-contained",
        "0",
        "--sibling-tau",
        "0",
        "--site-boilerplate",
        "0",
    ]);
    let page = |v: &str, name: &str| format!("{v}/{name}.html");
    let (map8, mutable8) = (
        page(releases[0], "qmapiterator"),
        page(releases[0], "qmutablemapiterator"),
    );
    let map15 = page(releases[1], "qmapiterator");
    // The siblings are a candidate pair of SpotSigs: the queue's rule is what parts them.
    let (spotsigs, _) = common::spotcheck_ok(&[
        "pairs", "--db", db, "--method", "spotsigs", "--format", "tsv",
    ]);
    let paired = |a: &str, b: &str| {
        spotsigs.lines().any(|l| {
            let mut f = l.split('\t');
            let (x, y) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
            (x.ends_with(a) && y.ends_with(b)) || (x.ends_with(b) && y.ends_with(a))
        })
    };
    assert!(
        paired(&map8, &mutable8),
        "SpotSigs no longer pairs the siblings"
    );
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all"]);
    let mut entry_of: HashMap<String, u64> = HashMap::new();
    for e in json_lines(&out) {
        for u in member_urls(&e) {
            entry_of.insert(u, e["entry"].as_u64().unwrap());
        }
    }
    let entry = |u: &str| {
        entry_of
            .iter()
            .find(|(k, _)| k.ends_with(u))
            .map(|(_, &e)| e)
    };
    assert!(entry(&map8).is_some(), "{map8} is in no entry");
    assert_eq!(entry(&map8), entry(&map15), "the patch-release copy");
    assert_ne!(entry(&map8), entry(&mutable8), "the template siblings");
}

/// Issue 14 (session 27), releases laid out as sites: each patch release of Qt's qtcore in a
/// top-level folder of its own (a user unpacking every release into its own folder) names two
/// sites, and the rules for copies across sites (Cooper's containment and passage rules,
/// I-Match's cross-site bags) paired one release's template siblings with the other's pages
/// (ci-dd so laid out: the union's precision .812). With default settings the queue must show
/// each page with its copy in the other release and never two sibling pages as one entry.
/// Fixture: the 72 iterator pages of qtcore in both releases, from the debian-docs corpus.
#[test]
fn releases_in_folders_of_their_own_are_one_site_with_default_settings() {
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    let releases = QT_RELEASES;
    let (_fixture, _tmp, db) = iterator_pages_of_two_release_folders(&corpus);
    let db = db.as_str();
    let (runs, _) = common::spotcheck_ok(&["detect", "--db", db, "--json"]);
    // Every run says which sites it read as one.
    for run in json_lines(&runs) {
        let s = &run["summary"];
        assert_eq!(
            (s["sites_joined"].as_u64(), s["site_families"].as_u64()),
            (Some(2), Some(1))
        );
        let mut members = s["site_family_members"][0].as_array().unwrap().clone();
        members.sort_by_key(|m| m.as_str().unwrap().to_string());
        assert_eq!(members, vec![releases[1], releases[0]]);
    }
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all"]);
    let mut entry_of: HashMap<String, u64> = HashMap::new();
    for e in json_lines(&out) {
        for u in member_urls(&e) {
            entry_of.insert(u, e["entry"].as_u64().unwrap());
        }
    }
    let entry = |v: &str, name: &str| {
        let u = format!("{v}/{name}.html");
        entry_of
            .iter()
            .find(|(k, _)| k.ends_with(&u))
            .map(|(_, &e)| e)
    };
    // The sibling classes the two sites' cross-site rules joined (five entries held them).
    let names = [
        "qmapiterator",
        "qmutablemapiterator",
        "qhashiterator",
        "qmutablehashiterator",
        "qlistiterator",
        "qmutablelistiterator",
        "qlinkedlistiterator",
        "qmutablevectoriterator",
    ];
    for name in names {
        assert!(entry(releases[0], name).is_some(), "{name} is in no entry");
        assert_eq!(
            entry(releases[0], name),
            entry(releases[1], name),
            "{name}: the patch-release copy"
        );
    }
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            for (va, vb) in [(0, 0), (0, 1), (1, 0)] {
                assert_ne!(
                    entry(releases[va], a),
                    entry(releases[vb], b),
                    "{a} of {} and {b} of {}: template siblings in one entry",
                    releases[va],
                    releases[vb]
                );
            }
        }
    }
}

/// Issue 14 (session 4), pages named apart: the member-list pages of Qt classes of one
/// hierarchy (`QBuffer` / `QIODevice`, `QAbstractItemModel` / `QAbstractProxyModel`,
/// `QAtomicInt` / `QAtomicInteger`) share nearly all their lines (inherited members), so
/// Cooper, I-Match and SpotSigs pair them, one, two or all three; their titles each name
/// their own class, which few of the site's titles name. The queue must not show them as one
/// entry, whichever detectors agree, while each page's copy in the other patch release (its
/// title differs only in the release's version, in half the site's titles) still is one.
/// Fixture: the 154 `*-members.html` pages of qtcore in two releases, under one site folder,
/// from the debian-docs test corpus.
#[test]
fn pages_of_one_site_named_apart_are_not_one_entry_but_release_copies_are() {
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    let fixture =
        qtcore_pages_of_two_releases(&corpus, "html/qt", |name| name.ends_with("-members.html"));
    let (_tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let html = fixture.path().join("html");
    common::spotcheck_ok(&["ingest", "--quiet", "--db", db, html.to_str().unwrap()]);
    common::spotcheck_ok(&["detect", "--db", db]);
    let name = |url: &str| url.rsplit('/').next().unwrap_or("").to_string();
    // The detectors pair the named-apart pages: the queue's rule is what parts them.
    let mut paired: HashSet<(String, String)> = HashSet::new();
    for method in ["spotsigs", "imatch", "cooper"] {
        let (out, _) =
            common::spotcheck_ok(&["pairs", "--db", db, "--method", method, "--format", "tsv"]);
        for l in out.lines().skip(1) {
            let mut f = l.split('\t');
            let (a, b) = (name(f.next().unwrap_or("")), name(f.next().unwrap_or("")));
            paired.insert((a.clone(), b.clone()));
            paired.insert((b, a));
        }
    }
    let apart = [
        ("qbuffer-members.html", "qiodevice-members.html"),
        (
            "qabstractitemmodel-members.html",
            "qabstractproxymodel-members.html",
        ),
        ("qatomicint-members.html", "qatomicinteger-members.html"),
    ];
    for (a, b) in apart {
        assert!(
            paired.contains(&(a.to_string(), b.to_string())),
            "no detector pairs {a} and {b} any more"
        );
    }
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all"]);
    let entries: Vec<HashSet<String>> = json_lines(&out)
        .iter()
        .map(|e| member_urls(e).iter().map(|u| name(u)).collect())
        .collect();
    for (a, b) in apart {
        assert!(
            !entries.iter().any(|e| e.contains(a) && e.contains(b)),
            "{a} and {b} are one entry"
        );
    }
    // The same page in the two releases is still one entry.
    assert!(
        entries
            .iter()
            .any(|e| e.len() == 1 && e.contains("qabstractanimation-members.html")),
        "the patch-release copies of qabstractanimation-members are no entry"
    );
    let one_page = entries.iter().filter(|e| e.len() == 1).count();
    assert!(one_page >= 110, "{one_page} entries of one page's copies");
}

/// A doxygen-like manual written here (issue 14, session 7): every class's member-list page
/// is titled `shapemm: Member List`, as doxygen titles them, so the title names no class; the
/// file name does (`classShapes_1_1Circle-members.html`). `Circle` derives from `Shape`: its
/// member list holds all of `Shape`'s lines plus two of its own. 20 classes in two releases
/// (40 pages, so that a class's two pages are 5% of the site's file names).
fn doxygen_member_lists() -> tempfile::TempDir {
    let fixture = tempfile::tempdir().unwrap();
    let inherited: Vec<String> = [
        "area() const",
        "bounding_box() const",
        "contains(const Point& p) const",
        "draw(Canvas& canvas) const",
        "fill_colour() const",
        "move_by(double dx, double dy)",
        "perimeter() const",
        "rotate(double degrees)",
        "scale(double factor)",
        "set_fill_colour(const Colour& c)",
        "set_stroke_width(double w)",
        "stroke_width() const",
    ]
    .iter()
    .map(|m| format!("{m}   Shapes::Shape   virtual"))
    .collect();
    let others = [
        "Angle", "Arc", "Brush", "Canvas", "Colour", "Font", "Gradient", "Image", "Layer", "Line",
        "Matrix", "Path", "Pattern", "Pen", "Point", "Region", "Surface", "Text",
    ];
    for (release, version) in [("1.2.0", "1.2.0"), ("1.2.4", "1.2.4")] {
        let dir = fixture
            .path()
            .join(format!("html/shapemm-doc/{release}/reference/html"));
        std::fs::create_dir_all(&dir).unwrap();
        let page = |class: &str, lines: &[String]| {
            let items: String = lines
                .iter()
                .map(|l| format!("<tr><td>{l}</td></tr>\n"))
                .collect();
            format!(
                "<html><head><title>shapemm: Member List</title></head><body>\
                 <div class=\"header\">shapemm {version}</div>\
                 <p>This is the complete list of members for Shapes::{class}, including all \
                 inherited members.</p><table>{items}</table>\
                 <address>Generated for shapemm by doxygen</address></body></html>"
            )
        };
        let write = |class: &str, lines: &[String]| {
            std::fs::write(
                dir.join(format!("classShapes_1_1{class}-members.html")),
                page(class, lines),
            )
            .unwrap();
        };
        write("Shape", &inherited);
        let mut circle = inherited.clone();
        circle.push("radius() const   Shapes::Circle".into());
        circle.push("set_radius(double r)   Shapes::Circle".into());
        write("Circle", &circle);
        for (i, class) in others.iter().enumerate() {
            let lines: Vec<String> = (0..6)
                .map(|k| format!("{}_{k}{i}() const   Shapes::{class}", class.to_lowercase()))
                .collect();
            write(class, &lines);
        }
    }
    fixture
}

/// Issue 14 (session 7), pages named apart by their file names: the member lists of a base
/// class and of a class derived from it share nearly all their lines (inherited members),
/// so a detector pairs them, and doxygen gives both one title; the queue must not show them
/// as one entry (their file names each name their own class, which 2 of the site's 40 file
/// names name), while each page's copy in the other release still is one entry.
#[test]
fn member_lists_named_apart_by_their_file_names_are_not_one_entry() {
    let fixture = doxygen_member_lists();
    let (_tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let html = fixture.path().join("html");
    common::spotcheck_ok(&["ingest", "--quiet", "--db", db, html.to_str().unwrap()]);
    common::spotcheck_ok(&["detect", "--db", db]);
    let name = |url: &str| url.rsplit('/').next().unwrap_or("").to_string();
    let (shape, circle) = (
        "classShapes_1_1Shape-members.html",
        "classShapes_1_1Circle-members.html",
    );
    // A detector pairs the two classes' lists: the queue's rule is what parts them.
    let mut paired = false;
    for method in ["spotsigs", "imatch", "cooper"] {
        let (out, _) =
            common::spotcheck_ok(&["pairs", "--db", db, "--method", method, "--format", "tsv"]);
        paired |= out.lines().skip(1).any(|l| {
            let mut f = l.split('\t');
            let (a, b) = (name(f.next().unwrap_or("")), name(f.next().unwrap_or("")));
            a != b
                && [a.as_str(), b.as_str()]
                    .iter()
                    .all(|n| [shape, circle].contains(n))
        });
    }
    assert!(paired, "no detector pairs {shape} and {circle}");
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all"]);
    let entries: Vec<Vec<String>> = json_lines(&out)
        .iter()
        .map(|e| member_urls(e).iter().map(|u| name(u)).collect())
        .collect();
    assert!(
        !entries
            .iter()
            .any(|e| e.iter().any(|n| n == shape) && e.iter().any(|n| n == circle)),
        "the member lists of Shape and Circle are one entry: {entries:?}"
    );
    // Each class's list in the two releases is one entry of its two copies.
    for class in [shape, circle] {
        assert!(
            entries
                .iter()
                .any(|e| e.len() == 2 && e.iter().all(|n| n == class)),
            "the two releases of {class} are no entry: {entries:?}"
        );
    }
}

/// A written API manual (no corpus data) in two releases under one package folder,
/// `html/widgetlib-doc/RELEASE/api/io/CLASS.html`: each class page has a description of its
/// own and a list of methods; in the second release two of every class's identifiers are
/// renamed (`read_chunk_N` → `read_exact_N`, `ChunkOptionsN` → `ExactOptionsN`), so each copy
/// names identifiers the other lacks, as a template sibling does.
fn api_manual_with_renamed_identifiers() -> tempfile::TempDir {
    const WORDS: [&str; 40] = [
        "harbor", "lantern", "meadow", "quarry", "saddle", "thimble", "orchard", "pigment",
        "ribbon", "summit", "tundra", "vessel", "walnut", "yarrow", "basalt", "cinder", "dunlin",
        "ember", "fennel", "granite", "hemlock", "indigo", "juniper", "kestrel", "lichen",
        "marble", "nettle", "osprey", "pebble", "quince", "rowan", "sorrel", "tamarack", "umber",
        "verbena", "willow", "alder", "bramble", "clover", "dahlia",
    ];
    let fixture = tempfile::tempdir().unwrap();
    for (release, renamed) in [("1.2.0", false), ("1.3.0", true)] {
        let dir = fixture
            .path()
            .join(format!("html/widgetlib-doc/{release}/api/io"));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..24 {
            let w = |k: usize| WORDS[(i * 7 + k * 3) % WORDS.len()];
            let class = format!("Widget{}", WORDS[i].to_uppercase());
            let prose = format!(
                "<p>The {class} is a {a} reader that can move the {b} of a {c} stream into \
                 the {d} buffer. It will keep the {e} state and has a {f} mode for the {g} \
                 case.</p><p>A caller should open the {h} handle before the {a} reader is \
                 used; the {b} stream can then be read in {c} steps, and the {d} buffer will \
                 hold each {e} chunk until the {f} call has returned.</p><p>The {g} mode is \
                 a {h} choice: it does the {a} work once and was the {b} default of the \
                 {c} releases.</p>",
                a = w(0),
                b = w(1),
                c = w(2),
                d = w(3),
                e = w(4),
                f = w(5),
                g = w(6),
                h = w(7),
            );
            let (read, options) = if renamed {
                (format!("read_exact_{i}"), format!("ExactOptions{i}"))
            } else {
                (format!("read_chunk_{i}"), format!("ChunkOptions{i}"))
            };
            let page = format!(
                "<html><head><title>{class} (widgetlib {release} API)</title></head><body>\
                 <div class=\"header\">widgetlib {release} API reference</div>\
                 <h1>Class {class}</h1>{prose}\
                 <h2>Methods</h2><ul><li>open_{i}(path)</li><li>{read}(buf)</li>\
                 <li>with_options({options})</li><li>close_{i}()</li></ul>\
                 <div class=\"footer\">Generated by a documentation tool</div></body></html>"
            );
            std::fs::write(dir.join(format!("{class}.html")), page).unwrap();
        }
    }
    fixture
}

/// Issue 14 (session 9), one page at one place: a class page in two releases whose API
/// renamed identifiers on both sides looks like a template sibling to the queue's rule, and
/// only one detector (SpotSigs here) found the pair; it is one page at one place of its site
/// (`api/io/CLASS.html` under two releases), so the queue shows it (rustdoc, javadoc and
/// Django's source pages lost most of their release copies to the rule on held-out corpora).
#[test]
fn a_release_copy_at_one_place_is_one_entry_though_its_identifiers_changed() {
    let fixture = api_manual_with_renamed_identifiers();
    let (_tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let html = fixture.path().join("html");
    common::spotcheck_ok(&["ingest", "--quiet", "--db", db, html.to_str().unwrap()]);
    common::spotcheck_ok(&["detect", "--db", db, "--method", "spotsigs"]);
    let class = "WidgetHARBOR.html";
    let (out, _) = common::spotcheck_ok(&[
        "pairs", "--db", db, "--method", "spotsigs", "--format", "tsv",
    ]);
    let copies = |a: &str, b: &str| {
        a.ends_with(&format!("1.2.0/api/io/{class}"))
            && b.ends_with(&format!("1.3.0/api/io/{class}"))
    };
    assert!(
        out.lines().skip(1).any(|l| {
            let mut f = l.split('\t');
            let (a, b) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
            copies(a, b) || copies(b, a)
        }),
        "SpotSigs no longer pairs the two releases of {class}: {out}"
    );
    // The pair's texts are template siblings by their identifiers: the place keeps it.
    let (out, _) = common::spotcheck_ok(&["queue", "--db", db, "--all"]);
    let entries: Vec<Vec<String>> = json_lines(&out).iter().map(member_urls).collect();
    assert!(
        entries
            .iter()
            .any(|e| e.len() == 2 && e.iter().all(|u| u.ends_with(&format!("/api/io/{class}")))),
        "the two releases of {class} are no entry: {entries:?}"
    );
}

/// Issue 14 (session 9), redirect stubs: rustdoc-style pages that only send the browser on
/// (a meta refresh to a URL and a `location.replace` script, "Redirecting to …" besides), one
/// for each moved page, beside the API manual above. Their texts differ only in the target, so
/// detectors pair them (I-Match and Cooper here; main's queue showed them as an entry); triage's `client-redirect` rule keeps them out of the default queue
/// (`queue --all` shows them as that rule's noise), and the manual's pages stay in it.
#[test]
fn redirect_stubs_are_noise_not_a_queue_entry() {
    let fixture = api_manual_with_renamed_identifiers();
    // One file name in six directories, as rustdoc's `btree_map/struct.Range.html`,
    // `btree_set/struct.Range.html`…: neither the file names nor the titles name them apart.
    for name in ["map", "set", "heap", "deque", "list", "queue"] {
        let dir = fixture
            .path()
            .join(format!("html/widgetlib-doc/1.3.0/api/collections/{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let target = format!("../../../api/collections/old/{name}/struct.Iter.html");
        let page = format!(
            "<!DOCTYPE html><html lang=\"en\"><head>\
             <meta http-equiv=\"refresh\" content=\"0;URL={target}\">\
             <title>Redirection</title></head><body>\
             <p>Redirecting to <a href=\"{target}\">{target}</a>...</p>\
             <script>location.replace(\"{target}\" + location.search + location.hash);</script>\
             </body></html>"
        );
        std::fs::write(dir.join("struct.Iter.html"), page).unwrap();
    }
    let (_tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let html = fixture.path().join("html");
    common::spotcheck_ok(&["ingest", "--quiet", "--db", db, html.to_str().unwrap()]);
    common::spotcheck_ok(&["detect", "--db", db]);
    let is_stub = |u: &String| u.contains("/collections/");
    let (all, _) = common::spotcheck_ok(&["queue", "--db", db, "--all"]);
    let all = json_lines(&all);
    let stub_entries: Vec<&Value> = all
        .iter()
        .filter(|e| member_urls(e).iter().any(is_stub))
        .collect();
    assert!(
        !stub_entries.is_empty(),
        "no detector pairs two stubs, so the test shows nothing: {all:?}"
    );
    for e in &stub_entries {
        assert_eq!(e["noise"].as_str(), Some("client-redirect"), "{e}");
        assert!(member_urls(e).iter().all(is_stub), "{e}");
    }
    let (shown, _) = common::spotcheck_ok(&["queue", "--db", db]);
    let shown = json_lines(&shown);
    assert!(!shown.is_empty(), "the manual's release copies are entries");
    assert!(
        shown.iter().all(|e| !member_urls(e).iter().any(is_stub)),
        "a redirect stub in the default queue: {shown:?}"
    );
    // The status counts them under the rule.
    let store = Store::open(&dbp).unwrap();
    let session = Session::new(store, "ann", false).unwrap();
    assert!(
        session
            .triage
            .rules
            .contains(&("client-redirect".to_string(), 6)),
        "{:?}",
        session.triage
    );
}
