"""Weighted-random Unicode text: mostly the characters whose handling differs
between stages and references (case context, marks, CJK edges, every kind of
space and control, surrogates, noncharacters, code points whose data changed
in recent Unicode versions), some random code points of every plane, and real
words, so WordPiece sees known pieces, [UNK] and long words."""

from __future__ import annotations

import random

# (weight, characters): each group exercises a branch of some stage.
GROUPS = [
    (6, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
    (3, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¿¡“”‘’‧…–—·«»‹›"),
    (3, " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2007\u200a\u2028\u2029\u202f\u205f\u3000"),
    (2, "\x00\x01\x7f\x9f\u00ad\u200b\u200c\u200d\u200e\u2060\ufeff\ufffd\ufff9\U000e0001"),
    (3, "ΣσςİIıiẞßŉǅǈﬁﬀﬃÅÉéèêëÀÖØåøæœŒÆĳĲ"),  # lowercasing / case context / expansions
    (3, "\u0300\u0301\u0308\u0323\u0345\u0307\u0338\u034f\u0897\u1ab0\u20d7\u302a"),  # marks (U+0897: 16.0/17.0)
    (3, "中文字日本語한국어가각ᄀ\u1161\u11a8\u3400\u4dbf\u9fff\uf900\ufaff"
        "\U00020000\U0002a6df\U0002b820\U0002b81f\U0002b920\U0002ebe0\U00031350\U000323af\U0003134a"),
    (2, "ابتثحخدذرزسشص\u0610\u064b\u0670अआइकखगघ\u093c\u094dกขคงจ\u0e31\u0e34ሀሁ"),
    (2, "😀👍🏽👨\u200d👩\u200d👧🇩🇪❤\ufe0f\u2764\U0001f9d1\U0001fae8\U0001fac8"),
    (1, "\ud800\udbff\udc00\udfff"),  # lone surrogates: a str may hold them
    (1, "\ufdd0\ufdef\ufffe\uffff\ue000\uf8ff\U000f0000\U0010ffff"),  # noncharacters, private use
    (1, "\u0378\u0560\u08b5\u1c89\u1c8a\u2427\u2e5e\U00011f5a\U0001e5ff"),  # recently assigned / unassigned
]
WORDS = ("the of and to in is was for on that with as by at from hello world unaffable running "
         "jumped naïve café Straße résumé Ὀδυσσεύς Москва 東京 北京大学 서울 كتاب हिन्दी "
         "[UNK] [CLS] [SEP] [PAD] [MASK] [unused0] ##s ##ing antidisestablishmentarianism").split()


def random_char(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.05:  # any code point at all, surrogates included
        return chr(rng.randrange(0x110000))
    if r < 0.10:
        return chr(rng.randrange(0x10000))
    weights, groups = zip(*GROUPS)
    return rng.choice(rng.choices(groups, weights)[0])


def random_text(rng: random.Random, max_len: int = 40, surrogates: bool = True) -> str:
    """A text of up to `max_len` pieces: characters, words, runs of one character."""
    out = []
    for _ in range(rng.randrange(max_len + 1)):
        r = rng.random()
        if r < 0.25:
            out.append(rng.choice(WORDS) + rng.choice(["", " ", " ", "\n"]))
        elif r < 0.30:
            out.append(random_char(rng) * rng.randrange(2, 30))
        elif r < 0.32:
            out.append(rng.choice("abcdefgh") * rng.randrange(90, 230))  # word-length limits (100, 200)
        else:
            out.append(random_char(rng))
    text = "".join(out)
    if not surrogates:
        text = "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)
    return text
