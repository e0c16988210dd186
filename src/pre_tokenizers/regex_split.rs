//! `Split` with a `Regex` pattern. HF runs it with Oniguruma; bertpiece runs
//! it with the regex crate, and only for patterns built from constructs whose
//! meaning is the same in both engines: literals, groups without flags or
//! names, alternation, repetition, bracketed classes, `.`, `\s` `\d`, `\w`
//! (spelled as Oniguruma's), the general categories `\p{Lu}` ... and the
//! anchors of [`super::onig_subset`] (each measured on every code point). For such patterns the regex crate's
//! leftmost-first matches are the ones a backtracking engine finds. Anything
//! else (lookaround, `(?i)` and other flags, `\b`, other properties,
//! escapes that differ, patterns that can match the empty string) is refused
//! with [`Error::Unsupported`] naming the construct.

use super::onig_subset::{assertion, compile, consumes_a_char, perl_class, unicode_class};
use super::split::{regex_matches, split, Behavior, WHAT};
use crate::room::{chars_text, try_push, zeroed};
use crate::normalized_string::NormalizedString;
use crate::{Error, Result};
use regex::Regex;
use regex_syntax::ast::{self, Ast, ClassSet, ClassSetItem, GroupKind, LiteralKind, SpecialLiteralKind};

#[derive(Clone, Debug)]
pub struct RegexSplit {
    pub pattern: String,
    /// The pattern, less [`SPACE_TAIL`] when it ends with it.
    regex: Regex,
    /// Whether the pattern ends with [`SPACE_TAIL`] (done by hand: the regex crate has no lookahead).
    space_tail: bool,
    pub behavior: Behavior,
    pub invert: bool,
}

impl PartialEq for RegexSplit {
    fn eq(&self, other: &Self) -> bool {
        (&self.pattern, self.behavior, self.invert) == (&other.pattern, other.behavior, other.invert)
    }
}

impl Eq for RegexSplit {}

/// GPT-2's, Llama-3's, Qwen's ... last two alternatives: a whitespace run not
/// followed by a non-space char, else any whitespace run.
pub const SPACE_TAIL: &str = r"|\s+(?!\S)|\s+";

impl RegexSplit {
    /// `path` names the pattern's field in errors.
    pub fn new(path: &str, pattern: &str, behavior: Behavior, invert: bool) -> Result<RegexSplit> {
        let refuse = |why: &str| {
            Error::Unsupported(format!(
                "{path}: unsupported regex {pattern:?}: {why} (bertpiece runs only regexes whose meaning it can guarantee \
                 equal to Oniguruma's; see docs/pipeline.md)"
            ))
        };
        let (head, space_tail) = match pattern.strip_suffix(SPACE_TAIL) {
            Some(head) if !head.is_empty() => (head, true),
            _ => (pattern, false),
        };
        let parsed = ast::parse::Parser::new().parse(head).map_err(|e| refuse(&format!("{}", e.kind())))?;
        check(&parsed, false).map_err(|why| refuse(&why))?;
        let hir = regex_syntax::hir::translate::Translator::new().translate(head, &parsed).map_err(|e| refuse(&format!("{}", e.kind())))?;
        if hir.properties().minimum_len() == Some(0) {
            return Err(refuse("it can match the empty string"));
        }
        let regex = compile(head).map_err(|e| refuse(&e))?;
        Ok(RegexSplit { pattern: pattern.to_string(), regex, space_tail, behavior, invert })
    }

    pub fn pre_tokenize(&self, s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
        let matches = if self.space_tail {
            space_tail_matches(&s.chars, &self.regex, self.invert)?
        } else {
            regex_matches(&s.chars, &self.regex, self.invert)?
        };
        split(&s, matches, self.behavior, out)
    }
}

/// The matches of `head` + [`SPACE_TAIL`], as a backtracking engine finds
/// them: at each position `head` is tried first; failing that, a whitespace
/// run is matched whole if it ends the text or is one char long, else all but
/// its last char (which `(?!\S)` leaves to the next word).
fn space_tail_matches(chars: &[char], head: &Regex, invert: bool) -> Result<Vec<(std::ops::Range<usize>, bool)>> {
    let text = chars_text(chars, WHAT)?;
    let mut char_at = zeroed::<usize>(text.len() + 1, WHAT)?;
    for (ci, (bi, _)) in text.char_indices().enumerate() {
        char_at[bi] = ci;
    }
    char_at[text.len()] = chars.len();
    let mut found = Vec::new(); // byte ranges of the matches
    let mut pos = 0;
    while pos < text.len() {
        let m = head.find_at(&text, pos).map(|m| (m.start(), m.end()));
        let space = text[pos..].char_indices().find(|&(_, c)| c.is_whitespace()).map(|(i, _)| pos + i);
        let (start, end) = match (m, space) {
            (Some((ms, me)), Some(w)) if ms <= w => (ms, me),
            (Some(m), None) => m,
            (_, Some(w)) => {
                let run = text[w..].char_indices().find(|&(_, c)| !c.is_whitespace()).map_or(text.len(), |(i, _)| w + i);
                let last = text[w..run].chars().next_back().map_or(0, char::len_utf8);
                if run == text.len() || run - w == last { (w, run) } else { (w, run - last) }
            }
            (None, None) => break,
        };
        try_push(&mut found, (start, end), WHAT)?;
        pos = end;
    }
    let mut out = Vec::new();
    crate::room::make_room(&mut out, found.len() * 2 + 1, WHAT)?;
    let mut prev = 0;
    for (start, end) in found {
        if prev != start {
            out.push((char_at[prev]..char_at[start], invert));
        }
        out.push((char_at[start]..char_at[end], !invert));
        prev = end;
    }
    if prev != text.len() {
        out.push((char_at[prev]..chars.len(), invert));
    }
    Ok(out)
}

/// Ok if every construct of `a` means the same in Oniguruma; else what does
/// not. Inside `(?i:...)` (`icase`) only ASCII literals, alternation and
/// plain groups are accepted, and no pair of letters Oniguruma also matches
/// as one char (ss ß, st ﬆ, ff ﬀ, fi ﬁ, fl ﬂ): then both engines fold the
/// same way (measured: k also matches U+212A, s also U+017F, in both).
fn check(a: &Ast, icase: bool) -> std::result::Result<(), String> {
    const ICASE_ONLY: &str = "inside (?i:...) anything but ASCII literals";
    match a {
        Ast::Empty(_) => Ok(()),
        Ast::Literal(l) if icase && !l.c.is_ascii() => Err(ICASE_ONLY.into()),
        Ast::Literal(l) => literal(l),
        Ast::ClassPerl(_) | Ast::ClassUnicode(_) | Ast::ClassBracketed(_) | Ast::Repetition(_) | Ast::Dot(_) | Ast::Assertion(_)
            if icase =>
        {
            Err(ICASE_ONLY.into())
        }
        Ast::ClassPerl(p) => perl_class(p),
        Ast::ClassUnicode(u) => unicode_class(u),
        Ast::ClassBracketed(b) => class_set(&b.kind),
        Ast::Repetition(r) if matches!(*r.ast, Ast::Assertion(_)) => Err("a repeated anchor".into()),
        // `a?+`, `a++`, `a*+` are possessive to Oniguruma, a repeated repetition to the regex crate.
        Ast::Repetition(r) if matches!(*r.ast, Ast::Repetition(_)) => {
            Err("a repetition of a repetition (a?+ a++ a*+ are possessive in Oniguruma)".into())
        }
        Ast::Repetition(r) => check(&r.ast, icase),
        Ast::Group(g) => match &g.kind {
            GroupKind::CaptureIndex(_) => check(&g.ast, icase),
            GroupKind::NonCapturing(flags) if flags.items.is_empty() => check(&g.ast, icase),
            GroupKind::NonCapturing(flags)
                if matches!(flags.items.as_slice(), [ast::FlagsItem { kind: ast::FlagsItemKind::Flag(ast::Flag::CaseInsensitive), .. }]) =>
            {
                check(&g.ast, true)
            }
            GroupKind::NonCapturing(_) => Err("inline flags other than (?i:...)".into()),
            GroupKind::CaptureName { .. } => Err("named groups".into()),
        },
        Ast::Alternation(x) => x.asts.iter().try_for_each(|a| check(a, icase)),
        Ast::Concat(x) => {
            if icase {
                let folded = x.asts.windows(2).any(|w| match (&w[0], &w[1]) {
                    (Ast::Literal(a), Ast::Literal(b)) => {
                        let pair = [a.c.to_ascii_lowercase(), b.c.to_ascii_lowercase()];
                        matches!(pair, ['s', 's'] | ['s', 't'] | ['f', 'f'] | ['f', 'i'] | ['f', 'l'])
                    }
                    _ => false,
                });
                if folded {
                    return Err("inside (?i:...) a letter pair one char also matches (ss, st, ff, fi, fl)".into());
                }
            }
            x.asts.iter().enumerate().try_for_each(|(i, a)| match a {
                Ast::Assertion(s) => assertion(s, x.asts.get(i + 1).is_some_and(consumes_a_char)),
                _ => check(a, icase),
            })
        }
        Ast::Flags(_) => Err("inline flags such as (?i)".into()),
        Ast::Dot(_) => Ok(()),
        Ast::Assertion(s) => assertion(s, false),
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
        ClassSetItem::Unicode(u) => unicode_class(u),
        ClassSetItem::Perl(p) => perl_class(p),
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
        r.pre_tokenize(NormalizedString::new(text, 0).unwrap(), &mut out).unwrap();
        out.iter().map(|p| (p.text().unwrap(), p.original_span(0..p.len()).unwrap_or((0, 0)))).collect()
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
    fn gpt2s_pattern_with_its_space_tail() {
        // Measured: pre_tokenizers.Split(Regex(GPT2), "isolated").pre_tokenize_str(...) on tokenizers 0.23.3.
        let gpt2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
        let got = words(gpt2, Behavior::Isolated, "a   b\t\tc  ");
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["a", "  ", " b", "\t", "\t", "c", "  "]);
        let llama = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
        let got = words(llama, Behavior::Isolated, "I'LL pay 12345 \n\n x");
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["I", "'LL", " pay", " ", "123", "45", " \n\n", " x"]);
    }

    #[test]
    fn refuses_what_it_cannot_guarantee() {
        for (p, why) in [
            (r"\s+(?!\S)", "look-around"),
            (r"a|\s+(?!\S)|\s+|b", "look-around"),
            (r"(?i)'s", "inline flags such as (?i)"),
            (r"(?m:'s|'t)", "inline flags other than"),
            (r"(?i:'s|[a-z])", "inside (?i:...)"),
            (r"(?i:'st)", "letter pair"),
            (r"a\n^", "'^' not directly followed"),
            (r"\ba", "word-boundary"),
            (r"(?i:a.)", "inside (?i:...)"),
            (r"\p{Greek}", "Unicode properties"),
            (r"\p{Letter}", "short names"),
            (r"a?+a", "possessive"),
            (r"[^\r\n]++x", "possessive"),
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
