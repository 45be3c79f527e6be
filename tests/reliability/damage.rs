//! The damage suite: real WARC and ARC files from `../shared/corpus/warc/real`, damaged
//! with a fixed seed (truncated, bytes flipped, a range deleted, a range duplicated), are
//! ingested by the real binary under a watchdog (a run past [`WATCHDOG`] is killed and
//! fails the test: a hang is a failure, never a timing assertion). An independent reader
//! (warcio, in the venv `examples/formats/venv.sh` makes) reads the same damaged files:
//! every response, resource and revisit record it reads whole and unchanged (the same
//! headers and content as in the undamaged file) must be among the captures spotcheck
//! kept, and a file that lost records must have error rows naming it with an offset
//! inside it. No panic, exit 0 (damage is data, not a failure of the run).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;

/// The files damaged: an uncompressed WARC, three gzipped WARCs of different crawlers and
/// an ARC (about 2.6 MB together).
const FILES: &[&str] = &[
    "books.toscrape.warc",
    "nutch-warcfile.warc.gz",
    "ukwa-govuk-crawl2-revisits.warc.gz",
    "wget-sample-0000.warc.gz",
    "IAH-20080430204825-00000-blackbook.arc.gz",
];

/// Damaged copies made of each file (cycling through the kinds of damage).
const SEEDS_PER_FILE: u64 = 8;

/// A generous limit for one ingest of all damaged files (a debug build takes seconds).
const WATCHDOG: Duration = Duration::from_secs(300);

/// splitmix64: a fixed sequence from a seed, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Damages `bytes` with the kind of damage `seed` picks; says what it did.
fn damage(bytes: &[u8], seed: u64) -> (Vec<u8>, String) {
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x17);
    let len = bytes.len();
    match seed % 4 {
        0 => {
            let at = rng.below(len);
            (bytes[..at].to_vec(), format!("truncated at {at}"))
        }
        1 => {
            let mut out = bytes.to_vec();
            let n = 1 + rng.below(8);
            let mut at = Vec::new();
            for _ in 0..n {
                let i = rng.below(len);
                out[i] ^= 1 + rng.below(255) as u8;
                at.push(i);
            }
            (out, format!("{n} bytes flipped at {at:?}"))
        }
        2 => {
            let from = rng.below(len);
            let to = (from + 1 + rng.below(64 * 1024)).min(len);
            let mut out = bytes[..from].to_vec();
            out.extend_from_slice(&bytes[to..]);
            (out, format!("deleted {from}..{to}"))
        }
        _ => {
            let from = rng.below(len);
            let to = (from + 1 + rng.below(64 * 1024)).min(len);
            let at = rng.below(len);
            let mut out = bytes[..at].to_vec();
            out.extend_from_slice(&bytes[from..to]);
            out.extend_from_slice(&bytes[at..]);
            (out, format!("{from}..{to} duplicated at {at}"))
        }
    }
}

/// A record as both readers name it: type, target URI, date (digits only).
type Key = (String, String, String);

/// What warcio read of one file: the records read whole (key and content hash), and why
/// it stopped early if it did.
struct Independent {
    records: Vec<(Key, String)>,
    stopped: Option<String>,
}

/// The venv's python, or `None` after a skip that says why.
fn warcio_python() -> Option<PathBuf> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/formats/venv.sh");
    match Command::new("bash").arg(script).output() {
        Ok(o) if o.status.success() => Some(PathBuf::from(
            String::from_utf8_lossy(&o.stdout).trim().to_string(),
        )),
        Ok(o) => {
            common::skip(&format!(
                "examples/formats/venv.sh failed (warcio, the independent reader, is missing): {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
            None
        }
        Err(e) => {
            common::skip(&format!("cannot run examples/formats/venv.sh: {e}"));
            None
        }
    }
}

fn read_independently(python: &Path, files: &[PathBuf]) -> BTreeMap<PathBuf, Independent> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reliability/warcio_records.py"
    );
    let out = Command::new(python)
        .arg(script)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "warcio_records.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut all = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
        let records = v["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| ((s(&r["type"]), s(&r["url"]), s(&r["date"])), s(&r["sha1"])))
            .collect();
        all.insert(
            PathBuf::from(s(&v["file"])),
            Independent {
                records,
                stopped: v["stopped"].as_str().map(String::from),
            },
        );
    }
    all
}

/// The captures spotcheck kept of each source file, and its error rows' offsets.
fn kept(
    db: &Path,
) -> (
    BTreeMap<PathBuf, BTreeSet<Key>>,
    BTreeMap<PathBuf, Vec<i64>>,
) {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut captures: BTreeMap<PathBuf, BTreeSet<Key>> = BTreeMap::new();
    let mut st = c
        .prepare(
            "SELECT s.path, c.record_type, coalesce(c.url, ''), coalesce(c.date, '')
             FROM captures c JOIN sources s ON s.id = c.source_id",
        )
        .unwrap();
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (path, t, url, date) = row.unwrap();
        let digits: String = date.chars().filter(char::is_ascii_digit).take(14).collect();
        captures
            .entry(PathBuf::from(path))
            .or_default()
            .insert((t, url, digits));
    }
    let mut errors: BTreeMap<PathBuf, Vec<i64>> = BTreeMap::new();
    let mut st = c
        .prepare("SELECT source_path, offset FROM ingest_errors")
        .unwrap();
    let rows = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .unwrap();
    for row in rows {
        let (path, offset) = row.unwrap();
        errors.entry(PathBuf::from(path)).or_default().push(offset);
    }
    (captures, errors)
}

/// Ingests `files` into `db` under the watchdog: stderr, or a failure naming the files.
fn ingest_watched(db: &Path, files: &[PathBuf]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spotcheck"))
        .args(["ingest", "--db"])
        .arg(db)
        .arg("--quiet")
        .args(files)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // A watchdog, not a measurement: polls until the child ends or the limit passes.
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > WATCHDOG {
            child.kill().ok();
            child.wait().ok();
            panic!(
                "ingest of the damaged files still running after {WATCHDOG:?}: killed (a hang); files {files:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    use std::io::Read;
    child.stderr.take().unwrap().read_to_string(&mut err).ok();
    assert!(!err.contains("panicked"), "ingest panicked: {err}");
    assert!(
        status.success(),
        "ingest of damaged files failed ({status}): {err}"
    );
    err
}

#[test]
fn damaged_real_warcs_keep_every_record_an_independent_reader_reads() {
    let Some(real) = common::corpus("warc/real") else {
        return;
    };
    // As `sources.path` stores it.
    let real = real.canonicalize().unwrap();
    let Some(python) = warcio_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut originals = Vec::new();
    let mut damaged = Vec::new();
    let mut what = BTreeMap::new();
    for (i, name) in FILES.iter().enumerate() {
        let path = real.join(name);
        let bytes = std::fs::read(&path).unwrap();
        originals.push(path);
        for k in 0..SEEDS_PER_FILE {
            let seed = i as u64 * 100 + k;
            let (bytes, how) = damage(&bytes, seed);
            // The name keeps the extension: it tells the reader the format.
            let p = dir.path().join(format!("d{seed}-{name}"));
            std::fs::write(&p, bytes).unwrap();
            what.insert(p.clone(), format!("{name} {how}"));
            damaged.push(p);
        }
    }

    // Calibration: on the undamaged files both readers name the same records.
    let db0 = dir.path().join("originals.db");
    ingest_watched(&db0, &originals);
    let (kept0, errors0) = kept(&db0);
    let indep0 = read_independently(&python, &originals);
    let mut intact: BTreeMap<(Key, String), ()> = BTreeMap::new();
    for p in &originals {
        let ind = &indep0[p];
        assert!(ind.stopped.is_none(), "warcio on {p:?}: {:?}", ind.stopped);
        let theirs: BTreeSet<Key> = ind.records.iter().map(|(k, _)| k.clone()).collect();
        let ours = kept0.get(p).cloned().unwrap_or_default();
        assert_eq!(
            ours, theirs,
            "{p:?}: the captures spotcheck keeps vs the records warcio reads"
        );
        assert!(!errors0.contains_key(p), "{p:?} has errors undamaged");
        for r in &ind.records {
            intact.insert(r.clone(), ());
        }
    }

    let db = dir.path().join("damaged.db");
    ingest_watched(&db, &damaged);
    let (kept, errors) = kept(&db);
    let indep = read_independently(&python, &damaged);
    let (mut read_whole, mut unchanged, mut lost_files, mut warcio_stopped) = (0, 0, 0, 0);
    for p in &damaged {
        let ind = &indep[p];
        let ours = kept.get(p).cloned().unwrap_or_default();
        if ind.stopped.is_some() {
            warcio_stopped += 1;
        }
        for r in &ind.records {
            read_whole += 1;
            if !intact.contains_key(r) {
                // Read whole but not as it was (the damage is inside it): either may keep it.
                continue;
            }
            unchanged += 1;
            assert!(
                ours.contains(&r.0),
                "{} ({}): warcio reads {:?} whole and unchanged, spotcheck did not keep it; \
                 errors {:?}",
                p.display(),
                what[p],
                r.0,
                errors.get(p)
            );
        }
        // A file that lost records says where: an error row naming it, inside it.
        let name = p.file_name().unwrap().to_str().unwrap();
        let original = FILES
            .iter()
            .position(|f| name.ends_with(&format!("-{f}")))
            .unwrap();
        let had = kept0[&originals[original]].len();
        let size = std::fs::metadata(p).unwrap().len() as i64;
        if ours.len() < had {
            lost_files += 1;
            let offsets = errors.get(p).cloned().unwrap_or_default();
            assert!(
                !offsets.is_empty(),
                "{} ({}): {} of {had} captures kept and no error row",
                p.display(),
                what[p],
                ours.len()
            );
            assert!(
                offsets.iter().all(|&o| (0..=size).contains(&o)),
                "{} ({}): error offsets {offsets:?} outside the file ({size} bytes)",
                p.display(),
                what[p]
            );
        }
    }
    let ours_total: usize = kept.values().map(BTreeSet::len).sum();
    let error_rows: usize = errors.values().map(Vec::len).sum();
    eprintln!(
        "damage: {} damaged files; warcio read {read_whole} records whole ({unchanged} \
         unchanged, all kept by spotcheck) and gave up early on {warcio_stopped} files; \
         spotcheck kept {ours_total} captures, {error_rows} error rows; {lost_files} files \
         lost records, each with error rows",
        damaged.len()
    );
}
