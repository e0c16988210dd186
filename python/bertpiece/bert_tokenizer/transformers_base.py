"""`bertpiece.BertTokenizer` when transformers is installed: the same class,
also a `transformers.PreTrainedTokenizerBase`, so that Trainer, the data
collators, pipelines and AutoTokenizer-saved folders treat it as theirs.

Everything bertpiece defines wins (encoding, decoding, special tokens, files);
transformers' generic machinery fills the rest: `pad` of already-encoded
inputs (what the collators call), chat templates, `push_to_hub`,
`register_for_auto_class`. Imported only when `BertTokenizer` is first
used, so `import bertpiece` does not import transformers.
"""

from __future__ import annotations

import copy

from transformers.tokenization_utils_base import PreTrainedTokenizerBase

from . import core


class BertTokenizer(core.BertTokenizer, PreTrainedTokenizerBase):
    __doc__ = core.BertTokenizer.__doc__

    def _init_base(self, init_kwargs, kwargs):
        kwargs.setdefault("backend", self._backend_name())
        PreTrainedTokenizerBase.__init__(self, **kwargs)
        self.init_kwargs = copy.deepcopy(init_kwargs)
        if self.model_max_length is None:
            self.model_max_length = core.VERY_LARGE_INTEGER


# Pickles (and repr) name the public path, which resolves to this class
# wherever transformers is installed and to the plain one where it is not.
BertTokenizer.__module__ = "bertpiece.bert_tokenizer"
