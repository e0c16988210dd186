"""The `bertpiece` command line (also `python -m bertpiece`).

One module per subcommand; each defines `add_parser(subparsers)` and
`run(args) -> int` (the exit status). User mistakes end as a one-line
`bertpiece: error: ...` on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import encode, info, parity, tokenize

COMMANDS = [tokenize, encode, info, parity]


class UserError(Exception):
    """A mistake on the command line or in the input: reported in one line, exit status 2."""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bertpiece", description="Exact BERT WordPiece tokenization.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    args = ap.parse_args(argv)
    try:
        return args.run(args)
    except UserError as e:
        print(f"bertpiece: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bertpiece: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `bertpiece tokenize ... | head`
        sys.stderr.close()
        return 1
