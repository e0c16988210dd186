"""`bertpiece.BertTokenizer` when transformers is installed: the same class,
also a `transformers.PreTrainedTokenizerBase`, so that Trainer, the data
collators, pipelines and AutoTokenizer-saved folders treat it as theirs.

Everything bertpiece defines wins (encoding, decoding, special tokens, files);
transformers' generic machinery fills the rest: `pad` of already-encoded
inputs (what the collators call), chat templates, `push_to_hub`,
`register_for_auto_class`. Imported only when `BertTokenizer` is first
used, so `import bertpiece` does not import transformers.

In the tokenizers and google modes an object is also a
`transformers.TokenizersBackend` (transformers' code and tests branch on it:
overflow windows as rows, `encodings`), as transformers' own BertTokenizer;
in the transformers mode it is not, as BertTokenizerLegacy. See
`_tokenizers_backend_class`.
"""

from __future__ import annotations

import copy
import inspect

from transformers.tokenization_utils_base import PreTrainedTokenizerBase

from . import core
from .legacy_members import LEGACY_ONLY, LegacyMembers, backend_members

try:
    from transformers.tokenization_utils_tokenizers import TokenizersBackend
except ImportError:  # (transformers without HF tokenizers: no such class to claim)
    TokenizersBackend = None


class BertTokenizer(core.BertTokenizer, LegacyMembers, PreTrainedTokenizerBase):
    __doc__ = core.BertTokenizer.__doc__

    def _init_base(self, init_kwargs, kwargs):
        self._settle_class()
        kwargs.setdefault("backend", self._backend_name())
        PreTrainedTokenizerBase.__init__(self, **kwargs)
        self.init_kwargs = copy.deepcopy(init_kwargs)
        if self.model_max_length is None:
            self.model_max_length = core.VERY_LARGE_INTEGER

    def _settle_class(self):
        """The object's class for its mode (at construction and unpickling): its class made a
        TokenizersBackend in the tokenizers and google modes, the class itself in the transformers mode."""
        cls = type(self)
        plain = cls.__dict__.get("_bertpiece_plain_class", cls)
        wanted = plain if self.legacy or TokenizersBackend is None else _tokenizers_backend_class(plain)
        if wanted is not cls:
            self.__class__ = wanted


class _Absent:
    """A name that TokenizersBackend defines and bertpiece's class does not have: absent there too."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(self.name)


def _dir_without_absent(self):
    """`dir()` without the names made absent (as `dir()` of the reference's object)."""
    cls = type(self)
    return [n for n in object.__dir__(self) if not isinstance(inspect.getattr_static(cls, n, None), _Absent)]


_BACKEND_CLASSES: dict = {}
_CLASS_NAMES = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__init__",
                          "__firstlineno__", "__static_attributes__", "__annotations__", "__bool__"})


def _tokenizers_backend_class(cls):
    """`cls` with TokenizersBackend as a second base, so `isinstance(tok, TokenizersBackend)` holds.

    TokenizersBackend is only a mark here: bertpiece's own methods come first in the MRO, and what
    TokenizersBackend adds over PreTrainedTokenizerBase (its HF tokenizers object `_tokenizer` and what
    reads it: `_encode_plus`, `_decode`, `_save_pretrained`, `update_post_processor`...) is replaced by
    PreTrainedTokenizerBase's version, or made absent, as in `cls`. Its `__init__` never runs (it needs a
    tokenizers.Tokenizer): bertpiece's does. (`__bool__`, True, is kept: bertpiece's vocabularies are
    never empty.) The class has `cls`'s name and pickles as `cls` (`_bertpiece_plain_class`)."""
    found = _BACKEND_CLASSES.get(cls)
    if found is not None:
        return found
    ns = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
          "_bertpiece_plain_class": cls}
    own = set()
    for base in cls.__mro__:
        if base is PreTrainedTokenizerBase:
            break
        own.update(vars(base))
    for name in vars(TokenizersBackend):
        if name in _CLASS_NAMES or name in own:
            continue
        generic = inspect.getattr_static(PreTrainedTokenizerBase, name, _Absent)
        ns[name] = _Absent() if generic is _Absent else generic
    # BertTokenizerLegacy's own members are not transformers 5's BertTokenizer's; some of the latter's are ours.
    ns.update({name: _Absent() for name in LEGACY_ONLY})
    ns.update(backend_members())
    ns["__dir__"] = _dir_without_absent
    found = _BACKEND_CLASSES[cls] = type(cls.__name__, (cls, TokenizersBackend), ns)
    return found


# Pickles (and repr) name the public path, which resolves to this class
# wherever transformers is installed and to the plain one where it is not.
BertTokenizer.__module__ = "bertpiece.bert_tokenizer"
