//! Replay links: where a coder can see a capture as it looked, in a Wayback-style replay
//! (a local pywb collection, `https://web.archive.org/web/`): `BASE` + the 14-digit capture
//! timestamp + `/` + the original URL. And the terminal clipboard sequence (OSC 52) that
//! copies such a link. Pure functions: the URL is crawled text, so what they return has no
//! control byte left in it (the OSC 52 payload is base64 as well).

use crate::ingest::date::wayback_timestamp;
use crate::review::sanitize_line;

/// The replay URL of a capture of `url` at `capture_date` (any form ingest stores; without
/// a date the replay picks the capture nearest "now", as both pywb and the Wayback Machine
/// do for a URL without a timestamp).
pub fn replay_url(base: &str, capture_date: Option<&str>, url: &str) -> String {
    let mut out = base.trim().to_string();
    if !out.ends_with('/') {
        out.push('/');
    }
    if let Some(ts) = capture_date.and_then(wayback_timestamp) {
        out.push_str(&ts);
        out.push('/');
    }
    out.push_str(url.trim());
    // Control bytes and escape sequences out; spaces in a URL are not valid either.
    sanitize_line(&out).replace(' ', "%20")
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (a few lines; no crate needed for one short string).
fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(B64[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard (xterm, kitty, iTerm2,
/// WezTerm, tmux with `set-clipboard on`).
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_urls_carry_the_capture_timestamp() {
        assert_eq!(
            replay_url(
                "https://web.archive.org/web/",
                Some("2008-04-30T20:48:25Z"),
                "http://www.archive.org/"
            ),
            "https://web.archive.org/web/20080430204825/http://www.archive.org/"
        );
        assert_eq!(
            replay_url("http://localhost:8080/my-coll", None, "http://a/x"),
            "http://localhost:8080/my-coll/http://a/x"
        );
        // Hostile bytes in a crawled URL never reach the terminal.
        let u = replay_url(
            "http://l/c/",
            Some("20080430"),
            "http://a/\x1b]52;c;AAAA\x07x y\n",
        );
        assert!(!u.chars().any(|c| c.is_control()), "{u:?}");
        assert!(u.starts_with("http://l/c/20080430000000/http://a/"), "{u}");
    }

    #[test]
    fn osc52_is_base64() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }
}
