//! Drawing: a pure function from the session (and the keymap, for hints and help) to a
//! frame. The layout is computed here once and also tells the session how much room each
//! view has, so paging and wrapping match what is drawn.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

use crate::model::{LabelStatus, QueueRow};
use crate::review::{
    evidence_summary, sanitize_line, DocPane, HighlightKind, Mode, Session, Viewport, ACTIONS,
};
use crate::store::TextKind;

use super::keymap::Keymap;

/// The smallest terminal the layout fits in.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 12;

/// The style of each evidence kind (also used by the tests to find highlighted cells).
pub fn highlight_style(kind: HighlightKind) -> Style {
    use ratatui::style::Color;
    match kind {
        HighlightKind::SpotSig => Style::new().fg(Color::Black).bg(Color::Yellow),
        HighlightKind::LexiconTerm => Style::new()
            .fg(Color::Cyan)
            .add_modifier(Modifier::UNDERLINED),
        HighlightKind::AnddGram => Style::new().fg(Color::Black).bg(Color::Cyan),
        HighlightKind::DiffInsert => Style::new().fg(Color::Black).bg(Color::Green),
        HighlightKind::DiffDelete => Style::new()
            .fg(Color::White)
            .bg(Color::Red)
            .add_modifier(Modifier::CROSSED_OUT),
    }
}

struct Areas {
    header: Rect,
    body: Rect,
    message: Rect,
    hints: Rect,
}

fn areas(area: Rect) -> Areas {
    let [header, body, message, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    Areas {
        header,
        body,
        message,
        hints,
    }
}

fn pair_areas(body: Rect) -> (Rect, Rect, Rect, Rect) {
    let [summary, panes] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(body);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(panes);
    (summary, panes, left, right)
}

/// The cluster screen: info lines, the member list, and the anchor and the current
/// comparison previewed side by side below it (when there is room).
fn cluster_areas(body: Rect) -> (Rect, Rect, Rect, Rect) {
    let [info, rest] = Layout::vertical([Constraint::Length(3), Constraint::Min(1)]).areas(body);
    if rest.height < 10 {
        return (info, rest, Rect::default(), Rect::default());
    }
    let [list, preview] =
        Layout::vertical([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(rest);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(preview);
    (info, list, left, right)
}

/// How much room each view gets in a terminal of `area`.
pub fn viewport_for(area: Rect) -> Viewport {
    let a = areas(area);
    let (_, panes, left, _) = pair_areas(a.body);
    Viewport {
        queue_rows: a.body.height.saturating_sub(1) as usize,
        member_rows: cluster_areas(a.body).1.height.saturating_sub(1) as usize,
        pane_width: left.width.saturating_sub(2) as usize,
        pane_height: panes.height.saturating_sub(2) as usize,
        diff_width: panes.width.saturating_sub(2) as usize,
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, s: &Session, keys: &Keymap) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "Terminal too small: {}×{}.\nspotcheck review needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\nEnlarge the window, or press q to quit.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let a = areas(area);
    frame.render_widget(Paragraph::new(header_line(s)).reversed(), a.header);
    match s.mode() {
        Mode::Queue => draw_queue(frame, s, a.body),
        Mode::Cluster => draw_cluster(frame, s, a.body),
        Mode::Pair => draw_pair(frame, s, a.body),
        Mode::Group => draw_group(frame, s, a.body),
        Mode::Chart => draw_charts(frame, s, a.body),
        Mode::Help => draw_help(frame, s, keys, a.body),
        Mode::Adjudicate => super::adjudicate::draw_adjudication(frame, s, a.body),
    }
    frame.render_widget(Paragraph::new(message_line(s)), a.message);
    frame.render_widget(
        Paragraph::new(hint_line(s, keys)).style(Style::new().add_modifier(Modifier::DIM)),
        a.hints,
    );
}

fn header_line(s: &Session) -> String {
    let mine = s
        .progress
        .iter()
        .find(|p| p.coder == s.coder)
        .map_or("0/0".to_string(), |p| format!("{}/{}", p.reviewed, p.total));
    let others: Vec<String> = s
        .progress
        .iter()
        .filter(|p| p.coder != s.coder)
        .map(|p| format!("{} {}/{}", sanitize_line(&p.coder), p.reviewed, p.total))
        .collect();
    let progress = if others.is_empty() {
        mine
    } else {
        format!("{mine} ({})", others.join(", "))
    };
    let mut parts = vec![
        format!("spotcheck review · {}", sanitize_line(&s.coder)),
        format!("reviewed {progress}"),
        if s.queue_reading() {
            "reading the queue…".to_string()
        } else {
            format!("{} in queue", s.queue_len)
        },
    ];
    let triaged = s.triage.summary();
    if !triaged.is_empty() {
        parts.push(format!(
            "{triaged} ({} entries, X shows)",
            s.triaged_entries
        ));
    }
    if s.blind {
        parts.push("BLIND".into());
    }
    if !s.auto_advance {
        parts.push("stays after verdicts".into());
    }
    if !s.selection.is_empty() {
        parts.push(format!("{} selected", s.selection.len()));
    }
    match s.saving() {
        0 => {}
        1 => parts.push("saving 1 decision…".into()),
        n => parts.push(format!("saving {n} decisions…")),
    }
    parts.join(" │ ")
}

fn message_line(s: &Session) -> Line<'static> {
    match &s.input {
        Some(i) => {
            let mut spans = vec![
                Span::styled(format!("{}: ", i.kind.label()), Style::new().bold()),
                Span::raw(sanitize_line(&i.text)),
                Span::raw("█"),
            ];
            if !i.completions.is_empty() {
                spans.push(Span::styled(
                    format!("   Tab: {}", i.completions.join(", ")),
                    Style::new().add_modifier(Modifier::DIM),
                ));
            }
            Line::from(spans)
        }
        None => Line::raw(sanitize_line(&s.message)),
    }
}

/// The status-bar hints: the hinted actions of this screen with their first key, straight
/// from the action table and the keymap.
pub fn hint_line(s: &Session, keys: &Keymap) -> String {
    if s.input.is_some() {
        return "Enter accept · Esc cancel · Tab complete".into();
    }
    let mode = s.mode();
    ACTIONS
        .iter()
        .filter(|a| a.hint && a.modes.contains(&mode))
        .filter_map(|a| {
            keys.keys_for(mode, a.name)
                .first()
                .map(|k| format!("{k} {}", a.name))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn status_style(st: LabelStatus) -> Style {
    use ratatui::style::Color;
    match st {
        LabelStatus::Unreviewed => Style::new(),
        LabelStatus::Partial => Style::new().fg(Color::Cyan),
        LabelStatus::Confirmed => Style::new().fg(Color::Green),
        LabelStatus::Split => Style::new().fg(Color::Magenta),
        LabelStatus::Rejected => Style::new().fg(Color::Red),
        LabelStatus::Unsure => Style::new().fg(Color::Yellow),
    }
}

/// A cluster's status as the queue shows it: "partly k/n" (labeled of all member pairs)
/// for a partly reviewed cluster, in at most `width` columns.
pub fn status_text(st: LabelStatus, labeled: i64, pairs: i64, width: usize) -> String {
    if st != LabelStatus::Partial {
        return st.as_str().to_string();
    }
    let full = format!("partly {labeled}/{pairs}");
    if full.chars().count() <= width {
        return full;
    }
    // Rounded down, so a cluster short of one pair never reads 100%.
    let pct = if pairs > 0 { labeled * 100 / pairs } else { 0 };
    format!("partly {pct}%")
}

fn score_range(s: &Session, min: Option<f64>, max: Option<f64>) -> String {
    if s.blind {
        return "·".into();
    }
    match (min, max) {
        (Some(a), Some(b)) if (a - b).abs() < 0.005 => format!("{b:.2}"),
        (Some(a), Some(b)) => format!("{a:.2}–{b:.2}"),
        (None, Some(b)) | (Some(b), None) => format!("{b:.2}"),
        (None, None) => "-".into(),
    }
}

/// An entry's agreement as the queue shows it: "3 of 3", "spotsigs only" (hidden when blind).
fn agreement_cell(s: &Session, r: &QueueRow) -> String {
    if s.blind {
        return "·".into();
    }
    match r.detectors.as_slice() {
        [one] if r.detectors_total > 1 => format!("{one} only"),
        d => format!("{} of {}", d.len(), r.detectors_total),
    }
}

/// The title column: the first member's title, after the captures the members stand for
/// when byte-identical copies were collapsed, and the triage rule of noise.
fn title_cell(r: &QueueRow) -> String {
    let mut out = String::new();
    if let Some(n) = &r.noise {
        out.push_str(&format!("[{n}] "));
    }
    if r.captures > r.size {
        out.push_str(&format!("(×{} captures) ", r.captures));
    }
    out.push_str(&r.title);
    out
}

/// Columns of the queue's status column.
const STATUS_WIDTH: u16 = 12;

fn draw_queue(frame: &mut Frame, s: &Session, body: Rect) {
    if s.queue_reading() {
        // A filter, a search, the order or the start: the worker reads the queue anew.
        let text = format!("Reading the queue ({})…", s.filter_summary());
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), body);
        return;
    }
    if s.queue_len == 0 {
        let text = format!(
            "No entries match ({}).\nRun `spotcheck detect --db DB` to propose candidate groups, or press C to clear the filter.",
            s.filter_summary()
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), body);
        return;
    }
    let rows: Vec<Row> = s
        .visible_range()
        .map(|pos| (pos, s.row_at(pos)))
        .map(|(pos, r)| {
            let Some(r) = r else {
                // Its page is being read on the background worker.
                let row = Row::new(
                    vec![Span::raw(""); 7]
                        .into_iter()
                        .chain([Span::raw("reading…")]),
                );
                return if pos == s.cursor {
                    row.style(Style::new().add_modifier(Modifier::REVERSED))
                } else {
                    row
                };
            };
            let selected = s.selection.contains_key(&(r.run_id, r.cluster));
            let row = Row::new(vec![
                Span::raw(if selected { "[x]" } else { "[ ]" }),
                Span::raw(agreement_cell(s, &r)),
                Span::raw(r.size.to_string()),
                Span::raw(score_range(s, r.min_score, r.max_score)),
                Span::styled(
                    status_text(r.status, r.labeled, r.pairs, STATUS_WIDTH as usize),
                    status_style(r.status),
                ),
                Span::raw(if r.disagree && !s.blind { "≠" } else { " " }),
                Span::raw(r.tags.join(",")),
                Span::raw(title_cell(&r)),
            ]);
            if pos == s.cursor {
                row.style(Style::new().add_modifier(Modifier::REVERSED))
            } else {
                row
            }
        })
        .collect();
    let header = Row::new(vec![
        "sel", "found by", "size", "score", "status", "≠", "tags", "title",
    ])
    .style(Style::new().bold());
    let table = Table::new(
        rows,
        [
            Constraint::Length(3),
            Constraint::Length(13),
            Constraint::Length(4),
            Constraint::Length(9),
            Constraint::Length(STATUS_WIDTH),
            Constraint::Length(1),
            Constraint::Length(12),
            Constraint::Min(10),
        ],
    )
    .header(header);
    frame.render_widget(table, body);
}

fn draw_cluster(frame: &mut Frame, s: &Session, body: Rect) {
    let Some(c) = &s.cluster else {
        return;
    };
    let (info, list, preview_left, preview_right) = cluster_areas(body);
    let r = &c.row;
    // While the members are read the queue row's count stands in (the same number).
    let mut first = format!(
        "entry {} · {} · {} members · {}",
        r.cluster,
        if s.blind { "·" } else { r.method.as_str() },
        if c.is_loading() {
            r.size as usize
        } else {
            c.members.len()
        },
        match r.status {
            LabelStatus::Partial => format!("partly reviewed ({} of {} pairs)", r.labeled, r.pairs),
            st => st.as_str().to_string(),
        }
    );
    if !s.blind {
        first.push_str(&format!(
            " · scores {}",
            score_range(s, r.min_score, r.max_score)
        ));
        if let Some((a, b, sc)) = c.bridge {
            first.push_str(&format!(" · weakest bridge {a}–{b} ({sc:.2})"));
        }
    }
    let mut second = format!(
        "anchor: {} │ comparing: {} │ tags: {}",
        c.members
            .get(c.anchor)
            .map_or("-".to_string(), |m| m.id.to_string()),
        c.members
            .get(c.cursor)
            .map_or("-".to_string(), |m| m.id.to_string()),
        if r.tags.is_empty() {
            "-".to_string()
        } else {
            r.tags.join(", ")
        }
    );
    if !c.groups.is_empty() {
        second.push_str(&format!(" │ {} (S splits)", s.groups_summary()));
    }
    if let Some(n) = &c.note {
        second.push_str(&format!(" │ note: {n}"));
    }
    if let Some(u) = c.members.get(c.cursor).and_then(|m| c.replay.get(&m.id)) {
        second.push_str(&format!(" │ replay (W copies): {u}"));
    }
    frame.render_widget(
        Paragraph::new(vec![Line::raw(first), Line::raw(second)])
            .block(Block::new().borders(Borders::BOTTOM)),
        info,
    );
    if c.is_loading() {
        // The members arrive from the background worker; the title stands in meanwhile.
        frame.render_widget(
            Paragraph::new(vec![
                Line::raw(format!("reading the {} members…", r.size)),
                Line::raw(format!("title: {}", r.title)),
            ])
            .style(Style::new().add_modifier(Modifier::DIM)),
            list,
        );
        return;
    }
    let h = list.height.saturating_sub(1) as usize;
    let rows: Vec<Row> = c
        .members
        .iter()
        .enumerate()
        .skip(c.top)
        .take(h)
        .map(|(i, m)| {
            let mark = if i == c.anchor { "A" } else { " " };
            let sel = if c.selected.contains(&m.id) {
                "[x]"
            } else {
                "[ ]"
            };
            let row = Row::new(vec![
                mark.to_string(),
                sel.to_string(),
                c.groups.get(&m.id).map_or(String::new(), |g| g.to_string()),
                m.id.to_string(),
                m.dup_group.map_or("-".into(), |g| g.to_string()),
                m.bytes.to_string(),
                if m.captures > 1 {
                    format!("×{} captures · {}", m.captures, m.url)
                } else {
                    m.url.clone()
                },
                m.title.clone(),
            ]);
            let mut style = Style::new();
            if i == c.anchor {
                style = style.add_modifier(Modifier::BOLD);
            }
            if i == c.cursor {
                style = style.add_modifier(Modifier::REVERSED);
            }
            row.style(style)
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(1),
            Constraint::Length(3),
            Constraint::Length(3),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(7),
            Constraint::Percentage(40),
            Constraint::Min(8),
        ],
    )
    .header(
        Row::new(vec![
            "", "sel", "grp", "doc", "dup", "bytes", "url", "title",
        ])
        .bold(),
    );
    frame.render_widget(table, list);
    for (i, area, label) in [
        (c.anchor, preview_left, "anchor"),
        (c.cursor, preview_right, "comparing"),
    ] {
        let Some(m) = c.members.get(i) else { continue };
        if area.height == 0 {
            continue;
        }
        let text = c.previews.get(&m.id).map_or("reading…", String::as_str);
        frame.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: false })
                .block(Block::bordered().title(format!("{label} {} · {}", m.id, m.url))),
            area,
        );
    }
}

/// The group view: the entry's members as a table with the likely source marked.
fn draw_group(frame: &mut Frame, s: &Session, body: Rect) {
    let Some(c) = &s.cluster else {
        return;
    };
    let Some(t) = &c.table else {
        // The background worker is still reading and diffing the members.
        frame.render_widget(
            Paragraph::new(vec![
                Line::raw(format!("entry {} · {} members", c.row.cluster, c.row.size)),
                Line::raw(if c.is_loading() {
                    "computing… (reading the entry's members first)"
                } else {
                    "computing… (each member's text read and compared with the earliest capture)"
                }),
            ])
            .block(Block::new().borders(Borders::BOTTOM)),
            body,
        );
        return;
    };
    let [info, list] = Layout::vertical([Constraint::Length(3), Constraint::Min(1)]).areas(body);
    let r = &c.row;
    let first = format!(
        "entry {} · {} · {} members · {} · sorted by {}",
        r.cluster,
        if s.blind { "·" } else { r.method.as_str() },
        t.rows.len(),
        match r.status {
            LabelStatus::Partial => format!("partly reviewed ({} of {} pairs)", r.labeled, r.pairs),
            st => st.as_str().to_string(),
        },
        t.sort.name()
    );
    let second = match t.source {
        Some(id) => format!("source: {id}, the earliest capture · differences are words against it (the detectors' text)"),
        None => format!("no capture dates · differences are words against the anchor {}", t.anchor),
    };
    frame.render_widget(
        Paragraph::new(vec![Line::raw(first), Line::raw(second)])
            .block(Block::new().borders(Borders::BOTTOM)),
        info,
    );
    let current = c.members.get(c.cursor).map(|m| m.id);
    let h = list.height.saturating_sub(1) as usize;
    let at = current.and_then(|id| t.position(id)).unwrap_or(0);
    let top = at.saturating_sub(h.saturating_sub(1));
    let urls: std::collections::HashMap<i64, &str> =
        c.members.iter().map(|m| (m.id, m.url.as_str())).collect();
    let rows: Vec<Row> = t
        .rows
        .iter()
        .skip(top)
        .take(h)
        .map(|g| {
            let mark = if Some(g.id) == t.source {
                "source"
            } else if g.id == t.anchor {
                "anchor"
            } else {
                ""
            };
            let diff = if g.id == t.anchor {
                "-".to_string()
            } else if g.truncated {
                format!("truncated (−{})", g.dropped)
            } else if g.added + g.dropped == 0 {
                "same words".to_string()
            } else {
                format!("+{} −{}", g.added, g.dropped)
            };
            let row = Row::new(vec![
                mark.to_string(),
                g.id.to_string(),
                sanitize_line(&g.site),
                g.captured.as_deref().map_or("-".to_string(), short_date),
                g.words.to_string(),
                diff,
                urls.get(&g.id).copied().unwrap_or("").to_string(),
            ]);
            let mut style = Style::new();
            if Some(g.id) == t.source {
                style = style.add_modifier(Modifier::BOLD);
            }
            if Some(g.id) == current {
                style = style.add_modifier(Modifier::REVERSED);
            }
            row.style(style)
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(22),
            Constraint::Length(16),
            Constraint::Length(6),
            Constraint::Length(16),
            Constraint::Min(10),
        ],
    )
    .header(
        Row::new(vec![
            "",
            "doc",
            "site",
            "captured (UTC)",
            "words",
            if t.source.is_some() {
                "vs source"
            } else {
                "vs anchor"
            },
            "url",
        ])
        .bold(),
    );
    frame.render_widget(table, list);
}

/// The chart screen: the run's score histogram (bars at or above the what-if threshold
/// bright, below it dim; the run's own threshold and the what-if named in the title), the
/// what-if line, and below it the group-size distribution and the decisions over time.
fn draw_charts(frame: &mut Frame, s: &Session, body: Rect) {
    use ratatui::style::Color;
    use ratatui::widgets::{Bar, BarChart, BarGroup, Sparkline};
    let Some(v) = &s.charts else {
        // The background worker is still reading every run's pair scores.
        frame.render_widget(
            Paragraph::new("computing… (every detector run's pair scores read and binned)")
                .block(Block::bordered().title("pair scores")),
            body,
        );
        return;
    };
    let [top, whatif, bottom] = Layout::vertical([
        Constraint::Percentage(55),
        Constraint::Length(1),
        Constraint::Min(5),
    ])
    .areas(body);
    let [sizes_area, progress_area] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(bottom);
    frame.render_widget(Paragraph::new(v.summary()).bold(), whatif);
    if let Some(run) = v.figures.runs.get(v.run) {
        // No what-if point yet (being computed): every bar bright, no what-if named.
        let what_if = v.current().map(|p| p.threshold);
        let h = &run.histogram;
        let n = h.bins.len().max(1) as u16;
        let inner = top.width.saturating_sub(2);
        let bar_width = (inner / n).saturating_sub(1).max(1);
        let bars: Vec<Bar> = h
            .bins
            .iter()
            .map(|b| {
                let kept = what_if.is_none_or(|t| b.lo + 1e-9 >= t);
                let label = format!("{:.2}", b.lo);
                let label = label.trim_start_matches('0').to_string();
                Bar::default()
                    .value(b.count)
                    .text_value(if b.count == 0 {
                        String::new()
                    } else {
                        b.count.to_string()
                    })
                    .label(Line::from(label))
                    .style(if kept {
                        Style::new().fg(Color::Cyan)
                    } else {
                        Style::new().fg(Color::DarkGray)
                    })
            })
            .collect();
        let title = format!(
            "{} run {} · {} pairs · run threshold {} · what-if {} (bars ≥ it bright; m: next run)",
            if s.blind { "·" } else { h.method.as_str() },
            h.run,
            h.pairs,
            h.threshold
                .map_or("none".to_string(), |t| format!("{t:.2}")),
            what_if.map_or("computing…".to_string(), |t| format!("{t:.2}"))
        );
        frame.render_widget(
            BarChart::default()
                .block(Block::bordered().title(title))
                .data(BarGroup::default().bars(&bars))
                .bar_width(bar_width)
                .bar_gap(1),
            top,
        );
    } else {
        frame.render_widget(
            Paragraph::new("No detector run: run `spotcheck detect --db DB` first.")
                .block(Block::bordered().title("pair scores")),
            top,
        );
    }
    let size_bars: Vec<Bar> = v
        .figures
        .sizes
        .iter()
        .map(|b| {
            Bar::default()
                .value(b.groups)
                .label(Line::from(b.label.clone()))
        })
        .collect();
    let groups: u64 = v.figures.sizes.iter().map(|b| b.groups).sum();
    frame.render_widget(
        BarChart::default()
            .block(Block::bordered().title(format!(
                "group sizes · {groups} groups ({})",
                v.figures.sizes_of
            )))
            .data(BarGroup::default().bars(&size_bars))
            .bar_width(5)
            .bar_gap(1),
        sizes_area,
    );
    let per_period: Vec<u64> = v.figures.progress.iter().map(|p| p.decisions).collect();
    let total = v.figures.progress.last().map_or(0, |p| p.cumulative);
    let span = match v.figures.progress.len() {
        0 => "no decisions yet".to_string(),
        1 => "over 1 day".to_string(),
        n => format!("over {n} days"),
    };
    frame.render_widget(
        Sparkline::default()
            .block(Block::bordered().title(format!("decisions per day · {total} in all · {span}")))
            .data(&per_period),
        progress_area,
    );
}

/// "2024-03-01T09:00:00Z" as "2024-03-01 09:00" (a date that is not ISO 8601 as it is).
fn short_date(d: &str) -> String {
    match (d.get(0..10), d.get(11..16)) {
        (Some(day), Some(time)) if d.as_bytes().get(10) == Some(&b'T') => format!("{day} {time}"),
        _ => d.chars().take(16).collect(),
    }
}

/// The visible lines of a pane, with its highlights as styled spans.
fn pane_lines(p: &DocPane, scroll: usize, height: usize) -> Vec<Line<'static>> {
    let lines = p.lines();
    lines
        .iter()
        .skip(scroll)
        .take(height)
        .map(|r| {
            let mut spans: Vec<Span> = Vec::new();
            let mut at = r.start;
            for h in p.highlights_in(r) {
                let (hs, he) = (h.start.max(r.start), h.end.min(r.end));
                if hs > at {
                    spans.push(Span::raw(p.text[at..hs].to_string()));
                }
                if he > hs {
                    spans.push(Span::styled(
                        p.text[hs..he].to_string(),
                        highlight_style(h.kind),
                    ));
                }
                at = he.max(at);
            }
            if at < r.end {
                spans.push(Span::raw(p.text[at..r.end].to_string()));
            }
            Line::from(spans)
        })
        .collect()
}

fn draw_pair(frame: &mut Frame, s: &Session, body: Rect) {
    let Some(p) = &s.pair else {
        return;
    };
    let (summary, panes, left, right) = pair_areas(body);
    let text = match p.text {
        TextKind::Visible => "visible text",
        TextKind::Main => "main text",
        TextKind::Content => "content text",
    };
    let evidence = if s.blind {
        "blind mode: scores and evidence hidden".to_string()
    } else if p.loading() {
        // The runs' scores are read with the documents, off the UI thread.
        "reading each detector's score…".to_string()
    } else {
        evidence_summary(&p.evidence)
    };
    frame.render_widget(
        Paragraph::new(format!("{evidence} │ {text}")).bold(),
        summary,
    );
    let height = panes.height.saturating_sub(2) as usize;
    let waiting = |what: &str| {
        Paragraph::new(Line::styled(
            what.to_string(),
            Style::new().add_modifier(Modifier::DIM),
        ))
    };
    if p.show_diff {
        if p.diff_loading() {
            let block = Block::bordered()
                .title(format!("word diff {} → {}", p.left.doc_id, p.right.doc_id));
            frame.render_widget(
                waiting("computing the word diff… (d: back to the documents)").block(block),
                panes,
            );
        }
        if let Some(d) = &p.diff {
            let block = Block::bordered().title(format!(
                "word diff {} → {} (red: only left, green: only right)",
                p.left.doc_id, p.right.doc_id
            ));
            frame.render_widget(
                Paragraph::new(pane_lines(d, p.scroll, height)).block(block),
                panes,
            );
        }
        return;
    }
    for (pane, area, label) in [(&p.left, left, "anchor"), (&p.right, right, "compare")] {
        let title = if pane.lang.is_empty() {
            format!("{label} {} · {}", pane.doc_id, pane.url)
        } else {
            format!("{label} {} · {} · {}", pane.doc_id, pane.lang, pane.url)
        };
        let body = if p.loading() {
            waiting("reading and comparing the documents…")
        } else {
            Paragraph::new(pane_lines(pane, p.scroll, height))
        };
        frame.render_widget(body.block(Block::bordered().title(title)), area);
    }
    // Drawn over the panes' bottom border, so the legend takes no line from the texts (and
    // the pane height, and so paging, stays the same with and without it); only once there
    // are texts whose highlights it explains, and never in blind mode, which shows none.
    if !s.blind && !p.loading() && panes.height > 2 && panes.width > 2 {
        let row = Rect::new(panes.x + 1, panes.bottom() - 1, panes.width - 2, 1);
        frame.render_widget(Paragraph::new(legend_line()), row);
    }
}

/// The legend of the highlight styles, each name drawn in its style. MinHash draws the
/// shingles it shares in the spot-signature style (`HighlightKind::SpotSig`).
pub fn legend_line() -> Line<'static> {
    let sep = || Span::raw(" · ");
    Line::from(vec![
        Span::raw(" "),
        Span::styled(
            "SpotSigs signatures, MinHash shingles",
            highlight_style(HighlightKind::SpotSig),
        ),
        sep(),
        Span::styled(
            "I-Match lexicon terms",
            highlight_style(HighlightKind::LexiconTerm),
        ),
        sep(),
        Span::styled("ANDD k-grams", highlight_style(HighlightKind::AnddGram)),
        Span::raw(" "),
    ])
}

/// The help screen: every action of the table with its keys on each screen.
pub fn help_rows(keys: &Keymap) -> Vec<[String; 4]> {
    ACTIONS
        .iter()
        .map(|a| {
            let mut ks: Vec<&str> = Vec::new();
            for m in a.modes {
                for k in keys.keys_for(*m, a.name) {
                    if !ks.contains(&k) {
                        ks.push(k);
                    }
                }
            }
            let screens: Vec<&str> = if a.modes.len() == crate::review::actions::ALL_SCREENS.len() {
                vec!["all"]
            } else {
                a.modes.iter().map(|m| m.name()).collect()
            };
            [
                if ks.is_empty() {
                    "(unbound)".into()
                } else {
                    ks.join(" ")
                },
                a.name.to_string(),
                screens.join(","),
                a.description.to_string(),
            ]
        })
        .collect()
}

/// The help screen as a Markdown table (the README's key table is this text; a test keeps
/// them equal).
pub fn help_markdown(keys: &Keymap) -> String {
    let mut out = String::from("| keys | action | screens | what it does |\n|---|---|---|---|\n");
    for [k, name, screens, what] in help_rows(keys) {
        let k: Vec<String> = k.split(' ').map(|k| format!("`{k}`")).collect();
        out.push_str(&format!(
            "| {} | {name} | {screens} | {what} |\n",
            k.join(" ")
        ));
    }
    out
}

fn draw_help(frame: &mut Frame, s: &Session, keys: &Keymap, body: Rect) {
    let rows: Vec<Row> = help_rows(keys)
        .into_iter()
        .skip(s.help_scroll)
        .map(Row::new)
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(16),
            Constraint::Length(15),
            Constraint::Length(24),
            Constraint::Min(20),
        ],
    )
    .header(Row::new(vec!["keys", "action", "screens", "what it does"]).bold());
    frame.render_widget(table, body);
}
