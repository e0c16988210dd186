"""`bertpiece parity`: the real reference libraries over the UD test sentences,
planted differences (found, named, marked, classified), the HTML and JSON
reports, and the one-line errors."""

import html
import io
import json
import os
import subprocess
import sys
import unicodedata

import pytest

import bertpiece
from bertpiece import parity_report, references
from bertpiece.cli import main
from google_reference import data_files, read_lines

PER_FILE = 25  # lines from each tests/data file: 12 languages, 300 lines


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A small multilingual corpus file (PER_FILE lines from every UD file) and its lines."""
    lines = [line for name in data_files() for line in read_lines(name)[:PER_FILE]]
    path = tmp_path_factory.mktemp("parity") / "corpus.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
    return str(path), lines


def run_cli(capsys, *argv):
    """(exit status, stdout, stderr) of `bertpiece parity ...` run in-process."""
    rc = main(["parity", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys, *argv):
    rc, out, err = run_cli(capsys, *argv, "--json")
    return rc, json.loads(out)


@pytest.mark.parametrize("reference,model", [
    ("google", "bert-base-multilingual-cased"), ("google", "bert-base-uncased"),
    ("transformers", "bert-base-uncased"), ("transformers", "bert-base-chinese"),
    ("tokenizers", "bert-base-multilingual-cased"), ("tokenizers", "bert-base-uncased"),
    ("oracle", "bert-base-cased"),
])
def test_real_references_agree_on_the_corpus(capsys, corpus, reference, model):
    path, lines = corpus
    rc, report = run_json(capsys, path, "--reference", reference, "--model", model)
    assert rc == 0 and report["ok"]
    assert report["lines"] == len(lines)
    assert report["differences"]["unexplained"] == 0
    assert report["matching"] + sum(report["differences"].values()) == len(lines)
    if reference in ("tokenizers", "oracle"):  # fixed Unicode tables on both sides: nothing to excuse
        assert report["matching"] == len(lines)
    for example in report["examples"]:  # any accepted difference names its code points
        assert example["kind"] == "unicode_version" and example["detail"]


def test_text_report_of_an_agreeing_corpus(capsys, corpus):
    path, lines = corpus
    rc, out, err = run_cli(capsys, path, "--reference", "oracle")
    assert rc == 0 and err == ""
    assert f"lines compared: {len(lines)}" in out
    assert "OK: no unexplained differences" in out
    assert "\x1b" not in out  # capsys is not a terminal


def _planting(monkeypatch, target_text, change):
    """Make the reference's output for `target_text` go through `change(tokens, ids)`."""
    real = references.load_reference
    seen = []

    def load(reference, vocab_file, do_lower_case):
        encode = real(reference, vocab_file, do_lower_case)

        def planted(text):
            seen.append(text)
            tokens, ids = encode(text)
            return change(list(tokens), list(ids)) if text == target_text else (tokens, ids)
        return planted
    monkeypatch.setattr(references, "load_reference", load)
    return seen


PLANTED = "<b>&\"planted\""


def test_planted_difference_is_found_marked_and_fails(capsys, monkeypatch, corpus, tmp_path):
    path, lines = corpus
    line_no = 7
    target = lines[line_no - 1]
    ours = bertpiece.FullTokenizer.from_pretrained("bert-base-uncased")
    k = 2
    assert len(ours.tokenize(target)) > k + 1

    def change(tokens, ids):
        tokens[k] = PLANTED
        ids[k] = 424242
        return tokens, ids
    seen = _planting(monkeypatch, target, change)
    report = tmp_path / "report.html"
    rc, out, err = run_cli(capsys, path, "--reference", "google", "--html", str(report))
    assert rc == 1 and err == ""
    assert seen == lines  # the reference ran once per line
    assert f"line {line_no} [unexplained]" in out
    assert f"exact matches:  {len(lines) - 1} " in out
    assert "FAIL: 1 unexplained difference" in out
    marked = [row for row in out.splitlines() if row.startswith("   > ")]
    assert len(marked) == 1
    assert marked[0].split()[1:3] == [str(k), ours.tokenize(target)[k]]
    assert PLANTED in marked[0]

    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    for external in ("<script", "<link", "src=", "href=", "url(", "@import"):
        assert external not in page
    assert PLANTED not in page  # escaped, never raw
    assert f'<span class="tok first" title="id 424242">{html.escape(PLANTED)}</span>' in page
    assert f"line {line_no}</b>" in page

    rc, data = run_json(capsys, path, "--reference", "google")
    assert rc == 1 and data["differences"] == {"unicode_version": 0, "known_quirk": 0, "unexplained": 1}
    [example] = data["examples"]
    assert example["line"] == line_no and example["text"] == target
    assert example["first_difference"] == {"field": "tokens", "index": k}
    assert example["bertpiece"]["tokens"] == ours.tokenize(target)
    assert example["reference"]["tokens"][k] == PLANTED


def test_ids_only_difference(capsys, monkeypatch, corpus):
    path, lines = corpus
    target = lines[0]

    def change(tokens, ids):
        ids[-1] += 1
        return tokens, ids
    _planting(monkeypatch, target, change)
    rc, data = run_json(capsys, path, "--reference", "oracle")
    assert rc == 1
    n = len(bertpiece.FullTokenizer.from_pretrained("bert-base-uncased").tokenize(target))
    assert data["examples"][0]["first_difference"] == {"field": "ids", "index": n - 1}


def test_show_limits_the_listed_lines(capsys, monkeypatch, corpus):
    path, lines = corpus
    real = references.load_reference
    monkeypatch.setattr(references, "load_reference",
                        lambda *a: (lambda text, enc=real(*a): (enc(text)[0] + ["x"], enc(text)[1] + [0])))
    rc, out, _ = run_cli(capsys, path, "--reference", "oracle", "--show", "3")
    assert rc == 1
    assert sum(row.startswith("line ") for row in out.splitlines()) == 3
    assert f"... {len(lines) - 3} more differing line(s)" in out
    rc, data = run_json(capsys, path, "--reference", "oracle", "--show", "0")
    assert data["matching"] == 0 and data["examples"] == []


def _unicode_candidates():
    """Code points whose data differs between this Python and Unicode 17.0.0 AND for
    which the real Google tokenizer's output differs from bertpiece's."""
    google = references.load_reference("google", bertpiece.vocab_path("bert-base-uncased"), True)
    ours = references.load_bertpiece("google", bertpiece.vocab_path("bert-base-uncased"), True)
    out = []
    for cp in sorted(references.unicode_version_diff()):
        text = f"ab{chr(cp)}cd"
        if google(text) != ours(text):
            out.append(cp)
            if len(out) == 3:
                break
    return out


def test_unicode_version_difference_is_classified(capsys, monkeypatch, corpus, tmp_path):
    path, lines = corpus
    candidates = _unicode_candidates()
    if unicodedata.unidata_version != bertpiece.UNICODE_VERSION:
        assert candidates, "Unicode versions differ, so some code point must change Google's output"
        cp = candidates[0]
    else:  # same Unicode version: plant the difference and the differing code point
        cp = 0x1E030
        monkeypatch.setattr(references, "unicode_version_diff", lambda: frozenset({cp}))
        _planting(monkeypatch, f"Unicode ab{chr(cp)}cd", lambda t, i: (t + ["x"], i + [0]))
    text = f"Unicode ab{chr(cp)}cd"
    corpus_file = tmp_path / "unicode.txt"
    corpus_file.write_text("\n".join(lines[:20] + [text]) + "\n", encoding="utf-8")
    rc, data = run_json(capsys, str(corpus_file), "--reference", "google")
    assert rc == 0 and data["ok"]
    assert data["differences"] == {"unicode_version": 1, "known_quirk": 0, "unexplained": 0}
    [example] = data["examples"]
    assert example["line"] == 21
    import unicodedata2
    assert f"U+{cp:04X} {unicodedata2.name(chr(cp))}" in example["detail"]
    rc, out, _ = run_cli(capsys, str(corpus_file), "--reference", "google")
    assert rc == 0 and f"line 21 [Unicode version]: U+{cp:04X} " in out


def test_unicode_class_only_for_references_reading_the_interpreters_data(capsys, monkeypatch, corpus, tmp_path):
    cp = 0x0041  # planted: pretend "A" differs between the Unicode versions
    monkeypatch.setattr(references, "unicode_version_diff", lambda: frozenset({cp}))
    target = "A planted line"
    _planting(monkeypatch, target, lambda t, i: (t[:-1], i[:-1]))
    corpus_file = tmp_path / "planted.txt"
    corpus_file.write_text("plain line\n" + target + "\n", encoding="utf-8")
    for reference, kind in [("transformers", "unicode_version"), ("google", "unicode_version"),
                            ("tokenizers", "unexplained"), ("oracle", "unexplained")]:
        rc, data = run_json(capsys, str(corpus_file), "--reference", reference)
        assert data["differences"][kind] == 1, reference
        assert rc == (1 if kind == "unexplained" else 0)


def test_known_quirk_is_classified(capsys, monkeypatch, corpus):
    path, lines = corpus
    target = lines[3]
    _planting(monkeypatch, target, lambda t, i: (t[1:], i[1:]))
    quirk = parity_report.Quirk("dropped first token", "docs/example.md",
                                lambda text, ours, theirs: ours.tokens[1:] == theirs.tokens)
    monkeypatch.setitem(parity_report.KNOWN_QUIRKS, "oracle", [quirk])
    rc, data = run_json(capsys, path, "--reference", "oracle")
    assert rc == 0 and data["differences"]["known_quirk"] == 1
    assert data["examples"][0]["detail"] == ["dropped first token", "docs/example.md"]


def test_a_reference_that_raises_is_a_difference(capsys, monkeypatch, tmp_path):
    def load(reference, vocab_file, do_lower_case):
        def encode(text):
            raise RuntimeError("boom")
        return encode
    monkeypatch.setattr(references, "load_reference", load)
    f = tmp_path / "in.txt"
    f.write_text("hello\n", encoding="utf-8")
    rc, out, err = run_cli(capsys, str(f), "--reference", "oracle")
    assert rc == 1 and "RuntimeError: boom" in out


@pytest.mark.parametrize("reference,module,package", [
    ("google", "bert.tokenization", "bert-tensorflow"), ("google", "absl.flags", "absl-py"),
    ("transformers", "transformers", "transformers"), ("tokenizers", "tokenizers", "tokenizers"),
])
def test_missing_reference_library(capsys, monkeypatch, corpus, reference, module, package):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    references.load_google.cache_clear()
    try:
        rc, out, err = run_cli(capsys, corpus[0], "--reference", reference)
    finally:
        references.load_google.cache_clear()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bertpiece: error: ")
    assert package in err and references.INSTALL[reference] in err and "bertpiece[" not in err
    # The package the reference is known by comes first, whichever import failed.
    assert err.index(references.REFERENCES[reference]) < err.index("pip install")


@pytest.mark.parametrize("argv,message", [
    (["/nonexistent/corpus.txt"], "cannot read /nonexistent/corpus.txt"),
    (["CORPUS", "--vocab", "/nonexistent/vocab.txt"], "vocabulary file not found: /nonexistent/vocab.txt"),
    (["BAD_UTF8"], "line 2 is not valid UTF-8"),
    (["CORPUS", "--html", "/nonexistent/dir/report.html"], "cannot write /nonexistent/dir/report.html"),
])
def test_bad_input_is_a_one_line_error(capsys, corpus, tmp_path, argv, message):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf-8\n")
    argv = [{"CORPUS": corpus[0], "BAD_UTF8": str(bad)}.get(a, a) for a in argv]
    rc, out, err = run_cli(capsys, *argv, "--reference", "oracle")
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("bertpiece: error: ") and message in err


def test_bad_show_value(capsys):
    with pytest.raises(SystemExit) as e:
        main(["parity", "-", "--reference", "oracle", "--show", "-1"])
    assert e.value.code == 2 and "--show" in capsys.readouterr().err


def test_custom_vocab_and_casing(capsys, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[UNK]\nhello\nHello\n##s\n,\n", encoding="utf-8")
    f = tmp_path / "in.txt"
    f.write_text("Hello, hellos HELLO\n", encoding="utf-8")
    for flag in ("--lowercase", "--no-lowercase"):
        for reference in ("google", "transformers", "tokenizers", "oracle"):
            rc, data = run_json(capsys, str(f), "--reference", reference, "--vocab", str(vocab), flag)
            assert rc == 0 and data["matching"] == 1, (flag, reference)
            assert data["do_lower_case"] is (flag == "--lowercase")


def test_stdin_in_process(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Hello world\n\nnaïve café\n"))
    rc, data = run_json(capsys, "-", "--reference", "google")
    assert rc == 0 and data["lines"] == 3 and data["matching"] == 3


def test_subprocess_stdin_and_exit_status():
    env = dict(os.environ, NO_COLOR="1")
    text = "Hello, World!\r\nTokenization of naïve Ὀδυσσεύς\u2028中文\n"
    proc = subprocess.run([sys.executable, "-m", "bertpiece", "parity", "-", "--reference", "tokenizers"],
                          input=text.encode("utf-8"), capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    assert "lines compared: 2" in out and "exact matches:  2 (100.00%)" in out
