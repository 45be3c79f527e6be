//! Drawing the adjudication screen (a pure function of the session's
//! [`AdjudicationView`]): the pairs coders disagree on, the current pair's verdicts with
//! every coder's note, and its two documents side by side as in the pair view. Every text
//! here was sanitized when the session read it.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use crate::model::adjudication::Disagreement;
use crate::review::{sanitize_line, verdict_text, AdjudicationView, Session};

/// The state column of a disputed pair.
fn state(d: &Disagreement) -> String {
    match d.adjudicated() {
        Some(l) => format!("final: {}", l.as_str()),
        None if d.adjudications.is_empty() => "open".into(),
        None => "open (adjudicators differ)".into(),
    }
}

/// One row of the list: the pair, its state and what each coder said.
fn list_row(d: &Disagreement) -> String {
    let said: Vec<String> = d
        .coders
        .iter()
        .map(|v| format!("{} {}", sanitize_line(&v.coder), v.label.as_str()))
        .collect();
    format!(
        "{:>6} {:>6}  {:<16} {}",
        d.a,
        d.b,
        state(d),
        said.join(" · ")
    )
}

pub(super) fn draw_adjudication(frame: &mut Frame, s: &Session, body: Rect) {
    let Some(v) = &s.adjudication else {
        return;
    };
    if v.loading {
        frame.render_widget(
            Paragraph::new("Reading the pairs coders disagree on…"),
            body,
        );
        return;
    }
    if v.items.is_empty() {
        frame.render_widget(
            Paragraph::new(
                "No pairs the coders disagree on: nothing to adjudicate (q: back to the queue).",
            ),
            body,
        );
        return;
    }
    let verdicts = v
        .current()
        .map_or(0, |d| d.coders.len() + d.adjudications.len()) as u16;
    let list_height = (v.items.len() as u16 + 1).clamp(2, (body.height / 4).max(2));
    let [list, info, panes] = Layout::vertical([
        Constraint::Length(list_height),
        Constraint::Length((verdicts + 1).min(body.height / 4).max(2)),
        Constraint::Min(3),
    ])
    .areas(body);
    draw_list(frame, v, list);
    let Some(d) = v.current() else {
        return;
    };
    let mut lines = vec![Line::from(format!(
        "pair {} / {} · {} · {} of {} pairs open",
        d.a,
        d.b,
        state(d),
        v.open(),
        v.items.len()
    ))
    .bold()];
    lines.extend(
        d.coders
            .iter()
            .chain(&d.adjudications)
            .map(|x| Line::from(verdict_text(x))),
    );
    frame.render_widget(Paragraph::new(lines), info);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(panes);
    for (id, area) in [(d.a, left), (d.b, right)] {
        let (title, text) = match v.doc(id) {
            Some(doc) => (format!("{} · {}", doc.id, doc.url), doc.text.as_str()),
            // Being read on the background worker.
            None => (id.to_string(), "reading…"),
        };
        let scroll = v.scroll.min(u16::MAX as usize) as u16;
        frame.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0))
                .block(Block::bordered().title(title)),
            area,
        );
    }
}

/// The list of disputed pairs, scrolled so the cursor shows, the cursor's row reversed.
fn draw_list(frame: &mut Frame, v: &AdjudicationView, area: Rect) {
    let rows = area.height.saturating_sub(1) as usize;
    let top = v.cursor.saturating_sub(rows.saturating_sub(1));
    let mut lines =
        vec![Line::from("     a      b  state            coders").add_modifier(Modifier::DIM)];
    for (i, d) in v.items.iter().enumerate().skip(top).take(rows) {
        let row = Line::from(list_row(d));
        lines.push(if i == v.cursor {
            row.style(Style::new().add_modifier(Modifier::REVERSED))
        } else {
            row
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}
