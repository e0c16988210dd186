"""Added tokens: strings matched whole in the raw text and never split (as
transformers' and HF tokenizers' AddedToken)."""

SPECIAL_TOKEN_NAMES = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


class AddedToken:
    """transformers/tokenizers' AddedToken (content plus matching flags)."""

    def __init__(self, content, single_word=False, lstrip=False, rstrip=False, special=False, normalized=None):
        self.content = str(content)
        self.single_word = single_word
        self.lstrip = lstrip
        self.rstrip = rstrip
        self.special = special
        self.normalized = (not special) if normalized is None else normalized

    def __str__(self):
        return self.content

    def __repr__(self):
        return (f"AddedToken({self.content!r}, rstrip={self.rstrip}, lstrip={self.lstrip}, "
                f"single_word={self.single_word}, normalized={self.normalized}, special={self.special})")

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.content)

    def to_dict(self):
        return {"content": self.content, "single_word": self.single_word, "lstrip": self.lstrip,
                "rstrip": self.rstrip, "normalized": self.normalized, "special": self.special}
