"""Differences from transformers that docs/bert_tokenizer.md lists as deliberate
(its differences table), as predicates of the stateful machine's comparisons
`(machine, where, difference, ours, theirs, args) -> bool`: a difference that
matches one is what the doc says bertpiece does, not a defect. Each is as
narrow as its doc row; everything else fails the machine.
"""

from __future__ import annotations


def _raised(outcome, kind=Exception) -> bool:
    return isinstance(outcome[1], kind)


def _non_integer_ids(m, where, d, ours, theirs, args) -> bool:
    """Row "non-integer ids in decode / batch_decode / convert_ids_to_tokens": bertpiece's
    IdTypeError (a TypeError and ValueError) where the reference cuts a float to an int."""
    ids = args.get("ids")
    ids = ids if isinstance(ids, list) else [ids]
    flat = [i for x in ids for i in (x if isinstance(x, list) else [x])]
    return any(type(i) is not int for i in flat) and type(ours[1]).__name__ == "IdTypeError"


def _missing_cls_sep(m, where, d, ours, theirs, args) -> bool:
    """Row "cls_token=None / sep_token=None ... with special tokens added": bertpiece's
    ValueError naming the missing token (None, or one without an id) where the reference puts
    None or a stray id in the rows."""
    return _raised(ours, ValueError) and "adding special tokens" in str(ours[1]) \
        and ("is None" in str(ours[1]) or "has no id" in str(ours[1])) \
        and None in (m.ours.cls_token_id, m.ours.sep_token_id)


def _empty_rows_integer(m, where, d, ours, theirs, args) -> bool:
    """Row "an empty row of a ragged batch with return_tensors="np" ...": bertpiece's empty row
    is int64 where the reference's np.asarray([]) is float64 (all-empty tensors: float32)."""
    tail = d.rsplit(": ", 1)[-1]
    for kind, ours_dtype, floats in (("ndarray", "int64", ("float64", "float32")),
                                     ("tensor", "torch.int64", ("torch.float64", "torch.float32"))):
        for f in floats:
            if tail.startswith(f"{kind} {ours_dtype}(") and f" vs {f}(" in tail:
                shape = tail[len(kind) + len(ours_dtype) + 2:tail.index(")")]
                return "0" in shape.replace(" ", "").split(",") and tail.endswith(f"{f}({shape})")
    return False


def _bad_items_first(m, where, d, ours, theirs, args) -> bool:
    """Row "bad batch items ...": bertpiece checks every item before encoding any, so its error
    naming the bad item comes where the reference, item by item, raised an earlier item's error
    (both ValueErrors)."""
    return _raised(ours, ValueError) and _raised(theirs, ValueError) and "but the reference's message" in d \
        and str(ours[1]).startswith("text") and "BertTokenizerLegacy refuses it" in str(ours[1])


DOCUMENTED: dict = {
    "bad-items-checked-first": _bad_items_first,
    "empty-rows-stay-integer": _empty_rows_integer,
    "non-integer-ids-refused": _non_integer_ids,
    "missing-cls-sep-refused": _missing_cls_sep,
}
