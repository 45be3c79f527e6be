//! Detector quality on a labeled corpus from `../shared/corpus/debian-docs.sh`: runs
//! SpotSigs (paper settings and spotcheck's defaults, visible and main text, a sweep of τ),
//! I-Match (plain and K bags) and Cooper on an ingested copy of the corpus, and prints
//! pairwise precision/recall/F1 per package family against its `gold.tsv` as Markdown, plus
//! the template look-alikes: pairs of *different* pages of one manual that a run matched.
//!
//! Run: `spotcheck ingest --db DD.db OUT/html` then
//! `cargo run --release --example eval_sweep -- DD.db OUT/gold.tsv [spotsigs|imatch|cooper]...`

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use spotcheck::cmd::eval::read_gold_file;
use spotcheck::detect::cooper::{Cooper, CooperSettings};
use spotcheck::detect::imatch::{IMatch, IMatchSettings};
use spotcheck::detect::spotsigs::{SpotSigs, SpotSigsSettings};
use spotcheck::detect::{run_with, RunReport};
use spotcheck::learn::metrics::Gold;
use spotcheck::store::{Store, TextKind};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Per family: the gold over its documents.
struct Families {
    golds: BTreeMap<String, Gold>,
    /// document id → (family, gold cluster) for look-alike counting.
    label: HashMap<i64, (String, String)>,
}

fn families(store: &Store, gold_path: &std::path::Path) -> Res<Families> {
    let rows = read_gold_file(gold_path)?;
    let mut ids: HashMap<String, Vec<i64>> = HashMap::new();
    for (url, id) in store.url_ids()? {
        ids.entry(url).or_default().push(id);
    }
    let mut per: BTreeMap<String, Vec<(i64, String)>> = BTreeMap::new();
    let mut label = HashMap::new();
    for (url, cluster) in rows {
        let family = url.split('/').next().unwrap_or("").to_string();
        for &id in ids.get(&url).into_iter().flatten() {
            per.entry(family.clone())
                .or_default()
                .push((id, cluster.clone()));
            label.insert(id, (family.clone(), cluster.clone()));
        }
    }
    let golds = per
        .into_iter()
        .map(|(f, v)| (f, Gold::new(v.iter().map(|(id, c)| (*id, c.as_str())))))
        .collect();
    Ok(Families { golds, label })
}

fn report(store: &Store, fam: &Families, name: &str, r: &RunReport) -> Res<()> {
    let pairs = store.run_pairs(r.run)?;
    let mut lookalikes: BTreeMap<&str, u64> = BTreeMap::new();
    for (a, b, _) in &pairs {
        if let (Some((fa, ca)), Some((fb, cb))) = (fam.label.get(a), fam.label.get(b)) {
            if fa == fb && ca != cb {
                *lookalikes.entry(fa.as_str()).or_default() += 1;
            }
        }
    }
    for (family, gold) in &fam.golds {
        let s = gold.score_pairs(pairs.iter().map(|&(a, b, _)| (a, b)));
        println!(
            "| {name} | {family} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} |",
            s.gold,
            s.predicted,
            s.true_positives,
            s.precision,
            s.recall,
            s.f1,
            lookalikes.get(family.as_str()).copied().unwrap_or(0)
        );
    }
    Ok(())
}

fn header() {
    println!("| run | family | gold pairs | predicted | true | P | R | F1 | look-alike pairs |");
    println!("|---|---|---|---|---|---|---|---|---|");
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, gold, which @ ..] = args.as_slice() else {
        return Err("usage: eval_sweep DB GOLD [spotsigs|imatch|cooper]...".into());
    };
    let all = which.is_empty();
    let wants = |m: &str| all || which.iter().any(|w| w == m);
    let mut store = Store::open_existing(&PathBuf::from(db))?;
    let fam = families(&store, &PathBuf::from(gold))?;
    header();
    if wants("spotsigs") {
        for tau in [0.95, 0.9, 0.8, 0.7, 0.6] {
            for (label, mut s) in [
                ("paper", SpotSigsSettings::paper()),
                (
                    "paper-main",
                    SpotSigsSettings {
                        text: TextKind::Main,
                        ..SpotSigsSettings::paper()
                    },
                ),
                (
                    "default-main",
                    SpotSigsSettings {
                        text: TextKind::Main,
                        ..SpotSigsSettings::default()
                    },
                ),
                ("default", SpotSigsSettings::default()),
                (
                    "default-nocap",
                    SpotSigsSettings {
                        site_boilerplate_pages: None,
                        ..SpotSigsSettings::default()
                    },
                ),
            ] {
                // The site rule without its page cap (the defaults before the cap) once.
                if label == "default-nocap" && tau != 0.9 {
                    continue;
                }
                s.tau = tau;
                let r = run_with::<SpotSigs>(&mut store, &s)?;
                eprintln!("{}", r.line());
                report(&store, &fam, &format!("spotsigs {label} τ={tau}"), &r)?;
            }
        }
    }
    if wants("imatch") {
        // bag_max_idf 1.0 = the papers' bootstrap of the whole lexicon.
        for (bags, min_agree, bag_max_idf) in [
            (0, 1, None),
            (1, 1, None),
            (2, 1, None),
            (5, 1, None),
            (10, 1, None),
            (10, 1, Some(1.0)),
            (10, 2, Some(1.0)),
            (10, 3, Some(1.0)),
        ] {
            let d = IMatchSettings::default();
            let s = IMatchSettings {
                bags,
                min_agree,
                bag_max_idf: bag_max_idf.unwrap_or(d.bag_max_idf),
                ..d
            };
            let r = run_with::<IMatch>(&mut store, &s)?;
            eprintln!("{}", r.line());
            let sampling = match bag_max_idf {
                Some(_) => " bags: papers".to_string(),
                None if bags > 0 => format!(" bags: idf≤{}", s.bag_max_idf),
                None => String::new(),
            };
            report(
                &store,
                &fam,
                &format!("imatch K={bags} agree≥{min_agree}{sampling}"),
                &r,
            )?;
        }
    }
    if wants("cooper") {
        let r = run_with::<Cooper>(&mut store, &CooperSettings::default())?;
        eprintln!("{}", r.line());
        report(&store, &fam, "cooper 10%/10%", &r)?;
    }
    Ok(())
}
