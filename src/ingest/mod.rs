//! Crawl readers: WARC/ARC files (plain, gzip per record, whole-file gzip), folders of
//! HTML/text pages, and JSONL. They turn bytes on disk into [`CrawlRecord`]s with a
//! [`Locator`] that can reopen the raw record, and into [`RecordError`]s that say where a
//! file is damaged. Readers never touch SQLite or the terminal; the ingest command in
//! `cmd::ingest` drives them.

pub mod record;
pub mod warc_write;

pub use record::{Compression, CrawlRecord, Locator, ReadItem, RecordError};

use std::path::{Path, PathBuf};

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
    let _ = paths;
    Err(InputError::Missing(PathBuf::from(
        "(readers not built yet)",
    )))
}

/// Opens a reader over one input file. I/O errors after opening become
/// [`ReadItem::Error`]s; the iterator always ends.
pub fn open_reader(
    input: &InputFile,
    opts: &ReaderOptions,
) -> std::io::Result<Box<dyn Iterator<Item = ReadItem> + Send>> {
    let _ = (input, opts, Path::new(""));
    Err(std::io::Error::other("readers not built yet"))
}
