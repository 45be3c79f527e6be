//! Builds the bundled demo crawl `assets/demo/sqlite-docs.warc.gz` from three releases of
//! SQLite's documentation (public domain), as unpacked by `../shared/corpus/debian-docs.sh`
//! (`~/.cache/debian-docs/unpacked/sqlite3-doc_*`). Each release becomes one crawl of
//! `https://sqlite.org/<release>/<page>` (pages whose bytes did not change since the last
//! crawl become revisits); a re-crawl the next day revisits three unchanged pages, the way
//! a deduplicating crawler does.
//!
//! Run: `cargo run --example make_demo_crawl -- OUT.warc.gz DIR_3.34 DIR_3.40 DIR_3.46`

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use spotcheck::ingest::warc_write::WarcWriter;

/// Pages of the manual in the demo: different pages share one template (look-alikes), the
/// same page across releases is a near-duplicate.
const PAGES: &[&str] = &[
    "lockingv3.html",
    "lang_transaction.html",
    "lang_analyze.html",
    "lang_explain.html",
    "limits.html",
    "whentouse.html",
    "famous.html",
    "arch.html",
    "backup.html",
    "unlock_notify.html",
    "appfileformat.html",
    "whynotgit.html",
    "privatebranch.html",
    "loadext.html",
    "tempfiles.html",
    "speed.html",
    "np1queryprob.html",
];

/// Release-note pages of the newest release: same template, different text.
const RELEASE_NOTES: &[&str] = &[
    "releaselog/3_39_2.html",
    "releaselog/3_38_2.html",
    "releaselog/3_7_14.html",
    "releaselog/3_6_18.html",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [out, dirs @ ..] = args.as_slice() else {
        return Err("usage: make_demo_crawl OUT.warc.gz DIR...".into());
    };
    let releases = [
        ("3.34", "2021-01-20"),
        ("3.40", "2022-11-16"),
        ("3.46", "2024-08-13"),
    ];
    let mut w = WarcWriter::new(BufWriter::new(File::create(out)?), true);
    w.warcinfo(
        "2024-08-13T00:00:00Z",
        "software: spotcheck make_demo_crawl\r\nformat: WARC File Format 1.1\r\n\
         description: SQLite documentation (public domain), three releases\r\n",
    )?;
    let mut previous: Vec<(String, String, String, String, Vec<u8>)> = Vec::new();
    for ((release, day), dir) in releases.iter().zip(dirs) {
        let date = format!("{day}T12:00:00Z");
        let mut this_crawl = Vec::new();
        let last = *release == "3.46";
        let pages = PAGES
            .iter()
            .chain(if last { RELEASE_NOTES } else { &[] }.iter());
        for page in pages {
            let body = std::fs::read(dir.join(page))?;
            let url = format!("https://sqlite.org/{release}/{page}");
            // The newest crawl revisits pages whose bytes did not change since the last.
            let unchanged = previous
                .iter()
                .find(|(u, ..)| u.ends_with(&format!("/{page}")))
                .filter(|(.., b)| *b == body);
            if let Some((old_url, old_id, old_date, digest, _)) = unchanged {
                w.revisit(&url, &date, old_id, old_url, old_date, digest)?;
                continue;
            }
            let (id, digest) = w.response(&url, &date, "text/html; charset=utf-8", &body)?;
            this_crawl.push((url, id, date.clone(), digest, body));
        }
        previous = this_crawl;
    }
    // A re-crawl the next day finds three pages unchanged and writes revisits for them.
    for (url, id, date, digest, _) in previous.iter().take(3) {
        w.revisit(url, "2024-08-14T12:00:00Z", id, url, date, digest)?;
    }
    w.into_inner().into_inner()?.sync_all()?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
