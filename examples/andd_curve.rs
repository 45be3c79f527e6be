//! ANDD across document families: a scripted coder (`review::oracle`) labels the clusters
//! that SpotSigs and I-Match propose inside one family of a debian-docs corpus, from that
//! family's gold file, through the store calls the workbench makes; the training pairs come
//! from those labels (`learn::pairs`, as `spotcheck train` reads them); the model is then
//! evaluated on another family it never saw, against that family's gold: Max-F1 over
//! pairs (the ANDD paper's metric), beside SpotSigs, I-Match and untrained TF·IDF cosine
//! on the same held-out family. The learning curve repeats the training with the labels of
//! 10, 30, 60, 120 documents (several seeded draws each) and of every proposed cluster.
//!
//! Run (the database is a scratch copy: runs and labels are written into it):
//! ```text
//! cp ~/.cache/spotcheck/dd-bench.db /tmp/curve.db   # or: spotcheck ingest --db /tmp/curve.db DD/html
//! cargo run --release --example andd_curve -- /tmp/curve.db ~/.cache/spotcheck/dd-bench \
//!     qtbase5-doc-html linux-doc-6.1 [--sizes 10,30,60,120] [--repeats 3] [--k 1] [--jaccard]
//! ```
//! Prints Markdown tables on stdout, progress on stderr.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use spotcheck::cluster::andd_matcher::{match_pairs, Candidates};
use spotcheck::cmd::eval::{gold_for_store, read_gold_file};
use spotcheck::cmd::train::{collection_terms, weighted_pairs};
use spotcheck::detect::imatch::{IMatch, IMatchSettings};
use spotcheck::detect::run_with;
use spotcheck::detect::spotsigs::{SpotSigs, SpotSigsSettings};
use spotcheck::learn::andd::{prior, train, AnddModel, TrainOptions, TrainPair};
use spotcheck::learn::metrics::Gold;
use spotcheck::learn::pairs::{training_pairs, PairOptions};
use spotcheck::review::oracle::{Oracle, OracleOptions};
use spotcheck::sig::andd::{
    features, weigh, DocFeatures, DocFreqs, DocTerms, Similarity, DEFAULT_MIN_KGRAMS,
};
use spotcheck::store::{Store, TextKind};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// ANDD and TF·IDF pairs below this similarity are not listed for Max-F1 (every best
/// threshold met on these corpora is above 0.9; listing everything down to 0 would be all
/// pairs).
const FLOOR: f64 = 0.8;

/// SpotSigs pairs are listed down to this Jaccard for its Max-F1.
const SPOT_FLOOR: f64 = 0.5;

struct Args {
    db: PathBuf,
    dir: PathBuf,
    train_family: String,
    test_family: String,
    sizes: Vec<usize>,
    repeats: u64,
    k: usize,
    similarity: Similarity,
}

fn args() -> Res<Args> {
    let v: Vec<String> = std::env::args().skip(1).collect();
    if v.len() < 4 {
        return Err(
            "usage: andd_curve DB DD_DIR TRAIN_FAMILY TEST_FAMILY [--sizes 10,30,60,120] \
                    [--repeats 3] [--k 1|3] [--jaccard]"
                .into(),
        );
    }
    let mut a = Args {
        db: PathBuf::from(&v[0]),
        dir: PathBuf::from(&v[1]),
        train_family: v[2].clone(),
        test_family: v[3].clone(),
        sizes: vec![10, 30, 60, 120],
        repeats: 3,
        k: 1,
        similarity: Similarity::Cosine,
    };
    let mut i = 4;
    while i < v.len() {
        match v[i].as_str() {
            "--sizes" => {
                a.sizes = v[i + 1]
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
                i += 1;
            }
            "--repeats" => {
                a.repeats = v[i + 1].parse()?;
                i += 1;
            }
            "--k" => {
                a.k = v[i + 1].parse()?;
                i += 1;
            }
            "--jaccard" => a.similarity = Similarity::Jaccard,
            other => return Err(format!("unknown option {other}").into()),
        }
        i += 1;
    }
    Ok(a)
}

/// Document features of one family, computed once (DF over the whole collection, as
/// `spotcheck train` and `detect` do).
struct Family {
    ids: Vec<i64>,
    slot: HashMap<i64, usize>,
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
    let feats = ids.iter().map(|d| features(&terms[d], dfs)).collect();
    Family { ids, slot, feats }
}

/// (threshold, precision, recall, F1).
type Best = Option<(f64, f64, f64, f64)>;

/// Max-F1 (threshold, P, R, F1) of λ on a family against its gold, with the scored pairs.
fn max_f1(
    fam: &Family,
    gold: &Gold,
    lambda: &[f64],
    sim: Similarity,
) -> (Best, Vec<(i64, i64, f64)>) {
    // The same rule as `detect`: too few k-grams, not matched.
    let vecs: Vec<_> = fam
        .feats
        .iter()
        .map(|f| {
            let v = weigh(f, lambda);
            if v.len() < DEFAULT_MIN_KGRAMS {
                Default::default()
            } else {
                v
            }
        })
        .collect();
    let (pairs, _) = match_pairs(&vecs, sim, FLOOR, Candidates::Index);
    let scored: Vec<(i64, i64, f64)> = pairs
        .iter()
        .map(|&(a, b, s)| (fam.ids[a as usize], fam.ids[b as usize], s))
        .collect();
    let m = gold
        .max_f1(&scored)
        .map(|(t, s)| (t, s.precision, s.recall, s.f1));
    (m, scored)
}

fn fmt(m: Best) -> String {
    match m {
        Some((t, p, r, f)) => format!("{f:.3} | {p:.3} | {r:.3} | {t:.3}"),
        None => "– | – | – | –".into(),
    }
}

/// Trains on the labels of `coder` (training pairs as `spotcheck train` builds them).
fn train_on_labels(
    store: &Store,
    fam: &Family,
    coder: &str,
    opts: &TrainOptions,
) -> Res<(AnddModel, usize)> {
    let set = training_pairs(
        store,
        &PairOptions {
            coder: Some(coder.to_string()),
            seed: opts.seed,
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
    let model = train(&fam.feats, &pairs, opts, "main", |_, _| {})?;
    Ok((model, set.counts.documents as usize))
}

fn family_ids(store: &Store, gold_rows: &[(String, String)]) -> Res<HashSet<i64>> {
    let urls: HashSet<&str> = gold_rows.iter().map(|(u, _)| u.as_str()).collect();
    Ok(store
        .url_ids()?
        .into_iter()
        .filter(|(u, _)| urls.contains(u.as_str()))
        .map(|(_, id)| id)
        .collect())
}

fn main() -> Res<()> {
    let a = args()?;
    let started = Instant::now();
    let mut store = Store::open_existing(&a.db)?;
    let gold_file = |f: &str| a.dir.join(format!("gold-{f}.tsv"));
    let train_rows = read_gold_file(&gold_file(&a.train_family))?;
    let test_rows = read_gold_file(&gold_file(&a.test_family))?;
    let (test_gold, _) = gold_for_store(&store, &test_rows)?;
    let train_ids = family_ids(&store, &train_rows)?;
    let test_ids = family_ids(&store, &test_rows)?;
    eprintln!(
        "{}: {} documents (train); {}: {} documents, {} gold pairs (held out)",
        a.train_family,
        train_ids.len(),
        a.test_family,
        test_ids.len(),
        test_gold.pair_count()
    );

    // Baselines on the held-out family: SpotSigs down to τ = SPOT_FLOOR for its Max-F1,
    // plain I-Match; then the detectors a coder reviews before any model exists (the
    // defaults), run last so that they are the latest runs the review queue shows.
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
    eprintln!("{}\n{}", spot.line(), imatch.line());
    let run_max_f1 = |run: i64| -> Res<Best> {
        Ok(test_gold
            .max_f1(&store.run_pairs(run)?)
            .map(|(t, s)| (t, s.precision, s.recall, s.f1)))
    };
    let base_spot = run_max_f1(spot_low.run)?;
    let base_imatch = run_max_f1(imatch.run)?;
    let base_imatch0 = run_max_f1(imatch0.run)?;

    // Features of both families, one pass over the collection.
    let t0 = Instant::now();
    let keep: HashSet<i64> = train_ids.union(&test_ids).copied().collect();
    let (dfs, terms) = collection_terms(&store, TextKind::Main, a.k, &keep)?;
    let train_fam = family(&dfs, &terms, &train_ids);
    let test_fam = family(&dfs, &terms, &test_ids);
    drop(terms);
    eprintln!("features in {:.1}s", t0.elapsed().as_secs_f64());
    let opts = TrainOptions {
        k: a.k,
        similarity: a.similarity,
        ..TrainOptions::default()
    };
    let (tfidf, _) = max_f1(&test_fam, &test_gold, &prior(a.k), a.similarity);

    // Learning curve. The oracle labels the training family's proposed clusters until N
    // documents are labeled, in two orders: the review queue's default order (largest
    // clusters first: what a coder meets first, template look-alike clusters included),
    // and a seeded random order of the same clusters (several draws).
    let prefix = format!("{}/", a.train_family);
    let proposed: Vec<Vec<i64>> = store
        .run_clusters(spot.run)?
        .into_iter()
        .chain(store.run_clusters(imatch.run)?)
        .collect();
    let mut rows = Vec::new();
    let mut plan: Vec<(&str, Option<usize>, u64)> = Vec::new();
    for &n in &a.sizes {
        plan.push(("queue", Some(n), 0));
        for r in 0..a.repeats {
            plan.push(("random", Some(n), r));
        }
    }
    plan.push(("queue", None, 0));
    for (order, size, r) in plan {
        let coder = format!(
            "curve-{}-{order}-{}-r{r}",
            a.train_family,
            size.map_or("all".to_string(), |n| n.to_string())
        );
        let mut oracle = Oracle::new(&store, &train_rows, &coder)?;
        let mut oo = OracleOptions {
            url_prefix: Some(prefix.clone()),
            max_documents: size,
            ..OracleOptions::default()
        };
        let report = if order == "queue" {
            oracle.label_queue(&mut store, &oo)?
        } else {
            oo.seed = Some(1000 + r);
            oracle.label_sets(&mut store, proposed.clone(), &oo)?
        };
        let t = Instant::now();
        let (model, docs) = match train_on_labels(&store, &train_fam, &coder, &opts) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{coder}: {e}");
                continue;
            }
        };
        let secs = t.elapsed().as_secs_f64();
        let (m, scored) = max_f1(&test_fam, &test_gold, &model.lambda, a.similarity);
        let at = test_gold.score_pairs(
            scored
                .iter()
                .filter(|p| p.2 >= model.threshold)
                .map(|p| (p.0, p.1)),
        );
        eprintln!(
            "{coder}: {} decisions ({} confirmed, {} split, {} rejected), {docs} documents, \
             {}+/{}− pairs, {} iterations in {secs:.1}s, threshold {:.4}: held-out Max-F1 {}, \
             F1 at threshold {:.3}",
            report.decisions(),
            report.confirmed,
            report.split,
            report.rejected,
            model.training.positive_pairs,
            model.training.negative_pairs,
            model.training.iterations,
            model.threshold,
            fmt(m),
            at.f1
        );
        rows.push((order, size, docs, model, m, at.f1, secs));
    }

    println!(
        "\n**Train {} → held out {}** (k = {}, {}; {} held-out documents, {} gold pairs)\n",
        a.train_family,
        a.test_family,
        a.k,
        a.similarity.name(),
        test_ids.len(),
        test_gold.pair_count()
    );
    println!("| method | Max-F1 | P | R | at threshold |");
    println!("|---|---|---|---|---|");
    println!(
        "| SpotSigs (defaults, τ ≥ {SPOT_FLOOR}) | {} |",
        fmt(base_spot)
    );
    println!("| I-Match (K = 0) | {} |", fmt(base_imatch0));
    println!("| I-Match (K = 10) | {} |", fmt(base_imatch));
    println!("| TF·IDF cosine (λ₀, untrained) | {} |", fmt(tfidf));
    let full = rows.iter().find(|r| r.1.is_none());
    if let Some(full) = full {
        println!(
            "| ANDD, all proposed clusters labeled ({} documents) | {} |",
            full.2,
            fmt(full.4)
        );
    }
    println!(
        "\nLearning curve (held-out Max-F1; F1 at the threshold chosen on the training pairs):\n"
    );
    println!(
        "| labeling order | labeled documents | draws | Max-F1 mean | min | max | \
         F1 at model threshold (mean) | train pairs +/− (mean) | train s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut keys: Vec<(&str, Option<usize>)> = rows.iter().map(|r| (r.0, r.1)).collect();
    keys.dedup();
    for key in keys {
        let g: Vec<_> = rows.iter().filter(|r| (r.0, r.1) == key).collect();
        let f: Vec<f64> = g.iter().map(|r| r.4.map_or(0.0, |m| m.3)).collect();
        let n = g.len() as f64;
        let mean = |v: &dyn Fn(&&_) -> f64| g.iter().map(v).sum::<f64>() / n;
        println!(
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.0}/{:.0} | {:.1} |",
            key.0,
            key.1.map_or_else(
                || format!("all ({})", g[0].2),
                |k| format!("{k} ({:.0})", mean(&|r| r.2 as f64))
            ),
            g.len(),
            f.iter().sum::<f64>() / n,
            f.iter().copied().fold(f64::INFINITY, f64::min),
            f.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean(&|r| r.5),
            mean(&|r| r.3.training.positive_pairs as f64),
            mean(&|r| r.3.training.negative_pairs as f64),
            mean(&|r| r.6),
        );
    }
    for (label, row) in [
        (
            "queue order, 60 documents",
            rows.iter().find(|r| r.0 == "queue" && r.1 == Some(60)),
        ),
        ("all labels", full),
    ] {
        if let Some(r) = row {
            let w: Vec<String> =
                r.3.features
                    .iter()
                    .zip(&r.3.lambda)
                    .map(|(f, l)| format!("{f} {l:+.3}"))
                    .collect();
            println!("\nλ ({label}): {}", w.join(", "));
        }
    }
    eprintln!("done in {:.0}s", started.elapsed().as_secs_f64());
    Ok(())
}
