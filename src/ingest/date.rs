//! Capture dates: the many ways inputs write when a page was fetched (WARC-Date, the ARC
//! header's 14 digits, an AUT derivative's `crawl_date`, a table's date column) turned into
//! one form, ISO 8601 in UTC with second precision (`2016-03-01T12:34:56Z`), which sorts as
//! text. Also the two forms other tools want: Unix milliseconds (Parquet timestamps) and
//! the 14-digit Wayback timestamp (replay URLs). Pure functions, no I/O.

/// A capture date's fields, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Utc {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`); also the
/// chart module's calendar.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01 (the inverse of `days_from_civil`).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

impl Utc {
    fn valid(&self) -> bool {
        (1..=9999).contains(&self.year)
            && (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(self.year, self.month)
            && self.hour < 24
            && self.minute < 60
            // 60: a leap second, as WARC-Date may carry; kept as written.
            && self.second <= 60
    }

    fn unix_seconds(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    fn from_unix_seconds(s: i64) -> Utc {
        let days = s.div_euclid(86_400);
        let rem = s.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Utc {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            minute: (rem % 3600 / 60) as u32,
            second: (rem % 60) as u32,
        }
    }

    fn iso(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `YYYYMMDD[hh[mm[ss]]]` (ARC headers, Wayback timestamps, AUT `crawl_date`).
fn parse_compact(s: &str) -> Option<Utc> {
    if !s.bytes().all(|b| b.is_ascii_digit()) || !matches!(s.len(), 8 | 10 | 12 | 14) {
        return None;
    }
    let field = |a: usize, b: usize| s.get(a..b).and_then(digits).unwrap_or(0);
    Some(Utc {
        year: i64::from(field(0, 4)),
        month: field(4, 6),
        day: field(6, 8),
        hour: field(8, 10),
        minute: field(10, 12),
        second: field(12, 14),
    })
}

/// `YYYY-MM-DD[(T| )hh:mm[:ss[.frac]]][Z|±hh[:]mm]`.
fn parse_iso(s: &str) -> Option<Utc> {
    let date = s.get(..10)?;
    let mut parts = date.split('-');
    let year = i64::from(digits(parts.next().filter(|p| p.len() == 4)?)?);
    let month = digits(parts.next().filter(|p| p.len() == 2)?)?;
    let day = digits(parts.next().filter(|p| p.len() == 2)?)?;
    let mut t = Utc {
        year,
        month,
        day,
        hour: 0,
        minute: 0,
        second: 0,
    };
    let rest = &s[10..];
    if rest.is_empty() {
        return Some(t);
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    // The time runs up to the zone designator.
    let zone_at = rest
        .char_indices()
        .find(|&(i, c)| c == 'Z' || c == 'z' || ((c == '+' || c == '-') && i > 0))
        .map_or(rest.len(), |(i, _)| i);
    let (time, zone) = rest.split_at(zone_at);
    let time = time.trim_end();
    let mut hms = time.split(':');
    t.hour = digits(hms.next()?)?;
    t.minute = digits(hms.next()?)?;
    if let Some(sec) = hms.next() {
        let whole = sec.split(['.', ',']).next()?;
        t.second = digits(whole)?;
    }
    if hms.next().is_some() {
        return None;
    }
    let offset_minutes: i64 = match zone {
        "" | "Z" | "z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let z = z[1..].replace(':', "");
            if z.len() != 4 {
                return None;
            }
            let h = i64::from(digits(&z[..2])?);
            let m = i64::from(digits(&z[2..])?);
            sign * (h * 60 + m)
        }
    };
    if !t.valid() {
        return None;
    }
    if offset_minutes != 0 {
        t = Utc::from_unix_seconds(t.unix_seconds() - offset_minutes * 60);
    }
    Some(t)
}

fn parse(s: &str) -> Option<Utc> {
    let s = s.trim();
    let t = parse_compact(s).or_else(|| parse_iso(s))?;
    t.valid().then_some(t)
}

/// The capture date `raw` in the one stored form, `YYYY-MM-DDThh:mm:ssZ` (UTC); `None` when
/// it is not a date this knows (a time zone offset is applied; fractions of a second are
/// dropped; a date alone is midnight UTC).
pub fn normalize(raw: &str) -> Option<String> {
    parse(raw).map(|t| t.iso())
}

/// Milliseconds since 1970-01-01T00:00:00Z of a capture date in any form [`normalize`]
/// reads.
pub fn unix_millis(raw: &str) -> Option<i64> {
    parse(raw).map(|t| t.unix_seconds() * 1000)
}

/// The stored form of an instant given as Unix milliseconds (a Parquet timestamp); `None`
/// outside years 1–9999.
pub fn iso_from_unix_millis(ms: i64) -> Option<String> {
    let t = Utc::from_unix_seconds(ms.div_euclid(1000));
    t.valid().then(|| t.iso())
}

/// The 14-digit Wayback timestamp (`YYYYMMDDhhmmss`) of a capture date, as replay URLs
/// carry it.
pub fn wayback_timestamp(raw: &str) -> Option<String> {
    parse(raw).map(|t| {
        format!(
            "{:04}{:02}{:02}{:02}{:02}{:02}",
            t.year, t.month, t.day, t.hour, t.minute, t.second
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_inputs_write_become_one() {
        let want = Some("2016-03-01T12:34:56Z".to_string());
        for raw in [
            "2016-03-01T12:34:56Z",
            "2016-03-01T12:34:56.789Z",
            " 2016-03-01 12:34:56 ",
            "2016-03-01T14:34:56+02:00",
            "2016-03-01T07:34:56-0500",
            "20160301123456",
        ] {
            assert_eq!(normalize(raw), want, "{raw}");
        }
        assert_eq!(
            normalize("20160301").as_deref(),
            Some("2016-03-01T00:00:00Z")
        );
        assert_eq!(
            normalize("2016-03-01").as_deref(),
            Some("2016-03-01T00:00:00Z")
        );
        // Across a day and a year boundary.
        assert_eq!(
            normalize("2016-01-01T01:00:00+02:00").as_deref(),
            Some("2015-12-31T23:00:00Z")
        );
        for bad in [
            "",
            "yesterday",
            "2016-13-01",
            "2015-02-29",
            "201603",
            "2016-03-01T",
        ] {
            assert_eq!(normalize(bad), None, "{bad}");
        }
        assert_eq!(
            normalize("2016-02-29T00:00:00Z").as_deref(),
            Some("2016-02-29T00:00:00Z")
        );
    }

    #[test]
    fn millis_and_wayback_timestamps() {
        assert_eq!(unix_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_millis("2000-03-01T00:00:01Z"), Some(951_868_801_000));
        assert_eq!(unix_millis("1969-12-31T23:59:59Z"), Some(-1000));
        assert_eq!(
            wayback_timestamp("2016-03-01T14:34:56+02:00").as_deref(),
            Some("20160301123456")
        );
        assert_eq!(wayback_timestamp("nope"), None);
    }

    #[test]
    fn days_round_trip() {
        for d in [-800_000i64, -1, 0, 1, 10_956, 11_016, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }
}
