//! The figures as SVG documents, drawn with plotters' SVG backend (text is written as SVG
//! `<text>`, so no font file or system library is needed to build or to draw). Each function
//! takes the figure data of `chart` and returns the SVG text; writing it is the caller's.

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use super::{Period, ProgressPoint, ScoreHistogram, SizeBin, WhatIfPoint};

/// The size of one panel, in pixels.
pub const PANEL: (u32, u32) = (720, 360);

const BAR: RGBColor = RGBColor(70, 110, 170);
const THRESHOLD: RGBColor = RGBColor(200, 40, 40);
const WHAT_IF: RGBColor = RGBColor(230, 140, 20);

fn plot_err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing the figure: {e}")
}

/// One panel per run, stacked: the histogram of its pair scores, its threshold as a red line
/// and, when given, a what-if threshold as an orange one with what it would change in the
/// panel's caption (`what_if[i]` belongs to `runs[i]`).
pub fn scores_svg(runs: &[ScoreHistogram], what_if: &[Option<WhatIfPoint>]) -> Result<String> {
    let mut out = String::new();
    {
        let n = runs.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut out, (PANEL.0, PANEL.1 * n)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let panels = root.split_evenly((n as usize, 1));
        for (i, (h, area)) in runs.iter().zip(panels.iter()).enumerate() {
            let lo = h.bins.first().map_or(0.0, |b| b.lo);
            let hi = h.bins.last().map_or(1.0, |b| b.hi);
            let top = h.bins.iter().map(|b| b.count).max().unwrap_or(0).max(1);
            let mut caption = format!("{} (run {}): {} pairs", h.method, h.run, h.pairs);
            if let Some(t) = h.threshold {
                caption.push_str(&format!(", threshold {t:.2}"));
            }
            let point = what_if.get(i).copied().flatten();
            if let Some(p) = point {
                caption.push_str(&format!(
                    " · at {:.2}: {} pairs, {} groups",
                    p.threshold, p.pairs, p.entries
                ));
                if let (Some(pr), Some(rc)) = (p.precision, p.recall) {
                    caption.push_str(&format!(", P {pr:.2} R {rc:.2}"));
                }
            }
            let mut chart = ChartBuilder::on(area)
                .caption(caption, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(56)
                .build_cartesian_2d(lo..hi, 0u64..top + top / 10 + 1)
                .map_err(plot_err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .label_style(("sans-serif", 14))
                .x_desc("score")
                .y_desc("pairs")
                .draw()
                .map_err(plot_err)?;
            chart
                .draw_series(
                    h.bins.iter().map(|b| {
                        Rectangle::new([(b.lo, 0), (b.hi, b.count)], BAR.mix(0.8).filled())
                    }),
                )
                .map_err(plot_err)?;
            for (t, color) in [
                (h.threshold, THRESHOLD),
                (point.map(|p| p.threshold), WHAT_IF),
            ] {
                if let Some(t) = t {
                    chart
                        .draw_series(LineSeries::new(
                            [(t, 0), (t, top + top / 10 + 1)],
                            color.stroke_width(2),
                        ))
                        .map_err(plot_err)?;
                }
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// Bars of how many groups have each size class; `of` names what was counted.
pub fn sizes_svg(bins: &[SizeBin], of: &str) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, PANEL).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let groups: u64 = bins.iter().map(|b| b.groups).sum();
        let top = bins.iter().map(|b| b.groups).max().unwrap_or(0).max(1);
        let labels: Vec<String> = bins.iter().map(|b| b.label.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("group sizes: {groups} groups ({of})"),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((0..bins.len()).into_segmented(), 0u64..top + top / 10 + 1)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .label_style(("sans-serif", 14))
            .x_desc("members")
            .y_desc("groups")
            .x_labels(bins.len() + 1)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                    labels.get(*i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .draw()
            .map_err(plot_err)?;
        chart
            .draw_series(bins.iter().enumerate().map(|(i, b)| {
                Rectangle::new(
                    [
                        (SegmentValue::Exact(i), 0),
                        (SegmentValue::Exact(i + 1), b.groups),
                    ],
                    BAR.mix(0.8).filled(),
                )
            }))
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// Decisions per period as bars.
pub fn progress_svg(points: &[ProgressPoint], period: Period) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, PANEL).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let total = points.last().map_or(0, |p| p.cumulative);
        let top = points.iter().map(|p| p.decisions).max().unwrap_or(0).max(1);
        let unit = match period {
            Period::Hour => "hour",
            Period::Day => "day",
        };
        let names: Vec<String> = points.iter().map(|p| p.period.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("review progress: {total} decisions, per {unit} (UTC)"),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(
                (0..points.len().max(1)).into_segmented(),
                0u64..top + top / 10 + 1,
            )
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .label_style(("sans-serif", 14))
            .y_desc("decisions")
            .x_labels(8)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                    names.get(*i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .draw()
            .map_err(plot_err)?;
        chart
            .draw_series(points.iter().enumerate().map(|(i, p)| {
                Rectangle::new(
                    [
                        (SegmentValue::Exact(i), 0),
                        (SegmentValue::Exact(i + 1), p.decisions),
                    ],
                    BAR.mix(0.8).filled(),
                )
            }))
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{score_bins, size_distribution, what_if};
    use super::*;

    #[test]
    fn the_svgs_are_documents_with_their_bars_lines_and_captions() {
        let pairs = [(1, 2, 0.9), (2, 3, 0.5), (4, 5, 0.7)];
        let h = ScoreHistogram {
            method: "spotsigs".into(),
            run: 3,
            bins: score_bins(&[0.9, 0.5, 0.7], 10),
            threshold: Some(0.4),
            pairs: 3,
        };
        let p = what_if(&pairs, &[], &[0.6]).pop();
        let svg = scores_svg(&[h], &[p]).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{svg}"
        );
        assert!(
            svg.contains("spotsigs (run 3): 3 pairs, threshold 0.40"),
            "{svg}"
        );
        assert!(svg.contains("at 0.60: 2 pairs, 2 groups"), "{svg}");
        // Bars in the bar colour, a red threshold line and an orange what-if line.
        assert!(svg.contains("#466EAA"), "{svg}");
        assert!(svg.contains("#C82828") && svg.contains("#E68C14"), "{svg}");
        let sizes = sizes_svg(&size_distribution(&[2, 2, 3, 12]), "merged queue").unwrap();
        assert!(
            sizes.contains("group sizes: 4 groups (merged queue)"),
            "{sizes}"
        );
        assert!(sizes.contains("10–19"), "{sizes}");
        let pts = super::super::progress_by(&["2026-01-01T00:00:00Z"], Period::Day);
        let prog = progress_svg(&pts, Period::Day).unwrap();
        assert!(prog.contains("1 decisions, per day"), "{prog}");
    }
}
