//! The reads behind the figures (`crate::chart`): pair labels, the queue's entry sizes and
//! the times of decisions, as plain rows.

use anyhow::Result;
use rusqlite::params;

use super::Store;

impl Store {
    /// Stored pair labels (a < b) as (a, b, label, coder), of one coder or of every coder.
    pub fn pair_label_rows(&self, coder: Option<&str>) -> Result<Vec<(i64, i64, String, String)>> {
        let mut st = self.conn().prepare(
            "SELECT a, b, label, coder FROM pair_labels
             WHERE ?1 IS NULL OR coder = ?1 ORDER BY a, b, coder",
        )?;
        let rows = st.query_map(params![coder], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The member counts of the merged queue's entries (with the triaged noise or without).
    pub fn queue_entry_sizes(&self, with_noise: bool) -> Result<Vec<usize>> {
        let mut st = self.conn().prepare(
            "SELECT size FROM review_clusters WHERE run_id = 0 AND (?1 OR noise IS NULL)",
        )?;
        let rows = st.query_map(params![with_noise], |r| r.get::<_, i64>(0))?;
        Ok(rows
            .map(|r| r.map(|s| usize::try_from(s).unwrap_or(0)))
            .collect::<rusqlite::Result<_>>()?)
    }

    /// When each decision was recorded (UTC, ISO 8601), of one coder or of every coder; undo
    /// and redo rows are not decisions.
    pub fn decision_times(&self, coder: Option<&str>) -> Result<Vec<String>> {
        let mut st = self.conn().prepare(
            "SELECT time FROM decisions
             WHERE (?1 IS NULL OR coder = ?1) AND action NOT IN ('undo', 'redo') ORDER BY id",
        )?;
        let rows = st.query_map(params![coder], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
