//! Merging coders' copies of one database (`spotcheck merge`) as pure rules: which
//! document of a copy is which document here (URL and content hash, never row ids), what
//! makes two log rows the same decision (a fingerprint in this database's id space), and the
//! rows a copy adds.
//!
//! Why fingerprints and not row ids: two copies made from one database share its older
//! rows under the same ids, but rows added after the copy collide on ids while being
//! different decisions. A decision is identified by what it is — coder, time, action, the
//! documents it names, its payload, the decision it undoes — plus how many identical rows
//! came before it in the same log, so a merge adds each decision once, however often it
//! runs and whichever copy brings it.

use std::collections::HashMap;

use serde_json::{json, Value};
use sha1::{Digest, Sha1};

use super::log::{set_key, DecisionRow};

/// A stored document as merge sees it: row id, URL and content hash (`text_hash`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocIdentity {
    pub id: i64,
    pub url: String,
    pub text_hash: String,
}

/// Maps the documents of a copy onto this database's: the n-th document (in id order) with
/// a given URL and content hash there is the n-th with them here (two byte-identical
/// captures of one URL are told apart by their order, which ingest keeps). Documents of the
/// copy without a counterpart are left out of the map.
pub fn map_documents(here: &[DocIdentity], copy: &[DocIdentity]) -> HashMap<i64, i64> {
    let keyed = |docs: &[DocIdentity]| -> Vec<((String, String, usize), i64)> {
        let mut sorted: Vec<&DocIdentity> = docs.iter().collect();
        sorted.sort_by_key(|d| d.id);
        let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
        sorted
            .into_iter()
            .map(|d| {
                let n = seen.entry((&d.url, &d.text_hash)).or_insert(0);
                *n += 1;
                ((d.url.clone(), d.text_hash.clone(), *n), d.id)
            })
            .collect()
    };
    let here: HashMap<(String, String, usize), i64> = keyed(here).into_iter().collect();
    keyed(copy)
        .into_iter()
        .filter_map(|(k, id)| Some((id, *here.get(&k)?)))
        .collect()
}

/// A payload with the document ids it names (a split's `groups`, a cut's `cut`) passed
/// through `map`; None when one of them has no image.
pub fn remap_payload(payload: &Value, map: &impl Fn(i64) -> Option<i64>) -> Option<Value> {
    let mut out = payload.clone();
    if let Some(groups) = payload.get("groups").and_then(Value::as_array) {
        let mut mapped = Vec::with_capacity(groups.len());
        for g in groups {
            let members = g.as_array().map(Vec::as_slice).unwrap_or(&[]);
            let ids: Option<Vec<i64>> = members.iter().map(|m| m.as_i64().and_then(map)).collect();
            mapped.push(json!(ids?));
        }
        out["groups"] = Value::Array(mapped);
    }
    if let Some(cut) = payload.get("cut").and_then(Value::as_array) {
        let ids: Option<Vec<i64>> = cut.iter().map(|m| m.as_i64().and_then(map)).collect();
        out["cut"] = json!(ids?);
    }
    Some(out)
}

/// A log row carried into this database's id space: target and payload mapped; `undoes`
/// still names a row of its own log.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedRow {
    pub row: DecisionRow,
    pub fingerprint: String,
}

/// A document a row names that has no counterpart here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmapped {
    pub row_id: i64,
    pub doc_id: i64,
}

/// The rows of one log (in id order) mapped through `map` into this database's id space,
/// each with its fingerprint. For this database's own log, `map` is the identity.
pub fn fingerprint_log(
    log: &[DecisionRow],
    map: &impl Fn(i64) -> Option<i64>,
) -> Result<Vec<MappedRow>, Unmapped> {
    let mut by_id: HashMap<i64, String> = HashMap::new();
    let mut occurrences: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(log.len());
    for r in log {
        let mut target = Vec::with_capacity(r.target.len());
        for &d in &r.target {
            match map(d) {
                Some(m) => target.push(m),
                None => {
                    return Err(Unmapped {
                        row_id: r.id,
                        doc_id: d,
                    })
                }
            }
        }
        let payload = match remap_payload(&r.payload, map) {
            Some(p) => p,
            None => {
                let doc_id = first_unmapped(&r.payload, map).unwrap_or_default();
                return Err(Unmapped {
                    row_id: r.id,
                    doc_id,
                });
            }
        };
        let undone = r
            .undoes
            .and_then(|u| by_id.get(&u).cloned())
            .unwrap_or_default();
        // serde_json's maps are sorted by key, so a payload's text is canonical.
        let base = json!([
            r.coder,
            r.time,
            r.action,
            set_key(&target),
            payload.to_string(),
            undone
        ])
        .to_string();
        let n = occurrences.entry(base.clone()).or_insert(0);
        *n += 1;
        let fingerprint = sha1_hex(&format!("{base}#{n}"));
        by_id.insert(r.id, fingerprint.clone());
        let mut row = r.clone();
        target.sort_unstable();
        target.dedup();
        row.target = target;
        row.payload = payload;
        out.push(MappedRow { row, fingerprint });
    }
    Ok(out)
}

fn first_unmapped(payload: &Value, map: &impl Fn(i64) -> Option<i64>) -> Option<i64> {
    let mut ids = Vec::new();
    for g in payload
        .get("groups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        ids.extend(g.as_array().into_iter().flatten().filter_map(Value::as_i64));
    }
    ids.extend(
        payload
            .get("cut")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_i64),
    );
    ids.into_iter().find(|&d| map(d).is_none())
}

fn sha1_hex(s: &str) -> String {
    let digest = Sha1::digest(s.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where an added row's `undoes` points: a row already here, or an earlier row of the same
/// plan (by its index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoTarget {
    Here(i64),
    Planned(usize),
}

/// A row a copy adds: its mapped row (with the copy's id in `row.id`), and its `undoes`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRow {
    pub row: DecisionRow,
    pub fingerprint: String,
    pub undoes: Option<UndoTarget>,
}

/// The rows of a copy's mapped log that this database lacks, in the copy's order.
/// `here` maps the fingerprints of this database's rows to their ids. Rows of the plan
/// extend `here`, so a copy that carries the same decision twice adds it once.
pub fn plan_additions(here: &HashMap<String, i64>, copy: &[MappedRow]) -> Vec<PlannedRow> {
    let fp_of: HashMap<i64, &str> = copy
        .iter()
        .map(|m| (m.row.id, m.fingerprint.as_str()))
        .collect();
    let mut planned: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<PlannedRow> = Vec::new();
    for m in copy {
        if here.contains_key(&m.fingerprint) || planned.contains_key(m.fingerprint.as_str()) {
            continue;
        }
        let undoes = m.row.undoes.and_then(|u| {
            let fp = *fp_of.get(&u)?;
            match here.get(fp) {
                Some(&id) => Some(UndoTarget::Here(id)),
                None => planned.get(fp).map(|&i| UndoTarget::Planned(i)),
            }
        });
        planned.insert(m.fingerprint.as_str(), out.len());
        out.push(PlannedRow {
            row: m.row.clone(),
            fingerprint: m.fingerprint.clone(),
            undoes,
        });
    }
    out
}

/// Two coders' different labels on one pair, as a merge reports them (a < b).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PairConflict {
    pub a: i64,
    pub b: i64,
    pub url_a: String,
    pub url_b: String,
    pub coder_a: String,
    pub label_a: String,
    pub coder_b: String,
    pub label_b: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: i64, url: &str, h: &str) -> DocIdentity {
        DocIdentity {
            id,
            url: url.into(),
            text_hash: h.into(),
        }
    }

    fn row(id: i64, coder: &str, action: &str, target: &[i64], undoes: Option<i64>) -> DecisionRow {
        DecisionRow {
            id,
            coder: coder.into(),
            time: format!("t{id}"),
            action: action.into(),
            target: target.to_vec(),
            payload: json!({}),
            previous: json!({}),
            undoes,
        }
    }

    #[test]
    fn documents_match_by_url_hash_and_order_not_by_id() {
        let here = [doc(1, "a", "x"), doc(2, "b", "y"), doc(3, "a", "x")];
        let copy = [
            doc(10, "b", "y"),
            doc(11, "a", "x"),
            doc(12, "a", "x"),
            doc(13, "a", "changed"),
        ];
        let m = map_documents(&here, &copy);
        assert_eq!(m.get(&10), Some(&2));
        assert_eq!(m.get(&11), Some(&1));
        assert_eq!(m.get(&12), Some(&3));
        assert_eq!(m.get(&13), None);
    }

    #[test]
    fn payload_ids_are_mapped_and_an_unmapped_one_is_refused() {
        let map = |i: i64| if i < 5 { Some(i + 100) } else { None };
        let p = json!({"groups": [[1, 2], [3]], "cut": [2, 3], "batch": "b"});
        assert_eq!(
            remap_payload(&p, &map),
            Some(json!({"groups": [[101, 102], [103]], "cut": [102, 103], "batch": "b"}))
        );
        assert_eq!(remap_payload(&json!({"groups": [[1, 7]]}), &map), None);
        assert_eq!(
            remap_payload(&json!({"tag": "t"}), &map),
            Some(json!({"tag": "t"}))
        );
    }

    #[test]
    fn shared_rows_are_not_added_twice_and_undo_links_are_kept() {
        let id = |i: i64| Some(i);
        // A database both copies came from: ann's row 1. Then each copy goes its own way
        // under colliding ids.
        let here_log = vec![
            row(1, "ann", "confirm", &[1, 2], None),
            row(2, "ann", "reject", &[3, 4], None),
        ];
        let copy_log = vec![
            row(1, "ann", "confirm", &[1, 2], None),
            row(2, "bob", "reject", &[1, 2], None),
            row(3, "bob", "undo", &[1, 2], Some(2)),
        ];
        let here = fingerprint_log(&here_log, &id).unwrap();
        let here_fps: HashMap<String, i64> = here
            .iter()
            .map(|m| (m.fingerprint.clone(), m.row.id))
            .collect();
        let copy = fingerprint_log(&copy_log, &id).unwrap();
        let plan = plan_additions(&here_fps, &copy);
        assert_eq!(plan.len(), 2, "{plan:?}");
        assert_eq!(plan[0].row.coder, "bob");
        assert_eq!(plan[1].undoes, Some(UndoTarget::Planned(0)));
        // Once added, nothing more to add.
        let mut after = here_fps.clone();
        for (i, p) in plan.iter().enumerate() {
            after.insert(p.fingerprint.clone(), 100 + i as i64);
        }
        assert!(plan_additions(&after, &copy).is_empty());
    }

    #[test]
    fn identical_rows_of_one_log_stay_two_decisions() {
        let log = vec![
            row(1, "ann", "confirm", &[1, 2], None),
            DecisionRow {
                id: 2,
                time: "t1".into(),
                ..row(2, "ann", "confirm", &[1, 2], None)
            },
        ];
        let f = fingerprint_log(&log, &|i| Some(i)).unwrap();
        assert_ne!(f[0].fingerprint, f[1].fingerprint);
        assert!(plan_additions(&HashMap::new(), &f).len() == 2);
    }

    #[test]
    fn a_row_naming_an_unknown_document_is_reported() {
        let log = vec![row(7, "ann", "confirm", &[1, 9], None)];
        let e = fingerprint_log(&log, &|i| (i < 5).then_some(i)).unwrap_err();
        assert_eq!(
            e,
            Unmapped {
                row_id: 7,
                doc_id: 9
            }
        );
    }
}
