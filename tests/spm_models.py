"""sentencepiece `.model` files trained at test time by sentencepiece's own
trainer on the UD samples (small vocabularies, one thread), one per option the
drop-in must follow, and the UD lines to compare on."""

import functools
import io
import os
import tempfile

from bpe_shapes import UD_FILES, training_sample, ud_lines
from shared_cache import session_cached

# A custom normalization_rule_tsv: overlapping sources, so sentencepiece's
# longest match ("the" -> "THE", not "th" + "e") shows; a rule producing a space.
CUSTOM_RULES = "74 68 65\t54 48 45\n74 68\t7A\n3000\t20\nFF21\t41\n6F 6F\t30\n"

MODELS = {
    "unigram": {},
    "bpe": dict(model_type="bpe"),
    "unigram_bytes": dict(byte_fallback=True, character_coverage=0.98),
    "bpe_bytes": dict(model_type="bpe", byte_fallback=True, character_coverage=0.98),
    "unigram_nfkc_cf": dict(normalization_rule_name="nmt_nfkc_cf"),
    "unigram_identity": dict(normalization_rule_name="identity", remove_extra_whitespaces=False),
    "unigram_custom_rules": dict(normalization_rule_tsv=CUSTOM_RULES),
    "bpe_no_dummy_digits": dict(model_type="bpe", add_dummy_prefix=False, split_digits=True),
    "unigram_symbols": dict(user_defined_symbols=["<sep>", "abc", "ing", "▁the"], control_symbols=["<cls>"],
                            split_by_unicode_script=False),
    "bpe_symbols": dict(model_type="bpe", user_defined_symbols=["<sep>", "abc", "ing"], control_symbols=["<cls>"]),
    "unigram_suffix": dict(treat_whitespace_as_suffix=True, split_by_whitespace=False),
    "bpe_suffix_keep_spaces": dict(model_type="bpe", treat_whitespace_as_suffix=True, remove_extra_whitespaces=False),
}


def model(name):
    """The serialized `.model` for MODELS[name]."""
    options = {"model_type": "unigram", **MODELS[name]}
    return _trained(tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items())))


@session_cached  # trained once per test session, not once per xdist worker (~11 s for all of them)
def _trained(options):
    import sentencepiece as spm

    options = {k: list(v) if isinstance(v, tuple) else v for k, v in options}
    with tempfile.TemporaryDirectory() as tmp:
        if "normalization_rule_tsv" in options:
            path = os.path.join(tmp, "rules.tsv")
            with open(path, "w", encoding="utf-8") as f:
                f.write(options["normalization_rule_tsv"])
            options["normalization_rule_tsv"] = path
        blob = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(training_sample()), model_writer=blob, vocab_size=3200,
                                       minloglevel=2, num_threads=1, **options)
    return blob.getvalue()


@functools.lru_cache(maxsize=None)
def every_ud_line(files=tuple(UD_FILES)):
    return tuple(line for path in files for line in ud_lines(path))


def pair(name):
    """(sentencepiece's processor, bertpiece's) over the same model."""
    import sentencepiece as spm

    import bertpiece

    return spm.SentencePieceProcessor(model_proto=model(name)), bertpiece.SentencePieceProcessor(model_proto=model(name))
