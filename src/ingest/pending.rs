//! What a stepping reader (WARC, ARC, JSONL) has produced but not yet yielded, and the
//! bookkeeping of its errors: the record being read (for error offsets) and the stream
//! faults already reported (a rewind may meet the same fault again).

use std::collections::{HashSet, VecDeque};

use super::stream::{Fault, FaultKind, Stream};
use super::{CrawlRecord, ReadItem, RecordError};

#[derive(Default)]
pub(super) struct Pending {
    out: VecDeque<ReadItem>,
    reported: HashSet<(u64, FaultKind)>,
    /// File offset of the record being read.
    rec_offset: u64,
    /// Where that record is inside a big gzip member, appended to its error reasons.
    rec_where: String,
}

impl Pending {
    /// Notes the start of a record at stream position `rec_start`.
    pub fn begin_record(&mut self, stream: &Stream, rec_start: u64) {
        self.rec_offset = stream.file_offset_of(rec_start);
        // Inside a big gzip member the file offset is the member's; say where in the
        // decompressed stream the record is, so errors stay distinct and findable.
        self.rec_where = if stream.is_gzip() && !stream.is_member_start(rec_start) {
            format!(" (decompressed offset {rec_start})")
        } else {
            String::new()
        };
    }

    pub fn record(&mut self, record: CrawlRecord) {
        self.out.push_back(ReadItem::Record(Box::new(record)));
    }

    pub fn error(&mut self, offset: u64, reason: String) {
        self.out
            .push_back(ReadItem::Error(RecordError { offset, reason }));
    }

    /// An error about the record being read.
    pub fn rec_error(&mut self, reason: String) {
        let reason = format!("{reason}{}", self.rec_where);
        self.error(self.rec_offset, reason);
    }

    /// Reports a stream fault once and moves the stream past it.
    pub fn fault(&mut self, stream: &mut Stream, f: Fault) {
        let skipped = stream.recover();
        if self.reported.insert((f.file_offset, f.kind)) {
            let reason = if f.kind == FaultKind::Junk {
                format!("junk: {skipped} bytes skipped, not a gzip member")
            } else {
                f.reason()
            };
            self.error(f.file_offset, reason);
        }
    }

    /// Reports a stream fault once without moving past it.
    pub fn report_fault(&mut self, f: &Fault) {
        if self.reported.insert((f.file_offset, f.kind)) {
            self.error(f.file_offset, f.reason());
        }
    }

    pub fn pop(&mut self) -> Option<ReadItem> {
        self.out.pop_front()
    }
}

/// A reader that produces items in steps; [`Stepped`] makes it an iterator.
pub(super) trait StepReader {
    fn pending(&mut self) -> &mut Pending;
    fn is_done(&self) -> bool;
    fn step(&mut self);
}

/// The iterator over a [`StepReader`]: yields what is pending, steps when nothing is.
pub(super) struct Stepped<R>(pub R);

impl<R: StepReader> Iterator for Stepped<R> {
    type Item = ReadItem;

    fn next(&mut self) -> Option<ReadItem> {
        loop {
            if let Some(item) = self.0.pending().pop() {
                return Some(item);
            }
            if self.0.is_done() {
                return None;
            }
            self.0.step();
        }
    }
}
