"""Vocabulary training: the Rust likelihood trainer against the pure-Python
oracle (random corpora and real text, every option), "hf" mode against HF
tokenizers' own WordPieceTrainer, determinism, files and bad input."""

import os
import pathlib

import pytest
from hypothesis import given, settings, strategies as st

import bertpiece
from bertpiece import _core, oracle
from bertpiece.oracle_train import count_words
from tiers import ud_params

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "corpus"
if not CORPUS.exists():
    CORPUS = pathlib.Path("/work/shared/data/corpus")
UD = sorted(CORPUS.glob("ud-*.txt"))
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def lines(path, n=None):
    text = path.read_text(encoding="utf-8").split("\n")
    return text[:n] if n else text


def oracle_vocab(texts, vocab_size, *, reference="google", do_lower_case=True, strip_accents=None,
                 tokenize_chinese_chars=True, max_input_chars_per_word=None, **options):
    basic = oracle.BasicTokenizer(do_lower_case, reference=reference, strip_accents=strip_accents,
                                  tokenize_chinese_chars=tokenize_chinese_chars)
    if max_input_chars_per_word is None:
        max_input_chars_per_word = 200 if reference == "google" else 100
    options = {"min_frequency": 2, "limit_alphabet": 1000, **options}  # train_wordpiece's defaults
    return oracle.train_likelihood(count_words(texts, basic), vocab_size,
                                   max_input_chars_per_word=max_input_chars_per_word, **options)


def both(texts, vocab_size, **options):
    """(ours, oracle's), each a token list or the ValueError's type."""
    results = []
    for train in (lambda: list(bertpiece.train_wordpiece(texts, vocab_size, algorithm="likelihood", **options)),
                  lambda: oracle_vocab(texts, vocab_size, **options)):
        try:
            results.append(train())
        except ValueError as e:
            results.append(("ValueError", "smaller than the special tokens" in str(e)))
    return results


OPTION_SETS = [
    {},
    {"min_frequency": 0, "limit_alphabet": None},
    {"min_frequency": 3, "limit_alphabet": 6},
    {"initial_alphabet": ["z", "é", "q"], "limit_alphabet": 5},
    {"special_tokens": ["<s>", "[UNK]", "<s>"], "unused_tokens": 3},
    {"continuing_subword_prefix": "@@", "do_lower_case": False},
    {"continuing_subword_prefix": "", "min_frequency": 1},
    {"max_input_chars_per_word": 4, "reference": "transformers"},
    {"strip_accents": False, "tokenize_chinese_chars": False},
    {"do_lower_case": False, "strip_accents": True, "reference": "transformers"},
]

texts_strategy = st.lists(st.text(alphabet="abcdeéAÉ中文 ,.\n", max_size=30), max_size=12)


@given(texts=texts_strategy, extra=st.integers(0, 40), options=st.sampled_from(OPTION_SETS))
def test_likelihood_equals_oracle_on_random_corpora(texts, extra, options):
    # Sizes around the alphabet's: too small (an error in both), no merges, some, all.
    ours, reference = both(texts, 8 + extra, **options)
    assert ours == reference


@pytest.mark.parametrize("path", ud_params(UD, key=str), ids=lambda p: p.stem)
def test_likelihood_equals_oracle_on_real_text(path):
    texts = lines(path, 40)
    cases = [(300, {}), (260, {"min_frequency": 1, "limit_alphabet": 120}),
             (320, {"do_lower_case": False, "unused_tokens": 10, "initial_alphabet": ["#"]})]
    if path.stem not in ("ud-en", "ud-ja", "ud-ru", "ud-ar"):
        cases = cases[:1]  # every option set on four scripts; the defaults on every file
    for size, options in cases:
        ours, reference = both(texts, size, **options)
        assert ours == reference, (size, options)


def test_likelihood_is_deterministic_across_threads_and_batches(tmp_path):
    texts = lines(CORPUS / "ud-de.txt", 3000)
    one = bertpiece.train_wordpiece(texts, 2000, algorithm="likelihood", num_threads=1)
    two = bertpiece.train_wordpiece(texts, 2000, algorithm="likelihood", num_threads=2)
    assert list(one) == list(two)
    hf = [bertpiece.train_wordpiece(texts, 2000, algorithm="hf", num_threads=n) for n in (1, 2, 2)]
    assert list(hf[0]) == list(hf[1]) == list(hf[2])
    # Fed a file (batches of 1,000 lines) or as texts, the same file.
    f = tmp_path / "corpus.txt"
    f.write_text("\n".join(texts), encoding="utf-8")
    b = bertpiece.train_wordpiece_from_files(f, 2000, algorithm="likelihood").save(tmp_path / "b.txt")
    a = one.save(tmp_path / "a.txt")
    assert pathlib.Path(a).read_bytes() == pathlib.Path(b).read_bytes()


# ---------------------------------------------------------------- hf mode

def hf_train(path, vocab_size, *, lowercase=True, strip_accents=None, handle_chinese_chars=True,
             min_frequency=2, limit_alphabet=1000, initial_alphabet=(), special_tokens=SPECIALS, prefix="##"):
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(lowercase=lowercase, strip_accents=strip_accents,
                                 handle_chinese_chars=handle_chinese_chars, wordpieces_prefix=prefix)
    kwargs = {} if limit_alphabet is None else {"limit_alphabet": limit_alphabet}
    tok.train([str(path)], vocab_size=vocab_size, min_frequency=min_frequency, initial_alphabet=list(initial_alphabet),
              special_tokens=list(special_tokens), show_progress=False, wordpieces_prefix=prefix, **kwargs)
    vocab = tok.get_vocab()
    return sorted(vocab, key=vocab.get)


def initial_tokens(hf_vocab, n_special, prefix):
    """The alphabet and continuing characters of one HF run, in its id order:
    the tokens before the first merged one (HF assigns the `##c` ids in hash
    map order, which differs from run to run)."""
    out = []
    for t in hf_vocab[n_special:]:
        if len(t[len(prefix):] if prefix and t.startswith(prefix) else t) > 1:
            break
        out.append(t)
    return out


HF_OPTIONS = [
    ({}, {}),
    ({"min_frequency": 0, "limit_alphabet": None}, {}),
    ({"min_frequency": 5, "limit_alphabet": 60, "initial_alphabet": ["q", "#", "ß"]}, {}),
    ({"special_tokens": ["<pad>", "<unk>"], "prefix": "@@"}, {}),
    ({"lowercase": False, "strip_accents": True, "handle_chinese_chars": False},
     {"do_lower_case": False, "strip_accents": True, "tokenize_chinese_chars": False}),
]


@pytest.fixture(scope="module")
def ud_counts():
    cache = {}

    def get(path, count_options):
        key = (path, tuple(sorted(count_options.items())))
        if key not in cache:
            counter = _core.WordCounter(reference="tokenizers", **count_options)
            counter.feed(lines(path))
            cache[key] = counter
        return cache[key]
    return get


@pytest.mark.parametrize("path", ud_params(UD, key=str), ids=lambda p: p.stem)
def test_hf_mode_reproduces_hf_tokenizers(path, ud_counts):
    for k, (hf_options, count_options) in enumerate(HF_OPTIONS):
        if k >= 2 and path.stem not in ("ud-en", "ud-ja", "ud-ru"):
            continue  # every option set on three files; the default ones on every file
        counter = ud_counts(path, count_options)
        for size in (1000, 6000) if k == 0 else (2500,):
            theirs = hf_train(path, size, **hf_options)
            specials = hf_options.get("special_tokens", SPECIALS)
            prefix = hf_options.get("prefix", "##")
            ours, _, _ = counter.train(
                size, algorithm="hf", special_tokens=specials, min_frequency=hf_options.get("min_frequency", 2),
                limit_alphabet=hf_options.get("limit_alphabet", 1000),
                initial_alphabet=hf_options.get("initial_alphabet", []), continuing_subword_prefix=prefix,
                initial_tokens=initial_tokens(theirs, len(specials), prefix))
            assert ours == theirs, (size, hf_options)


@settings(max_examples=min(settings().max_examples, 150))
@given(texts=st.lists(st.text(alphabet="abcab aéB中,", max_size=25), max_size=10), extra=st.integers(0, 25),
       min_frequency=st.sampled_from([0, 1, 2, 3]), limit_alphabet=st.sampled_from([None, 3, 6]))
def test_hf_mode_reproduces_hf_tokenizers_on_random_corpora(texts, extra, min_frequency, limit_alphabet):
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(lowercase=True)
    kwargs = {} if limit_alphabet is None else {"limit_alphabet": limit_alphabet}
    size = 8 + extra
    tok.train_from_iterator(texts, vocab_size=size, min_frequency=min_frequency, show_progress=False, **kwargs)
    vocab = tok.get_vocab()
    theirs = sorted(vocab, key=vocab.get)
    counter = _core.WordCounter(reference="tokenizers")
    counter.feed(texts)
    ours, _, _ = counter.train(size, algorithm="hf", special_tokens=SPECIALS, min_frequency=min_frequency,
                               limit_alphabet=limit_alphabet, initial_tokens=initial_tokens(theirs, 5, "##"))
    assert ours == theirs


def test_hf_mode_canonical_order_is_hfs_alphabet():
    """Without HF's run-dependent order, "hf" mode puts the `##c` tokens in
    code point order; the alphabet and the set of `##c` tokens are HF's."""
    path = CORPUS / "ud-en.txt"
    theirs = hf_train(path, 3000)
    ours = bertpiece.train_wordpiece(path, 3000, algorithm="hf")
    init = initial_tokens(list(ours), 5, "##")
    assert ours[:5] == SPECIALS
    assert init == sorted(initial_tokens(theirs, 5, "##"), key=lambda t: (t.startswith("##"), t))
    assert len(ours) == len(theirs) == 3000


# ------------------------------------------------------- files and bad input

def test_saved_vocab_loads_in_the_tokenizers(tmp_path):
    texts = lines(CORPUS / "ud-en.txt", 2000)
    path = bertpiece.train_wordpiece(texts, 1500).save(tmp_path / "vocab.txt")
    tok = bertpiece.FullTokenizer(path)
    pieces = tok.tokenize("The quick brown fox.")
    assert "[UNK]" not in pieces and len(pieces) >= 4
    from transformers import BertTokenizer
    assert BertTokenizer(path).tokenize("The quick brown fox.") == pieces
    assert sorted(os.listdir(tmp_path)) == ["vocab.txt"]


def test_counts_like_encode_and_reads_every_input_kind(tmp_path):
    import gzip
    import json
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress("héllo wörld\nhello\xa0world".encode()))
    (tmp_path / "b.jsonl").write_text(json.dumps({"text": "hello there"}) + "\n", encoding="utf-8")
    (tmp_path / "c.txt").write_bytes(b"hel\xfflo bad\n")  # invalid UTF-8: dropped, as encode drops it
    v = bertpiece.train_wordpiece([tmp_path / "a.txt.gz", tmp_path / "b.jsonl", tmp_path / "c.txt", "there"], 200,
                                  min_frequency=1)
    assert v.stats["words"] == 9 and v.stats["unique_words"] == 4 and v.stats["invalid_utf8_lines"] == 1
    assert "hello" in v and "world" in v


def test_bad_input():
    assert list(bertpiece.train_wordpiece([], 100)) == SPECIALS  # empty corpus: the special tokens only
    assert list(bertpiece.train_wordpiece(["  \n\t ", ""], 100)) == SPECIALS
    only_specials = bertpiece.train_wordpiece(["[CLS] [SEP]"], 100, min_frequency=1)
    assert only_specials[:5] == SPECIALS and "[" in only_specials and "cls" in only_specials
    with pytest.raises(ValueError, match="smaller than the special tokens"):
        bertpiece.train_wordpiece(["abc def"], 8, algorithm="likelihood")
    with pytest.raises(ValueError, match="smaller than the special tokens"):
        bertpiece.train_wordpiece(["abc def"], 100, unused_tokens=10**12)
    with pytest.raises(ValueError, match="unknown algorithm"):
        bertpiece.train_wordpiece(["a"], 10, algorithm="bpe")
    with pytest.raises(ValueError, match=r"special_tokens\[0\].*whitespace"):
        bertpiece.train_wordpiece(["a"], 10, special_tokens=["[A]\n"])
    with pytest.raises(ValueError, match="num_threads"):
        bertpiece.train_wordpiece(["a"], 10, num_threads=0)
    with pytest.raises(TypeError):
        bertpiece.train_wordpiece([b"bytes"], 10)
    with pytest.raises(FileNotFoundError):
        bertpiece.train_wordpiece(pathlib.Path("/nonexistent/corpus.txt"), 10)


def test_unwritable_output_leaves_no_file(tmp_path):
    v = bertpiece.train_wordpiece(["a b"], 20)
    with pytest.raises(OSError):
        v.save(tmp_path / "missing-dir" / "vocab.txt")
    target = tmp_path / "vocab.txt"
    target.mkdir()  # a directory where the file should go
    with pytest.raises(OSError):
        v.save(target)
    assert sorted(os.listdir(tmp_path)) == ["vocab.txt"] and os.listdir(target) == []
