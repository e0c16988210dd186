"""Changing a Google-API tokenizer after construction. Google's FullTokenizer
reads `basic_tokenizer.do_lower_case`, `vocab`, `inv_vocab` and the WordPiece
settings on every call, so a change takes effect there (measured below on the
real module); bertpiece's are compiled once, so each such change is refused
where it is made, with an error saying how to build a tokenizer with it --
never ignored."""

import pickle

import pytest

import bertpiece
from google_reference import load_google, vocab_path

google = load_google()
VOCAB = vocab_path("bert-base-uncased")

# (change, a call whose result the change alters in Google's module)
CHANGES = [
    ("tok.basic_tokenizer.do_lower_case = False", "tok.tokenize('Hello')"),
    ("tok.vocab['xyzzyq'] = 5", "tok.tokenize('xyzzyq') + [tok.convert_tokens_to_ids(['xyzzyq'])]"),
    ("del tok.vocab['hello']", "tok.tokenize('hello')"),
    ("tok.inv_vocab[99999] = 'zz'", "tok.convert_ids_to_tokens([99999])"),
    ("tok.wordpiece_tokenizer.vocab['xyzzyq'] = 5", "tok.tokenize('xyzzyq')"),
    ("tok.wordpiece_tokenizer.unk_token = '[MASK]'", "tok.tokenize('\\u2603')"),
    ("tok.wordpiece_tokenizer.max_input_chars_per_word = 3", "tok.tokenize('hello')"),
]


def outcome(call, tok):
    try:
        return eval(call)
    except Exception as e:
        return type(e)


@pytest.mark.parametrize("change,call", CHANGES)
def test_a_change_googles_module_follows_is_refused_not_ignored(change, call):
    tok = google.FullTokenizer(VOCAB)
    before = outcome(call, tok)
    exec(change)
    assert outcome(call, tok) != before  # Google's module takes the change

    tok = bertpiece.FullTokenizer(VOCAB)
    assert outcome(call, tok) == before
    with pytest.raises((AttributeError, TypeError), match="immutable after construction.*build a new one"):
        exec(change)
    assert outcome(call, tok) == before


@pytest.mark.parametrize("stmt", ["tok.do_lower_case = False", "tok.unk_token = '[MASK]'", "del tok.vocab_file",
                                  "tok.vocab.update(x=1)", "tok.vocab.clear()", "tok.inv_vocab.pop(0)",
                                  "tok.basic_tokenizer.never_split = {'x'}", "tok.vocab.move_to_end('hello')"])
def test_every_setting_and_vocabulary_change_is_refused(stmt):
    tok = bertpiece.FullTokenizer(VOCAB)
    with pytest.raises((AttributeError, TypeError), match="immutable after construction"):
        exec(stmt)


def test_the_read_only_vocabularies_still_read_copy_and_pickle_as_before():
    tok = bertpiece.FullTokenizer(VOCAB)
    theirs = google.FullTokenizer(VOCAB)
    assert tok.vocab == theirs.vocab and list(tok.vocab) == list(theirs.vocab)
    assert tok.inv_vocab == theirs.inv_vocab
    mutable = dict(tok.vocab)
    mutable["xyzzyq"] = 5
    assert bertpiece.WordpieceTokenizer(mutable).tokenize("xyzzyq") == ["xyzzyq"]
    assert pickle.loads(pickle.dumps(tok.vocab)) == tok.vocab
    assert pickle.loads(pickle.dumps(tok)).tokenize("Hello") == ["hello"]


def test_a_callers_vocabulary_changed_after_construction_is_refused_at_the_next_call():
    vocab = bertpiece.load_vocab(VOCAB)
    wordpiece, basic = bertpiece.WordpieceTokenizer(vocab), bertpiece.BasicTokenizer(vocab=vocab, preserve_unused_tokens=True)
    theirs = google.WordpieceTokenizer(vocab)
    vocab["xyzzyq"] = 5
    assert theirs.tokenize("xyzzyq") == ["xyzzyq"]  # Google's keeps the caller's dict
    for tok in (wordpiece, basic):
        with pytest.raises(RuntimeError, match="changed size after construction"):
            tok.tokenize("xyzzyq")
