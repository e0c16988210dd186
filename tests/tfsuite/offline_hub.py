"""A local Hugging Face hub cache that answers the hub ids transformers' tests use.

`build(cache_dir)` writes `models--google-bert--bert-base-uncased/` in the
huggingface_hub cache layout (refs/main + snapshots/<rev>/) from bertpiece's
bundled bert-base-uncased vocabulary, with the tokenizer files the hub has for
that model: tokenizer_config.json (do_lower_case true, model_max_length 512),
tokenizer.json (BertNormalizer lowercase, BertPreTokenizer, WordPiece,
[CLS] $A [SEP] template, WordPiece decoder), vocab.txt and config.json
(model_type bert). Written from known values, nothing downloaded; with
HF_HUB_CACHE pointing at it and HF_HUB_OFFLINE=1 both transformers' tokenizers
and bertpiece's load the id without a network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import bertpiece

HUB_ID = "google-bert/bert-base-uncased"
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def vocab_file() -> str:
    return os.path.join(os.path.dirname(bertpiece.__file__), "vocab", "bert-base-uncased.txt")


def tokenizer_json(vocab_path: str) -> str:
    """The hub's tokenizer.json for bert-base-uncased, built with HF tokenizers."""
    from tokenizers import AddedToken, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    vocab = {}
    with open(vocab_path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            vocab[line.rstrip("\n")] = i
    tok = Tokenizer(WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                                lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0", pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in SPECIALS])
    return tok.to_str(pretty=True)


def files() -> dict[str, str]:
    with open(vocab_file(), encoding="utf-8") as f:
        vocab = f.read()
    return {
        "vocab.txt": vocab,
        "tokenizer.json": tokenizer_json(vocab_file()),
        "tokenizer_config.json": json.dumps({"do_lower_case": True, "model_max_length": 512}),
        "config.json": json.dumps({"architectures": ["BertForMaskedLM"], "model_type": "bert",
                                   "vocab_size": vocab.count("\n"), "hidden_size": 768,
                                   "num_hidden_layers": 12, "num_attention_heads": 12,
                                   "intermediate_size": 3072, "max_position_embeddings": 512,
                                   "type_vocab_size": 2, "pad_token_id": 0}),
    }


def build(cache_dir: str) -> dict[str, str]:
    """Write the cache; return the environment variables that make transformers use it."""
    content = files()
    rev = hashlib.sha1("".join(content[k] for k in sorted(content)).encode()).hexdigest()
    repo = os.path.join(cache_dir, "models--" + HUB_ID.replace("/", "--"))
    shutil.rmtree(repo, ignore_errors=True)
    snapshot = os.path.join(repo, "snapshots", rev)
    os.makedirs(snapshot)
    for name, text in content.items():
        with open(os.path.join(snapshot, name), "w", encoding="utf-8") as f:
            f.write(text)
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "main"), "w", encoding="utf-8") as f:
        f.write(rev)
    return {"HF_HUB_CACHE": cache_dir, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1"}
