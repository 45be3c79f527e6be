//! The group view's model: an entry's members as a table — site, capture date, length and
//! how each copy differs from the anchor (words added, words dropped, "truncated" when it is
//! a cut of the anchor's text) — sortable by date, site or length, with the earliest capture
//! marked as the likely source. Pure: built from the members' texts and dates (the text the
//! detectors read), which the session reads from the store.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// The order of the group table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupSort {
    /// Earliest capture first (undated members last).
    #[default]
    Date,
    Site,
    /// Longest first.
    Length,
}

impl GroupSort {
    pub fn name(self) -> &'static str {
        match self {
            GroupSort::Date => "date",
            GroupSort::Site => "site",
            GroupSort::Length => "length",
        }
    }

    pub fn next(self) -> GroupSort {
        match self {
            GroupSort::Date => GroupSort::Site,
            GroupSort::Site => GroupSort::Length,
            GroupSort::Length => GroupSort::Date,
        }
    }
}

/// What the table is built from, per member.
#[derive(Debug, Clone)]
pub struct GroupMember {
    pub id: i64,
    pub url: String,
    /// The capture date as stored (ISO 8601 from a WARC-Date), if any.
    pub captured: Option<String>,
    /// The text the entry's detectors read.
    pub text: String,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRow {
    pub id: i64,
    /// The URL's host ("www." dropped); the URL itself when it has none (a file path).
    pub site: String,
    pub captured: Option<String>,
    /// Characters of the text.
    pub chars: usize,
    pub words: usize,
    /// Words this copy has that the anchor does not, and the anchor's words it lacks.
    pub added: usize,
    pub dropped: usize,
    /// A cut of the anchor: what it lacks is (nearly) all at the end, and it adds (nearly)
    /// nothing.
    pub truncated: bool,
}

/// The group table of one entry.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupTable {
    /// Sorted by `sort`.
    pub rows: Vec<GroupRow>,
    pub sort: GroupSort,
    /// The member the others are compared with: the likely source when there is one.
    pub anchor: i64,
    /// The earliest capture (None when no member has a date).
    pub source: Option<i64>,
}

/// A word diff taking longer than this is cut short (the counts are then approximate).
const DIFF_DEADLINE: Duration = Duration::from_millis(200);

/// What the diffs of one table may take together: each member's deadline is this shared out
/// (between 10 ms and `DIFF_DEADLINE`), so a 100-member entry of long, much-edited pages is
/// ready in about a second rather than 20 (on the 100k benchmark one entry took 5.6 s).
const TABLE_DIFF_BUDGET: Duration = Duration::from_millis(1000);

/// The deadline of each of `members` diffs.
fn member_deadline(members: usize) -> Duration {
    (TABLE_DIFF_BUDGET / members.max(1) as u32).clamp(Duration::from_millis(10), DIFF_DEADLINE)
}

impl GroupTable {
    /// The table of `members` compared with the earliest capture, or with `fallback_anchor`
    /// when no member has a date.
    pub fn build(members: &[GroupMember], fallback_anchor: i64) -> GroupTable {
        let source = members
            .iter()
            .filter_map(|m| m.captured.as_deref().map(|c| (c, m.id)))
            .min()
            .map(|(_, id)| id);
        let anchor = source.unwrap_or(fallback_anchor);
        let anchor_text = members
            .iter()
            .find(|m| m.id == anchor)
            .map_or("", |m| m.text.as_str());
        let deadline = member_deadline(members.len().saturating_sub(1));
        let rows = members
            .iter()
            .map(|m| {
                let (added, dropped, truncated) = if m.id == anchor {
                    (0, 0, false)
                } else {
                    word_changes_within(anchor_text, &m.text, deadline)
                };
                GroupRow {
                    id: m.id,
                    site: site_of(&m.url),
                    captured: m.captured.clone(),
                    chars: m.text.chars().count(),
                    words: m.text.split_whitespace().count(),
                    added,
                    dropped,
                    truncated,
                }
            })
            .collect();
        let mut t = GroupTable {
            rows,
            sort: GroupSort::Date,
            anchor,
            source,
        };
        t.sort_by(GroupSort::Date);
        t
    }

    /// Re-sorts the rows (ties by document id, so the order is stable).
    pub fn sort_by(&mut self, sort: GroupSort) {
        self.sort = sort;
        match sort {
            GroupSort::Date => self.rows.sort_by(|a, b| {
                (a.captured.is_none(), &a.captured, a.id).cmp(&(
                    b.captured.is_none(),
                    &b.captured,
                    b.id,
                ))
            }),
            GroupSort::Site => self
                .rows
                .sort_by(|a, b| (&a.site, a.id).cmp(&(&b.site, b.id))),
            GroupSort::Length => self
                .rows
                .sort_by(|a, b| (b.chars, a.id).cmp(&(a.chars, b.id))),
        }
    }

    /// The row index of document `id`.
    pub fn position(&self, id: i64) -> Option<usize> {
        self.rows.iter().position(|r| r.id == id)
    }
}

/// The host of a URL without "www."; a URL with no scheme (a file path) is its own site.
pub fn site_of(url: &str) -> String {
    let Some((_, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next().unwrap_or(host);
    host.strip_prefix("www.").unwrap_or(host).to_lowercase()
}

/// Words `copy` adds to `anchor` and drops from it, and whether `copy` is a cut of `anchor`
/// (at least a tenth of the anchor dropped, at least four fifths of the dropped words after
/// the last word they share, and at most one added word in twenty).
pub fn word_changes(anchor: &str, copy: &str) -> (usize, usize, bool) {
    word_changes_within(anchor, copy, DIFF_DEADLINE)
}

/// [`word_changes`] with the diff cut short after `deadline`.
fn word_changes_within(anchor: &str, copy: &str, deadline: Duration) -> (usize, usize, bool) {
    let diff = TextDiff::configure()
        .timeout(deadline)
        .diff_words(anchor, copy);
    let (mut added, mut dropped, mut dropped_at_end) = (0usize, 0usize, 0usize);
    for change in diff.iter_all_changes() {
        if change.value().trim().is_empty() {
            continue;
        }
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => {
                dropped += 1;
                dropped_at_end += 1;
            }
            ChangeTag::Equal => dropped_at_end = 0,
        }
    }
    let anchor_words = anchor.split_whitespace().count();
    let copy_words = copy.split_whitespace().count();
    let truncated = dropped > 0
        && dropped * 10 >= anchor_words
        && dropped_at_end * 5 >= dropped * 4
        && added * 20 <= copy_words.max(20);
    (added, dropped, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STORY: &str = "the harbour bridge opened on monday after a decade of delays and the mayor cut the ribbon as crowds cheered along the quay";

    fn member(id: i64, url: &str, captured: Option<&str>, text: &str) -> GroupMember {
        GroupMember {
            id,
            url: url.into(),
            captured: captured.map(str::to_string),
            text: text.into(),
        }
    }

    #[test]
    fn a_cut_copy_is_truncated_and_an_edited_one_is_not() {
        let cut = "the harbour bridge opened on monday after a decade of delays";
        let (added, dropped, truncated) = word_changes(STORY, cut);
        assert_eq!((added, dropped, truncated), (0, 12, true));
        let edited = STORY.replace("as crowds", "while crowds") + " more from metro post";
        let (added, dropped, truncated) = word_changes(STORY, &edited);
        assert_eq!((added, dropped, truncated), (5, 1, false));
        assert_eq!(word_changes(STORY, STORY), (0, 0, false));
    }

    #[test]
    fn a_big_table_shares_one_diff_budget() {
        assert_eq!(member_deadline(2), DIFF_DEADLINE);
        assert_eq!(member_deadline(100), Duration::from_millis(10));
        assert_eq!(member_deadline(50), Duration::from_millis(20));
        assert_eq!(member_deadline(0), DIFF_DEADLINE);
    }

    #[test]
    fn the_earliest_capture_is_the_source_and_the_anchor() {
        let t = GroupTable::build(
            &[
                member(
                    1,
                    "https://www.Example.com/a",
                    Some("2024-03-02T10:00:00Z"),
                    STORY,
                ),
                member(
                    2,
                    "http://b.example:8080/x?y",
                    Some("2024-03-01T09:00:00Z"),
                    STORY,
                ),
                member(3, "files/c.html", None, "the harbour bridge opened"),
            ],
            1,
        );
        assert_eq!((t.source, t.anchor), (Some(2), 2));
        let ids: Vec<i64> = t.rows.iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![2, 1, 3]);
        assert_eq!(t.rows[1].site, "example.com");
        assert_eq!(t.rows[0].site, "b.example");
        assert!(t.rows[2].truncated);
        let mut t = t;
        t.sort_by(GroupSort::Length);
        assert_eq!(t.rows.last().map(|r| r.id), Some(3));
        t.sort_by(GroupSort::Site);
        assert_eq!(t.rows[0].site, "b.example");
        // No dates: the given anchor, no source.
        let t = GroupTable::build(&[member(5, "u", None, "a b"), member(6, "v", None, "a")], 6);
        assert_eq!((t.source, t.anchor), (None, 6));
    }
}
