"""Real-shaped Unigram, WordPiece and WordLevel tokenizer.json files, trained
at test time with HF tokenizers' own trainers on the UD samples (small
vocabularies), with the Metaspace pre-tokenizer and the decoders and
post-processors real files pair them with (T5, XLM-R, Llama, BERT shapes)."""

import functools
import json

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

from bpe_shapes import training_sample
from shared_cache import session_cached


def _metaspace(tok, prepend_scheme="always", split=True):
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme=prepend_scheme, split=split)
    return tok


@session_cached
def unigram_base():
    """A Unigram trained behind Metaspace (vocabulary 4000: the sample has 2705 chars; <pad> </s> <unk> <s> first)."""
    tok = _metaspace(Tokenizer(models.Unigram()))
    trainer = trainers.UnigramTrainer(vocab_size=4000, special_tokens=["<pad>", "</s>", "<unk>", "<s>"],
                                      unk_token="<unk>", show_progress=False)
    tok.train_from_iterator(training_sample(), trainer)
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def t5_json():
    """T5's shape: Metaspace pre-tokenizer and decoder, `$A </s>` (pair `$A </s> $B </s>`)."""
    tok = Tokenizer.from_str(unigram_base())
    tok.decoder = decoders.Metaspace()
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)])
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def xlmr_json():
    """XLM-R's shape: `<s> $A </s>`, pair `<s> $A </s> </s> $B </s>`, a <mask> that takes the space before it."""
    tok = Tokenizer.from_str(unigram_base())
    tok.decoder = decoders.Metaspace()
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)])
    from tokenizers import AddedToken
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=False, special=True)])
    return tok.to_str()


def with_byte_pieces(text, every=1):
    """The file with `<0xNN>` pieces (every `every`-th byte) and byte_fallback on."""
    cfg = json.loads(text)
    have = {p for p, _ in cfg["model"]["vocab"]}
    for b in range(0, 256, every):
        if f"<0x{b:02X}>" not in have:
            cfg["model"]["vocab"].append([f"<0x{b:02X}>", 0.0])
    cfg["model"]["byte_fallback"] = True
    return json.dumps(cfg)


@functools.lru_cache(maxsize=None)
def llama_json():
    """Llama's decoder chain over a byte_fallback Unigram: Replace ▁, ByteFallback, Fuse, Strip."""
    tok = Tokenizer.from_str(with_byte_pieces(unigram_base()))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    return tok.to_str()


@session_cached
def wordpiece_json(prefix="##"):
    """BERT's model, processor and decoder behind Metaspace (the BERT normalizer and pre-tokenizer are other families')."""
    tok = _metaspace(Tokenizer(models.WordPiece(unk_token="[UNK]", continuing_subword_prefix=prefix)))
    trainer = trainers.WordPieceTrainer(vocab_size=800, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
                                        continuing_subword_prefix=prefix, limit_alphabet=80, show_progress=False)
    tok.train_from_iterator(training_sample(), trainer)
    tok.decoder = decoders.WordPiece(prefix=prefix)
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    return tok.to_str()


@session_cached
def wordlevel_json():
    """A WordLevel over Metaspace words (vocabulary 600) with a CTC-free plain decoder chain."""
    tok = _metaspace(Tokenizer(models.WordLevel(unk_token="[UNK]")), prepend_scheme="never")
    trainer = trainers.WordLevelTrainer(vocab_size=600, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False)
    tok.train_from_iterator(training_sample(), trainer)
    tok.decoder = decoders.Metaspace(prepend_scheme="never")
    return tok.to_str()


@session_cached
def sentencepiece_json():
    """A sentencepiece 0.2.3 Unigram model (byte_fallback) trained on the UD samples and converted by
    transformers' SpmConverter, as Llama/T5-era files are made. Its normalizer is left out
    (the models oracle reads files without one, and its anchored Replace regexes are refused; the
    Precompiled charsmap is tested in precomp_shapes.py's XLM-R/T5 shapes) to test the model,
    Metaspace (in a Sequence of one, split false) and the decoder chain."""
    import io

    import sentencepiece as spm
    from transformers.convert_slow_tokenizer import SpmConverter, import_protobuf

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(training_sample()), model_writer=model, vocab_size=3000,
                                   model_type="unigram", character_coverage=0.9995, byte_fallback=True,
                                   minloglevel=2, num_threads=1)
    proto = import_protobuf().ModelProto()
    proto.ParseFromString(model.getvalue())
    tok = SpmConverter.build_tokenizer_from_spm_proto(proto, [(p.piece, p.score) for p in proto.pieces])
    cfg = json.loads(tok.to_str())
    cfg["normalizer"] = None
    return json.dumps(cfg)


SHAPES = {"spm": sentencepiece_json, "t5": t5_json, "xlmr": xlmr_json, "llama": llama_json, "wordpiece": wordpiece_json, "wordlevel": wordlevel_json}
