//! Adding tokens to a built pipeline as HF's `AddedVocabulary::add_tokens`
//! does (tokenizers 0.23.3), on a copy: the tokenizer itself never changes,
//! so it stays shared across threads without a lock.

use super::Tokenizer;
use crate::added_tokens::{AddedToken, FirstBytes, Matcher};
use crate::normalized_string::NormalizedString;

impl Tokenizer {
    /// A copy with `tokens` added, and how many of them HF counts as added
    /// (not empty, not already there with the same options).
    pub fn with_added_tokens(&self, tokens: &[AddedToken]) -> (Tokenizer, usize) {
        let mut t = self.clone();
        let added = t.add_tokens(tokens);
        (t, added)
    }

    pub(super) fn add_tokens(&mut self, tokens: &[AddedToken]) -> usize {
        let vocab_size = self.config.model.vocab_size() as u32;
        // One next id per call: past the largest added id if that is past the
        // model's vocabulary (or the vocabulary is empty), else the vocabulary's size.
        let mut next_id = match self.added_r.keys().max() {
            Some(&max) if max >= vocab_size || vocab_size == 0 => max + 1,
            _ => vocab_size,
        };
        let mut count = 0;
        for token in tokens {
            if token.content.is_empty() {
                continue;
            }
            if let Some(id) = self.added.get(&token.content) {
                if self.added_r.get(id) == Some(token) {
                    continue;
                }
            }
            count += 1;
            let id = match self.token_to_id(&token.content) {
                Some(id) => id,
                None => {
                    next_id += 1;
                    next_id - 1
                }
            };
            // HF only ever inserts into its normalized-form cache (a stale
            // form stays if the token is re-added with `normalized: false`).
            if token.normalized {
                if let Some(form) = self.normalized_form(&token.content) {
                    self.normalized_forms.insert(id, form);
                }
            }
            self.added.insert(token.content.clone(), id);
            if token.special {
                self.special.insert(token.content.clone());
            }
            self.added_r.insert(id, token.clone());
        }
        self.rebuild_matchers();
        count
    }

    /// The normalizer's output for `content`, if there is a normalizer and it changes it.
    pub(super) fn normalized_form(&self, content: &str) -> Option<String> {
        let n = self.config.normalizer.as_ref()?;
        // a token's content is a few bytes: its allocations cannot fail where anything still runs
        let mut s = NormalizedString::new(content, 0).ok()?;
        n.normalize(&mut s).ok()?;
        let form = s.text().ok()?;
        (form != content).then_some(form)
    }

    /// HF's `refresh_added_tokens`: normalized tokens matched by their cached form.
    /// Where two tokens have one form, HF's pick follows its hash order (it
    /// varies from run to run, measured); here the lowest id wins, always.
    pub(super) fn rebuild_matchers(&mut self) {
        let (mut raw, mut normalized) = (Vec::new(), Vec::new());
        for (id, t) in self.added_tokens() {
            if t.normalized {
                normalized.push((self.normalized_forms.get(&id).unwrap_or(&t.content).clone(), id));
            } else {
                raw.push((t.content.clone(), id));
            }
        }
        self.raw_matcher = Matcher::new(raw);
        self.normalized_matcher = Matcher::new(normalized);
        self.added_first = match self.normalized_matcher.matches_everywhere() {
            // an empty normalized form splits every text (Matcher::empty): no text is skipped
            true => FirstBytes::every_byte(),
            false => FirstBytes::new(self.added_r.values().map(|t| t.content.as_str())),
        };
        if let Some(fast) = &mut self.fast {
            fast.set_added_first_bytes(&self.added_first);
        }
    }

    /// The added tokens by increasing id, as HF serializes them.
    pub fn added_tokens(&self) -> Vec<(u32, &AddedToken)> {
        let mut out: Vec<(u32, &AddedToken)> = self.added_r.iter().map(|(&id, t)| (id, t)).collect();
        out.sort_unstable_by_key(|&(id, _)| id);
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::added_tokens::AddedToken;
    use crate::pipeline::Tokenizer;

    fn token(content: &str, special: bool) -> AddedToken {
        AddedToken { content: content.into(), single_word: false, lstrip: false, rstrip: false, normalized: !special, special }
    }

    #[test]
    fn ids_counts_and_re_adds_as_hf_assigns_them() {
        let json = r#"{"model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"}}"#;
        let t = Tokenizer::from_json(json).unwrap();
        let (t, n) = t.with_added_tokens(&[token("x", false), token("a", true), token("x", false), token("", false)]);
        assert_eq!(n, 2);
        assert_eq!((t.token_to_id("x"), t.token_to_id("a")), (Some(2), Some(0)));
        // Re-added with other options: counted, same id; the special mark stays.
        let (t, n) = t.with_added_tokens(&[token("x", true), token("a", true), token("y", false)]);
        assert_eq!(n, 2);
        assert_eq!((t.token_to_id("x"), t.token_to_id("y")), (Some(2), Some(3)));
        let ids: Vec<u32> = t.added_tokens().iter().map(|&(id, _)| id).collect();
        assert_eq!(ids, vec![0, 2, 3]);
    }

    #[test]
    fn one_normalized_form_for_two_tokens_matches_the_lowest_id() {
        let json = r#"{"normalizer": {"type": "Lowercase"},
                       "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"}}"#;
        let t = Tokenizer::from_json(json).unwrap();
        let (t, _) = t.with_added_tokens(&[token("AB", false), token("Ab", false), token("aB", false)]);
        for _ in 0..20 {
            let (t, _) = t.with_added_tokens(&[token("x", false)]);
            let e = t.encode(&crate::pipeline::Input::Raw("ab"), None, false, &Default::default()).unwrap();
            assert_eq!(e.ids, vec![1]);
        }
    }
}
