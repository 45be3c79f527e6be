//! Client-side redirect stubs: pages that only send the browser elsewhere — a
//! `<meta http-equiv="refresh" content="0; url=…">` and/or an inline script that sets
//! `location` — with little visible text besides ("Redirecting to …", "You're being
//! redirected…"). Generators write one for every moved page (rustdoc, mkdocs, Jekyll's and
//! Hugo's aliases); their texts look alike and say nothing, so triage counts them as noise
//! (`model::triage`'s `client-redirect` rule) from the flag ingest stores.
//!
//! Decided once at ingest, where the markup is at hand, and robust to pages that merely carry
//! a refresh: a refresh without a URL (a news home page reloading itself every few minutes),
//! one with a long delay, or any page with more than a few words of visible text is not a stub.
//! Only small pages are looked at, so the scan costs nothing on ordinary pages.

/// A stub has at most this many visible words, not counting the words that are paths or
/// URLs (the "Redirecting to ../../x/struct.Y.html" target).
pub const STUB_MAX_WORDS: usize = 25;

/// Pages larger than this (decoded bytes of HTML) are never stubs: stubs are a few hundred
/// bytes, and the scan's work stays bounded.
pub const STUB_MAX_HTML_BYTES: usize = 64 << 10;

/// A refresh that waits longer than this many seconds is a timer, not a redirect.
pub const STUB_MAX_REFRESH_SECONDS: f64 = 10.0;

/// An inline script larger than this many bytes does more than set `location`.
pub const STUB_MAX_SCRIPT_BYTES: usize = 1024;

/// Whether the page `html`, whose visible text is `visible_text`, is a client-side redirect
/// stub: little visible text, and a meta refresh to a URL within a few seconds or a small
/// inline script that assigns `location` (or calls `location.replace` / `assign`).
pub fn is_redirect_stub(html: &str, visible_text: &str) -> bool {
    if html.len() > STUB_MAX_HTML_BYTES || !few_words(visible_text) {
        return false;
    }
    let mut found = false;
    scan_tags(html, |tag| match tag {
        Tag::Meta(attrs) => {
            if meta_refresh_redirects(&attrs) {
                found = true;
            }
        }
        Tag::Script { attrs, body } => {
            let external = attrs.iter().any(|(n, _)| n == "src");
            if !external && body.len() <= STUB_MAX_SCRIPT_BYTES && sets_location(body) {
                found = true;
            }
        }
    });
    found
}

/// At most [`STUB_MAX_WORDS`] words that are not paths or URLs.
fn few_words(text: &str) -> bool {
    // A stub's text is short; a long one is not counted word by word.
    if text.len() > 64 * STUB_MAX_WORDS {
        return false;
    }
    text.split_whitespace()
        .filter(|w| !w.contains('/'))
        .take(STUB_MAX_WORDS + 1)
        .count()
        <= STUB_MAX_WORDS
}

/// A tag the scan reports: lower-cased attribute names with their raw values.
enum Tag<'a> {
    Meta(Vec<(String, &'a str)>),
    Script {
        attrs: Vec<(String, &'a str)>,
        body: &'a str,
    },
}

/// Calls `on` for every `<meta>` and `<script>` tag outside comments, in order.
fn scan_tags<'a>(html: &'a str, mut on: impl FnMut(Tag<'a>)) {
    let b = html.as_bytes();
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let at = i + off;
        let rest = &b[at..];
        if rest.starts_with(b"<!--") {
            match find(b, at + 4, b"-->") {
                Some(end) => i = end + 3,
                None => return,
            }
            continue;
        }
        if let Some(name_end) = tag_named(b, at, b"meta") {
            let (attrs, end) = attributes(html, name_end);
            on(Tag::Meta(attrs));
            i = end;
        } else if let Some(name_end) = tag_named(b, at, b"script") {
            let (attrs, end) = attributes(html, name_end);
            let close = find_ci(b, end, b"</script").unwrap_or(b.len());
            // `end` and `close` are at ASCII bytes (or the ends), so both are char boundaries.
            on(Tag::Script {
                attrs,
                body: html.get(end..close).unwrap_or(""),
            });
            i = close;
        } else {
            i = at + 1;
        }
    }
}

/// The end of the tag name when `b[at..]` opens a tag named `name` (any case).
fn tag_named(b: &[u8], at: usize, name: &[u8]) -> Option<usize> {
    let end = at + 1 + name.len();
    let got = b.get(at + 1..end)?;
    if !got.eq_ignore_ascii_case(name) {
        return None;
    }
    match b.get(end) {
        None => Some(end),
        Some(c) if c.is_ascii_whitespace() || *c == b'>' || *c == b'/' => Some(end),
        Some(_) => None,
    }
}

/// The attributes of a tag whose name ends at `from`, and the index just past its `>`.
fn attributes(html: &str, from: usize) -> (Vec<(String, &str)>, usize) {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() {
            return (out, b.len());
        }
        if b[i] == b'>' {
            return (out, i + 1);
        }
        let name_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = html.get(name_start..i).unwrap_or("").to_ascii_lowercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = "";
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let quote = b[i];
                let start = i + 1;
                let end = memchr::memchr(quote, &b[start..]).map_or(b.len(), |o| start + o);
                value = html.get(start..end).unwrap_or("");
                i = (end + 1).min(b.len());
            } else {
                let start = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                    i += 1;
                }
                value = html.get(start..i).unwrap_or("");
            }
        }
        out.push((name, value));
    }
}

/// `http-equiv="refresh"` with a content of "N; url=…" (or "N, …", or "N …": the HTML
/// standard's forms), N at most [`STUB_MAX_REFRESH_SECONDS`], and a URL.
fn meta_refresh_redirects(attrs: &[(String, &str)]) -> bool {
    let value = |name: &str| attrs.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    if !value("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh")) {
        return false;
    }
    let Some(content) = value("content") else {
        return false;
    };
    let content = content.trim_start();
    let digits = content
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(content.len());
    let delay: f64 = content[..digits].parse().unwrap_or(0.0);
    if delay > STUB_MAX_REFRESH_SECONDS {
        return false;
    }
    let rest =
        content[digits..].trim_start_matches(|c: char| c.is_whitespace() || c == ';' || c == ',');
    let rest = match rest.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("url") => rest[3..].trim_start(),
        _ => rest,
    };
    let rest = rest.strip_prefix('=').unwrap_or(rest);
    let url = rest.trim().trim_matches(|c| c == '\'' || c == '"').trim();
    !url.is_empty()
}

/// The script assigns `location` (`location = …`, `location.href = …`, also as
/// `window.`/`document.`/`top.` members) or calls `location.replace(…)` / `location.assign(…)`.
fn sets_location(script: &str) -> bool {
    let mut from = 0;
    while let Some(off) = script[from..].find("location") {
        let after = from + off + "location".len();
        let rest = script[after..].trim_start();
        let rest = rest.strip_prefix(".href").map_or(rest, str::trim_start);
        if (rest.starts_with('=') && !rest.starts_with("==") && !self_assigned(&rest[1..]))
            || rest.starts_with(".replace(")
            || rest.starts_with(".assign(")
        {
            return true;
        }
        from = after;
    }
    false
}

/// The value assigned is the page's own location (`top.location = self.location`: a frame
/// buster, which keeps the page, or a reload), not another page.
fn self_assigned(value: &str) -> bool {
    let value = value.trim_start();
    [
        "self.location",
        "window.location",
        "document.location",
        "location",
    ]
    .iter()
    .any(|own| {
        value.strip_prefix(own).is_some_and(|after| {
            let after = after.trim_start();
            let after = after.strip_prefix(".href").map_or(after, str::trim_start);
            after.is_empty() || after.starts_with([';', '}', '\n', '<'])
        })
    })
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, needle).map(|o| from + o)
}

/// Like [`find`], ignoring ASCII case.
fn find_ci(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let hay = b.get(from..)?;
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|o| from + o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stub(html: &str) -> bool {
        let visible =
            crate::extract::visible::visible_text(html, crate::extract::VisibleLimits::default())
                .text;
        is_redirect_stub(html, &visible)
    }

    #[test]
    fn a_meta_refresh_stub_with_a_url_is_a_stub() {
        // rustdoc's redirect page.
        let html = r#"<!DOCTYPE html><html lang="en"><head>
    <meta http-equiv="refresh" content="0;URL=../../../alloc/boxed/struct.ThinBox.html">
    <title>Redirection</title></head><body>
    <p>Redirecting to <a href="../../../alloc/boxed/struct.ThinBox.html">../../../alloc/boxed/struct.ThinBox.html</a>...</p>
    </body></html>"#;
        assert!(stub(html));
        assert!(stub(
            "<META HTTP-EQUIV=Refresh CONTENT=\"2; url='https://example.org/new'\"><p>This page has moved."
        ));
    }

    #[test]
    fn a_script_only_stub_is_a_stub() {
        let html = r##"<!doctype html><html><head><title>Redirecting...</title>
    <script>var anchor=window.location.hash.substr(1);location.href="../dev-guide/plugins.html"+(anchor?"#"+anchor:"")</script>
    </head><body>You're being redirected to a new destination.</body></html>"##;
        assert!(stub(html));
        assert!(stub(
            "<body><p>Moved.</p><script>window.location.replace('/x/y.html')</script></body>"
        ));
        assert!(stub("<script>document.location = '/a'</script>"));
    }

    #[test]
    fn a_news_page_with_a_refresh_timer_is_not_a_stub() {
        let article = "The council voted on Tuesday to extend the harbour. ".repeat(60);
        // A reload timer without a URL, on a short page and on a long one.
        let timer = r#"<head><meta http-equiv="refresh" content="300"><title>News</title></head>"#;
        assert!(!stub(&format!("{timer}<body><p>Latest news</p></body>")));
        assert!(!stub(&format!(
            "{timer}<body><article>{article}</article></body>"
        )));
        // A timer that reloads the home page by URL: too slow to be a redirect.
        let home = r#"<meta http-equiv="refresh" content="300; url=https://news.example/">"#;
        assert!(!stub(&format!("{home}<body><p>Latest news</p></body>")));
        // An immediate redirect on a page with a whole article is an article.
        let moved = r#"<meta http-equiv="refresh" content="0; url=https://news.example/a">"#;
        assert!(!stub(&format!(
            "{moved}<body><article>{article}</article></body>"
        )));
        let script = "<script>if (x) { location.href = '/login'; }</script>";
        assert!(!stub(&format!(
            "{script}<body><article>{article}</article></body>"
        )));
    }

    #[test]
    fn a_page_without_a_redirect_is_not_a_stub() {
        assert!(!stub(
            "<html><head><title>Hi</title></head><body><p>Hello there.</p></body></html>"
        ));
        // Reading the location, comparing it, or a redirect in a comment or an external
        // script is no redirect.
        assert!(!stub(
            "<script>var a = window.location.hash; if (location == b) {}</script><p>Short."
        ));
        assert!(!stub(
            "<!-- <meta http-equiv=refresh content='0;url=/x'> --><p>Short."
        ));
        assert!(!stub(
            "<script src=\"app.js\">location.href='/x'</script><p>Short."
        ));
        assert!(!stub(
            "<meta http-equiv=\"refresh\" content=\"0\"><p>Short."
        ));
        assert!(!stub(
            "<meta http-equiv=\"content-type\" content=\"0; url=/x\"><p>Short."
        ));
        // A frame buster keeps the page where it is.
        assert!(!stub(
            "<script>if (top.location != self.location) top.location = self.location;</script>\
             <p>Menu: home, news, contact."
        ));
        assert!(!stub(
            "<script>top.location.href = window.location.href</script><p>Short."
        ));
    }
}
