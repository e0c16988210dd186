"""`train_wordpiece`'s token arguments and texts: whatever it accepts writes a
vocab.txt that every reader (bertpiece, Google's, transformers', HF
tokenizers') reads back as the same tokens; what would break that (whitespace,
empty tokens, lone surrogates, no unknown token) is a ValueError naming the
argument. The CLI counterparts are in test_cli_train.py."""

import json
import re

import pytest

import bertpiece
from bertpiece import _core
from bertpiece.batch import SurrogateError
from google_reference import load_google

WHITESPACE = [chr(c) for c in range(0x110000) if chr(c).isspace()]
TEXTS = ["hello world, hello there", "the world is here"]


def read_back(path):
    """The tokens of `path` in id order, as each reader loads them."""
    from tokenizers.models import WordPiece
    from transformers.models.bert.tokenization_bert_legacy import load_vocab

    def ordered(vocab):
        return sorted(vocab, key=vocab.get)

    readers = {
        "google": ordered(load_google().load_vocab(path)),
        "transformers": ordered(load_vocab(path)),
        "tokenizers": ordered(WordPiece.read_file(path)),
    }
    for reference in ("google", "transformers", "tokenizers"):  # bertpiece reads as each of them
        readers["bertpiece-" + reference] = ordered(bertpiece.FullTokenizer(path, reference=reference).vocab)
    return readers


def test_whitespace_in_a_token_argument_is_refused():
    # Each of these would be (part of) a line of vocab.txt, split or stripped by some reader.
    assert len(WHITESPACE) == 29 and "\x85" in WHITESPACE and "\u2028" in WHITESPACE and "\x1c" in WHITESPACE
    for c in WHITESPACE:
        code = re.escape(f"U+{ord(c):04X}")
        for arguments, name in (({"continuing_subword_prefix": "#" + c}, "continuing_subword_prefix"),
                                ({"continuing_subword_prefix": c}, "continuing_subword_prefix"),
                                ({"initial_alphabet": ["a", c]}, r"initial_alphabet\[1\]"),
                                ({"special_tokens": ["[UNK]", f"[A{c}B]"]}, r"special_tokens\[1\]"),
                                ({"special_tokens": ["[UNK]", f"[A]{c}"]}, r"special_tokens\[1\]")):
            for algorithm in ("likelihood", "hf"):
                with pytest.raises(ValueError, match=f"{name}=.*whitespace \\({code} at position"):
                    bertpiece.train_wordpiece(TEXTS, 60, algorithm=algorithm, min_frequency=1, **arguments)


def test_empty_tokens_and_lone_surrogates_in_arguments_are_refused():
    for arguments, message in (({"special_tokens": ["[UNK]", ""]}, r"special_tokens\[1\] must not be empty"),
                               ({"initial_alphabet": [""]}, r"initial_alphabet\[0\] must not be empty"),
                               ({"initial_alphabet": ["ab"]}, r"initial_alphabet\[0\] must be a single character"),
                               ({"special_tokens": ["[UNK]", "[\ud800]"]}, r"special_tokens\[1\]=.*U\+D800"),
                               ({"initial_alphabet": ["\udfff"]}, r"initial_alphabet\[0\]=.*U\+DFFF"),
                               ({"continuing_subword_prefix": "#\ud800"}, r"continuing_subword_prefix=.*U\+D800"),
                               ({"unk_token": ""}, "unk_token must not be empty")):
        with pytest.raises(ValueError, match=message):
            bertpiece.train_wordpiece(TEXTS, 60, **arguments)
    with pytest.raises(TypeError, match="special_tokens must be a list of strings, not a single str"):
        bertpiece.train_wordpiece(TEXTS, 60, special_tokens="[UNK]")  # would be the tokens "[", "U", ...
    with pytest.raises(TypeError, match=r"special_tokens\[1\] must be a str, not int"):
        bertpiece.train_wordpiece(TEXTS, 60, special_tokens=["[UNK]", 5])


@pytest.mark.parametrize("algorithm", ["likelihood", "hf"])
def test_what_is_accepted_reads_back_the_same_in_every_reader(algorithm, tmp_path):
    # Duplicates kept once (as HF's trainer does), a special token that is also
    # a character or an [unusedN], odd but line-safe characters, other prefixes.
    cases = [
        {"special_tokens": ["[UNK]", "<s>", "[UNK]", "h", "[unused1]"], "unused_tokens": 3},
        {"special_tokens": ["[UNK]", "<\x00>", "[\u200b]", "\ufeff"], "initial_alphabet": ["\u200b", "\x7f", "q", "q"]},
        {"special_tokens": ["\ufeff<s>", "[UNK]"]},  # a byte order mark opening the file stays in the token
        {"continuing_subword_prefix": ""},
        {"continuing_subword_prefix": "@@", "initial_alphabet": "z#"},
        {"special_tokens": ["<unk>", "<s>"], "unk_token": "<unk>"},
    ]
    for k, arguments in enumerate(cases):
        vocab = bertpiece.train_wordpiece(TEXTS, 80, algorithm=algorithm, min_frequency=1, **arguments)
        assert len(set(vocab)) == len(vocab), arguments
        path = vocab.save(tmp_path / f"vocab{k}.txt")
        unk = arguments.get("unk_token", "[UNK]")
        readers = read_back(path) if unk == "[UNK]" else {
            "bertpiece": sorted((v := bertpiece.FullTokenizer(path, unk_token=unk).vocab), key=v.get)}
        for reader, tokens in readers.items():
            assert tokens == list(vocab), (arguments, reader)


def test_hf_duplicate_special_tokens_are_kept_once_as_by_hf():
    from tokenizers import BertWordPieceTokenizer

    specials = ["[UNK]", "<s>", "[UNK]", "h"]
    hf = BertWordPieceTokenizer()
    hf.train_from_iterator(TEXTS, vocab_size=60, special_tokens=specials, min_frequency=1, show_progress=False)
    theirs = sorted(hf.get_vocab(), key=hf.get_vocab().get)
    assert theirs[:3] == ["[UNK]", "<s>", "h"]
    ours = bertpiece.train_wordpiece(TEXTS, 60, algorithm="hf", special_tokens=specials, min_frequency=1)
    assert ours[:3] == theirs[:3] and len(set(ours)) == len(ours)
    # Step for step, given HF's run-dependent order of the characters (see test_train.py).
    first_merge = next(k for k, t in enumerate(theirs) if k >= 3 and len(t.removeprefix("##")) > 1)
    counter = _core.WordCounter(reference="tokenizers")
    counter.feed(TEXTS)
    exact, _, _ = counter.train(60, algorithm="hf", special_tokens=specials, min_frequency=1, limit_alphabet=1000,
                                initial_tokens=theirs[3:first_merge])
    assert exact == theirs


def test_hf_trainer_without_unk_makes_a_vocabulary_nothing_can_encode_with():
    """The measurement behind refusing special_tokens without the unknown
    token: HF's WordPieceTrainer takes special_tokens=[] and its tokenizer,
    like transformers' BertTokenizer, then fails on the first unknown word."""
    from tokenizers import BertWordPieceTokenizer

    hf = BertWordPieceTokenizer()
    hf.train_from_iterator(TEXTS, vocab_size=60, special_tokens=[], min_frequency=1, show_progress=False)
    assert "[UNK]" not in hf.get_vocab() and hf.encode("hello").tokens == ["hello"]
    with pytest.raises(Exception, match=r"Missing \[UNK\] token"):
        hf.encode("zebra")


def test_the_unknown_token_must_be_a_special_token(tmp_path):
    for arguments in ({"special_tokens": []}, {"special_tokens": ["<s>", "<unk>"]},
                      {"special_tokens": ["[UNK]"], "unk_token": "<unk>"}):
        for algorithm in ("likelihood", "hf"):
            with pytest.raises(ValueError, match="special_tokens must include the unknown token .* unk_token"):
                bertpiece.train_wordpiece(TEXTS, 60, algorithm=algorithm, **arguments)
    # Named: the file loads with that unknown token, in bertpiece and in transformers.
    vocab = bertpiece.train_wordpiece(TEXTS, 60, special_tokens=["<s>", "<unk>"], unk_token="<unk>", min_frequency=1)
    path = vocab.save(tmp_path / "vocab.txt")
    from transformers import BertTokenizer

    ours = bertpiece.FullTokenizer(path, unk_token="<unk>").tokenize("hello zebra")
    assert ours == BertTokenizer(vocab=path, unk_token="<unk>").tokenize("hello zebra")
    assert ours[0] == "hello" and "<unk>" in ours


@pytest.mark.parametrize("algorithm", ["likelihood", "hf"])
def test_a_text_with_a_lone_surrogate_is_named(algorithm, tmp_path):
    # Past the first batch (1,000 texts): the index is the text's in files_or_texts.
    texts = ["hello world"] * 1500 + ["ok", "hello w\ud800orld"]
    with pytest.raises(SurrogateError,
                       match=r"files_or_texts\[1501\] holds a lone surrogate \(U\+D800 at position 7\)"):
        bertpiece.train_wordpiece(texts, 60, algorithm=algorithm)
    # A file among the items counts as one item.
    (tmp_path / "c.txt").write_text("a b\n" * 1200, encoding="utf-8")
    with pytest.raises(ValueError, match=r"files_or_texts\[2\] .*U\+DFFF at position 0"):
        bertpiece.train_wordpiece([tmp_path / "c.txt", "a", "\udfffb"], 60, algorithm=algorithm)
    # A JSON escape in a .jsonl file: its line.
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t}) + "\n" for t in ["a b"] * 1200 + ["x \ud83d y"]))
    with pytest.raises(ValueError, match=r"c\.jsonl: line 1201 holds a lone surrogate \(U\+D83D at position 2\)"):
        bertpiece.train_wordpiece(jsonl, 60, algorithm=algorithm)


@pytest.mark.parametrize("algorithm", ["likelihood", "hf"])
def test_invalid_utf8_in_a_file_is_dropped_and_counted(algorithm, tmp_path):
    """Files are bytes, read as `bertpiece encode` reads them: invalid UTF-8
    (here an encoded surrogate, ED A0 80) is dropped and the line counted.
    (HF's trainer refuses such a file: "stream did not contain valid UTF-8".)"""
    bad, clean = tmp_path / "bad.txt", tmp_path / "clean.txt"
    bad.write_bytes(b"hello w\xed\xa0\x80orld\nhello world\xff\nthe world\n")
    clean.write_bytes(b"hello world\nhello world\nthe world\n")
    ours = bertpiece.train_wordpiece(bad, 60, algorithm=algorithm, min_frequency=1)
    assert ours.stats["invalid_utf8_lines"] == 2
    assert list(ours) == list(bertpiece.train_wordpiece(clean, 60, algorithm=algorithm, min_frequency=1))
    from tokenizers import BertWordPieceTokenizer

    with pytest.raises(Exception, match="valid UTF-8"):
        BertWordPieceTokenizer().train([str(bad)], vocab_size=60, show_progress=False)
