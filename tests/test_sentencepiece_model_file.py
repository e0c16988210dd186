"""Hostile `.model` files: every malformed protobuf or contradictory model
is a ValueError (bertpiece's ModelLoadError, also a RuntimeError as
sentencepiece raises) naming the field or byte offset — never a panic, an
abort, a hang or a huge allocation; byte-mutated real models either load and
encode, or raise it."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bertpiece
from bertpiece.sentencepiece_api import ModelLoadError
from spm_models import model


def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire, payload):
    key = varint(number << 3 | wire)
    return key + (varint(len(payload)) + payload if wire == 2 else payload)


def piece(text, kind=None, score=None):
    body = field(1, 2, text)
    if score is not None:
        body += field(2, 5, score)
    if kind is not None:
        body += field(3, 0, varint(kind))
    return field(1, 2, body)


UNK = piece(b"<unk>", kind=2)


def load(blob):
    return bertpiece.SentencePieceProcessor(model_proto=blob)


@pytest.mark.parametrize("blob, message", [
    (b"\x0a\x80", "truncated varint"),
    (b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "varint longer than 10 bytes"),
    (b"\x08\x01", "wrong wire type"),
    (b"\x0b", "wire type 3"),
    (b"\x0a\x10abc", "past the end"),
    (b"\x0a" + varint(1 << 62) + b"x", "past the end"),
    (UNK + piece(b"\xff\xfe"), r"pieces\[1\].piece is not valid UTF-8"),
    (UNK + field(1, 2, field(2, 0, b"\x01")), r"pieces\[1\].score has the wrong wire type"),
    (UNK + piece(b"a", kind=9), r"pieces\[1\].type 9"),
    (UNK + piece(b""), r"pieces\[1\].piece is empty"),
    (UNK + piece(b"a") + piece(b"a"), "already defined"),
    (piece(b"a"), "unk is not defined"),
    (UNK + piece(b"<x>", kind=2), "unk is already defined"),
    (UNK + piece(b"<0x41>", kind=6), "byte_fallback is false"),
    (UNK + field(2, 2, field(35, 0, b"\x01")) + piece(b"<0x41>", kind=6), "not 256 byte pieces"),
    (UNK + field(2, 2, field(3, 0, b"\x07")), "model_type 7"),
    (UNK + field(3, 2, field(2, 2, b"\x01\x02")), "too short"),
    (UNK + field(3, 2, field(2, 2, b"\xff\xff\x00\x00abcd")), "exceeds the blob"),
    # A trie size below the blob's length that still runs past its end (sentencepiece's own check lets it through).
    (UNK + field(3, 2, field(2, 2, b"\x08\x00\x00\x00abcdef")), "exceeds the blob"),
    (UNK + field(3, 2, field(4, 0, b"\x01") + field(2, 2, b"\x08\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00x")),
     "precompiled_charsmap"),
])
def test_hostile_files_are_value_errors_naming_the_problem(blob, message):
    with pytest.raises(ModelLoadError, match=message) as e:
        load(blob)
    assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)


def test_error_offsets_point_into_the_file():
    blob = UNK + piece(b"ok") + b"\x0a\x05ab"
    with pytest.raises(ValueError, match=f"at byte {len(UNK) + len(piece(b'ok')) + 2}"):
        load(blob)


def test_word_and_char_models_are_refused_by_name():
    with pytest.raises(NotImplementedError, match="WORD"):
        load(UNK + field(2, 2, field(3, 0, b"\x03")))


def test_charsmap_leaves_outside_the_blob_are_refused():
    """A real nmt_nfkc charsmap with its replacement strings cut off: its leaves point past the blob."""
    from transformers.convert_slow_tokenizer import import_protobuf

    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model("unigram"))
    charsmap = proto.normalizer_spec.precompiled_charsmap
    trie_size = int.from_bytes(charsmap[:4], "little")
    proto.normalizer_spec.precompiled_charsmap = charsmap[:4 + trie_size + 10]
    with pytest.raises(ModelLoadError, match="normalizer_spec.precompiled_charsmap: (replacement|the replacement)"):
        load(proto.SerializeToString())
    proto.normalizer_spec.precompiled_charsmap = charsmap[:4 + trie_size // 2]
    with pytest.raises(ModelLoadError, match="precompiled_charsmap"):
        load(proto.SerializeToString())


@settings(max_examples=150, deadline=None, database=None)
@given(st.data())
def test_byte_mutations_load_and_encode_or_raise_value_error(data):
    blob = bytearray(model("unigram_bytes"))
    for _ in range(data.draw(st.integers(1, 4))):
        if not blob:
            break
        at = data.draw(st.integers(0, len(blob) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        if action == "flip":
            blob[at] ^= data.draw(st.integers(1, 255))
        elif action == "cut":
            del blob[at:]
        elif action == "insert":
            blob[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        else:
            del blob[at:at + data.draw(st.integers(1, 16))]
    if not blob:  # an empty proto loads nothing, in sentencepiece too
        blob = bytearray(b"\x0a")
    try:
        sp = load(bytes(blob))
    except (ValueError, NotImplementedError):
        return
    for text in ["Hello world", "  x\u0f00\u3000ＡＢ  ", "\x00"]:
        ids = sp.encode(text)
        sp.encode(text, out_type=str)
        sp.decode(ids)


@settings(max_examples=150, deadline=None, database=None)
@given(st.data())
def test_mutated_charsmaps_load_and_normalize_or_raise_value_error(data):
    """Random headers and flipped trie units of a real nmt_nfkc charsmap: every lookup stays in bounds."""
    from transformers.convert_slow_tokenizer import import_protobuf

    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model("unigram"))
    charsmap = bytearray(proto.normalizer_spec.precompiled_charsmap)
    if data.draw(st.booleans()):
        charsmap[:4] = data.draw(st.integers(0, len(charsmap) + 8)).to_bytes(4, "little")
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(charsmap) - 1))
        charsmap[at] ^= 1 << data.draw(st.integers(0, 7))
    proto.normalizer_spec.precompiled_charsmap = bytes(charsmap)
    try:
        sp = load(proto.SerializeToString())
    except ValueError as e:
        assert "precompiled_charsmap" in str(e)
        return
    for text in ["Hello ＡＢ ﬁ\u0301 ｶﾞ", "\x00\x01 \u3000 x", "한국어 テキスト"]:
        sp.decode(sp.encode(text))
        sp.normalize(text)
