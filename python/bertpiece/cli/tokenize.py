"""`bertpiece tokenize [TEXT ...]`: tokens, ids and offsets of each text (or of each stdin line).

One row per token: the token, its id, its code-point offsets start:end into
the original text and the original substring they cover. Colour on a terminal
(not with --no-color or the NO_COLOR environment variable). --json prints one
JSON object per text instead. --tokenizer shows any tokenizer.json's tokens
(`bertpiece.Tokenizer`) instead of a BERT vocabulary's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Tuple

from .. import DEFAULT_MODEL, PRETRAINED, REFERENCES, FullTokenizer, vocab_path
from ._input import read_lines
from .encode import DEFAULT_REFERENCE
from ..terminal.text import paint, pad, use_color, visible, width
from ..terminal.progress import is_terminal


def add_parser(sub):
    from . import DOCS_URL, add_vocab_options

    summary = __doc__.split("\n")[0].split(": ", 1)[1]
    p = sub.add_parser("tokenize", help=summary, description=__doc__, epilog=f"Documentation: {DOCS_URL}cli.md",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("text", nargs="*", help="texts to tokenize (default: one per stdin line)")
    add_vocab_options(p, "lowercase and strip accents (default: the model's casing; with --vocab: yes)")
    p.add_argument("--tokenizer", metavar="JSON|FOLDER",
                   help="any tokenizer.json (or a folder holding one) instead of a BERT vocabulary: the rows of "
                        "bertpiece.Tokenizer.from_file(JSON).encode(text, add_special_tokens=False), "
                        "without the file's truncation and padding")
    p.add_argument("--reference", default=None, choices=list(REFERENCES),
                   help=f"whose semantics to reproduce (default {DEFAULT_REFERENCE}, as `bertpiece encode` and "
                        "BertTokenizer; google: Google's tokenization.py)")
    p.set_defaults(model=None)  # "not given" (refused with --tokenizer); the default is filled in by run
    p.add_argument("--json", action="store_true", help="one JSON object per text: text, tokens, ids, offsets")
    p.add_argument("--no-color", action="store_true", help="no colour (also: NO_COLOR environment variable)")
    p.set_defaults(run=run)


def _casing(args) -> bool:
    """--lowercase, else the casing the reference uses for the model: Google's checkpoint
    setting for google, the hub config (BertTokenizer.from_pretrained, encode) otherwise."""
    if args.lowercase is not None:
        return args.lowercase
    if args.vocab:
        return True
    entry = PRETRAINED[args.model]
    return entry.do_lower_case if args.reference == "google" else entry.hf_do_lower_case


def _tokenizer(args) -> FullTokenizer:
    from . import UserError

    if args.vocab and not os.path.isfile(args.vocab):
        raise UserError(f"vocabulary file not found: {args.vocab}")
    try:
        return FullTokenizer(args.vocab or vocab_path(args.model), _casing(args), reference=args.reference)
    except (OSError, ValueError) as e:
        raise UserError(f"cannot load {args.vocab or args.model}: {e}") from None


def settings_line(args) -> str:
    """Which vocabulary, casing and reference produced the rows (the defaults differ between tools)."""
    return (f"{args.vocab or args.model}, {'lowercase' if _casing(args) else 'cased'}, "
            f"reference {args.reference}")


def encode(tok: FullTokenizer, text: str) -> Tuple[List[str], List[int], List[Tuple[int, int]]]:
    """Tokens, ids and code-point offsets of `text`, computed once by the core."""
    ids, offsets, _words = tok._core_now().encode_offsets(text)
    # Every id the core returns is a vocabulary id, so this lookup is exact.
    return tok.convert_ids_to_tokens(ids), list(ids), [tuple(o) for o in offsets]


def _pipeline_encoder(args):
    """--tokenizer: (settings line, text -> (tokens, ids, offsets)); the BERT-only flags are refused."""
    from . import UserError
    from .encode_pipeline import open_tokenizer, tokenizer_file

    given = [flag for dest, flag in (("model", "--model"), ("vocab", "--vocab"), ("reference", "--reference"),
                                     ("lowercase", "--lowercase/--no-lowercase")) if getattr(args, dest) is not None]
    if given:
        raise UserError(f"{', '.join(given)} configure a BERT vocabulary and cannot be combined with --tokenizer "
                        "(the tokenizer.json says everything)")
    path = tokenizer_file(args.tokenizer)
    tok = open_tokenizer(path)
    tok.no_truncation()  # every token of the text is shown
    tok.no_padding()

    def encode_one(text):
        e = tok.encode(text, add_special_tokens=False)
        return e.tokens, e.ids, e.offsets

    return f"{path}, model {tok.model.__class__.__name__}", encode_one


def run(args) -> int:
    if args.tokenizer is not None:
        settings, encode_one = _pipeline_encoder(args)
    else:
        args.model = args.model or DEFAULT_MODEL
        args.reference = args.reference or DEFAULT_REFERENCE
        tok = _tokenizer(args)
        settings = settings_line(args)
        encode_one = lambda text: encode(tok, text)  # noqa: E731
    color = not args.json and use_color(args.no_color)
    if args.text:
        texts = [_argument_text(text, k) for k, text in enumerate(args.text, 1)]
    else:
        if is_terminal(sys.stdin):  # not a pipe: say what the silence is waiting for
            print("bertpiece tokenize: reading texts from stdin, one per line, until Ctrl-D "
                  "(or give them as arguments: bertpiece tokenize \"some text\")", file=sys.stderr)
        texts = read_lines("-")
    if not args.json:
        print(paint(settings, "dim", color))
    for text in texts:
        tokens, ids, offsets = encode_one(text)
        if args.json:
            print(json.dumps({"text": text, "tokens": tokens, "ids": ids, "offsets": [list(o) for o in offsets]},
                             ensure_ascii=False))
            continue
        print()
        print(render(text, tokens, ids, offsets, color))
    return 0


def _argument_text(text: str, position: int) -> str:
    """A command-line text; argv bytes that are not UTF-8 (Python keeps them as lone
    surrogates) are a one-line error, as invalid UTF-8 on stdin is."""
    from . import UserError

    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            os.fsencode(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise UserError(f"argument {position} is not valid UTF-8 (byte {e.start})") from None
        raise UserError(f"argument {position} holds a lone surrogate, which is not text") from None
    return text


def render(text: str, tokens: List[str], ids: List[int], offsets: List[Tuple[int, int]], color: bool) -> str:
    """The text, then one aligned row per token: token, id, start:end, original substring."""
    rows = [(visible(t), str(i), f"{s}:{e}", visible(text[s:e])) for t, i, (s, e) in zip(tokens, ids, offsets)]
    head = paint(visible(text), "bold", color) + paint(f"  ({len(tokens)} token{'' if len(tokens) == 1 else 's'})", "dim", color)
    if not rows:
        return head
    w_tok = max(width(r[0]) for r in rows)
    w_id = max(len(r[1]) for r in rows)
    w_off = max(len(r[2]) for r in rows)
    out = [head]
    for tok_, id_, off, sub in rows:
        out.append("  " + paint(pad(tok_, w_tok), "cyan", color) + "  " + paint(id_.rjust(w_id), "yellow", color)
                   + "  " + paint(off.ljust(w_off), "dim", color) + "  " + sub)
    return "\n".join(out)
