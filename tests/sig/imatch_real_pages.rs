//! Cooper's test and bagged I-Match on real news pages plus planted duplicates: near copies
//! (two salient terms deleted) must be found by Cooper's default test with the right
//! explanation; copies with inserted material (another page's words appended) must be found
//! only with the "inserted material" preset; and the real pages themselves, many of which
//! are hard non-duplicates (same site template, different story), are reported so the
//! false-match rate can be read off.

use crate::imatch_support;

use std::collections::BTreeSet;

use imatch_support::{corpus_dir, load_pages};
use spotcheck::cluster::buckets::{cluster_signatures, BucketOptions};
use spotcheck::sig::cooper::{detect, salient_terms, CooperParams};
use spotcheck::sig::imatch::{sign_documents, BaggedLexicon, IMatchParams};
use spotcheck::sig::lexicon::{term_tokens, unique_terms, DocFreqs, Lexicon, LexiconParams};

/// Removes every occurrence of the given terms from `text`.
fn delete_terms(text: &str, terms: &[&str], opts: &spotcheck::sig::lexicon::TermOptions) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for t in term_tokens(text, opts) {
        if terms.contains(&t.norm.as_str()) {
            out.push_str(&text[last..t.start]);
            out.push(' ');
            last = t.end;
        }
    }
    out.push_str(&text[last..]);
    out
}

#[test]
fn cooper_finds_planted_duplicates_and_reports_real_pairs() {
    let Some(dir) = corpus_dir() else { return };
    let pages = load_pages(&dir);
    let names: Vec<String> = pages
        .iter()
        .map(|(p, _)| p.strip_prefix(&dir).unwrap_or(p).display().to_string())
        .collect();
    let texts: Vec<&str> = pages.iter().map(|(_, t)| t.as_str()).collect();
    let opts = LexiconParams::default().terms;
    let uniques: Vec<BTreeSet<String>> = texts.iter().map(|t| unique_terms(t, &opts)).collect();
    let dfs = DocFreqs::from_documents(&uniques);
    let params = CooperParams::default();
    let salient: Vec<BTreeSet<String>> = uniques
        .iter()
        .map(|u| salient_terms(u, &dfs, &params))
        .collect();
    let n_real = texts.len();

    // Real pages alone.
    let real_pairs = detect(&salient, &params);
    let lorem = |d: u32| {
        let t = texts[d as usize];
        t.contains("consectetur") || t.contains("incididunt")
    };
    println!(
        "real pages: {n_real}; Cooper default pairs among them: {} ({} between two lorem-ipsum \
         test fixtures); the others:",
        real_pairs.len(),
        real_pairs
            .iter()
            .filter(|p| lorem(p.a) && lorem(p.b))
            .count()
    );
    for p in real_pairs.iter().filter(|p| !(lorem(p.a) && lorem(p.b))) {
        println!(
            "  {} ~ {}: {}",
            names[p.a as usize],
            names[p.b as usize],
            p.explanation()
        );
    }

    // Plant duplicates of every 10th page with at least 60 salient terms.
    let hosts: Vec<usize> = (0..n_real)
        .filter(|&d| salient[d].len() >= 60)
        .step_by(10)
        .collect();
    assert!(hosts.len() >= 15, "only {} host pages", hosts.len());
    let mut docs = salient.clone();
    let mut near_copy_of = Vec::new();
    let mut insert_copy_of = Vec::new();
    for &h in &hosts {
        // Near copy: delete two salient terms (every occurrence).
        let victims: Vec<&str> = salient[h].iter().take(2).map(String::as_str).collect();
        let copy = delete_terms(texts[h], &victims, &opts);
        near_copy_of.push((h, docs.len()));
        docs.push(salient_terms(&unique_terms(&copy, &opts), &dfs, &params));

        // Inserted material: append words of other pages until they bring 25% new
        // salient terms (pages made of lorem ipsum bring few, so take several donors).
        let mut added = BTreeSet::new();
        let mut appended = String::new();
        for donor in (1..n_real).map(|k| (h + k * 7) % n_real) {
            if added.len() * 4 >= salient[h].len() {
                break;
            }
            let mut end = 0;
            for t in term_tokens(texts[donor], &opts) {
                if added.len() * 4 >= salient[h].len() {
                    break;
                }
                end = t.end;
                let single: BTreeSet<String> = [t.norm.clone()].into();
                if !salient[h].contains(&t.norm)
                    && !salient_terms(&single, &dfs, &params).is_empty()
                {
                    added.insert(t.norm);
                }
            }
            appended.push('\n');
            appended.push_str(&texts[donor][..end]);
        }
        let inserted = format!("{}{appended}", texts[h]);
        insert_copy_of.push((h, docs.len()));
        docs.push(salient_terms(
            &unique_terms(&inserted, &opts),
            &dfs,
            &params,
        ));
    }

    let found = detect(&docs, &params);
    let loose = detect(&docs, &CooperParams::inserted_material());
    let has = |pairs: &[spotcheck::sig::cooper::CooperPair], a: usize, b: usize| {
        pairs
            .iter()
            .find(|p| (p.a as usize, p.b as usize) == (a, b))
            .copied()
    };
    for &(h, c) in &near_copy_of {
        let p = has(&found, h, c).unwrap_or_else(|| panic!("near copy of {} not found", names[h]));
        assert_eq!(p.differing, 2, "{}: {}", names[h], p.explanation());
        assert_eq!(p.smaller as usize, salient[h].len() - 2);
    }
    let mut inserted_found = 0;
    for &(h, c) in &insert_copy_of {
        assert!(
            has(&found, h, c).is_none(),
            "default test must reject inserted material"
        );
        if let Some(p) = has(&loose, h, c) {
            inserted_found += 1;
            assert!(p.score() > 0.5);
        }
    }
    println!(
        "planted: {} near copies all found (2 terms differ); inserted material found by the 50/50 preset: {inserted_found} of {}",
        near_copy_of.len(),
        insert_copy_of.len()
    );
    assert_eq!(inserted_found, insert_copy_of.len());
    let real_loose = loose.iter().filter(|p| (p.b as usize) < n_real).count();
    println!("Cooper 50/50 pairs among real pages: {real_loose}");

    // Bagged I-Match (defaults) over the real pages.
    let lexicon = Lexicon::build(&dfs, LexiconParams::default());
    let bagged = BaggedLexicon::new(&lexicon, IMatchParams::default());
    let (sigs, counts) = sign_documents(&bagged, &uniques);
    let result = cluster_signatures(&sigs, &BucketOptions::default());
    println!(
        "bagged I-Match (K = {}) on real pages: coordinate 0 {:?}; {} pairs, {} clusters",
        IMatchParams::default().bags,
        counts[0],
        result.pairs.len(),
        result.clusters.len()
    );
    // Same site, two different stories ("newspaper/X1.html" vs "X2.html") are hard
    // non-duplicates, except coolhunting.com, whose two files are one page captured twice.
    let site = |d: usize| -> Option<String> {
        let n = names[d].strip_prefix("newspaper/")?.strip_suffix(".html")?;
        let stem = n.trim_end_matches(|c: char| c.is_ascii_digit());
        (stem.len() < n.len()).then(|| stem.to_string())
    };
    let same_site = |a: usize, b: usize| site(a).is_some() && site(a) == site(b);
    let twice_captured =
        |a: usize, b: usize| names[a].contains("coolhunting") && names[b].contains("coolhunting");
    let site_pairs = (0..n_real)
        .flat_map(|a| (a + 1..n_real).map(move |b| (a, b)))
        .filter(|&(a, b)| same_site(a, b))
        .count();
    let cooper_site: Vec<_> = real_pairs
        .iter()
        .filter(|p| same_site(p.a as usize, p.b as usize))
        .collect();
    let imatch_site: Vec<_> = result
        .pairs
        .iter()
        .filter(|p| same_site(p.a as usize, p.b as usize))
        .collect();
    println!(
        "same-site pairs: {site_pairs}; flagged by Cooper: {}, by bagged I-Match: {}",
        cooper_site.len(),
        imatch_site.len()
    );
    assert!(cooper_site
        .iter()
        .any(|p| twice_captured(p.a as usize, p.b as usize)));
    assert!(imatch_site
        .iter()
        .any(|p| twice_captured(p.a as usize, p.b as usize)));
    assert!(cooper_site
        .iter()
        .all(|p| twice_captured(p.a as usize, p.b as usize)));
    assert!(imatch_site
        .iter()
        .all(|p| twice_captured(p.a as usize, p.b as usize)));

    for c in &result.clusters {
        let members: Vec<&str> = c
            .members
            .iter()
            .map(|&m| names[m as usize].as_str())
            .collect();
        println!(
            "  cluster {members:?} agreeing {:?}..{:?}",
            c.min_agreeing, c.max_agreeing
        );
    }
}
