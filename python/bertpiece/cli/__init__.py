"""The `bertpiece` command line (also `python -m bertpiece`).

One module per subcommand; each defines `add_parser(subparsers)` and
`run(args) -> int` (the exit status). User mistakes end as a one-line
`bertpiece: error: ...` on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

from .._errors import UserError  # noqa: F401  (raised by the commands, caught in main)
from . import encode, info, parity, tokenize, train

COMMANDS = [tokenize, encode, info, parity, train]


# Where --help sends the reader: docs/ is not in the wheel, the repository is reachable from anywhere.
DOCS_URL = "https://github.com/bertpiece/bertpiece/blob/main/docs/"
# Largest value an integer option takes (the core reads sizes and counts as 64-bit integers).
INT_MAX = 2**63 - 1


def int_range(least: int, most: int = INT_MAX):
    """An argparse `type`: an integer from `least` to `most`, else a one-line usage error (exit 2)."""
    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {value!r}") from None
        if not least <= n <= most:
            upper = f"{most:,}" if most != INT_MAX else "2**63 - 1"
            raise argparse.ArgumentTypeError(f"must be an integer from {least} to {upper}, got {value}")
        return n
    parse.__name__ = "integer"  # argparse names the type in "invalid integer value"
    return parse


def write_summary_json(path, stats):
    """`--summary-json PATH`: the command's summary as JSON (a one-line error if it cannot be written)."""
    import json

    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(stats, f, indent=2)
            f.write("\n")
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror or e}") from None


def refuse_input_as_output(inputs, outputs):
    """No output file may be one of the inputs under any name (symlink, hard link): with
    --overwrite that would destroy the corpus being read."""
    for path in outputs:
        if path is None or not os.path.exists(path):
            continue
        for source in inputs:
            if source != "-" and os.path.exists(source) and os.path.samefile(path, source):
                raise UserError(f"{path} is the input file {source}: write the output to another file")


@contextlib.contextmanager
def threads_note(threads):
    """--threads above the CPUs this process may use: one plain note on stderr
    instead of the core's RuntimeWarning (which names a file and line) at every batch."""
    if threads is None:
        yield
        return
    from .. import _core

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _core.WordCounter().feed([], num_threads=threads)  # the core's own check, on no text
    for w in caught:
        message = str(w.message)
        if message.startswith("num_threads="):
            print(f"bertpiece: --threads {message.removeprefix('num_threads=')}", file=sys.stderr)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"num_threads=\d+ is more than", category=RuntimeWarning)
        yield


def add_vocab_options(p, lowercase_help):
    """`--model NAME | --vocab FILE` and `--lowercase/--no-lowercase`, the same in every subcommand."""
    from .. import DEFAULT_MODEL, PRETRAINED

    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", default=DEFAULT_MODEL, choices=list(PRETRAINED),
                     help=f"bundled vocabulary (default {DEFAULT_MODEL})")
    src.add_argument("--vocab", metavar="FILE", help="a vocab.txt file instead of a bundled vocabulary")
    p.add_argument("--lowercase", action=argparse.BooleanOptionalAction, default=None, help=lowercase_help)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake reported in one line (not the whole usage block), exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv=None) -> int:
    from .. import UNICODE_VERSION, __version__

    ap = _Parser(prog="bertpiece", description="Exact BERT WordPiece tokenization.",
                 epilog=f"Documentation: {DOCS_URL}cli.md")
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
