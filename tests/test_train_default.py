"""Issue 27, items 3 and 5: the default training algorithm gives vocabularies
as compact as HF tokenizers' trainer on held-out text, and files and texts
go through separate calls (a path is never trained on as a text unnoticed)."""

import pathlib
import warnings

import pytest

import bertpiece
from bertpiece import oracle
from bertpiece.__main__ import main
from bertpiece.oracle_train import count_words

DATA = pathlib.Path(__file__).resolve().parent / "data"


def split(path):
    lines = path.read_text(encoding="utf-8").split("\n")
    cut = len(lines) * 9 // 10
    return lines[:cut], lines[cut:]


def tokens_per_word(vocab_file, held):
    tok = bertpiece.FullTokenizer(str(vocab_file), reference="tokenizers")
    basic = bertpiece.BasicTokenizer(reference="tokenizers")
    return sum(len(tok.tokenize(t)) for t in held) / sum(len(basic.tokenize(t)) for t in held)


@pytest.mark.parametrize("name", ["ud-en", "ud-de", "ud-ru"])
def test_default_is_as_compact_as_hf_tokenizers_on_held_out_text(name, tmp_path):
    from tokenizers import BertWordPieceTokenizer

    train, held = split(DATA / f"{name}.txt")
    hf = BertWordPieceTokenizer(lowercase=True)
    hf.train_from_iterator(train, vocab_size=8000, min_frequency=2, limit_alphabet=1000, show_progress=False)
    hf.save_model(str(tmp_path))  # vocab.txt
    ours = bertpiece.train_wordpiece(train, 8000).save(tmp_path / "ours.txt")
    theirs_tpw, ours_tpw = tokens_per_word(tmp_path / "vocab.txt", held), tokens_per_word(ours, held)
    assert ours_tpw <= 1.03 * theirs_tpw, (ours_tpw, theirs_tpw)


def test_default_vocabulary_holds_the_commonest_english_words(tmp_path):
    texts = (DATA / "ud-en.txt").read_text(encoding="utf-8").split("\n")
    vocab = bertpiece.train_wordpiece(texts, 2000)
    assert {"the", "is", "and", "of"} <= set(vocab)
    assert vocab.stats["algorithm"] == "hf"
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(texts), encoding="utf-8")
    out = tmp_path / "cli.txt"
    assert main(["train", str(corpus), "-o", str(out), "--vocab-size", "2000", "-q"]) == 0
    assert out.read_text(encoding="utf-8").split("\n")[:-1] == list(vocab)


def test_the_textbook_algorithm_stays_selectable():
    texts = (DATA / "ud-en.txt").read_text(encoding="utf-8").split("\n")[:250]  # the oracle's trainer is slow
    vocab = bertpiece.train_wordpiece(texts, 450, algorithm="likelihood")
    assert vocab.stats["algorithm"] == "likelihood"
    words = count_words(texts, oracle.BasicTokenizer(True, reference="google"))
    assert list(vocab) == oracle.train_likelihood(words, 450, min_frequency=2, limit_alphabet=1000,
                                                  max_input_chars_per_word=200)


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join((DATA / "ud-en.txt").read_text(encoding="utf-8").split("\n")[:1500]), encoding="utf-8")
    return path


def test_from_files_trains_on_the_contents(corpus, tmp_path):
    texts = corpus.read_text(encoding="utf-8").split("\n")
    want = list(bertpiece.train_wordpiece(texts, 900))
    assert list(bertpiece.train_wordpiece_from_files([str(corpus)], 900)) == want
    assert list(bertpiece.train_wordpiece_from_files(str(corpus), 900)) == want
    assert list(bertpiece.train_wordpiece_from_files(corpus, 900)) == want
    # Several files, as one corpus; options as train_wordpiece's.
    half = len(texts) // 2
    (tmp_path / "a.txt").write_text("\n".join(texts[:half]), encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n".join(texts[half:]), encoding="utf-8")
    files = [tmp_path / "a.txt", str(tmp_path / "b.txt")]
    assert list(bertpiece.train_wordpiece_from_files(files, 900, algorithm="likelihood", min_frequency=3)) == \
        list(bertpiece.train_wordpiece(texts, 900, algorithm="likelihood", min_frequency=3))


def test_from_files_refuses_what_is_not_a_path_before_reading(corpus, tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        bertpiece.train_wordpiece_from_files([corpus, tmp_path / "missing.txt"], 900)
    with pytest.raises(TypeError, match=r"paths\[1\] must be a path"):
        bertpiece.train_wordpiece_from_files([corpus, 5], 900)
    with pytest.raises(TypeError, match="not bytes"):
        bertpiece.train_wordpiece_from_files(str(corpus).encode(), 900)
    with pytest.raises(TypeError, match="unexpected keyword"):
        bertpiece.train_wordpiece_from_files(corpus, 900, files=[corpus])
    with pytest.raises(ValueError, match="unknown algorithm"):
        bertpiece.train_wordpiece_from_files(corpus, 900, algorithm="bpe")


def test_a_text_that_is_a_files_path_warns(corpus):
    with pytest.warns(UserWarning, match=r"files_or_texts\[0\] = '.*corpus\.txt' is the path of an existing file"
                                         r".*train_wordpiece_from_files") as caught:
        name_only = bertpiece.train_wordpiece([str(corpus)], 30522)
    assert caught[0].filename == __file__  # points at the caller's line
    assert len(name_only) < 120  # what it warns about: trained on the name (its chars), not the corpus
    with pytest.warns(UserWarning, match=r"files_or_texts\[2\] = "):
        bertpiece.train_wordpiece(["some text", "more text", str(corpus), str(corpus)], 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        absent = str(corpus.parent / "absent.txt")
        bertpiece.train_wordpiece([absent, "no such file here", str(corpus.parent)], 100)  # no file: silent
        bertpiece.train_wordpiece([corpus], 900)  # a pathlib.Path item is a file, as before
        bertpiece.train_wordpiece(str(corpus), 900)  # a single path too
