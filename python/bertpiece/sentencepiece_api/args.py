"""Argument checks and the id/piece rewrites of sentencepiece's Python
binding (RewriteIds): reverse, then `bos` first and `eos` last; with
`emit_unk_piece` an unknown piece is spelled as the unk piece."""

_RETURN_TYPES = (int, str, bytes, "proto", "serialized_proto", "numpy", "offset_mapping")
_NOT_IMPLEMENTED = ("proto", "serialized_proto", "offset_mapping")


def is_sequence(x):
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes))


def return_type(default, return_type, out_type):
    """sentencepiece's `_resolve_return_type`, with the types bertpiece does not produce refused by name."""
    if out_type is not None:
        if return_type is not None:
            raise ValueError("Cannot specify both out_type and return_type. Use return_type instead.")
        return_type = out_type
    if return_type is None:
        return_type = default
    if return_type == "immutable_proto":
        raise ValueError("immutable_proto is deprecated and no longer supported. Use return_type='proto' instead.")
    if return_type not in _RETURN_TYPES:
        raise ValueError(f"Invalid return_type: {return_type}. Must be one of {_RETURN_TYPES}")
    if return_type in _NOT_IMPLEMENTED:
        raise NotImplementedError(f"bertpiece.SentencePieceProcessor does not implement return_type={return_type!r}")
    return return_type


def check_types(bools, nbest_size, alpha, num_threads=None):
    """What sentencepiece's pybind11 conversions refuse (TypeError, "incompatible function arguments"),
    checked before anything else, as there: a flag whose type has no `__bool__` (a str; None passes),
    an int argument that is not an integer (8.0) or past a C int, an alpha with no `__float__`."""
    for name, value in bools:
        if value is not None and not hasattr(type(value), "__bool__"):
            raise TypeError(f"incompatible function arguments: {name} must be a bool, got {type(value).__name__}")
    for name, value in (("nbest_size", nbest_size), ("num_threads", num_threads)):
        if value is not None and (isinstance(value, float) or not hasattr(type(value), "__int__")
                                  or not -(1 << 31) <= int(value) < 1 << 31):
            raise TypeError(f"incompatible function arguments: {name} must be a C int, got {value!r}")
    if alpha is not None and not hasattr(type(alpha), "__float__") and not hasattr(type(alpha), "__index__"):
        raise TypeError(f"incompatible function arguments: alpha must be a float, got {type(alpha).__name__}")


def refuse_sampling(enable_sampling, nbest_size, alpha):
    if enable_sampling is True and (nbest_size is None or nbest_size in (0, 1) or alpha is None):
        raise ValueError(
            'When enable_sampling is True, We must specify "nbest_size > 1" or "nbest_size = -1", '
            'and "alpha". "nbest_size" is enabled only on unigram mode ignored in BPE-dropout. '
            'when "nbest_size = -1" , this method samples from all candidates on the lattice '
            "instead of nbest segmentations.")
    if enable_sampling:
        raise NotImplementedError("bertpiece.SentencePieceProcessor does not implement enable_sampling "
                                  "(subword regularization and BPE-dropout are random)")


def text(x):
    """A str to encode (bytes are UTF-8, as sentencepiece reads them)."""
    if isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return x.decode("utf-8")
    raise TypeError("Input must be str or bytes")


def texts(xs):
    out = []
    for x in xs:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, bytes):
            out.append(x.decode("utf-8"))
        else:
            raise TypeError("List elements must be str or bytes")
    return out


def special_checks(sp, add_bos, add_eos, emit_unk_piece=False):
    if add_bos and sp.bos_id() == -1:
        raise ValueError("BOS token is not defined as a control symbol in this model.")
    if add_eos and sp.eos_id() == -1:
        raise ValueError("EOS token is not defined as a control symbol in this model.")
    if emit_unk_piece and sp.unk_id() == -1:
        raise ValueError("UNK token is not defined in this model.")
