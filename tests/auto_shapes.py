"""Model folders as transformers saves them, built offline at test time in the
shapes of RoBERTa (byte-level BPE, RobertaProcessing), XLM-R and T5 (a
sentencepiece Unigram trained by sentencepiece 0.2.3, converted by transformers'
own converter: Precompiled normalizer, Metaspace), MPNet (WordPiece, its
template), and the sentencepiece-only folders (`.model` + tokenizer_config.json)
transformers converts when it loads them. Each folder is made by transformers'
own class (`save_pretrained`), so its tokenizer_config.json is transformers'."""

import atexit
import functools
import json
import os
import shutil
import tempfile

from bpe_shapes import roberta_json
from models_shapes import wordpiece_json
from precomp_shapes import spm_model

SHAPES = ("roberta", "xlmr", "t5", "mpnet")
SPM_SHAPES = ("xlmr_spm", "t5_spm")
_SPM = {"xlmr": ("XLMRobertaTokenizer", "sentencepiece.bpe.model"), "t5": ("T5Tokenizer", "spiece.model")}


@functools.lru_cache(maxsize=None)
def _root():
    root = tempfile.mkdtemp(prefix="bertpiece-auto-shapes-")
    atexit.register(shutil.rmtree, root, True)
    return root


def _spm_folder(shape):
    cls_name, filename = _SPM[shape]
    folder = os.path.join(_root(), shape + "_spm")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, filename), "wb") as f:
        f.write(spm_model("nmt_nfkc")[0])
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": cls_name}, f)
    return folder


@functools.lru_cache(maxsize=None)
def folder(shape):
    """The path of the folder of `shape` (one of SHAPES or SPM_SHAPES, or "bert"), built once per process."""
    import transformers

    if shape in SPM_SHAPES:
        return _spm_folder(shape[: -len("_spm")])
    path = os.path.join(_root(), shape)
    if shape == "roberta":
        model = json.loads(roberta_json())["model"]
        merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
        tok = transformers.RobertaTokenizer(vocab=model["vocab"], merges=merges)
    elif shape in _SPM:
        tok = getattr(transformers, _SPM[shape][0]).from_pretrained(folder(shape + "_spm"))
    elif shape == "bert":
        import bertpiece

        tok = transformers.BertTokenizer(vocab=bertpiece.vocab_path("bert-base-uncased"))
    elif shape == "mpnet":
        vocab = dict(json.loads(wordpiece_json())["model"]["vocab"])
        for special in ("<s>", "<pad>", "</s>", "<unk>", "<mask>"):
            vocab.setdefault(special, len(vocab))
        tok = transformers.MPNetTokenizer(vocab=vocab)
    else:
        raise ValueError(shape)
    tok.save_pretrained(path)
    return path
