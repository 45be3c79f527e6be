//! The one run driver: what every detection method shares. Prepare (collection-wide work),
//! store the run with its parameters, stream the method's text from the store in chunks
//! and sign each chunk in parallel (rayon), find pairs, then store the pairs, the clusters
//! (largest first, with their weakest bridge), the document signatures and the summary.
//! Only signatures are kept in memory, never the texts.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use super::method::{validate, Detector, Found, RunContext};
use super::pipeline::ordered_par_batches;
use super::shared::Shared;
use crate::cluster::components::clusters_with_bridges;
use crate::sig::termsets::PackedTerms;
use crate::store::{encode_run_sig, ClusterRow, Store, StoredDocSig, TextKind, NO_MAIN_TEXT};
use crate::text::with_thread_words;

/// Documents per chunk streamed from the store and signed in parallel.
pub const CHUNK: usize = 2048;

/// A chunk signed and not yet kept: its texts, signatures and each document's terms for
/// the counting passes made along ([`Shared::counting_along`]).
struct Signed<S> {
    chunk: Vec<crate::store::DocText>,
    sigs: Vec<S>,
    terms: Vec<Vec<PackedTerms>>,
}

/// What the driver reports while it works (the command draws it; the library does not
/// touch the terminal).
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// A method's run starts.
    Started { method: &'static str },
    /// `documents` documents signed so far.
    Signed { documents: usize },
    /// Signing is over; pairs are being found and stored.
    Matching,
    /// The run is stored.
    Finished,
}

/// What one run did.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub run: i64,
    pub method: String,
    pub summary: serde_json::Value,
}

impl RunReport {
    /// The one-line summary `detect` prints.
    pub fn line(&self) -> String {
        let s = &self.summary;
        let mut note = match s["note"].as_str() {
            Some(n) => format!(" ({n})"),
            None => String::new(),
        };
        if let (Some(joined), Some(families)) =
            (s["sites_joined"].as_u64(), s["site_families"].as_u64())
        {
            note.push_str(&format!(
                " ({joined} sites read as {families}: releases of one manual, the same pages at \
                 the same places)"
            ));
        }
        format!(
            "{} run {}: {} documents, {} matched on, {} pairs, {} clusters (sizes {}), largest {}; {:.1}s{note}",
            self.method,
            self.run,
            s["documents"],
            s["matchable"],
            s["pairs"],
            s["clusters"],
            s["cluster_sizes"],
            s["largest_cluster"],
            s["seconds"].as_f64().unwrap_or(0.0)
        )
    }
}

/// Runs method `D` with `settings` (checked against the declarations first) and stores the
/// run. The typed entry point for programs (examples, benchmarks, tests); `detect` plans
/// its runs from the command line through [`super::plan`].
pub fn run_with<D: Detector>(store: &mut Store, settings: &D::Settings) -> Result<RunReport> {
    run_detector::<D>(store, settings, &Shared::default(), &|_| {})
}

pub(crate) fn run_detector<D: Detector>(
    store: &mut Store,
    settings: &D::Settings,
    shared: &Shared,
    progress: &dyn Fn(Progress),
) -> Result<RunReport> {
    validate::<D>(settings).map_err(|e| anyhow::anyhow!("{}: {e}", D::NAME))?;
    progress(Progress::Started { method: D::NAME });
    let started = Instant::now();
    let prepared = D::prepare(settings, store, shared)?;
    let run = store.create_run(D::NAME, &D::stored_params(settings, &prepared)?)?;
    // Main-content extraction is opt-in (`ingest --main`): say so rather than silently
    // reading the visible text in its place.
    let text_note =
        (D::reads(&prepared) == TextKind::Main && !store.has_main_texts()?).then_some(NO_MAIN_TEXT);
    let mut ids: Vec<i64> = Vec::new();
    let mut sigs: Vec<D::Sig> = Vec::new();
    if let Some((shared_ids, shared_sigs)) = D::sign_from_shared(&prepared, shared, store) {
        (ids, sigs) = (shared_ids, shared_sigs);
        progress(Progress::Signed {
            documents: ids.len(),
        });
    } else {
        let sign = D::signer(&prepared);
        let word_sign = D::word_signer(&prepared);
        // The counting passes later runs read, made on this stream: each text is read and
        // tokenized once for them and for this run's signer.
        let mut along = shared.counting_along(D::reads(&prepared));
        let term_passes = along.options();
        // What follows a chunk's signing is serial (the counting passes intern terms and
        // `keep` interns signatures, both in document order): it runs for chunk i while
        // chunk i + 1 is signed, so neither core waits on it (it idled one core for 0.25 s
        // of dd6k's 1.5 s of signing; BENCHMARKS.md, issue 16 session 15).
        let mut pending: Option<Signed<D::Sig>> = None;
        let mut signed_so_far = 0;
        let mut finish = |done: Signed<D::Sig>| {
            if !along.is_empty() {
                along.add_chunk(&done.chunk, &done.terms);
            }
            let mut signed = done.sigs;
            D::keep(&prepared, &mut signed);
            ids.extend(done.chunk.iter().map(|d| d.id));
            sigs.extend(signed);
        };
        store.for_each_text_chunk_read_ahead(D::reads(&prepared), CHUNK, |chunk| {
            let sign_chunk = || -> Signed<D::Sig> {
                let (sigs, terms) = if term_passes.is_empty() {
                    (chunk.par_iter().map(&sign).collect(), Vec::new())
                } else {
                    chunk
                        .par_iter()
                        .map(|d| {
                            with_thread_words(&d.text, |words| {
                                let sig = match &word_sign {
                                    Some(ws) => ws(d, words),
                                    None => sign(d),
                                };
                                (sig, super::shared::terms_of(&term_passes, words))
                            })
                        })
                        .unzip()
                };
                Signed {
                    chunk: Vec::new(),
                    sigs,
                    terms,
                }
            };
            let before = pending.take();
            let (mut signed, ()) = rayon::join(sign_chunk, || {
                if let Some(done) = before {
                    finish(done);
                }
            });
            signed_so_far += chunk.len();
            // Kept for its ids and URLs only: the texts go now, not a chunk later.
            let mut chunk = chunk;
            for d in &mut chunk {
                d.text = String::new();
            }
            signed.chunk = chunk;
            pending = Some(signed);
            progress(Progress::Signed {
                documents: signed_so_far,
            });
            Ok(())
        })?;
        if let Some(done) = pending.take() {
            finish(done);
        }
        shared.finish_along(along);
    }
    shared.release_unread();
    let mut stages = Stages::new(started);
    stages.mark("sign");
    // The signatures `query` reads instead of signing the collection again, serialized and
    // compressed a batch at a time on both cores while the batch before is written (all
    // collected first, they were a second copy of every signature in memory). A method keeps
    // none when it serializes none; one that failed midway leaves fewer rows than
    // documents, which `query` takes as no index.
    let indexed = sigs
        .first()
        .is_some_and(|s| D::sig_bytes(&prepared, s).is_some());
    if indexed {
        let (prepared, sigs) = (&prepared, &sigs);
        ordered_par_batches(
            sigs.len(),
            STORE_BATCH,
            |i| match D::sig_bytes(prepared, &sigs[i]).map(encode_run_sig) {
                Some(Ok(b)) => Ok(Some((ids[i], b))),
                Some(Err(e)) => Err(e),
                None => Ok(None),
            },
            |rows| -> Result<()> {
                // An encoding error stops the rows there; it is reported after the write.
                let mut failed = None;
                store.write_run_signatures(
                    run,
                    rows.map_while(|r| r.map_err(|e| failed = Some(e)).ok())
                        .flatten(),
                )?;
                failed.map_or(Ok(()), Err)
            },
        )?;
    }
    stages.mark("store_signatures");
    progress(Progress::Matching);
    let sites = if D::READS_SITES {
        shared.site_families(store)?
    } else {
        Default::default()
    };
    let found = D::find_pairs(
        prepared,
        sigs,
        &RunContext {
            store,
            ids: &ids,
            started,
            sites: &sites,
        },
    )?;
    stages.mark("find_pairs");
    let Found {
        pairs,
        detail,
        clusters,
        doc_sig,
        mut summary,
    } = found;
    // Pairs across languages are no pairs (a translation is not a copy): dropped here, for
    // every method, before anything is stored (`super::languages`).
    // So are the pairs of one site's two language editions (`extract::editions`).
    let editions = if pairs.is_empty() {
        Default::default()
    } else {
        shared.language_editions(store)?
    };
    let kept = super::languages::pairs_kept_with(
        store,
        &ids,
        &pairs,
        &mut shared.language_profiles.borrow_mut(),
        &editions,
    )?;
    // The pairs kept, with their indices in `pairs` (a method's details are by index).
    let write_pairs = |store: &mut Store| {
        store.write_run_pairs(
            run,
            pairs
                .iter()
                .enumerate()
                .filter(|(i, _)| kept.as_ref().is_none_or(|k| k[*i]))
                .map(|(i, &(a, b, score))| {
                    (
                        ids[a as usize],
                        ids[b as usize],
                        score,
                        detail.as_ref().and_then(|d| d(i)),
                    )
                }),
        )
    };
    let (pairs, clusters) = match (kept.as_ref(), clusters) {
        // A method's own clusters may join two documents through a dropped pair: the
        // clusters are then the components of the pairs kept (a rare case: stored first,
        // then clustered, as below for many pairs with details).
        (Some(k), _) => {
            write_pairs(store)?;
            drop(detail);
            let dropped = k.iter().filter(|&&keep| !keep).count();
            let by_editions = pairs
                .iter()
                .filter(|&&(a, b, _)| editions.apart(ids[a as usize], ids[b as usize]))
                .count();
            merge(
                &mut summary,
                json!({ "across_languages": dropped, "across_editions": by_editions }),
            );
            let mut keep = k.iter();
            let mut pairs = pairs;
            pairs.retain(|_| keep.next().copied().unwrap_or(true));
            let clusters = cluster_rows(&ids, &pairs);
            (pairs, clusters)
        }
        (None, Some(c)) => {
            write_pairs(store)?;
            (pairs, c)
        }
        // The clustering on both cores while this thread stores the pairs, unless the
        // method's details are kept for many pairs: the clustering's arrays (33 bytes a
        // pair) beside what the details hold (Cooper: 24 bytes a pair) would raise the
        // run's peak at a million pages, so those wait for the details to be stored.
        (None, None) if detail.is_none() || pairs.len() <= OVERLAP_CLUSTERING_MAX_PAIRS => {
            let clusters = std::thread::scope(|scope| -> Result<Vec<ClusterRow>> {
                let clustering = scope.spawn(|| cluster_rows(&ids, &pairs));
                let written = write_pairs(store);
                let clusters = match clustering.join() {
                    Ok(c) => c,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                written?;
                Ok(clusters)
            })?;
            (pairs, clusters)
        }
        (None, None) => {
            write_pairs(store)?;
            // The details are stored: what a method kept for them (Cooper: 24 bytes a pair,
            // more than the pairs themselves) goes before the clustering's own arrays are
            // made (issue 16).
            drop(detail);
            let clusters = cluster_rows(&ids, &pairs);
            (pairs, clusters)
        }
    };
    drop(pairs);
    stages.mark("store_pairs_and_cluster");
    merge(&mut summary, store_clusters(store, run, clusters)?);
    stages.mark("store_clusters");
    // Each document's signature made and encoded on both cores a batch ahead of the writes;
    // none when `sigs` makes them from the index just stored (a second copy of every
    // signature was a third of storing a run; issue 16 session 14).
    if !(D::DOC_SIGS_FROM_INDEX && indexed) {
        ordered_par_batches(
            ids.len(),
            STORE_BATCH,
            |i| doc_sig(i).map(|s| StoredDocSig::encode(&s).map(|e| (ids[i], e))),
            |rows| store.write_run_doc_sigs_encoded(run, rows.flatten()),
        )?;
    }
    drop(doc_sig);
    stages.mark("store_document_signatures");
    merge(
        &mut summary,
        json!({
            "seconds": started.elapsed().as_secs_f64(),
            "stages": stages.seconds,
        }),
    );
    if let Some(note) = text_note {
        merge(&mut summary, json!({ "note": note }));
    }
    // Sites read as one (releases of one manual laid out as sites of their own): said, since
    // they change which pairs count as one site's.
    let joined = sites.joined();
    if !joined.is_empty() {
        merge(
            &mut summary,
            json!({
                "sites_joined": joined.iter().map(Vec::len).sum::<usize>(),
                "site_families": joined.len(),
                // Which, for the first families (the line says only how many).
                "site_family_members": joined.iter().take(SITE_FAMILIES_LISTED).collect::<Vec<_>>(),
            }),
        );
    }
    store.finish_run(run, &summary)?;
    progress(Progress::Finished);
    Ok(RunReport {
        run,
        method: D::NAME.into(),
        summary,
    })
}

/// How many families of joined sites a run's summary names (`site_family_members`).
const SITE_FAMILIES_LISTED: usize = 50;

/// Rows made ahead of the store's writes per batch ([`ordered_par_batches`]).
const STORE_BATCH: usize = 4096;

/// Up to this many pairs, a method's pairs are clustered while they are stored even when
/// the method keeps a detail per pair (see the driver; 33 bytes a pair, ~260 MB here).
const OVERLAP_CLUSTERING_MAX_PAIRS: usize = 8_000_000;

/// Where a run's time and memory go, as its summary's `stages`: per stage its wall seconds
/// and the process's resident and peak memory when it ended (Linux's VmRSS and VmHWM in MB;
/// 0 elsewhere): at a million pages, which stage raises the peak (issue 16). `sign`
/// includes `prepare` and reading the texts.
struct Stages {
    last: Instant,
    seconds: Vec<serde_json::Value>,
}

impl Stages {
    fn new(started: Instant) -> Self {
        Stages {
            last: started,
            seconds: Vec::new(),
        }
    }

    /// Ends stage `name` now.
    fn mark(&mut self, name: &str) {
        let now = Instant::now();
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let mb = |key: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
                .map_or(0, |kb| kb / 1024)
        };
        self.seconds.push(json!({
            "stage": name,
            "seconds": ((now - self.last).as_secs_f64() * 1000.0).round() / 1000.0,
            "rss_mb": mb("VmRSS:"),
            "peak_mb": mb("VmHWM:"),
        }));
        self.last = now;
    }
}

/// Adds the fields of object `b` to object `a`.
pub fn merge(a: &mut serde_json::Value, b: serde_json::Value) {
    if let (Some(a), serde_json::Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
}

/// Clusters (connected components with their weakest bridge) of a pair graph over document
/// indices, as store rows.
pub fn cluster_rows(ids: &[i64], edges: &[(u32, u32, f64)]) -> Vec<ClusterRow> {
    clusters_with_bridges(ids.len(), edges)
        .into_iter()
        .map(|c| ClusterRow {
            members: c.members.iter().map(|&m| ids[m as usize]).collect(),
            min_score: Some(c.min_sim),
            max_score: Some(c.max_sim),
            weakest_bridge: c
                .weakest_bridge
                .map(|(a, b, w)| (ids[a as usize], ids[b as usize], w)),
        })
        .collect()
}

/// Cluster size histogram: "2:120 3-5:40 ...".
fn size_histogram(sizes: &[usize]) -> BTreeMap<&'static str, usize> {
    let mut h = BTreeMap::new();
    for &s in sizes {
        let k = match s {
            0..=2 => "2",
            3..=5 => "3-5",
            6..=10 => "6-10",
            11..=50 => "11-50",
            51..=100 => "51-100",
            _ => ">100",
        };
        *h.entry(k).or_insert(0) += 1;
    }
    h
}

/// Stores clusters (largest first) and returns the summary fields about them.
fn store_clusters(
    store: &mut Store,
    run: i64,
    mut rows: Vec<ClusterRow>,
) -> Result<serde_json::Value> {
    rows.sort_by(|x, y| {
        y.members
            .len()
            .cmp(&x.members.len())
            .then(x.members.cmp(&y.members))
    });
    let sizes: Vec<usize> = rows.iter().map(|c| c.members.len()).collect();
    store.write_run_clusters(run, &rows)?;
    Ok(json!({
        "clusters": rows.len(),
        "cluster_sizes": size_histogram(&sizes),
        "largest_cluster": sizes.first().copied().unwrap_or(0),
        "clustered_documents": sizes.iter().sum::<usize>(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::cooper::{Cooper, CooperSettings};

    fn store_with(main: Option<&str>) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("m.db")).unwrap();
        for i in 0..3 {
            s.insert_test_document(&format!("u/{i}"), "", "alpha beta gamma delta", main)
                .unwrap();
        }
        (dir, s)
    }

    #[test]
    fn a_run_on_the_main_text_says_when_none_was_extracted() {
        let on_main = CooperSettings {
            text: TextKind::Main,
            ..CooperSettings::default()
        };
        let (_d, mut without) = store_with(None);
        let r = run_with::<Cooper>(&mut without, &on_main).unwrap();
        assert_eq!(r.summary["note"], NO_MAIN_TEXT);
        assert!(r.line().contains("--main"), "{}", r.line());
        let (_d, mut with) = store_with(Some("alpha beta gamma delta"));
        let r = run_with::<Cooper>(&mut with, &on_main).unwrap();
        assert!(r.summary.get("note").is_none());
        let r = run_with::<Cooper>(&mut without, &CooperSettings::default()).unwrap();
        assert!(
            r.summary.get("note").is_none(),
            "the content text needs no main text"
        );
    }
}
