//! `spotcheck sample`: draws a stratified sample of document pairs for estimating every
//! run's precision and recall over the whole collection (`model::sample`), including pairs
//! no detector proposed: candidates are every finished run's pairs, the pairs MinHash
//! LSH finds at a low Jaccard threshold ([`CANDIDATE_THRESHOLD`]) and the pairs sharing rare
//! shingles (`detect::overlap`: copies overlapping only in part); pairs of none form the
//! random stratum. The sample is stored and queued for labeling (`spotcheck queue
//! --sample`, blind unless `--show-scores`); also the sample's labels as every reader of it
//! takes them ([`sample_labels`]).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use serde_json::json;

use crate::detect::minhash::{candidate_pairs, MinHashSettings};
use crate::detect::overlap::{overlap_pairs, MAX_DF, MIN_SHARED, SHINGLE_WORDS};
use crate::model::adjudication::{consensus, Consensus};
use crate::model::sample::{
    draw_sample, draw_with_pilot, neyman_sizes, split_strata, stratum_of, SamplePair, STRATA,
};
use crate::model::PairLabel;
use crate::review::sanitize_line;
use crate::store::{NewSample, Store};

/// The Jaccard threshold of the low-threshold candidate generator (5-word shingles on the
/// content text, 128 permutations).
pub const CANDIDATE_THRESHOLD: f64 = 0.3;

/// What `sample` draws.
#[derive(Debug, Clone)]
pub struct SampleConfig {
    pub db: PathBuf,
    /// Pairs in all (spread evenly over the strata); None: sized from `width`.
    pub size: Option<u64>,
    pub seed: u64,
    /// Target width of each stratum's 95% interval.
    pub width: f64,
    /// The coder the sample is queued for (None: anyone).
    pub coder: Option<String>,
    /// Show coders the scores (blind by default).
    pub show_scores: bool,
    /// A labeled pilot sample: the new sample holds its pairs and allocates the rest by
    /// Neyman allocation from its labels (`model::sample::neyman_allocation`).
    pub pilot: Option<i64>,
    pub json: bool,
}

/// A pair (a < b) with its best candidate score.
pub type ScoredPair = (i64, i64, f64);

/// A run's id with its pairs (a < b, sorted).
pub type RunPairs = (i64, Vec<(i64, i64)>);

/// Every candidate pair (a < b, sorted) with its best score over the finished runs and the
/// low-threshold generator, and each run's pairs.
pub fn candidates(store: &Store) -> Result<(Vec<ScoredPair>, Vec<RunPairs>)> {
    let mut best: HashMap<(i64, i64), f64> = HashMap::new();
    let mut runs = Vec::new();
    for run in store.runs()?.into_iter().filter(|r| r.finished) {
        let mut pairs = Vec::new();
        for (a, b, s) in store.run_pairs(run.id)? {
            let key = (a.min(b), a.max(b));
            if key.0 == key.1 {
                continue;
            }
            let slot = best.entry(key).or_insert(s);
            *slot = slot.max(s);
            pairs.push(key);
        }
        pairs.sort_unstable();
        pairs.dedup();
        runs.push((run.id, pairs));
    }
    let settings = MinHashSettings {
        threshold: CANDIDATE_THRESHOLD,
        ..MinHashSettings::default()
    };
    for (a, b, s) in candidate_pairs(store, &settings)? {
        let slot = best.entry((a, b)).or_insert(s);
        *slot = slot.max(s);
    }
    // Copies that overlap only in part (a story in two sites' frames): shared rare
    // shingles, scored by a Jaccard lower bound, so most land in the lowest candidate
    // stratum instead of the random one.
    for (a, b, s) in overlap_pairs(store, settings.text)? {
        let slot = best.entry((a, b)).or_insert(s);
        *slot = slot.max(s);
    }
    let mut all: Vec<(i64, i64, f64)> = best.into_iter().map(|((a, b), s)| (a, b, s)).collect();
    all.sort_by_key(|x| (x.0, x.1));
    Ok((all, runs))
}

/// Each run's pairs per stratum (by the pair's best candidate score), and those of any run
/// (run id 0) last.
pub fn run_counts(
    best: &[(i64, i64, f64)],
    runs: &[(i64, Vec<(i64, i64)>)],
) -> Vec<(i64, Vec<u64>)> {
    let score: HashMap<(i64, i64), f64> = best.iter().map(|&(a, b, s)| ((a, b), s)).collect();
    let mut any: std::collections::HashSet<(i64, i64)> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (run, pairs) in runs {
        let mut counts = vec![0u64; STRATA];
        for p in pairs {
            counts[stratum_of(score.get(p).copied())] += 1;
            any.insert(*p);
        }
        out.push((*run, counts));
    }
    let mut counts = vec![0u64; STRATA];
    for p in &any {
        counts[stratum_of(score.get(p).copied())] += 1;
    }
    out.push((0, counts));
    out
}

/// The label of each sample pair over all coders (adjudicated where an adjudicator decided;
/// see `model::adjudication`), parallel to `pairs`.
pub fn sample_labels(store: &Store, pairs: &[SamplePair]) -> Result<Vec<Consensus>> {
    let coders = store.coders()?;
    let mut out = Vec::with_capacity(pairs.len());
    for p in pairs {
        let mut labels = Vec::new();
        for c in &coders {
            if let Some(l) = store.pair_label(c, p.a, p.b)? {
                labels.push((c.clone(), PairLabel::parse(&l)));
            }
        }
        out.push(consensus(&labels));
    }
    Ok(out)
}

/// How one sample is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Draw<'a> {
    pub size: Option<u64>,
    pub width: f64,
    pub seed: u64,
    pub coder: Option<&'a str>,
    pub blind: bool,
    /// The pilot's pairs with their labels (`Some(true)`: same), for Neyman allocation.
    pub pilot: Option<&'a Pilot>,
}

/// A labeled pilot sample: its id and its pairs (a < b) with their labels (None: not
/// labeled, unsure or unresolved).
#[derive(Debug, Clone)]
pub struct Pilot {
    pub id: i64,
    pub pairs: Vec<((i64, i64), Option<bool>)>,
}

impl Pilot {
    /// The pilot's pairs and their consensus labels as `eval --sample` reads them.
    pub fn read(store: &Store, id: i64) -> Result<Pilot> {
        store.sample(id)?;
        let pairs = store.sample_pairs(id)?;
        let labels = sample_labels(store, &pairs)?;
        Ok(Pilot {
            id,
            pairs: pairs
                .iter()
                .zip(labels)
                .map(|(p, l)| {
                    let same = match l.label() {
                        Some(PairLabel::Same) => Some(true),
                        Some(PairLabel::Different) => Some(false),
                        _ => None,
                    };
                    ((p.a, p.b), same)
                })
                .collect(),
        })
    }

    /// `(drawn, labeled, same)` per stratum, by today's candidate scores.
    pub fn counts(&self, best: &[(i64, i64, f64)]) -> Vec<(u64, u64, u64)> {
        let score: HashMap<(i64, i64), f64> = best.iter().map(|&(a, b, s)| ((a, b), s)).collect();
        let mut out = vec![(0u64, 0u64, 0u64); STRATA];
        for (p, l) in &self.pairs {
            let c = &mut out[stratum_of(score.get(p).copied())];
            c.0 += 1;
            if let Some(same) = l {
                c.1 += 1;
                c.2 += u64::from(*same);
            }
        }
        out
    }
}

/// A stored sample.
#[derive(Debug, Clone)]
pub struct Drawn {
    pub id: i64,
    pub strata: Vec<crate::model::sample::Stratum>,
    pub pairs: Vec<SamplePair>,
    pub params: serde_json::Value,
}

/// Draws a sample from the candidates ([`candidates`]) and stores it with each run's pairs
/// per stratum. Candidates are computed once and reused for many seeds by the coverage study.
pub fn draw_and_store(
    store: &mut Store,
    docs: &[i64],
    best: &[(i64, i64, f64)],
    runs: &[(i64, Vec<(i64, i64)>)],
    d: &Draw,
) -> Result<Drawn> {
    let (strata, pairs) = match d.pilot {
        None => draw_sample(docs, best, d.size, d.width, d.seed),
        Some(pilot) => {
            let (_, populations) = split_strata(docs.len(), best);
            let sizes = neyman_sizes(&populations, &pilot.counts(best), d.size, d.width);
            let kept: Vec<(i64, i64)> = pilot.pairs.iter().map(|p| p.0).collect();
            draw_with_pilot(docs, best, &kept, &sizes, d.seed)
        }
    };
    let counts = run_counts(best, runs);
    let params = json!({
        "size": d.size,
        "width": if d.size.is_some() && d.pilot.is_none() { None } else { Some(d.width) },
        "allocation": if d.pilot.is_some() { "neyman" } else if d.size.is_some() { "equal" } else { "width" },
        "pilot": d.pilot.map(|p| p.id),
        "candidates": {"method": "minhash", "threshold": CANDIDATE_THRESHOLD, "pairs": best.len(),
                       "overlap": {"shingle_words": SHINGLE_WORDS, "max_df": MAX_DF, "min_shared": MIN_SHARED}},
        "runs": runs.iter().map(|r| r.0).collect::<Vec<_>>(),
    });
    let id = store.create_sample(&NewSample {
        seed: d.seed,
        params: params.clone(),
        documents: docs.len() as u64,
        blind: d.blind,
        coder: d.coder,
        strata: &strata,
        pairs: &pairs,
        run_counts: &counts,
    })?;
    Ok(Drawn {
        id,
        strata,
        pairs,
        params,
    })
}

pub fn run(a: &SampleConfig) -> Result<ExitCode> {
    if !(a.width > 0.0 && a.width <= 1.0) {
        return super::usage_error("--width must be above 0 and at most 1");
    }
    if a.size == Some(0) {
        return super::usage_error("--size must be at least 1");
    }
    let mut store = Store::open_existing(&a.db)?;
    let docs = store.document_ids()?;
    if docs.len() < 2 {
        bail!(
            "{} holds {} document(s): a sample of pairs needs two or more",
            a.db.display(),
            docs.len()
        );
    }
    let (best, runs) = candidates(&store)?;
    let pilot = a.pilot.map(|id| Pilot::read(&store, id)).transpose()?;
    if let Some(p) = &pilot {
        if !p.pairs.iter().any(|x| x.1.is_some()) {
            bail!(
                "sample {}: none of its pairs is labeled yet; label the pilot (`spotcheck queue \
                 --sample`) before allocating from it",
                p.id
            );
        }
    }
    let drawn = draw_and_store(
        &mut store,
        &docs,
        &best,
        &runs,
        &Draw {
            size: a.size,
            width: a.width,
            seed: a.seed,
            coder: a.coder.as_deref(),
            blind: !a.show_scores,
            pilot: pilot.as_ref(),
        },
    )?;
    let (id, strata, pairs, params) = (drawn.id, drawn.strata, drawn.pairs, drawn.params);
    let mut out = std::io::stdout().lock();
    if a.json {
        super::write_json_line(
            &mut out,
            &json!({
                "sample": id,
                "seed": a.seed,
                "documents": docs.len(),
                "pairs": pairs.len(),
                "params": params,
                "strata": strata,
            }),
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "sample {id}: {} pairs of {} documents (seed {}), {} candidate pairs (runs {:?}, MinHash LSH at Jaccard {CANDIDATE_THRESHOLD}, pairs sharing {MIN_SHARED}+ rare 5-word shingles)",
        pairs.len(),
        docs.len(),
        a.seed,
        best.len(),
        runs.iter().map(|r| r.0).collect::<Vec<_>>()
    )?;
    writeln!(out, "{:<24} {:>14} {:>7}", "stratum", "population", "drawn")?;
    for s in &strata {
        writeln!(out, "{:<24} {:>14} {:>7}", s.name, s.population, s.drawn)?;
    }
    writeln!(
        out,
        "label it with `spotcheck queue --db {} --sample`{}, then `spotcheck eval --db {} --sample`",
        sanitize_line(&a.db.display().to_string()),
        if a.show_scores {
            ""
        } else {
            " (blind: scores hidden)"
        },
        sanitize_line(&a.db.display().to_string()),
    )?;
    Ok(ExitCode::SUCCESS)
}
