//! The constructs beyond plain literals that `Split` and `Replace` regexes may
//! use: each means the same to the regex crate as to Oniguruma (Ruby syntax,
//! as tokenizers 0.23.3 runs it), measured on every code point
//! (tests/test_pipeline_regex_classes.py). Shared by
//! [`super::regex_split`] and [`crate::normalizers::replace`].

use regex::{Regex, RegexBuilder};
use regex_syntax::ast::{self, Assertion, AssertionKind, Ast, ClassPerlKind, ClassUnicodeKind};

/// General categories by their two-letter (or one-letter) names: both
/// engines hold Unicode 16's, equal on every code point. Aliases and loose
/// spellings (`\p{lu}`, `\p{Letter}`) are left out: the engines' name
/// matching differs.
const GENERAL_CATEGORIES: &[&str] = &[
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe", "Pi",
    "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cn", "Co",
];

/// `\p{X}` / `\P{X}` (inside classes too).
pub fn unicode_class(u: &ast::ClassUnicode) -> Result<(), String> {
    match &u.kind {
        ClassUnicodeKind::Named(n) if GENERAL_CATEGORIES.contains(&n.as_str()) => Ok(()),
        // Oniguruma (Ruby syntax) reads \pN as the literal "pN" (measured), the regex crate as \p{N}.
        ClassUnicodeKind::OneLetter(_) => Err("\\pX without braces (Oniguruma reads it otherwise)".into()),
        _ => Err(format!(
            "Unicode properties other than the general categories by their short names ({})",
            GENERAL_CATEGORIES.join(" ")
        )),
    }
}

/// `\s` `\d` `\w` and their negations: White_Space and Nd in both; `\w` is
/// rewritten by [`compile`] to Oniguruma's, which differs from the regex
/// crate's on U+200C/U+200D (not word chars) and, outside brackets only, on
/// ¹ ² ³ ¼ ½ ¾ (word chars) — measured on every code point.
pub fn perl_class(p: &ast::ClassPerl) -> Result<(), String> {
    match p.kind {
        ClassPerlKind::Space | ClassPerlKind::Digit | ClassPerlKind::Word => Ok(()),
    }
}

/// Oniguruma's `\w` and `\W`, outside and inside brackets, in the regex
/// crate's syntax (union binds tighter than `--`).
const WORD: &str = r"[\w\x{B2}\x{B3}\x{B9}\x{BC}-\x{BE}--\x{200C}\x{200D}]";
const NOT_WORD: &str = r"[^\w\x{B2}\x{B3}\x{B9}\x{BC}-\x{BE}--\x{200C}\x{200D}]";
const WORD_IN_BRACKETS: &str = r"[\w--\x{200C}\x{200D}]";
const NOT_WORD_IN_BRACKETS: &str = r"[^\w--\x{200C}\x{200D}]";

/// `pattern` with every `\w` / `\W` (in classes too) spelled as Oniguruma's.
fn with_oniguruma_word(pattern: &str) -> Result<String, String> {
    struct Words(Vec<(usize, usize, &'static str)>);
    impl ast::Visitor for Words {
        type Output = Vec<(usize, usize, &'static str)>;
        type Err = ();
        fn finish(self) -> Result<Self::Output, ()> {
            Ok(self.0)
        }
        fn visit_pre(&mut self, a: &Ast) -> Result<(), ()> {
            if let Ast::ClassPerl(p) = a {
                self.note(p, if p.negated { NOT_WORD } else { WORD });
            }
            Ok(())
        }
        fn visit_class_set_item_pre(&mut self, item: &ast::ClassSetItem) -> Result<(), ()> {
            if let ast::ClassSetItem::Perl(p) = item {
                self.note(p, if p.negated { NOT_WORD_IN_BRACKETS } else { WORD_IN_BRACKETS });
            }
            Ok(())
        }
    }
    impl Words {
        fn note(&mut self, p: &ast::ClassPerl, spelled: &'static str) {
            if p.kind == ClassPerlKind::Word {
                self.0.push((p.span.start.offset, p.span.end.offset, spelled));
            }
        }
    }
    let parsed = ast::parse::Parser::new().parse(pattern).map_err(|e| e.to_string())?;
    let mut spans = ast::visit(&parsed, Words(Vec::new())).map_err(|()| "the regex syntax tree walk failed")?;
    spans.sort_unstable();
    let mut out = String::with_capacity(pattern.len() + spans.len() * NOT_WORD.len());
    let mut at = 0;
    for (start, end, spelled) in spans {
        out.push_str(pattern.get(at..start).ok_or("a \\w span off a char boundary")?);
        out.push_str(spelled);
        at = end;
    }
    out.push_str(pattern.get(at..).ok_or("a \\w span off a char boundary")?);
    Ok(out)
}

/// `\A`, `\z`, `$` (before any "\n" or at the end, as compiled by [`compile`])
/// mean the same in both. `^` does too except at the very end of a text that
/// ends in "\n", where Oniguruma does not match it (measured) and the regex
/// crate does: so it is admitted only directly before a construct that
/// consumes a char (`next_consumes`).
pub fn assertion(a: &Assertion, next_consumes: bool) -> Result<(), String> {
    match a.kind {
        AssertionKind::StartText | AssertionKind::EndText | AssertionKind::EndLine => Ok(()),
        AssertionKind::StartLine if next_consumes => Ok(()),
        AssertionKind::StartLine => Err("'^' not directly followed by a char or class".into()),
        _ => Err("word-boundary assertions (\\b \\B)".into()),
    }
}

/// Whether `a` always consumes a char: a literal, a class, `.`, or one of
/// these repeated at least once.
pub fn consumes_a_char(a: &Ast) -> bool {
    use ast::{RepetitionKind, RepetitionRange};
    match a {
        Ast::Literal(_) | Ast::ClassPerl(_) | Ast::ClassUnicode(_) | Ast::ClassBracketed(_) | Ast::Dot(_) => true,
        Ast::Repetition(r) => {
            let at_least_once = match &r.op.kind {
                RepetitionKind::OneOrMore => true,
                RepetitionKind::Range(RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n) | RepetitionRange::Bounded(n, _)) => *n > 0,
                RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore => false,
            };
            at_least_once && consumes_a_char(&r.ast)
        }
        _ => false,
    }
}

/// The regex crate's regex for a checked pattern: `^`/`$` work per line, as
/// in Oniguruma's Ruby syntax; `.` excludes only "\n" in both.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    let pattern = with_oniguruma_word(pattern)?;
    RegexBuilder::new(&pattern).multi_line(true).build().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_work_per_line_as_in_oniguruma() {
        // Measured on tokenizers 0.23.3: Split(Regex(p), "isolated") matches.
        let r = compile(r"a$").unwrap();
        assert_eq!(r.find_iter("a\na\r\na").map(|m| m.start()).collect::<Vec<_>>(), [0, 5]);
        let r = compile(r"\Aa|a\z").unwrap();
        assert_eq!(r.find_iter("aa\na").map(|m| m.start()).collect::<Vec<_>>(), [0, 3]);
        let r = compile(r"^\n").unwrap();
        assert_eq!(r.find_iter("\n\n").count(), 2);
        let consumes = |p: &str| ast::parse::Parser::new().parse(p).map(|a| consumes_a_char(&a)).unwrap_or(false);
        assert!(consumes("a") && consumes(r"\s{2}") && consumes(r"[a-z]+") && !consumes("(?:.)"));
        assert!(!consumes("a?") && !consumes(r"\d{0,3}") && !consumes("a*"));
    }

    #[test]
    fn word_is_oniguruma_s_in_and_out_of_classes() {
        // Measured on tokenizers 0.23.3 over every code point (tests/test_pipeline_regex_classes.py).
        for (pattern, text, matched) in [
            (r"\w", "a²_\u{200C}¾-", "a²_¾"),
            (r"\W", "a²_\u{200C}¾-", "\u{200C}-"),
            (r"[\w-]", "x\u{200D}-¹", "x-"),
            (r"[^\w]", "x\u{200D}-¹", "\u{200D}-¹"),
            (r"[\W]", "x\u{200D}-¹", "\u{200D}-¹"),
        ] {
            let r = compile(pattern).unwrap();
            assert_eq!(r.find_iter(text).map(|m| m.as_str()).collect::<String>(), matched, "{pattern}");
        }
    }

    #[test]
    fn only_short_general_category_names() {
        let parse = |p: &str| match ast::parse::Parser::new().parse(p) {
            Ok(Ast::ClassUnicode(ref u)) => unicode_class(u),
            other => panic!("{other:?}"),
        };
        assert!(parse(r"\p{Lu}").is_ok() && parse(r"\P{Zs}").is_ok());
        assert!(parse(r"\p{Letter}").is_err() && parse(r"\p{Greek}").is_err() && parse(r"\pL").is_err());
    }
}
