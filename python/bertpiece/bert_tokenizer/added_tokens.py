"""Added tokens: strings matched whole in the raw text and never split (as
transformers' and HF tokenizers' AddedToken), and the matcher that finds them."""

from __future__ import annotations

import re

# transformers 5's PreTrainedTokenizerBase.SPECIAL_TOKENS_ATTRIBUTES, in its order.
SPECIAL_TOKENS_ATTRIBUTES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
                             "mask_token")


class AddedToken:
    """transformers/tokenizers' AddedToken (content plus matching flags)."""

    def __init__(self, content, single_word=False, lstrip=False, rstrip=False, special=False, normalized=None):
        if not isinstance(content, str):
            raise TypeError(f"AddedToken content must be a str, got {type(content).__name__}")
        self.content = content
        self.single_word = single_word
        self.lstrip = lstrip
        self.rstrip = rstrip
        self.special = special
        self._normalized = normalized  # None: follows `special` (tokenizers' AddedToken does the same)

    @property
    def normalized(self):
        return (not self.special) if self._normalized is None else self._normalized

    @normalized.setter
    def normalized(self, value):
        self._normalized = value

    def flags(self):
        return self.single_word, self.lstrip, self.rstrip, self.special, self.normalized

    def as_special(self, keep_normalized=False):
        """This token with special=True (add_tokens(..., special_tokens=True), add_special_tokens):
        a copy, its `normalized` then False unless it was given (HF tokenizers), or as it was
        (`keep_normalized`: BertTokenizerLegacy)."""
        if self.special:
            return self
        return AddedToken(self.content, self.single_word, self.lstrip, self.rstrip, True,
                          self.normalized if keep_normalized else self._normalized)

    @classmethod
    def coerce(cls, token, special):
        """`token` (a str, our AddedToken or tokenizers' AddedToken) as an AddedToken; TypeError otherwise."""
        if isinstance(token, AddedToken):
            return token
        if isinstance(token, str):
            return cls(token, special=special, normalized=not special)
        content = getattr(token, "content", None)
        if isinstance(content, str):  # tokenizers.AddedToken (its normalized, unless given, follows special)
            return cls(content, token.single_word, token.lstrip, token.rstrip, token.special, _given_normalized(token))
        raise TypeError(f"Token {token!r} is not a string but a {type(token)}.")

    def __str__(self):
        return self.content

    def __repr__(self):
        return (f"AddedToken({self.content!r}, rstrip={self.rstrip}, lstrip={self.lstrip}, "
                f"single_word={self.single_word}, normalized={self.normalized}, special={self.special})")

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.content)

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, state):
        state = dict(state)
        self._normalized = state.pop("normalized", None)
        self.__dict__.update(state)

    def to_dict(self):
        return {"content": self.content, "single_word": self.single_word, "lstrip": self.lstrip,
                "rstrip": self.rstrip, "normalized": self.normalized, "special": self.special}


def _given_normalized(token):
    """A tokenizers.AddedToken's `normalized` if it was given, else None (it then
    follows `special`): seen by flipping `special` and back."""
    special, normalized = token.special, token.normalized
    token.special = not special
    follows = token.normalized != normalized
    token.special = special
    return None if follows else normalized


class Matcher:
    """Leftmost-longest search for a set of strings, as HF's added vocabulary
    (aho-corasick, LeftmostLongest) does. Candidates are grouped by first
    character and length, so a candidate position costs one set lookup per
    distinct length, whatever the number of added tokens."""

    def __init__(self, contents):
        by_first = {}
        for c in contents:
            if c:
                by_first.setdefault(c[0], {}).setdefault(len(c), set()).add(c)
        self._by_first = {ch: sorted(groups.items(), reverse=True) for ch, groups in by_first.items()}
        # Positions worth a look are found by the regex engine (in C): any first character.
        self._starts = re.compile("[" + "".join(map(re.escape, by_first)) + "]") if by_first else None

    def __bool__(self):
        return self._starts is not None

    def finditer(self, text):
        """(start, end, content) of each match, left to right, not overlapping."""
        if self._starts is None:
            return
        search, by_first, pos = self._starts.search, self._by_first, 0
        while True:
            m = search(text, pos)
            if m is None:
                return
            at = m.start()
            for length, contents in by_first[text[at]]:
                if text[at:at + length] in contents:
                    yield at, at + length, text[at:at + length]
                    pos = at + length
                    break
            else:
                pos = at + 1

    def search(self, text):
        """Whether any content occurs in `text`."""
        if self._starts is None or self._starts.search(text) is None:
            return False  # the common case: no first character at all, found in C
        return next(self.finditer(text), None) is not None
