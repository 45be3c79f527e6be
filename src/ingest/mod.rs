//! Crawl readers: WARC/ARC files (plain, gzip per record, whole-file gzip; WET's text
//! `conversion` records too), WACZ zips, folders of HTML/text pages, JSONL, and page tables
//! (CSV and Parquet, the AUT/ARCH web-page derivatives among them). They turn bytes on disk into [`CrawlRecord`]s with a
//! [`Locator`] that can reopen the raw record, and into [`RecordError`]s that say where a
//! file is damaged. Readers never touch SQLite or the terminal; the ingest command in
//! `cmd::ingest` drives them.

mod arc;
mod block;
pub mod date;
pub mod http;
mod inputs;
mod jsonl;
mod pending;
pub mod record;
mod stream;
pub mod table;
mod wacz;
mod warc;
pub mod warc_write;

use pending::Stepped;
pub use record::{Compression, CrawlRecord, Locator, ReadItem, RecordError};

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

/// The kinds of input files spotcheck reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    Warc,
    Arc,
    Jsonl,
    /// One HTML page (from a folder, or named directly).
    Html,
    /// One plain-text page.
    Text,
    /// A WACZ zip (WARCs, page list, datapackage hashes).
    Wacz,
    /// A CSV page table, or an AUT/ARCH web-pages derivative part file.
    Csv,
    /// A Parquet page table (AUT/ARCH derivatives too).
    Parquet,
}

impl InputFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Warc => "warc",
            InputFormat::Arc => "arc",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Html => "html",
            InputFormat::Text => "text",
            InputFormat::Wacz => "wacz",
            InputFormat::Csv => "csv",
            InputFormat::Parquet => "parquet",
        }
    }
}

/// One file to read, found from the paths named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    pub path: PathBuf,
    pub format: InputFormat,
    /// For single-page files: the document URL, i.e. the path relative to the folder named
    /// on the command line (or the file name when the file itself was named).
    pub page_url: Option<String>,
}

/// Why a path named on the command line cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{}: no such file or directory", .0.display())]
    Missing(PathBuf),
    #[error("{path}: not a WARC, ARC, WACZ, JSONL, CSV, Parquet, HTML or text file (first bytes: {first})", path = .0.display(), first = .1)]
    Unrecognized(PathBuf, String),
    #[error("{}: the directory holds no .html, .htm, .txt, WARC, ARC, WACZ, JSONL, CSV or Parquet files", .0.display())]
    EmptyDirectory(PathBuf),
    #[error("{path}: {err}", path = .0.display(), err = .1)]
    Io(PathBuf, std::io::Error),
}

/// Limits every reader applies.
#[derive(Debug, Clone)]
pub struct ReaderOptions {
    /// Payloads larger than this (after de-chunking and decompression) are not buffered; the
    /// record becomes an error "page too large".
    pub max_body_bytes: usize,
    /// Which columns of a page table (CSV, Parquet) hold the URL, page, date and title.
    pub columns: table::ColumnMap,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            max_body_bytes: crate::extract::DEFAULT_MAX_PAGE_BYTES,
            columns: table::ColumnMap::default(),
        }
    }
}

/// Expands the command line's paths into files to read, sniffing each file's format from
/// its first bytes. Folders are walked recursively in sorted order.
pub fn expand_inputs(paths: &[PathBuf]) -> Result<Vec<InputFile>, InputError> {
    inputs::expand(paths)
}

/// Opens a reader over one input file. I/O errors after opening become
/// [`ReadItem::Error`]s; the iterator always ends.
pub fn open_reader(
    input: &InputFile,
    opts: &ReaderOptions,
) -> std::io::Result<Box<dyn Iterator<Item = ReadItem> + Send>> {
    match input.format {
        InputFormat::Warc => Ok(Box::new(Stepped(warc::WarcReader::new(
            open_stream(input)?,
            opts,
        )))),
        InputFormat::Arc => Ok(Box::new(Stepped(arc::ArcReader::new(
            open_stream(input)?,
            opts,
        )))),
        InputFormat::Jsonl => Ok(Box::new(Stepped(jsonl::JsonlReader::new(
            open_stream(input)?,
            opts,
        )))),
        InputFormat::Wacz => Ok(Box::new(wacz::WaczReader::new(&input.path, opts))),
        InputFormat::Csv => Ok(Box::new(Stepped(table::CsvReader::new(&input.path, opts)))),
        InputFormat::Parquet => Ok(Box::new(Stepped(table::ParquetReader::new(
            &input.path,
            opts,
        )))),
        InputFormat::Html | InputFormat::Text => {
            let items = read_page(input, opts)?;
            Ok(Box::new(items.into_iter()))
        }
    }
}

/// Reads WARC (or, with `arc`, ARC) records from bytes in memory, gzip or not according to
/// their first bytes, as [`open_reader`] reads a file: the entry point of the fuzz targets
/// (`fuzz/`) and of the property tests over damaged records. The iterator always ends.
pub fn read_crawl_bytes(
    bytes: Vec<u8>,
    arc: bool,
    opts: &ReaderOptions,
) -> Box<dyn Iterator<Item = ReadItem> + Send> {
    let gzip = bytes.starts_with(&[0x1f, 0x8b]);
    let stream = stream::Stream::from_source(Box::new(std::io::Cursor::new(bytes)), gzip);
    if arc {
        Box::new(Stepped(arc::ArcReader::new(stream, opts)))
    } else {
        Box::new(Stepped(warc::WarcReader::new(stream, opts)))
    }
}

/// Opens a crawl file as a logical stream, gzip or not according to its first bytes.
fn open_stream(input: &InputFile) -> std::io::Result<stream::Stream> {
    let mut file = File::open(&input.path)?;
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        let n = file.read(&mut magic[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    let gzip = got == 2 && magic == [0x1f, 0x8b];
    let file = File::open(&input.path)?;
    Ok(stream::Stream::open(file, gzip))
}

/// A single-page input read once: its size in bytes, the SHA-1 of all its bytes (the
/// source's identity), and its records, as [`open_reader`] gives them (the body, within the
/// size limit, is the whole file, so its SHA-1 comes along in `body_sha1`).
pub fn read_page_with_digest(
    input: &InputFile,
    opts: &ReaderOptions,
) -> std::io::Result<(u64, [u8; 20], Vec<ReadItem>)> {
    use sha1::{Digest, Sha1};
    let max = opts.max_body_bytes;
    let mut file = File::open(&input.path)?;
    let len = file.metadata()?.len();
    let mut hasher = Sha1::new();
    let mut size = 0u64;
    let mut body = None;
    if len <= max as u64 {
        let mut bytes = Vec::with_capacity(len as usize);
        // Read at most the limit even if the file grew since we looked.
        (&mut file)
            .take((max as u64).saturating_add(1))
            .read_to_end(&mut bytes)?;
        hasher.update(&bytes);
        size += bytes.len() as u64;
        body = Some(bytes);
    }
    // The rest of a file too large to keep is hashed, not kept (usually there is no rest).
    let mut buf = [0u8; 16 << 10];
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    let digest: [u8; 20] = hasher.finalize().into();
    let record = page_record(input, len);
    let mut items = Vec::new();
    match body {
        Some(bytes) if bytes.len() <= max => items.push(ReadItem::Record(Box::new(CrawlRecord {
            body: Some(bytes),
            body_sha1: Some(digest),
            ..record
        }))),
        // The same reasons as `read_page`.
        Some(_) => {
            items.push(ReadItem::Error(RecordError {
                offset: 0,
                reason: format!("page too large: more than {max} bytes"),
            }));
            items.push(ReadItem::Record(Box::new(record)));
        }
        None => {
            items.push(ReadItem::Error(RecordError {
                offset: 0,
                reason: format!("page too large: {len} bytes (limit {max})"),
            }));
            items.push(ReadItem::Record(Box::new(record)));
        }
    }
    Ok((size, digest, items))
}

/// The record of a single-page file, without its body.
fn page_record(input: &InputFile, len: u64) -> CrawlRecord {
    let url = input.page_url.clone().or_else(|| {
        input
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    });
    let is_text = input.format == InputFormat::Text;
    CrawlRecord {
        locator: Some(Locator {
            offset: 0,
            length: len,
            compression: Compression::None,
        }),
        record_type: "file".into(),
        url,
        media_type: Some(if is_text { "text/plain" } else { "text/html" }.into()),
        body_is_text: is_text,
        ..CrawlRecord::default()
    }
}

/// A single page file: one record, its body capped at the size limit.
fn read_page(input: &InputFile, opts: &ReaderOptions) -> std::io::Result<Vec<ReadItem>> {
    let file = File::open(&input.path)?;
    let len = file.metadata()?.len();
    let mut record = page_record(input, len);
    let mut items = Vec::new();
    if len > opts.max_body_bytes as u64 {
        items.push(ReadItem::Error(RecordError {
            offset: 0,
            reason: format!(
                "page too large: {len} bytes (limit {})",
                opts.max_body_bytes
            ),
        }));
    } else {
        let mut body = Vec::with_capacity(len as usize);
        // Read at most the limit even if the file grew since we looked.
        file.take((opts.max_body_bytes as u64).saturating_add(1))
            .read_to_end(&mut body)?;
        if body.len() > opts.max_body_bytes {
            items.push(ReadItem::Error(RecordError {
                offset: 0,
                reason: format!("page too large: more than {} bytes", opts.max_body_bytes),
            }));
        } else {
            record.body = Some(body);
        }
    }
    items.push(ReadItem::Record(Box::new(record)));
    Ok(items)
}

#[cfg(test)]
mod tests;
