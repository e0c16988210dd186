"""The oracle (reference="google") must equal the REAL Google BERT tokenizer
(bert-tensorflow 1.0.4), except where the interpreter's Unicode version differs
from the oracle's pinned one (see google_reference.unicode_version_diff)."""

import functools
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import google_reference as gr  # noqa: E402
from tiers import ud_params  # noqa: E402

google = gr.load_google()
oracle = gr.load_oracle()

VOCABS = gr.VOCABS  # vocab name -> do_lower_case the model was trained with
FILES = gr.data_files()

FULL_JOBS = [("full", v, f) for v in VOCABS for f in FILES]
BASIC_JOBS = [("basic", lower, f) for lower in (True, False) for f in FILES]


# --------------------------------------------------------------------------
# Corpus comparison: the Rust core must equal the oracle exactly, and the
# oracle must equal the real Google code except for lines explained by the
# interpreter's Unicode version.
# --------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _full_tokenizers(vocab):
    """Google's, the oracle's and bertpiece's FullTokenizer of `vocab`, made once per process (12 jobs
    share each: loading the multilingual vocabulary in Python takes ~0.2 s per tokenizer)."""
    import bertpiece

    path = gr.vocab_path(vocab)
    return (google.FullTokenizer(path, do_lower_case=VOCABS[vocab]),
            oracle.FullTokenizer(path, do_lower_case=VOCABS[vocab], reference="google"),
            bertpiece.FullTokenizer(path, do_lower_case=VOCABS[vocab]))


def _run_job(job):
    """(number of lines, [(line, google output, oracle output)] that differ)."""
    import bertpiece

    kind, arg, filename = job
    lines = gr.read_lines(filename)
    if kind == "basic":
        # The full-tokenizer jobs already run every line through the basic
        # tokenizer; here every 5th line checks its output on its own.
        lines = lines[::5]
    if kind == "full":
        # Every 4th line, the vocabularies taking turns: each line runs under one of the four, so under a
        # lowercasing one (uncased, chinese) or a cased one (cased, multilingual), alternately.
        lines = lines[list(VOCABS).index(arg)::4]
        g, o, r = _full_tokenizers(arg)

        def run(tok, line):
            tokens = tok.tokenize(line)
            return tokens, tok.convert_tokens_to_ids(tokens)
    else:
        g = google.BasicTokenizer(do_lower_case=arg)
        o = oracle.BasicTokenizer(do_lower_case=arg, reference="google")
        r = bertpiece.BasicTokenizer(do_lower_case=arg)

        def run(tok, line):
            return tok.tokenize(line)

    bad = []
    for line in lines:
        expected, got = run(g, line), run(o, line)
        assert run(r, line) == got, ("rust != oracle", line)
        if kind == "full":
            assert r.encode(line) == got[1], ("rust encode != oracle ids", line)
        if expected != got:
            bad.append((line, expected, got))
    return len(lines), bad


_RESULTS = {}


def _check(job):
    _RESULTS[job] = n_lines, bad = _run_job(job)
    assert n_lines > 0
    unexplained = [b for b in bad if not gr.explained_by_unicode_version(b[0])]
    assert not unexplained, (
        "%d of %d lines differ from Google for a reason other than the Unicode "
        "version; first: %r" % (len(unexplained), n_lines, unexplained[0])
    )


@pytest.mark.parametrize("vocab,filename", ud_params([(v, f) for _, v, f in FULL_JOBS], key=lambda p: p[1]))
def test_full_tokenizer_corpus(vocab, filename):
    _check(("full", vocab, filename))


@pytest.mark.parametrize("lower,filename", ud_params([(lw, f) for _, lw, f in BASIC_JOBS], key=lambda p: p[1]))
def test_basic_tokenizer_corpus(lower, filename):
    _check(("basic", lower, filename))


def test_corpus_summary():
    """Prints (with -s / -rA) how many lines differed and were explained, for the
    corpus jobs this process ran."""
    corpus_results = _RESULTS
    diff = gr.unicode_version_diff()
    import unicodedata

    print("\ninterpreter Unicode %s, oracle %s: %d code points differ"
          % (unicodedata.unidata_version, oracle.UNICODE_VERSION, len(diff)))
    total_lines = total_bad = 0
    for job, (n_lines, bad) in corpus_results.items():
        total_lines += n_lines
        total_bad += len(bad)
        if bad:
            print("  %s %s %s: %d/%d lines differ (Unicode version)" % (job + (len(bad), n_lines)))
    print("  %d jobs, %d lines, %d differing lines" % (len(corpus_results), total_lines, total_bad))
    if unicodedata.unidata_version == oracle.UNICODE_VERSION:
        assert not diff and total_bad == 0


def test_unicode_version_diff_is_consistent():
    import unicodedata

    diff = gr.unicode_version_diff()
    if unicodedata.unidata_version == oracle.UNICODE_VERSION:
        assert not diff
    else:
        assert diff
    # U+1E030 (Cyrillic modifier letter, Unicode 15) is unassigned in 14.0.
    if unicodedata.unidata_version < "15":
        assert 0x1E030 in diff
    assert ord("a") not in diff and ord(" ") not in diff
