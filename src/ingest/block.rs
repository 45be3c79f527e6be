//! Reading one record's block (the bytes a WARC Content-Length or ARC length counts) from
//! the stream: the HTTP head when there is one, then the payload, which is buffered only when
//! the record is a document candidate and otherwise skipped without being held in memory.

use super::http::{self, DecodeError};
use super::stream::{Fault, Line, Stream};
use super::ReaderOptions;

/// Longest HTTP head line and whole head we keep.
const HEAD_LINE_MAX: u64 = 64 * 1024;
const HEAD_MAX: usize = 256 * 1024;

/// What kind of block this is, which decides how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// WARC `response` or an ARC URL record: may hold an HTTP response; may be a document.
    Response,
    /// WARC `resource`: the block is the payload, typed by the record's Content-Type.
    Resource,
    /// WARC `revisit`: parse the HTTP head if present, never a document.
    Revisit,
    /// Anything else: skipped.
    Other,
}

/// What a block yielded.
#[derive(Debug, Default)]
pub struct BlockInfo {
    pub http_status: Option<u16>,
    pub media_type: Option<String>,
    pub charset: Option<String>,
    pub body: Option<Vec<u8>>,
    pub body_is_text: bool,
    /// Problems with the payload that do not invalidate the record (reasons, kind first).
    pub problems: Vec<String>,
}

/// The block ended before its declared length.
#[derive(Debug)]
pub struct Truncated {
    pub read: u64,
    pub fault: Option<Fault>,
}

/// Reads exactly `len` bytes of block (or fails with [`Truncated`]).
pub fn read_block(
    stream: &mut Stream,
    len: u64,
    kind: BlockKind,
    record_content_type: Option<&str>,
    opts: &ReaderOptions,
) -> Result<BlockInfo, Truncated> {
    let start = stream.pos();
    let mut info = BlockInfo::default();
    let consumed = |s: &Stream| s.pos() - start;

    let mut content_type: Option<String> = None;
    let mut chunked = false;
    let mut codings: Vec<String> = Vec::new();
    let mut has_http = false;

    if matches!(kind, BlockKind::Response | BlockKind::Revisit) && len >= 5 {
        let head = stream.peek(5).map_err(|f| Truncated {
            read: 0,
            fault: Some(f),
        })?;
        if head == b"HTTP/" {
            has_http = true;
            let raw = read_http_head(stream, len)?;
            let h = http::parse_http_head(&raw);
            info.http_status = h.status;
            content_type = h.content_type;
            chunked = h.chunked;
            codings = h.content_encoding;
        }
    }
    if !has_http {
        if let Some(ct) = record_content_type {
            let is_http_envelope = ct
                .trim()
                .to_ascii_lowercase()
                .starts_with("application/http");
            if !is_http_envelope && kind != BlockKind::Other {
                content_type = Some(ct.to_string());
            }
        }
    }
    if let Some(ct) = &content_type {
        info.media_type = http::media_type(ct);
        info.charset = http::charset_param(ct);
    }

    let remaining = len - consumed(stream);
    let may_be_document = matches!(kind, BlockKind::Response | BlockKind::Resource);
    let mut sniff_after_decode = false;
    let candidate = may_be_document
        && match info.media_type.as_deref() {
            Some(mt) => http::is_document_type(mt),
            None => {
                if chunked || !codings.is_empty() {
                    sniff_after_decode = true;
                    true
                } else {
                    let n = remaining.min(1024) as usize;
                    match stream.peek(n) {
                        Ok(head) => http::sniff_html(head),
                        Err(_) => false,
                    }
                }
            }
        };

    if !candidate {
        skip_exact(stream, remaining, len, start)?;
        return Ok(info);
    }

    let max = opts.max_body_bytes;
    // Chunk framing adds a little; compressed payloads are smaller than what they decode to.
    let raw_cap = (max as u64)
        .saturating_add(max as u64 / 8)
        .saturating_add(64 * 1024);
    if remaining > raw_cap {
        skip_exact(stream, remaining, len, start)?;
        info.problems
            .push(format!("page too large: {remaining} bytes (limit {max})"));
        return Ok(info);
    }
    let mut raw = Vec::with_capacity(remaining.min(1 << 20) as usize);
    match stream.read_into(&mut raw, remaining) {
        Ok(n) if n == remaining => {}
        Ok(n) => {
            return Err(Truncated {
                read: consumed(stream).min(len - remaining + n),
                fault: stream.fill_buf().err(),
            })
        }
        Err((_, f)) => {
            return Err(Truncated {
                read: consumed(stream),
                fault: Some(f),
            })
        }
    }

    let mut payload = raw;
    if chunked && http::looks_chunked(&payload) {
        if let Some(d) = http::dechunk(&payload) {
            payload = d;
        }
    }
    for coding in codings.iter().rev() {
        match http::decode_content(coding, &payload, max) {
            Ok(d) => payload = d,
            Err(DecodeError::TooLarge) => {
                info.problems.push(format!(
                    "page too large: more than {max} bytes after decoding"
                ));
                return Ok(info);
            }
            Err(DecodeError::Failed(why)) => {
                if http::looks_like_text(&payload) {
                    // Mislabelled: servers often claim gzip and send plain text.
                    break;
                }
                info.problems.push(format!("bad encoding: {why}"));
                return Ok(info);
            }
        }
    }
    if payload.len() > max {
        info.problems.push(format!(
            "page too large: {} bytes (limit {max})",
            payload.len()
        ));
        return Ok(info);
    }
    if sniff_after_decode && !http::sniff_html(&payload) {
        return Ok(info);
    }
    info.body_is_text = info.media_type.as_deref() == Some("text/plain");
    info.body = Some(payload);
    Ok(info)
}

/// Reads the HTTP head lines (up to the empty line or the block's end).
fn read_http_head(stream: &mut Stream, len: u64) -> Result<Vec<u8>, Truncated> {
    let start = stream.pos();
    let mut raw = Vec::new();
    let mut line = Vec::new();
    loop {
        let used = stream.pos() - start;
        let remaining = len - used;
        if remaining == 0 {
            break;
        }
        // Old servers (and ARC hello-world samples) omit the blank line before the body:
        // no header line starts with '<', so such a line starts the payload.
        if !raw.is_empty() && matches!(stream.peek(1), Ok(b"<")) {
            break;
        }
        let limit = (remaining - 1).min(HEAD_LINE_MAX) as usize;
        match stream.read_line(&mut line, limit) {
            Ok(Line::Complete) => {
                if line.is_empty() {
                    break;
                }
                if raw.len() < HEAD_MAX {
                    raw.extend_from_slice(&line);
                    raw.push(b'\n');
                }
            }
            // A head line longer than the block or than any sane header: the rest is payload.
            Ok(Line::TooLong) => break,
            Ok(Line::Partial) => {
                // A partial line ends at the end of the stream or at a fault: say which.
                let fault = stream.fill_buf().err();
                return Err(Truncated {
                    read: stream.pos() - start,
                    fault,
                });
            }
            Err(f) => {
                return Err(Truncated {
                    read: stream.pos() - start,
                    fault: Some(f),
                })
            }
        }
    }
    Ok(raw)
}

fn skip_exact(stream: &mut Stream, n: u64, len: u64, start: u64) -> Result<(), Truncated> {
    match stream.skip(n) {
        Ok(k) if k == n => Ok(()),
        Ok(_) => Err(Truncated {
            read: (stream.pos() - start).min(len),
            fault: stream.fill_buf().err(),
        }),
        Err((_, f)) => Err(Truncated {
            read: stream.pos() - start,
            fault: Some(f),
        }),
    }
}
