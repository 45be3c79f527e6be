//! Parameters declared once. Each detection method lists its [`Param`]s: the flag, the
//! value's kind and valid range, a one-line help, the paper's value, and how the value is
//! read from and written into the method's settings. The settings type's `Default` is the
//! one home of the defaults; `--help`, the README's parameter table, validation and the
//! stored run parameters are all derived from these declarations.

use std::fmt::Write as _;
use std::path::PathBuf;

/// What a flag takes, with its valid range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A number in `[min, max]`, an open end where `min_open` / `max_open`.
    Float {
        min: f64,
        max: f64,
        min_open: bool,
        max_open: bool,
    },
    /// A whole number in `min..=max`.
    Int { min: u64, max: u64 },
    /// A switch without a value (present = on).
    Switch,
    /// A file path.
    File,
    /// A normalized-idf window `MIN,MAX` with `0 <= MIN <= MAX <= 1`; with `auto`, `MIN,auto`
    /// is accepted too (no upper end).
    Window { auto: bool },
}

/// A parsed, range-checked value of a flag.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Float(f64),
    Int(u64),
    Switch(bool),
    File(PathBuf),
    /// `(MIN, MAX)`; `MAX` is `None` for `auto`.
    Window(f64, Option<f64>),
}

impl Value {
    /// The number of a `Float` (or `Int`) value. The kinds guarantee the type: a setter only
    /// receives values of its declared kind (`every_declared_default_fits_its_kind` checks
    /// getters and kinds agree), so the fallback 0 is never used.
    pub fn float(&self) -> f64 {
        match self {
            Value::Float(f) => *f,
            Value::Int(n) => *n as f64,
            _ => 0.0,
        }
    }

    /// The number of an `Int` value (see [`Value::float`] for why the fallback is unused).
    pub fn int(&self) -> u64 {
        match self {
            Value::Int(n) => *n,
            _ => 0,
        }
    }

    /// Whether a switch is on.
    pub fn on(&self) -> bool {
        matches!(self, Value::Switch(true))
    }

    /// The path of a `File` value.
    pub fn path(&self) -> PathBuf {
        match self {
            Value::File(p) => p.clone(),
            _ => PathBuf::new(),
        }
    }

    /// The `(MIN, MAX)` of a window (`MAX` `None` for `auto`).
    pub fn window(&self) -> (f64, Option<f64>) {
        match self {
            Value::Window(lo, hi) => (*lo, *hi),
            _ => (0.0, None),
        }
    }

    /// As help and the README show it.
    pub fn show(&self) -> String {
        match self {
            Value::Float(f) => format!("{f}"),
            Value::Int(n) => format!("{n}"),
            Value::Switch(true) => "on".into(),
            Value::Switch(false) => "off".into(),
            Value::File(p) => p.display().to_string(),
            Value::Window(lo, Some(hi)) => format!("{lo},{hi}"),
            Value::Window(lo, None) => format!("{lo},auto"),
        }
    }
}

impl Kind {
    /// A number in `[min, max]`.
    pub const fn closed(min: f64, max: f64) -> Kind {
        Kind::Float {
            min,
            max,
            min_open: false,
            max_open: false,
        }
    }

    /// A number in `(min, max]`.
    pub const fn open_closed(min: f64, max: f64) -> Kind {
        Kind::Float {
            min,
            max,
            min_open: true,
            max_open: false,
        }
    }

    /// A whole number of at least `min`.
    pub const fn at_least(min: u64) -> Kind {
        Kind::Int { min, max: u64::MAX }
    }

    /// The valid range in words, for errors, help and the README.
    pub fn range(&self) -> String {
        match *self {
            Kind::Float {
                min,
                max,
                min_open,
                max_open,
            } => format!(
                "{}{min}, {max}{}",
                if min_open { "(" } else { "[" },
                if max_open { ")" } else { "]" }
            ),
            Kind::Int { min, max: u64::MAX } => format!("{min} or more"),
            Kind::Int { min, max } => format!("{min}..={max}"),
            Kind::Switch => "on/off".into(),
            Kind::File => "a file".into(),
            Kind::Window { auto: true } => "MIN,MAX or MIN,auto with 0 <= MIN <= MAX <= 1".into(),
            Kind::Window { auto: false } => "MIN,MAX with 0 <= MIN <= MAX <= 1".into(),
        }
    }

    /// Parses a flag's text into a value of this kind, or says what is valid.
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let bad = || format!("expected {}, got {text:?}", self.expected());
        let value = match self {
            Kind::Float { .. } => Value::Float(text.trim().parse().map_err(|_| bad())?),
            Kind::Int { .. } => Value::Int(text.trim().parse().map_err(|_| bad())?),
            Kind::Switch => Value::Switch(true),
            Kind::File => Value::File(PathBuf::from(text)),
            Kind::Window { auto } => {
                let (lo, hi) = text.split_once(',').ok_or_else(bad)?;
                let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
                let hi = match hi.trim() {
                    "auto" if *auto => None,
                    h => Some(h.parse::<f64>().map_err(|_| bad())?),
                };
                Value::Window(lo, hi)
            }
        };
        self.check(&value).map_err(|_| bad())?;
        Ok(value)
    }

    /// Whether a value lies in this kind's range.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        let ok = match (*self, value) {
            (
                Kind::Float {
                    min,
                    max,
                    min_open,
                    max_open,
                },
                Value::Float(f),
            ) => {
                f.is_finite()
                    && if min_open { *f > min } else { *f >= min }
                    && if max_open { *f < max } else { *f <= max }
            }
            (Kind::Int { min, max }, Value::Int(n)) => (min..=max).contains(n),
            (Kind::Switch, Value::Switch(_)) | (Kind::File, Value::File(_)) => true,
            (Kind::Window { auto }, Value::Window(lo, hi)) => {
                let unit = |x: f64| (0.0..=1.0).contains(&x);
                unit(*lo)
                    && match hi {
                        Some(hi) => unit(*hi) && lo <= hi,
                        None => auto,
                    }
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "expected {}, got {}",
                self.expected(),
                value.show()
            ))
        }
    }

    fn expected(&self) -> String {
        match self {
            Kind::Float { .. } => format!("a number in {}", self.range()),
            Kind::Int { min, max: u64::MAX } => format!("a whole number of {min} or more"),
            Kind::Int { .. } => format!("a whole number in {}", self.range()),
            _ => self.range(),
        }
    }
}

/// One parameter of a method whose settings are `S`.
pub struct Param<S> {
    /// The long flag without `--`; it names the parameter everywhere.
    pub flag: &'static str,
    /// The placeholder in `--help` (`F`, `N`, `FILE`, …); unused for switches.
    pub value_name: &'static str,
    pub kind: Kind,
    /// One line: what it does (the range and defaults are added from the declaration).
    pub help: &'static str,
    /// The value the method's paper uses, where it says one.
    pub paper: Option<&'static str>,
    /// The value in settings `S` (`None`: not set, then `unset` describes what happens).
    pub get: fn(&S) -> Option<Value>,
    /// What an unset value means (shown as the default when `get` gives `None`).
    pub unset: &'static str,
    /// Puts a checked value into the settings. Parameters are applied in declaration order,
    /// so a preset (a switch that sets several values) is declared before what it presets.
    pub set: fn(&mut S, &Value),
}

impl<S> Param<S> {
    /// The default as help and the README show it, from `S::default()`.
    pub fn default_text(&self, defaults: &S) -> String {
        match (self.get)(defaults) {
            Some(v) => v.show(),
            None => self.unset.to_string(),
        }
    }
}

/// A parameter as the table shows it, without the settings type.
#[derive(Debug, Clone)]
pub struct ParamInfo {
    pub flag: &'static str,
    pub value_name: &'static str,
    pub kind: Kind,
    pub help: &'static str,
    pub paper: Option<&'static str>,
    pub default: String,
}

impl ParamInfo {
    /// The line `--help` shows: the help, the range, our default and the paper's.
    pub fn help_line(&self) -> String {
        let mut s = self.help.to_string();
        if !matches!(self.kind, Kind::Switch | Kind::File) {
            let _ = write!(s, " Valid: {}.", self.kind.range());
        }
        let _ = write!(s, " [default: {}", self.default);
        if let Some(p) = self.paper {
            let _ = write!(s, "; paper: {p}");
        }
        s.push(']');
        s
    }

    /// `--flag VALUE` as the README writes it.
    pub fn usage(&self) -> String {
        match self.kind {
            Kind::Switch => format!("--{}", self.flag),
            _ => format!("--{} {}", self.flag, self.value_name),
        }
    }
}

/// Escapes a cell of a Markdown table.
pub(crate) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_and_named() {
        let tau = Kind::open_closed(0.0, 1.0);
        assert_eq!(tau.parse("0.5"), Ok(Value::Float(0.5)));
        for bad in ["1.5", "0", "-1", "nan", "x"] {
            let e = tau.parse(bad).unwrap_err();
            assert!(e.contains("(0, 1]"), "{e}");
        }
        let bags = Kind::Int { min: 0, max: 1000 };
        assert!(bags.parse("-1").unwrap_err().contains("0..=1000"));
        let w = Kind::Window { auto: true };
        assert_eq!(w.parse("0.2,auto"), Ok(Value::Window(0.2, None)));
        assert!(w.parse("0.9,0.1").is_err());
        assert!(Kind::Window { auto: false }.parse("0.2,auto").is_err());
        assert_eq!(
            Kind::at_least(1).parse("0").unwrap_err(),
            "expected a whole number of 1 or more, got \"0\""
        );
    }
}
