"""A writer of sentencepiece's ModelProto (the .model file), protobuf wire
format by hand: the fields of sentencepiece_model.proto (0.2.3) that
`SentencePieceTrainer` writes, by number and type, written in field-number
order as protobuf's C++ serializer writes them. Only fields that were given
are written (proto2 presence), as sentencepiece's trainer does (measured: its
trainer_spec holds exactly the options passed)."""

from __future__ import annotations

import struct
from typing import Any, Dict, Iterable, List, Tuple

__all__ = ["TRAINER_FIELDS", "NORMALIZER_FIELDS", "PIECE_TYPES", "model_proto", "vocab_text"]

# name: (field number, type) of TrainerSpec and NormalizerSpec.
TRAINER_FIELDS: Dict[str, Tuple[int, str]] = {
    "input": (1, "strings"), "model_prefix": (2, "string"), "model_type": (3, "enum"), "vocab_size": (4, "int32"),
    "accept_language": (5, "strings"), "self_test_sample_size": (6, "int32"), "input_format": (7, "string"),
    "character_coverage": (10, "float"), "input_sentence_size": (11, "uint64"), "mining_sentence_size": (12, "int32"),
    "training_sentence_size": (13, "int32"), "seed_sentencepiece_size": (14, "int32"),
    "shrinking_factor": (15, "float"), "num_threads": (16, "int32"), "num_sub_iterations": (17, "int32"),
    "max_sentence_length": (18, "int32"), "shuffle_input_sentence": (19, "bool"),
    "max_sentencepiece_length": (20, "int32"), "split_by_unicode_script": (21, "bool"),
    "split_by_whitespace": (22, "bool"), "split_by_number": (23, "bool"), "treat_whitespace_as_suffix": (24, "bool"),
    "split_digits": (25, "bool"), "allow_whitespace_only_pieces": (26, "bool"), "control_symbols": (30, "strings"),
    "user_defined_symbols": (31, "strings"), "vocabulary_output_piece_score": (32, "bool"),
    "hard_vocab_limit": (33, "bool"), "use_all_vocab": (34, "bool"), "byte_fallback": (35, "bool"),
    "required_chars": (36, "string"), "unk_id": (40, "int32"), "bos_id": (41, "int32"), "eos_id": (42, "int32"),
    "pad_id": (43, "int32"), "unk_surface": (44, "string"), "unk_piece": (45, "string"), "bos_piece": (46, "string"),
    "eos_piece": (47, "string"), "pad_piece": (48, "string"), "train_extremely_large_corpus": (49, "bool"),
    "enable_differential_privacy": (50, "bool"), "differential_privacy_noise_level": (51, "float"),
    "differential_privacy_clipping_threshold": (52, "uint64"), "pretokenization_delimiter": (53, "string"),
    "seed_sentencepieces_file": (54, "string"), "auto_character_coverage": (55, "bool"),
}
NORMALIZER_FIELDS: Dict[str, Tuple[int, str]] = {
    "name": (1, "string"), "precompiled_charsmap": (2, "bytes"), "add_dummy_prefix": (3, "bool"),
    "remove_extra_whitespaces": (4, "bool"), "escape_whitespaces": (5, "bool"), "normalization_rule_tsv": (6, "string"),
}
PIECE_TYPES = {"NORMAL": 1, "UNKNOWN": 2, "CONTROL": 3, "USER_DEFINED": 4, "UNUSED": 5, "BYTE": 6}
MODEL_TYPES = {"unigram": 1, "bpe": 2, "word": 3, "char": 4}


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # negative int32: ten bytes, two's complement (protobuf's int32 rule)
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _length_delimited(number: int, data: bytes) -> bytes:
    return _key(number, 2) + _varint(len(data)) + data


def _field(number: int, kind: str, value: Any) -> bytes:
    if kind == "strings":
        return b"".join(_length_delimited(number, v.encode("utf-8")) for v in value)
    if kind == "string":
        return _length_delimited(number, value.encode("utf-8"))
    if kind == "bytes":
        return _length_delimited(number, bytes(value))
    if kind == "float":
        return _key(number, 5) + struct.pack("<f", value)
    if kind == "bool":
        return _key(number, 0) + _varint(1 if value else 0)
    # int32, uint64, enum: varints
    return _key(number, 0) + _varint(int(value))


def _message(fields: Dict[str, Tuple[int, str]], values: Dict[str, Any]) -> bytes:
    ordered = sorted((fields[name][0], fields[name][1], value) for name, value in values.items())
    return b"".join(_field(number, kind, value) for number, kind, value in ordered)


def model_proto(pieces: Iterable[Tuple[str, float, str]], trainer_spec: Dict[str, Any],
                normalizer_spec: Dict[str, Any]) -> bytes:
    """The .model bytes: `pieces` as (piece, score, type name) in id order, then
    the two specs (dicts of the fields given, by the names above)."""
    out: List[bytes] = []
    for piece, score, kind in pieces:
        body = _field(1, "string", piece) + _field(2, "float", score)
        if kind != "NORMAL":  # sentencepiece leaves a normal piece's type unset (measured)
            body += _field(3, "enum", PIECE_TYPES[kind])
        out.append(_length_delimited(1, body))
    out.append(_length_delimited(2, _message(TRAINER_FIELDS, trainer_spec)))
    out.append(_length_delimited(3, _message(NORMALIZER_FIELDS, normalizer_spec)))
    return b"".join(out)


def _score_text(score: float) -> str:
    # C++ ostream's default (6 significant digits, as %g): "-8.56227", "0", "-0" (measured in the .vocab).
    return f"{struct.unpack('<f', struct.pack('<f', score))[0]:g}"


def vocab_text(pieces: Iterable[Tuple[str, float, str]]) -> str:
    """The .vocab file: one "piece<TAB>score" line per piece, in id order."""
    return "".join(f"{piece}\t{_score_text(score)}\n" for piece, score, _ in pieces)
