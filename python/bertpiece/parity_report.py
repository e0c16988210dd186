"""Compare bertpiece with a reference tokenizer line by line, classify each
difference, and summarise the result (text and JSON; HTML in parity_html.py).

A differing line is classified as
- ``unicode_version``: the reference reads the interpreter's Unicode data
  (`references.INTERPRETER_UNICODE`) and the line holds a code point whose data
  differs from bertpiece's pinned version (`references.unicode_version_codepoints`);
- ``known_quirk``: a documented, expected difference (`KNOWN_QUIRKS`);
- ``unexplained``: anything else, i.e. a bug on one side.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from . import references

UNICODE_VERSION_DIFF = "unicode_version"
KNOWN_QUIRK = "known_quirk"
UNEXPLAINED = "unexplained"
KINDS = (UNICODE_VERSION_DIFF, KNOWN_QUIRK, UNEXPLAINED)
KIND_LABELS = {UNICODE_VERSION_DIFF: "Unicode version", KNOWN_QUIRK: "known quirk", UNEXPLAINED: "unexplained"}


@dataclass(frozen=True)
class Quirk:
    """A documented difference between bertpiece and a reference that is expected.

    `applies(text, ours, theirs)` says whether the quirk explains a differing line;
    `doc` names where the difference is documented.
    """

    name: str
    doc: str
    applies: Callable[[str, "Output", "Output"], bool]


# reference -> the documented quirks that can show up when tokenizing plain text.
# The differences listed in docs/semantics.md and docs/bert_tokenizer.md concern
# options and APIs `bertpiece parity` does not use (add_tokens, batch overflow,
# stride, save_pretrained, the GitHub copy of Google's load_vocab), and each
# reference is reproduced exactly otherwise, so no reference has one today.
KNOWN_QUIRKS: Dict[str, List[Quirk]] = {name: [] for name in references.REFERENCES}


@dataclass
class Output:
    """One side's result for a line: tokens and ids, or the error it raised."""

    tokens: List[str]
    ids: List[int]
    error: Optional[str] = None


@dataclass
class Difference:
    line_no: int  # 1-based
    text: str
    ours: Output
    theirs: Output
    field: str  # "tokens", "ids" or "error": what differs first
    index: int  # position of the first differing token (or id)
    kind: str
    detail: List[str]  # code point labels, or the quirk's name and doc

    def to_json(self) -> dict:
        side = (lambda o: {"tokens": o.tokens, "ids": o.ids, "error": o.error})
        return {"line": self.line_no, "text": self.text, "kind": self.kind, "detail": self.detail,
                "first_difference": {"field": self.field, "index": self.index},
                "bertpiece": side(self.ours), "reference": side(self.theirs)}


@dataclass
class ParityResult:
    reference: str
    source: str  # the model name or the vocab path
    do_lower_case: bool
    lines: int = 0
    matching: int = 0
    counts: Dict[str, int] = field(default_factory=lambda: {k: 0 for k in KINDS})
    differences: List[Difference] = field(default_factory=list)  # the first `keep` ones

    @property
    def differing(self) -> int:
        return self.lines - self.matching

    @property
    def match_rate(self) -> float:
        return self.matching / self.lines if self.lines else 1.0

    @property
    def ok(self) -> bool:
        return self.counts[UNEXPLAINED] == 0

    def unicode_versions(self) -> Dict[str, Optional[str]]:
        from . import UNICODE_VERSION

        theirs = unicodedata.unidata_version if self.reference in references.INTERPRETER_UNICODE else None
        return {"bertpiece": UNICODE_VERSION, "reference": theirs}

    def to_json(self, examples: int) -> dict:
        return {"reference": self.reference, "source": self.source, "do_lower_case": self.do_lower_case,
                "unicode": self.unicode_versions(), "lines": self.lines, "matching": self.matching,
                "match_rate": self.match_rate, "differences": dict(self.counts), "ok": self.ok,
                "examples": [d.to_json() for d in self.differences[:examples]]}


def _run(encode: Callable[[str], Tuple[List[str], List[int]]], text: str) -> Output:
    try:
        tokens, ids = encode(text)
        return Output(list(tokens), list(ids))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - HF's PanicException is a BaseException
        return Output([], [], f"{type(e).__name__}: {e}")


def first_difference(ours: Output, theirs: Output) -> Tuple[str, int]:
    """("tokens" | "ids" | "error", index of the first differing token or id)."""
    if ours.error is not None or theirs.error is not None:
        return "error", 0
    for name in ("tokens", "ids"):
        a, b = getattr(ours, name), getattr(theirs, name)
        if a != b:
            n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            return name, n
    raise ValueError("the outputs are equal")


def classify(reference: str, text: str, ours: Output, theirs: Output) -> Tuple[str, List[str]]:
    """(kind, detail) of a differing line; see the module docstring."""
    if reference in references.INTERPRETER_UNICODE:
        cps = references.unicode_version_codepoints(text)
        if cps:
            return UNICODE_VERSION_DIFF, [references.codepoint_label(cp) for cp in cps]
    for quirk in KNOWN_QUIRKS.get(reference, ()):
        if quirk.applies(text, ours, theirs):
            return KNOWN_QUIRK, [quirk.name, quirk.doc]
    return UNEXPLAINED, []


def compare(lines: Iterable[str], ours: Callable, theirs: Callable, reference: str, source: str,
            do_lower_case: bool, keep: int = 1000, progress: Callable | None = None) -> ParityResult:
    """Run both sides once over each line; keep the first `keep` differences.
    `progress(result)`, when given, is called after each line."""
    result = ParityResult(reference, source, do_lower_case)
    for line_no, text in enumerate(lines, 1):
        a, b = _run(ours, text), _run(theirs, text)
        result.lines += 1
        if a == b and a.error is None:
            result.matching += 1
        else:
            kind, detail = classify(reference, text, a, b)
            result.counts[kind] += 1
            if len(result.differences) < keep:
                what, index = first_difference(a, b)
                result.differences.append(Difference(line_no, text, a, b, what, index, kind, detail))
        if progress is not None:
            progress(result)
    return result
