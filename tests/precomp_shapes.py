"""sentencepiece-converted tokenizer.json files WITH their Precompiled
normalizer: Unigram models trained at test time by sentencepiece 0.2.3's own
trainer on the UD samples (small vocabularies) under each normalization rule,
converted as transformers' SpmConverter converts XLM-R and T5 (Precompiled,
Strip right, Replace " {2,}" -> "▁"; Metaspace; their post-processors)."""

import functools
import io

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from bpe_shapes import training_sample
from shared_cache import session_cached

RULES = ("nmt_nfkc", "nmt_nfkc_cf", "nfkc", "identity")


@session_cached
def _trained_spm_model(rule):
    """The serialized sentencepiece Unigram trained under `rule`."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(training_sample()), model_writer=model, vocab_size=3000,
                                   model_type="unigram", character_coverage=0.9995, normalization_rule_name=rule,
                                   minloglevel=2, num_threads=1)
    return model.getvalue()


@functools.lru_cache(maxsize=None)
def spm_model(rule):
    """(serialized model, parsed ModelProto) of a sentencepiece Unigram trained under `rule`."""
    from transformers.convert_slow_tokenizer import import_protobuf

    proto = import_protobuf().ModelProto()
    proto.ParseFromString(_trained_spm_model(rule))
    return _trained_spm_model(rule), proto


def charsmap(rule):
    return spm_model(rule)[1].normalizer_spec.precompiled_charsmap


def precompiled(rule):
    return normalizers.Precompiled(charsmap(rule))


def spm_normalizer(rule):
    """SpmConverter.normalizer's Sequence for the model trained under `rule`."""
    from transformers.convert_slow_tokenizer import SpmConverter

    return SpmConverter.normalizer(None, spm_model(rule)[1])


def _unigram(rule):
    proto = spm_model(rule)[1]
    tok = Tokenizer(models.Unigram([(p.piece, p.score) for p in proto.pieces], unk_id=proto.trainer_spec.unk_id))
    tok.normalizer = spm_normalizer(rule)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    return tok


@functools.lru_cache(maxsize=None)
def xlmr_json(rule="nmt_nfkc"):
    """XLM-R's shape: `<s> $A </s>`, pair `<s> $A </s> </s> $B </s>`, a <mask> taking the space before it."""
    tok = _unigram(rule)
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)])
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=False, special=True)])
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def t5_json(rule="nmt_nfkc"):
    """T5's shape: `$A </s>`, pair `$A </s> $B </s>`."""
    tok = _unigram(rule)
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)])
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def marker_charsmap(chars):
    """A charsmap compiled by sentencepiece from rules `c -> c*` for every char of `chars`: with it HF's
    output shows its grapheme split (a grapheme under 6 bytes becomes its first char and `*`)."""
    import os
    import tempfile

    import sentencepiece as spm
    from transformers.convert_slow_tokenizer import import_protobuf

    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as f:
        f.writelines(f"{ord(c):X}\t{ord(c):X} 2A\n" for c in sorted(set(chars) - {"\0"}))
    try:
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(training_sample()[:300]), model_writer=model, vocab_size=400,
                                       model_type="char", normalization_rule_tsv=f.name, hard_vocab_limit=False,
                                       minloglevel=2, num_threads=1)
    finally:
        os.unlink(f.name)
    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model.getvalue())
    return proto.normalizer_spec.precompiled_charsmap
