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
Every upstream test runs as upstream wrote it: bertpiece's tokenizers mode is a
`TokenizersBackend` (as transformers' BertTokenizer), its legacy mode is not.
"""

from __future__ import annotations

import functools
import unittest

import bertpiece
from transformers import BertTokenizer as HfBertTokenizer
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

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


class BpTokenizersTokenizationTest(_BertTokenization, unittest.TestCase):
    tokenizer_class = BertpieceTokenizers
    rust_tokenizer_class = BertpieceTokenizers


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

