"""``bertpiece.AddedToken``: a mirror of ``tokenizers.AddedToken`` (0.23.3).

As in tokenizers, the options not given are decided when read: ``normalized``
defaults to ``not special`` (so a token made special by ``add_special_tokens``
stops being normalized unless ``normalized=True`` was given), the others to
False. ``content`` and ``special`` can be set; the other options are read-only.
Equality compares all six options, the hash only the content.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["AddedToken"]

_OPTIONS = ("single_word", "lstrip", "rstrip", "normalized")


def _bool(name: str, value: Any) -> bool:
    # tokenizers (PyO3) takes a bool or numpy.bool_ only, not 0/1 or None.
    if isinstance(value, bool) or type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    raise TypeError(f"{name}: '{type(value).__name__}' object is not an instance of 'bool'")


class AddedToken:
    """A token added on top of a model's vocabulary (see ``Tokenizer.add_tokens``)."""

    def __init__(self, content: Optional[str] = None, **kwargs: Any) -> None:
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise TypeError(f"content: '{type(content).__name__}' object is not an instance of 'str'")
        self._content = content
        self._special = False
        self._given: dict = {}  # options given explicitly; the rest follow their defaults
        for key, value in kwargs.items():
            if key in _OPTIONS:
                self._given[key] = _bool(key, value)
            elif key == "special":
                self._special = _bool(key, value)
            else:
                print(f"Ignored unknown kwarg option {key}")  # as tokenizers does

    @property
    def content(self) -> str:
        return self._content

    @content.setter
    def content(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"content: '{type(value).__name__}' object is not an instance of 'str'")
        self._content = value

    @property
    def special(self) -> bool:
        return self._special

    @special.setter
    def special(self, value: bool) -> None:
        self._special = _bool("special", value)

    @property
    def single_word(self) -> bool:
        return self._given.get("single_word", False)

    @property
    def lstrip(self) -> bool:
        return self._given.get("lstrip", False)

    @property
    def rstrip(self) -> bool:
        return self._given.get("rstrip", False)

    @property
    def normalized(self) -> bool:
        return self._given.get("normalized", not self._special)

    def _key(self) -> tuple:
        return (self.content, self.single_word, self.lstrip, self.rstrip, self.normalized, self.special)

    def __getstate__(self) -> dict:
        return dict(zip(("content", "single_word", "lstrip", "rstrip", "normalized", "special"), self._key()))

    def __setstate__(self, state: dict) -> None:
        # As tokenizers: every option in the state becomes given; other keys are ignored.
        self.__init__(state.get("content", ""), **{k: v for k, v in state.items() if k in _OPTIONS or k == "special"})

    def __str__(self) -> str:
        return self.content

    def __repr__(self) -> str:
        return (
            f'AddedToken("{self.content}", rstrip={self.rstrip}, lstrip={self.lstrip}, '
            f"single_word={self.single_word}, normalized={self.normalized}, special={self.special})"
        )

    def __eq__(self, other: object) -> Any:
        return self._key() == other._key() if isinstance(other, AddedToken) else NotImplemented

    def __ne__(self, other: object) -> Any:
        return self._key() != other._key() if isinstance(other, AddedToken) else NotImplemented

    def __lt__(self, other: object) -> bool:  # tokenizers answers False to every ordering
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __hash__(self) -> int:
        return hash(self.content)
