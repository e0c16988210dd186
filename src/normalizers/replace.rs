//! HF's Replace normalizer: every match of a literal string or a regex is
//! replaced by `content`, each char of which takes the span of the match's
//! last char (HF inserts them after the removed match).
//!
//! HF matches with Oniguruma; this uses the `regex` crate, which finds the same
//! leftmost-first matches for the subset [`check_regex`] admits: literals,
//! bracket classes, groups, alternation, repetition, and the classes and
//! anchors of [`crate::pre_tokenizers::onig_subset`] (`.`, `\s`, `\d`, general
//! categories, `\A`, `\z`, `$`, `^` before a char; so the SpmConverter's
//! `\A +| +\z` and `\A▁`). Anything else (`\w`, other properties, flags, hex
//! escapes, look-around, patterns that can match the empty string) is refused,
//! as the two engines' meanings or Unicode tables could differ.

use crate::normalized_string::NormalizedString;
use crate::room::{ensure_text_room, make_room, push_text};
use crate::pre_tokenizers::onig_subset::{assertion, compile, consumes_a_char, perl_class, unicode_class};
use regex::Regex;
use regex_syntax::ast::{self, Ast, ClassSet, ClassSetItem, GroupKind, LiteralKind};

#[derive(Clone, Debug)]
pub struct Replace {
    regex: Regex,
    pub content: String,
    /// The pattern is the regex ` {2,}` (sentencepiece converters' space-run collapse).
    pub space_runs: bool,
}

impl Replace {
    /// `Err` says why the pattern is not supported.
    pub fn literal(pattern: &str, content: &str) -> Result<Replace, String> {
        if pattern.is_empty() {
            return Err("an empty pattern (it matches between every two chars)".into());
        }
        let regex = Regex::new(&regex::escape(pattern)).map_err(|e| e.to_string())?;
        Ok(Replace { regex, content: content.to_string(), space_runs: false })
    }

    pub fn regex(pattern: &str, content: &str) -> Result<Replace, String> {
        check_regex(pattern)?;
        let regex = compile(pattern)?;
        Ok(Replace { regex, content: content.to_string(), space_runs: pattern == " {2,}" })
    }

    /// Whether normalizing `text` would change it (the pattern matches in it).
    pub fn changes(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The text `normalize` makes of `text`, without spans (for ids-only paths).
    /// Made fallibly (a text can be as large as memory); borrowed when nothing matches.
    pub fn replace_text<'t>(&self, text: &'t str) -> crate::Result<std::borrow::Cow<'t, str>> {
        const WHAT: &str = "normalized text";
        let mut matches = self.matches(text).peekable();
        if matches.peek().is_none() {
            return Ok(std::borrow::Cow::Borrowed(text));
        }
        let mut out = String::new();
        ensure_text_room(&mut out, text.len(), WHAT)?;
        let mut last = 0;
        for (start, end) in matches {
            push_text(&mut out, &text[last..start], WHAT)?;
            push_text(&mut out, &self.content, WHAT)?;
            last = end;
        }
        push_text(&mut out, &text[last..], WHAT)?;
        Ok(std::borrow::Cow::Owned(out))
    }

    /// The byte ranges the pattern matches in `text`, left to right, never overlapping nor empty.
    pub fn matches<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.regex.find_iter(text).map(|m| (m.start(), m.end()))
    }

    pub fn normalize(&self, s: &mut NormalizedString) -> crate::Result<()> {
        const WHAT: &str = "normalized text";
        let text = s.text()?;
        if !self.regex.is_match(&text) {
            return Ok(());
        }
        let mut char_at = Vec::new(); // byte offset -> char index
        make_room(&mut char_at, text.len() + 1, WHAT)?;
        for (i, c) in text.chars().enumerate() {
            char_at.extend(std::iter::repeat_n(i, c.len_utf8()));
        }
        char_at.push(s.len());
        let (mut chars, mut spans) = (Vec::new(), Vec::new());
        let content = self.content.chars().count();
        let mut last = 0;
        for m in self.regex.find_iter(&text) {
            let (start, end) = (char_at[m.start()], char_at[m.end()]);
            make_room(&mut chars, start - last + content, WHAT)?;
            make_room(&mut spans, start - last + content, WHAT)?;
            chars.extend_from_slice(&s.chars[last..start]);
            spans.extend_from_slice(&s.spans[last..start]);
            // Matches are never empty (checked when built), so `end >= 1`.
            let span = s.spans.get(end.wrapping_sub(1)).copied().unwrap_or((s.origin, s.origin));
            for c in self.content.chars() {
                chars.push(c);
                spans.push(span);
            }
            last = end;
        }
        make_room(&mut chars, s.len() - last, WHAT)?;
        make_room(&mut spans, s.len() - last, WHAT)?;
        chars.extend_from_slice(&s.chars[last..]);
        spans.extend_from_slice(&s.spans[last..]);
        s.chars = chars;
        s.spans = spans;
        Ok(())
    }
}

/// Whether `pattern` is in the subset where `regex` and Oniguruma agree; `Err` names what is not.
pub fn check_regex(pattern: &str) -> Result<(), String> {
    let parsed = ast::parse::Parser::new().parse(pattern).map_err(|e| format!("cannot parse it ({})", e.kind()))?;
    check_ast(&parsed)?;
    let hir = regex_syntax::Parser::new().parse(pattern).map_err(|e| format!("cannot parse it ({e})"))?;
    if hir.properties().minimum_len() == Some(0) {
        return Err("it can match the empty string".into());
    }
    Ok(())
}

fn check_literal(l: &ast::Literal) -> Result<(), String> {
    match l.kind {
        // Braces Rust reads as literals might be a quantifier to Oniguruma.
        LiteralKind::Verbatim if matches!(l.c, '{' | '}' | '[' | ']') => Err(format!("a bare {:?}", l.c)),
        LiteralKind::Verbatim | LiteralKind::Meta | LiteralKind::Superfluous => Ok(()),
        LiteralKind::Special(_) => Ok(()),
        _ => Err("an octal or hex escape".into()),
    }
}

fn check_class_item(item: &ClassSetItem) -> Result<(), String> {
    match item {
        ClassSetItem::Empty(_) => Ok(()),
        ClassSetItem::Literal(l) => check_literal(l),
        ClassSetItem::Range(r) => check_literal(&r.start).and(check_literal(&r.end)),
        ClassSetItem::Perl(p) => perl_class(p),
        ClassSetItem::Unicode(u) => unicode_class(u),
        ClassSetItem::Union(u) => u.items.iter().try_for_each(check_class_item),
        ClassSetItem::Bracketed(b) => match &b.kind {
            ClassSet::Item(item) => check_class_item(item),
            ClassSet::BinaryOp(_) => Err("a class set operation".into()),
        },
        ClassSetItem::Ascii(_) => Err("POSIX classes such as [[:alpha:]]".into()),
    }
}

fn check_ast(a: &Ast) -> Result<(), String> {
    match a {
        Ast::Empty(_) => Ok(()),
        Ast::Literal(l) => check_literal(l),
        Ast::ClassPerl(p) => perl_class(p),
        Ast::ClassUnicode(u) => unicode_class(u),
        Ast::ClassBracketed(c) => match &c.kind {
            ClassSet::Item(item) => check_class_item(item),
            ClassSet::BinaryOp(_) => Err("a class set operation".into()),
        },
        Ast::Repetition(r) => match &*r.ast {
            // `x*+` is possessive in Oniguruma.
            Ast::Repetition(_) => Err("a repeated repetition".into()),
            Ast::Assertion(_) => Err("a repeated anchor".into()),
            inner => check_ast(inner),
        },
        Ast::Group(g) => match &g.kind {
            GroupKind::CaptureIndex(_) => check_ast(&g.ast),
            GroupKind::NonCapturing(flags) if flags.items.is_empty() => check_ast(&g.ast),
            _ => Err("a named group or flags".into()),
        },
        Ast::Alternation(alt) => alt.asts.iter().try_for_each(check_ast),
        Ast::Concat(c) => c.asts.iter().enumerate().try_for_each(|(i, a)| match a {
            Ast::Assertion(s) => assertion(s, c.asts.get(i + 1).is_some_and(consumes_a_char)),
            _ => check_ast(a),
        }),
        Ast::Flags(_) => Err("flags".into()),
        Ast::Dot(_) => Ok(()),
        Ast::Assertion(s) => assertion(s, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_takes_the_span_of_the_last_matched_char() {
        let mut s = NormalizedString::new("a   b", 0).unwrap();
        Replace::regex(" {2,}", "_-").unwrap().normalize(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("a_-b".to_string(), vec![(0, 1), (3, 4), (3, 4), (4, 5)]));
        let mut t = NormalizedString::new("x y", 0).unwrap();
        Replace::literal(" ", "").unwrap().normalize(&mut t).unwrap();
        assert_eq!((t.text().unwrap(), t.spans.clone()), ("xy".to_string(), vec![(0, 1), (2, 3)]));
    }

    #[test]
    fn refuses_what_oniguruma_may_read_differently() {
        for p in ["\\n^", "\\p{Greek}", "(?i)a", "a*", "a|", "x{", "\\x41", "[[:alpha:]]", "(?P<n>a)", "[a&&b]", "\\b"] {
            assert!(Replace::regex(p, "").is_err(), "{p}");
        }
        for p in [" {2,}", "\\s+", "[ \\t]+", "(ab|c)+?", "[^\\s]x", "\\.", "\\A +| +\\z", "\\A▁", "^a.", "\\d$", "[\\p{Lu}\\P{N}]", "\\w+", "[^\\w-]"] {
            assert!(Replace::regex(p, "").is_ok(), "{p}");
        }
        assert!(Replace::literal("", "x").is_err());
    }
}
