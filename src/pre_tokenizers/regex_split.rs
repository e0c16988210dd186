//! `Split` with a `Regex` pattern. HF runs it with Oniguruma; bertpiece runs
//! it with the regex crate, and only for patterns built from constructs whose
//! meaning is the same in both engines: literals, groups without flags or
//! names, alternation, repetition, bracketed classes, `\s`/`\S` (both
//! White_Space), `\p{L}`/`\p{N}` and their negations (both Unicode 16's,
//! measured on every code point). For such patterns the regex crate's
//! leftmost-first matches are the ones a backtracking engine finds. Anything
//! else (lookaround, `(?i)` and other flags, `.`, anchors, `\w`, `\d`, `\b`,
//! other properties, escapes that differ, patterns that can match the empty
//! string) is refused with [`Error::Unsupported`] naming the construct.

use super::split::{regex_matches, split, Behavior};
use crate::normalized_string::NormalizedString;
use crate::{Error, Result};
use regex::Regex;
use regex_syntax::ast::{self, Ast, ClassSet, ClassSetItem, ClassUnicodeKind, GroupKind, LiteralKind, SpecialLiteralKind};

#[derive(Clone, Debug)]
pub struct RegexSplit {
    pub pattern: String,
    regex: Regex,
    pub behavior: Behavior,
    pub invert: bool,
}

impl PartialEq for RegexSplit {
    fn eq(&self, other: &Self) -> bool {
        (&self.pattern, self.behavior, self.invert) == (&other.pattern, other.behavior, other.invert)
    }
}

impl Eq for RegexSplit {}

impl RegexSplit {
    /// `path` names the pattern's field in errors.
    pub fn new(path: &str, pattern: &str, behavior: Behavior, invert: bool) -> Result<RegexSplit> {
        let refuse = |why: &str| {
            Error::Unsupported(format!(
                "{path}: unsupported regex {pattern:?}: {why} (bertpiece runs only regexes whose meaning it can guarantee \
                 equal to Oniguruma's; see docs/pipeline.md)"
            ))
        };
        let parsed = ast::parse::Parser::new().parse(pattern).map_err(|e| refuse(&format!("{}", e.kind())))?;
        check(&parsed).map_err(|why| refuse(&why))?;
        let hir = regex_syntax::hir::translate::Translator::new().translate(pattern, &parsed).map_err(|e| refuse(&format!("{}", e.kind())))?;
        if hir.properties().minimum_len() == Some(0) {
            return Err(refuse("it can match the empty string"));
        }
        let regex = Regex::new(pattern).map_err(|e| refuse(&e.to_string()))?;
        Ok(RegexSplit { pattern: pattern.to_string(), regex, behavior, invert })
    }

    pub fn pre_tokenize(&self, s: NormalizedString, out: &mut Vec<NormalizedString>) {
        split(&s, regex_matches(&s.chars, &self.regex, self.invert), self.behavior, out);
    }
}

/// Ok if every construct of `a` means the same in Oniguruma; else what does not.
fn check(a: &Ast) -> std::result::Result<(), String> {
    match a {
        Ast::Empty(_) => Ok(()),
        Ast::Literal(l) => literal(l),
        Ast::ClassPerl(p) => perl(p),
        Ast::ClassUnicode(u) => unicode(u),
        Ast::ClassBracketed(b) => class_set(&b.kind),
        Ast::Repetition(r) => check(&r.ast),
        Ast::Group(g) => match &g.kind {
            GroupKind::CaptureIndex(_) => check(&g.ast),
            GroupKind::NonCapturing(flags) if flags.items.is_empty() => check(&g.ast),
            GroupKind::NonCapturing(_) => Err("inline flags such as (?i:...)".into()),
            GroupKind::CaptureName { .. } => Err("named groups".into()),
        },
        Ast::Alternation(x) => x.asts.iter().try_for_each(check),
        Ast::Concat(x) => x.asts.iter().try_for_each(check),
        Ast::Flags(_) => Err("inline flags such as (?i)".into()),
        Ast::Dot(_) => Err("'.'".into()),
        Ast::Assertion(_) => Err("anchors and lookaround-like assertions (^ $ \\b \\A \\z)".into()),
    }
}

fn literal(l: &ast::Literal) -> std::result::Result<(), String> {
    match l.kind {
        LiteralKind::Verbatim | LiteralKind::Meta => Ok(()),
        LiteralKind::Special(SpecialLiteralKind::Space) => Err("escaped space".into()),
        LiteralKind::Special(_) => Ok(()),
        // Oniguruma reads \xHH above 7F as a raw UTF-8 byte, the regex crate as a code point.
        LiteralKind::HexFixed(ast::HexLiteralKind::X) if (l.c as u32) < 0x80 => Ok(()),
        _ => Err(format!("the escape for {:?}", l.c)),
    }
}

fn perl(p: &ast::ClassPerl) -> std::result::Result<(), String> {
    match p.kind {
        ast::ClassPerlKind::Space => Ok(()),
        ast::ClassPerlKind::Digit => Err("\\d (its classes differ between engines)".into()),
        ast::ClassPerlKind::Word => Err("\\w (its classes differ between engines)".into()),
    }
}

fn unicode(u: &ast::ClassUnicode) -> std::result::Result<(), String> {
    match &u.kind {
        ClassUnicodeKind::Named(n) if n == "L" || n == "N" => Ok(()),
        // Oniguruma (Ruby syntax) reads \pN as the literal "pN" (measured), the regex crate as \p{N}.
        ClassUnicodeKind::OneLetter(_) => Err("\\pX without braces (Oniguruma reads it otherwise)".into()),
        _ => Err("Unicode properties other than \\p{L} and \\p{N}".into()),
    }
}

fn class_set(set: &ClassSet) -> std::result::Result<(), String> {
    match set {
        ClassSet::Item(item) => class_item(item),
        ClassSet::BinaryOp(_) => Err("class set operations (&&, --, ~~)".into()),
    }
}

fn class_item(item: &ClassSetItem) -> std::result::Result<(), String> {
    match item {
        ClassSetItem::Empty(_) => Ok(()),
        // A leading unescaped ']' is a literal to the regex crate; Oniguruma's reading is not guaranteed.
        ClassSetItem::Literal(l) if l.kind == LiteralKind::Verbatim && l.c == ']' => Err("an unescaped ']' in a class".into()),
        ClassSetItem::Literal(l) => literal(l),
        ClassSetItem::Range(r) => literal(&r.start).and_then(|()| literal(&r.end)),
        ClassSetItem::Ascii(_) => Err("POSIX classes such as [[:alpha:]]".into()),
        ClassSetItem::Unicode(u) => unicode(u),
        ClassSetItem::Perl(p) => perl(p),
        ClassSetItem::Bracketed(b) => class_set(&b.kind),
        ClassSetItem::Union(u) => u.items.iter().try_for_each(class_item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIP: &str = r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+";

    fn words(pattern: &str, behavior: Behavior, text: &str) -> Vec<(String, (usize, usize))> {
        let r = RegexSplit::new("pattern.Regex", pattern, behavior, false).unwrap();
        let mut out = Vec::new();
        r.pre_tokenize(NormalizedString::new(text, 0), &mut out);
        out.iter().map(|p| (p.text(), p.original_span(0..p.len()).unwrap_or((0, 0)))).collect()
    }

    #[test]
    fn clips_pattern() {
        // Measured: pre_tokenizers.Split(Regex(CLIP), "isolated")
        // .pre_tokenize_str("it's 12 x!") on tokenizers 0.23.3.
        let got = words(CLIP, Behavior::Isolated, "it's 12 x!");
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["it", "'s", " ", "1", "2", " ", "x", "!"]);
    }

    #[test]
    fn refuses_what_it_cannot_guarantee() {
        for (p, why) in [
            (r"\s+(?!\S)|\s+", "look-around"),
            (r"(?i:'s|'t)", "inline flags"),
            (r"\w+", "\\w"),
            (r"^a", "anchors"),
            (r"a.", "'.'"),
            (r"\p{Greek}", "Unicode properties"),
            (r"a*", "empty string"),
            (r"(?P<x>a)", "named groups"),
            (r"\xE9", "escape"),
            (r"[[:alpha:]]", "POSIX"),
            (r"[]a]", "unescaped ']'"),
            (r"\pN", "without braces"),
        ] {
            match RegexSplit::new("p", p, Behavior::Removed, false) {
                Err(Error::Unsupported(m)) => assert!(m.contains(why) && m.starts_with("p: unsupported regex"), "{p}: {m}"),
                other => panic!("{p}: {other:?}"),
            }
        }
    }
}
