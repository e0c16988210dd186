"""bertpiece.SentencePieceProcessor's word-by-word encoding (src/sentencepiece/
words.rs). A Unigram word's pieces depend on the f32 score reached before it
(measured below on sentencepiece itself), so tie-prone words (runs of one
char, numbers) and hypothesis words built from them are encoded after texts of
growing length: against sentencepiece 0.2.3 up to a few thousand chars, and,
up to 2,000,000 chars, against the same model with one never-matching piece
that has a `▁` inside (which makes bertpiece run its Viterbi over the whole
text, as sentencepiece does). Beyond ~50,000 chars sentencepiece itself no
longer follows an f32 sum (see docs/sentencepiece.md), so it is not the reference
there. Also: more distinct words than a cache holds, more models than a
thread keeps caches for, edited models that must not use words, 2 threads."""

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spm_models import MODELS, every_ud_line, model, pair

# Runs of one char have many splits with equal or nearly equal sums.
TIE_PRONE = [c * n for c in ".-=!_*0a" for n in range(2, 24)] + ["10000", "100000", "2000000", "1.000.000", "aaa-bbb",
                                                                "Mestre", "Presidente", "испанское", "Испанская"]
# Every model whose pieces allow words (unigram_suffix's do not: trained with split_by_whitespace=False).
WORD_MODELS = sorted(set(MODELS) - {"unigram_suffix"})


@functools.lru_cache(maxsize=None)
def long_text(chars):
    """UD lines of every language joined, repeated to at least `chars` chars."""
    lines, out, n = every_ud_line(), [], 0
    while n < chars:
        for line in lines:
            out.append(line)
            n += len(line) + 1
            if n >= chars:
                break
    return " ".join(out)


@functools.lru_cache(maxsize=None)
def sample_words():
    words = {w for line in every_ud_line()[::23] for w in line.split() if len(w) <= 40}
    return sorted(words)[::4] + TIE_PRONE


def word_groups(pieces):
    """Pieces grouped per word (a group starts at each piece starting with ▁)."""
    groups = []
    for p in pieces:
        if p.startswith("▁") or not groups:
            groups.append([])
        groups[-1].append(p)
    return groups


def edited(name, edit):
    from transformers.convert_slow_tokenizer import import_protobuf

    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model(name))
    edit(proto)
    return proto.SerializeToString()


def add_whole_text_piece(proto):
    # A user-defined piece with ▁ inside (never in the texts: no ǂ) turns words off and changes no score.
    proto.pieces.add(piece="ǂ▁ǂ", score=0.0, type=4)


@functools.lru_cache(maxsize=None)
def whole_text_twin(name):
    import bertpiece

    return bertpiece.SentencePieceProcessor(model_proto=edited(name, add_whole_text_piece))


def test_sentencepiece_splits_words_by_the_score_before_them():
    # Why the cache checks a margin: sentencepiece splits some words after
    # 3,000 chars (a score of about -10,000) otherwise than alone (the score 0
    # a cache keyed by the word alone would have used).
    ref, _ = pair("unigram")
    words = [w for w in sample_words() if ref.normalize(w).count("▁") == 1]
    alone = ref.encode(words, out_type=str)
    groups = word_groups(ref.encode(long_text(3_000) + " " + " ".join(words), out_type=str))
    changed = [(w, a, b) for w, a, b in zip(words, alone, groups[-len(words):]) if a != b]
    assert [w for w, _, _ in changed if w in TIE_PRONE] and len(changed) >= 3, changed


@pytest.mark.parametrize("name", sorted(MODELS))
def test_words_after_texts_equal_sentencepiece(name):
    ref, ours = pair(name)
    texts = [long_text(chars) + " " + " ".join(TIE_PRONE) for chars in [300, 3_000]]
    assert ours.encode(texts) == ref.encode(texts)
    assert ours.encode(" ".join(sample_words())[:20_000]) == ref.encode(" ".join(sample_words())[:20_000])


@pytest.mark.parametrize("name", WORD_MODELS)
def test_words_after_long_texts_equal_the_whole_text_viterbi(name):
    ref, ours = pair(name)
    twin = whole_text_twin(name)
    words = " ".join(sample_words())
    text = words + " " + long_text(2_000_000) + " " + words
    assert ours.encode(text) == twin.encode(text)
    # The twin is the model: on lines sentencepiece agrees.
    assert twin.encode(list(every_ud_line()[::50])) == ref.encode(list(every_ud_line()[::50]))


def test_the_long_texts_split_words_otherwise_than_alone():
    # The test above can fail: after 2,000,000 chars the whole-text Viterbi
    # splits some words otherwise than alone (what a cache keyed by the word
    # alone would return).
    ref, ours = pair("unigram")
    words = [w for w in sample_words() if ref.normalize(w).count("▁") == 1]
    groups = word_groups(whole_text_twin("unigram").encode(long_text(2_000_000) + " " + " ".join(words), out_type=str))
    changed = [w for w, a, b in zip(words, ours.encode(words, out_type=str), groups[-len(words):]) if a != b]
    assert len(changed) >= 3, changed


@pytest.mark.parametrize("name", ["unigram", "unigram_nfkc_cf", "unigram_bytes", "bpe"])
def test_hypothesis_tie_prone_words_after_texts(name):
    ref, ours = pair(name)
    twin = whole_text_twin(name)
    words = st.lists(st.text(alphabet=".-=_0145aeo▁ ", min_size=1, max_size=30), min_size=1, max_size=12).map(" ".join)

    @settings(max_examples=25, deadline=None, database=None)
    @given(words, st.sampled_from([0, 2_000, 30_000, 600_000]))
    def check(text, chars):
        text = text + " " + long_text(chars) + " " + text if chars else text
        ids = ours.encode(text)
        assert ids == twin.encode(text)
        if chars <= 2_000:
            assert ids == ref.encode(text)

    check()


def test_more_distinct_words_than_a_cache_holds():
    _, ours = pair("unigram")
    # 135,000 distinct words (a thread's cache takes 114,688), the tie-prone ones before and after them.
    many = " ".join(f"{a}{b}{c}{d}" for a in "kqxzjv" for b in "aeiouy" for c in "bdfgklmnprstvwz" for d in range(250))
    text = " ".join(TIE_PRONE) + " " + many + " " + " ".join(TIE_PRONE)
    assert ours.encode(text) == whole_text_twin("unigram").encode(text)


def test_more_models_than_a_thread_keeps_caches_for():
    names = ["unigram", "unigram_bytes", "unigram_nfkc_cf", "bpe", "unigram_custom_rules", "bpe_bytes"]
    pairs = [pair(name) for name in names]
    text = " ".join(TIE_PRONE) + " " + long_text(3_000) + " " + " ".join(TIE_PRONE)
    for _ in range(2):
        for ref, ours in pairs:
            assert ours.encode(text) == ref.encode(text)


@pytest.mark.parametrize("name", ["unigram", "bpe_bytes"])
def test_lists_on_two_threads_equal_sentencepiece(name):
    ref, ours = pair(name)
    lines = list(every_ud_line())
    texts = [long_text(3_000) + " " + " ".join(TIE_PRONE)] * 3 + lines
    assert ours.encode(texts, num_threads=2) == ref.encode(texts, num_threads=2)


def mark_unused(proto):
    # Pieces marked UNUSED: the Viterbi skips them.
    for p in proto.pieces[300:900:7]:
        p.type = 5


def add_spanning_pieces(proto):
    # Pieces with ▁ inside span word starts: the Viterbi must run over the whole text.
    for text in ["s▁t", "e▁a", "▁.▁", "0▁0"]:
        proto.pieces.add(piece=text, score=-3.0, type=1)


def add_huge_score(proto):
    # A score near f32's limit: the rounding bound refuses every cached word.
    proto.pieces[200].score = -3e37


@pytest.mark.parametrize("name,edit", [("unigram", mark_unused), ("unigram", add_spanning_pieces),
                                       ("bpe", add_spanning_pieces), ("unigram_bytes", add_huge_score)])
def test_edited_models_equal_sentencepiece(name, edit):
    import sentencepiece as spm

    import bertpiece

    blob = edited(name, edit)
    ref, ours = spm.SentencePieceProcessor(model_proto=blob), bertpiece.SentencePieceProcessor(model_proto=blob)
    text = " ".join(TIE_PRONE) + " " + long_text(3_000) + " " + " ".join(TIE_PRONE)
    assert ours.encode(text) == ref.encode(text)
    lines = list(every_ud_line()[::11])
    assert ours.encode(lines) == ref.encode(lines)


@pytest.mark.parametrize("name", ["unigram", "unigram_bytes", "bpe"])
def test_lists_cut_into_slices_equal_sentencepiece_and_single_texts(name):
    # A list is encoded in slices of >= 16 KB into flat buffers, and pieces
    # other than their id's own (unknown runs: "ꙮ" and "𓀀" are in no model) are kept
    # aside: empty texts, duplicates, a text longer than a slice, on 1 and 2 threads.
    ref, ours = pair(name)
    lines = list(every_ud_line()[::7])
    texts = ["", long_text(20_000), "", "ꙮ ꙮꙮ x𓀀", *lines[:200], *lines[:200], "", *lines[200:], "ꙮ"]
    assert sum(map(len, texts)) > 100_000
    for threads, options in [(1, [dict(), dict(out_type=str, add_eos=True, reverse=True)]),
                             (2, [dict(out_type=str), dict(add_bos=True, add_eos=True, reverse=True)])]:
        for kwargs in options:
            got = ours.encode(texts, num_threads=threads, **kwargs)
            assert got == ref.encode(texts, num_threads=threads, **kwargs), (threads, kwargs)
            assert got == [ours.encode(text, **kwargs) for text in texts], (threads, kwargs)
    pieces = ours.encode(texts[3], out_type=str)
    if name != "unigram_bytes":
        assert [p for p, i in zip(pieces, ours.encode(texts[3])) if p != ours.id_to_piece(i)], pieces


@pytest.mark.parametrize("name", ["unigram", "bpe"])
def test_words_shared_by_every_thread_equal_sentencepiece(name):
    # Once the calling thread's cache holds 16,384 compact words (after a list),
    # they become the model's shared table, read first by every thread: the
    # tie-prone words after long texts (a large score before them, from that
    # table) and lists on 2 threads still equal sentencepiece and the whole-text Viterbi.
    import bertpiece

    ref, _ = pair(name)
    ours = bertpiece.SentencePieceProcessor(model_proto=model(name))  # a new model: nothing shared yet
    # Made-up words first (most of them compact), then the UD lines (most of theirs are not: other scripts).
    made_up = [f"{a}{b}{c}{d}{e}" for a in "bdfgklmnprstvz" for b in "aeiou" for c in "lnrst" for d in "aeiouy"
               for e in ["", "n", "s", "r", "l"]]
    first = [" ".join(made_up[k:k + 40]) for k in range(0, len(made_up), 40)] + list(every_ud_line())
    words = made_up[::50] + TIE_PRONE
    assert ours._model._shared_words() == 0
    assert ours.encode(first, num_threads=1) == ref.encode(first, num_threads=1)
    assert ours._model._shared_words() >= 16_384
    shared = ours._model._shared_words()
    texts = [long_text(3_000) + " " + " ".join(words), *first[::3]]
    for threads in (1, 2):
        assert ours.encode(texts, num_threads=threads) == ref.encode(texts, num_threads=threads), threads
    assert ours._model._shared_words() == shared  # set once
    text = " ".join(words) + " " + long_text(600_000) + " " + " ".join(words)
    assert ours.encode(text) == whole_text_twin(name).encode(text)


def test_lists_from_several_python_threads_equal_sentencepiece():
    # A list's Python lists are made slice by slice, the GIL taken back
    # between slices while other Python threads encode their own lists.
    from concurrent.futures import ThreadPoolExecutor

    ref, ours = pair("unigram")
    lines = list(every_ud_line())
    lists = [lines[k::4] for k in range(4)]
    with ThreadPoolExecutor(4) as pool:
        ids = list(pool.map(lambda texts: ours.encode(texts, num_threads=2), lists * 2))
        pieces = list(pool.map(lambda texts: ours.encode(texts, num_threads=2, out_type=str), lists))
    assert ids == [ref.encode(texts) for texts in lists] * 2
    assert pieces == [ref.encode(texts, out_type=str) for texts in lists]
