"""The tokenizer.json of a trained BPE model, as HF tokenizers 0.23 writes it
(same keys in the same order), so that `tokenizers.Tokenizer.from_file`
loads it and encodes as HF's own trained tokenizer of that shape:

* byte-level, ``post_processor="gpt2"``: GPT-2's (and HF's
  `ByteLevelBPETokenizer`'s) ByteLevel pre-tokenizer, post-processor and
  decoder, no normalizer;
* byte-level, ``post_processor="roberta"``: the same with RoBERTa's
  ``<s> ... </s>`` post-processor;
* character-level: HF's `CharBPETokenizer` shape: BertNormalizer,
  BertPreTokenizer, a BPEDecoder when there is an end-of-word suffix.
"""

from __future__ import annotations

import json

POST_PROCESSORS = ("gpt2", "roberta", None)


def _byte_level(add_prefix_space, trim_offsets):
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": trim_offsets,
            "use_regex": True}


def tokenizer_json(trained) -> dict:
    """The tokenizer.json of `trained` (a `bertpiece.trainers.TrainedBpe`) as a dict."""
    trainer, vocab = trained.trainer, trained.vocab
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in dict.fromkeys(trainer.special_tokens)]
    if trainer.byte_level:
        normalizer = None
        pre_tokenizer = _byte_level(trainer.add_prefix_space, True)
        decoder = _byte_level(True, True)
        if trained.post_processor == "gpt2":
            post_processor = _byte_level(True, False)
        elif trained.post_processor == "roberta":
            post_processor = {"type": "RobertaProcessing", "sep": ["</s>", vocab["</s>"]], "cls": ["<s>", vocab["<s>"]],
                              "trim_offsets": True, "add_prefix_space": trainer.add_prefix_space}
        else:
            post_processor = None
    else:
        n = trained.normalization
        normalizer = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": n["handle_chinese_chars"],
                      "strip_accents": n["strip_accents"], "lowercase": n["lowercase"]}
        pre_tokenizer = {"type": "BertPreTokenizer"}
        post_processor = None
        suffix = trainer.end_of_word_suffix
        decoder = {"type": "BPEDecoder", "suffix": suffix} if suffix is not None else None
    model = {"type": "BPE", "dropout": None, "unk_token": trained.unk_token,
             "continuing_subword_prefix": trainer.continuing_subword_prefix,
             "end_of_word_suffix": trainer.end_of_word_suffix, "fuse_unk": False, "byte_fallback": False,
             "ignore_merges": False, "vocab": vocab, "merges": [list(m) for m in trained.merges]}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer, "post_processor": post_processor, "decoder": decoder, "model": model}


def dumps(data: dict, pretty: bool) -> str:
    """JSON text as serde_json writes it (UTF-8, not escaped; pretty: 2 spaces)."""
    if pretty:
        return json.dumps(data, ensure_ascii=False, indent=2)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
