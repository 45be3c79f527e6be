//! The HTTP layer inside crawl records: the response head (status line, headers) and the
//! payload transforms real crawlers leave in place (chunked transfer coding, gzip/deflate
//! content coding). Pure functions over byte slices; the record parsers call them.

use std::io::Read;

use flate2::bufread::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};

/// What spotcheck needs from an HTTP response head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHead {
    pub status: Option<u16>,
    /// The first non-empty Content-Type value, as written.
    pub content_type: Option<String>,
    pub chunked: bool,
    /// Content-Encoding values, lowercase, in order (e.g. `["gzip"]`).
    pub content_encoding: Vec<String>,
}

/// Parses an HTTP head (status line plus header lines). Tolerates bare LF line ends,
/// obs-fold continuation lines and junk lines (ignored).
pub fn parse_http_head(raw: &[u8]) -> HttpHead {
    let mut head = HttpHead::default();
    let mut lines = raw.split(|&b| b == b'\n').map(trim_cr);
    if let Some(status_line) = lines.next() {
        head.status = parse_status_line(status_line);
    }
    // Fold continuation lines into the previous header before interpreting them.
    let mut fields: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            if let Some((_, value)) = fields.last_mut() {
                value.push(b' ');
                value.extend_from_slice(trim_ascii(line));
            }
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        fields.push((
            trim_ascii(&line[..colon]).to_ascii_lowercase(),
            trim_ascii(&line[colon + 1..]).to_vec(),
        ));
    }
    for (name, value) in &fields {
        match name.as_slice() {
            b"content-type" if head.content_type.is_none() && !value.is_empty() => {
                head.content_type = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"transfer-encoding"
                if value
                    .to_ascii_lowercase()
                    .windows(7)
                    .any(|w| w == b"chunked") =>
            {
                head.chunked = true;
            }
            b"content-encoding" => {
                for coding in value.split(|&b| b == b',') {
                    let coding = trim_ascii(coding).to_ascii_lowercase();
                    if !coding.is_empty() {
                        head.content_encoding
                            .push(String::from_utf8_lossy(&coding).into_owned());
                    }
                }
            }
            _ => {}
        }
    }
    head
}

/// `HTTP/1.1 200 OK` → 200. Accepts a missing reason phrase and odd spacing.
fn parse_status_line(line: &[u8]) -> Option<u16> {
    let line = trim_ascii(line);
    if !line.starts_with(b"HTTP/") {
        return None;
    }
    let mut parts = line
        .split(|&b| b == b' ' || b == b'\t')
        .filter(|p| !p.is_empty());
    parts.next()?;
    let code = parts.next()?;
    if code.len() != 3 || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(code).ok()?.parse().ok()
}

/// The media type of a Content-Type value: lowercase, without parameters.
pub fn media_type(content_type: &str) -> Option<String> {
    // Some old servers run headers together ("text/html Last-modified: …"): the type is
    // the first word.
    let mt = content_type
        .split(';')
        .next()?
        .split_ascii_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(',')
        .to_ascii_lowercase();
    if mt.is_empty() {
        None
    } else {
        Some(mt)
    }
}

/// The `charset` parameter of a Content-Type value, lowercase, unquoted.
pub fn charset_param(content_type: &str) -> Option<String> {
    for param in content_type.split(';').skip(1) {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("charset") {
            let v = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
            if !v.is_empty() {
                return Some(v.to_ascii_lowercase());
            }
        }
    }
    None
}

/// Whether a media type is one spotcheck turns into a document.
pub fn is_document_type(media_type: &str) -> bool {
    matches!(
        media_type,
        "text/html" | "application/xhtml+xml" | "text/plain"
    )
}

/// Whether a payload starts like an HTML document (for records without a Content-Type).
pub fn sniff_html(data: &[u8]) -> bool {
    let mut d = data;
    if d.starts_with(&[0xef, 0xbb, 0xbf]) {
        d = &d[3..];
    }
    let d = trim_ascii(&d[..d.len().min(1024)]);
    let head: Vec<u8> = d[..d.len().min(64)].to_ascii_lowercase();
    head.starts_with(b"<html")
        || head.starts_with(b"<!doctype html")
        || (head.starts_with(b"<!--") && contains(&d.to_ascii_lowercase(), b"<html"))
        || (head.starts_with(b"<?xml") && contains(&d.to_ascii_lowercase(), b"<html"))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Whether `body` really is in chunked transfer coding: it must start with a hex chunk
/// size line. (Common Crawl keeps the `Transfer-Encoding: chunked` header but stores the
/// payload already de-chunked.)
pub fn looks_chunked(body: &[u8]) -> bool {
    let window = &body[..body.len().min(64)];
    let Some(nl) = memchr::memchr(b'\n', window) else {
        return false;
    };
    let line = trim_cr(&window[..nl]);
    let size = line.split(|&b| b == b';').next().unwrap_or(b"");
    let size = trim_ascii(size);
    !size.is_empty() && size.len() <= 16 && size.iter().all(u8::is_ascii_hexdigit)
}

/// Removes chunked transfer coding. `None` when the data is not well-formed chunked data
/// (the caller then keeps the raw bytes). A body cut off inside the last chunk keeps the
/// chunks read so far, since crawlers do truncate big payloads.
pub fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let nl = memchr::memchr(b'\n', rest)?;
        let line = trim_cr(&rest[..nl]);
        let size_text = trim_ascii(line.split(|&b| b == b';').next().unwrap_or(b""));
        if size_text.is_empty()
            || size_text.len() > 16
            || !size_text.iter().all(u8::is_ascii_hexdigit)
        {
            return None;
        }
        let size = usize::from_str_radix(std::str::from_utf8(size_text).ok()?, 16).ok()?;
        rest = &rest[nl + 1..];
        if size == 0 {
            return Some(out);
        }
        if size > rest.len() {
            if out.is_empty() && rest.is_empty() {
                return None;
            }
            out.extend_from_slice(rest);
            return Some(out);
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        // The CRLF after the chunk data; tolerate a bare LF or its absence at the end.
        if rest.starts_with(b"\r\n") {
            rest = &rest[2..];
        } else if rest.starts_with(b"\n") {
            rest = &rest[1..];
        } else if rest.is_empty() {
            return Some(out);
        } else {
            return None;
        }
    }
}

/// Why a payload could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    TooLarge,
    Failed(String),
}

/// Removes one content coding, producing at most `limit` bytes.
pub fn decode_content(coding: &str, data: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
    match coding {
        "identity" | "none" | "" => Ok(data.to_vec()),
        "gzip" | "x-gzip" => {
            if !data.starts_with(&[0x1f, 0x8b]) {
                // Some servers label zlib or raw deflate as gzip.
                return decode_deflate(data, limit)
                    .map_err(|_| DecodeError::Failed("gzip: not gzip data".into()));
            }
            read_limited(MultiGzDecoder::new(data), limit, "gzip")
        }
        "deflate" => decode_deflate(data, limit),
        other => Err(DecodeError::Failed(format!(
            "unsupported content coding {other}"
        ))),
    }
}

fn decode_deflate(data: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
    match read_limited(ZlibDecoder::new(data), limit, "deflate") {
        Ok(v) => Ok(v),
        Err(DecodeError::TooLarge) => Err(DecodeError::TooLarge),
        Err(_) => read_limited(DeflateDecoder::new(data), limit, "deflate"),
    }
}

/// Reads a decoder to its end, at most `limit` bytes. A stream cut short after producing
/// output keeps that output (truncated captures are common).
fn read_limited<R: Read>(r: R, limit: usize, what: &str) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    let res = r
        .take((limit as u64).saturating_add(1))
        .read_to_end(&mut out);
    if out.len() > limit {
        return Err(DecodeError::TooLarge);
    }
    match res {
        Ok(_) => Ok(out),
        Err(_) if !out.is_empty() => Ok(out),
        Err(e) => Err(DecodeError::Failed(format!("{what}: {e}"))),
    }
}

/// Whether raw bytes look like text (no NUL, few control bytes in the first KiB), so an
/// undecodable payload is still worth keeping.
pub fn looks_like_text(data: &[u8]) -> bool {
    let sample = &data[..data.len().min(1024)];
    if sample.is_empty() {
        return false;
    }
    let bad = sample
        .iter()
        .filter(|&&b| b == 0 || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)))
        .count();
    bad * 100 <= sample.len()
}

pub fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

pub fn trim_ascii(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &s[start..end.max(start)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn head_with_bare_lf_fold_and_junk() {
        let raw = b"HTTP/1.1 404 Not Found\nContent-Type: text/html;\n charset=UTF-8\njunk line\nTransfer-Encoding: Chunked\nContent-Encoding: gzip\n";
        let h = parse_http_head(raw);
        assert_eq!(h.status, Some(404));
        assert_eq!(h.content_type.as_deref(), Some("text/html; charset=UTF-8"));
        assert!(h.chunked);
        assert_eq!(h.content_encoding, vec!["gzip".to_string()]);
        assert_eq!(
            charset_param(h.content_type.as_deref().unwrap_or("")),
            Some("utf-8".into())
        );
    }

    #[test]
    fn status_line_variants() {
        assert_eq!(parse_status_line(b"HTTP/1.0 200"), Some(200));
        assert_eq!(parse_status_line(b"HTTP/2  301  Moved"), Some(301));
        assert_eq!(parse_status_line(b"HTTP/1.1 OK"), None);
        assert_eq!(parse_status_line(b"ICY 200 OK"), None);
    }

    #[test]
    fn media_type_and_charset() {
        assert_eq!(
            media_type("Text/HTML; charset=\"ISO-8859-1\"").as_deref(),
            Some("text/html")
        );
        assert_eq!(
            charset_param("text/html; Charset='ISO-8859-1'").as_deref(),
            Some("iso-8859-1")
        );
        assert_eq!(media_type("  ;x=y"), None);
    }

    #[test]
    fn dechunk_normal_and_extensions() {
        let body = b"4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n";
        assert!(looks_chunked(body));
        assert_eq!(dechunk(body).unwrap(), b"Wikipedia in\r\n\r\nchunks.");
        assert_eq!(dechunk(b"3\nabc\n0\n").unwrap(), b"abc");
    }

    #[test]
    fn dechunk_rejects_non_chunked_and_keeps_truncated() {
        assert!(!looks_chunked(b"<html><body>"));
        assert_eq!(dechunk(b"<html>\r\n"), None);
        assert_eq!(dechunk(b"a\r\n0123456789\r\nzz\r\n"), None);
        assert_eq!(dechunk(b"a\r\n01234").unwrap(), b"01234");
    }

    #[test]
    fn content_codings() {
        let text = b"<html>hello hello hello</html>".repeat(10);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(decode_content("gzip", &gz, 1 << 20).unwrap(), text);
        assert_eq!(decode_content("x-gzip", &gz, 1 << 20).unwrap(), text);
        assert_eq!(decode_content("gzip", &gz, 10), Err(DecodeError::TooLarge));

        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&text).unwrap();
        let z = z.finish().unwrap();
        assert_eq!(decode_content("deflate", &z, 1 << 20).unwrap(), text);

        let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        d.write_all(&text).unwrap();
        let d = d.finish().unwrap();
        assert_eq!(decode_content("deflate", &d, 1 << 20).unwrap(), text);

        assert!(matches!(
            decode_content("gzip", b"<html>plain</html>", 100),
            Err(DecodeError::Failed(_))
        ));
        assert!(matches!(
            decode_content("br", b"xx", 100),
            Err(DecodeError::Failed(_))
        ));
    }

    #[test]
    fn sniffing() {
        assert!(sniff_html(b"\xef\xbb\xbf  <!DOCTYPE HTML><html>"));
        assert!(sniff_html(b"<HTML><head>"));
        assert!(!sniff_html(b"{\"a\":1}"));
        assert!(looks_like_text(b"plain words"));
        assert!(!looks_like_text(&[0, 1, 2, 3, 0, 0, 9]));
    }
}
