//! The byte stream under the WARC and ARC parsers: a file read either as plain bytes or as a
//! series of gzip members, presented as one *logical* (decompressed) stream with positions.
//!
//! It owns the gzip member bookkeeping: where each member starts and ends, both in the file
//! and in the logical stream, so a parser can turn a logical span into a [`Locator`] and can
//! rewind to re-scan after a record with a lying Content-Length. Decompression damage is held
//! back as a pending [`Fault`] until the parser has consumed every good byte before it, so
//! records before the damage are never lost.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use flate2::bufread::GzDecoder;

use super::record::{Compression, Locator};

/// Size of the logical (decompressed) buffer and of the file read buffer.
const BUF_SIZE: usize = 256 * 1024;
/// Largest decompressed read per decoder call (see `fill_more`).
const GZIP_READ: usize = 32 * 1024;
/// The three bytes every gzip member (with deflate) starts with.
pub const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b, 0x08];

/// Damage found below the parser: a gzip member that does not decode, bytes that are not a
/// gzip member where one should start, or an I/O error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// File offset where the damage starts (the damaged member's start, or the junk's start).
    pub file_offset: u64,
    /// Logical position of the damaged member's first byte (for junk: where the junk sits).
    pub logical_start: u64,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A gzip member failed to decode (bad header, bad deflate data, CRC, truncated).
    Corrupt,
    /// Bytes that do not start a gzip member where one was expected.
    Junk,
    Io,
}

impl Fault {
    /// The short reason for a [`super::RecordError`], kind word first.
    pub fn reason(&self) -> String {
        match self.kind {
            FaultKind::Corrupt => format!("corrupt gzip: {}", self.detail),
            FaultKind::Junk => "junk: bytes that are not a gzip member".to_string(),
            FaultKind::Io => format!("io: {}", self.detail),
        }
    }
}

/// One gzip member seen so far.
#[derive(Debug, Clone, Copy)]
struct Member {
    logical_start: u64,
    file_start: u64,
    /// Known once the decoder reached the member's end.
    logical_end: Option<u64>,
    file_end: Option<u64>,
}

/// What a stream reads from: a file, or a window of one (a WARC stored inside a WACZ zip),
/// or bytes in memory (a WARC deflated inside a zip).
pub trait ByteSource: Read + Seek + Send {}
impl<T: Read + Seek + Send> ByteSource for T {}

/// A file reader that counts how many bytes have been consumed, so a gzip decoder that stops
/// at a member's end tells us exactly where the member ended.
struct CountingReader {
    inner: BufReader<Box<dyn ByteSource>>,
    pos: u64,
}

impl Read for CountingReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl BufRead for CountingReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.pos += amt as u64;
    }
}

impl CountingReader {
    fn seek_to(&mut self, pos: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(pos))?;
        self.pos = pos;
        Ok(())
    }
}

enum Source {
    Plain(CountingReader),
    /// Between members: the raw reader, positioned where the next member should start.
    GzipIdle(CountingReader),
    GzipMember(Box<GzDecoder<CountingReader>>),
    /// Transient state while switching; never observed outside a method.
    Gone,
}

/// The logical byte stream of one file. See the module documentation.
pub struct Stream {
    source: Source,
    gzip: bool,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Logical position of `buf[start]`.
    pos: u64,
    eof: bool,
    pending: Option<Fault>,
    members: VecDeque<Member>,
    /// The last byte consumed (for "line start" checks); `\n` at the start.
    last_byte: u8,
}

/// What [`Stream::read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line (the `\n` consumed, not stored; a trailing `\r` is removed).
    Complete,
    /// The stream ended (or faulted) before a `\n`; the bytes read are stored.
    Partial,
    /// The line was longer than the limit; `limit` bytes were consumed.
    TooLong,
}

impl Stream {
    pub fn open(file: File, gzip: bool) -> Stream {
        Stream::from_source(Box::new(file), gzip)
    }

    /// A stream over any seekable bytes; positions are relative to the source's start.
    pub fn from_source(source: Box<dyn ByteSource>, gzip: bool) -> Stream {
        let reader = CountingReader {
            inner: BufReader::with_capacity(BUF_SIZE, source),
            pos: 0,
        };
        Stream {
            source: if gzip {
                Source::GzipIdle(reader)
            } else {
                Source::Plain(reader)
            },
            gzip,
            buf: vec![0; BUF_SIZE],
            start: 0,
            end: 0,
            pos: 0,
            eof: false,
            pending: None,
            members: VecDeque::new(),
            last_byte: b'\n',
        }
    }

    pub fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// Logical position of the next unconsumed byte.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    pub fn last_byte(&self) -> u8 {
        self.last_byte
    }

    fn reader_pos(&self) -> u64 {
        match &self.source {
            Source::Plain(r) | Source::GzipIdle(r) => r.pos,
            Source::GzipMember(d) => d.get_ref().pos,
            Source::Gone => 0,
        }
    }

    /// The file offset to report for damage at logical position `logical`: the member's
    /// file start when `logical` starts a member, else the best known file position.
    pub fn file_offset_of(&self, logical: u64) -> u64 {
        if !self.gzip {
            return logical;
        }
        let mut best = None;
        for m in &self.members {
            if m.logical_start == logical {
                return m.file_start;
            }
            if m.logical_start <= logical {
                best = Some(m.file_start);
            }
        }
        best.unwrap_or_else(|| self.reader_pos())
    }

    /// Whether `logical` is the first byte of a gzip member (always false for plain files).
    pub fn is_member_start(&self, logical: u64) -> bool {
        self.members.iter().any(|m| m.logical_start == logical)
    }

    /// The locator of the logical span `[start, end)`.
    pub fn locate(&self, start: u64, end: u64) -> Locator {
        if !self.gzip {
            return Locator {
                offset: start,
                length: end.saturating_sub(start),
                compression: Compression::None,
            };
        }
        let first = self.members.iter().find(|m| m.logical_start == start);
        let last = self.members.iter().find(|m| m.logical_end == Some(end));
        if let (Some(f), Some(l)) = (first, last) {
            if let Some(file_end) = l.file_end {
                if file_end >= f.file_start {
                    return Locator {
                        offset: f.file_start,
                        length: file_end - f.file_start,
                        compression: Compression::GzipMember,
                    };
                }
            }
        }
        Locator {
            offset: start,
            length: end.saturating_sub(start),
            compression: Compression::GzipStream,
        }
    }

    /// Drops member bookkeeping that ends before `logical` (called at each record start, so
    /// memory stays bounded by the members of one record).
    pub fn forget_before(&mut self, logical: u64) {
        while self.members.len() > 1 {
            match self.members[0].logical_end {
                Some(e) if e <= logical && self.members[1].logical_start <= logical => {
                    self.members.pop_front();
                }
                _ => break,
            }
        }
    }

    /// Reads more bytes into the buffer. Returns false when nothing more can be read now
    /// (end of file, or a pending fault).
    fn fill_more(&mut self) -> bool {
        if self.eof || self.pending.is_some() {
            return false;
        }
        if self.start > 0 && (self.start == self.end || self.end == self.buf.len()) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // Only `peek` asks for more than a buffer's worth; grow modestly.
            let new_len = self.buf.len() * 2;
            self.buf.resize(new_len, 0);
        }
        loop {
            let logical_end = self.pos + (self.end - self.start) as u64;
            match std::mem::replace(&mut self.source, Source::Gone) {
                Source::Gone => return false,
                Source::Plain(mut r) => {
                    let res = r.read(&mut self.buf[self.end..]);
                    let file_pos = r.pos;
                    self.source = Source::Plain(r);
                    return match res {
                        Ok(0) => {
                            self.eof = true;
                            false
                        }
                        Ok(n) => {
                            self.end += n;
                            true
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            self.pending = Some(Fault {
                                kind: FaultKind::Io,
                                file_offset: file_pos,
                                logical_start: logical_end,
                                detail: e.to_string(),
                            });
                            false
                        }
                    };
                }
                Source::GzipIdle(mut r) => {
                    let file_start = r.pos;
                    let head = match r.fill_buf() {
                        Ok(h) => h,
                        Err(e) => {
                            self.source = Source::GzipIdle(r);
                            self.pending = Some(Fault {
                                kind: FaultKind::Io,
                                file_offset: file_start,
                                logical_start: logical_end,
                                detail: e.to_string(),
                            });
                            return false;
                        }
                    };
                    if head.is_empty() {
                        self.source = Source::GzipIdle(r);
                        self.eof = true;
                        return false;
                    }
                    let is_member = head.len() >= 3 && &head[..3] == GZIP_MAGIC
                        || (head.len() < 3 && GZIP_MAGIC.starts_with(head));
                    if !is_member {
                        self.source = Source::GzipIdle(r);
                        self.pending = Some(Fault {
                            kind: FaultKind::Junk,
                            file_offset: file_start,
                            logical_start: logical_end,
                            detail: String::new(),
                        });
                        return false;
                    }
                    self.members.push_back(Member {
                        logical_start: logical_end,
                        file_start,
                        logical_end: None,
                        file_end: None,
                    });
                    self.source = Source::GzipMember(Box::new(GzDecoder::new(r)));
                }
                Source::GzipMember(mut d) => {
                    // flate2 drops the output of a call that ends in a deflate error, so
                    // modest calls keep most of the good bytes before a damaged spot.
                    let stop = self.buf.len().min(self.end + GZIP_READ);
                    let res = d.read(&mut self.buf[self.end..stop]);
                    match res {
                        Ok(0) => {
                            let r = d.into_inner();
                            if let Some(m) = self.members.back_mut() {
                                m.logical_end = Some(logical_end);
                                m.file_end = Some(r.pos);
                            }
                            self.source = Source::GzipIdle(r);
                        }
                        Ok(n) => {
                            self.source = Source::GzipMember(d);
                            self.end += n;
                            return true;
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                            self.source = Source::GzipMember(d);
                        }
                        Err(e) => {
                            let r = d.into_inner();
                            let (file_offset, logical_start) = self
                                .members
                                .back()
                                .map_or((r.pos, logical_end), |m| (m.file_start, m.logical_start));
                            // The member is dead: forget it so nobody maps into it.
                            self.members.pop_back();
                            let detail = if e.kind() == io::ErrorKind::UnexpectedEof {
                                "member ends early".to_string()
                            } else {
                                e.to_string()
                            };
                            self.source = Source::GzipIdle(r);
                            self.pending = Some(Fault {
                                kind: FaultKind::Corrupt,
                                file_offset,
                                logical_start,
                                detail,
                            });
                            return false;
                        }
                    }
                }
            }
        }
    }

    /// The buffered bytes, reading more when none are buffered. Empty at a clean end of
    /// stream; `Err` only when nothing is buffered and a fault is pending.
    pub fn fill_buf(&mut self) -> Result<&[u8], Fault> {
        if self.start == self.end {
            while self.start == self.end && self.fill_more() {}
            if self.start == self.end {
                if let Some(f) = &self.pending {
                    return Err(f.clone());
                }
            }
        }
        Ok(&self.buf[self.start..self.end])
    }

    /// Up to `n` buffered bytes (fewer only at end of stream or before a fault).
    pub fn peek(&mut self, n: usize) -> Result<&[u8], Fault> {
        while self.end - self.start < n && self.fill_more() {}
        if self.start == self.end {
            if let Some(f) = &self.pending {
                return Err(f.clone());
            }
        }
        let have = (self.end - self.start).min(n);
        Ok(&self.buf[self.start..self.start + have])
    }

    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        if n > 0 {
            self.last_byte = self.buf[self.start + n - 1];
            self.start += n;
            self.pos += n as u64;
        }
    }

    /// Skips up to `n` bytes without buffering them; returns how many were skipped (fewer
    /// at end of stream) or the fault that stopped it.
    pub fn skip(&mut self, n: u64) -> Result<u64, (u64, Fault)> {
        let mut done = 0u64;
        while done < n {
            let avail = match self.fill_buf() {
                Ok(b) => b.len(),
                Err(f) => return Err((done, f)),
            };
            if avail == 0 {
                break;
            }
            let take = (avail as u64).min(n - done) as usize;
            self.consume(take);
            done += take as u64;
        }
        Ok(done)
    }

    /// Appends up to `n` bytes to `out`.
    pub fn read_into(&mut self, out: &mut Vec<u8>, n: u64) -> Result<u64, (u64, Fault)> {
        let mut done = 0u64;
        while done < n {
            let take = match self.fill_buf() {
                Ok(b) => {
                    if b.is_empty() {
                        break;
                    }
                    let take = (b.len() as u64).min(n - done) as usize;
                    out.extend_from_slice(&b[..take]);
                    take
                }
                Err(f) => return Err((done, f)),
            };
            self.consume(take);
            done += take as u64;
        }
        Ok(done)
    }

    /// Reads one line (up to `limit` bytes before the `\n`) into `out` (cleared first).
    pub fn read_line(&mut self, out: &mut Vec<u8>, limit: usize) -> Result<Line, Fault> {
        out.clear();
        loop {
            let buf = match self.fill_buf() {
                Ok(b) => b,
                Err(f) => {
                    if out.is_empty() {
                        return Err(f);
                    }
                    return Ok(Line::Partial);
                }
            };
            if buf.is_empty() {
                return Ok(Line::Partial);
            }
            let room = limit - out.len();
            let window = &buf[..buf.len().min(room.saturating_add(1))];
            if let Some(i) = memchr::memchr(b'\n', window) {
                out.extend_from_slice(&buf[..i]);
                self.consume(i + 1);
                if out.last() == Some(&b'\r') {
                    out.pop();
                }
                return Ok(Line::Complete);
            }
            let take = window.len().min(room);
            out.extend_from_slice(&buf[..take]);
            self.consume(take);
            if out.len() >= limit {
                return Ok(Line::TooLong);
            }
        }
    }

    /// Consumes bytes up to the next line that starts with `prefix` (a line start is a byte
    /// after `\n`, or a gzip member start). Returns true when found, false at end of stream.
    pub fn scan_to_line_prefix(&mut self, prefix: &[u8]) -> Result<bool, Fault> {
        let finder = memchr::memmem::Finder::new(prefix);
        loop {
            if self.last_byte == b'\n' || self.is_member_start(self.pos) {
                let head = self.peek(prefix.len())?;
                if head == prefix {
                    return Ok(true);
                }
            }
            let buf = self.fill_buf()?;
            if buf.is_empty() {
                return Ok(false);
            }
            // Search from index 1: index 0 was handled by the line-start check above.
            let mut from = 1;
            let mut hit = None;
            while let Some(i) = finder.find(&buf[from.min(buf.len())..]) {
                let at = from + i;
                if buf[at - 1] == b'\n' {
                    hit = Some(at);
                    break;
                }
                from = at + 1;
            }
            match hit {
                Some(at) => {
                    self.consume(at);
                    return Ok(true);
                }
                None => {
                    // Keep a tail that might hold the start of a match split across reads,
                    // but always make progress.
                    let keep = prefix.len().min(buf.len() - 1);
                    let n = buf.len() - keep;
                    // A member boundary inside the buffer is a line start too: stop there.
                    let next_member = self
                        .members
                        .iter()
                        .map(|m| m.logical_start)
                        .find(|&s| s > self.pos && s < self.pos + n as u64);
                    match next_member {
                        Some(s) => self.consume((s - self.pos) as usize),
                        None => self.consume(n),
                    }
                }
            }
        }
    }

    /// After `fill_buf` returned a fault: drop it and move to the next place a gzip member
    /// may start (plain files: nothing to do). Returns how many file bytes were skipped.
    pub fn recover(&mut self) -> u64 {
        let Some(fault) = self.pending.take() else {
            return 0;
        };
        self.last_byte = b'\n';
        match std::mem::replace(&mut self.source, Source::Gone) {
            Source::GzipIdle(mut r) => {
                let from = match fault.kind {
                    FaultKind::Junk => fault.file_offset,
                    _ => fault.file_offset + 1,
                };
                let found = scan_file_for_magic(&mut r, from);
                let skipped = found.saturating_sub(fault.file_offset);
                self.source = Source::GzipIdle(r);
                skipped
            }
            other => {
                // Plain files only fault on I/O errors: give up on the rest of the file.
                self.source = other;
                self.eof = true;
                0
            }
        }
    }

    /// Moves to logical position `target`, which must lie in a member still remembered (at
    /// or after the current record's start). Drops any pending fault: it will be met again.
    pub fn seek_logical(&mut self, target: u64) -> io::Result<()> {
        self.pending = None;
        self.eof = false;
        self.start = 0;
        self.end = 0;
        let reader = match std::mem::replace(&mut self.source, Source::Gone) {
            Source::Plain(r) | Source::GzipIdle(r) => r,
            Source::GzipMember(d) => d.into_inner(),
            Source::Gone => return Err(io::Error::other("stream lost its file")),
        };
        let mut reader = reader;
        if !self.gzip {
            reader.seek_to(target)?;
            self.source = Source::Plain(reader);
            self.pos = target;
            self.last_byte = 0;
            return Ok(());
        }
        let idx = self
            .members
            .iter()
            .rposition(|m| m.logical_start <= target)
            .unwrap_or(0);
        let (logical_start, file_start) = match self.members.get(idx) {
            Some(m) => (m.logical_start, m.file_start),
            None => (target, reader.pos),
        };
        self.members.truncate(idx);
        reader.seek_to(file_start)?;
        self.source = Source::GzipIdle(reader);
        self.pos = logical_start;
        self.last_byte = b'\n';
        let to_skip = target.saturating_sub(logical_start);
        // A fault while re-reading stops early; the caller meets it again when it reads on.
        let _ = self.skip(to_skip);
        Ok(())
    }
}

/// Positions `r` at the first gzip magic at or after `from` (or at end of file); returns
/// that position.
fn scan_file_for_magic(r: &mut CountingReader, from: u64) -> u64 {
    if r.seek_to(from).is_err() {
        return from;
    }
    let finder = memchr::memmem::Finder::new(GZIP_MAGIC);
    // The last two bytes of the previous chunk, in case the magic straddles two reads.
    let mut carry: Vec<u8> = Vec::new();
    let mut carry_pos = from;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) if !b.is_empty() => b,
            _ => return r.pos,
        };
        if !carry.is_empty() {
            let mut joined = carry.clone();
            joined.extend_from_slice(&buf[..buf.len().min(2)]);
            if let Some(i) = finder.find(&joined) {
                let at = carry_pos + i as u64;
                return if r.seek_to(at).is_ok() { at } else { r.pos };
            }
        }
        match finder.find(buf) {
            Some(i) => {
                r.consume(i);
                return r.pos;
            }
            None => {
                let n = buf.len();
                let tail = n.saturating_sub(2);
                carry = buf[tail..].to_vec();
                carry_pos = r.pos + tail as u64;
                r.consume(n);
            }
        }
    }
}
