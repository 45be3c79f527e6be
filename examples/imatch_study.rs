//! Why I-Match finds or misses a corpus's pairs (issue 14, session 8): on a database ingested
//! by `spotcheck ingest` and a gold `url<TAB>cluster` file, signs every content text as
//! `detect --method imatch` does (the library's lexicon, bags and signing; pairs = two
//! documents with an equal coordinate, checked by the detector's rules) and prints pairwise
//! P/R/F1, every missed true pair by cause and every false pair by cause, with the lexicon
//! terms in which missed pairs differ most often. Options are `detect`'s I-Match flags, so a
//! candidate setting is measured in seconds without a full `detect` run.
//!
//! ```sh
//! cargo run --release --example imatch_study -- DB GOLD.tsv [--bags K] [--bag-max-idf F]
//!     [--lexicon-idf MIN,MAX] [--min-coverage F] [--min-terms N] [--bag-draws F]
//!     [--min-overlap F] [--overlap-idf-power P] [--short-min-terms N] [--quiet]
//! ```
//!
//! Every missed pair with signatures on both sides is first split by stage (session 10): `a
//! coordinate collides, the pair rules reject it` (`--min-overlap`, `--min-agree`) or `no
//! coordinate collides`. `IMATCH_STUDY_OVERLAP=1` writes, for every colliding pair of gold
//! pages, `same-cluster<TAB>weighted Jaccard<TAB>weighted containment<TAB>|A|<TAB>|B|` to
//! stderr; with `IMATCH_STUDY_TERMS=1` too, a `T` line of the normalized idfs of the pair's
//! shared, A-only and B-only primary terms and then secondary terms, for sweeping overlap
//! rules offline. `--bag-coverage-full true|false` sets that switch.
//!
//! Causes of a missed true pair (first that fits): `no signature` (one page has no signed
//! coordinate: `few` = too few lexicon terms, `unreliable` = the long-document rule);
//! `same terms, extension differs` (equal primary sets, but the coordinate differs through
//! terms taken from the secondary lexicon); otherwise the number d of primary lexicon terms
//! in which the two pages differ (1, 2, 3–9, ≥ 10), split by whether a bag's sample missed all
//! of them (it cannot when a differing term is rarer than `--bag-max-idf`: `rare term
//! differs`). Causes of a false pair: `equal primary sets` (coordinate 0) or `bag only`, with
//! the number of primary terms they differ in.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use spotcheck::cmd::eval::read_gold_file;
use spotcheck::detect::imatch::IMatchSettings;
use spotcheck::review::sanitize::sanitize_line;
use spotcheck::sig::imatch::{BaggedLexicon, IMatchParams, SigOutcome};
use spotcheck::sig::lexicon::{
    normalized_idf, unique_terms, DocFreqs, Lexicon, LexiconParams, TermOptions,
};
use spotcheck::store::{Store, TextKind};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        bail!("usage: imatch_study DB GOLD.tsv [I-Match flags]");
    }
    let (db, gold_path) = (PathBuf::from(&args[0]), PathBuf::from(&args[1]));
    let mut s = IMatchSettings::default();
    let mut quiet = false;
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        if flag == "--quiet" {
            quiet = true;
            continue;
        }
        let v = rest
            .next()
            .with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bags" => s.bags = v.parse()?,
            "--bag-max-idf" => s.bag_max_idf = v.parse()?,
            "--min-coverage" => s.min_coverage = v.parse()?,
            "--min-terms" => s.min_terms = v.parse()?,
            "--min-agree" => s.min_agree = v.parse()?,
            "--bag-draws" => s.bag_draws = v.parse()?,
            "--min-overlap" => s.min_overlap = v.parse()?,
            "--short-min-terms" => s.short_min_terms = v.parse()?,
            "--overlap-idf-power" => s.overlap_idf_power = v.parse()?,
            "--bag-coverage-full" => s.scale_bag_coverage = !v.parse::<bool>()?,
            "--lexicon-idf" => {
                let (lo, hi) = v.split_once(',').context("MIN,MAX")?;
                s.idf_min = lo.parse()?;
                s.idf_max = hi.parse()?;
            }
            other => bail!("unknown option {other}"),
        }
    }
    let store = Store::open_read_only(&db)?;
    let opts = TermOptions::default();
    let mut urls = Vec::new();
    let mut uniques: Vec<BTreeSet<String>> = Vec::new();
    store.for_each_text_chunk(TextKind::Content, 1000, |chunk| {
        for d in chunk {
            uniques.push(unique_terms(&d.text, &opts));
            urls.push(d.url);
        }
        Ok(())
    })?;
    let dfs = DocFreqs::from_documents(&uniques);
    let lexicon = Lexicon::build(
        &dfs,
        LexiconParams {
            idf_min: s.idf_min,
            idf_max: s.idf_max,
            terms: opts,
        },
    );
    let params: IMatchParams = s.signing();
    let bagged = BaggedLexicon::new(&lexicon, params);
    let outcomes: Vec<Vec<SigOutcome>> = uniques.iter().map(|u| bagged.sign(u)).collect();
    let primary: Vec<BTreeSet<&str>> = uniques
        .iter()
        .map(|u| {
            u.iter()
                .filter(|t| lexicon.in_primary(t))
                .map(String::as_str)
                .collect()
        })
        .collect();

    let indices: Vec<Vec<u32>> = primary
        .iter()
        .map(|set| {
            let mut v: Vec<u32> = set
                .iter()
                .filter_map(|t| match lexicon.class_of(t) {
                    Some(spotcheck::sig::lexicon::TermClass::Primary(i)) => u32::try_from(i).ok(),
                    _ => None,
                })
                .collect();
            v.sort_unstable();
            v
        })
        .collect();
    let weights = spotcheck::sig::imatch::overlap_weights(&lexicon, s.overlap_idf_power);
    // Pairs: any coordinate equal, then the detector's pair rules.
    let mut buckets: HashMap<(usize, [u8; 20]), Vec<u32>> = HashMap::new();
    for (d, o) in outcomes.iter().enumerate() {
        for (c, x) in o.iter().enumerate() {
            if let Some(sig) = x.signature() {
                buckets.entry((c, sig)).or_default().push(d as u32);
            }
        }
    }
    let mut agree: HashMap<(u32, u32), (usize, bool)> = HashMap::new();
    for ((c, _), m) in &buckets {
        for i in 0..m.len() {
            for j in i + 1..m.len() {
                let e = agree.entry((m[i], m[j])).or_insert((0, false));
                e.0 += 1;
                e.1 |= *c == 0;
            }
        }
    }
    let collided: BTreeSet<(u32, u32)> = agree.keys().copied().collect();
    let gold0: HashMap<String, String> = if std::env::var_os("IMATCH_STUDY_OVERLAP").is_some() {
        read_gold_file(&gold_path)?.into_iter().collect()
    } else {
        HashMap::new()
    };
    for &(a, b) in &collided {
        let (ga, gb) = (gold0.get(&urls[a as usize]), gold0.get(&urls[b as usize]));
        let (Some(ga), Some(gb)) = (ga, gb) else {
            continue;
        };
        let (ia, ib) = (&indices[a as usize], &indices[b as usize]);
        if std::env::var_os("IMATCH_STUDY_TERMS").is_some() {
            let (pa, pb) = (&primary[a as usize], &primary[b as usize]);
            let f = |it: Vec<&&str>| {
                it.iter()
                    .map(|t| {
                        format!(
                            "{:.3}",
                            normalized_idf(dfs.n_docs, dfs.get(t)).unwrap_or(0.0)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let sec = |d: u32| -> BTreeSet<&str> {
                uniques[d as usize]
                    .iter()
                    .filter(|t| {
                        matches!(
                            lexicon.class_of(t),
                            Some(spotcheck::sig::lexicon::TermClass::Secondary(_))
                        )
                    })
                    .map(String::as_str)
                    .collect()
            };
            let (sa, sb) = (sec(a), sec(b));
            eprintln!(
                "T\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                u8::from(ga == gb),
                f(pa.intersection(pb).collect()),
                f(pa.difference(pb).collect()),
                f(pb.difference(pa).collect()),
                f(sa.intersection(&sb).collect()),
                f(sa.difference(&sb).collect()),
                f(sb.difference(&sa).collect()),
                uniques[a as usize].len(),
                uniques[b as usize].len()
            );
            continue;
        }
        let w = |v: &[u32]| v.iter().map(|&i| weights[i as usize]).sum::<f64>();
        let sa: BTreeSet<u32> = ia.iter().copied().collect();
        let shared: f64 = ib
            .iter()
            .filter(|i| sa.contains(i))
            .map(|&i| weights[i as usize])
            .sum();
        let (wa, wb) = (w(ia), w(ib));
        eprintln!(
            "{}\t{:.4}\t{:.4}\t{}\t{}",
            u8::from(ga == gb),
            shared / (wa + wb - shared).max(1e-12),
            shared / wa.min(wb).max(1e-12),
            ia.len(),
            ib.len()
        );
    }
    let found: BTreeMap<(u32, u32), (usize, bool)> = agree
        .into_iter()
        .filter(|&((a, b), (n, _))| {
            n >= s.min_agree
                && spotcheck::sig::imatch::sorted_overlap_holds(
                    &indices[a as usize],
                    &indices[b as usize],
                    s.min_overlap,
                    |i| weights[i as usize],
                )
        })
        .collect();

    // Gold over the documents.
    let gold: HashMap<String, String> = read_gold_file(&gold_path)?.into_iter().collect();
    let mut by: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (d, u) in urls.iter().enumerate() {
        if let Some(c) = gold.get(u) {
            by.entry(c).or_default().push(d as u32);
        }
    }
    let in_gold = |d: u32| gold.contains_key(&urls[d as usize]);
    let mut true_pairs = BTreeSet::new();
    for m in by.values() {
        for i in 0..m.len() {
            for j in i + 1..m.len() {
                true_pairs.insert((m[i], m[j]));
            }
        }
    }
    let counted: Vec<(u32, u32)> = found
        .keys()
        .filter(|&&(a, b)| in_gold(a) && in_gold(b))
        .copied()
        .collect();
    let tp = counted.iter().filter(|p| true_pairs.contains(p)).count();
    let p = if counted.is_empty() {
        1.0
    } else {
        tp as f64 / counted.len() as f64
    };
    let r = tp as f64 / true_pairs.len().max(1) as f64;
    let f = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    println!(
        "imatch P {p:.3} R {r:.3} F1 {f:.3}  (found {} in gold, {tp} true, {} true pairs; lexicon {} + {})",
        counted.len(),
        true_pairs.len(),
        lexicon.primary().len(),
        lexicon.secondary().len()
    );
    if quiet {
        return Ok(());
    }

    let idf = |t: &str| {
        normalized_idf(dfs.n_docs, dfs.get(t))
            .map(|x| x > s.bag_max_idf)
            .unwrap_or(false)
    };
    let unsigned = |d: u32| {
        let o = &outcomes[d as usize];
        if o.iter().any(|x| x.signature().is_some()) {
            None
        } else if matches!(o[0], SigOutcome::Unreliable { .. }) {
            Some("unreliable (long-document rule)")
        } else {
            Some("few lexicon terms")
        }
    };
    let mut missed: BTreeMap<String, usize> = BTreeMap::new();
    let mut term_miss: HashMap<&str, usize> = HashMap::new();
    for &(a, b) in &true_pairs {
        if found.contains_key(&(a, b)) {
            continue;
        }
        let cause = if let Some(w) = unsigned(a).or(unsigned(b)) {
            if std::env::var_os("IMATCH_STUDY_SHOW").is_some() {
                for d in [a, b] {
                    let u = &uniques[d as usize];
                    let sec = u
                        .iter()
                        .filter(|t| {
                            matches!(
                                lexicon.class_of(t),
                                Some(spotcheck::sig::lexicon::TermClass::Secondary(_))
                            )
                        })
                        .count();
                    eprintln!(
                        "{}\tU {}\tL {}\tB {}\t{:?}",
                        sanitize_line(&urls[d as usize]),
                        u.len(),
                        primary[d as usize].len(),
                        sec,
                        u.iter()
                            .take(12)
                            .map(|t| sanitize_line(t))
                            .collect::<Vec<_>>()
                    );
                }
            }
            format!("no signature: {w}")
        } else {
            let (pa, pb) = (&primary[a as usize], &primary[b as usize]);
            let diff: Vec<&str> = pa.symmetric_difference(pb).copied().collect();
            for t in &diff {
                *term_miss.entry(t).or_insert(0) += 1;
            }
            let d = diff.len();
            let bucket = match d {
                0 => "0 (extension differs)",
                1 => "1",
                2 => "2",
                3..=9 => "3-9",
                _ => ">=10",
            };
            let rare = diff.iter().any(|t| idf(t));
            let jac = pa.intersection(pb).count() as f64 / pa.union(pb).count().max(1) as f64;
            let jb = if jac >= s.min_overlap && s.min_overlap > 0.0 {
                "plain J>=min-overlap"
            } else if jac >= 0.9 {
                "J>=0.9"
            } else if jac >= 0.8 {
                "J 0.8-0.9"
            } else {
                "J<0.8"
            };
            let stage = if collided.contains(&(a, b)) {
                "a coordinate collides, the pair rules reject it"
            } else {
                "no coordinate collides"
            };
            format!(
                "{stage}: differ in {bucket} primary terms{}, {jb}",
                if rare {
                    ", a rare term differs (in every bag)"
                } else {
                    ", only sampled terms differ"
                }
            )
        };
        *missed.entry(cause).or_insert(0) += 1;
    }
    println!("\nmissed true pairs by cause:");
    for (c, n) in &missed {
        println!("{n:6}  {c}");
    }
    let mut terms: Vec<(&str, usize)> = term_miss.into_iter().collect();
    terms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    println!("\nprimary terms most often differing in missed pairs (term: pairs, df, idf):");
    for (t, n) in terms.iter().take(25) {
        println!(
            "  {}: {n}, df {}, idf {:.2}",
            sanitize_line(t),
            dfs.get(t),
            normalized_idf(dfs.n_docs, dfs.get(t)).unwrap_or(0.0)
        );
    }
    let mut false_causes: BTreeMap<String, usize> = BTreeMap::new();
    for &(a, b) in &counted {
        if true_pairs.contains(&(a, b)) {
            continue;
        }
        let (n, c0) = found[&(a, b)];
        if std::env::var_os("IMATCH_STUDY_FALSE").is_some() {
            eprintln!(
                "{}\t{}\t{}",
                sanitize_line(&urls[a as usize]),
                sanitize_line(&urls[b as usize]),
                c0
            );
        }
        let (pa, pb) = (&primary[a as usize], &primary[b as usize]);
        let d = pa.symmetric_difference(pb).count();
        let size = pa.len().min(pb.len());
        let cause = if c0 {
            format!("equal primary sets (size {})", size_bucket(size))
        } else {
            format!(
                "bag only: {} bags agree, differ in {} terms",
                if n >= 2 { ">=2" } else { "1" },
                match d {
                    0..=2 => "<=2",
                    3..=9 => "3-9",
                    _ => ">=10",
                }
            )
        };
        *false_causes.entry(cause).or_insert(0) += 1;
    }
    println!("\nfalse pairs by cause:");
    for (c, n) in &false_causes {
        println!("{n:6}  {c}");
    }
    let signed = outcomes
        .iter()
        .filter(|o| o.iter().any(|x| x.signature().is_some()))
        .count();
    let c0: BTreeMap<&str, usize> = outcomes.iter().fold(BTreeMap::new(), |mut m, o| {
        let k = match o[0] {
            SigOutcome::Signed { extended: 0, .. } => "signed",
            SigOutcome::Signed { .. } => "signed, extended",
            SigOutcome::TooFewTerms { .. } => "few terms",
            SigOutcome::Unreliable { .. } => "unreliable",
        };
        *m.entry(k).or_insert(0) += 1;
        m
    });
    println!(
        "\ndocuments {}, with a signed coordinate {signed}; full lexicon: {c0:?}",
        urls.len()
    );
    Ok(())
}

fn size_bucket(n: usize) -> &'static str {
    match n {
        0..=9 => "<10",
        10..=29 => "10-29",
        30..=99 => "30-99",
        _ => ">=100",
    }
}
