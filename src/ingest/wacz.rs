//! WACZ (Web Archive Collection Zipped, as Browsertrix, ArchiveWeb.page and py-wacz write
//! it): a zip holding `archive/*.warc(.gz)`, `pages/pages.jsonl` and `datapackage.json`.
//!
//! The WARCs inside are read in place, never unpacked to disk: a stored entry (the WACZ
//! rule, so that replay can seek) is a window of the zip file under the usual WARC reader,
//! and its records' offsets are offsets in the `.wacz` file itself; a deflated entry is
//! decompressed into memory and its records are numbered `(entry + 1) << 40 | offset`.
//! Page titles, and the page text where the crawler stored one, come from
//! `pages/pages.jsonl` (and `extraPages.jsonl`). Every resource `datapackage.json` lists is
//! hashed and compared; a mismatch, a missing or damaged entry is a [`RecordError`] naming
//! the entry, and everything readable still goes in.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::pending::Stepped;
use super::stream::Stream;
use super::warc::WarcReader;
use super::{ReadItem, ReaderOptions, RecordError};

/// The largest deflated WARC entry decompressed into memory.
const MAX_INFLATED_ENTRY: u64 = 2 << 30;

/// A byte window `[base, base + len)` of a file, seen as a file of its own.
struct Window {
    file: File,
    base: u64,
    len: u64,
    pos: u64,
}

impl Read for Window {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        if left == 0 {
            return Ok(0);
        }
        let want = (out.len() as u64).min(left) as usize;
        self.file.seek(SeekFrom::Start(self.base + self.pos))?;
        let n = self.file.read(&mut out[..want])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Window {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| io::Error::other("seek before the window's start"))?;
        Ok(self.pos)
    }
}

/// A WARC inside the zip.
#[derive(Debug, Clone)]
struct WarcEntry {
    index: usize,
    name: String,
    stored: bool,
    data_start: u64,
    size: u64,
}

/// What `pages.jsonl` says about a page.
#[derive(Debug, Clone, Default)]
struct PageInfo {
    title: Option<String>,
    text: Option<String>,
}

#[derive(Deserialize)]
struct PageLine {
    url: Option<String>,
    title: Option<String>,
    text: Option<String>,
}

#[derive(Deserialize)]
struct DataPackage {
    #[serde(default)]
    resources: Vec<Resource>,
}

#[derive(Deserialize)]
struct Resource {
    path: String,
    hash: Option<String>,
}

/// Iterates over the records of every WARC in a WACZ, after its checks' errors.
pub struct WaczReader {
    path: std::path::PathBuf,
    opts: ReaderOptions,
    out: VecDeque<ReadItem>,
    entries: VecDeque<WarcEntry>,
    pages: HashMap<String, PageInfo>,
    /// The WARC being read: its reader and how its offsets map into the WACZ's.
    current: Option<(Box<dyn Iterator<Item = ReadItem> + Send>, u64, String)>,
}

type Zip = zip::ZipArchive<File>;

impl WaczReader {
    pub fn new(path: &Path, opts: &ReaderOptions) -> WaczReader {
        let mut r = WaczReader {
            path: path.to_path_buf(),
            opts: opts.clone(),
            out: VecDeque::new(),
            entries: VecDeque::new(),
            pages: HashMap::new(),
            current: None,
        };
        let zip = File::open(path)
            .map_err(|e| format!("unreadable: {e}"))
            .and_then(|f| Zip::new(f).map_err(|e| format!("not a readable zip archive: {e}")));
        match zip {
            Ok(mut zip) => r.survey(&mut zip),
            Err(reason) => r.error(0, reason),
        }
        r
    }

    fn error(&mut self, offset: u64, reason: String) {
        self.out
            .push_back(ReadItem::Error(RecordError { offset, reason }));
    }

    /// Lists the entries, checks the datapackage hashes, reads the page list.
    fn survey(&mut self, zip: &mut Zip) {
        let mut by_name: HashMap<String, (usize, u64)> = HashMap::new();
        for index in 0..zip.len() {
            let listed = zip
                .name_for_index(index)
                .and_then(Result::ok)
                .map_or_else(|| format!("entry {index}"), |n| n.into_owned());
            let entry = match zip.by_index(index) {
                Ok(e) => e,
                Err(e) => {
                    self.error(0, format!("{listed}: bad zip entry: {e}"));
                    continue;
                }
            };
            let Ok(name) = entry.name().map(|n| n.into_owned()) else {
                self.error(
                    entry.header_start(),
                    format!("entry {index}: unreadable name"),
                );
                continue;
            };
            let data_start = entry.data_start().unwrap_or_else(|| entry.header_start());
            by_name.insert(name.clone(), (index, data_start));
            let lower = name.to_ascii_lowercase();
            let is_warc = lower.starts_with("archive/")
                && (lower.ends_with(".warc") || lower.ends_with(".warc.gz"));
            if is_warc {
                self.entries.push_back(WarcEntry {
                    index,
                    name,
                    stored: entry.compression() == zip::CompressionMethod::Stored,
                    data_start,
                    size: entry.size(),
                });
            }
        }
        self.check_datapackage(zip, &by_name);
        for pages in ["pages/pages.jsonl", "pages/extraPages.jsonl"] {
            if let Some(&(index, start)) = by_name.get(pages) {
                self.read_pages(zip, index, start, pages);
            }
        }
        if self.entries.is_empty() {
            self.error(0, "no WARC files under archive/ in this WACZ".into());
        }
    }

    fn check_datapackage(&mut self, zip: &mut Zip, by_name: &HashMap<String, (usize, u64)>) {
        let Some(&(index, start)) = by_name.get("datapackage.json") else {
            self.error(
                0,
                "datapackage.json missing: the archive's hashes cannot be checked".into(),
            );
            return;
        };
        let mut text = Vec::new();
        let read = zip
            .by_index(index)
            .map_err(|e| e.to_string())
            .and_then(|mut f| f.read_to_end(&mut text).map_err(|e| e.to_string()));
        if let Err(e) = read {
            self.error(start, format!("datapackage.json: bad zip entry: {e}"));
            return;
        }
        let package: DataPackage = match serde_json::from_slice(&text) {
            Ok(p) => p,
            Err(e) => {
                self.error(start, format!("datapackage.json: bad json: {e}"));
                return;
            }
        };
        for res in package.resources {
            let Some(&(index, data_start)) = by_name.get(&res.path) else {
                self.error(
                    0,
                    format!(
                        "{}: listed in datapackage.json but not in the zip",
                        res.path
                    ),
                );
                continue;
            };
            let Some(hash) = res.hash else { continue };
            let Some(want) = hash.strip_prefix("sha256:") else {
                // Other digests (md5) are rare in WACZ; say so rather than pass silently.
                self.error(
                    data_start,
                    format!("{}: hash {hash:?} not checked (only sha256)", res.path),
                );
                continue;
            };
            let mut hasher = Sha256::new();
            let got = zip
                .by_index(index)
                .map_err(|e| e.to_string())
                .and_then(|mut f| io::copy(&mut f, &mut hasher).map_err(|e| e.to_string()));
            match got {
                Err(e) => self.error(data_start, format!("{}: bad zip entry: {e}", res.path)),
                Ok(_) => {
                    let got = crate::sig::imatch::to_hex(&hasher.finalize());
                    if !got.eq_ignore_ascii_case(want.trim()) {
                        self.error(
                            data_start,
                            format!(
                                "{}: hash mismatch: datapackage.json says sha256:{want}, the \
                                 entry's bytes hash to sha256:{got}",
                                res.path
                            ),
                        );
                    }
                }
            }
        }
    }

    fn read_pages(&mut self, zip: &mut Zip, index: usize, start: u64, name: &str) {
        let mut text = Vec::new();
        let read = zip
            .by_index(index)
            .map_err(|e| e.to_string())
            .and_then(|mut f| f.read_to_end(&mut text).map_err(|e| e.to_string()));
        if let Err(e) = read {
            self.error(start, format!("{name}: bad zip entry: {e}"));
            return;
        }
        for (n, line) in text.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<PageLine>(line) {
                // The first line is a header (`{"format": "json-pages-1.0", ...}`).
                Ok(PageLine { url: None, .. }) => {}
                Ok(PageLine {
                    url: Some(url),
                    title,
                    text,
                }) => {
                    let info = self.pages.entry(url).or_default();
                    info.title = title.filter(|t| !t.trim().is_empty()).or(info.title.take());
                    info.text = text.filter(|t| !t.trim().is_empty()).or(info.text.take());
                }
                Err(e) => self.error(start, format!("{name} line {}: bad json: {e}", n + 1)),
            }
        }
    }

    /// Opens the next WARC entry; false when there is none.
    fn open_next(&mut self) -> bool {
        let Some(entry) = self.entries.pop_front() else {
            return false;
        };
        let gzip = entry.name.to_ascii_lowercase().ends_with(".gz");
        let (source, base): (Box<dyn super::stream::ByteSource>, u64) = if entry.stored {
            match File::open(&self.path) {
                Ok(file) => (
                    Box::new(Window {
                        file,
                        base: entry.data_start,
                        len: entry.size,
                        pos: 0,
                    }),
                    entry.data_start,
                ),
                Err(e) => {
                    self.error(entry.data_start, format!("{}: unreadable: {e}", entry.name));
                    return true;
                }
            }
        } else {
            match self.inflate(&entry) {
                Ok(bytes) => (
                    Box::new(io::Cursor::new(bytes)),
                    ((entry.index as u64) + 1) << 40,
                ),
                Err(reason) => {
                    self.error(entry.data_start, format!("{}: {reason}", entry.name));
                    return true;
                }
            }
        };
        // The stream sniffs gzip itself only for files; the entry's name tells here, and a
        // gzip WARC without `.gz` is caught by its magic bytes.
        let mut source = source;
        let mut magic = [0u8; 2];
        let gzip = match source.read(&mut magic) {
            Ok(2) => magic == [0x1f, 0x8b],
            _ => gzip,
        };
        if source.seek(SeekFrom::Start(0)).is_err() {
            self.error(entry.data_start, format!("{}: cannot rewind", entry.name));
            return true;
        }
        let reader = WarcReader::new(Stream::from_source(source, gzip), &self.opts);
        self.current = Some((Box::new(Stepped(reader)), base, entry.name));
        true
    }

    fn inflate(&self, entry: &WarcEntry) -> Result<Vec<u8>, String> {
        if entry.size > MAX_INFLATED_ENTRY {
            return Err(format!(
                "deflated entry of {} bytes is too large to read in memory (WACZ archives \
                 should store WARCs uncompressed in the zip)",
                entry.size
            ));
        }
        let file = File::open(&self.path).map_err(|e| format!("unreadable: {e}"))?;
        let mut zip = Zip::new(file).map_err(|e| format!("bad zip: {e}"))?;
        let mut f = zip
            .by_index(entry.index)
            .map_err(|e| format!("bad zip entry: {e}"))?;
        let mut bytes = Vec::with_capacity(entry.size as usize);
        f.read_to_end(&mut bytes)
            .map_err(|e| format!("bad zip entry: {e}"))?;
        Ok(bytes)
    }

    /// A record or error of the current WARC, mapped into the WACZ's terms.
    fn in_wacz_terms(&self, item: ReadItem, base: u64, name: &str) -> ReadItem {
        match item {
            ReadItem::Error(e) => ReadItem::Error(RecordError {
                offset: base + e.offset,
                reason: format!("{name}: {}", e.reason),
            }),
            ReadItem::Record(mut r) => {
                if let Some(loc) = r.locator.as_mut() {
                    loc.offset += base;
                }
                if r.body.is_some() {
                    if let Some(page) = r.url.as_deref().and_then(|u| self.pages.get(u)) {
                        r.given_title = page.title.clone();
                        // The crawler's text is what the browser rendered (scripts run):
                        // better than what the raw HTML shows.
                        if let Some(text) = &page.text {
                            if text.len() <= self.opts.max_body_bytes {
                                r.body = Some(text.clone().into_bytes());
                                r.body_is_text = true;
                                r.header_charset = None;
                            }
                        }
                    }
                }
                ReadItem::Record(r)
            }
        }
    }
}

impl Iterator for WaczReader {
    type Item = ReadItem;

    fn next(&mut self) -> Option<ReadItem> {
        loop {
            if let Some(item) = self.out.pop_front() {
                return Some(item);
            }
            if let Some((reader, base, name)) = self.current.as_mut() {
                match reader.next() {
                    Some(item) => {
                        let (base, name) = (*base, name.clone());
                        return Some(self.in_wacz_terms(item, base, &name));
                    }
                    None => self.current = None,
                }
            }
            if !self.open_next() {
                return None;
            }
        }
    }
}
