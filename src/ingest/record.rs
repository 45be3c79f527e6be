//! The records every reader yields, independent of the file format they came from.

/// How the bytes a [`Locator`] points at are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// `offset`/`length` are plain byte positions in the file.
    None,
    /// `offset`/`length` delimit the gzip member(s) holding exactly this record.
    GzipMember,
    /// The file is one gzip stream holding many records: `offset`/`length` are positions in
    /// the *decompressed* stream.
    GzipStream,
}

impl Compression {
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::GzipMember => "gzip-member",
            Compression::GzipStream => "gzip-stream",
        }
    }
}

/// Where a record lives in its source file, so the raw page can be reopened later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locator {
    pub offset: u64,
    pub length: u64,
    pub compression: Compression,
}

/// One record of a crawl, as far as spotcheck cares about it.
#[derive(Debug, Clone, Default)]
pub struct CrawlRecord {
    pub locator: Option<Locator>,
    /// `response`, `resource`, `revisit`, `request`, `warcinfo`, `metadata`, `conversion`,
    /// `continuation`; `arc` for ARC records; `file` for a page of a folder; `jsonl` for a
    /// JSONL line. Lowercase.
    pub record_type: String,
    /// WARC-Target-URI, the ARC URL, the JSONL `url`, or a folder file's relative path.
    pub url: Option<String>,
    /// WARC-Date or the ARC date, as written in the file.
    pub date: Option<String>,
    pub record_id: Option<String>,
    /// WARC-Payload-Digest as written (e.g. `sha1:ABC…`).
    pub payload_digest: Option<String>,
    /// For revisits: WARC-Refers-To, WARC-Refers-To-Target-URI, WARC-Refers-To-Date.
    pub refers_to: Option<String>,
    pub refers_to_uri: Option<String>,
    pub refers_to_date: Option<String>,
    /// HTTP status of a response (None when there is no HTTP envelope).
    pub http_status: Option<u16>,
    /// Media type, lowercase, without parameters (`text/html`). From the HTTP header of a
    /// response, or the record's own Content-Type for `resource` records.
    pub media_type: Option<String>,
    /// The `charset` parameter of the Content-Type header, if any.
    pub header_charset: Option<String>,
    /// The payload, de-chunked and with Content-Encoding removed, when this record is a
    /// candidate document (HTML or plain text); `None` otherwise (its body was skipped
    /// without being buffered).
    pub body: Option<Vec<u8>>,
    /// True when `body` is plain text rather than HTML (a `.txt` file, JSONL `text`).
    pub body_is_text: bool,
    /// A title given by the input itself (JSONL `title`), preferred over the HTML one.
    pub given_title: Option<String>,
    /// SHA-1 of `body`, when the reader computed it anyway (a page file is hashed whole to
    /// identify the source, and its body is the whole file).
    pub body_sha1: Option<[u8; 20]>,
}

impl CrawlRecord {
    /// Whether this record should become a document: an HTML or plain-text payload.
    pub fn is_document(&self) -> bool {
        self.body.is_some()
    }
}

/// A damaged place in a file. The reader has already moved past it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// Byte offset in the file (compressed offset for gzip files) where the damage starts.
    pub offset: u64,
    pub reason: String,
}

/// What a reader yields: a record, or the description of damage it skipped.
#[derive(Debug)]
pub enum ReadItem {
    Record(Box<CrawlRecord>),
    Error(RecordError),
}
