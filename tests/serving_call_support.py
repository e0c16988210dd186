"""What tests/test_serving_call.py and tests/test_serving_call_padded.py share: the tokenizer they
compare on, a call's outcome as plain data (output, or exception type and message), the Python
function the core's `__call__` replaced, and the changes made to a tokenizer between calls."""

from bertpiece.bert_tokenizer import call, serving
from bertpiece.bert_tokenizer.encoding import BatchEncoding

import bertpiece

VOCAB = bertpiece.vocab_path("bert-base-uncased")
TEXTS = ["Hello, world!", "", "ΟΔΟΣ İstanbul 中文 ﬁ", "x " * 40, "[SEP] in the text", "a\ud800b", "naïve café"]
GENERAL = call.Calls._general_call


def make(**kwargs):
    return bertpiece.BertTokenizer(vocab_file=VOCAB, **kwargs)



def outcome(f, *args, **kwargs):
    """(kind, value): the call's output as plain data, or its exception's type and message."""
    try:
        out = f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 (both must refuse alike)
        return "error", (type(e), str(e))
    if isinstance(out, BatchEncoding):
        rows = len(out._rows) if out._rows is not None else 0
        return "encoding", (plain(dict(out)), [out.tokens(i) for i in range(rows)] if rows else None)
    return "value", plain(out)


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return ("array", str(getattr(value, "dtype", "")), plain(value.tolist()))  # (ragged rows: arrays in it)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def general_path(tok, *args, **kwargs):
    """`tok(*args, **kwargs)` by the Python function with the one-text path declining."""
    real = serving.one_text
    serving.one_text = lambda *a, **k: None
    try:
        return outcome(GENERAL, tok, *args, **kwargs)
    finally:
        serving.one_text = real


CHANGES = {
    "add_tokens": lambda t: t.add_tokens(["wor", "zzqx"]),
    "special token": lambda t: t.add_special_tokens({"extra_special_tokens": ["zzqx"]}),
    "do_lower_case": lambda t: setattr(t, "do_lower_case", False),
    "model_max_length": lambda t: setattr(t, "model_max_length", 3),
    "padding_side": lambda t: setattr(t, "padding_side", "left"),
    "cls_token": lambda t: setattr(t, "cls_token", "[MASK]"),
    "no sep": lambda t: setattr(t, "sep_token", None),
    "split_special_tokens": lambda t: setattr(t, "split_special_tokens", True),
}
