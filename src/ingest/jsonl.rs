//! The JSONL reader: one JSON object per line with `url` and `html` or `text` (optional
//! `title`), plain or gzip. A bad line is reported with its offset and reading goes on.

use serde::Deserialize;

use super::pending::{Pending, StepReader};
use super::stream::{Line, Stream};
use super::{Compression, CrawlRecord, Locator, ReaderOptions};

#[derive(Deserialize)]
struct JsonPage {
    url: Option<String>,
    html: Option<String>,
    text: Option<String>,
    title: Option<String>,
}

/// Iterates over the lines of one JSONL file.
pub struct JsonlReader {
    stream: Stream,
    max_body: usize,
    line: Vec<u8>,
    pending: Pending,
    done: bool,
}

impl JsonlReader {
    pub fn new(stream: Stream, opts: &ReaderOptions) -> JsonlReader {
        JsonlReader {
            stream,
            max_body: opts.max_body_bytes,
            line: Vec::new(),
            pending: Pending::default(),
            done: false,
        }
    }

    fn step(&mut self) {
        let start = self.stream.pos();
        // Offsets of lines are positions in the decompressed stream for .gz files, the only
        // coordinates in which a line can be found again.
        let compression = if self.stream.is_gzip() {
            Compression::GzipStream
        } else {
            Compression::None
        };
        // A line may hold the page plus JSON escaping; allow some room over the page limit.
        let limit = self.max_body.saturating_mul(2).saturating_add(64 * 1024);
        let mut line = std::mem::take(&mut self.line);
        let res = self.stream.read_line(&mut line, limit);
        match res {
            Err(f) => {
                self.pending.error(f.file_offset, f.reason());
                self.stream.recover();
                if !self.stream.is_gzip() {
                    self.done = true;
                }
            }
            Ok(Line::TooLong) => {
                // Skip the rest of the line without keeping it.
                let mut skipped = line.len() as u64;
                loop {
                    match self.stream.read_line(&mut line, 1 << 20) {
                        Ok(Line::TooLong) => skipped += line.len() as u64,
                        Ok(_) => {
                            skipped += line.len() as u64;
                            break;
                        }
                        Err(_) => break,
                    }
                }
                self.pending
                    .error(start, format!("page too large: line of {skipped} bytes"));
            }
            Ok(kind) => {
                if kind == Line::Partial && line.is_empty() {
                    self.done = true;
                } else if !line.iter().all(u8::is_ascii_whitespace) {
                    self.parse_line(&line, start, compression);
                }
            }
        }
        self.line = line;
    }

    fn parse_line(&mut self, line: &[u8], start: u64, compression: Compression) {
        let page: JsonPage = match serde_json::from_slice(line) {
            Ok(p) => p,
            Err(e) => {
                self.pending.error(start, format!("bad json: {e}"));
                return;
            }
        };
        let Some(url) = page.url else {
            self.pending.error(start, "missing field: url".into());
            return;
        };
        let (body, is_text) = match (page.html, page.text) {
            (Some(h), _) => (h.into_bytes(), false),
            (None, Some(t)) => (t.into_bytes(), true),
            (None, None) => {
                self.pending
                    .error(start, "missing field: html or text".into());
                return;
            }
        };
        if body.len() > self.max_body {
            self.pending.error(
                start,
                format!(
                    "page too large: {} bytes (limit {})",
                    body.len(),
                    self.max_body
                ),
            );
            return;
        }
        let record = CrawlRecord {
            locator: Some(Locator {
                offset: start,
                length: line.len() as u64,
                compression,
            }),
            record_type: "jsonl".into(),
            url: Some(url),
            media_type: Some(if is_text { "text/plain" } else { "text/html" }.into()),
            body: Some(body),
            body_is_text: is_text,
            given_title: page.title,
            ..CrawlRecord::default()
        };
        self.pending.record(record);
    }
}

impl StepReader for JsonlReader {
    fn pending(&mut self) -> &mut Pending {
        &mut self.pending
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn step(&mut self) {
        JsonlReader::step(self)
    }
}
