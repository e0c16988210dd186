//! Decoders (HF tokenizers' `decoders`): tokens back to text. This slice has ByteLevel.

use crate::pre_tokenizers::byte_level::char_byte;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoder {
    ByteLevel,
}

impl Decoder {
    pub fn decode(&self, tokens: &[String]) -> String {
        match self {
            Decoder::ByteLevel => {
                // A token with any char outside the byte table is taken as its UTF-8 (as HF).
                let mut bytes = Vec::new();
                for t in tokens {
                    match t.chars().map(char_byte).collect::<Option<Vec<u8>>>() {
                        Some(b) => bytes.extend(b),
                        None => bytes.extend_from_slice(t.as_bytes()),
                    }
                }
                String::from_utf8_lossy(&bytes).into_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_round_trip() {
        let toks = ["ĠHello".to_string(), "Ã".into(), "©".into(), "<s>".into()];
        assert_eq!(Decoder::ByteLevel.decode(&toks), " Helloé<s>");
    }
}
