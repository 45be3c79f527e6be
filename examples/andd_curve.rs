//! ANDD's learning curve across families (issue 20): a scripted coder (`review::oracle`)
//! labels the clusters the default detectors propose inside one family, from that family's
//! gold, through the store calls the workbench makes; the training pairs come from those
//! labels (`learn::pairs`, as `spotcheck train` reads them) and the model is fitted as
//! `spotcheck train` fits it (`learn::robust::fit`: mined hard negatives, edited-copy
//! positives); it is then evaluated on another family it never saw,
//! against that family's gold: Max-F1 over pairs (the ANDD paper's metric) and F1 at the
//! model's own threshold, beside SpotSigs, I-Match and Cooper (today's defaults) and
//! untrained TF·IDF cosine on the same held-out family.
//!
//! The curve: 10, 20, 30, 60, 120 labeled documents (`--sizes`), each with `--seeds` seeds,
//! in two labeling orders — `queue` (the review queue's default order, largest first; the
//! seed varies the training's sampling and augmentation) and `random` (the same clusters in
//! a seeded random order: other labels per seed). Every variant (`--variants`) is trained
//! on the same labels: `full` (`train`'s defaults: mined negatives, edited copies, α = 1),
//! `labels` (the labels alone: the session-3 training), one ablation per addition
//! (`no-mined`, `no-edited`) and `cv` (the defaults with α chosen by `--l2-cv`). The
//! training side's own cross-validation (`learn::robust::cross_validate`: folds by labeled
//! cluster) is reported next to the held-out numbers: it is what a choice between variants
//! may look at.
//!
//! Families: `prefix:P` (or just `P`) = the gold rows whose URL starts with `P/` (a
//! debian-docs package); `stories:even` / `stories:odd` = the gold clusters in even / odd
//! position of the gold file's sorted cluster names (the news corpus: no story on both
//! sides).
//!
//! Run (the database is a scratch copy or a fresh ingest: runs and labels are written in):
//! ```text
//! spotcheck ingest --db /tmp/ci.db ~/.cache/spotcheck/ci-dd/html
//! cargo run --release --example andd_curve -- /tmp/ci.db ~/.cache/spotcheck/ci-dd/gold.tsv \
//!     qtbase5-doc-html linux-doc-6.1 [--sizes 10,20,30,60,120] [--seeds 5] [--k 1] \
//!     [--jaccard] [--text content|main|visible] [--orders queue,random] \
//!     [--variants full,labels,no-mined,no-edited,cv] [--no-cv-report]
//! ```
//! Prints Markdown tables on stdout, progress on stderr.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use spotcheck::cluster::andd_matcher::{match_pairs, Candidates};
use spotcheck::cmd::eval::{gold_for_store, read_gold_file};
use spotcheck::cmd::train::{collection_terms, weighted_pairs};
use spotcheck::detect::cooper::{Cooper, CooperSettings};
use spotcheck::detect::imatch::{IMatch, IMatchSettings};
use spotcheck::detect::run_with;
use spotcheck::detect::spotsigs::{SpotSigs, SpotSigsSettings};
use spotcheck::learn::andd::{prior, TrainOptions, TrainPair};
use spotcheck::learn::corpus::text_kind_of;
use spotcheck::learn::metrics::Gold;
use spotcheck::learn::pairs::{training_pairs, PairOptions};
use spotcheck::learn::robust::{cross_validate, fit, FitOptions, Fitted, RobustOptions, CV_FOLDS};
use spotcheck::learn::shrink::{shrink_to_collection, Shrunk};
use spotcheck::learn::threshold::{collection_threshold, COLLECTION_FLOOR};
use spotcheck::review::oracle::{Oracle, OracleOptions};
use spotcheck::sig::andd::{
    features, weigh, DocFeatures, DocFreqs, DocTerms, Similarity, SparseVec, DEFAULT_MIN_KGRAMS,
};
use spotcheck::store::Store;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// ANDD and TF·IDF pairs below this similarity are not listed for Max-F1.
const FLOOR: f64 = 0.5;

/// SpotSigs pairs are listed down to this Jaccard for its Max-F1.
const SPOT_FLOOR: f64 = 0.5;

struct Args {
    db: PathBuf,
    gold: PathBuf,
    train_family: String,
    test_family: String,
    sizes: Vec<usize>,
    seeds: u64,
    k: usize,
    similarity: Similarity,
    text: String,
    orders: Vec<String>,
    variants: Vec<String>,
    cv_report: bool,
    /// Write the scored pairs (≥ 0.3) of both families, the model's threshold and λ, for
    /// every variant, order, size and seed here.
    dump: Option<PathBuf>,
}

fn list(s: &str) -> Vec<String> {
    s.split(',').map(str::to_string).collect()
}

fn args() -> Res<Args> {
    let v: Vec<String> = std::env::args().skip(1).collect();
    if v.len() < 4 {
        return Err("usage: andd_curve DB GOLD.tsv TRAIN_FAMILY TEST_FAMILY \
                    [--sizes 10,20,30,60,120] [--seeds 5] [--k 1|3] [--jaccard] \
                    [--text content] [--orders queue,random] \
                    [--variants full,labels,no-mined,no-edited,cv] [--no-cv-report]"
            .into());
    }
    let mut a = Args {
        db: PathBuf::from(&v[0]),
        gold: PathBuf::from(&v[1]),
        train_family: v[2].clone(),
        test_family: v[3].clone(),
        sizes: vec![10, 20, 30, 60, 120],
        seeds: 5,
        k: 1,
        similarity: Similarity::Cosine,
        text: "content".into(),
        orders: list("queue,random"),
        variants: list("full,labels,no-mined,no-edited,cv"),
        cv_report: true,
        dump: None,
    };
    let mut i = 4;
    while i < v.len() {
        let val = || v.get(i + 1).cloned().ok_or("missing value");
        match v[i].as_str() {
            "--sizes" => {
                a.sizes = val()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
                i += 1;
            }
            "--seeds" => {
                a.seeds = val()?.parse()?;
                i += 1;
            }
            "--k" => {
                a.k = val()?.parse()?;
                i += 1;
            }
            "--text" => {
                a.text = val()?;
                i += 1;
            }
            "--orders" => {
                a.orders = list(&val()?);
                i += 1;
            }
            "--variants" => {
                a.variants = list(&val()?);
                i += 1;
            }
            "--jaccard" => a.similarity = Similarity::Jaccard,
            "--no-cv-report" => a.cv_report = false,
            "--dump" => {
                a.dump = Some(PathBuf::from(val()?));
                i += 1;
            }
            other => return Err(format!("unknown option {other}").into()),
        }
        i += 1;
    }
    Ok(a)
}

/// The fit options of a variant.
fn variant(name: &str, base: &TrainOptions) -> Res<FitOptions> {
    let full = FitOptions {
        train: base.clone(),
        ..FitOptions::default()
    };
    Ok(match name {
        "full" => full,
        "labels" => FitOptions {
            robust: RobustOptions::off(),
            l2_cv: false,
            ..full
        },
        "no-mined" => FitOptions {
            robust: RobustOptions {
                mined_per_positive: 0.0,
                ..full.robust.clone()
            },
            ..full
        },
        "no-edited" => FitOptions {
            robust: RobustOptions {
                edited_per_document: 0,
                ..full.robust.clone()
            },
            ..full
        },
        "cv" => FitOptions {
            l2_cv: true,
            ..full
        },
        other => return Err(format!("unknown variant {other}").into()),
    })
}

/// A family's gold rows.
fn family_rows(rows: &[(String, String)], spec: &str) -> Res<Vec<(String, String)>> {
    if let Some(parity) = spec.strip_prefix("stories:") {
        let want = match parity {
            "even" => 0,
            "odd" => 1,
            _ => return Err(format!("stories:even or stories:odd, not {spec}").into()),
        };
        let names: BTreeSet<&str> = rows.iter().map(|r| r.1.as_str()).collect();
        let keep: HashSet<&str> = names
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == want)
            .map(|(_, n)| n)
            .collect();
        return Ok(rows
            .iter()
            .filter(|r| keep.contains(r.1.as_str()))
            .cloned()
            .collect());
    }
    let p = format!("{}/", spec.strip_prefix("prefix:").unwrap_or(spec));
    Ok(rows
        .iter()
        .filter(|r| r.0.starts_with(&p))
        .cloned()
        .collect())
}

/// Document k-gram statistics and features of one family, computed once (DF over the
/// whole collection, as `spotcheck train` and `detect` do).
struct Family {
    ids: Vec<i64>,
    slot: HashMap<i64, usize>,
    terms: Vec<DocTerms>,
    feats: Vec<DocFeatures>,
}

fn family(dfs: &DocFreqs, terms: &HashMap<i64, DocTerms>, ids: &HashSet<i64>) -> Family {
    let mut ids: Vec<i64> = ids
        .iter()
        .copied()
        .filter(|d| terms.contains_key(d))
        .collect();
    ids.sort_unstable();
    let slot = ids.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    let terms: Vec<DocTerms> = ids.iter().map(|d| terms[d].clone()).collect();
    let feats = terms.iter().map(|t| features(t, dfs)).collect();
    Family {
        ids,
        slot,
        terms,
        feats,
    }
}

/// (threshold, precision, recall, F1).
type Best = Option<(f64, f64, f64, f64)>;

/// Every pair of a family with similarity ≥ `floor` under λ (document ids), with the
/// same stub rule as `detect`.
fn scored_pairs(fam: &Family, lambda: &[f64], sim: Similarity, floor: f64) -> Vec<(i64, i64, f64)> {
    // The same stub rule as `detect`: too few distinct k-grams in the text, not matched.
    let vecs: Vec<SparseVec> = fam
        .feats
        .iter()
        .map(|f| {
            if f.len() < DEFAULT_MIN_KGRAMS {
                SparseVec::default()
            } else {
                weigh(f, lambda)
            }
        })
        .collect();
    let (pairs, _) = match_pairs(&vecs, sim, floor, Candidates::Index);
    pairs
        .iter()
        .map(|&(a, b, s)| (fam.ids[a as usize], fam.ids[b as usize], s))
        .collect()
}

/// Max-F1 of scored pairs against the gold, and F1 at `threshold`.
fn evaluate_scored(scored: &[(i64, i64, f64)], gold: &Gold, threshold: f64) -> (Best, f64) {
    let m = gold
        .max_f1(scored)
        .map(|(t, s)| (t, s.precision, s.recall, s.f1));
    let at = gold
        .score_pairs(
            scored
                .iter()
                .filter(|p| p.2 >= threshold)
                .map(|p| (p.0, p.1)),
        )
        .f1;
    (m, at)
}

/// Max-F1 of λ on a family against its gold, and F1 at `threshold`.
fn evaluate(
    fam: &Family,
    gold: &Gold,
    lambda: &[f64],
    sim: Similarity,
    threshold: f64,
) -> (Best, f64) {
    let scored = scored_pairs(fam, lambda, sim, FLOOR.min(threshold));
    evaluate_scored(&scored, gold, threshold)
}

/// A model on one family: Max-F1, F1 at the model's threshold, and the collection
/// threshold `detect` chooses on the family's own pairs with its F1.
#[derive(Debug, Clone, Copy, Default)]
struct Scores {
    max_f1: Best,
    at_model: f64,
    collection: f64,
    at_collection: f64,
}

fn evaluate_all(fam: &Family, gold: &Gold, lambda: &[f64], sim: Similarity, model: f64) -> Scores {
    let floor = FLOOR.min(COLLECTION_FLOOR).min(model);
    let scored = scored_pairs(fam, lambda, sim, floor);
    let (max_f1, at_model) = evaluate_scored(&scored, gold, model);
    let s: Vec<f64> = scored.iter().map(|p| p.2).collect();
    let collection = collection_threshold(&s, COLLECTION_FLOOR).map_or(model, |f| f.threshold);
    let (_, at_collection) = evaluate_scored(&scored, gold, collection);
    Scores {
        max_f1,
        at_model,
        collection,
        at_collection,
    }
}

/// Writes `score\tsame\tdoc_a\tdoc_b` of every pair ≥ the collection floor of a family to `path`.
fn dump(
    path: &std::path::Path,
    fam: &Family,
    gold: &Gold,
    lambda: &[f64],
    sim: Similarity,
) -> Res<()> {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for (a, b, s) in scored_pairs(fam, lambda, sim, COLLECTION_FLOOR) {
        writeln!(f, "{s}\t{}\t{a}\t{b}", u8::from(gold.same_cluster(a, b)))?;
    }
    Ok(())
}

fn fmt(m: Best) -> String {
    match m {
        Some((t, p, r, f)) => format!("{f:.3} | {p:.3} | {r:.3} | {t:.3}"),
        None => "– | – | – | –".into(),
    }
}

/// The labeled pairs of `coder` as indices into the family (as `spotcheck train` reads them).
fn labeled_pairs(
    store: &Store,
    fam: &Family,
    coder: &str,
    seed: u64,
) -> Res<(Vec<TrainPair>, usize)> {
    let set = training_pairs(
        store,
        &PairOptions {
            coder: Some(coder.to_string()),
            seed,
            test_fraction: 0.0,
            ..PairOptions::default()
        },
    )?;
    let pairs: Vec<TrainPair> = weighted_pairs(&set)
        .into_iter()
        .filter_map(|(a, b, same, weight)| {
            Some(TrainPair {
                a: *fam.slot.get(&a)?,
                b: *fam.slot.get(&b)?,
                same,
                weight,
            })
        })
        .collect();
    Ok((pairs, set.counts.documents as usize))
}

fn ids_of(store: &Store, rows: &[(String, String)]) -> Res<HashSet<i64>> {
    let urls: HashSet<&str> = rows.iter().map(|(u, _)| u.as_str()).collect();
    Ok(store
        .url_ids()?
        .into_iter()
        .filter(|(u, _)| urls.contains(u.as_str()))
        .map(|(_, id)| id)
        .collect())
}

/// One trained model of the curve.
struct Row {
    variant: String,
    order: String,
    size: usize,
    documents: usize,
    fitted: Fitted,
    max_f1: Best,
    at_threshold: f64,
    /// Held out: the collection threshold and F1 at it.
    held: Scores,
    /// The training family itself (its gold): the training-side evidence for the rule.
    own: Scores,
    /// λ shrunk for the held-out family (`learn::shrink`) and its scores there (the same
    /// as `held` when t = 1).
    shrunk: Shrunk,
    held_shrunk: Scores,
    /// λ shrunk for the training family and its scores there.
    own_t: f64,
    own_shrunk: Scores,
    cv_max_f1: f64,
    cv_at_threshold: f64,
    secs: f64,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// The rows of one table cell: one variant, order and number of labeled documents.
fn cell<'a>(out: &'a [Row], variant: &str, order: &str, size: usize) -> Vec<&'a Row> {
    out.iter()
        .filter(|r| r.variant == variant && r.order == order && r.size == size)
        .collect()
}

/// A cell's value over its seeds: "mean (min–max)".
fn span(g: &[&Row], h: &dyn Fn(&Row) -> f64) -> String {
    let x: Vec<f64> = g.iter().map(|r| h(r)).collect();
    format!("{:.3} ({:.3}–{:.3})", mean(&x), min(&x), max(&x))
}

fn main() -> Res<()> {
    let a = args()?;
    let started = Instant::now();
    let mut store = Store::open_existing(&a.db)?;
    let rows = read_gold_file(&a.gold)?;
    let train_rows = family_rows(&rows, &a.train_family)?;
    let test_rows = family_rows(&rows, &a.test_family)?;
    let (test_gold, _) = gold_for_store(&store, &test_rows)?;
    let (train_gold, _) = gold_for_store(&store, &train_rows)?;
    let train_ids = ids_of(&store, &train_rows)?;
    let test_ids = ids_of(&store, &test_rows)?;
    if !train_ids.is_disjoint(&test_ids) {
        return Err("the two families share documents".into());
    }
    eprintln!(
        "{}: {} documents (train); {}: {} documents, {} gold pairs (held out)",
        a.train_family,
        train_ids.len(),
        a.test_family,
        test_ids.len(),
        test_gold.pair_count()
    );

    // Baselines on the held-out family: SpotSigs down to τ = SPOT_FLOOR for its Max-F1 and
    // plain I-Match; then the default detectors a coder reviews before any model exists,
    // run last so that they are the latest runs the review queue shows.
    let spot_low = run_with::<SpotSigs>(
        &mut store,
        &SpotSigsSettings {
            tau: SPOT_FLOOR,
            ..SpotSigsSettings::default()
        },
    )?;
    let imatch0 = run_with::<IMatch>(
        &mut store,
        &IMatchSettings {
            bags: 0,
            ..IMatchSettings::default()
        },
    )?;
    let spot = run_with::<SpotSigs>(&mut store, &SpotSigsSettings::default())?;
    let imatch = run_with::<IMatch>(&mut store, &IMatchSettings::default())?;
    let cooper = run_with::<Cooper>(&mut store, &CooperSettings::default())?;
    eprintln!("{}\n{}\n{}", spot.line(), imatch.line(), cooper.line());
    let run_max_f1 = |run: i64| -> Res<Best> {
        Ok(test_gold
            .max_f1(&store.run_pairs(run)?)
            .map(|(t, s)| (t, s.precision, s.recall, s.f1)))
    };
    let run_f1 = |run: i64| -> Res<f64> {
        Ok(test_gold
            .score_pairs(store.run_pairs(run)?.iter().map(|p| (p.0, p.1)))
            .f1)
    };
    let baselines = [
        (
            "SpotSigs (defaults)",
            run_max_f1(spot.run)?,
            run_f1(spot.run)?,
        ),
        (
            "SpotSigs (pairs ≥ 0.5, for Max-F1)",
            run_max_f1(spot_low.run)?,
            f64::NAN,
        ),
        (
            "I-Match (defaults, bags)",
            run_max_f1(imatch.run)?,
            run_f1(imatch.run)?,
        ),
        (
            "I-Match (K = 0)",
            run_max_f1(imatch0.run)?,
            run_f1(imatch0.run)?,
        ),
        (
            "Cooper (defaults)",
            run_max_f1(cooper.run)?,
            run_f1(cooper.run)?,
        ),
    ];
    // The best default detector: the best F1 of a default run at its own defaults, and
    // the best Max-F1 of any of them (thresholds tuned on the held-out gold).
    let best_default_f1 = [0, 2, 4]
        .iter()
        .map(|&i| baselines[i].2)
        .fold(0.0, f64::max);
    let best_default_max = [0, 1, 2, 4]
        .iter()
        .map(|&i| baselines[i].1.map_or(0.0, |m| m.3))
        .fold(0.0, f64::max);

    // Features of both families, one pass over the collection.
    let t0 = Instant::now();
    let keep: HashSet<i64> = train_ids.union(&test_ids).copied().collect();
    let (dfs, terms) = collection_terms(&store, text_kind_of(&a.text), a.k, &keep)?;
    let train_fam = family(&dfs, &terms, &train_ids);
    let test_fam = family(&dfs, &terms, &test_ids);
    drop(terms);
    eprintln!("features in {:.1}s", t0.elapsed().as_secs_f64());
    let base = TrainOptions {
        k: a.k,
        similarity: a.similarity,
        ..TrainOptions::default()
    };
    let (tfidf, _) = evaluate(&test_fam, &test_gold, &prior(a.k), a.similarity, 1.0);

    let proposed: Vec<Vec<i64>> = [spot.run, imatch.run, cooper.run]
        .iter()
        .map(|&r| store.run_clusters(r))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    let prefix = (!a.train_family.starts_with("stories:")).then(|| {
        format!(
            "{}/",
            a.train_family
                .strip_prefix("prefix:")
                .unwrap_or(&a.train_family)
        )
    });
    let mut out: Vec<Row> = Vec::new();
    for order in &a.orders {
        for &n in &a.sizes {
            for seed in 0..a.seeds {
                let coder = format!("curve-{}-{order}-{n}-s{seed}", a.train_family);
                let mut oracle = Oracle::new(&store, &train_rows, &coder)?;
                let mut oo = OracleOptions {
                    url_prefix: prefix.clone(),
                    max_documents: Some(n),
                    ..OracleOptions::default()
                };
                // Queue order is one labeling; label it once and reuse it for every seed.
                let label_coder = if order == "queue" {
                    format!("curve-{}-queue-{n}", a.train_family)
                } else {
                    coder.clone()
                };
                if order == "queue" {
                    if seed == 0 {
                        let mut o = Oracle::new(&store, &train_rows, &label_coder)?;
                        o.label_queue(&mut store, &oo)?;
                    }
                } else {
                    oo.seed = Some(1000 + seed);
                    oracle.label_sets(&mut store, proposed.clone(), &oo)?;
                }
                let train_seed = base.seed ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let (pairs, documents) =
                    labeled_pairs(&store, &train_fam, &label_coder, train_seed)?;
                for v in &a.variants {
                    let mut fo = variant(v, &base)?;
                    fo.train.seed = train_seed;
                    let t = Instant::now();
                    let fitted = match fit(
                        &train_fam.terms,
                        &dfs,
                        train_fam.feats.clone(),
                        pairs.clone(),
                        &fo,
                        &a.text,
                        |_, _| {},
                    ) {
                        Ok(f) => f,
                        Err(e) => {
                            eprintln!("{coder} {v}: {e}");
                            continue;
                        }
                    };
                    let secs = t.elapsed().as_secs_f64();
                    let cv = if a.cv_report {
                        cross_validate(
                            &train_fam.terms,
                            &dfs,
                            &train_fam.feats,
                            &pairs,
                            &fo,
                            CV_FOLDS,
                        )?
                    } else {
                        Default::default()
                    };
                    let held = evaluate_all(
                        &test_fam,
                        &test_gold,
                        &fitted.model.lambda,
                        a.similarity,
                        fitted.model.threshold,
                    );
                    let own = evaluate_all(
                        &train_fam,
                        &train_gold,
                        &fitted.model.lambda,
                        a.similarity,
                        fitted.model.threshold,
                    );
                    // λ shrunk for the collection it meets (what `detect` does), on each
                    // family alone.
                    let l0 = prior(a.k);
                    let shrunk = shrink_to_collection(
                        &test_fam.feats,
                        &fitted.model.lambda,
                        &l0,
                        DEFAULT_MIN_KGRAMS,
                    );
                    let held_shrunk = if shrunk.t < 1.0 {
                        evaluate_all(
                            &test_fam,
                            &test_gold,
                            &shrunk.lambda,
                            a.similarity,
                            fitted.model.threshold,
                        )
                    } else {
                        held
                    };
                    let own_s = shrink_to_collection(
                        &train_fam.feats,
                        &fitted.model.lambda,
                        &l0,
                        DEFAULT_MIN_KGRAMS,
                    );
                    let own_shrunk = if own_s.t < 1.0 {
                        evaluate_all(
                            &train_fam,
                            &train_gold,
                            &own_s.lambda,
                            a.similarity,
                            fitted.model.threshold,
                        )
                    } else {
                        own
                    };
                    eprintln!(
                        "{coder} {v}: shrunk for the held-out family t {} (emptied {} learned, \
                         {} TF·IDF, {} chosen, of {}): Max-F1 {:.3}, collection threshold {:.4} \
                         F1 {:.3}; for the training family t {} (emptied {}): Max-F1 {:.3}, \
                         collection F1 {:.3}",
                        shrunk.t,
                        shrunk.emptied,
                        shrunk.emptied_prior,
                        shrunk.emptied_chosen,
                        shrunk.checked,
                        held_shrunk.max_f1.map_or(0.0, |x| x.3),
                        held_shrunk.collection,
                        held_shrunk.at_collection,
                        own_s.t,
                        own_s.emptied,
                        own_shrunk.max_f1.map_or(0.0, |x| x.3),
                        own_shrunk.at_collection,
                    );
                    let (m, at) = (held.max_f1, held.at_model);
                    if let Some(dir) = &a.dump {
                        std::fs::create_dir_all(dir)?;
                        let l = &fitted.model.lambda;
                        let tag = format!("{v}-{order}-{n}-s{seed}");
                        dump(
                            &dir.join(format!("train-{tag}.tsv")),
                            &train_fam,
                            &train_gold,
                            l,
                            a.similarity,
                        )?;
                        dump(
                            &dir.join(format!("test-{tag}.tsv")),
                            &test_fam,
                            &test_gold,
                            l,
                            a.similarity,
                        )?;
                        std::fs::write(
                            dir.join(format!("threshold-{tag}.txt")),
                            format!(
                                "{}\n{}\n",
                                fitted.model.threshold,
                                fitted
                                    .model
                                    .features
                                    .iter()
                                    .zip(l)
                                    .map(|(f, x)| format!("{f}={x:.4}"))
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            ),
                        )?;
                    }
                    let tr = &fitted.model.training;
                    eprintln!(
                        "{coder} {v}: {documents} documents, {}+/{}− pairs (mined {}, edited {}), \
                         α {}, {} iterations in {secs:.1}s, threshold {:.4}; training CV Max-F1 \
                         {:.3} (at threshold {:.3}, {} folds); held-out Max-F1 {}, F1 at threshold \
                         {at:.3}, collection threshold {:.4} F1 {:.3}; own family Max-F1 {:.3} F1 \
                         at model threshold {:.3}, collection threshold {:.4} F1 {:.3}",
                        tr.positive_pairs,
                        tr.negative_pairs,
                        tr.mined_negatives,
                        tr.edited_positives,
                        fitted.model.l2,
                        tr.iterations,
                        fitted.model.threshold,
                        cv.max_f1,
                        cv.f1_at_threshold,
                        cv.folds,
                        fmt(m),
                        held.collection,
                        held.at_collection,
                        own.max_f1.map_or(0.0, |x| x.3),
                        own.at_model,
                        own.collection,
                        own.at_collection,
                    );
                    out.push(Row {
                        variant: v.clone(),
                        order: order.clone(),
                        size: n,
                        documents,
                        fitted,
                        max_f1: m,
                        at_threshold: at,
                        held,
                        own,
                        shrunk,
                        held_shrunk,
                        own_t: own_s.t,
                        own_shrunk,
                        cv_max_f1: cv.max_f1,
                        cv_at_threshold: cv.f1_at_threshold,
                        secs,
                    });
                }
            }
        }
    }

    println!(
        "\n**Train {} → held out {}** (k = {}, {}, {} text; {} held-out documents, {} gold \
         pairs)\n",
        a.train_family,
        a.test_family,
        a.k,
        a.similarity.name(),
        a.text,
        test_ids.len(),
        test_gold.pair_count()
    );
    println!("| method | Max-F1 | P | R | best threshold | F1 at its defaults |");
    println!("|---|---|---|---|---|---|");
    for (name, m, f1) in &baselines {
        let f = if f1.is_nan() {
            "–".to_string()
        } else {
            format!("{f1:.3}")
        };
        println!("| {name} | {} | {f} |", fmt(*m));
    }
    println!(
        "| TF·IDF cosine ({} text, λ₀: ANDD untrained) | {} | – |",
        a.text,
        fmt(tfidf)
    );
    println!(
        "\nBest default detector on the held-out family: F1 {best_default_f1:.3} at its \
         defaults, Max-F1 {best_default_max:.3}.\n"
    );
    println!(
        "| variant | order | labeled documents (mean) | seeds | held-out Max-F1 mean | min–max | \
         F1 at model threshold mean | min–max | training CV Max-F1 | training CV F1 at threshold \
         | pairs +/− (mean) | mined / edited (mean) | α (most common) | fit s (mean) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut steps: Vec<String> = Vec::new();
    for v in &a.variants {
        for order in &a.orders {
            let mut prev: Option<(usize, f64)> = None;
            let mut worst_drop = 0.0f64;
            for &n in &a.sizes {
                let g = cell(&out, v, order, n);
                if g.is_empty() {
                    continue;
                }
                let f: Vec<f64> = g.iter().map(|r| r.max_f1.map_or(0.0, |m| m.3)).collect();
                let at: Vec<f64> = g.iter().map(|r| r.at_threshold).collect();
                let col =
                    |h: &dyn Fn(&Row) -> f64| mean(&g.iter().map(|r| h(r)).collect::<Vec<_>>());
                let mut alphas: HashMap<String, usize> = HashMap::new();
                for r in &g {
                    *alphas.entry(format!("{}", r.fitted.model.l2)).or_default() += 1;
                }
                let alpha = alphas
                    .into_iter()
                    .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))
                    .map(|x| x.0)
                    .unwrap_or_default();
                let m = mean(&f);
                if let Some((_, p)) = prev {
                    worst_drop = worst_drop.max(p - m);
                }
                prev = Some((n, m));
                println!(
                    "| {v} | {order} | {n} ({:.0}) | {} | {m:.3} | {:.3}–{:.3} | {:.3} | \
                     {:.3}–{:.3} | {:.3} | {:.3} | {:.0}/{:.0} | {:.0} / {:.0} | {alpha} | {:.1} |",
                    col(&|r| r.documents as f64),
                    g.len(),
                    min(&f),
                    max(&f),
                    mean(&at),
                    min(&at),
                    max(&at),
                    col(&|r| r.cv_max_f1),
                    col(&|r| r.cv_at_threshold),
                    col(&|r| r.fitted.model.training.positive_pairs as f64),
                    col(&|r| r.fitted.model.training.negative_pairs as f64),
                    col(&|r| r.fitted.model.training.mined_negatives as f64),
                    col(&|r| r.fitted.model.training.edited_positives as f64),
                    col(&|r| r.secs),
                );
            }
            let at60 = out
                .iter()
                .filter(|r| &r.variant == v && &r.order == order && r.size == 60)
                .map(|r| r.max_f1.map_or(0.0, |m| m.3))
                .collect::<Vec<_>>();
            steps.push(format!(
                "{v}, {order}: largest drop of the mean between steps {worst_drop:.3}; Max-F1 at \
                 60 documents {} the best default detector's Max-F1 ({best_default_max:.3})",
                if at60.is_empty() {
                    "–".to_string()
                } else {
                    format!(
                        "{:.3} ({:+.3} against",
                        mean(&at60),
                        mean(&at60) - best_default_max
                    ) + ")"
                }
            ));
        }
    }
    println!(
        "\n**Threshold carry-over** (held out: F1 at the model's own threshold and at the \
         collection threshold `detect` chooses on the held-out family's pairs; training family: \
         the same rule on its own pairs against its gold — the training-side evidence)\n"
    );
    println!(
        "| variant | order | docs | seeds | held-out Max-F1 | F1 at model threshold mean (min–max) \
         | F1 at collection threshold mean (min–max) | collection threshold mean (min–max) | \
         training family Max-F1 | its F1 at model threshold (min–max) | its F1 at collection \
         threshold (min–max) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for v in &a.variants {
        for order in &a.orders {
            for &n in &a.sizes {
                let g = cell(&out, v, order, n);
                if g.is_empty() {
                    continue;
                }
                let span = |h: &dyn Fn(&Row) -> f64| span(&g, h);
                println!(
                    "| {v} | {order} | {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    g.len(),
                    span(&|r| r.max_f1.map_or(0.0, |m| m.3)),
                    span(&|r| r.held.at_model),
                    span(&|r| r.held.at_collection),
                    span(&|r| r.held.collection),
                    span(&|r| r.own.max_f1.map_or(0.0, |m| m.3)),
                    span(&|r| r.own.at_model),
                    span(&|r| r.own.at_collection),
                );
            }
        }
    }
    println!(
        "\n**λ shrunk for the collection it meets** (`learn::shrink`: toward λ₀ until it \
         leaves no more documents under the stub minimum of positive weights than λ₀; t = the \
         share of the learned step kept; before = the learned λ, after = the shrunk one)\n"
    );
    println!(
        "| variant | order | docs | seeds | held-out t mean (min–max) | held-out documents \
         emptied by λ (mean) | held-out Max-F1 before | after | held-out F1 at collection \
         threshold before | after | training family t mean (min–max) | training family \
         Max-F1 before | after | its F1 at collection threshold before | after |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut shrunk_steps: Vec<String> = Vec::new();
    for v in &a.variants {
        for order in &a.orders {
            let mut prev: Option<f64> = None;
            let mut worst_drop = 0.0f64;
            for &n in &a.sizes {
                let g = cell(&out, v, order, n);
                if g.is_empty() {
                    continue;
                }
                let span = |h: &dyn Fn(&Row) -> f64| span(&g, h);
                let m = mean(
                    &g.iter()
                        .map(|r| r.held_shrunk.max_f1.map_or(0.0, |m| m.3))
                        .collect::<Vec<_>>(),
                );
                if let Some(p) = prev {
                    worst_drop = worst_drop.max(p - m);
                }
                prev = Some(m);
                println!(
                    "| {v} | {order} | {n} | {} | {} | {:.1} | {} | {} | {} | {} | {} | {} | {} \
                     | {} | {} |",
                    g.len(),
                    span(&|r| r.shrunk.t),
                    mean(
                        &g.iter()
                            .map(|r| r.shrunk.emptied as f64)
                            .collect::<Vec<_>>()
                    ),
                    span(&|r| r.held.max_f1.map_or(0.0, |m| m.3)),
                    span(&|r| r.held_shrunk.max_f1.map_or(0.0, |m| m.3)),
                    span(&|r| r.held.at_collection),
                    span(&|r| r.held_shrunk.at_collection),
                    span(&|r| r.own_t),
                    span(&|r| r.own.max_f1.map_or(0.0, |m| m.3)),
                    span(&|r| r.own_shrunk.max_f1.map_or(0.0, |m| m.3)),
                    span(&|r| r.own.at_collection),
                    span(&|r| r.own_shrunk.at_collection),
                );
            }
            shrunk_steps.push(format!(
                "{v}, {order} (shrunk): largest drop of the mean Max-F1 between steps \
                 {worst_drop:.3}"
            ));
        }
    }
    println!();
    for s in steps.into_iter().chain(shrunk_steps) {
        println!("- {s}");
    }
    if let Some(r) = out
        .iter()
        .find(|r| r.variant == "full" && r.order == "queue" && r.size == 60)
    {
        let w: Vec<String> = r
            .fitted
            .model
            .features
            .iter()
            .zip(&r.fitted.model.lambda)
            .map(|(f, l)| format!("{f} {l:+.3}"))
            .collect();
        println!(
            "\nλ (full, queue order, 60 documents, seed 0): {}",
            w.join(", ")
        );
    }
    eprintln!("done in {:.0}s", started.elapsed().as_secs_f64());
    Ok(())
}
