//! A minimal WARC 1.1 writer: one gzip member per record, as crawlers write them. It makes
//! the bundled demo crawl (`examples/make_demo_crawl.rs`) and crawls for tests; it is not
//! a general archiving tool.

use std::io::{self, Write};

use flate2::write::GzEncoder;
use flate2::Compression as Level;
use sha1::{Digest, Sha1};

/// Writes WARC records to `out`, each record in its own gzip member (or plain).
pub struct WarcWriter<W: Write> {
    out: W,
    gzip: bool,
    next_id: u64,
}

/// `sha1:` + base32 of the SHA-1 of `bytes`, the form crawlers write in WARC-Payload-Digest.
pub fn payload_digest(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let digest = Sha1::digest(bytes);
    let mut out = String::from("sha1:");
    let mut buffer: u64 = 0;
    let mut bits = 0;
    for &b in digest.iter() {
        buffer = (buffer << 8) | u64::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((buffer >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((buffer << (5 - bits)) & 31) as usize] as char);
    }
    out
}

impl<W: Write> WarcWriter<W> {
    pub fn new(out: W, gzip: bool) -> Self {
        WarcWriter {
            out,
            gzip,
            next_id: 1,
        }
    }

    fn record_id(&mut self) -> String {
        let id = self.next_id;
        self.next_id += 1;
        format!("<urn:uuid:00000000-0000-4000-8000-{id:012x}>")
    }

    fn write_record(&mut self, headers: &[(&str, String)], block: &[u8]) -> io::Result<String> {
        let id = self.record_id();
        let mut rec = Vec::with_capacity(block.len() + 512);
        rec.extend_from_slice(b"WARC/1.1\r\n");
        for (k, v) in headers {
            rec.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
        rec.extend_from_slice(format!("WARC-Record-ID: {id}\r\n").as_bytes());
        rec.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
        rec.extend_from_slice(block);
        rec.extend_from_slice(b"\r\n\r\n");
        if self.gzip {
            let mut gz = GzEncoder::new(&mut self.out, Level::default());
            gz.write_all(&rec)?;
            gz.finish()?;
        } else {
            self.out.write_all(&rec)?;
        }
        Ok(id)
    }

    /// A `warcinfo` record describing the crawl.
    pub fn warcinfo(&mut self, date: &str, info: &str) -> io::Result<String> {
        self.write_record(
            &[
                ("WARC-Type", "warcinfo".into()),
                ("WARC-Date", date.into()),
                ("Content-Type", "application/warc-fields".into()),
            ],
            info.as_bytes(),
        )
    }

    /// A `response` record with an HTTP/1.1 200 envelope around `body`. Returns the record
    /// id and the payload digest.
    pub fn response(
        &mut self,
        url: &str,
        date: &str,
        content_type: &str,
        body: &[u8],
    ) -> io::Result<(String, String)> {
        let mut block = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        block.extend_from_slice(body);
        let digest = payload_digest(body);
        let id = self.write_record(
            &[
                ("WARC-Type", "response".into()),
                ("WARC-Target-URI", url.into()),
                ("WARC-Date", date.into()),
                ("WARC-Payload-Digest", digest.clone()),
                ("Content-Type", "application/http; msgtype=response".into()),
            ],
            &block,
        )?;
        Ok((id, digest))
    }

    /// A `revisit` record (identical-payload-digest profile) pointing at an earlier capture.
    pub fn revisit(
        &mut self,
        url: &str,
        date: &str,
        refers_to: &str,
        refers_to_uri: &str,
        refers_to_date: &str,
        digest: &str,
    ) -> io::Result<String> {
        let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
        self.write_record(
            &[
                ("WARC-Type", "revisit".into()),
                ("WARC-Target-URI", url.into()),
                ("WARC-Date", date.into()),
                (
                    "WARC-Profile",
                    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest".into(),
                ),
                ("WARC-Refers-To", refers_to.into()),
                ("WARC-Refers-To-Target-URI", refers_to_uri.into()),
                ("WARC-Refers-To-Date", refers_to_date.into()),
                ("WARC-Payload-Digest", digest.into()),
                ("Content-Type", "application/http; msgtype=response".into()),
            ],
            block,
        )
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_digest_is_base32_sha1() {
        // SHA-1("") = da39a3ee…, base32 = 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ.
        assert_eq!(payload_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
    }

    #[test]
    fn plain_records_have_the_declared_length() {
        let mut w = WarcWriter::new(Vec::new(), false);
        w.response(
            "http://x/",
            "2024-01-01T00:00:00Z",
            "text/html",
            b"<p>hi</p>",
        )
        .unwrap();
        let out = String::from_utf8(w.into_inner()).unwrap();
        assert!(out.starts_with("WARC/1.1\r\nWARC-Type: response\r\n"));
        let (head, rest) = out.split_once("\r\n\r\n").unwrap();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(rest.len(), len + 4);
        assert!(rest.ends_with("<p>hi</p>\r\n\r\n"));
    }
}
