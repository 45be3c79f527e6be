//! Navigation: the queue (paged from the store by rank, only the pages with visible rows
//! loaded, every page read on the background worker: the pages next to the visible ones
//! ahead of the cursor, a page a jump shows while its rows say "reading…"), the cursor
//! and scrolling of every screen, the selection of clusters or members, and the queue's
//! filters and order (the queue read anew on the worker, keys typed meanwhile waiting).
//! Nothing here reads the store on the UI thread.

use std::borrow::Cow;
use std::ops::{Range, RangeInclusive};

use anyhow::Result;

use super::waiting::{AfterRow, KeyWait, QueueRead};
use super::{Mode, Session, Viewport, PAGE_ROWS};
use crate::model::{set_key, LabelStatus, NoiseShown, QueueFilter, QueueRow, QueueSort};
use crate::review::background::{Job, Output, Reloaded};
use crate::review::sanitize::sanitize_line;
use crate::store::PageAt;

impl Session {
    /// Reads the queue anew on the worker under the current filter and order: its length,
    /// the counts and the rows the screen shows (at the start, those of the first entry not
    /// fully reviewed). Until it lands the queue says it is reading and keys are typed
    /// ahead; `why` says what the frame says then.
    pub(super) fn read_queue(&mut self, why: QueueRead) {
        self.pages.clear();
        // Pages of the old queue still being read are of no use any more, nor is a read of
        // the whole queue after the label writer caught up, or an earlier change's read
        // (`review --order` right after the start): this one is newer.
        for (_, job) in self.page_jobs.drain() {
            self.background.worker.cancel(job);
        }
        if let Some(job) = self.jobs.reload.take() {
            self.background.worker.cancel(job);
            if self.saves.pending.is_empty() {
                self.saves.optimistic.clear();
            }
        }
        if let Some((job, _)) = self.jobs.queue_read.take() {
            self.background.worker.cancel(job);
        }
        if self.jobs.start.is_some() {
            // The start's reads are still running: the queue is read once they land, for
            // this (the newest ask).
            self.queue_len = 0;
            self.cursor = 0;
            self.jobs.read_after_start = Some(why);
            return;
        }
        if self.jobs.queue.is_some() {
            // The table is being rebuilt: its old rows are not the queue, and it is read
            // with the filter of the moment once built.
            self.queue_len = 0;
            self.cursor = 0;
            self.message = self.queue_message(why);
            return;
        }
        let visible = self.viewport.queue_rows.max(1) as u64;
        let (pages, resume) = match why {
            QueueRead::Resume => (Vec::new(), Some(visible)),
            // The cursor is on the first row.
            QueueRead::Filter | QueueRead::Search => {
                ((0..=(visible - 1) / PAGE_ROWS).collect(), None)
            }
        };
        let job = self.background.worker.submit(Job::Reload {
            coder: self.coder.clone(),
            filter: self.filter.clone(),
            sort: self.sort,
            pages,
            resume,
        });
        self.jobs.queue_read = Some((job, why));
        // The queue screen says what is read (the filters and order).
        self.message = match why {
            QueueRead::Filter => "filters or order changed: reading the queue…",
            QueueRead::Search => "searching titles and URLs…",
            QueueRead::Resume => "reading the queue, to resume at the first unreviewed entry…",
        }
        .into();
    }

    /// Takes the queue read anew for `why`.
    pub(super) fn apply_queue_read(&mut self, why: QueueRead, result: Result<Output>) {
        match result {
            Ok(Output::Reloaded(r)) => {
                let Reloaded {
                    queue_len,
                    progress,
                    triage,
                    triaged_entries,
                    pages,
                    cursor,
                } = *r;
                self.pages = pages.into_iter().collect();
                self.queue_len = queue_len;
                self.progress = progress;
                self.triage = triage;
                self.triaged_entries = triaged_entries;
                if let Some(c) = cursor {
                    self.cursor = c;
                }
                if self.cursor >= self.queue_len {
                    self.cursor = self.queue_len.saturating_sub(1);
                }
                self.message = self.queue_message(why);
            }
            Ok(_) => {}
            Err(e) => {
                // Nothing of the old queue is shown for the new filter.
                self.queue_len = 0;
                self.cursor = 0;
                self.message = format!("cannot read the queue: {e:#}");
            }
        }
    }

    /// What the frame says once the queue is read for `why`.
    fn queue_message(&self, why: QueueRead) -> String {
        match why {
            QueueRead::Filter => format!("{} entries · {}", self.queue_len, self.filter_summary()),
            QueueRead::Search => format!("{} clusters match", self.queue_len),
            QueueRead::Resume if self.queue_len == 0 => {
                "no clusters to review: run `spotcheck detect` first".into()
            }
            QueueRead::Resume => {
                format!(
                    "resumed at the first unreviewed cluster ({})",
                    self.cursor + 1
                )
            }
        }
    }

    /// Whether the current queue row can be acted on now: not the queue screen, an empty
    /// queue, or a row whose page is loaded.
    pub(super) fn row_is_read(&self) -> bool {
        self.mode() != Mode::Queue || self.queue_len == 0 || self.row_at(self.cursor).is_some()
    }

    /// Waits for the page of the current queue row (asked for here unless the worker is
    /// already reading it: the key takes that read over), then runs `then` (see
    /// [`Session::finish_row`]).
    pub(super) fn wait_for_row(&mut self, then: AfterRow) {
        let page = self.cursor / PAGE_ROWS;
        let (job, pages) = match self.page_jobs.get(&page).copied() {
            Some(job) => {
                // Every page of that read (a jump's visible pages are read at once).
                let mut of_job: Vec<u64> = self
                    .page_jobs
                    .iter()
                    .filter(|(_, j)| **j == job)
                    .map(|(p, _)| *p)
                    .collect();
                of_job.sort_unstable();
                for p in &of_job {
                    self.page_jobs.remove(p);
                }
                let first = of_job.first().copied().unwrap_or(page);
                let last = of_job.last().copied().unwrap_or(page);
                (job, first..=last)
            }
            None => (self.submit_pages(page, page), page..=page),
        };
        let message = std::mem::replace(
            &mut self.message,
            format!("reading entry {} of the queue…", self.cursor + 1),
        );
        self.key_wait = Some((
            job,
            KeyWait::Row {
                pages,
                then,
                message,
            },
        ));
    }

    /// Takes the page a key waited for and runs the key (if the row is still not there,
    /// the key finds no row, as on an empty queue: it never waits twice).
    pub(super) fn finish_row(
        &mut self,
        pages: RangeInclusive<u64>,
        then: AfterRow,
        message: String,
        result: Result<Output>,
    ) -> Result<()> {
        match result {
            Ok(Output::QueuePage { page: p, rows }) if p == *pages.start() => {
                self.insert_pages(p, rows);
            }
            Ok(_) => {}
            Err(e) => {
                self.message = format!("cannot read the queue: {e:#}");
                return Ok(());
            }
        }
        self.message = message;
        match then {
            AfterRow::Action(name) => match crate::review::actions::action(name) {
                Some(a) if a.modes.contains(&self.mode()) => (a.run)(self),
                _ => Ok(()),
            },
            AfterRow::Submit(input) => {
                self.input = Some(input);
                self.submit_input_now()
            }
        }
    }

    /// The pages a key waits for, if one does.
    fn row_wait_pages(&self) -> Option<&RangeInclusive<u64>> {
        match &self.key_wait {
            Some((_, KeyWait::Row { pages, .. })) => Some(pages),
            _ => None,
        }
    }

    /// Asks the worker for queue page `page` unless it is loaded or asked for (the pages
    /// next to the visible ones, read before the cursor gets there).
    pub(super) fn request_page(&mut self, page: u64) {
        self.request_pages(page, page);
    }

    /// Asks the worker for the pages `first..=last` not loaded or asked for yet, each run
    /// of adjacent ones in one read (the visible pages after a jump: one walk from the
    /// nearer end of the queue rather than one per page).
    pub(super) fn request_pages(&mut self, first: u64, last: u64) {
        if self.jobs.start.is_some() || self.jobs.queue.is_some() || self.jobs.queue_read.is_some()
        {
            return;
        }
        let waited = self.row_wait_pages().cloned();
        let wanted: Vec<u64> = (first..=last)
            .filter(|p| {
                !self.pages.contains_key(p)
                    && !self.page_jobs.contains_key(p)
                    && !waited.as_ref().is_some_and(|w| w.contains(p))
                    && p * PAGE_ROWS < self.queue_len
            })
            .collect();
        let mut i = 0;
        while i < wanted.len() {
            let mut j = i;
            while j + 1 < wanted.len() && wanted[j + 1] == wanted[j] + 1 {
                j += 1;
            }
            let job = self.submit_pages(wanted[i], wanted[j]);
            for p in &wanted[i..=j] {
                self.page_jobs.insert(*p, job);
            }
            i = j + 1;
        }
    }

    /// Submits one read of the queue pages `first..=last`; its job number.
    fn submit_pages(&mut self, first: u64, last: u64) -> u64 {
        let (at, rows) = self.pages_at(first, last);
        self.background.worker.submit(Job::QueuePage {
            page: first,
            coder: self.coder.clone(),
            filter: self.filter.clone(),
            sort: self.sort,
            at,
            rows,
        })
    }

    /// Keeps `rows`, read from the start of page `first` on, as the pages they fill.
    fn insert_pages(&mut self, first: u64, rows: Vec<QueueRow>) {
        let mut rows = rows.into_iter().peekable();
        let mut page = first;
        while rows.peek().is_some() {
            let chunk: Vec<QueueRow> = rows.by_ref().take(PAGE_ROWS as usize).collect();
            self.pages.entry(page).or_insert(chunk);
            page += 1;
        }
    }

    /// Takes the queue pages the worker read for job `id`, if they are still wanted
    /// (false: not a page job).
    pub(super) fn apply_page(&mut self, id: u64, result: Result<Output>) -> bool {
        let pages: Vec<u64> = self
            .page_jobs
            .iter()
            .filter(|(_, j)| **j == id)
            .map(|(p, _)| *p)
            .collect();
        let Some(first) = pages.iter().min().copied() else {
            return false;
        };
        for p in &pages {
            self.page_jobs.remove(p);
        }
        match result {
            Ok(Output::QueuePage { page: p, rows }) if p == first => self.insert_pages(p, rows),
            Ok(_) => {}
            Err(e) => self.message = format!("cannot read the queue: {e:#}"),
        }
        true
    }

    /// Where the pages `first..=last` start and how many rows they have: next to a loaded
    /// page they continue from that page's first or last rank (an index walk); a jump reads
    /// from the nearer end of the queue.
    fn pages_at(&self, first: u64, last: u64) -> (PageAt, u64) {
        let start = first * PAGE_ROWS;
        let end = ((last + 1) * PAGE_ROWS).min(self.queue_len);
        let after = first
            .checked_sub(1)
            .and_then(|p| self.pages.get(&p))
            .filter(|rows| rows.len() as u64 == PAGE_ROWS)
            .and_then(|rows| rows.last());
        let before = self.pages.get(&(last + 1)).and_then(|rows| rows.first());
        let at = match (after, before) {
            (Some(r), _) => PageAt::After(r.rank),
            (None, Some(r)) => PageAt::Before(r.rank),
            _ if start > self.queue_len / 2 => PageAt::FromEnd(self.queue_len - end),
            _ => PageAt::Offset(start),
        };
        (at, end.saturating_sub(start))
    }

    /// How many queue pages are loaded (the queue is virtualized: only pages with visible
    /// rows are read).
    pub fn loaded_pages(&self) -> usize {
        self.pages.len()
    }

    /// The queue row at `pos`, if its page is loaded (with the decisions still being saved
    /// shown).
    pub fn row_at(&self, pos: u64) -> Option<Cow<'_, QueueRow>> {
        let r = self
            .pages
            .get(&(pos / PAGE_ROWS))
            .and_then(|p| p.get((pos % PAGE_ROWS) as usize))?;
        if self.saves.optimistic.is_empty() {
            return Some(Cow::Borrowed(r));
        }
        match self.saves.optimistic.get(&set_key(&r.members)) {
            None => Some(Cow::Borrowed(r)),
            Some(o) => {
                let mut r = r.clone();
                o.apply(&mut r);
                Some(Cow::Owned(r))
            }
        }
    }

    /// The current queue row, if its page is loaded (an action on it waits for the page
    /// first: [`Session::run_action`]).
    pub(super) fn current_row(&self) -> Option<QueueRow> {
        if self.queue_len == 0 {
            return None;
        }
        self.row_at(self.cursor).map(Cow::into_owned)
    }

    /// Positions of the visible queue rows.
    pub fn visible_range(&self) -> Range<u64> {
        self.top..(self.top + self.viewport.queue_rows as u64).min(self.queue_len)
    }

    /// Scrolls so the cursors are visible, then asks the worker for the pages the visible
    /// rows need (they draw "reading…" until they land) and the pages next to them, and
    /// wraps the pair view's documents for the pane width. Call before drawing.
    pub fn prepare(&mut self, viewport: Viewport) -> Result<()> {
        self.viewport = viewport;
        self.poll_background();
        let h = viewport.queue_rows.max(1) as u64;
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + h {
            self.top = self.cursor + 1 - h;
        }
        if self.top + h > self.queue_len {
            self.top = self.queue_len.saturating_sub(h);
        }
        let r = self.visible_range();
        if !r.is_empty() {
            let (first, last) = (r.start / PAGE_ROWS, (r.end - 1) / PAGE_ROWS);
            // Drawn as "reading…" until they land (after a jump: one read).
            self.request_pages(first, last);
            // The neighbouring pages are read ahead on the worker, once the visible ones are
            // in (then they continue from a known rank): moving onto them reads nothing here.
            if (first..=last).all(|p| self.pages.contains_key(&p)) {
                if let Some(before) = first.checked_sub(1) {
                    self.request_page(before);
                }
                self.request_page(last + 1);
            }
        }
        if let Some(c) = &mut self.cluster {
            // The previews the screen lacks are read by the worker ("reading…" meanwhile).
            let missing: Vec<i64> = [c.anchor, c.cursor]
                .iter()
                .filter_map(|&i| c.members.get(i).map(|m| m.id))
                .filter(|id| !c.previews.contains_key(id))
                .collect();
            let asked = c
                .preview_job
                .as_ref()
                .is_some_and(|(_, ids)| missing.iter().all(|id| ids.contains(id)));
            if !missing.is_empty() && !asked && c.loading.is_none() {
                let id = self.background.worker.submit(Job::Previews {
                    entry: c.row.cluster,
                    ids: missing.clone(),
                });
                c.preview_job = Some((id, missing));
            }
            let h = viewport.member_rows.max(1);
            if c.cursor < c.top {
                c.top = c.cursor;
            } else if c.cursor >= c.top + h {
                c.top = c.cursor + 1 - h;
            }
        }
        if let Some(p) = &mut self.pair {
            let (pw, dw) = (viewport.pane_width.max(1), viewport.diff_width.max(1));
            if p.job.is_none() {
                let texts = p.rewrap(pw, dw);
                let pending = p.wrap_job.is_some_and(|(_, a, b)| (a, b) == (pw, dw));
                if !texts.is_empty() && !pending {
                    let id = self.background.worker.submit(Job::Wrap {
                        generation: p.generation,
                        texts,
                    });
                    p.wrap_job = Some((id, pw, dw));
                }
            }
            let lines = if p.show_diff {
                p.diff.as_ref().map_or(0, |d| d.lines().len())
            } else {
                p.left.lines().len().max(p.right.lines().len())
            };
            p.scroll = p
                .scroll
                .min(lines.saturating_sub(viewport.pane_height.max(1)));
        }
        Ok(())
    }

    pub fn page_len(&self) -> usize {
        match self.mode() {
            Mode::Cluster | Mode::Group => self.viewport.member_rows,
            Mode::Pair => self.viewport.pane_height,
            _ => self.viewport.queue_rows,
        }
        .max(1)
    }

    /// Moves the cursor of the current screen (scrolls in the pair view).
    pub fn move_by(&mut self, delta: i64) -> Result<()> {
        let clamp = |v: i64, len: i64| v.clamp(0, (len - 1).max(0));
        match self.mode() {
            Mode::Help => {
                self.help_scroll = (self.help_scroll as i64 + delta.clamp(-(1 << 40), 1 << 40))
                    .clamp(0, crate::review::actions::ACTIONS.len() as i64 - 1)
                    as usize;
            }
            Mode::Queue => {
                self.cursor = clamp(
                    self.cursor as i64 + delta.clamp(-(1 << 40), 1 << 40),
                    self.queue_len as i64,
                ) as u64;
            }
            Mode::Cluster => {
                // While the members are read there is no row to move to: the cursor stays
                // on the first comparison the screen opens with.
                if let Some(c) = self.cluster.as_mut().filter(|c| !c.is_loading()) {
                    c.cursor = clamp(
                        c.cursor as i64 + delta.clamp(-(1 << 40), 1 << 40),
                        c.members.len() as i64,
                    ) as usize;
                }
            }
            Mode::Group => self.move_group_cursor(delta.clamp(-(1 << 40), 1 << 40)),
            // The chart screen has no cursor: its keys move the what-if threshold.
            Mode::Chart => {}
            Mode::Adjudicate => self.move_adjudication(delta.clamp(-(1 << 40), 1 << 40))?,
            Mode::Pair => {
                if let Some(p) = &mut self.pair {
                    // Clamped to the document length in `prepare`.
                    p.scroll = (p.scroll as i64 + delta.clamp(-(1 << 40), 1 << 40)).max(0) as usize;
                    p.scrolled = true;
                }
            }
        }
        Ok(())
    }

    pub fn toggle_select(&mut self) {
        match self.mode() {
            Mode::Queue => {
                if let Some(r) = self.row_at(self.cursor).map(Cow::into_owned) {
                    let k = (r.run_id, r.cluster);
                    if self.selection.remove(&k).is_none() {
                        self.selection.insert(k, r.members);
                    }
                    let _ = self.move_by(1);
                }
            }
            Mode::Cluster => {
                if let Some(c) = &mut self.cluster {
                    // Nothing under the cursor while the members are being read.
                    if let Some(id) = c.members.get(c.cursor).map(|m| m.id) {
                        if !c.selected.remove(&id) {
                            c.selected.insert(id);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Selects every cluster the filter keeps (or every member of the open cluster); a
    /// second press clears the selection.
    pub fn select_all(&mut self) -> Result<()> {
        match self.mode() {
            Mode::Queue => {
                if !self.selection.is_empty() {
                    self.clear_selection();
                    self.message = "selection cleared".into();
                    return Ok(());
                }
                // Every entry of the filter is read on the worker; keys wait for it.
                let job = self.background.worker.submit(Job::Selection {
                    coder: self.coder.clone(),
                    filter: self.filter.clone(),
                    sort: self.sort,
                });
                self.key_wait = Some((job, KeyWait::SelectAll));
                self.message = format!(
                    "selecting every entry of {} ({})…",
                    self.queue_len,
                    self.filter_summary()
                );
            }
            Mode::Cluster => {
                if let Some(c) = &mut self.cluster {
                    if c.selected.len() == c.members.len() {
                        c.selected.clear();
                    } else {
                        c.selected = c.members.iter().map(|m| m.id).collect();
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    pub fn cycle_method(&mut self) -> Result<()> {
        let next = match &self.filter.method {
            None => self.methods.first().cloned(),
            Some(m) => {
                let i = self.methods.iter().position(|x| x == m);
                i.and_then(|i| self.methods.get(i + 1).cloned())
            }
        };
        self.filter.method = next;
        self.after_filter_change()
    }

    pub fn cycle_status(&mut self) -> Result<()> {
        self.filter.status = match self.filter.status {
            None => Some(LabelStatus::ALL[0]),
            Some(s) => {
                let i = LabelStatus::ALL.iter().position(|x| *x == s).unwrap_or(0);
                LabelStatus::ALL.get(i + 1).copied()
            }
        };
        self.after_filter_change()
    }

    /// Cycles the smallest cluster size shown: any, 3, 5, 10, 50.
    pub fn cycle_min_size(&mut self) -> Result<()> {
        const STEPS: [Option<i64>; 5] = [None, Some(3), Some(5), Some(10), Some(50)];
        let i = STEPS
            .iter()
            .position(|x| *x == self.filter.min_size)
            .unwrap_or(0);
        self.filter.min_size = STEPS[(i + 1) % STEPS.len()];
        self.after_filter_change()
    }

    /// Shows only the entries noise triage kept out, or goes back to the default queue.
    pub fn toggle_noise(&mut self) -> Result<()> {
        self.filter.noise = match self.filter.noise {
            NoiseShown::Hide => NoiseShown::Only,
            _ => NoiseShown::Hide,
        };
        self.after_filter_change()
    }

    /// Cycles the fewest detectors an entry must be found by: any, 2, 3, … (as many as
    /// have a run).
    pub fn cycle_agreement(&mut self) -> Result<()> {
        let most = self.methods.len() as i64;
        self.filter.min_agreement = match self.filter.min_agreement {
            None if most >= 2 => Some(2),
            Some(n) if n < most => Some(n + 1),
            _ => None,
        };
        self.after_filter_change()
    }

    pub fn toggle_disagree(&mut self) -> Result<()> {
        self.filter.disagree_only = !self.filter.disagree_only;
        self.after_filter_change()
    }

    pub fn cycle_sort(&mut self) -> Result<()> {
        let i = QueueSort::ALL
            .iter()
            .position(|x| *x == self.sort)
            .unwrap_or(0);
        self.sort = QueueSort::ALL[(i + 1) % QueueSort::ALL.len()];
        self.after_filter_change()
    }

    /// Shows the queue in `sort` order (`review --order`).
    pub fn set_sort(&mut self, sort: QueueSort) -> Result<()> {
        self.sort = sort;
        self.after_filter_change()
    }

    pub fn clear_filter(&mut self) -> Result<()> {
        self.filter = QueueFilter::default();
        self.after_filter_change()
    }

    pub(super) fn after_filter_change(&mut self) -> Result<()> {
        self.cursor = 0;
        self.top = 0;
        self.read_queue(QueueRead::Filter);
        Ok(())
    }

    /// The active filters and order, in words.
    pub fn filter_summary(&self) -> String {
        let f = &self.filter;
        let mut parts = Vec::new();
        if let Some(m) = &f.method {
            parts.push(format!("found by {m}"));
        }
        if let Some(n) = f.min_agreement {
            parts.push(format!("found by ≥{n} detectors"));
        }
        match f.noise {
            NoiseShown::Hide => {}
            NoiseShown::Only => parts.push("triaged noise only".into()),
            NoiseShown::Include => parts.push("noise included".into()),
        }
        if let Some(s) = f.status {
            parts.push(format!("status={}", s.as_str()));
        }
        if let Some(n) = f.min_size {
            parts.push(format!("size>={n}"));
        }
        if let Some(t) = &f.tag {
            parts.push(format!("tag={}", sanitize_line(t)));
        }
        if let Some(s) = &f.search {
            parts.push(format!("search=\"{}\"", sanitize_line(s)));
        }
        if f.disagree_only {
            parts.push("not every detector".into());
        }
        parts.push(format!("sort: {}", self.sort.name()));
        parts.join(", ")
    }
}
