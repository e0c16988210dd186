//! The Strip decoder: up to `start` leading and `stop` trailing `content`
//! chars removed from each token (HF's `decoders::Strip`).

/// Where HF panics (stripping from both ends crosses, or `stop` runs past
/// the start of the token) the token becomes empty.
pub fn strip(token: &str, content: char, start: usize, stop: usize) -> String {
    let chars: Vec<char> = token.chars().collect();
    let start_cut = chars.iter().take(start).take_while(|&&c| c == content).count();
    let stop_cut = chars.len() - chars.iter().rev().take(stop).take_while(|&&c| c == content).count();
    chars.get(start_cut..stop_cut.max(start_cut)).map(|c| c.iter().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_each_end() {
        assert_eq!(strip("  ab  ", ' ', 1, 5), " ab");
        assert_eq!(strip("ab", ' ', 0, 5), "ab");
        assert_eq!(strip("▁", '▁', 1, 1), "");
    }
}
