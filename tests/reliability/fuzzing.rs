//! Fuzzing in CI: the parsers of crawled bytes (`spotcheck::fuzz_entry`: WARC and ARC
//! records, HTTP heads and chunking, gzip members and content codings, charset decoding,
//! HTML extraction) get (1) every input of `fuzz/seeds/TARGET/` (small made-up files the
//! cargo-fuzz runs start from) and `fuzz/regressions/TARGET/` (inputs that once found a
//! fault, kept for good) replayed, and (2) proptest inputs: arbitrary bytes, and the seeds
//! damaged (bytes flipped, ranges deleted, duplicated or cut off). Each entry point
//! panics only when an invariant breaks (the reader must end and move forward, offsets lie
//! inside the input, outputs respect their limits, decoders agree); a parser's own panic is
//! a failure too. The unbounded search runs by hand with cargo-fuzz (`fuzz/`, README).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use spotcheck::fuzz_entry::TARGETS;

fn fuzz_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz"))
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// The seeds of each target, in the order of [`TARGETS`].
fn seeds() -> &'static Vec<Vec<Vec<u8>>> {
    static SEEDS: OnceLock<Vec<Vec<Vec<u8>>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        TARGETS
            .iter()
            .map(|(name, _)| {
                files_in(&fuzz_dir().join("seeds").join(name))
                    .iter()
                    .map(|p| std::fs::read(p).unwrap())
                    .collect()
            })
            .collect()
    })
}

#[test]
fn seeds_and_found_inputs_replay_cleanly() {
    let mut replayed = 0;
    for (name, run) in TARGETS {
        let seeds = files_in(&fuzz_dir().join("seeds").join(name));
        assert!(!seeds.is_empty(), "fuzz/seeds/{name}/ has no seed");
        let found = files_in(&fuzz_dir().join("regressions").join(name));
        for p in seeds.iter().chain(&found) {
            let bytes = std::fs::read(p).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&bytes));
            assert!(outcome.is_ok(), "{name} on {}", p.display());
            replayed += 1;
        }
    }
    // Every folder of found inputs belongs to a target (a renamed target keeps its inputs).
    if let Ok(dirs) = std::fs::read_dir(fuzz_dir().join("regressions")) {
        for d in dirs {
            let d = d.unwrap();
            if !d.path().is_dir() {
                continue;
            }
            let name = d.file_name().to_string_lossy().to_string();
            assert!(
                TARGETS.iter().any(|(t, _)| *t == name),
                "fuzz/regressions/{name}/ names no target"
            );
        }
    }
    eprintln!("fuzz inputs replayed: {replayed}");
}

/// One kind of damage at a relative position (0..=u16::MAX over the input's length).
#[derive(Debug, Clone)]
enum Edit {
    Flip(u16, u8),
    Delete(u16, u16),
    Duplicate(u16, u16, u16),
    Truncate(u16),
}

fn at(rel: u16, len: usize) -> usize {
    rel as usize * len / (u16::MAX as usize + 1)
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len();
        if len == 0 {
            break;
        }
        match *e {
            Edit::Flip(p, x) => bytes[at(p, len)] ^= x.max(1),
            Edit::Delete(p, n) => {
                let from = at(p, len);
                let to = (from + n as usize % 512).min(len);
                bytes.drain(from..to);
            }
            Edit::Duplicate(p, n, dest) => {
                let from = at(p, len);
                let to = (from + n as usize % 512).min(len);
                let copy = bytes[from..to].to_vec();
                let d = at(dest, len);
                bytes.splice(d..d, copy);
            }
            Edit::Truncate(p) => bytes.truncate(at(p, len)),
        }
    }
    bytes
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<u16>(), any::<u8>()).prop_map(|(p, x)| Edit::Flip(p, x)),
        2 => (any::<u16>(), any::<u16>()).prop_map(|(p, n)| Edit::Delete(p, n)),
        2 => (any::<u16>(), any::<u16>(), any::<u16>()).prop_map(|(p, n, d)| Edit::Duplicate(p, n, d)),
        1 => any::<u16>().prop_map(Edit::Truncate),
    ]
}

/// Arbitrary bytes, or a seed of target `t` damaged by a few edits.
fn input(t: usize) -> impl Strategy<Value = Vec<u8>> {
    let n = seeds()[t].len().max(1);
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..1024),
        3 => (0..n, prop::collection::vec(edit(), 1..6)).prop_map(move |(i, edits)| {
            let seed = seeds()[t].get(i).cloned().unwrap_or_default();
            apply(seed, &edits)
        }),
    ]
}

/// Cases per target: 96 in CI; `SPOTCHECK_FUZZ_CASES=N` runs a longer search by hand.
fn cases() -> u32 {
    std::env::var("SPOTCHECK_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(96)
}

fn run(t: usize, bytes: &[u8]) {
    (TARGETS[t].1)(bytes);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn warc_records_hold_their_invariants(bytes in input(0)) {
        run(0, &bytes);
    }

    #[test]
    fn arc_records_hold_their_invariants(bytes in input(1)) {
        run(1, &bytes);
    }

    #[test]
    fn http_heads_hold_their_invariants(bytes in input(2)) {
        run(2, &bytes);
    }

    #[test]
    fn gzip_members_hold_their_invariants(bytes in input(3)) {
        run(3, &bytes);
    }

    #[test]
    fn charset_decoding_holds_its_invariants(bytes in input(4)) {
        run(4, &bytes);
    }

    #[test]
    fn html_extraction_holds_its_invariants(bytes in input(5)) {
        run(5, &bytes);
    }
}

#[test]
fn the_targets_are_in_the_order_the_properties_use() {
    let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "warc_records",
            "arc_records",
            "http_head",
            "gzip_members",
            "charset_decode",
            "html_extract"
        ]
    );
}
