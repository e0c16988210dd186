"""The widened regex subset (src/pre_tokenizers/onig_subset.rs): general
categories, \\d, \\w, ., anchors. bertpiece == tokenizers 0.23.3 == the oracle
(bertpiece.oracle_regex) for o200k's Split pattern over every UD line, for
hypothesis-built Split patterns and Replace patterns over hypothesis texts,
and for the files transformers 5.24's SpmConverter.build_tokenizer_from_spm_proto
writes (anchored Replace normalizers, a Split of the user-defined pieces) end
to end on every UD line. Constructs still refused are named on load."""

import functools
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Regex, Tokenizer as HFTokenizer, normalizers

import bertpiece
from bertpiece import oracle_normalizers
from bpe_shapes import UD_FILES, assert_same, training_sample, ud_lines
from norm25_shapes import char_json, config_of, hf_chars
from test_pipeline_pretok_regex import REAL_TEXTS, _escape, three_way

# tiktoken's o200k_base, as HF tokenizer.json files hold it.
O200K = "|".join([
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"\p{N}{1,3}", r" ?[^\s\p{L}\p{N}]+[\r\n/]*", r"\s*[\r\n]+", r"\s+(?!\S)", r"\s+",
])
MIXED_CASE = ["HelloWorld's McDONALD'S ǅemal ǈ x\u0301Y\u0301z", "x²³ ¼½¾ a\u200cb\u200dc ①_⁵", "ÀÉÎ õü 12345 ٣٤٥ ⅷ a/b\n\n/", "ǅǅ'LL ʰʰa 日本'S"]


@pytest.mark.parametrize("behavior", ["Isolated", "MergedWithNext", "Removed"])
def test_o200k_on_ud_three_way(behavior):
    config = {"type": "Split", "pattern": {"Regex": O200K}, "behavior": behavior, "invert": False}
    three_way(config, [line for path in UD_FILES for line in ud_lines(path, 40)] + REAL_TEXTS + MIXED_CASE)


def test_word_pattern_on_ud_three_way():
    """HF's Whitespace pre-tokenizer pattern as a Split regex: \\w outside and inside brackets."""
    config = {"type": "Split", "pattern": {"Regex": r"\w+|[^\w\s]+"}, "behavior": "Isolated", "invert": False}
    three_way(config, [line for path in UD_FILES for line in ud_lines(path, 40)] + REAL_TEXTS + MIXED_CASE)


ATOMS = st.one_of(
    st.sampled_from(list("aB'-! 1é日\u0301ǅ")).map(_escape),
    st.sampled_from([r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}", r"\p{M}", r"\p{Mn}", r"\p{Nd}", r"\p{P}",
                     r"\p{S}", r"\p{Z}", r"\P{Lu}", r"\P{P}", r"\d", r"\D", ".", r"\s", r"[\p{Lu}\p{Lt}\p{M}]",
                     r"[^\r\n\p{L}\p{N}]", r"[\p{Ll}\d']", r"[^\p{Z}\p{S}]", r"\n", r"\w", r"\W", r"[\w-]", r"[^\w\s]"]),
)
QUANTS = st.sampled_from(["", "+", "{1,3}", "+?"])
OPTIONAL = st.sampled_from(["", "+", "?", "*", "{0,2}"])


@st.composite
def branches(draw):
    """A concatenation whose first atom is required (so it never matches the
    empty string), maybe anchored: ^ \\A before it, $ \\z after."""
    parts = [draw(ATOMS) + draw(QUANTS)]
    parts += [draw(ATOMS) + draw(OPTIONAL) for _ in range(draw(st.integers(0, 2)))]
    return draw(st.sampled_from(["", "", "^", r"\A"])) + "".join(parts) + draw(st.sampled_from(["", "", "$", r"\z"]))


@st.composite
def patterns(draw):
    body = "|".join(draw(branches()) for _ in range(draw(st.integers(1, 3))))
    body = draw(st.sampled_from(["{}", "(?:{})", "({})+", "(?i:'s|'LL)|{}"])).format(body)
    return body + draw(st.sampled_from(["", r"|\s+(?!\S)|\s+"]))


TEXTS = st.text(alphabet=st.one_of(st.characters(blacklist_categories=("Cs",)),
                                   st.sampled_from(list("aB'-! 1é日\u0301ǅʰ٣ⅷ\r\n\n\t\u00a0\u3000.,$"))), max_size=30)
BEHAVIORS = st.sampled_from(["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"])


@settings(max_examples=120, deadline=None, derandomize=True)
@given(patterns(), BEHAVIORS, st.booleans(), st.lists(TEXTS, min_size=1, max_size=4))
def test_fuzz_split_patterns_three_way(pattern, behavior, invert, texts):
    three_way({"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": invert}, texts)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(patterns(), st.text(st.sampled_from("x▁ "), max_size=2)), min_size=1, max_size=3),
       st.lists(TEXTS, min_size=1, max_size=4))
def test_fuzz_replace_patterns_three_way(replaces, texts):
    replaces = [(p, c) for p, c in replaces if "(?!" not in p and "(?i" not in p]  # Replace: no lookahead, no flags
    if not replaces:
        return
    normalizer = normalizers.Sequence([normalizers.Replace(Regex(p), c) for p, c in replaces])
    ours = bertpiece.Tokenizer.from_str(char_json(normalizer, texts))
    cfg = config_of(normalizer)
    for text in texts:
        want = hf_chars(normalizer, text)
        enc = ours.encode(text)
        assert ("".join(enc.tokens), enc.offsets) == want, text
        assert oracle_normalizers.normalize_str(cfg, text) == (want[0], [tuple(o) for o in want[1]]), text


@functools.lru_cache(maxsize=None)
def spm_file(model_type, legacy):
    """A sentencepiece model trained on the UD samples (with user-defined pieces
    full of regex metachars) converted by build_tokenizer_from_spm_proto."""
    import sentencepiece as spm
    from transformers.convert_slow_tokenizer import SpmConverter, import_protobuf

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(training_sample()), model_writer=model, vocab_size=3000, model_type=model_type,
        character_coverage=0.9995, byte_fallback=True, user_defined_symbols=["<sep>", "[MASK]", "a.b", "c++", "#1", "x|y"],
        minloglevel=2, num_threads=1)
    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model.getvalue())
    return SpmConverter.build_tokenizer_from_spm_proto(proto, [(p.piece, p.score) for p in proto.pieces],
                                                       legacy=legacy).to_str()


SPM_TEXTS = ["  two  leading, trailing  ", " ", "", "a.b c++ #1 x|y <sep>[MASK]", "\n  a \n", "▁x  ▁"]


@pytest.mark.parametrize("model_type,legacy", [("unigram", True), ("bpe", False)])
def test_spm_converter_file_end_to_end(model_type, legacy):
    text = spm_file(model_type, legacy)
    found = json.dumps(json.loads(text)["normalizer"])
    assert r"\\A +| +\\z" in found and ("\\\\A\\u2581" in found) == legacy  # the anchored Replaces are there
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = [line for path in UD_FILES for line in ud_lines(path, 60)] + SPM_TEXTS
    for line, a, b in zip(lines, ours.encode_batch(lines), theirs.encode_batch(lines)):
        assert_same(a, b, line)
    for ids in [e.ids for e in theirs.encode_batch(lines[:100])]:
        assert ours.decode(ids) == theirs.decode(ids)
    # The oracle on the Replace chain after the Precompiled charsmap (HF's own normalizer as reference).
    chain = json.loads(text)["normalizer"]
    assert chain["normalizers"][0]["type"] == "Precompiled"
    chain["normalizers"] = chain["normalizers"][1:]
    hf_chain = HFTokenizer.from_str(json.dumps({**json.loads(text), "normalizer": chain})).normalizer
    for line in lines:
        assert oracle_normalizers.normalize_str(chain, line)[0] == hf_chain.normalize_str(line), line


REFUSED = [
    (r"\h", "unrecognized escape"), (r"a\b", "word-boundary"), (r"\n^", "'^' not directly followed"),
    (r"\p{Greek}", "short names"), (r"\p{Letter}", "short names"), (r"a\Z", "unrecognized escape"),
    (r"(^)a", "'^' not directly followed"), (r"(?i:a.)", "inside (?i:...)"),
    # tiktoken's own cl100k spelling: a class inside (?i:...), possessive quantifiers
    (r"'(?i:[sdmt]|ll|ve|re)|\p{L}+", "inside (?i:...)"), (r"[^\r\n\p{L}\p{N}]?+\p{L}+", "possessive"),
    # was run as a repeated repetition (silently other splits: "a b" -> "a", " b" instead of "a b")
    (r"a?+a", "possessive"), (r"a++", "possessive"),
]


@pytest.mark.parametrize("pattern,why", REFUSED, ids=[p for p, _ in REFUSED])
def test_still_refused_constructs_are_named(pattern, why):
    split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    replace = {"type": "Replace", "pattern": {"Regex": pattern}, "content": "x"}
    for field, config in (("pre_tokenizer", split), ("normalizer", replace)):
        data = json.loads(HFTokenizer.from_str(char_json(normalizers.NFC(), ["a"])).to_str())
        data[field] = config
        HFTokenizer.from_str(json.dumps(data))  # a file tokenizers loads
        with pytest.raises(NotImplementedError) as e:
            bertpiece.Tokenizer.from_str(json.dumps(data))
        assert f"{field}.pattern.Regex: unsupported" in str(e.value) and json.dumps(pattern) in str(e.value)
        if field == "pre_tokenizer":
            assert why in str(e.value)
