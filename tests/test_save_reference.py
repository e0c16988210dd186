"""`save_pretrained` of a tokenizer in any reference mode reloads with
`bertpiece.BertTokenizer.from_pretrained(folder)` in that mode, with the same
ids on UD text; transformers' AutoTokenizer still loads the folder as a BERT
tokenizer (the transformers-mode folder as `BertTokenizerLegacy`, with its ids)."""

import warnings

import pytest

import bertpiece
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
# UD lines, plus a 150-character word: [UNK] in the tokenizers and transformers modes
# (100-character limit), WordPieces in Google's (200)
LINES = [line for f in data_files() for line in read_lines(f)[:25]] + ["a " + "abcdefghij" * 15 + " b"]


def columns(enc):
    return {k: list(v) for k, v in enc.items()}


@pytest.mark.parametrize("model", ["bert-base-uncased", "bert-base-multilingual-cased"])
@pytest.mark.parametrize("reference", ["tokenizers", "transformers", "google"])
def test_a_saved_mode_reloads_in_that_mode(tmp_path, model, reference):
    tok = bertpiece.BertTokenizer.from_pretrained(model, reference=reference)
    tok.save_pretrained(tmp_path)
    back = bertpiece.BertTokenizer.from_pretrained(tmp_path)
    assert back.reference == reference
    assert columns(back(LINES)) == columns(tok(LINES))  # (legacy mode: no token_type_ids)
    # an explicit reference still wins
    other = "tokenizers" if reference != "tokenizers" else "transformers"
    assert bertpiece.BertTokenizer.from_pretrained(tmp_path, reference=other).reference == other
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    assert type(auto).__name__ == ("BertTokenizerLegacy" if reference == "transformers" else "BertTokenizer")
    if reference != "google":  # (google mode is Google's tokenization: transformers' own ids may differ)
        assert columns(auto(LINES)) == columns(tok(LINES))


def test_the_modes_differ_on_this_text():
    """(the test above can fail: each mode's output differs from the others' here)"""
    out = {r: columns(bertpiece.BertTokenizer.from_pretrained("bert-base-uncased", reference=r)(LINES))
           for r in ("tokenizers", "transformers", "google")}
    assert out["tokenizers"] != out["transformers"] and out["tokenizers"] != out["google"] != out["transformers"]
