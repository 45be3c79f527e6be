//! The named actions of the workbench: one table that the key handlers, the help screen and
//! the status-bar hints are all generated from (a key binding names an action of this
//! table; an action with no binding can still be bound by a user keymap).

use anyhow::Result;

use super::session::{Mode, Session};
use crate::model::Decision;

/// One command a key can trigger.
pub struct Action {
    pub name: &'static str,
    /// The screens where it applies.
    pub modes: &'static [Mode],
    pub description: &'static str,
    /// Shown in the status-bar hints of its screens.
    pub hint: bool,
    /// Acts on the queue's current row: on the queue screen it waits for that row's page
    /// when the worker is still reading it (after a jump), keys typed meanwhile.
    pub row: bool,
    pub run: fn(&mut Session) -> Result<()>,
}

const ALL: &[Mode] = &[
    Mode::Queue,
    Mode::Cluster,
    Mode::Pair,
    Mode::Group,
    Mode::Chart,
    Mode::Help,
    Mode::Adjudicate,
];
/// Every screen (the help screen calls an action of all of them "all").
pub const ALL_SCREENS: &[Mode] = ALL;
const ADJ: &[Mode] = &[Mode::Adjudicate];
const CH: &[Mode] = &[Mode::Chart];
const BROWSE: &[Mode] = &[Mode::Queue, Mode::Cluster, Mode::Pair, Mode::Group];
const Q: &[Mode] = &[Mode::Queue];
const C: &[Mode] = &[Mode::Cluster];
const P: &[Mode] = &[Mode::Pair];
const QC: &[Mode] = &[Mode::Queue, Mode::Cluster];
const QCG: &[Mode] = &[Mode::Queue, Mode::Cluster, Mode::Group];
const G: &[Mode] = &[Mode::Group];
const CP: &[Mode] = &[Mode::Cluster, Mode::Pair];
const CPG: &[Mode] = &[Mode::Cluster, Mode::Pair, Mode::Group];

/// Every action, in help-screen order.
#[rustfmt::skip]
pub const ACTIONS: &[Action] = &[
    Action { name: "quit", modes: ALL, description: "quit (every decision is already saved)", hint: true, row: false, run: |s| { s.request_quit(); Ok(()) } },
    Action { name: "help", modes: ALL, description: "show this help", hint: true, row: false, run: |s| { s.push(Mode::Help); Ok(()) } },
    Action { name: "back", modes: ALL, description: "go back one screen", hint: false, row: false, run: |s| { s.back(); Ok(()) } },
    Action { name: "down", modes: ALL, description: "move down (scroll both documents in the pair view)", hint: true, row: false, run: |s| s.move_by(1) },
    Action { name: "up", modes: ALL, description: "move up", hint: false, row: false, run: |s| s.move_by(-1) },
    Action { name: "page-down", modes: ALL, description: "move one page down", hint: false, row: false, run: |s| { let n = s.page_len() as i64; s.move_by(n) } },
    Action { name: "page-up", modes: ALL, description: "move one page up", hint: false, row: false, run: |s| { let n = s.page_len() as i64; s.move_by(-n) } },
    Action { name: "top", modes: ALL, description: "go to the first row / line", hint: false, row: false, run: |s| s.move_by(i64::MIN / 2) },
    Action { name: "bottom", modes: ALL, description: "go to the last row / line", hint: false, row: false, run: |s| s.move_by(i64::MAX / 2) },
    Action { name: "open", modes: QCG, description: "open the cluster / compare the anchor with the current member", hint: true, row: true, run: |s| s.open() },
    Action { name: "select", modes: QC, description: "select or unselect the current cluster / member", hint: true, row: true, run: |s| { s.toggle_select(); Ok(()) } },
    Action { name: "select-all", modes: QC, description: "select every cluster in the filter / every member", hint: false, row: false, run: |s| s.select_all() },
    Action { name: "confirm", modes: BROWSE, description: "confirm: all members are near-duplicates (the selection, or the current cluster or pair)", hint: true, row: true, run: |s| s.decide(Decision::Confirm) },
    Action { name: "reject", modes: BROWSE, description: "reject: not near-duplicates (the cluster, or the pair in the pair view)", hint: true, row: true, run: |s| s.decide(Decision::Reject) },
    Action { name: "unsure", modes: BROWSE, description: "mark unsure", hint: false, row: true, run: |s| s.decide(Decision::Unsure) },
    Action { name: "split", modes: CPG, description: "split: move the current (or the selected) members out of the cluster", hint: true, row: false, run: |s| s.split() },
    Action { name: "split-groups", modes: CP, description: "split into the groups made with the digit keys (members in no group form one more)", hint: false, row: false, run: |s| s.split_groups() },
    Action { name: "group-new", modes: CP, description: "put the current (or the selected) members into a new group of the split", hint: false, row: false, run: |s| s.assign_new_group() },
    Action { name: "group-1", modes: CP, description: "put the current (or the selected) members into group 1 of the split", hint: false, row: false, run: |s| s.assign_group(1) },
    Action { name: "group-2", modes: CP, description: "put the current (or the selected) members into group 2 of the split", hint: false, row: false, run: |s| s.assign_group(2) },
    Action { name: "group-3", modes: CP, description: "put the current (or the selected) members into group 3 of the split", hint: false, row: false, run: |s| s.assign_group(3) },
    Action { name: "group-4", modes: CP, description: "put the current (or the selected) members into group 4 of the split", hint: false, row: false, run: |s| s.assign_group(4) },
    Action { name: "group-5", modes: CP, description: "put the current (or the selected) members into group 5 of the split", hint: false, row: false, run: |s| s.assign_group(5) },
    Action { name: "group-6", modes: CP, description: "put the current (or the selected) members into group 6 of the split", hint: false, row: false, run: |s| s.assign_group(6) },
    Action { name: "group-7", modes: CP, description: "put the current (or the selected) members into group 7 of the split", hint: false, row: false, run: |s| s.assign_group(7) },
    Action { name: "group-8", modes: CP, description: "put the current (or the selected) members into group 8 of the split", hint: false, row: false, run: |s| s.assign_group(8) },
    Action { name: "group-9", modes: CP, description: "put the current (or the selected) members into group 9 of the split", hint: false, row: false, run: |s| s.assign_group(9) },
    Action { name: "ungroup", modes: CP, description: "take the current (or the selected) members back out of their group", hint: false, row: false, run: |s| s.assign_group(0) },
    Action { name: "cut", modes: QCG, description: "cut the cluster at its weakest bridge", hint: false, row: true, run: |s| s.cut() },
    Action { name: "copy-replay", modes: CP, description: "copy the current member's replay URL (--replay-url) to the clipboard (OSC 52)", hint: false, row: false, run: |s| { s.copy_replay(); Ok(()) } },
    Action { name: "anchor", modes: C, description: "make the current member the anchor of comparisons", hint: false, row: false, run: |s| { s.set_anchor(); Ok(()) } },
    Action { name: "group-view", modes: QCG, description: "the entry as a table: site, capture date, length, words added/dropped against the likely source (back: the cluster screen)", hint: false, row: true, run: |s| s.toggle_group_view() },
    Action { name: "sort-group", modes: G, description: "sort the group table by date, site or length (cycles)", hint: true, row: false, run: |s| { s.cycle_group_sort(); Ok(()) } },
    Action { name: "charts", modes: Q, description: "pictures: each run's score histogram with a what-if threshold, group sizes, progress", hint: false, row: false, run: |s| s.open_charts() },
    Action { name: "threshold-up", modes: CH, description: "move the what-if threshold up by 0.05 (pairs and groups vanish)", hint: true, row: false, run: |s| { s.move_threshold(1); Ok(()) } },
    Action { name: "threshold-down", modes: CH, description: "move the what-if threshold down by 0.05 (pairs and groups appear)", hint: true, row: false, run: |s| { s.move_threshold(-1); Ok(()) } },
    Action { name: "next-run", modes: CH, description: "show the next detector's run", hint: true, row: false, run: |s| { s.next_chart_run(); Ok(()) } },
    Action { name: "tag", modes: BROWSE, description: "tag the selection or the current cluster (Tab completes)", hint: true, row: false, run: |s| { s.start_input(super::session::InputKind::Tag); Ok(()) } },
    Action { name: "note", modes: BROWSE, description: "add a note to the current cluster", hint: false, row: false, run: |s| { s.start_input(super::session::InputKind::Note); Ok(()) } },
    Action { name: "search", modes: Q, description: "search titles and URLs", hint: true, row: false, run: |s| { s.start_input(super::session::InputKind::Search); Ok(()) } },
    Action { name: "filter-method", modes: Q, description: "only entries a detector found (cycles the detectors)", hint: false, row: false, run: |s| s.cycle_method() },
    Action { name: "filter-agreement", modes: Q, description: "only entries found by at least 2, 3, … detectors (cycles)", hint: false, row: false, run: |s| s.cycle_agreement() },
    Action { name: "filter-noise", modes: Q, description: "show the triaged noise (errors, redirects, robots.txt, near-empty) instead of the queue", hint: false, row: false, run: |s| s.toggle_noise() },
    Action { name: "filter-status", modes: Q, description: "filter by review status (cycles)", hint: false, row: false, run: |s| s.cycle_status() },
    Action { name: "filter-tag", modes: Q, description: "show only clusters with a tag (empty: all)", hint: false, row: false, run: |s| { s.start_input(super::session::InputKind::TagFilter); Ok(()) } },
    Action { name: "filter-size", modes: Q, description: "smallest cluster size shown (cycles 3, 5, 10, 50)", hint: false, row: false, run: |s| s.cycle_min_size() },
    Action { name: "filter-disagree", modes: Q, description: "only entries not every detector found", hint: false, row: false, run: |s| s.toggle_disagree() },
    Action { name: "sort", modes: Q, description: "change the sort order (size, score, agreement)", hint: false, row: false, run: |s| s.cycle_sort() },
    Action { name: "clear-filter", modes: Q, description: "clear every filter and the search", hint: false, row: false, run: |s| s.clear_filter() },
    Action { name: "auto-advance", modes: BROWSE, description: "toggle moving on to the next entry after a verdict (on by default)", hint: false, row: false, run: |s| { s.toggle_auto_advance(); Ok(()) } },
    Action { name: "undo", modes: BROWSE, description: "undo the last decision (or batch)", hint: true, row: false, run: |s| s.undo() },
    Action { name: "redo", modes: BROWSE, description: "redo the last undone decision", hint: false, row: false, run: |s| s.redo() },
    Action { name: "diff", modes: P, description: "toggle the word-level diff view", hint: true, row: false, run: |s| { s.toggle_diff(); Ok(()) } },
    Action { name: "text", modes: P, description: "cycle visible / content / main-content text", hint: true, row: false, run: |s| s.toggle_text() },
    Action { name: "next-evidence", modes: P, description: "scroll to the next highlighted evidence of the left document", hint: false, row: false, run: |s| { s.jump_evidence(true); Ok(()) } },
    Action { name: "prev-evidence", modes: P, description: "scroll to the previous highlighted evidence of the left document", hint: false, row: false, run: |s| { s.jump_evidence(false); Ok(()) } },
    Action { name: "adjudicate", modes: Q, description: "adjudication: the pairs coders disagree on with every coder's verdict and note, to give each a final label", hint: false, row: false, run: |s| s.open_adjudication() },
    Action { name: "adjudge-same", modes: ADJ, description: "final label of the pair: near-duplicates (logged as adjudicator:CODER; gold and training use it)", hint: true, row: false, run: |s| s.adjudicate(crate::model::PairLabel::Same) },
    Action { name: "adjudge-different", modes: ADJ, description: "final label of the pair: not near-duplicates (logged as adjudicator:CODER)", hint: true, row: false, run: |s| s.adjudicate(crate::model::PairLabel::Different) },
    Action { name: "scroll-texts-down", modes: ADJ, description: "scroll both documents of the pair down a page", hint: false, row: false, run: |s| { let n = s.viewport.pane_height.max(1) as i64; s.scroll_adjudication(n); Ok(()) } },
    Action { name: "scroll-texts-up", modes: ADJ, description: "scroll both documents of the pair up a page", hint: false, row: false, run: |s| { let n = s.viewport.pane_height.max(1) as i64; s.scroll_adjudication(-n); Ok(()) } },
    Action { name: "next-member", modes: P, description: "compare the anchor with the next member", hint: false, row: false, run: |s| s.step_member(1) },
    Action { name: "prev-member", modes: P, description: "compare the anchor with the previous member", hint: false, row: false, run: |s| s.step_member(-1) },
];

/// The action called `name`.
pub fn action(name: &str) -> Option<&'static Action> {
    ACTIONS.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_action_has_a_screen() {
        let mut names: Vec<&str> = ACTIONS.iter().map(|a| a.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ACTIONS.len());
        assert!(ACTIONS
            .iter()
            .all(|a| !a.modes.is_empty() && !a.description.is_empty()));
        assert!(action("confirm").is_some() && action("nope").is_none());
    }
}
