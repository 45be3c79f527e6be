//! The WARC record parser (WARC 0.17, 0.18, 1.0, 1.1; plain, gzip per record or whole-file
//! gzip). It turns the logical stream into records and damage reports, and owns the resync
//! policy: after a bad record it rewinds to just past that record's start and scans for the
//! next line beginning `WARC/`, so records swallowed by a lying Content-Length are found.

use super::block::{read_block, BlockKind, Truncated};
use super::http::trim_ascii;
use super::pending::{Pending, StepReader};
use super::stream::{FaultKind, Line, Stream};
use super::{CrawlRecord, ReaderOptions};

const HEADER_LINE_MAX: usize = 64 * 1024;
const HEADER_MAX_LINES: usize = 1024;

/// The WARC header fields spotcheck keeps.
#[derive(Debug, Default)]
pub struct WarcHeader {
    pub version: String,
    pub record_type: Option<String>,
    pub target_uri: Option<String>,
    pub date: Option<String>,
    pub record_id: Option<String>,
    pub payload_digest: Option<String>,
    pub refers_to: Option<String>,
    pub refers_to_uri: Option<String>,
    pub refers_to_date: Option<String>,
    pub content_type: Option<String>,
    pub content_length: Option<u64>,
    /// Problems found while parsing, kind word first.
    pub problems: Vec<String>,
    /// A problem that makes the record unreadable (no usable length).
    pub fatal: Option<String>,
}

/// Whether a version line names a WARC version warcio/jwat read.
pub fn version_ok(line: &[u8]) -> bool {
    // Field names are case-insensitive and JHOVE's conformance files treat `warc/1.0` as
    // valid too.
    matches!(
        trim_ascii(line).to_ascii_uppercase().as_slice(),
        b"WARC/1.0" | b"WARC/1.1" | b"WARC/0.17" | b"WARC/0.18"
    )
}

/// Interprets the header lines (after the version line). Obs-fold lines continue the
/// previous field; lines without a colon are reported.
pub fn parse_fields(lines: &[Vec<u8>]) -> WarcHeader {
    let mut h = WarcHeader::default();
    let mut fields: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for line in lines {
        if line.first().is_some_and(|&b| b == b' ' || b == b'\t') {
            if let Some((_, v)) = fields.last_mut() {
                if !v.is_empty() {
                    v.push(b' ');
                }
                v.extend_from_slice(trim_ascii(line));
                continue;
            }
        }
        match memchr::memchr(b':', line) {
            Some(c) if c > 0 => fields.push((
                trim_ascii(&line[..c]).to_ascii_lowercase(),
                trim_ascii(&line[c + 1..]).to_vec(),
            )),
            _ => h.problems.push(format!(
                "malformed header: line without a field name: {}",
                escape(line, 40)
            )),
        }
    }
    for (name, value) in fields {
        let text = || String::from_utf8_lossy(&value).into_owned();
        let slot = match name.as_slice() {
            b"warc-type" => &mut h.record_type,
            b"warc-target-uri" => &mut h.target_uri,
            b"warc-date" => &mut h.date,
            b"warc-record-id" => &mut h.record_id,
            b"warc-payload-digest" => &mut h.payload_digest,
            b"warc-refers-to" => &mut h.refers_to,
            b"warc-refers-to-target-uri" => &mut h.refers_to_uri,
            b"warc-refers-to-date" => &mut h.refers_to_date,
            b"content-type" => &mut h.content_type,
            b"content-length" => {
                let parsed = std::str::from_utf8(&value)
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok());
                match (parsed, h.content_length) {
                    (None, _) => {
                        h.fatal =
                            Some(format!("bad length: Content-Length {}", escape(&value, 30)));
                    }
                    (Some(n), Some(old)) if n != old => {
                        h.fatal = Some(format!(
                            "bad length: two Content-Length values {old} and {n}"
                        ));
                    }
                    (Some(_), Some(_)) => h
                        .problems
                        .push("malformed header: duplicate field content-length".into()),
                    (Some(n), _) => h.content_length = Some(n),
                }
                continue;
            }
            _ => continue,
        };
        if slot.is_none() && !value.is_empty() {
            *slot = Some(text());
        } else if slot.is_some() {
            h.problems.push(format!(
                "malformed header: duplicate field {}",
                String::from_utf8_lossy(&name)
            ));
        }
    }
    if h.content_length.is_none() && h.fatal.is_none() {
        h.fatal = Some("malformed header: no Content-Length".into());
    }
    if let Some(uri) = &mut h.target_uri {
        // WARC 1.0 examples (and some writers) wrap the URI in angle brackets.
        if uri.starts_with('<') && uri.ends_with('>') && uri.len() >= 2 {
            *uri = uri[1..uri.len() - 1].to_string();
        }
    }
    h
}

/// Escapes bytes for an error message: printable ASCII as is, others as `\xNN`.
pub fn escape(bytes: &[u8], max: usize) -> String {
    let mut s = String::new();
    for &b in bytes.iter().take(max) {
        match b {
            b'\r' => s.push_str("\\r"),
            b'\n' => s.push_str("\\n"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    if bytes.len() > max {
        s.push('…');
    }
    s
}

/// Iterates over the records of one WARC file.
pub struct WarcReader {
    stream: Stream,
    opts: ReaderOptions,
    pending: Pending,
    done: bool,
    saw_anything: bool,
    line: Vec<u8>,
}

impl WarcReader {
    pub fn new(stream: Stream, opts: &ReaderOptions) -> WarcReader {
        WarcReader {
            stream,
            opts: opts.clone(),
            pending: Pending::default(),
            done: false,
            saw_anything: false,
            line: Vec::new(),
        }
    }

    /// Skips bytes until a line starting `WARC/`; reports them as junk when asked.
    fn resync(&mut self, report_junk: bool) {
        let start = self.stream.pos();
        let offset = self.stream.file_offset_of(start);
        loop {
            match self.stream.scan_to_line_prefix(b"WARC/") {
                Ok(_) => break,
                Err(f) => self.pending.fault(&mut self.stream, f),
            }
        }
        let skipped = self.stream.pos() - start;
        if report_junk && skipped > 0 {
            self.pending
                .error(offset, format!("junk: {skipped} bytes skipped"));
        }
    }

    /// A record could not be read. When the stream itself broke (a gzip member that does
    /// not decode), that is the error to report; otherwise `reason`. Then move on: past the
    /// broken member, or back to just after the record's start to look for the next one.
    fn fail_record(&mut self, rec_start: u64, reason: String) {
        if let Err(f) = self.stream.fill_buf() {
            self.pending.report_fault(&f);
            if f.kind == FaultKind::Corrupt && f.logical_start <= rec_start {
                // The record's own member is broken: nothing in it to rescan.
                self.stream.recover();
                return;
            }
        } else {
            self.pending.rec_error(reason);
        }
        self.rewind_and_resync(rec_start);
    }

    /// After a bad record: go back to just past its start and look for the next record.
    fn rewind_and_resync(&mut self, record_start: u64) {
        if let Err(e) = self.stream.seek_logical(record_start + 1) {
            self.pending.error(record_start, format!("io: {e}"));
            self.done = true;
            return;
        }
        self.resync(false);
    }

    /// Reads one record (or one stretch of damage) and queues what it found.
    fn step(&mut self) {
        // Blank lines between records are tolerated silently.
        loop {
            match self.stream.fill_buf() {
                Err(f) => {
                    self.saw_anything = true;
                    self.pending.fault(&mut self.stream, f);
                }
                Ok([]) => {
                    if !self.saw_anything {
                        self.pending.error(0, "empty file: no records".into());
                    }
                    self.done = true;
                    return;
                }
                Ok(buf) => {
                    let ws = buf
                        .iter()
                        .take_while(|&&b| matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
                        .count();
                    let all = ws == buf.len();
                    self.stream.consume(ws);
                    if !all {
                        self.saw_anything = true;
                        break;
                    }
                }
            }
        }
        let rec_start = self.stream.pos();
        self.stream.forget_before(rec_start);
        self.pending.begin_record(&self.stream, rec_start);
        match self.stream.peek(5) {
            Ok(head) if head.eq_ignore_ascii_case(b"WARC/") => {}
            Ok(_) => {
                self.resync(true);
                return;
            }
            Err(f) => {
                self.pending.fault(&mut self.stream, f);
                return;
            }
        }

        // Version line and header fields.
        let mut line = std::mem::take(&mut self.line);
        let res = self.stream.read_line(&mut line, 256);
        if res != Ok(Line::Complete) || !version_ok(&line) {
            let what = escape(&line, 40);
            self.line = line;
            let reason = match res {
                Ok(Line::Partial) if version_ok(&self.line) => {
                    "truncated: file ends in the record header".to_string()
                }
                _ => format!("malformed header: bad version line '{what}'"),
            };
            self.fail_record(rec_start, reason);
            return;
        }
        let version = String::from_utf8_lossy(trim_ascii(&line)).into_owned();
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut header_done = false;
        let mut failure: Option<String> = None;
        while lines.len() < HEADER_MAX_LINES {
            match self.stream.read_line(&mut line, HEADER_LINE_MAX) {
                Ok(Line::Complete) => {
                    if line.is_empty() {
                        header_done = true;
                        break;
                    }
                    lines.push(line.clone());
                }
                Ok(Line::TooLong) => {
                    failure = Some("malformed header: line too long".into());
                    break;
                }
                Ok(Line::Partial) => {
                    failure = Some("truncated: file ends in the record header".into());
                    break;
                }
                Err(_) => {
                    failure = Some("truncated: file ends in the record header".into());
                    break;
                }
            }
        }
        self.line = line;
        if !header_done && failure.is_none() {
            failure = Some("malformed header: too many header lines".into());
        }
        if let Some(reason) = failure {
            self.fail_record(rec_start, reason);
            return;
        }
        let mut header = parse_fields(&lines);
        header.version = version;
        if let Some(reason) = header.fatal.take() {
            self.pending.rec_error(reason);
            self.rewind_and_resync(rec_start);
            return;
        }
        let len = header.content_length.unwrap_or(0);
        let record_type = header.record_type.as_deref().map(str::to_ascii_lowercase);
        let kind = match record_type.as_deref() {
            Some("response") => BlockKind::Response,
            // WET files (Common Crawl's text extracts) hold `conversion` records: the block is
            // the page's text, typed text/plain by the record's Content-Type.
            Some("resource") | Some("conversion") => BlockKind::Resource,
            Some("revisit") => BlockKind::Revisit,
            _ => BlockKind::Other,
        };
        let block = read_block(
            &mut self.stream,
            len,
            kind,
            header.content_type.as_deref(),
            &self.opts,
        );
        let info = match block {
            Ok(info) => info,
            Err(Truncated { read, fault }) => {
                match fault {
                    Some(f) => {
                        self.pending.report_fault(&f);
                        if f.kind == FaultKind::Corrupt && f.logical_start <= rec_start {
                            // The record's own member is broken: nothing in it to rescan.
                            self.stream.recover();
                            return;
                        }
                    }
                    None => self.pending.rec_error(format!(
                        "truncated: record ends early ({read} of {len} bytes)"
                    )),
                }
                self.rewind_and_resync(rec_start);
                return;
            }
        };

        // The block must be followed by CRLF CRLF and then the next record or the end.
        let mut newlines = 0;
        let next_ok = loop {
            match self.stream.fill_buf() {
                Ok([]) => break true,
                Ok(buf) => {
                    let n = buf
                        .iter()
                        .take_while(|&&b| b == b'\r' || b == b'\n')
                        .count();
                    newlines += buf[..n].iter().filter(|&&b| b == b'\n').count();
                    let more = n == buf.len();
                    self.stream.consume(n);
                    if !more {
                        // peek may cross into the next gzip member; that is fine.
                        let starts_record = self
                            .stream
                            .peek(5)
                            .is_ok_and(|h| h.eq_ignore_ascii_case(b"WARC/"));
                        break starts_record || newlines >= 2;
                    }
                }
                Err(f) => {
                    // A member that failed its check (CRC) right after this record, and that began
                    // inside it, held only this record: the record is damaged. A big member
                    // that began before the record (whole-file gzip) does not condemn it.
                    if f.kind == FaultKind::Corrupt
                        && f.logical_start >= rec_start
                        && f.logical_start < self.stream.pos()
                    {
                        // The member holding this record's end does not check out (CRC).
                        self.pending.report_fault(&f);
                        self.stream.recover();
                        return;
                    }
                    break true;
                }
            }
        };
        if !next_ok {
            self.pending.rec_error(format!(
                "bad length: Content-Length {len} does not end the record"
            ));
            self.rewind_and_resync(rec_start);
            return;
        }
        let rec_end = self.stream.pos();
        for p in &info.problems {
            self.pending.rec_error(p.clone());
        }
        for p in &header.problems {
            self.pending.rec_error(p.clone());
        }
        let Some(record_type) = record_type else {
            self.pending
                .rec_error("malformed header: no WARC-Type".into());
            return;
        };
        let record = CrawlRecord {
            locator: Some(self.stream.locate(rec_start, rec_end)),
            record_type,
            url: header.target_uri,
            date: header.date,
            record_id: header.record_id,
            payload_digest: header.payload_digest,
            refers_to: header.refers_to,
            refers_to_uri: header.refers_to_uri,
            refers_to_date: header.refers_to_date,
            http_status: info.http_status,
            media_type: info.media_type,
            header_charset: info.charset,
            body: info.body,
            body_is_text: info.body_is_text,
            given_title: None,
            body_sha1: None,
        };
        self.pending.record(record);
    }
}

impl StepReader for WarcReader {
    fn pending(&mut self) -> &mut Pending {
        &mut self.pending
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn step(&mut self) {
        WarcReader::step(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_parsed_case_insensitively_with_fold() {
        let lines: Vec<Vec<u8>> = vec![
            b"warc-type: Response".to_vec(),
            b"WARC-Target-URI: <http://example.com/a>".to_vec(),
            b"Content-Length: 12".to_vec(),
            b"WARC-Payload-Digest: sha1:ABC".to_vec(),
            b"Content-Type: application/http;".to_vec(),
            b"  msgtype=response".to_vec(),
            b"no colon here".to_vec(),
        ];
        let h = parse_fields(&lines);
        assert_eq!(h.record_type.as_deref(), Some("Response"));
        assert_eq!(h.target_uri.as_deref(), Some("http://example.com/a"));
        assert_eq!(h.content_length, Some(12));
        assert_eq!(h.payload_digest.as_deref(), Some("sha1:ABC"));
        assert_eq!(
            h.content_type.as_deref(),
            Some("application/http; msgtype=response")
        );
        assert_eq!(h.problems.len(), 1);
        assert!(h.fatal.is_none());
    }

    #[test]
    fn bad_and_conflicting_lengths_are_fatal() {
        let h = parse_fields(&[b"Content-Length: 1x".to_vec()]);
        assert!(h.fatal.unwrap().starts_with("bad length:"));
        let h = parse_fields(&[b"Content-Length: 1".to_vec(), b"Content-Length: 2".to_vec()]);
        assert!(h.fatal.unwrap().starts_with("bad length:"));
        let h = parse_fields(&[b"Content-Length: 1".to_vec(), b"Content-Length: 1".to_vec()]);
        assert!(h.fatal.is_none());
        let h = parse_fields(&[b"WARC-Type: warcinfo".to_vec()]);
        assert!(h.fatal.unwrap().starts_with("malformed header:"));
    }

    #[test]
    fn versions() {
        assert!(version_ok(b"WARC/1.0"));
        assert!(version_ok(b"WARC/1.1 "));
        assert!(version_ok(b"WARC/0.17"));
        assert!(!version_ok(b"WARC/2.0"));
        assert!(!version_ok(b"WARC/1.0.0"));
        assert!(!version_ok(b"WARC/"));
    }

    #[test]
    fn escape_shows_bytes() {
        assert_eq!(escape(b"ab\x00\r\n", 10), "ab\\x00\\r\\n");
        assert_eq!(escape(b"abcdef", 3), "abc…");
    }
}
