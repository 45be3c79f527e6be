//! `spotcheck merge`: two coders' copies merged equal one database where both labeled,
//! a second merge changes nothing, a copy of another corpus is refused, and the
//! conflicts and provenance are reported.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;
use spotcheck::model::Decision;
use spotcheck::store::Store;

use crate::common;

const PAGES: &[(&str, &str)] = &[
    (
        "a.html",
        "Council approves the new budget for schools and roads this year",
    ),
    (
        "b.html",
        "Council approves new budget for schools and roads this year, officials say",
    ),
    (
        "c.html",
        "Storm closes the harbour as fishing boats return early to port",
    ),
    (
        "d.html",
        "Storm closes harbour; fishing boats return early to port on Tuesday",
    ),
    (
        "e.html",
        "Local team wins the cup after a dramatic penalty shootout at home",
    ),
    (
        "f.html",
        "Local team wins cup after dramatic penalty shootout, fans celebrate",
    ),
];

fn write_pages(dir: &Path, pages: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in pages {
        let html =
            format!("<html><head><title>{name}</title></head><body><p>{text}</p></body></html>");
        std::fs::write(dir.join(name), html).unwrap();
    }
}

fn ingest(db: &Path, folders: &[&Path]) {
    let mut args = vec![
        "ingest",
        "--quiet",
        "--no-main",
        "--db",
        db.to_str().unwrap(),
    ];
    for f in folders {
        args.push(f.to_str().unwrap());
    }
    common::spotcheck_ok(&args);
}

/// Copies a closed database (and its WAL, if one was left).
fn copy_db(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap();
    let wal = PathBuf::from(format!("{}-wal", from.display()));
    if wal.exists() {
        std::fs::copy(&wal, format!("{}-wal", to.display())).unwrap();
    }
}

fn ids(store: &Store) -> HashMap<String, i64> {
    store.url_ids().unwrap().into_iter().collect()
}

fn alice_labels(store: &mut Store) {
    let id = ids(store);
    let [a, b, c, d, e, f] = ["a", "b", "c", "d", "e", "f"].map(|n| id[&format!("{n}.html")]);
    store.decide("alice", &Decision::Confirm, &[a, b]).unwrap();
    let reject = store.decide("alice", &Decision::Reject, &[c, d]).unwrap();
    store
        .decide("alice", &Decision::Tag("wire".into()), &[a, b])
        .unwrap();
    store
        .decide(
            "alice",
            &Decision::Split {
                groups: vec![vec![a, b], vec![e]],
            },
            &[a, b, e],
        )
        .unwrap();
    let undo = store.record_undo("alice", reject.id).unwrap();
    store.record_redo("alice", undo.id).unwrap();
    store.record_undo("alice", reject.id).unwrap();
    store.decide("alice", &Decision::Confirm, &[e, f]).unwrap();
}

fn bob_labels(store: &mut Store) {
    let id = ids(store);
    let [a, b, c, d, e, f] = ["a", "b", "c", "d", "e", "f"].map(|n| id[&format!("{n}.html")]);
    store.decide("bob", &Decision::Confirm, &[c, d]).unwrap();
    store.decide("bob", &Decision::Reject, &[a, b]).unwrap();
    store.decide("bob", &Decision::Unsure, &[e, f]).unwrap();
    store
        .decide("bob", &Decision::Note(Some("check dates".into())), &[c, d])
        .unwrap();
}

/// Every label and pair label, with document ids replaced by URLs (row ids differ between
/// databases; what a coder said about which pages must not).
fn labels_by_url(db: &Path) -> BTreeSet<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let url: HashMap<i64, String> = conn
        .prepare("SELECT id, url FROM documents")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let urls = |key: &str| -> String {
        let mut u: Vec<&str> = key
            .split(',')
            .map(|i| url[&i.parse::<i64>().unwrap()].as_str())
            .collect();
        u.sort();
        u.join(",")
    };
    let mut out = BTreeSet::new();
    let mut st = conn
        .prepare("SELECT coder, target, status, tags, coalesce(note, '') FROM labels")
        .unwrap();
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (coder, target, status, tags, note) = row.unwrap();
        out.insert(format!(
            "label {coder} {} {status} {tags} {note}",
            urls(&target)
        ));
    }
    let mut st = conn
        .prepare("SELECT coder, a, b, label FROM pair_labels")
        .unwrap();
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (coder, a, b, label) = row.unwrap();
        out.insert(format!(
            "pair {coder} {} {label}",
            urls(&format!("{a},{b}"))
        ));
    }
    out
}

fn log_len(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT count(*) FROM decisions", [], |r| r.get(0))
        .unwrap()
}

fn merge_json(db: &Path, from: &[&Path]) -> Value {
    let mut args = vec!["merge", "--json", "--db", db.to_str().unwrap(), "--from"];
    for f in from {
        args.push(f.to_str().unwrap());
    }
    let (out, _) = common::spotcheck_ok(&args);
    serde_json::from_str(out.trim()).unwrap()
}

#[test]
fn merging_two_coders_copies_equals_one_database_where_both_labeled() {
    let tmp = tempfile::tempdir().unwrap();
    let pages = tmp.path().join("pages");
    write_pages(&pages, PAGES);
    let base = tmp.path().join("base.db");
    ingest(&base, &[&pages]);
    // A decision made before the copies were handed out: in every copy, merged once.
    {
        let mut s = Store::open(&base).unwrap();
        let id = ids(&s);
        s.decide("carol", &Decision::Confirm, &[id["a.html"], id["b.html"]])
            .unwrap();
    }
    let [alice, bob, both, target] =
        ["alice.db", "bob.db", "both.db", "target.db"].map(|n| tmp.path().join(n));
    for db in [&alice, &bob, &both, &target] {
        copy_db(&base, db);
    }
    alice_labels(&mut Store::open(&alice).unwrap());
    bob_labels(&mut Store::open(&bob).unwrap());
    {
        let mut s = Store::open(&both).unwrap();
        alice_labels(&mut s);
        bob_labels(&mut s);
    }

    let first = merge_json(&target, &[&alice, &bob]);
    assert_eq!(first["merged"][0]["added"], 8, "{first}");
    assert_eq!(first["merged"][0]["already_present"], 1, "{first}");
    assert_eq!(first["merged"][1]["added"], 4, "{first}");
    assert_eq!(labels_by_url(&target), labels_by_url(&both));
    assert_eq!(log_len(&target), log_len(&both));
    // Conflicts: alice's split keeps a,b together, bob rejects them; e,f: confirm vs unsure.
    let conflicts: BTreeSet<String> = first["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {} {}={} {}={}",
                c["url_a"].as_str().unwrap(),
                c["url_b"].as_str().unwrap(),
                c["coder_a"].as_str().unwrap(),
                c["label_a"].as_str().unwrap(),
                c["coder_b"].as_str().unwrap(),
                c["label_b"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        conflicts.contains("a.html b.html alice=same bob=different"),
        "{conflicts:?}"
    );
    assert!(
        conflicts.contains("e.html f.html alice=same bob=unsure"),
        "{conflicts:?}"
    );
    let kappa_pairs: Vec<(String, String)> = first["agreement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["coder_a"].as_str().unwrap().to_string(),
                a["coder_b"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(kappa_pairs.contains(&("alice".into(), "bob".into())));

    // Provenance: every added row names its copy and its id there.
    let origins = Store::open(&target).unwrap().decision_origins().unwrap();
    assert_eq!(origins.len(), 12);
    assert!(origins
        .iter()
        .all(|(_, o, _)| o.ends_with("alice.db") || o.ends_with("bob.db")));

    // Twice, in the other order, and from a copy that got alice's rows by a merge of its
    // own: nothing more. (both.db is not such a copy: its rows were made at other times,
    // so they are other decisions.)
    let bob_with_alice = tmp.path().join("bob-with-alice.db");
    copy_db(&bob, &bob_with_alice);
    merge_json(&bob_with_alice, &[&alice]);
    let before = labels_by_url(&target);
    let again = merge_json(&target, &[&bob, &alice, &bob_with_alice]);
    for m in again["merged"].as_array().unwrap() {
        assert_eq!(m["added"], 0, "{again}");
    }
    assert_eq!(log_len(&target), log_len(&both));
    assert_eq!(labels_by_url(&target), before);
}

#[test]
fn documents_are_matched_by_url_and_content_not_row_id() {
    let tmp = tempfile::tempdir().unwrap();
    let pages = tmp.path().join("pages");
    write_pages(&pages, PAGES);
    let extra = tmp.path().join("extra");
    write_pages(
        &extra,
        &[("zz.html", "An extra page ingested first shifts every id")],
    );
    let alice = tmp.path().join("alice.db");
    let bob = tmp.path().join("bob.db");
    ingest(&alice, &[&pages]);
    ingest(&bob, &[&extra, &pages]);
    alice_labels(&mut Store::open(&alice).unwrap());
    let reference = tmp.path().join("reference.db");
    copy_db(&bob, &reference);
    alice_labels(&mut Store::open(&reference).unwrap());
    let out = merge_json(&bob, &[&alice]);
    assert_eq!(out["merged"][0]["added"], 8, "{out}");
    assert_eq!(labels_by_url(&bob), labels_by_url(&reference));
}

#[test]
fn a_copy_of_another_corpus_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let pages = tmp.path().join("pages");
    write_pages(&pages, PAGES);
    let other_pages = tmp.path().join("other");
    write_pages(
        &other_pages,
        &[
            (
                "a.html",
                "A different page under the same name as the first one",
            ),
            ("b.html", "And another different page under the second name"),
        ],
    );
    let db = tmp.path().join("db.db");
    let other = tmp.path().join("other.db");
    ingest(&db, &[&pages]);
    ingest(&other, &[&other_pages]);
    {
        let mut s = Store::open(&other).unwrap();
        let id = ids(&s);
        s.decide("dan", &Decision::Confirm, &[id["a.html"], id["b.html"]])
            .unwrap();
    }
    let (code, _, err) = common::spotcheck_run(&[
        "merge",
        "--db",
        db.to_str().unwrap(),
        "--from",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("other.db is not a copy of the corpus"),
        "{err}"
    );
    assert_eq!(log_len(&db), 0);
    let (code, _, err) = common::spotcheck_run(&["merge", "--db", db.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
}
