//! `spotcheck adjudicate`: the disputed pairs listed with every coder's verdict and note, a
//! final label recorded under `adjudicator:NAME`, kappa before and after, and the gold
//! export taking the adjudicated label; bad input exits 2 (malformed) or 1 (unknown ids).

use std::collections::HashMap;

use serde_json::{json, Value};
use spotcheck::store::Store;

use crate::common;

fn page(dir: &std::path::Path, name: &str, text: &str) {
    let html = format!("<html><head><title>{name}</title></head><body><p>{text}</p></body></html>");
    std::fs::write(dir.join(name), html).unwrap();
}

#[test]
fn adjudicate_lists_decides_and_the_gold_takes_the_final_label() {
    let (tmp, dbp) = common::temp_db();
    let db = dbp.to_str().unwrap();
    let pages = tmp.path().join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    page(
        &pages,
        "a.html",
        "Council approves the new budget for schools and roads",
    );
    page(
        &pages,
        "b.html",
        "Council approves new budget for schools and roads, officials say",
    );
    page(
        &pages,
        "c.html",
        "Storm closes the harbour as fishing boats return early",
    );
    common::spotcheck_ok(&[
        "ingest",
        "--quiet",
        "--no-main",
        "--db",
        db,
        pages.to_str().unwrap(),
    ]);
    let (ids, url): (Vec<i64>, HashMap<i64, String>) = {
        let mut s = Store::open(&dbp).unwrap();
        let mut docs = Vec::new();
        s.for_each_document(|d| {
            docs.push((d.id, d.url));
            Ok(())
        })
        .unwrap();
        docs.sort();
        let ids: Vec<i64> = docs.iter().map(|d| d.0).collect();
        s.record_decision("ann", "confirm", &ids[..2], json!({}))
            .unwrap();
        s.record_decision("ann", "note", &ids[..2], json!({"note": "same story"}))
            .unwrap();
        s.record_decision("bob", "reject", &ids[..2], json!({}))
            .unwrap();
        s.record_decision("ann", "reject", &ids[1..], json!({}))
            .unwrap();
        s.record_decision("bob", "reject", &ids[1..], json!({}))
            .unwrap();
        (ids, docs.into_iter().collect())
    };
    let (a, b) = (ids[0], ids[1]);

    let (out, _) = common::spotcheck_ok(&["adjudicate", "--db", db, "--json"]);
    let rows: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert_eq!(
        (rows[0]["a"].as_i64(), rows[0]["b"].as_i64()),
        (Some(a), Some(b))
    );
    assert_eq!(rows[0]["coders"][0]["coder"], "ann");
    assert_eq!(rows[0]["coders"][0]["note"], "same story");
    assert_eq!(rows[0]["coders"][1]["label"], "Different");
    assert!(rows[0]["adjudicated"].is_null());
    let (text, _) = common::spotcheck_ok(&["adjudicate", "--db", db, "--list"]);
    assert!(text.contains("note: same story"), "{text}");
    assert!(
        text.contains("1 pairs the coders disagree on without adjudication"),
        "{text}"
    );

    // Before: the conflict keeps a and b apart in the gold.
    let gold_of = |name: &str| -> HashMap<String, String> {
        let out = tmp.path().join(name);
        common::spotcheck_ok(&[
            "export",
            "--db",
            db,
            "--format",
            "gold-tsv",
            "--out",
            out.to_str().unwrap(),
        ]);
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t'))
            .map(|(u, c)| (u.to_string(), c.to_string()))
            .collect()
    };
    let before = gold_of("before.tsv");
    assert_ne!(before.get(&url[&a]), before.get(&url[&b]), "{before:?}");
    let (k, _) = common::spotcheck_ok(&["adjudicate", "--db", db, "--agreement"]);
    assert!(
        k.contains("ann vs bob") && k.contains("(0 of 1 disagreements adjudicated)"),
        "{k}"
    );

    let pair = format!("{b},{a}");
    let (said, _) = common::spotcheck_ok(&[
        "adjudicate",
        "--db",
        db,
        "--decide",
        &pair,
        "--label",
        "same",
        "--adjudicator",
        "lead",
        "--note",
        "wire copy",
    ]);
    assert!(
        said.contains(&format!("adjudicator:lead: documents {a} and {b} are same")),
        "{said}"
    );
    assert!(said.contains("0 disagreements still open"), "{said}");
    let after = gold_of("after.tsv");
    assert_eq!(after.get(&url[&a]), after.get(&url[&b]), "{after:?}");
    assert!(after.contains_key(&url[&a]));
    let (k, _) = common::spotcheck_ok(&["adjudicate", "--db", db, "--agreement", "--json"]);
    let k: Value = serde_json::from_str(k.trim()).unwrap();
    assert_eq!(
        (k["disagreed"].as_u64(), k["resolved"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(k["before"]["agreed"], 1);
    assert_eq!(k["after"]["agreed"], 2);
    let (all, _) = common::spotcheck_ok(&["adjudicate", "--db", db, "--list", "--all", "--json"]);
    let all: Value = serde_json::from_str(all.trim()).unwrap();
    assert_eq!(all["adjudicated"], "same");
    assert_eq!(all["adjudications"][0]["coder"], "adjudicator:lead");
    assert_eq!(all["adjudications"][0]["note"], "wire copy");

    // Bad input: a malformed pair is a usage error; unknown documents a failure.
    let (code, _, err) = common::spotcheck_run(&[
        "adjudicate",
        "--db",
        db,
        "--decide",
        "7",
        "--label",
        "same",
        "--adjudicator",
        "lead",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--decide takes two document ids"), "{err}");
    let (code, _, err) = common::spotcheck_run(&[
        "adjudicate",
        "--db",
        db,
        "--decide",
        "1,999",
        "--label",
        "same",
        "--adjudicator",
        "lead",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not both in the database"), "{err}");
    let (code, _, _) = common::spotcheck_run(&["adjudicate", "--db", db, "--decide", "1,2"]);
    assert_eq!(code, Some(2));
}
