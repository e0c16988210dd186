"""`bertpiece tokenize [TEXT ...]`: tokens, ids and offsets of each text (or of each stdin line).

One row per token: the token, its id, its code-point offsets start:end into
the original text and the original substring they cover. Colour on a terminal
(not with --no-color or the NO_COLOR environment variable). --json prints one
JSON object per text instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Tuple

from .. import PRETRAINED, REFERENCES, FullTokenizer, vocab_path
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
    p.add_argument("--reference", default=DEFAULT_REFERENCE, choices=list(REFERENCES),
                   help=f"whose semantics to reproduce (default {DEFAULT_REFERENCE}, as `bertpiece encode` and "
                        "BertTokenizer; google: Google's tokenization.py)")
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


def run(args) -> int:
    tok = _tokenizer(args)
    color = not args.json and use_color(args.no_color)
    if args.text:
        texts = [_argument_text(text, k) for k, text in enumerate(args.text, 1)]
    else:
        if is_terminal(sys.stdin):  # not a pipe: say what the silence is waiting for
            print("bertpiece tokenize: reading texts from stdin, one per line, until Ctrl-D "
                  "(or give them as arguments: bertpiece tokenize \"some text\")", file=sys.stderr)
        texts = read_lines("-")
    if not args.json:
        print(paint(settings_line(args), "dim", color))
    for text in texts:
        tokens, ids, offsets = encode(tok, text)
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
