"""The public members of each reference class, by mode: legacy mode (`reference="transformers"`)
has `BertTokenizerLegacy`'s `prepare_for_model`, `truncate_sequences`, `prepare_for_tokenization`,
`total_vocab_size`, `ids_to_tokens`, `basic_tokenizer`, `wordpiece_tokenizer`, `tokens_trie` and
`vocab` (the file's alone), the tokenizers mode transformers 5 `BertTokenizer`'s `model`,
`can_save_slow_tokenizer` and `decoder`; each set is absent in the other mode, as there. Every
value is compared with the reference object's on the same vocabulary, inputs and call sequence."""

import itertools

import numpy as np
import pytest

pytest.importorskip("transformers")

import bertpiece  # noqa: E402

TEXTS = ["Hello world! Héllo, naïve café 123 the end.", "A second text, short.", "x", ""]
LEGACY = ["prepare_for_model", "truncate_sequences", "prepare_for_tokenization", "total_vocab_size", "ids_to_tokens",
          "basic_tokenizer", "wordpiece_tokenizer", "tokens_trie", "special_tokens_pattern", "token_type_ids_pattern",
          "token_type_ids_include_special_tokens"]
BACKEND = ["model", "can_save_slow_tokenizer", "decoder"]


def legacy_pair(**kwargs):
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

    vocab = bertpiece.vocab_path("bert-base-uncased")
    return BertTokenizerLegacy(vocab, **kwargs), bertpiece.BertTokenizer(vocab, reference="transformers", **kwargs)


def fast_pair():
    import transformers

    vocab = bertpiece.vocab_path("bert-base-uncased")
    return transformers.BertTokenizer(vocab), bertpiece.BertTokenizer(vocab)


def check(ref, ours, call):
    results = []
    for tok in (ref, ours):
        try:
            results.append(("ok", normal(call(tok))))
        except Exception as e:  # noqa: BLE001 - the two must raise alike
            # (the two classes' names differ: BertTokenizerLegacy / BertTokenizer)
            results.append(("raised", type(e).__name__, str(e).replace(type(tok).__name__, "<class>")))
    assert results[0] == results[1]
    return results[0]


def normal(value):
    if hasattr(value, "data") and hasattr(value, "keys"):  # BatchEncoding
        value = dict(value.data)
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.tolist())
    if isinstance(value, tuple):
        return tuple(normal(v) for v in value)
    return value


def test_each_mode_has_its_references_members_and_not_the_others():
    for (ref, ours), present, absent in [(legacy_pair(), LEGACY, BACKEND), (fast_pair(), BACKEND, LEGACY)]:
        for name in present:
            assert hasattr(ref, name) and hasattr(ours, name), name
        for name in absent:
            assert not hasattr(ref, name) and not hasattr(ours, name), name
        assert {n for n in dir(ref) if n in LEGACY + BACKEND} == {n for n in dir(ours) if n in LEGACY + BACKEND}
    # The members transformers 5's BertTokenizer has and bertpiece's does not have (documented): dir() says so.
    ref, ours = fast_pair()
    assert sorted(n for n in dir(ref) if not n.startswith("_") and n not in dir(ours)) == [
        "set_truncation_and_padding", "update_post_processor"]


@pytest.mark.parametrize("side", ["right", "left"])
def test_truncate_sequences_as_the_legacy_class(side):
    ref, ours = legacy_pair(truncation_side=side)
    ids, pair_ids = list(range(1000, 1011)), list(range(2000, 2006))
    for strategy, remove, stride, pair in itertools.product(
            ["longest_first", "only_first", "only_second", "do_not_truncate"], [0, 1, 3, 6, 11, 20], [0, 2, 5],
            [None, pair_ids, []]):
        check(ref, ours, lambda t: t.truncate_sequences(list(ids), None if pair is None else list(pair), remove,
                                                        strategy, stride))
    check(ref, ours, lambda t: t.truncate_sequences(ids, num_tokens_to_remove=2, truncation_strategy="bogus"))


def test_prepare_for_model_as_the_legacy_class():
    ref, ours = legacy_pair()
    a = ref.convert_tokens_to_ids(ref.tokenize(TEXTS[0]))
    b = ref.convert_tokens_to_ids(ref.tokenize(TEXTS[1]))
    assert a == ours.convert_tokens_to_ids(ours.tokenize(TEXTS[0]))
    options = [dict(), dict(add_special_tokens=False), dict(truncation=True, max_length=8),
               dict(truncation="only_second", max_length=12, stride=2, return_overflowing_tokens=True),
               dict(truncation="only_first", max_length=9, stride=1, return_overflowing_tokens=True),
               dict(truncation=True, max_length=10, return_overflowing_tokens=True),
               dict(padding="max_length", max_length=30, return_attention_mask=True, return_token_type_ids=True),
               dict(padding=True, pad_to_multiple_of=8, padding_side="left", return_special_tokens_mask=True,
                    return_length=True),
               dict(return_tensors="np", prepend_batch_axis=True, padding="max_length", max_length=24),
               dict(truncation=True, max_length=1), dict(max_length=5), dict(padding="nonsense")]
    for kwargs in options:
        for pair in (None, b, []):
            check(ref, ours, lambda t: t.prepare_for_model(list(a), None if pair is None else list(pair), **kwargs))
    # After an added token and a changed side, the same sequence of calls.
    for tok in (ref, ours):
        tok.add_tokens(["zzqx"])
        tok.truncation_side = "left"
    check(ref, ours, lambda t: t.prepare_for_model(a + [t.convert_tokens_to_ids("zzqx")], b, truncation=True,
                                                   max_length=10, return_special_tokens_mask=True))


def test_vocabulary_members_and_the_tokenizer_objects_as_the_legacy_class():
    from bertpiece.bert_tokenizer.legacy_members import LEGACY_ONLY

    assert set(LEGACY) == LEGACY_ONLY
    for kwargs in [dict(), dict(do_lower_case=False, strip_accents=True, never_split=["Héllo"]),
                   dict(do_basic_tokenize=False), dict(tokenize_chinese_chars=False)]:
        ref, ours = legacy_pair(**kwargs)
        for name in ["special_tokens_pattern", "token_type_ids_pattern", "token_type_ids_include_special_tokens",
                     "total_vocab_size"]:
            check(ref, ours, lambda t: getattr(t, name))
        assert ours.ids_to_tokens == ref.ids_to_tokens and list(ours.ids_to_tokens) == list(ref.ids_to_tokens)
        assert ours.vocab == ref.vocab
        for text in TEXTS + ["中文字 Straße [MASK] hello[SEP]", "x" * 130]:
            check(ref, ours, lambda t: t.prepare_for_tokenization(text, is_split_into_words=True, foo=1))
            check(ref, ours, lambda t: t.basic_tokenizer.tokenize(text))
            check(ref, ours, lambda t: t.basic_tokenizer.tokenize(text, never_split=["[MASK]"]))
            check(ref, ours, lambda t: [t.wordpiece_tokenizer.tokenize(w) for w in text.split()])
            check(ref, ours, lambda t: t.tokens_trie.split(text))
        check(ref, ours, lambda t: vars(t.basic_tokenizer))
        for tok in (ref, ours):
            tok.add_tokens(["hello world", "zzq"])
            tok.add_special_tokens({"additional_special_tokens": ["<x>"]})
        check(ref, ours, lambda t: (t.total_vocab_size, len(t.vocab), "zzq" in t.vocab))
        check(ref, ours, lambda t: t.tokens_trie.split("say hello world to zzq<x>!"))
        check(ref, ours, lambda t: sorted(t.tokens_trie._tokens))


def test_backend_members_as_transformers_bert_tokenizer():
    ref, ours = fast_pair()
    assert ours.model is ref.model
    check(ref, ours, lambda t: t.can_save_slow_tokenizer)
    check(ref, ours, lambda t: repr(t.decoder))
    ids = ref.encode(TEXTS[0] + " [MASK]")
    tokens = ref.convert_ids_to_tokens(ids)
    check(ref, ours, lambda t: t.decoder.decode(tokens))
