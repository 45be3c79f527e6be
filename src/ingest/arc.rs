//! The ARC record parser (Internet Archive ARC v1 and v2, plain or gzip per record). Each
//! record is one header line `URL IP DATE MIME [v2 fields…] LENGTH`, then LENGTH bytes
//! (usually a raw HTTP response), then a newline. Damage is handled like WARC: rewind to just
//! past the bad record's start and scan for the next line that parses as an ARC header.

use super::block::{read_block, BlockKind, Truncated};
use super::pending::{Pending, StepReader};
use super::stream::{Line, Stream};
use super::warc::escape;
use super::{CrawlRecord, ReaderOptions};

const HEADER_LINE_MAX: usize = 16 * 1024;

/// The fields of an ARC header line.
#[derive(Debug, PartialEq, Eq)]
pub struct ArcHeader {
    pub url: String,
    pub date: String,
    pub mime: String,
    pub length: u64,
}

/// Parses an ARC header line (v1: 5 fields, v2: 10 fields; the length is always last).
pub fn parse_arc_header(line: &[u8]) -> Option<ArcHeader> {
    let text = std::str::from_utf8(line).ok()?;
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    if fields.len() < 5 {
        return None;
    }
    let url = fields[0];
    // A URL starts with a scheme: a letter, then letters, digits, '+', '-' or '.', then ':'.
    let scheme = url.split(':').next().unwrap_or("");
    let plausible_url = url.len() > scheme.len()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !plausible_url {
        return None;
    }
    let length = fields[fields.len() - 1].parse::<u64>().ok()?;
    let date = fields[2];
    if date.is_empty() || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(ArcHeader {
        url: url.to_string(),
        date: date.to_string(),
        mime: fields[3].to_string(),
        length,
    })
}

/// Iterates over the records of one ARC file.
pub struct ArcReader {
    stream: Stream,
    opts: ReaderOptions,
    pending: Pending,
    done: bool,
    saw_anything: bool,
    line: Vec<u8>,
}

impl ArcReader {
    pub fn new(stream: Stream, opts: &ReaderOptions) -> ArcReader {
        ArcReader {
            stream,
            opts: opts.clone(),
            pending: Pending::default(),
            done: false,
            saw_anything: false,
            line: Vec::new(),
        }
    }

    /// Whether the bytes at the current position start a plausible ARC header line.
    fn at_header(&mut self) -> bool {
        match self.stream.peek(HEADER_LINE_MAX) {
            Ok(buf) => match memchr::memchr(b'\n', buf) {
                Some(nl) => parse_arc_header(super::http::trim_cr(&buf[..nl])).is_some(),
                None => false,
            },
            Err(_) => false,
        }
    }

    /// Consumes bytes up to the next line that parses as an ARC header (or the end).
    fn resync(&mut self) -> u64 {
        let start = self.stream.pos();
        loop {
            match self.stream.fill_buf() {
                Err(f) => {
                    self.pending.fault(&mut self.stream, f);
                    continue;
                }
                Ok([]) => break,
                Ok(_) => {}
            }
            if (self.stream.last_byte() == b'\n' || self.stream.is_member_start(self.stream.pos()))
                && self.at_header()
            {
                break;
            }
            // Move to just after the next newline.
            let mut line = std::mem::take(&mut self.line);
            let res = self.stream.read_line(&mut line, HEADER_LINE_MAX);
            self.line = line;
            if let Err(f) = res {
                self.pending.fault(&mut self.stream, f);
            }
        }
        self.stream.pos() - start
    }

    fn rewind_and_resync(&mut self, rec_start: u64) {
        if let Err(e) = self.stream.seek_logical(rec_start + 1) {
            self.pending.error(rec_start, format!("io: {e}"));
            self.done = true;
            return;
        }
        self.resync();
    }

    fn step(&mut self) {
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
                    self.saw_anything = true;
                    let ws = buf
                        .iter()
                        .take_while(|&&b| matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
                        .count();
                    let all = ws == buf.len();
                    self.stream.consume(ws);
                    if !all {
                        break;
                    }
                }
            }
        }
        let rec_start = self.stream.pos();
        self.stream.forget_before(rec_start);
        self.pending.begin_record(&self.stream, rec_start);
        let mut line = std::mem::take(&mut self.line);
        let res = self.stream.read_line(&mut line, HEADER_LINE_MAX);
        let header = match res {
            Ok(Line::Complete) => parse_arc_header(&line),
            _ => None,
        };
        let shown = escape(&line, 40);
        self.line = line;
        let Some(header) = header else {
            match res {
                Err(f) => {
                    self.pending.fault(&mut self.stream, f);
                }
                Ok(Line::Partial) => match self.stream.fill_buf() {
                    // The line stopped at broken gzip data, not at the end of the file.
                    Err(f) => {
                        self.pending.fault(&mut self.stream, f);
                    }
                    Ok(_) => self
                        .pending
                        .rec_error(format!("truncated: file ends in an ARC header '{shown}'")),
                },
                _ => {
                    self.pending.rec_error(format!(
                        "malformed header: not an ARC header line '{shown}'"
                    ));
                    self.rewind_and_resync(rec_start);
                }
            }
            return;
        };
        let is_filedesc = header.url.starts_with("filedesc:");
        let kind = if is_filedesc {
            BlockKind::Other
        } else {
            BlockKind::Response
        };
        let block = read_block(
            &mut self.stream,
            header.length,
            kind,
            Some(&header.mime),
            &self.opts,
        );
        let info = match block {
            Ok(info) => info,
            Err(Truncated { read, fault }) => {
                match fault {
                    Some(f) => {
                        self.pending.report_fault(&f);
                        if f.kind.breaks_member() && f.logical_start <= rec_start {
                            self.stream.recover();
                            return;
                        }
                    }
                    None => self.pending.rec_error(format!(
                        "truncated: record ends early ({read} of {} bytes)",
                        header.length
                    )),
                }
                self.rewind_and_resync(rec_start);
                return;
            }
        };
        // The record ends with a newline; then comes the next header line or the end. A
        // block running straight into the next line means its length is wrong (one byte too
        // long in hello-world2.arc), unless a new gzip member starts there.
        let mut ok = true;
        let mut separated = false;
        loop {
            match self.stream.fill_buf() {
                Ok([]) => break,
                Ok(buf) => {
                    let n = buf
                        .iter()
                        .take_while(|&&b| b == b'\r' || b == b'\n')
                        .count();
                    let more = n == buf.len();
                    separated |= n > 0;
                    self.stream.consume(n);
                    if !more {
                        // A gzip member boundary right after the block proves its length
                        // whatever follows: the next member may be damaged, and that must
                        // not cost this record (found by the damage property test).
                        ok = self.stream.is_member_start(self.stream.pos())
                            || (separated && self.at_header());
                        break;
                    }
                }
                Err(f) => {
                    // A member that failed its check (CRC) right after this record, and that began
                    // inside it, held only this record: the record is damaged. A big member
                    // that began before the record (whole-file gzip) does not condemn it.
                    if f.kind.breaks_member()
                        && f.logical_start >= rec_start
                        && f.logical_start < self.stream.pos()
                    {
                        self.pending.fault(&mut self.stream, f);
                        return;
                    }
                    break;
                }
            }
        }
        if !ok {
            self.pending.rec_error(format!(
                "bad length: length {} does not end the record",
                header.length
            ));
            self.rewind_and_resync(rec_start);
            return;
        }
        let rec_end = self.stream.pos();
        for p in &info.problems {
            self.pending.rec_error(p.clone());
        }
        let record = CrawlRecord {
            locator: Some(self.stream.locate(rec_start, rec_end)),
            record_type: if is_filedesc { "arc-header" } else { "arc" }.to_string(),
            url: Some(header.url),
            date: Some(header.date),
            http_status: info.http_status,
            media_type: info.media_type,
            header_charset: info.charset,
            body: info.body,
            body_is_text: info.body_is_text,
            ..CrawlRecord::default()
        };
        self.pending.record(record);
    }
}

impl StepReader for ArcReader {
    fn pending(&mut self) -> &mut Pending {
        &mut self.pending
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn step(&mut self) {
        ArcReader::step(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_and_v2_header_lines() {
        let v1 =
            parse_arc_header(b"http://a.example/ 1.2.3.4 19961104142103 text/html 208").unwrap();
        assert_eq!(v1.url, "http://a.example/");
        assert_eq!(v1.length, 208);
        assert_eq!(v1.mime, "text/html");
        let v2 = parse_arc_header(
            b"http://www.dryswamp.edu:80/index.html 127.10.100.2 19961104142103 text/html 200 fac069150613fe55599cc7fa88aa089d - 209 IA-001102.arc 202",
        )
        .unwrap();
        assert_eq!(v2.length, 202);
        assert_eq!(v2.date, "19961104142103");
        assert!(parse_arc_header(b"HTTP/1.0 200 Document follows").is_none());
        assert!(parse_arc_header(b"1 1 InternetArchive").is_none());
        assert!(parse_arc_header(b"<p>x: 1.2.3.4 2008 text/html 5").is_none());
        assert!(
            parse_arc_header(b"dns:www.archive.org 68.87.76.178 20080430204825 text/dns 56")
                .is_some()
        );
        assert!(parse_arc_header(b"http://x 1.2.3.4 2008 text/html notanumber").is_none());
    }
}
