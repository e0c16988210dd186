"""Google's absl flag `--preserve_unused_tokens`, for the Google API.

Google's tokenization.py defines the flag and reads it at every call. Here a
tokenizer built with `preserve_unused_tokens=None` (the default) follows it the
same way; True/False fix the setting. absl is never imported by bertpiece: the
flag exists when the application has loaded absl (when this module is imported
or a tokenizer is built), as in every program that parses absl flags.
"""

from __future__ import annotations

import sys

NAME = "preserve_unused_tokens"
_HELP = "If True, Wordpiece tokenization will not be applied to words in the vocab."


def flag_values():
    """absl's FLAGS with the flag defined (ours if Google's module has not defined it), or None without absl."""
    flags = sys.modules.get("absl.flags")
    if flags is None:
        return None
    values = flags.FLAGS
    if NAME not in values:
        # allow_override: Google's module, imported later, replaces this definition instead of failing
        flags.DEFINE_bool(NAME, False, _HELP, allow_override=True)
    return values


def current(values) -> bool:
    """The flag's value now (its default before absl parsed the command line, where Google's code raises)."""
    return bool(values[NAME].value) if values is not None and NAME in values else False


flag_values()
