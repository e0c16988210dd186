//! The Strip decoder: up to `start` leading and `stop` trailing `content`
//! chars removed from each token (HF's `decoders::Strip`).

/// The part of `token` kept. Where HF panics (stripping from both ends
/// crosses, or `stop` runs past the start of the token) it is empty.
pub fn strip(token: &str, content: char, start: usize, stop: usize) -> &str {
    let lead: usize = token.chars().take(start).take_while(|&c| c == content).map(char::len_utf8).sum();
    let trail: usize = token.chars().rev().take(stop).take_while(|&c| c == content).map(char::len_utf8).sum();
    token.get(lead..token.len() - trail).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HF's cut, by char counts (the reference this follows).
    fn by_chars(token: &str, content: char, start: usize, stop: usize) -> String {
        let chars: Vec<char> = token.chars().collect();
        let start_cut = chars.iter().take(start).take_while(|&&c| c == content).count();
        let stop_cut = chars.len() - chars.iter().rev().take(stop).take_while(|&&c| c == content).count();
        chars.get(start_cut..stop_cut.max(start_cut)).map(|c| c.iter().collect()).unwrap_or_default()
    }

    #[test]
    fn strips_each_end() {
        assert_eq!(strip("  ab  ", ' ', 1, 5), " ab");
        assert_eq!(strip("ab", ' ', 0, 5), "ab");
        assert_eq!(strip("▁", '▁', 1, 1), "");
        for t in ["", "▁", "▁▁", "▁a▁", "▁▁a▁▁", "a", "▁é▁▁", "▁▁▁"] {
            for (start, stop) in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 2), (3, 5)] {
                assert_eq!(strip(t, '▁', start, stop), by_chars(t, '▁', start, stop), "{t:?} {start} {stop}");
            }
        }
    }
}
