"""BERT's post-processing (`[CLS] a [SEP] b [SEP]`, type ids, special-token
masks) and decoding, as transformers' BertTokenizer and BertTokenizerLegacy."""

from __future__ import annotations

from .call_flags import strict_bool
from .tokens import IdTypeError, _as_id


class PostProcessing:
    """Special-token layout and `decode`."""

    # ------------------------------------------------------- special tokens
    def _cls_sep_ids(self):
        """(cls id, sep id) for `[CLS] a [SEP]`; a ValueError when either token is None or has
        no id (transformers puts None, or the id of a token named "None", into the rows)."""
        cls, sep = self._special_id("cls_token"), self._special_id("sep_token")
        if cls is None or sep is None:
            name = "cls_token" if cls is None else "sep_token"
            token = self._special_tokens_map.get(name)
            problem = "is None" if token is None else \
                f"{str(token)!r} has no id (not in the vocabulary, and the unk_token has no id to stand for it)"
            raise ValueError(f"adding special tokens ([CLS] a [SEP]) needs a {name}, and this tokenizer's {name} "
                             f"{problem}: set one (tok.{name} = ...) or pass add_special_tokens=False")
        return cls, sep

    def build_inputs_with_special_tokens(self, token_ids_0, token_ids_1=None):
        cls, sep = self._cls_sep_ids()
        cls, sep = [cls], [sep]
        if token_ids_1 is None:
            return cls + list(token_ids_0) + sep
        return cls + list(token_ids_0) + sep + list(token_ids_1) + sep

    def get_special_tokens_mask(self, token_ids_0, token_ids_1=None, already_has_special_tokens=False):
        if already_has_special_tokens:
            if token_ids_1 is not None:
                raise ValueError("You should not supply a second sequence if the provided sequence of ids is already "
                                 "formatted with special tokens for the model.")
            special = set(self.all_special_ids)
            return [1 if t in special else 0 for t in token_ids_0]
        if token_ids_1 is None:
            return [1] + [0] * len(token_ids_0) + [1]
        return [1] + [0] * len(token_ids_0) + [1] + [0] * len(token_ids_1) + [1]

    def create_token_type_ids_from_sequences(self, token_ids_0, token_ids_1=None):
        if token_ids_1 is None:
            return [0] * (len(token_ids_0) + 2)
        return [0] * (len(token_ids_0) + 2) + [1] * (len(token_ids_1) + 1)

    def num_special_tokens_to_add(self, pair=False):
        return 3 if pair else 2

    # ------------------------------------------------------------- decoding
    @staticmethod
    def clean_up_tokenization(out_string):
        return (out_string.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" 's", "'s")
                .replace(" 've", "'ve").replace(" 're", "'re"))

    @staticmethod
    def _wordpiece_decode(tokens):
        """tokenizers' WordPiece decoder (prefix "##", cleanup=True), token by token."""
        out = []
        for i, tok in enumerate(tokens):
            if i != 0:
                tok = tok[2:] if tok.startswith("##") else " " + tok
            tok = (tok.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                   .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" do not", " don't")
                   .replace(" 's", "'s").replace(" 've", "'ve").replace(" 're", "'re"))
            out.append(tok)
        return "".join(out)

    def convert_tokens_to_string(self, tokens):
        if self.legacy:
            return " ".join(tokens).replace(" ##", "").strip()
        return self._wordpiece_decode(tokens)

    def decode(self, token_ids, skip_special_tokens=False, clean_up_tokenization_spaces=None, **kwargs):
        if isinstance(token_ids, dict):
            token_ids = token_ids["input_ids"]
        if hasattr(token_ids, "tolist"):
            token_ids = token_ids.tolist()
        if isinstance(token_ids, int):
            token_ids = [token_ids]
        elif isinstance(token_ids, (str, bytes)) or not hasattr(token_ids, "__getitem__"):
            raise IdTypeError(f"decode takes a token id or a sequence of them, got {type(token_ids).__name__}")
        if token_ids and isinstance(token_ids[0], list):
            return self.batch_decode(token_ids, skip_special_tokens, clean_up_tokenization_spaces, **kwargs)
        if self.legacy:
            ids = [_as_id(i, f"token_ids[{k}]") for k, i in enumerate(token_ids)]  # (no float cut to an int)
            tokens = self.convert_ids_to_tokens(ids, skip_special_tokens)
            if None in tokens:  # an unknown id with unk_token None: BertTokenizerLegacy's join fails (TypeError)
                unknown = next(i for i in ids if self._id_to_token(i) is None)
                raise TypeError(f"token id {unknown} is not in the vocabulary and unk_token is None, "
                                f"so it has no string: drop the id or set tok.unk_token")
            text = self.convert_tokens_to_string(tokens)
        else:
            # HF skips a token whose string is a content ever added as special (add_rules.py)
            # HF: an id outside u32 (-100, the label padding) raises, before the flag that is not a bool does
            ids = [self._check_id(i, f"token_ids[{k}]") for k, i in enumerate(token_ids)]
            special = self._special_strings if strict_bool(skip_special_tokens) else ()
            toks = []
            for i in ids:
                t = self._id_to_token(i)
                if t is None or t in special:  # (an unused id is left out)
                    continue
                toks.append(t)
            text = self._wordpiece_decode(toks)
        cleanup = self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None \
            else clean_up_tokenization_spaces
        return self.clean_up_tokenization(text) if cleanup else text

    def batch_decode(self, sequences, skip_special_tokens=False, clean_up_tokenization_spaces=None, **kwargs):
        if hasattr(sequences, "tolist"):
            sequences = sequences.tolist()
        if isinstance(sequences, (list, tuple)) and sequences and isinstance(sequences[0], int):
            return [self.decode(sequences, skip_special_tokens, clean_up_tokenization_spaces, **kwargs)]  # as HF
        return [self.decode(s, skip_special_tokens, clean_up_tokenization_spaces, **kwargs) for s in sequences]

