"""Pure-Python reference ("oracle") of HF tokenizers' decoders, read from a
tokenizer.json ``decoder`` object: tokens back to text.  Each decoder maps a
list of tokens to a list of tokens (HF's ``decode_chain``), so a Sequence
feeds one into the next; ``decode`` joins the result with nothing between.
Tested against tokenizers 0.23.3 and the Rust decoders (src/decoders/)."""

from __future__ import annotations

from typing import List

from .oracle_bpe import bytes_to_unicode

_CHAR_BYTE = {c: b for b, c in bytes_to_unicode().items()}


def cleanup(s: str) -> str:
    """WordPiece's cleanup: no space before punctuation and contractions."""
    for old, new in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
                     (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
        s = s.replace(old, new)
    return s


def _byte_of(token: str):
    """``<0xNN>`` -> NN, parsed as Rust's ``u8::from_str_radix`` (which takes a leading '+')."""
    if len(token.encode("utf-8")) == 6 and token.startswith("<0x") and token.endswith(">"):
        digits = token[3:5]
        body = digits[1:] if digits.startswith("+") else digits
        if body and all(c in "0123456789abcdefABCDEF" for c in body):
            return int(body, 16)
    return None


def _byte_fallback(tokens: List[str]) -> List[str]:
    out, run = [], bytearray()

    def flush():
        if run:
            try:
                out.append(run.decode("utf-8"))
            except UnicodeDecodeError:
                out.extend("\ufffd" for _ in run)
            run.clear()

    for t in tokens:
        b = _byte_of(t)
        if b is None:
            flush()
            out.append(t)
        else:
            run.append(b)
    flush()
    return out


def _strip(token: str, content: str, start: int, stop: int) -> str:
    lead = 0
    while lead < min(start, len(token)) and token[lead] == content:
        lead += 1
    trail = 0
    while trail < min(stop, len(token)) and token[len(token) - 1 - trail] == content:
        trail += 1
    return token[lead:max(len(token) - trail, lead)]


def _ctc(tokens: List[str], pad: str, delimiter: str, clean: bool) -> List[str]:
    out = []
    for i, t in enumerate(tokens):
        if i > 0 and tokens[i - 1] == t:
            continue  # repeats collapse
        t = t.replace(pad, "")
        if clean:
            t = cleanup(t).replace(delimiter, " ")
        if t:
            out.append(t)
    return out


def decode_chain(cfg: dict, tokens: List[str]) -> List[str]:
    kind = cfg["type"]
    if kind == "ByteLevel":
        data = b"".join(bytes(_CHAR_BYTE[c] for c in t) if all(c in _CHAR_BYTE for c in t) else t.encode("utf-8")
                        for t in tokens)
        return [data.decode("utf-8", errors="replace")]
    if kind == "WordPiece":
        out = []
        for i, t in enumerate(tokens):
            if i > 0:
                t = t[len(cfg["prefix"]):] if t.startswith(cfg["prefix"]) else " " + t
            out.append(cleanup(t) if cfg["cleanup"] else t)
        return out
    if kind == "Metaspace":
        keep_first = cfg.get("prepend_scheme", "always") == "never" or cfg.get("add_prefix_space") is False
        return ["".join(("" if i == 0 and not keep_first else " ") if c == cfg["replacement"] else c for c in t)
                for i, t in enumerate(tokens)]
    if kind == "BPEDecoder":
        return [t.replace(cfg["suffix"], "" if i == len(tokens) - 1 else " ") for i, t in enumerate(tokens)]
    if kind == "ByteFallback":
        return _byte_fallback(tokens)
    if kind == "Fuse":
        return ["".join(tokens)]
    if kind == "Strip":
        return [_strip(t, cfg["content"], cfg["start"], cfg["stop"]) for t in tokens]
    if kind == "Replace":
        return [t.replace(cfg["pattern"]["String"], cfg["content"]) for t in tokens]
    if kind == "CTC":
        return _ctc(tokens, cfg["pad_token"], cfg["word_delimiter_token"], cfg["cleanup"])
    if kind == "Sequence":
        for d in cfg["decoders"]:
            tokens = decode_chain(d, tokens)
        return tokens
    raise ValueError(f"the decoders oracle has no {kind!r}")


def decode(cfg: dict, tokens: List[str]) -> str:
    return "".join(decode_chain(cfg, tokens))


__all__ = ["cleanup", "decode_chain", "decode"]
