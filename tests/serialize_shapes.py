"""The tokenizer.json shapes the serialization tests compare with tokenizers
0.23.3: the byte-level BPE, Unigram (T5/XLM-R, with a sentencepiece
Precompiled normalizer too), WordPiece and WordLevel shapes the other tests
build, plus BERT and MPNet shapes over the bundled bert-base-uncased vocabulary."""

import functools

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

import bertpiece
import bpe_shapes
import models_shapes
import precomp_shapes


def _bert_base(post_processor, size=None):
    with open(bertpiece.vocab_path("bert-base-uncased"), encoding="utf-8") as f:
        vocab = {line.rstrip("\n"): i for i, line in enumerate(f) if size is None or i < size}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.post_processor = post_processor(tok)
    tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def bert_json():
    """BERT's: BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing, WordPiece decoder."""
    return _bert_base(lambda t: processors.BertProcessing(("[SEP]", t.token_to_id("[SEP]")), ("[CLS]", t.token_to_id("[CLS]"))))


@functools.lru_cache(maxsize=None)
def small_bert_json():
    """BERT's shape over the first 5000 entries of its vocabulary (the specials, chars, common words)."""
    return _bert_base(lambda t: processors.BertProcessing(("[SEP]", t.token_to_id("[SEP]")), ("[CLS]", t.token_to_id("[CLS]"))), 5000)


@functools.lru_cache(maxsize=None)
def mpnet_json():
    """MPNet's: BERT's pieces with `[CLS] $A [SEP]`, pair `[CLS] $A [SEP] [SEP] $B [SEP]` (all type id 0),
    over BERT's first 5000 vocabulary entries."""
    return _bert_base(lambda t: processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] [SEP] $B [SEP]",
        special_tokens=[("[CLS]", t.token_to_id("[CLS]")), ("[SEP]", t.token_to_id("[SEP]"))],
    ), 5000)


SHAPES = {
    **bpe_shapes.SHAPES,
    **{k: models_shapes.SHAPES[k] for k in ("t5", "xlmr", "llama", "wordpiece", "wordlevel")},
    "xlmr_precompiled": precomp_shapes.xlmr_json,
    "bert": bert_json,
    "mpnet": mpnet_json,
}
SMALL_BERT = small_bert_json
