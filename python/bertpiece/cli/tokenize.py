"""`bertpiece tokenize [TEXT]`: tokens, ids and offsets of a text (or of each stdin line)."""

from __future__ import annotations

import sys

from .. import DEFAULT_MODEL, PRETRAINED, FullTokenizer


def add_parser(sub):
    p = sub.add_parser("tokenize", help=__doc__.split(": ", 1)[1], description=__doc__)
    p.add_argument("text", nargs="*", help="texts to tokenize (default: one per stdin line)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", default=DEFAULT_MODEL, choices=list(PRETRAINED), help="bundled vocabulary")
    src.add_argument("--vocab", help="a vocab.txt file instead of a bundled vocabulary")
    p.add_argument("--cased", action="store_true", help="do not lowercase (with --vocab)")
    p.add_argument("--reference", default="google", choices=["google", "transformers", "tokenizers"])
    p.set_defaults(run=run)


def run(args) -> int:
    from . import UserError

    try:
        if args.vocab:
            tok = FullTokenizer(args.vocab, not args.cased, reference=args.reference)
        else:
            tok = FullTokenizer.from_pretrained(args.model, reference=args.reference)
    except (OSError, ValueError) as e:
        raise UserError(str(e)) from None
    texts = args.text or (line.rstrip("\n") for line in sys.stdin)
    for text in texts:
        tokens = tok.tokenize(text)
        print(" ".join(tokens))
        print(" ".join(map(str, tok.convert_tokens_to_ids(tokens))))
    return 0
