"""tokenizer.json files for the pre-tokenizer family: one (non-byte-level)
BPE model trained with HF's own trainer on the UD samples, behind each
pre-tokenizer under test, and helpers reading the words back out of an
Encoding (word_ids + offsets) so the Rust pre-tokenization can be compared
with the oracle's."""

import functools
import json

from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers

from bpe_shapes import training_sample
from shared_cache import session_cached

BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")

PRE_TOKENIZERS = {
    "bert": lambda: pre_tokenizers.BertPreTokenizer(),
    "whitespace": lambda: pre_tokenizers.Whitespace(),
    "whitespace_split": lambda: pre_tokenizers.WhitespaceSplit(),
    "digits_individual": lambda: pre_tokenizers.Digits(individual_digits=True),
    "digits_runs": lambda: pre_tokenizers.Digits(individual_digits=False),
    "char_delimiter": lambda: pre_tokenizers.CharDelimiterSplit("a"),
    **{f"punctuation_{b}": (lambda b=b: pre_tokenizers.Punctuation(b)) for b in BEHAVIORS},
    **{f"split_{b}": (lambda b=b: pre_tokenizers.Split(" ", b)) for b in BEHAVIORS},
    "split_inverted_word": lambda: pre_tokenizers.Split("the", "merged_with_next", invert=True),
    "sequence": lambda: pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("contiguous"), pre_tokenizers.Digits(True)]
    ),
    "sequence_with_byte_level": lambda: pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    ),
}


@session_cached
def model_json():
    """A BPE model (vocabulary 2000, [UNK] for unseen chars) trained on the UD samples after Whitespace."""
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=2000, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False)
    tok.train_from_iterator(training_sample(), trainer)
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def tokenizer_json(name, with_template=False):
    """The trained model behind pre-tokenizer ``name`` (and a BERT-like template if asked)."""
    tok = Tokenizer.from_str(model_json())
    tok.pre_tokenizer = PRE_TOKENIZERS[name]()
    if with_template:
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    return tok.to_str()


def pre_tokenizer_config(hf_pre_tokenizer):
    """The pre-tokenizer's tokenizer.json dict."""
    return json.loads(hf_pre_tokenizer.__getstate__())


def bare_json(hf_pre_tokenizer):
    """An empty BPE model ([UNK] only) behind ``hf_pre_tokenizer``: every char is one [UNK]
    token, so the words are read straight from word_ids and offsets."""
    tok = Tokenizer(models.BPE(vocab={"[UNK]": 0}, merges=[], unk_token="[UNK]"))
    tok.pre_tokenizer = hf_pre_tokenizer
    return tok.to_str()


def word_spans(encoding):
    """(start, end) of each word of an Encoding, from its word_ids and offsets."""
    spans = {}
    for w, (s, e) in zip(encoding.word_ids, encoding.offsets):
        if w is not None:
            a, b = spans.get(w, (s, e))
            spans[w] = (min(a, s), max(b, e))
    return [spans[w] for w in sorted(spans)]
