//! Bytes → UTF-8: chooses the character set of a payload and decodes it.
//!
//! Precedence: a byte-order mark (it cannot be there by accident, and browsers let it win
//! over everything), then the HTTP header charset, then — for HTML only — a `<meta>` charset
//! declaration in the first [`PRESCAN_BYTES`], then valid UTF-8, then `chardetng`. Decoding
//! never fails: malformed sequences become U+FFFD.
//!
//! One deliberate departure from browsers: when a header or `<meta>` declares a legacy
//! ASCII-compatible encoding but the whole body is valid UTF-8 with non-ASCII bytes, the body
//! is UTF-8. Legacy-encoded text is almost never valid UTF-8 by accident, while stale
//! declarations are common (server defaults of ISO-8859-1, pages re-saved as UTF-8 that kept
//! `<meta charset=gb2312>`, as `news/readability/qq.html` in the corpus); decoding such a page
//! with its declaration gives mojibake that would defeat every detector downstream.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How far into an HTML page a `<meta charset>` declaration is looked for. The HTML spec
/// says 1024 bytes; real pages put long scripts or comments first, so we look further.
pub const PRESCAN_BYTES: usize = 4096;

/// Where the encoding of a decoded payload came from (for tests and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    ByteOrderMark,
    Header,
    Meta,
    ValidUtf8,
    /// A declaration (header or meta) named a legacy encoding, but the body is UTF-8.
    Utf8OverDeclared,
    Detected,
}

/// A payload decoded to UTF-8.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    pub source: CharsetSource,
}

/// Decodes `body`; `sniff_meta` enables the `<meta>` prescan (HTML payloads only).
pub fn decode(body: &[u8], header_charset: Option<&str>, sniff_meta: bool) -> Decoded {
    let (text, encoding, source) = decode_borrowed(body, header_charset, sniff_meta);
    Decoded {
        text: text.into_owned(),
        encoding,
        source,
    }
}

/// [`decode`] without copying a body that is already valid in its encoding (UTF-8, or
/// ASCII in an ASCII-compatible encoding): the text borrows from `body` then.
pub fn decode_borrowed<'a>(
    body: &'a [u8],
    header_charset: Option<&str>,
    sniff_meta: bool,
) -> (Cow<'a, str>, &'static Encoding, CharsetSource) {
    let (encoding, source, bom_len) = choose(body, header_charset, sniff_meta);
    let (text, _had_errors) = encoding.decode_without_bom_handling(&body[bom_len..]);
    (text, encoding, source)
}

/// Picks the encoding and the number of leading BOM bytes to skip.
fn choose(
    body: &[u8],
    header_charset: Option<&str>,
    sniff_meta: bool,
) -> (&'static Encoding, CharsetSource, usize) {
    if let Some((encoding, bom_len)) = Encoding::for_bom(body) {
        return (encoding, CharsetSource::ByteOrderMark, bom_len);
    }
    let declared = match header_charset.and_then(label_to_encoding) {
        Some(encoding) => Some((encoding, CharsetSource::Header)),
        None if sniff_meta => prescan_meta(&body[..body.len().min(PRESCAN_BYTES)])
            .map(|encoding| (encoding, CharsetSource::Meta)),
        None => None,
    };
    if let Some((encoding, source)) = declared {
        let stale = encoding != UTF_8
            && encoding.is_ascii_compatible()
            && !body.is_ascii()
            && std::str::from_utf8(body).is_ok();
        if stale {
            return (UTF_8, CharsetSource::Utf8OverDeclared, 0);
        }
        return (encoding, source, 0);
    }
    if std::str::from_utf8(body).is_ok() {
        return (UTF_8, CharsetSource::ValidUtf8, 0);
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(body, true);
    let guess = detector.guess(None, chardetng::Utf8Detection::Allow);
    (guess, CharsetSource::Detected, 0)
}

/// `Encoding::for_label`, tolerant of quotes and spaces around the label.
fn label_to_encoding(label: &str) -> Option<&'static Encoding> {
    let trimmed = label.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    Encoding::for_label(trimmed.as_bytes())
}

/// The encoding a `<meta>` declaration names, following the HTML spec's prescan loosely:
/// comments are skipped, attributes are parsed with quotes, and a declared UTF-16 means
/// UTF-8 (the bytes in hand are ASCII-compatible, or we could not have read the tag).
pub fn prescan_meta(window: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    while pos < window.len() {
        let rest = &window[pos..];
        let Some(lt) = memchr::memchr(b'<', rest) else {
            break;
        };
        pos += lt;
        let rest = &window[pos..];
        if rest.starts_with(b"<!--") {
            pos += match memchr::memmem::find(&rest[4..], b"-->") {
                Some(end) => 4 + end + 3,
                None => return None,
            };
            continue;
        }
        if rest.len() > 5
            && rest[1..5].eq_ignore_ascii_case(b"meta")
            && (rest[5].is_ascii_whitespace() || rest[5] == b'/')
        {
            let (found, consumed) = meta_tag_encoding(&rest[5..]);
            if found.is_some() {
                return found;
            }
            pos += 5 + consumed;
            continue;
        }
        pos += 1;
    }
    None
}

/// Reads the attributes of one `<meta` tag (after the tag name); returns the encoding it
/// declares, if any, and how many bytes the attributes took.
fn meta_tag_encoding(tag: &[u8]) -> (Option<&'static Encoding>, usize) {
    let mut charset: Option<&[u8]> = None;
    let mut content_charset: Option<&[u8]> = None;
    let mut http_equiv_content_type = false;
    let mut i = 0;
    loop {
        while i < tag.len() && (tag[i].is_ascii_whitespace() || tag[i] == b'/') {
            i += 1;
        }
        if i >= tag.len() || tag[i] == b'>' {
            break;
        }
        let name_start = i;
        while i < tag.len()
            && !matches!(tag[i], b'=' | b'>' | b'/')
            && !tag[i].is_ascii_whitespace()
        {
            i += 1;
        }
        let name = &tag[name_start..i];
        while i < tag.len() && tag[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if i < tag.len() && tag[i] == b'=' {
            i += 1;
            while i < tag.len() && tag[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < tag.len() && (tag[i] == b'"' || tag[i] == b'\'') {
                let quote = tag[i];
                let start = i + 1;
                let end = memchr::memchr(quote, &tag[start..]).map_or(tag.len(), |e| start + e);
                value = &tag[start..end];
                i = (end + 1).min(tag.len());
            } else {
                let start = i;
                while i < tag.len() && tag[i] != b'>' && !tag[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = &tag[start..i];
            }
        }
        if name.eq_ignore_ascii_case(b"charset") && charset.is_none() {
            charset = Some(value);
        } else if name.eq_ignore_ascii_case(b"http-equiv") {
            http_equiv_content_type |= trim_ascii(value).eq_ignore_ascii_case(b"content-type");
        } else if name.eq_ignore_ascii_case(b"content") && content_charset.is_none() {
            content_charset = charset_from_content(value);
        }
    }
    let label = charset.or(if http_equiv_content_type {
        content_charset
    } else {
        None
    });
    let encoding = label
        .and_then(|l| Encoding::for_label(trim_ascii(l)))
        .map(|e| {
            if e == UTF_16LE || e == UTF_16BE {
                UTF_8
            } else if e == X_USER_DEFINED {
                WINDOWS_1252
            } else {
                e
            }
        });
    (encoding, i)
}

/// The `charset=` parameter of a `content="text/html; charset=..."` attribute value.
fn charset_from_content(content: &[u8]) -> Option<&[u8]> {
    let lower: Vec<u8> = content.to_ascii_lowercase();
    let at = memchr::memmem::find(&lower, b"charset")?;
    let mut i = at + b"charset".len();
    while i < content.len() && content[i].is_ascii_whitespace() {
        i += 1;
    }
    if i >= content.len() || content[i] != b'=' {
        return None;
    }
    i += 1;
    while i < content.len() && content[i].is_ascii_whitespace() {
        i += 1;
    }
    if i < content.len() && (content[i] == b'"' || content[i] == b'\'') {
        let quote = content[i];
        let start = i + 1;
        let end = memchr::memchr(quote, &content[start..])?;
        return Some(&content[start..start + end]);
    }
    let start = i;
    while i < content.len() && !content[i].is_ascii_whitespace() && content[i] != b';' {
        i += 1;
    }
    Some(&content[start..i])
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{GBK, SHIFT_JIS};

    #[test]
    fn header_wins_over_meta_and_detection() {
        let body = b"<meta charset=\"shift_jis\"><p>caf\xe9</p>";
        let d = decode(body, Some("windows-1252"), true);
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.source, CharsetSource::Header);
        assert!(d.text.contains("café"));
    }

    #[test]
    fn unknown_header_label_falls_through_to_meta() {
        let body = b"<meta charset=\"windows-1252\"><p>caf\xe9</p>";
        let d = decode(body, Some("no-such-charset"), true);
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.source, CharsetSource::Meta);
    }

    #[test]
    fn quoted_header_label_is_accepted() {
        let d = decode(b"abc", Some(" \"ISO-8859-1\" "), true);
        assert_eq!(d.encoding, WINDOWS_1252);
    }

    #[test]
    fn meta_wins_over_detection() {
        // Detection alone would pick GBK for these bytes; the declaration wins.
        let (bytes, _, _) = GBK.encode("中华人民共和国是一个位于东亚的国家，首都是北京。");
        let mut body = b"<meta charset=euc-kr><p>".to_vec();
        body.extend_from_slice(&bytes);
        let d = decode(&body, None, true);
        assert_eq!(d.source, CharsetSource::Meta);
        assert_eq!(d.encoding, encoding_rs::EUC_KR);
        let d = decode(&body, None, false);
        assert_eq!(d.source, CharsetSource::Detected);
        assert_eq!(d.encoding, GBK);
    }

    #[test]
    fn valid_utf8_overrides_a_stale_legacy_declaration() {
        let body = "<meta charset=gb2312><p>香港行政长官 café</p>".as_bytes();
        let d = decode(body, None, true);
        assert_eq!(d.source, CharsetSource::Utf8OverDeclared);
        assert_eq!(d.encoding, UTF_8);
        assert!(d.text.contains("香港行政长官 café"));
        let d = decode(body, Some("iso-8859-1"), true);
        assert_eq!(d.source, CharsetSource::Utf8OverDeclared);
        // Pure ASCII keeps its declaration (nothing to decide, and the name is what was said).
        let d = decode(b"<meta charset=gb2312><p>ascii</p>", None, true);
        assert_eq!(d.encoding, GBK);
        // A UTF-16 declaration is not ASCII-compatible: NUL-laden UTF-16 is valid UTF-8.
        let d = decode("h\0i\0é\0".as_bytes(), Some("utf-16le"), true);
        assert_eq!(d.encoding, UTF_16LE);
    }

    #[test]
    fn http_equiv_content_type_is_read() {
        let body =
            b"<html><head><META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Shift_JIS'>";
        assert_eq!(prescan_meta(body), Some(SHIFT_JIS));
        // Without http-equiv the content attribute does not count.
        let body = b"<meta name=x content='text/html; charset=Shift_JIS'>";
        assert_eq!(prescan_meta(body), None);
    }

    #[test]
    fn meta_in_comment_is_ignored() {
        let body = b"<!-- <meta charset=gbk> --><meta charset=euc-jp>";
        assert_eq!(prescan_meta(body), Some(encoding_rs::EUC_JP));
    }

    #[test]
    fn meta_utf16_means_utf8() {
        assert_eq!(prescan_meta(b"<meta charset=utf-16le>"), Some(UTF_8));
    }

    #[test]
    fn meta_beyond_prescan_window_is_ignored() {
        let mut body = vec![b' '; PRESCAN_BYTES + 10];
        body.extend_from_slice(b"<meta charset=gbk>");
        let d = decode(&body, None, true);
        assert_eq!(d.encoding, UTF_8);
    }

    #[test]
    fn meta_is_not_read_for_plain_text() {
        let d = decode(b"<meta charset=gbk> plain", None, false);
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.source, CharsetSource::ValidUtf8);
    }

    #[test]
    fn bom_is_removed_and_wins() {
        let d = decode(b"\xef\xbb\xbfhello", Some("windows-1252"), true);
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.text, "hello");
        let d = decode(b"\xff\xfeh\0i\0", None, true);
        assert_eq!(d.encoding, UTF_16LE);
        assert_eq!(d.text, "hi");
    }

    #[test]
    fn detects_shift_jis_and_gbk_and_windows_1252() {
        let sentence = "日本語のテキストです。東京都の天気は晴れ。今日は良い天気ですね。";
        let (sjis, _, _) = SHIFT_JIS.encode(sentence);
        let d = decode(&sjis, None, true);
        assert_eq!(d.source, CharsetSource::Detected);
        assert_eq!(d.encoding, SHIFT_JIS);
        assert_eq!(d.text, sentence);

        let chinese = "中华人民共和国是一个位于东亚的国家，首都是北京。今天的新闻报道了经济发展。";
        let (gbk, _, _) = GBK.encode(chinese);
        let d = decode(&gbk, None, true);
        assert_eq!(d.source, CharsetSource::Detected);
        assert_eq!(d.encoding, GBK);
        assert_eq!(d.text, chinese);

        let french = "Le café était très animé, et l'élève a reçu un prix à Noël.";
        let (latin, _, _) = WINDOWS_1252.encode(french);
        let d = decode(&latin, None, true);
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.text, french);
    }

    #[test]
    fn valid_utf8_is_utf8() {
        let d = decode("naïve — ok".as_bytes(), None, true);
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.source, CharsetSource::ValidUtf8);
    }

    #[test]
    fn truncated_meta_never_panics() {
        for body in [
            &b"<meta"[..],
            b"<meta ",
            b"<meta charset",
            b"<meta charset=",
            b"<meta charset='",
            b"<meta http-equiv=content-type content=\"charset",
            b"<meta http-equiv=content-type content=\"charset=",
            b"<meta http-equiv=content-type content='charset=\"x",
            b"<!--",
        ] {
            let _ = prescan_meta(body);
        }
    }
}
