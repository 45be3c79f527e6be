//! Detection: the method table and the one run driver every method uses.
//!
//! A method (SpotSigs, I-Match, Cooper, ANDD, …) is one module that implements
//! [`Detector`] ([`method`]): its name, its parameters (declared once, see [`params`]), which text it
//! reads, how it signs a document, how it finds pairs, how it describes a run (its summary)
//! and how it explains a pair (the spans the review highlights). [`METHODS`] lists them; the
//! command line, `--help`, the README's parameter table, validation, the stored run
//! parameters and the review's explanations are all read off that table. The driver
//! ([`driver`]) does what every method shares: stream the chosen text from the store in
//! chunks, sign them in parallel, match, store the run (parameters, pairs, clusters with their
//! weakest bridge, document signatures) and report.
//!
//! Adding a method: one new module here implementing [`Detector`] and one row in
//! [`METHODS`].

pub mod andd;
pub mod cooper;
pub mod cooper_passage;
pub mod driver;
pub mod explain;
pub mod imatch;
pub mod languages;
pub mod method;
pub mod minhash;
pub mod overlap;
pub mod params;
pub mod pipeline;
pub mod query;
pub mod shared;
pub mod sig_codec;
pub mod spotsigs;
pub mod staged;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::marker::PhantomData;

use anyhow::Result;

pub use driver::{run_with, Progress, RunReport};
pub use explain::{Highlight, HighlightKind};
pub use method::{settings_from_stored, validate, Detector, Found, InAll, PairText, RunContext};
pub use params::{Kind, Param, ParamInfo, Value};
pub use shared::Shared;

use crate::store::{Store, TextKind};

/// The method table, in the order `--method all` runs them and help and the README list them.
/// A new method is one more row.
pub static METHODS: &[&dyn Method] = &[
    &spotsigs::SpotSigs,
    &imatch::IMatch,
    &cooper::Cooper,
    &andd::Andd,
    &minhash::MinHash,
];

/// A row of the method table, without its settings type.
pub trait Method: Sync {
    fn name(&self) -> &'static str;
    fn title(&self) -> &'static str;
    fn in_all(&self) -> InAll;
    /// The parameters with their defaults as text.
    fn params(&self) -> Vec<ParamInfo>;
    /// The text it reads by default, as help writes it.
    fn default_text(&self) -> String;
    /// Applies the given flags to the defaults and validates the result.
    fn plan(&self, given: &Given) -> Result<Box<dyn PlannedRun>, String>;
    /// [`Detector::explain`] under the parameters stored with a run.
    fn explain(
        &self,
        stored: &serde_json::Value,
        pair: &PairText,
    ) -> (Vec<Highlight>, Vec<Highlight>);
    /// [`query::query_with`] under the parameters stored with a run.
    fn query(
        &self,
        run: i64,
        stored: &serde_json::Value,
        store: &Store,
        outside: &dyn Fn(TextKind) -> Result<Vec<crate::store::DocText>>,
    ) -> Result<Vec<query::QueryHit>>;
    /// The signatures `spotcheck sigs` shows of a run's documents (all, or those with the
    /// given URLs), by URL: its `run_doc_sigs` rows when it stored any, otherwise made from
    /// its index ([`Detector::doc_sigs_from_index`]).
    fn doc_sigs(
        &self,
        store: &Store,
        run: &crate::store::RunInfo,
        urls: &[String],
    ) -> Result<BTreeMap<String, Vec<serde_json::Value>>>;
}

impl<D: Detector> Method for D {
    fn name(&self) -> &'static str {
        D::NAME
    }

    fn title(&self) -> &'static str {
        D::TITLE
    }

    fn in_all(&self) -> InAll {
        D::IN_ALL
    }

    fn params(&self) -> Vec<ParamInfo> {
        let defaults = D::Settings::default();
        D::params()
            .iter()
            .map(|p| ParamInfo {
                flag: p.flag,
                value_name: p.value_name,
                kind: p.kind,
                help: p.help,
                paper: p.paper,
                default: p.default_text(&defaults),
            })
            .collect()
    }

    fn default_text(&self) -> String {
        match D::text(&mut D::Settings::default()) {
            Some(t) => text_name(*t).to_string(),
            None => D::text_unset().to_string(),
        }
    }

    fn plan(&self, given: &Given) -> Result<Box<dyn PlannedRun>, String> {
        let mut settings = D::Settings::default();
        for p in D::params() {
            if let Some(v) = given.values.get(p.flag) {
                p.kind.check(v).map_err(|e| format!("--{}: {e}", p.flag))?;
                (p.set)(&mut settings, v);
            }
        }
        if let (Some(t), Some(field)) = (given.text, D::text(&mut settings)) {
            *field = t;
        }
        validate::<D>(&settings)?;
        Ok(Box::new(Planned::<D> {
            settings,
            method: PhantomData,
        }))
    }

    fn explain(
        &self,
        stored: &serde_json::Value,
        pair: &PairText,
    ) -> (Vec<Highlight>, Vec<Highlight>) {
        D::explain(&settings_from_stored::<D::Settings>(stored), pair)
    }

    fn query(
        &self,
        run: i64,
        stored: &serde_json::Value,
        store: &Store,
        outside: &dyn Fn(TextKind) -> Result<Vec<crate::store::DocText>>,
    ) -> Result<Vec<query::QueryHit>> {
        query::query_with::<D>(run, stored, store, outside)
    }

    fn doc_sigs(
        &self,
        store: &Store,
        run: &crate::store::RunInfo,
        urls: &[String],
    ) -> Result<BTreeMap<String, Vec<serde_json::Value>>> {
        if !D::DOC_SIGS_FROM_INDEX || store.has_run_doc_sigs(run.id)? {
            return store.run_doc_sigs(run.id, urls);
        }
        let rows = store.run_signature_rows(run.id)?;
        // Only an index of every document the run signed makes its signatures (SpotSigs'
        // vectors depend on all of them); otherwise (a run stored before the index, whose
        // documents were all left unsigned) the table is read, as it shows them.
        let documents = run.summary.as_ref().and_then(|s| s["documents"].as_u64());
        if documents != Some(rows.len() as u64) {
            return store.run_doc_sigs(run.id, urls);
        }
        let bytes: Vec<&[u8]> = rows.iter().map(|(_, b)| b.as_slice()).collect();
        let Some(sigs) = D::doc_sigs_from_index(&run.params, &bytes, &store.site_families()?)
        else {
            return store.run_doc_sigs(run.id, urls);
        };
        let mut out: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        for ((url, _), sig) in rows.iter().zip(sigs) {
            if !urls.is_empty() && !urls.contains(url) {
                continue;
            }
            if let Some(v) = sig {
                out.entry(url.clone()).or_default().push(v);
            }
        }
        Ok(out)
    }
}

/// The detect flags as given on the command line, parsed and range-checked by their kinds
/// but not yet applied.
#[derive(Debug, Clone, Default)]
pub struct Given {
    /// A method's name or `all`.
    pub method: String,
    pub text: Option<TextKind>,
    /// Flag (without `--`) → value, for the flags that were given.
    pub values: BTreeMap<String, Value>,
}

/// A method with validated settings, ready to run.
pub trait PlannedRun: Send + Sync {
    fn method(&self) -> &'static str;
    /// The settings as they will be stored.
    fn settings_json(&self) -> serde_json::Value;
    /// The shared memo entry the run reads (see [`Detector::memo_key`]).
    fn memo_key(&self) -> Option<(TextKind, crate::sig::lexicon::TermOptions)>;
    /// `shared`: one per `detect` invocation, passed to each of its runs (see [`Shared`]).
    fn run(
        &self,
        store: &mut Store,
        shared: &Shared,
        progress: &dyn Fn(Progress),
    ) -> Result<RunReport>;
}

struct Planned<D: Detector> {
    settings: D::Settings,
    method: PhantomData<D>,
}

impl<D: Detector> PlannedRun for Planned<D> {
    fn method(&self) -> &'static str {
        D::NAME
    }

    fn settings_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.settings).unwrap_or_default()
    }

    fn memo_key(&self) -> Option<(TextKind, crate::sig::lexicon::TermOptions)> {
        D::memo_key(&self.settings)
    }

    fn run(
        &self,
        store: &mut Store,
        shared: &Shared,
        progress: &dyn Fn(Progress),
    ) -> Result<RunReport> {
        driver::run_detector::<D>(store, &self.settings, shared, progress)
    }
}

/// A validated `detect`: the methods to run, each with its settings. Only [`plan`] makes
/// one, so the library never sees an unchecked value.
pub struct DetectConfig {
    runs: Vec<Box<dyn PlannedRun>>,
}

impl std::fmt::Debug for DetectConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.runs.iter().map(|r| (r.method(), r.settings_json())))
            .finish()
    }
}

impl DetectConfig {
    /// The planned runs, in table order.
    pub fn runs(&self) -> &[Box<dyn PlannedRun>] {
        &self.runs
    }

    /// `--method all` with every default (what `demo` runs).
    pub fn defaults() -> DetectConfig {
        let given = Given {
            method: ALL.into(),
            ..Given::default()
        };
        // `all` without flags plans only defaults, which `every_default_is_valid` checks.
        plan(&given).unwrap_or(DetectConfig { runs: Vec::new() })
    }
}

/// The `--method` value that runs the table's default methods.
pub const ALL: &str = "all";

/// The values `--method` takes: every method's name, then `all`.
pub fn method_names() -> Vec<&'static str> {
    METHODS.iter().map(|m| m.name()).chain([ALL]).collect()
}

/// The method of this name.
pub fn method(name: &str) -> Option<&'static dyn Method> {
    METHODS.iter().copied().find(|m| m.name() == name)
}

/// The given flags → validated settings of every method to run. The error is a usage error
/// naming the flag and what is valid.
pub fn plan(given: &Given) -> Result<DetectConfig, String> {
    let chosen: Vec<&dyn Method> = if given.method == ALL {
        METHODS
            .iter()
            .copied()
            .filter(|m| match m.in_all() {
                InAll::Always => true,
                InAll::WhenGiven(flag) => given.values.contains_key(flag),
                InAll::Never => false,
            })
            .collect()
    } else {
        let m = method(&given.method).ok_or_else(|| {
            format!(
                "--method: expected one of {}, got {:?}",
                method_names().join(", "),
                given.method
            )
        })?;
        vec![m]
    };
    let runs = chosen
        .into_iter()
        .map(|m| m.plan(given))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(DetectConfig { runs })
}

/// What `--method all` runs, in words (`spotsigs, imatch, cooper; andd given --model`).
pub fn all_description() -> String {
    let always: Vec<&str> = METHODS
        .iter()
        .filter(|m| m.in_all() == InAll::Always)
        .map(|m| m.name())
        .collect();
    let mut s = always.join(", ");
    for m in METHODS {
        if let InAll::WhenGiven(flag) = m.in_all() {
            let _ = write!(s, "; {} too given --{flag}", m.name());
        }
    }
    s
}

/// The default text of every method, as `--text`'s help says it.
pub fn default_texts() -> String {
    METHODS
        .iter()
        .map(|m| format!("{}: {}", m.title(), m.default_text()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The README's parameter table (between `<!-- detect-params:start -->` and
/// `<!-- detect-params:end -->`; a test keeps the two equal).
pub fn params_markdown() -> String {
    use params::md_cell;
    let mut s =
        String::from("| option | method | default | paper | meaning |\n|---|---|---|---|---|\n");
    let _ = writeln!(
        s,
        "| `--method {}` | | all | | which detectors run; `all`: {} |",
        md_cell(&method_names().join("|")),
        md_cell(&all_description())
    );
    let _ = writeln!(
        s,
        "| `--text visible\\|main\\|content` | all | {} | | the stored text the detectors read |",
        md_cell(&default_texts())
    );
    for m in METHODS {
        for p in m.params() {
            let range = match p.kind {
                Kind::Switch | Kind::File => String::new(),
                k => format!(" (valid: {})", k.range()),
            };
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} | {}{} |",
                md_cell(&p.usage()),
                m.title(),
                md_cell(&p.default),
                md_cell(p.paper.unwrap_or("")),
                md_cell(p.help),
                md_cell(&range)
            );
        }
    }
    s
}

pub use crate::learn::corpus::text_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_unique_across_the_table() {
        let mut seen = std::collections::HashSet::new();
        for reserved in ["db", "method", "text", "json"] {
            seen.insert(reserved);
        }
        for m in METHODS {
            for p in m.params() {
                assert!(seen.insert(p.flag), "--{} declared twice", p.flag);
            }
        }
    }

    #[test]
    fn every_default_is_valid() {
        let d = DetectConfig::defaults();
        let names: Vec<&str> = d.runs().iter().map(|r| r.method()).collect();
        assert_eq!(names, ["spotsigs", "imatch", "cooper"]);
    }

    #[test]
    fn out_of_range_values_name_the_flag() {
        let given = |flag: &str, v: Value| Given {
            method: ALL.into(),
            values: [(flag.to_string(), v)].into_iter().collect(),
            ..Given::default()
        };
        let e = plan(&given("min-agree", Value::Int(32))).unwrap_err();
        assert!(e.contains("--min-agree"), "{e}");
        let e = plan(&Given {
            method: "andd".into(),
            ..Given::default()
        })
        .unwrap_err();
        assert!(e.contains("--model"), "{e}");
        let e = plan(&given("lsh-bands", Value::Int(4))).unwrap();
        assert_eq!(e.runs().len(), 3, "ANDD is not run without --model");
    }
}

#[cfg(test)]
mod stored_signatures {
    use std::collections::BTreeMap;
    use std::time::Instant;

    use super::method::{Detector, RunContext};
    use super::shared::Shared;
    use super::{cooper, driver, imatch, spotsigs, METHODS};
    use crate::store::Store;

    /// Near-duplicate pairs of texts of a few dozen words, from a fixed generator.
    fn store_with_copies(dir: &std::path::Path) -> Store {
        let mut s = Store::open(&dir.join("s.db")).unwrap();
        let words: Vec<String> = (0..120).map(|i| format!("word{i}")).collect();
        let glue = ["the", "a", "is", "was", "can", "will", "have"];
        let mut x: u64 = 7;
        let mut next = |n: usize| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) as usize % n
        };
        for doc in 0..8 {
            let text: Vec<String> = (0..90)
                .map(|i| match i % 3 {
                    0 => glue[next(glue.len())].to_string(),
                    _ => words[next(words.len())].clone(),
                })
                .collect();
            let mut copy = text.clone();
            copy[40] = "edited".into();
            for (k, t) in [text, copy].iter().enumerate() {
                s.insert_test_document(
                    &format!("http://site{}.example/{doc}/{k}", doc % 3),
                    "",
                    &t.join(" "),
                    None,
                )
                .unwrap();
            }
        }
        s
    }

    /// A run stores no `run_doc_sigs` rows, and `sigs` makes from its index what the
    /// run's `doc_sig` gave each document.
    fn check<D: Detector>(store: &mut Store, settings: &D::Settings) -> usize {
        let report = driver::run_with::<D>(store, settings).unwrap();
        assert!(!store.has_run_doc_sigs(report.run).unwrap(), "{}", D::NAME);
        let prepared = D::prepare(settings, store, &Shared::default()).unwrap();
        let sign = D::signer(&prepared);
        let (mut ids, mut sigs) = (Vec::new(), Vec::new());
        store
            .for_each_text_chunk(D::reads(&prepared), 5, |chunk| {
                let mut signed: Vec<D::Sig> = chunk.iter().map(&sign).collect();
                D::keep(&prepared, &mut signed);
                ids.extend(chunk.iter().map(|d| d.id));
                sigs.extend(signed);
                Ok(())
            })
            .unwrap();
        drop(sign);
        let found = D::find_pairs(
            prepared,
            sigs,
            &RunContext {
                store,
                ids: &ids,
                started: Instant::now(),
                sites: &Default::default(),
            },
        )
        .unwrap();
        let urls: BTreeMap<i64, String> = store
            .url_ids()
            .unwrap()
            .into_iter()
            .map(|(u, id)| (id, u))
            .collect();
        let want: BTreeMap<String, Vec<serde_json::Value>> = ids
            .iter()
            .enumerate()
            .filter_map(|(i, id)| Some((urls[id].clone(), vec![(found.doc_sig)(i)?])))
            .collect();
        let run = store.resolve_run(D::NAME, Some(report.run)).unwrap();
        let method = METHODS.iter().find(|m| m.name() == D::NAME).unwrap();
        assert_eq!(
            method.doc_sigs(store, &run, &[]).unwrap(),
            want,
            "{}",
            D::NAME
        );
        // One document asked for by URL.
        let one = urls[&ids[1]].clone();
        let got = method
            .doc_sigs(store, &run, std::slice::from_ref(&one))
            .unwrap();
        assert_eq!(got.get(&one), want.get(&one), "{}", D::NAME);
        want.len()
    }

    /// Runs of older versions show the `run_doc_sigs` rows they stored, beside an index or
    /// without one.
    #[test]
    fn an_older_runs_stored_document_signatures_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_copies(dir.path());
        let urls = store.url_ids().unwrap();
        let method = METHODS.iter().find(|m| m.name() == "cooper").unwrap();
        let sig = serde_json::json!({"salient_terms": 2, "sum_signature": -5});
        for with_index in [false, true] {
            let run = store.create_run("cooper", &serde_json::json!({})).unwrap();
            store
                .write_run_doc_sigs(run, [(urls[0].1, sig.clone())])
                .unwrap();
            if with_index {
                let old = br#"[12,["alpha","bravo"]]"#.to_vec();
                store
                    .write_run_signatures(run, urls.iter().map(|&(_, id)| (id, old.clone())))
                    .unwrap();
            }
            store
                .finish_run(run, &serde_json::json!({"documents": urls.len()}))
                .unwrap();
            let run = store.resolve_run("cooper", Some(run)).unwrap();
            let got = method.doc_sigs(&store, &run, &[]).unwrap();
            let want: BTreeMap<String, Vec<serde_json::Value>> =
                [(urls[0].0.clone(), vec![sig.clone()])]
                    .into_iter()
                    .collect();
            assert_eq!(got, want, "with an index: {with_index}");
        }
    }

    #[test]
    fn sigs_made_from_the_index_are_the_runs_document_signatures() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_copies(dir.path());
        let spot = spotsigs::SpotSigsSettings {
            text: crate::store::TextKind::Visible,
            ..Default::default()
        };
        assert!(check::<spotsigs::SpotSigs>(&mut store, &spot) > 0);
        check::<imatch::IMatch>(&mut store, &imatch::IMatchSettings::default());
        let coop = cooper::CooperSettings {
            text: crate::store::TextKind::Visible,
            ..Default::default()
        };
        assert!(check::<cooper::Cooper>(&mut store, &coop) > 0);
    }
}

#[cfg(test)]
mod readme {
    /// The README's parameter table is [`super::params_markdown`]; run with
    /// `SPOTCHECK_UPDATE_README=1` to rewrite it.
    #[test]
    fn the_readme_parameter_table_is_the_declared_one() {
        const START: &str = "<!-- detect-params:start -->\n";
        const END: &str = "<!-- detect-params:end -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let table = super::params_markdown();
        let start = readme
            .find(START)
            .expect("README parameter table start marker")
            + START.len();
        let end = readme.find(END).expect("README parameter table end marker");
        let current = &readme[start..end];
        if current != table && std::env::var("SPOTCHECK_UPDATE_README").as_deref() == Ok("1") {
            std::fs::write(
                path,
                format!("{}{table}{}", &readme[..start], &readme[end..]),
            )
            .unwrap();
            return;
        }
        assert!(
            current == table,
            "README.md's detect parameter table is out of date: run this test with \
             SPOTCHECK_UPDATE_README=1"
        );
    }
}
