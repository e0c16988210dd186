"""sentencepiece's encoding and decoding, written to be read: the pure-Python
reference for `bertpiece.SentencePieceProcessor` (tested against the
sentencepiece library in tests/test_sentencepiece_oracle.py). Slow.

    oracle = SentencePieceOracle(open("m.model", "rb").read())
    oracle.encode("Hello world")          # [(piece, id), ...]
    oracle.decode(["▁Hello", "▁world"])   # "Hello world"

Where sentencepiece's rules differ from HF tokenizers' (oracle_precompiled.py,
oracle_models.py): the charsmap takes the LONGEST rule at each position over
the text (HF: per grapheme, shortest); Unigram sums scores in f32 (HF: f64);
BPE merges by piece score (HF: by merge rank).
"""

import heapq
import struct

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPACE = "\u2581"


def f32(x):
    """x rounded to the nearest float32 (a sum of two float32 rounded once: float32 addition)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


# -- the .model file: protobuf fields by number ------------------------------------------------------

def _fields(buf):
    """(field number, wire type, value) of a protobuf message; values of wire type 2 are bytes."""
    pos = 0

    def varint():
        nonlocal pos
        value = shift = 0
        while True:
            b = buf[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value

    while pos < len(buf):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, wire, varint()
        elif wire == 2:
            n = varint()
            yield number, wire, bytes(buf[pos:pos + n])
            pos += n
        elif wire == 5:
            yield number, wire, struct.unpack("<f", buf[pos:pos + 4])[0]
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise ValueError(f"wire type {wire}")


def parse_model(blob):
    """The fields encoding and decoding read, with sentencepiece_model.proto's defaults."""
    model = {"pieces": [], "model_type": 1, "byte_fallback": False, "suffix": False, "unk_surface": " \u2047 ",
             "normalizer": None, "denormalizer": None}
    specials = {45: "unk_piece", 46: "bos_piece", 47: "eos_piece", 48: "pad_piece"}
    model.update({"unk_piece": "<unk>", "bos_piece": "<s>", "eos_piece": "</s>", "pad_piece": "<pad>"})
    for number, _, value in _fields(blob):
        if number == 1:
            piece = {"piece": "", "score": 0.0, "type": NORMAL}
            for n, _, v in _fields(value):
                key = {1: "piece", 2: "score", 3: "type"}.get(n)
                if key:
                    piece[key] = v.decode("utf-8") if n == 1 else v
            model["pieces"].append(piece)
        elif number == 2:
            for n, _, v in _fields(value):
                if n == 3:
                    model["model_type"] = v
                elif n == 24:
                    model["suffix"] = bool(v)
                elif n == 35:
                    model["byte_fallback"] = bool(v)
                elif n == 44:
                    model["unk_surface"] = v.decode("utf-8")
                elif n in specials and v:
                    model[specials[n]] = v.decode("utf-8")
        elif number in (3, 5):
            spec = {"charsmap": b"", "add_dummy_prefix": True, "remove_extra_whitespaces": True, "escape_whitespaces": True}
            for n, _, v in _fields(value):
                key = {2: "charsmap", 3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}.get(n)
                if key:
                    spec[key] = v if n == 2 else bool(v)
            model["normalizer" if number == 3 else "denormalizer"] = spec
    return model


# -- the charsmap: a darts-clone double array over UTF-8 bytes --------------------------------------

class CharsMap:
    def __init__(self, blob):
        size = int.from_bytes(blob[:4], "little")
        self.units = struct.unpack(f"<{size // 4}I", blob[4:4 + size])
        self.strings = blob[4 + size:]

    def rules_at(self, data):
        """(length, replacement) of every rule matching a prefix of `data`, shortest first (commonPrefixSearch)."""
        units = self.units
        offset = lambda u: (u >> 10) << ((u & (1 << 9)) >> 6)
        node = offset(units[0])
        for i, b in enumerate(data):
            node ^= b
            unit = units[node]
            if unit & ((1 << 31) | 0xFF) != b:
                return
            node ^= offset(unit)
            if (unit >> 8) & 1:
                start = units[node] & 0x7FFFFFFF
                end = self.strings.index(b"\0", start)
                yield i + 1, self.strings[start:end].decode("utf-8")


# -- normalizing ---------------------------------------------------------------------------------------

def normalize(spec, text, user_defined=(), suffix=False):
    """Normalizer::Normalize: longest user-defined symbol, else longest charsmap rule (among the first 32), else one char."""
    charsmap = CharsMap(spec["charsmap"]) if spec["charsmap"] else None
    data = text.encode("utf-8")

    def prefix(pos):
        rest = data[pos:]
        users = [len(u) for u in user_defined if rest.startswith(u)]
        if users:
            n = max(users)
            return n, rest[:n].decode("utf-8")
        rules = list(charsmap.rules_at(rest))[:32] if charsmap else []
        if rules:
            return max(rules, key=lambda r: r[0])
        n = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][rest[0] >> 4]
        try:
            return n, rest[:n].decode("utf-8")
        except UnicodeDecodeError:
            return 1, "\ufffd"

    pos = 0
    remove = spec["remove_extra_whitespaces"]
    space = SPACE if spec["escape_whitespaces"] else " "
    if remove:
        while pos < len(data) and prefix(pos)[1] == " ":
            pos += prefix(pos)[0]
    if pos == len(data):
        return ""
    out = space if (spec["add_dummy_prefix"] and not suffix) else ""
    prev_space = remove
    while pos < len(data):
        n, piece = prefix(pos)
        if prev_space:
            piece = piece.lstrip(" ")
        if piece:
            out += piece.replace(" ", space)
            prev_space = piece.endswith(" ")
        if not remove:
            prev_space = False
        pos += n
    if remove:
        while out.endswith(space):
            out = out[:-len(space)]
    if spec["add_dummy_prefix"] and suffix:
        out += space
    return out


class SentencePieceOracle:
    def __init__(self, blob):
        self.model = m = parse_model(blob)
        self.pieces = m["pieces"]
        reserved = {p["piece"]: i for i, p in enumerate(self.pieces) if p["type"] in (UNKNOWN, CONTROL, BYTE)}
        normal = {p["piece"]: i for i, p in enumerate(self.pieces) if p["type"] in (NORMAL, USER_DEFINED, UNUSED)}
        self.reserved, self.normal = reserved, normal
        self.unk_id = next(i for i, p in enumerate(self.pieces) if p["type"] == UNKNOWN)
        self.user_defined = [p["piece"].encode("utf-8") for p in self.pieces if p["type"] == USER_DEFINED]
        scores = [p["score"] for p in self.pieces if p["type"] == NORMAL]
        self.min_score = min(scores, default=3.4028234663852886e38)
        self.max_score = max(scores + [1.1754943508222875e-38])  # FLT_MIN: sentencepiece's starting maximum
        self.longest = max((len(p["piece"].encode("utf-8")) for p in self.pieces), default=1)

    def piece_to_id(self, piece):
        return self.reserved.get(piece, self.normal.get(piece, self.unk_id))

    def normalize(self, text):
        spec = self.model["normalizer"] or parse_model(b"\x1a\x00")["normalizer"]
        return normalize(spec, text, self.user_defined, self.model["suffix"])

    # -- Unigram --------------------------------------------------------------------------------------

    def unigram(self, text):
        """Viterbi over UTF-8 positions; sums in f32; a later candidate replaces only a strictly better one."""
        data = text.encode("utf-8")
        best = [None] * (len(data) + 1)  # (score, start, id)
        best[0] = (0.0, 0, None)
        unk_score = f32(self.min_score - 10.0)
        start = 0
        while start < len(data):
            here = best[start][0]
            mblen = min([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][data[start] >> 4], len(data) - start)
            covered = False
            for end in range(start + 1, min(start + self.longest, len(data)) + 1):
                id = self.normal.get(data[start:end].decode("utf-8", "ignore")) if _whole(data, start, end) else None
                if id is None or self.pieces[id]["type"] == UNUSED:
                    continue
                p = self.pieces[id]
                score = f32(f32(len(p["piece"].encode()) * self.max_score) - 0.1) if p["type"] == USER_DEFINED else p["score"]
                candidate = f32(score + here)
                if best[end] is None or candidate > best[end][0]:
                    best[end] = (candidate, start, id)
                covered |= end - start == mblen
            if not covered:
                candidate = f32(unk_score + here)
                end = start + mblen
                if best[end] is None or candidate > best[end][0]:
                    best[end] = (candidate, start, self.unk_id)
            start += mblen
        out, end = [], len(data)
        while end > 0:
            _, start, id = best[end]
            out.append((data[start:end].decode("utf-8"), id))
            end = start
        return out[::-1]

    # -- BPE ------------------------------------------------------------------------------------------

    def bpe(self, text):
        """Merge the adjacent pair forming the highest-scored piece (leftmost on ties) until none is left."""
        data = text.encode("utf-8")
        symbols, pos = [], 0  # [piece, frozen]
        while pos < len(data):
            users = [len(u) for u in self.user_defined if data[pos:].startswith(u)]
            n = max(users) if users else [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][data[pos] >> 4]
            symbols.append([data[pos:pos + n].decode("utf-8"), bool(users)])
            pos += n
        split_of = {}
        while True:
            candidates = []
            for i in range(len(symbols) - 1):
                (a, fa), (b, fb) = symbols[i], symbols[i + 1]
                id = self.normal.get(a + b)
                if id is not None and not fa and not fb:
                    candidates.append((-self.pieces[id]["score"], i, id))
            if not candidates:
                break
            _, i, id = min(candidates)
            a, b = symbols[i][0], symbols[i + 1][0]
            if self.pieces[id]["type"] == UNUSED:
                split_of[a + b] = (a, b)
            symbols[i:i + 2] = [[a + b, False]]
        out = []

        def resegment(piece):
            id = self.piece_to_id(piece)
            if self.pieces[id]["type"] == UNUSED and piece in split_of:
                for part in split_of[piece]:
                    resegment(part)
            else:
                out.append((piece, id))

        for piece, _ in symbols:
            resegment(piece)
        return out

    # -- the processor ----------------------------------------------------------------------------------

    def encode(self, text):
        """[(piece, id)]: a run of unknown pieces is one; with byte_fallback an unknown piece is its bytes."""
        normalized = self.normalize(text)
        found = self.unigram(normalized) if self.model["model_type"] == 1 else self.bpe(normalized)
        out = []
        for piece, id in found:
            if id == self.unk_id and self.model["byte_fallback"]:
                out.extend((f"<0x{b:02X}>", self.piece_to_id(f"<0x{b:02X}>")) for b in piece.encode("utf-8"))
            elif id == self.unk_id and out and out[-1][1] == self.unk_id:
                out[-1] = (out[-1][0] + piece, id)
            else:
                out.append((piece, id))
        return out

    def decode(self, pieces):
        """Control pieces vanish; `<unk>` is the unk surface; byte runs are UTF-8; `▁` is a space; the first `▁` goes."""
        spec = self.model["normalizer"] or parse_model(b"\x1a\x00")["normalizer"]
        strip_first = spec["add_dummy_prefix"] or spec["remove_extra_whitespaces"]
        text, pending = "", b""
        first, stripped_last = True, False
        for piece in pieces:
            id = self.piece_to_id(piece)
            kind = self.pieces[id]["type"]
            if kind == BYTE:
                pending += bytes([int(piece[3:5], 16)])
                continue
            text += _byte_text(pending)
            pending = b""
            if stripped_last or text:
                first = False
            stripped_last = False
            if kind == CONTROL:
                continue
            if kind == UNKNOWN:
                text += self.model["unk_surface"] if piece == self.pieces[id]["piece"] else piece
                continue
            if first and strip_first and piece.startswith(SPACE):
                piece = piece[1:]
                stripped_last = not spec["remove_extra_whitespaces"]
            text += piece.replace(SPACE, " ")
        text += _byte_text(pending)
        if self.model["denormalizer"] and self.model["denormalizer"]["charsmap"]:
            text = normalize(self.model["denormalizer"], text)
        return text


def _whole(data, start, end):
    """Whether data[start:end] is whole UTF-8 chars (the trie only holds whole pieces)."""
    try:
        data[start:end].decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _byte_text(data):
    """Byte pieces' text: each valid UTF-8 char, and U+FFFD for each byte that starts none."""
    text, pos = "", 0
    while pos < len(data):
        for n in (1, 2, 3, 4):
            try:
                text += data[pos:pos + n].decode("utf-8")
                pos += n
                break
            except UnicodeDecodeError:
                continue
        else:
            text += "\ufffd"
            pos += 1
    return text
