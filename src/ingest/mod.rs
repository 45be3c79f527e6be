//! Crawl readers: WARC/ARC files (plain, gzip per record, whole-file gzip), folders of
//! HTML/text pages, and JSONL. They turn bytes on disk into [`CrawlRecord`]s with a
//! [`Locator`] that can reopen the raw record, and into [`RecordError`]s that say where a
//! file is damaged. Readers never touch SQLite or the terminal; the ingest command in
//! `cmd::ingest` drives them.

mod arc;
mod block;
pub mod http;
mod inputs;
mod jsonl;
mod pending;
pub mod record;
mod stream;
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
}

impl InputFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Warc => "warc",
            InputFormat::Arc => "arc",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Html => "html",
            InputFormat::Text => "text",
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
    #[error("{path}: not a WARC, ARC, JSONL, HTML or text file (first bytes: {first})", path = .0.display(), first = .1)]
    Unrecognized(PathBuf, String),
    #[error("{}: the directory holds no .html, .htm, .txt, WARC, ARC or JSONL files", .0.display())]
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
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            max_body_bytes: crate::extract::DEFAULT_MAX_PAGE_BYTES,
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
        InputFormat::Html | InputFormat::Text => {
            let items = read_page(input, opts)?;
            Ok(Box::new(items.into_iter()))
        }
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

/// A single page file: one record, its body capped at the size limit.
fn read_page(input: &InputFile, opts: &ReaderOptions) -> std::io::Result<Vec<ReadItem>> {
    let file = File::open(&input.path)?;
    let len = file.metadata()?.len();
    let url = input.page_url.clone().or_else(|| {
        input
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    });
    let is_text = input.format == InputFormat::Text;
    let mut record = CrawlRecord {
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
    };
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
