"""The `bertpiece` command line (also `python -m bertpiece`).

One module per subcommand; each defines `add_parser(subparsers)` and
`run(args) -> int` (the exit status). User mistakes end as a one-line
`bertpiece: error: ...` on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import encode, info, parity, tokenize, train

COMMANDS = [tokenize, encode, info, parity, train]


class UserError(Exception):
    """A mistake on the command line or in the input: reported in one line, exit status 2."""


def add_vocab_options(p, lowercase_help):
    """`--model NAME | --vocab FILE` and `--lowercase/--no-lowercase`, the same in every subcommand."""
    from .. import DEFAULT_MODEL, PRETRAINED

    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", default=DEFAULT_MODEL, choices=list(PRETRAINED),
                     help=f"bundled vocabulary (default {DEFAULT_MODEL})")
    src.add_argument("--vocab", metavar="FILE", help="a vocab.txt file instead of a bundled vocabulary")
    p.add_argument("--lowercase", action=argparse.BooleanOptionalAction, default=None, help=lowercase_help)


def main(argv=None) -> int:
    from .. import UNICODE_VERSION, __version__

    ap = argparse.ArgumentParser(prog="bertpiece", description="Exact BERT WordPiece tokenization.")
    ap.add_argument("--version", action="version", version=f"bertpiece {__version__} (Unicode {UNICODE_VERSION})")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    args = ap.parse_args(argv)
    try:
        return args.run(args)
    except UserError as e:
        print(f"bertpiece: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"bertpiece: {e.args[0] if e.args else 'interrupted'}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `bertpiece tokenize ... | head`
        sys.stderr.close()
        return 1
