"""The public members each reference class has and bertpiece's class lacked, by mode
(transformers is installed whenever this is imported).

- `reference="transformers"`: `BertTokenizerLegacy`'s (a `PythonBackend`): `prepare_for_model`,
  `truncate_sequences` and `prepare_for_tokenization` are transformers' own functions (they call
  this object's `build_inputs_with_special_tokens`, `create_token_type_ids_from_sequences`,
  `get_special_tokens_mask`, `num_special_tokens_to_add` and `pad`, which give
  `BertTokenizerLegacy`'s values), and `basic_tokenizer`, `wordpiece_tokenizer` and
  `tokens_trie` are transformers' own objects made from this tokenizer's settings on each access
  (reading them works; changing them does not change the tokenizer).
- the tokenizers and google modes: transformers 5's `BertTokenizer` (a `TokenizersBackend`):
  `model` (the HF model class), `can_save_slow_tokenizer`, `decoder` (the HF decoder of
  `backend_tokenizer`, itself made on each access).

Each set is absent in the other mode, as in the other reference class.
"""

from __future__ import annotations

import collections

from transformers.models.bert.tokenization_bert_legacy import BasicTokenizer, WordpieceTokenizer
from transformers.tokenization_python import PythonBackend, Trie


class LegacyMembers:
    """`BertTokenizerLegacy`'s members (legacy mode only)."""

    prepare_for_model = PythonBackend.prepare_for_model
    truncate_sequences = PythonBackend.truncate_sequences
    prepare_for_tokenization = PythonBackend.prepare_for_tokenization
    # PythonBackend's layout switches, at BertTokenizerLegacy's values (they describe this
    # tokenizer's layout; assigning them does not change it).
    special_tokens_pattern = None
    token_type_ids_pattern = "bert_style"
    token_type_ids_include_special_tokens = True

    @property
    def total_vocab_size(self):
        return len(self.get_vocab())

    @property
    def ids_to_tokens(self):
        return collections.OrderedDict((i, t) for t, i in self._vocab.items())

    @property
    def basic_tokenizer(self):
        if not self.do_basic_tokenize:  # BertTokenizerLegacy makes none then
            raise AttributeError(f"{type(self).__name__} has no attribute basic_tokenizer")
        return BasicTokenizer(do_lower_case=self.do_lower_case, never_split=self.never_split,
                              tokenize_chinese_chars=self.tokenize_chinese_chars, strip_accents=self.strip_accents)

    @property
    def wordpiece_tokenizer(self):
        return WordpieceTokenizer(vocab=collections.OrderedDict(self._vocab), unk_token=str(self.unk_token),
                                  max_input_chars_per_word=self.max_input_chars_per_word)

    @property
    def tokens_trie(self):
        trie = Trie()  # PythonBackend._update_trie: every added token's content, in id order
        for token in self.added_tokens_decoder.values():
            if token.content not in trie._tokens:
                trie.add(token.content)
        return trie


LEGACY_ONLY = frozenset(name for name in vars(LegacyMembers) if not name.startswith("_"))


def backend_members():
    """Members of transformers 5's `BertTokenizer` for the tokenizers-mode class."""
    from tokenizers.models import WordPiece
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    return {
        "model": WordPiece,  # transformers' BertTokenizer.model: the HF model class
        "can_save_slow_tokenizer": TokenizersBackend.can_save_slow_tokenizer,
        "decoder": property(lambda self: self.backend_tokenizer.decoder, doc="The HF decoder of `backend_tokenizer`."),
    }
