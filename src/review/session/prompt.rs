//! The one-line prompt: a tag (with completion from the tags in use, read on the
//! background worker when the prompt opens), a note, a search or a tag filter; submitting
//! it records the tag or note (on the current queue row once its page is read), or filters
//! the queue (read anew on the worker).

use std::collections::BTreeSet;

use anyhow::Result;

use super::waiting::{AfterRow, KeyWait, QueueRead};
use super::{Input, InputKind, Mode, Session};
use crate::model::Decision;
use crate::review::background::Job;

impl Session {
    pub fn start_input(&mut self, kind: InputKind) {
        let text = match kind {
            InputKind::Search => self.filter.search.clone().unwrap_or_default(),
            InputKind::TagFilter => self.filter.tag.clone().unwrap_or_default(),
            _ => String::new(),
        };
        self.input = Some(Input {
            kind,
            text,
            completions: Vec::new(),
        });
        self.prompt_tags = None;
        if matches!(kind, InputKind::Tag | InputKind::TagFilter) {
            // The tags in use are read on the worker; keys typed meanwhile wait for them,
            // so Tab completes as it would have.
            let job = self.background.worker.submit(Job::Tags);
            self.key_wait = Some((job, KeyWait::Tags));
        }
    }

    pub(super) fn update_completions(&mut self) {
        let tags = match &self.input {
            Some(i) if matches!(i.kind, InputKind::Tag | InputKind::TagFilter) => {
                let Some(read) = &self.prompt_tags else {
                    return;
                };
                let mut tags: BTreeSet<String> = read.iter().cloned().collect();
                // Tags still being saved complete too.
                for o in self.saves.optimistic.values() {
                    tags.extend(o.after.tags.iter().cloned());
                }
                tags.into_iter().collect::<Vec<_>>()
            }
            _ => return,
        };
        if let Some(i) = &mut self.input {
            i.completions = tags
                .into_iter()
                .filter(|t| t.starts_with(&i.text) && *t != i.text)
                .collect();
        }
    }

    pub fn input_char(&mut self, c: char) {
        if let Some(i) = &mut self.input {
            if !c.is_control() {
                i.text.push(c);
            }
        }
        self.update_completions();
    }

    pub fn input_backspace(&mut self) {
        if let Some(i) = &mut self.input {
            i.text.pop();
        }
        self.update_completions();
    }

    /// Completes the tag to the first existing tag that extends it.
    pub fn input_complete(&mut self) {
        if let Some(i) = &mut self.input {
            if let Some(first) = i.completions.first() {
                i.text = first.clone();
            }
        }
        self.update_completions();
    }

    pub fn input_cancel(&mut self) {
        self.input = None;
    }

    pub fn input_submit(&mut self) -> Result<()> {
        let Some(input) = self.input.take() else {
            return Ok(());
        };
        // A tag or note on the current queue row waits for its page (after a jump).
        let on_row = match input.kind {
            InputKind::Tag => !input.text.trim().is_empty(),
            InputKind::Note => true,
            InputKind::Search | InputKind::TagFilter => false,
        } && self.selection.is_empty();
        if on_row && !self.row_is_read() {
            self.wait_for_row(AfterRow::Submit(input));
            return Ok(());
        }
        self.input = Some(input);
        self.submit_input_now()
    }

    /// Submits the open prompt (its row, if it needs one, read).
    pub(super) fn submit_input_now(&mut self) -> Result<()> {
        let Some(input) = self.input.take() else {
            return Ok(());
        };
        let text = input.text.trim().to_string();
        match input.kind {
            InputKind::Search => {
                self.filter.search = (!text.is_empty()).then_some(text);
                self.cursor = 0;
                self.read_queue(QueueRead::Search);
            }
            InputKind::TagFilter => {
                self.filter.tag = (!text.is_empty()).then_some(text);
                self.after_filter_change()?;
            }
            InputKind::Tag if text.is_empty() => {}
            InputKind::Tag => {
                let targets = self.targets_for_label()?;
                let n = self.record(&Decision::Tag(text.clone()), targets)?;
                if self.mode() == Mode::Queue {
                    self.clear_selection();
                }
                self.message = format!("tagged {n} cluster(s) \"{text}\"");
            }
            InputKind::Note => {
                let targets = self.targets_for_label()?;
                self.record(&Decision::Note(Some(text)), targets)?;
                self.message = "note saved".into();
            }
        }
        Ok(())
    }
}
