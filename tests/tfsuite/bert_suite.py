"""transformers' tokenizer test suite, four ways (run by tests/test_transformers_suite.py).

Not collected by the main test run (the name does not start with test_): the
harness runs it in a subprocess with the extracted upstream `tests` package
(scripts/fetch_transformers_tests.py) on PYTHONPATH and the offline hub cache
(offline_hub.py) in the environment.

The 5.x sdist has no tests/models/bert/test_tokenization_bert.py, so the BERT
class is declared here with upstream's attributes: hub id
google-bert/bert-base-uncased, `space_between_special_tokens`,
`from_pretrained_filter`. Its integration data (`integration_expected_*`, which
upstream hard-codes for the hub tokenizer) are computed at class setup from the
reference class of the configuration on the same hub folder, so for bertpiece
`test_integration` checks tokens, ids and decoded text against transformers.

Configurations (class-name prefix):
    HfTokenizers   transformers' BertTokenizer (HF tokenizers backend)
    HfLegacy       transformers' BertTokenizerLegacy (pure Python)
    BpTokenizers   bertpiece.BertTokenizer, reference="tokenizers"
    BpLegacy       bertpiece.BertTokenizer, reference="transformers"
Each has a `...TokenizationTest` (TokenizerTesterMixin); the tokenizers-backend
ones also a `...BackendTest` (TokenizersBackendTesterMixin, which the sdist runs
for transformers' BertTokenizer on the same hub id as TokenizersBackendCommonTest).
"""

from __future__ import annotations

import functools
import unittest
from unittest import mock

import bertpiece
from transformers import BertTokenizer as HfBertTokenizer
from transformers import TokenizersBackend
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

from tests import test_tokenization_common
from tests.test_tokenization_common import TokenizerTesterMixin, filter_non_english
from tests.test_tokenizers_backend_mixin import TokenizersBackendTesterMixin

HUB_ID = "google-bert/bert-base-uncased"


def bertpiece_class(reference: str, name: str) -> type:
    """bertpiece.BertTokenizer with `reference` preset in __init__ and from_pretrained
    (the signature keeps every other parameter, for test_tokenizer_store_full_signature)."""
    base = bertpiece.BertTokenizer

    def from_pretrained(cls, *args, **kwargs):
        kwargs.setdefault("reference", reference)
        return base.from_pretrained.__func__(cls, *args, **kwargs)

    return type(name, (base,), {
        "__init__": functools.partialmethod(base.__init__, reference=reference),
        "from_pretrained": classmethod(from_pretrained),
        "__module__": __name__,
    })


BertpieceTokenizers = bertpiece_class("tokenizers", "BertpieceTokenizers")
BertpieceLegacy = bertpiece_class("transformers", "BertpieceLegacy")


class _BertTokenization(TokenizerTesterMixin):
    """upstream's BertTokenizationTest attributes; `reference_class` gives the
    integration data and, in legacy mode, saves the test folder."""

    from_pretrained_id = HUB_ID
    space_between_special_tokens = True
    from_pretrained_filter = filter_non_english
    reference_class = HfBertTokenizer

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if cls.reference_class is not HfBertTokenizer:
            # AutoTokenizer saved transformers' BertTokenizer (tokenizer.json, no vocab.txt);
            # the legacy tokenizers need what their own reference class writes (vocab.txt,
            # its tokenizer_config.json). tokenizer.json stays for test_integration_from_extractor.
            cls.reference_class.from_pretrained(HUB_ID).save_pretrained(cls.tmpdirname)
        reference = cls.reference_class.from_pretrained(HUB_ID)
        text = cls.integration_test_input_string
        cls.integration_expected_tokens = reference.tokenize(text)
        cls.integration_expected_token_ids = reference.encode(text, add_special_tokens=False)
        cls.integration_expected_decoded_text = reference.decode(cls.integration_expected_token_ids,
                                                                 clean_up_tokenization_spaces=False)


class HfTokenizersTokenizationTest(_BertTokenization, unittest.TestCase):
    tokenizer_class = HfBertTokenizer
    rust_tokenizer_class = HfBertTokenizer


class HfLegacyTokenizationTest(_BertTokenization, unittest.TestCase):
    tokenizer_class = BertTokenizerLegacy
    reference_class = BertTokenizerLegacy


def as_tokenizers_backend(test):
    """Run an upstream test that branches on the tokenizer being HF tokenizers'
    (`isinstance(tokenizer, TokenizersBackend)`, or `tokenizer.backend ==
    "tokenizers"`, else skipped) with bertpiece's tokenizers mode on that side:
    the mode gives HF tokenizers' results (overflow as extra rows, a pair cut by
    longest_first, sequence ids, offsets), which the test checks only of that
    class; the other side is the Python tokenizer's, which is the legacy mode's.
    (bertpiece's `backend` is "tokenizers" in that mode already.)"""

    @functools.wraps(test)
    def run(self):
        hf_side = (TokenizersBackend, BertpieceTokenizers)
        with mock.patch.object(test_tokenization_common, "TokenizersBackend", hf_side), \
                mock.patch.object(BertpieceTokenizers, "backend", property(lambda tok: "tokenizers", lambda tok, v: None),
                                  create=True):
            return test(self)

    return run


TOKENIZERS_BACKEND_BRANCHES = ("test_maximum_encoding_length_single_input", "test_maximum_encoding_length_pair_input",
                               "test_sequence_ids", "test_chat_template_return_assistant_tokens_mask",
                               "test_chat_template_return_assistant_tokens_mask_truncated")


class BpTokenizersTokenizationTest(_BertTokenization, unittest.TestCase):
    tokenizer_class = BertpieceTokenizers
    rust_tokenizer_class = BertpieceTokenizers


for _name in TOKENIZERS_BACKEND_BRANCHES:
    setattr(BpTokenizersTokenizationTest, _name, as_tokenizers_backend(getattr(TokenizerTesterMixin, _name)))


class BpLegacyTokenizationTest(_BertTokenization, unittest.TestCase):
    tokenizer_class = BertpieceLegacy
    reference_class = BertTokenizerLegacy


class HfTokenizersBackendTest(TokenizersBackendTesterMixin, unittest.TestCase):
    from_pretrained_id = HUB_ID
    from_pretrained_kwargs = {}
    tokenizer_class = HfBertTokenizer
    rust_tokenizer_class = HfBertTokenizer


class BpTokenizersBackendTest(TokenizersBackendTesterMixin, unittest.TestCase):
    from_pretrained_id = HUB_ID
    from_pretrained_kwargs = {}
    tokenizer_class = BertpieceTokenizers
    rust_tokenizer_class = BertpieceTokenizers

