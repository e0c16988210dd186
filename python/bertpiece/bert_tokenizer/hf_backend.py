"""What transformers' tokenizers-backed `BertTokenizer` offers beyond
encoding, for the modes that follow it ("tokenizers", "google"):

- `backend_tokenizer`: an HF tokenizers `Tokenizer` equal to this one (built
  from the same tokenizer.json that `save_pretrained` writes), for code that
  reads its normalizer or pre-tokenizer. It is a copy made on each access:
  changing it does not change this tokenizer.
- `train_new_from_iterator`: a new tokenizer with the same settings and a
  vocabulary trained on your texts by bertpiece's trainer with
  `algorithm="hf"` (HF tokenizers' WordPieceTrainer, as transformers uses).
"""

from __future__ import annotations

import json


class HfBackendExtras:
    add_prefix_space = False  # transformers keeps the argument; BERT's pre-tokenizer has no use for it

    @property
    def backend_tokenizer(self):
        if self.legacy:
            raise AttributeError("backend_tokenizer: reference='transformers' follows BertTokenizerLegacy, which "
                                 "has no HF tokenizers backend")
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise ImportError("backend_tokenizer needs HF tokenizers: pip install tokenizers") from None
        return Tokenizer.from_str(json.dumps(self._tokenizer_json()))

    def train_new_from_iterator(self, text_iterator, vocab_size, length=None, new_special_tokens=None,
                                special_tokens_map=None, **kwargs):
        """transformers' train_new_from_iterator: `text_iterator` yields texts or lists of texts.
        `special_tokens_map` renames special tokens ({"[CLS]": "<cls>"}); `new_special_tokens` adds some;
        other keyword arguments go to `bertpiece.train_wordpiece` (min_frequency, limit_alphabet, ...)."""
        from ..training import train_wordpiece

        rename = dict(special_tokens_map or {})
        specials = []
        for token in [t.content for _, t in sorted(self._added_by_id.items()) if t.special] + \
                [str(t) for t in new_special_tokens or []]:
            token = rename.get(token, token)
            if token not in specials:
                specials.append(token)
        options = dict(algorithm="hf", min_frequency=0, limit_alphabet=None)  # WordPieceTrainer's defaults
        unk = self._special_tokens_map.get("unk_token")
        if unk is not None:  # (renamed with the others)
            options["unk_token"] = rename.get(str(unk), str(unk))
        options.update(kwargs)
        vocab = train_wordpiece(_texts(text_iterator), vocab_size, reference=self.reference,
                                do_lower_case=self.do_lower_case, strip_accents=self.strip_accents,
                                tokenize_chinese_chars=self.tokenize_chinese_chars, special_tokens=specials,
                                **options)
        init = dict(self.init_kwargs)
        for key in self.SPECIAL_TOKENS_ATTRIBUTES:
            value = self._special_tokens_map.get(key)
            if value is not None:
                init[key] = rename.get(str(value), str(value))
        if self._extra_special_tokens:
            init["extra_special_tokens"] = [rename.get(str(t), str(t)) for t in self._extra_special_tokens]
        for key in ("added_tokens_decoder", "name_or_path", "vocab", "vocab_file"):
            init.pop(key, None)
        init["model_max_length"] = self.model_max_length
        return type(self)(vocab={t: i for i, t in enumerate(vocab)}, **init)


def _texts(text_iterator):
    for item in text_iterator:
        if isinstance(item, str):
            yield item
        else:
            yield from item
