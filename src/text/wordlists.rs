//! Word lists (stopwords, antecedents, lexicons) loaded from `assets/` or a user file.
//! One word per line, `#` starts a comment, words are normalized like tokens.

use rustc_hash::FxHashSet;
use std::path::Path;

/// A set of normalized words.
#[derive(Debug, Clone, Default)]
pub struct WordList {
    words: FxHashSet<String>,
}

impl WordList {
    /// Parses a list: one word per line, blank lines and `#` comments ignored.
    pub fn parse(text: &str) -> Self {
        let words = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
            .collect();
        WordList { words }
    }

    /// Parses a list whose words are grouped by language: a line `# lang: CODE [CODE...]`
    /// starts the words of those languages (the bundled antecedents). Words before the first
    /// such line belong to no language. Returns each language's list.
    pub fn parse_by_language(text: &str) -> std::collections::BTreeMap<String, WordList> {
        let mut out: std::collections::BTreeMap<String, WordList> = Default::default();
        let mut current: Vec<String> = Vec::new();
        let mut section = String::new();
        let mut flush = |langs: &[String], section: &str| {
            let list = Self::parse(section);
            for l in langs {
                out.entry(l.clone())
                    .or_default()
                    .words
                    .extend(list.words.iter().cloned());
            }
        };
        for line in text.lines() {
            if let Some(codes) = line.trim().strip_prefix("# lang:") {
                flush(&current, &section);
                section.clear();
                current = codes
                    .split('(')
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
            } else {
                section.push_str(line);
                section.push('\n');
            }
        }
        flush(&current, &section);
        out
    }

    /// Reads a list from a file, naming the file in the error.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read word list {}: {e}", path.display()))?;
        Ok(Self::parse(&text))
    }

    /// The SMART-like stopword list bundled in `assets/stopwords.txt`.
    pub fn default_stopwords() -> Self {
        Self::parse(include_str!("../../assets/stopwords.txt"))
    }

    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_skips_comments_and_blank_lines() {
        let l = WordList::parse("# header\nThe\n\n  a  # article\ndon’t\n");
        assert_eq!(l.len(), 3);
        assert!(l.contains("the") && l.contains("a") && l.contains("don't"));
    }

    #[test]
    fn lists_by_language_follow_their_headers() {
        let by = WordList::parse_by_language(
            "# intro\nnone\n# lang: en\nThe\n# lang: zh ja (note)\n的\n# lang: en\nis\n",
        );
        assert_eq!(by.keys().collect::<Vec<_>>(), ["en", "ja", "zh"]);
        assert!(by["en"].contains("the") && by["en"].contains("is"));
        assert_eq!(by["en"].len(), 2);
        assert!(by["zh"].contains("的") && by["ja"].contains("的"));
        assert!(!by.values().any(|l| l.contains("none")));
    }

    #[test]
    fn default_stopwords_cover_common_words() {
        let l = WordList::default_stopwords();
        for w in ["the", "and", "of", "is", "don't"] {
            assert!(l.contains(w), "{w}");
        }
    }
}
