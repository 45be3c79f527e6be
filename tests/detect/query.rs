//! `spotcheck query` on the debian-docs corpus: pages held back from the database and given
//! as outside files find their true partner (gold) for at least 90%, the database is not
//! changed (byte for byte), and the answer is the same when asked twice.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::common;

fn sha_of(path: &Path) -> Vec<u8> {
    use sha1::{Digest, Sha1};
    Sha1::digest(std::fs::read(path).unwrap()).to_vec()
}

#[test]
fn held_back_debian_docs_pages_find_their_gold_partner() {
    let Some(corpus) = common::debian_docs_small() else {
        return;
    };
    let gold: Vec<(String, String)> = std::fs::read_to_string(corpus.join("gold.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(u, c)| (u.to_string(), c.to_string()))
        .collect();
    let cluster_of: HashMap<&str, &str> =
        gold.iter().map(|(u, c)| (u.as_str(), c.as_str())).collect();
    let mut members: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (u, c) in &gold {
        members.entry(c).or_default().push(u);
    }
    // One page of every 10th cluster with a partner (the first URL in gold order).
    let held: Vec<&str> = members
        .values()
        .filter(|m| m.len() >= 2)
        .step_by(10)
        .map(|m| m[0])
        .collect();
    assert!(held.len() >= 50, "{} held back", held.len());
    let tmp = tempfile::tempdir().unwrap();
    let (stored, outside) = (tmp.path().join("stored"), tmp.path().join("outside"));
    for (u, _) in &gold {
        let to = if held.contains(&u.as_str()) {
            outside.join(u)
        } else {
            stored.join(u)
        };
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::hard_link(corpus.join("html").join(u), &to)
            .or_else(|_| std::fs::copy(corpus.join("html").join(u), &to).map(|_| ()))
            .unwrap();
    }
    let db = tmp.path().join("stored.db");
    let dbs = db.to_str().unwrap();
    common::spotcheck_ok(&[
        "ingest",
        "--quiet",
        "--no-main",
        "--db",
        dbs,
        stored.to_str().unwrap(),
    ]);
    common::spotcheck_ok(&["detect", "--db", dbs, "--method", "spotsigs"]);
    let before = sha_of(&db);
    let args = ["query", "--db", dbs, outside.to_str().unwrap()];
    let (out, err) = common::spotcheck_ok(&args);
    eprintln!("{err}");
    assert_eq!(sha_of(&db), before, "query changed the database");
    let answers: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), held.len());
    let mut found = 0;
    for a in &answers {
        let url = a["url"].as_str().unwrap();
        let want = cluster_of[url];
        let matches = a["matches"].as_array().unwrap();
        if matches.iter().any(|m| {
            m["method"] == "spotsigs" && cluster_of.get(m["url"].as_str().unwrap()) == Some(&want)
        }) {
            found += 1;
        }
        // Every match carries its evidence: shared signatures, or (SpotSigs' equal-content
        // rule) a score of exactly 1 for texts equal up to case and white space, which may
        // have fewer signatures than `--min-sigs` and so share none.
        for m in matches {
            let equal_text = m["method"] == "spotsigs" && m["score"].as_f64() == Some(1.0);
            assert!(equal_text || m["shared_count"].as_u64().unwrap() > 0, "{m}");
            assert!(m["score"].as_f64().unwrap() >= 0.4, "{m}");
        }
    }
    let recall = found as f64 / held.len() as f64;
    eprintln!(
        "true partner found for {found} of {} held-back pages ({recall:.3})",
        held.len()
    );
    // Issue 19 asks for 90%: 108 of 120 since an outside page's content text is cut with the
    // template its site's stored pages taught (97 of 120 when it was cut among the outside
    // pages alone).
    assert!(found * 10 >= held.len() * 9, "{found} of {}", held.len());
    let (again, _) = common::spotcheck_ok(&args);
    assert_eq!(again, out, "a second query answers differently");
    // A URL list selects pages of the given folder: every other held-back page, plus a URL
    // no file has (counted on stderr, never fetched).
    let listed: Vec<&str> = held.iter().step_by(2).copied().collect();
    let list = tmp.path().join("urls.txt");
    std::fs::write(
        &list,
        format!(
            "# held back\n{}\nhttp://example.invalid/x\n",
            listed.join("\n")
        ),
    )
    .unwrap();
    let (selected, err) = common::spotcheck_ok(&[
        "query",
        "--db",
        dbs,
        "--method",
        "spotsigs",
        "--urls",
        list.to_str().unwrap(),
        outside.to_str().unwrap(),
    ]);
    let urls: Vec<String> = selected
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["url"].to_string())
        .collect();
    assert_eq!(urls.len(), listed.len(), "{selected}");
    assert!(err.contains("1 of the"), "{err}");
    // TSV: a header and one line per match.
    let (tsv, _) = common::spotcheck_ok(&[
        "query",
        "--db",
        dbs,
        "--format",
        "tsv",
        "--method",
        "spotsigs",
        outside.to_str().unwrap(),
    ]);
    let n_matches: usize = answers
        .iter()
        .map(|a| a["matches"].as_array().unwrap().len())
        .sum();
    assert_eq!(tsv.lines().count(), n_matches + 1);
}

#[test]
fn query_without_a_run_or_database_is_a_clear_error() {
    let (_tmp, db) = common::temp_db();
    let dbs = db.to_str().unwrap();
    let (code, _, err) = common::spotcheck_run(&["query", "--db", dbs, "x.html"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no database"), "{err}");
    let (code, _, err) = common::spotcheck_run(&["query", "--db", dbs]);
    assert_eq!(code, Some(2), "{err}");
}
