//! The binary form of `query`'s signature index (`run_signatures`): a format byte, then each
//! method's fields as LEB128 varints, fixed little-endian words and length-prefixed bytes.
//! JSON compressed with zstd was most of what storing a run cost (issue 16, session 14:
//! serializing, escaping and compressing every signature string twice, once per table);
//! these are written with a few copies and read back without a parser.
//!
//! The format byte is [`FORMAT_V1`] (`crate::store::BINARY_RUN_SIG`), which neither JSON
//! (`{`, `[`) nor a zstd frame (0x28) starts with, so an index stored by an older version
//! reads back as it was stored. A reader returns `None` on anything it cannot read; the
//! caller then signs the documents again, as for a run stored before the index.

/// The first byte of every signature in this form (version 1).
pub const FORMAT_V1: u8 = crate::store::BINARY_RUN_SIG;

/// Whether `bytes` are in this form (otherwise JSON, as stored before it).
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.first() == Some(&FORMAT_V1)
}

/// Builds one signature's bytes.
#[derive(Debug, Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    /// A signature started with its format byte.
    pub fn new() -> Self {
        Writer(vec![FORMAT_V1])
    }

    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    /// A signed number, zigzag-encoded (small magnitudes stay short).
    pub fn signed(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A 64-bit hash: eight bytes, little-endian (a varint of a uniform hash is ten).
    pub fn u64_le(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub fn byte(&mut self, b: u8) {
        self.0.push(b);
    }

    pub fn raw(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.varint(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }

    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// Reads one signature's bytes; every read is `None` past the end.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader after the format byte, `None` when `bytes` are not in this form.
    pub fn new(bytes: &'a [u8]) -> Option<Self> {
        let rest = bytes.strip_prefix(&[FORMAT_V1])?;
        Some(Reader { bytes: rest })
    }

    pub fn varint(&mut self) -> Option<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    /// A varint that must fit a `u32` (an id, a count).
    pub fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.varint()?).ok()
    }

    /// A count of items that each take at least one byte: never more than the bytes left,
    /// so a corrupt count cannot reserve memory the signature could not fill.
    pub fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.varint()?).ok()?;
        (n <= self.bytes.len()).then_some(n)
    }

    pub fn signed(&mut self) -> Option<i64> {
        let z = self.varint()?;
        Some(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    pub fn u64_le(&mut self) -> Option<u64> {
        let b = self.raw(8)?;
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        Some(u64::from_le_bytes(w))
    }

    pub fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(b)
    }

    pub fn raw(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (b, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(b)
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        self.raw(n)
    }

    /// Length-prefixed UTF-8.
    pub fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    /// Whether every byte was read (a well-formed signature leaves none).
    pub fn at_end(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// Sorted strings front-coded: per string the length of the prefix it shares with the one
/// before, then the rest (Cooper's salient terms, sorted words: about half their bytes).
pub fn write_sorted_strs(w: &mut Writer, strs: &[&str]) {
    w.varint(strs.len() as u64);
    let mut prev: &[u8] = &[];
    for s in strs {
        let s = s.as_bytes();
        let shared = prev.iter().zip(s).take_while(|(a, b)| a == b).count();
        w.varint(shared as u64);
        w.bytes(&s[shared..]);
        prev = s;
    }
}

/// [`write_sorted_strs`]' strings back.
pub fn read_sorted_strs(r: &mut Reader<'_>) -> Option<Vec<String>> {
    let n = r.count()?;
    let mut out: Vec<String> = Vec::with_capacity(n);
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..n {
        let shared = usize::try_from(r.varint()?).ok()?;
        let rest = r.bytes()?;
        if shared > prev.len() {
            return None;
        }
        prev.truncate(shared);
        prev.extend_from_slice(rest);
        out.push(String::from_utf8(prev.clone()).ok()?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_and_a_cut_signature_reads_as_none() {
        let mut w = Writer::new();
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            w.varint(v);
        }
        for v in [0, -1, 1, i64::MIN, i64::MAX] {
            w.signed(v);
        }
        w.u64_le(0xDEAD_BEEF_0123_4567);
        w.byte(7);
        w.bytes(b"abc");
        write_sorted_strs(&mut w, &["alpha", "alphabet", "beta", "é"]);
        let bytes = w.finish();
        assert!(is_binary(&bytes));
        let mut r = Reader::new(&bytes).unwrap();
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(r.varint(), Some(v));
        }
        for v in [0, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(r.signed(), Some(v));
        }
        assert_eq!(r.u64_le(), Some(0xDEAD_BEEF_0123_4567));
        assert_eq!(r.byte(), Some(7));
        assert_eq!(r.bytes(), Some(&b"abc"[..]));
        assert_eq!(
            read_sorted_strs(&mut r).unwrap(),
            ["alpha", "alphabet", "beta", "é"]
        );
        assert!(r.at_end());
        // Every cut short of the whole fails somewhere rather than reading past the end.
        for cut in 1..bytes.len() {
            let mut r = Reader::new(&bytes[..cut]).unwrap();
            let whole = (|| {
                for _ in 0..6 {
                    r.varint()?;
                }
                for _ in 0..5 {
                    r.signed()?;
                }
                r.u64_le()?;
                r.byte()?;
                r.bytes()?;
                read_sorted_strs(&mut r)
            })();
            assert!(whole.is_none(), "cut at {cut}");
        }
        assert!(Reader::new(b"[1]").is_none());
    }
}
