//! The tables `export --format parquet|csv` writes: documents, pairs and clusters, each one
//! row per item with typed columns (see the README's export section for the columns). This
//! module gathers them from the store into [`Table`]s; `columnar` writes them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::Result;

use crate::cmd::eval::label_gold_for_store;
use crate::columnar::{Column, Table};
use crate::extract::content::site_key;
use crate::ingest::date::unix_millis;
use crate::store::Store;

/// Which table to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Docs,
    Pairs,
    Clusters,
}

impl TableKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TableKind::Docs => "docs",
            TableKind::Pairs => "pairs",
            TableKind::Clusters => "clusters",
        }
    }
}

/// The table of `kind`, with the labels of `coder` (every coder's when `None`).
pub fn table(store: &Store, kind: TableKind, coder: Option<&str>) -> Result<Table> {
    match kind {
        TableKind::Docs => docs(store, coder),
        TableKind::Pairs => pairs(store, coder),
        TableKind::Clusters => clusters(store, coder),
    }
}

/// `coder:status` of every label set, by document.
fn doc_labels(store: &Store, coder: Option<&str>) -> Result<HashMap<i64, BTreeSet<String>>> {
    let mut out: HashMap<i64, BTreeSet<String>> = HashMap::new();
    for set in store.label_sets(coder)? {
        for &m in &set.members {
            out.entry(m)
                .or_default()
                .insert(format!("{}:{}", set.coder, set.status.as_str()));
        }
    }
    Ok(out)
}

fn docs(store: &Store, coder: Option<&str>) -> Result<Table> {
    let gold = label_gold_for_store(store, coder)?;
    let cluster_of: HashMap<i64, i64> = gold
        .clusters
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.iter().map(move |&d| (d, i as i64 + 1)))
        .collect();
    let labels = doc_labels(store, coder)?;
    let (mut id, mut url, mut date, mut title, mut site) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut chars, mut dup_group, mut cluster, mut doc_labels, mut source) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut language = Vec::new();
    store.for_each_document(|d| {
        language.push(d.lang.clone());
        id.push(Some(d.id));
        site.push(Some(site_key(&d.url).to_string()));
        date.push(d.fetch_time.as_deref().and_then(unix_millis));
        url.push(Some(d.url));
        title.push(Some(d.title));
        chars.push(Some(d.chars as i64));
        dup_group.push(d.dup_group);
        cluster.push(cluster_of.get(&d.id).copied());
        doc_labels.push(
            labels
                .get(&d.id)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default(),
        );
        source.push(Some(d.source));
        Ok(())
    })?;
    let mut t = Table::default();
    t.push("id", Column::Int(id));
    t.push("url", Column::Text(url));
    t.push("date", Column::Timestamp(date));
    t.push("title", Column::Text(title));
    t.push("site", Column::Text(site));
    // The language identified on the content text (`und`: unknown); null only in a database
    // whose languages were never filled (see `Store::fill_missing_langs`).
    t.push("language", Column::Text(language));
    t.push("chars", Column::Int(chars));
    t.push("dup_group", Column::Int(dup_group));
    t.push("cluster", Column::Int(cluster));
    t.push("labels", Column::TextList(doc_labels));
    t.push("source", Column::Text(source));
    Ok(t)
}

/// The latest finished run of each method, in method-name order.
fn latest_runs(store: &Store) -> Result<BTreeMap<String, i64>> {
    let mut latest = BTreeMap::new();
    for run in store.runs()? {
        if run.finished {
            latest.insert(run.method.clone(), run.id);
        }
    }
    Ok(latest)
}

fn pairs(store: &Store, coder: Option<&str>) -> Result<Table> {
    let runs = latest_runs(store)?;
    let methods: Vec<&String> = runs.keys().collect();
    // (a, b) with a < b → one score slot per method.
    let mut scores: BTreeMap<(i64, i64), Vec<Option<f64>>> = BTreeMap::new();
    for (m, run) in runs.values().enumerate() {
        for (a, b, score) in store.run_pairs(*run)? {
            let key = (a.min(b), a.max(b));
            scores
                .entry(key)
                .or_insert_with(|| vec![None; methods.len()])[m] = Some(score);
        }
    }
    let mut labels: BTreeMap<(i64, i64), Vec<(String, String)>> = BTreeMap::new();
    for (c, a, b, label) in store.all_pair_labels()? {
        if coder.is_some_and(|want| want != c) {
            continue;
        }
        let key = (a.min(b), a.max(b));
        scores
            .entry(key)
            .or_insert_with(|| vec![None; methods.len()]);
        labels.entry(key).or_default().push((c, label));
    }
    let ids: Vec<i64> = scores
        .keys()
        .flat_map(|&(a, b)| [a, b])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let briefs = store.doc_briefs(&ids)?;
    let url = |id: i64| briefs.get(&id).map(|b| b.url.clone());
    let mut t = Table::default();
    let keys: Vec<(i64, i64)> = scores.keys().copied().collect();
    t.push(
        "id_a",
        Column::Int(keys.iter().map(|k| Some(k.0)).collect()),
    );
    t.push(
        "id_b",
        Column::Int(keys.iter().map(|k| Some(k.1)).collect()),
    );
    t.push(
        "url_a",
        Column::Text(keys.iter().map(|k| url(k.0)).collect()),
    );
    t.push(
        "url_b",
        Column::Text(keys.iter().map(|k| url(k.1)).collect()),
    );
    for (m, method) in methods.iter().enumerate() {
        t.push(
            &format!("score_{method}"),
            Column::Float(scores.values().map(|s| s[m]).collect()),
        );
    }
    // The agreed label: what every coder who labeled the pair said, else "conflict".
    let agreed = |k: &(i64, i64)| {
        let l = labels.get(k)?;
        let first = &l.first()?.1;
        Some(if l.iter().all(|(_, x)| x == first) {
            first.clone()
        } else {
            "conflict".to_string()
        })
    };
    t.push("label", Column::Text(keys.iter().map(agreed).collect()));
    t.push(
        "labels",
        Column::TextList(
            keys.iter()
                .map(|k| {
                    labels
                        .get(k)
                        .map(|l| l.iter().map(|(c, x)| format!("{c}:{x}")).collect())
                        .unwrap_or_default()
                })
                .collect(),
        ),
    );
    Ok(t)
}

fn clusters(store: &Store, coder: Option<&str>) -> Result<Table> {
    let runs = latest_runs(store)?;
    let mut by_members: HashMap<Vec<i64>, BTreeSet<String>> = HashMap::new();
    for set in store.label_sets(coder)? {
        by_members
            .entry(set.members.clone())
            .or_default()
            .insert(format!("{}:{}", set.coder, set.status.as_str()));
    }
    let (mut method, mut run_id, mut cluster, mut size, mut urls, mut labels) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for (m, &run) in &runs {
        for (i, members) in store.run_clusters(run)?.into_iter().enumerate() {
            let briefs = store.doc_briefs(&members)?;
            method.push(Some(m.clone()));
            run_id.push(Some(run));
            cluster.push(Some(i as i64 + 1));
            size.push(Some(members.len() as i64));
            urls.push(
                members
                    .iter()
                    .filter_map(|id| briefs.get(id).map(|b| b.url.clone()))
                    .collect(),
            );
            let mut sorted = members.clone();
            sorted.sort_unstable();
            labels.push(
                by_members
                    .get(&sorted)
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default(),
            );
        }
    }
    let mut t = Table::default();
    t.push("method", Column::Text(method));
    t.push("run_id", Column::Int(run_id));
    t.push("cluster", Column::Int(cluster));
    t.push("size", Column::Int(size));
    t.push("urls", Column::TextList(urls));
    t.push("labels", Column::TextList(labels));
    Ok(t)
}
