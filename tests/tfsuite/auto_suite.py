"""transformers' tokenizer test suite against bertpiece.AutoTokenizer's objects, for the
RoBERTa, XLM-R, T5 and MPNet shapes (run by tests/test_transformers_suite_auto.py through
auto_harness.py; not collected by the main run).

For each shape, `Hf<Shape>` runs the mixins on transformers' own class for the folder and
`Bp<Shape>` on the same class over bertpiece (`bertpiece.auto_tokenizer.tokenizer_class`:
what bertpiece.AutoTokenizer returns; its constructor, so also its `from_pretrained`, puts
bertpiece's encoder behind it). Upstream hard-codes the integration data per model; here they
are computed at class setup from transformers' class on the same hub folder, so
`test_integration` compares bertpiece's tokens, ids and decoded text with transformers'.
"""

from __future__ import annotations

import unittest

import transformers

from bertpiece.auto_tokenizer import tokenizer_class
from tests.test_tokenization_common import TokenizerTesterMixin
from tests.test_tokenizers_backend_mixin import TokenizersBackendTesterMixin

NAMESPACE = "bertpiece-test"
CLASSES = {"Roberta": "RobertaTokenizer", "Xlmr": "XLMRobertaTokenizer", "T5": "T5Tokenizer",
           "Mpnet": "MPNetTokenizer"}


def _integration(cls):
    reference = getattr(transformers, CLASSES[cls.shape_name]).from_pretrained(cls.from_pretrained_id[0])
    text = cls.integration_test_input_string
    cls.integration_expected_tokens = reference.tokenize(text)
    cls.integration_expected_token_ids = reference.encode(text, add_special_tokens=False)
    cls.integration_expected_decoded_text = reference.decode(cls.integration_expected_token_ids,
                                                             clean_up_tokenization_spaces=False)


def _make(shape: str, prefix: str, ours: bool) -> None:
    hf_class = getattr(transformers, CLASSES[shape])
    klass = tokenizer_class(hf_class) if ours else hf_class
    hub = f"{NAMESPACE}/{shape.lower()}"

    def setUpClass(cls):
        TokenizerTesterMixin.setUpClass.__func__(cls)
        _integration(cls)

    name = f"{prefix}{shape}TokenizationTest"
    globals()[name] = type(name, (TokenizerTesterMixin, unittest.TestCase), {
        "tokenizer_class": klass, "rust_tokenizer_class": klass, "from_pretrained_id": hub,
        "shape_name": shape, "setUpClass": classmethod(setUpClass), "__module__": __name__})
    name = f"{prefix}{shape}BackendTest"
    globals()[name] = type(name, (TokenizersBackendTesterMixin, unittest.TestCase), {
        "tokenizer_class": klass, "rust_tokenizer_class": klass, "from_pretrained_id": hub,
        "from_pretrained_kwargs": {}, "__module__": __name__})


for _shape in CLASSES:
    _make(_shape, "Hf", False)
    _make(_shape, "Bp", True)
