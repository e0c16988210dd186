"""Loading and saving `BertTokenizer`: bundled names, transformers directories
(vocab.txt, tokenizer_config.json, special_tokens_map.json) and HF
`tokenizer.json`; the saved directories load in transformers."""

from __future__ import annotations

import json
import os

from . import chat_templates
from .add_rules import rebuild_hf_caches
from .added_tokens import SPECIAL_TOKENS_ATTRIBUTES, AddedToken
from ..tokenization import REFERENCES
from ..pretrained import HUB_MODEL_MAX_LENGTH, PRETRAINED, bundled_name, pretrained, vocab_path

VOCAB_FILE = "vocab.txt"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_FILE = "special_tokens_map.json"
ADDED_TOKENS_FILE = "added_tokens.json"
REFERENCE_KEY = "bertpiece_reference"  # tokenizer_config.json: the reference mode it was saved in

# transformers' from_pretrained options about downloading; accepted and unused.
_HUB_ONLY_KWARGS = ("cache_dir", "force_download", "local_files_only", "token", "revision", "subfolder", "proxies",
                    "trust_remote_code", "use_fast", "_from_auto", "_commit_hash", "resume_download",
                    "user_agent", "from_pipeline", "use_auth_token")


def _read_json_object(path):
    """The JSON object in `path` ({} when there is no such file); ValueError naming the file otherwise."""
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must hold a JSON object, got {type(data).__name__}")
    return data


def _token_content(value, file, key):
    """A special token as saved (a str or an AddedToken dict) as its content."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    raise ValueError(f"{file}: {key} must be a string or an object with a string 'content', got {value!r}")


def _added_tokens_decoder(value, path):
    """tokenizer_config.json's added_tokens_decoder, checked: [(id, AddedToken)]."""
    if value is None:
        return []
    if not isinstance(value, dict):
        raise ValueError(f"{path}: added_tokens_decoder must be an object of id -> token, got {type(value).__name__}")
    out = []
    for key, d in value.items():
        try:
            i = int(key)
        except ValueError:
            raise ValueError(f"{path}: added_tokens_decoder key {key!r} is not an integer id") from None
        if i < 0:
            raise ValueError(f"{path}: added_tokens_decoder id {i} is negative")
        if not isinstance(d, dict) or not isinstance(d.get("content"), str):
            raise ValueError(f"{path}: added_tokens_decoder[{key!r}] must be an object with a string 'content'")
        flags = {k: d[k] for k in ("single_word", "lstrip", "rstrip", "special", "normalized") if k in d}
        out.append((i, AddedToken(d["content"], **flags)))
    return out


class TokenizerFiles:
    """`from_pretrained`, `save_pretrained` and `save_vocabulary` of `BertTokenizer`."""

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path, *init_inputs, reference=None, **kwargs):
        """A bundled vocabulary by name or hub id (`bertpiece.PRETRAINED`,
        `google-bert/bert-base-uncased`), a directory with vocab.txt (+
        tokenizer_config.json, special_tokens_map.json, added_tokens.json)
        and/or tokenizer.json, or the path of a vocab.txt or tokenizer.json
        file. The caller's keyword arguments win over the files' settings;
        `reference` defaults to the mode a directory was saved in
        (`save_pretrained`), else "tokenizers"."""
        for key in _HUB_ONLY_KWARGS:  # transformers' download options: nothing is downloaded here
            kwargs.pop(key, None)
        name = os.fspath(pretrained_model_name_or_path)
        if reference is None and not os.path.isdir(name):
            reference = "tokenizers"
        bundled = bundled_name(name)
        if bundled is not None:
            entry = pretrained(bundled)
            kwargs.setdefault("do_lower_case", entry.hf_do_lower_case if reference != "google" else entry.do_lower_case)
            kwargs.setdefault("model_max_length", HUB_MODEL_MAX_LENGTH)
            kwargs.setdefault("name_or_path", name)
            return cls(vocab_path(bundled), *init_inputs, reference=reference, **kwargs)
        if os.path.isfile(name):
            if name.endswith(".json"):
                return cls._from_tokenizer_json(name, {}, kwargs, reference=reference)
            return cls(name, *init_inputs, reference=reference, **kwargs)
        if not os.path.isdir(name):
            raise OSError(f"Can't load tokenizer for {name!r}: not a bundled vocabulary ({', '.join(PRETRAINED)}, "
                          "or their google-bert/ hub ids), nor a directory, nor a vocab.txt / tokenizer.json file "
                          "(bertpiece does not download).")
        config = _read_json_object(os.path.join(name, CONFIG_FILE))
        for key, value in _read_json_object(os.path.join(name, SPECIAL_TOKENS_MAP_FILE)).items():
            config.setdefault(key, value)
        saved = config.pop(REFERENCE_KEY, None)
        if reference is None:  # the mode it was saved in (save_pretrained), else transformers' class name says
            reference = saved if saved in REFERENCES else \
                "transformers" if config.get("tokenizer_class") == "BertTokenizerLegacy" else "tokenizers"
        for key in ("tokenizer_class", "auto_map", "backend", "is_local", "local_files_only", "name_or_path",
                    "processor_class", "tokenizer_file", "vocab_file", "files_loaded"):
            config.pop(key, None)
        for key in SPECIAL_TOKENS_ATTRIBUTES:
            if key in config:
                config[key] = _token_content(config[key], CONFIG_FILE, key)
        for key in ("extra_special_tokens", "additional_special_tokens"):
            if config.get(key) is not None:
                value = config[key]
                if isinstance(value, dict):  # named model-specific tokens
                    config[key] = {k: _token_content(v, CONFIG_FILE, f"{key}.{k}") for k, v in value.items()}
                elif isinstance(value, list):
                    config[key] = [_token_content(v, CONFIG_FILE, f"{key}[{i}]") for i, v in enumerate(value)]
                else:
                    raise ValueError(f"{os.path.join(name, CONFIG_FILE)}: {key} must be a list, got "
                                     f"{type(value).__name__}")
        added = _added_tokens_decoder(config.pop("added_tokens_decoder", None), os.path.join(name, CONFIG_FILE))
        template = chat_templates.load(name, config)
        if template is not None:
            config["chat_template"] = template
        at_path = os.path.join(name, ADDED_TOKENS_FILE)
        for tok, i in _read_json_object(at_path).items():
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise ValueError(f"{at_path}: the id of {tok!r} must be a non-negative integer, got {i!r}")
            if all(a.content != tok for _, a in added):
                added.append((i, AddedToken(tok)))
        tj_path = os.path.join(name, TOKENIZER_FILE)
        vocab_file = os.path.join(name, VOCAB_FILE)
        kwargs.setdefault("name_or_path", name)
        if os.path.isfile(tj_path) and not (reference == "transformers" and os.path.isfile(vocab_file)):
            return cls._from_tokenizer_json(tj_path, config, kwargs, reference=reference)
        if not os.path.isfile(vocab_file):
            raise OSError(f"no {VOCAB_FILE} or {TOKENIZER_FILE} in {name!r}")
        config["added_tokens_decoder"] = [a for _, a in sorted(added, key=lambda p: p[0])]
        config.update(kwargs)
        return cls(vocab_file, *init_inputs, reference=reference, **config)

    @classmethod
    def _from_tokenizer_json(cls, path, config, kwargs, reference="tokenizers"):
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: not valid JSON ({exc})") from None

        def need(obj, key, where, kind=None):
            if not isinstance(obj, dict) or key not in obj:
                raise ValueError(f"{path}: missing field {where}.{key}")
            value = obj[key]
            if kind is not None and not isinstance(value, kind):
                raise ValueError(f"{path}: field {where}.{key} must be {kind.__name__}, got {type(value).__name__}")
            return value

        if not isinstance(data, dict):
            raise ValueError(f"{path}: top level must be an object")
        model = need(data, "model", "tokenizer", dict)
        mtype = model.get("type", "WordPiece")
        if mtype != "WordPiece":
            raise ValueError(f"{path}: field model.type must be 'WordPiece', got {mtype!r}")
        vocab = need(model, "vocab", "model", dict)
        for tok, i in vocab.items():
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise ValueError(f"{path}: field model.vocab[{tok!r}] must be a non-negative integer, got {i!r}")
        prefix = model.get("continuing_subword_prefix", "##")
        if prefix != "##":
            raise ValueError(f"{path}: field model.continuing_subword_prefix must be '##', got {prefix!r}")
        opts = dict(config)
        opts["unk_token"] = opts.get("unk_token", need(model, "unk_token", "model", str))
        mic = model.get("max_input_chars_per_word", 100)
        if not isinstance(mic, int) or isinstance(mic, bool):
            raise ValueError(f"{path}: field model.max_input_chars_per_word must be an integer, got {mic!r}")
        opts["max_input_chars_per_word"] = mic
        norm = data.get("normalizer")
        if norm is not None:
            if not isinstance(norm, dict) or norm.get("type") != "BertNormalizer":
                raise ValueError(f"{path}: field normalizer.type must be 'BertNormalizer', got "
                                 f"{norm.get('type') if isinstance(norm, dict) else norm!r}")
            if norm.get("clean_text", True) is not True:
                raise ValueError(f"{path}: field normalizer.clean_text must be true")
            for key, opt in (("lowercase", "do_lower_case"), ("handle_chinese_chars", "tokenize_chinese_chars")):
                value = norm.get(key, True)
                if not isinstance(value, bool):
                    raise ValueError(f"{path}: field normalizer.{key} must be a boolean, got {value!r}")
                opts[opt] = value
            sa = norm.get("strip_accents")
            if sa is not None and not isinstance(sa, bool):
                raise ValueError(f"{path}: field normalizer.strip_accents must be a boolean or null, got {sa!r}")
            opts["strip_accents"] = sa
        pre = data.get("pre_tokenizer")
        if pre is not None and (not isinstance(pre, dict) or pre.get("type") != "BertPreTokenizer"):
            raise ValueError(f"{path}: field pre_tokenizer.type must be 'BertPreTokenizer', got "
                             f"{pre.get('type') if isinstance(pre, dict) else pre!r}")
        post = data.get("post_processor")
        if post is not None:
            ptype = post.get("type") if isinstance(post, dict) else None
            if ptype == "TemplateProcessing":
                specials = need(post, "special_tokens", "post_processor", dict)
                single = need(post, "single", "post_processor", list)
                pair = need(post, "pair", "post_processor", list)
                names = [p["SpecialToken"]["id"] for p in single + pair if isinstance(p, dict) and "SpecialToken" in p]
                seqs = [(next(iter(p)), p[next(iter(p))].get("id"), p[next(iter(p))].get("type_id"))
                        for p in single + pair if isinstance(p, dict) and p]
                if len(single) != 3 or len(pair) != 5 or len(names) != 5 or names[0] != names[2] \
                        or names[1] != names[3] or names[3] != names[4] \
                        or [s[2] for s in seqs] != [0, 0, 0, 0, 0, 0, 1, 1]:
                    raise ValueError(f"{path}: field post_processor.single/pair must be BERT's template "
                                     "'[CLS] $A [SEP]' / '[CLS] $A [SEP] $B:1 [SEP]:1'")
                for n in (names[0], names[1]):
                    if n not in specials:
                        raise ValueError(f"{path}: field post_processor.special_tokens misses {n!r}")
                opts.setdefault("cls_token", names[0])
                opts.setdefault("sep_token", names[1])
            elif ptype == "BertProcessing":
                opts.setdefault("cls_token", need(post, "cls", "post_processor", list)[0])
                opts.setdefault("sep_token", need(post, "sep", "post_processor", list)[0])
            else:
                raise ValueError(f"{path}: field post_processor.type must be 'TemplateProcessing' or "
                                 f"'BertProcessing', got {ptype!r}")
        dec = data.get("decoder")
        if dec is not None and (not isinstance(dec, dict) or dec.get("type") != "WordPiece"):
            raise ValueError(f"{path}: field decoder.type must be 'WordPiece', got "
                             f"{dec.get('type') if isinstance(dec, dict) else dec!r}")
        added = data.get("added_tokens") or []
        if not isinstance(added, list):
            raise ValueError(f"{path}: field added_tokens must be a list")
        added_tokens = []
        id_limit = (max(vocab.values(), default=-1) + 1) + len(added)  # a dense id space holds every id below
        for k, a in enumerate(added):
            if not isinstance(a, dict):
                raise ValueError(f"{path}: field added_tokens[{k}] must be an object")
            content = need(a, "content", f"added_tokens[{k}]", str)
            tid = need(a, "id", f"added_tokens[{k}]", int)
            if isinstance(tid, bool) or not 0 <= tid < id_limit:
                raise ValueError(f"{path}: field added_tokens[{k}].id must be between 0 and {id_limit - 1} "
                                 f"(the model vocabulary plus the added tokens), got {tid!r}")
            added_tokens.append((tid, AddedToken(content, a.get("single_word", False), a.get("lstrip", False),
                                                 a.get("rstrip", False), a.get("special", False),
                                                 a.get("normalized", not a.get("special", False)))))
        opts["added_tokens_decoder"] = [t for _, t in sorted(added_tokens, key=lambda p: p[0])]
        opts.update(kwargs)
        # added tokens outside the model vocabulary keep their tokenizer.json ids
        model_vocab = dict(vocab)
        tok = cls(None, vocab=model_vocab, reference=reference, **opts)
        for tid, a in added_tokens:
            if a.content in tok._added and tok._added[a.content][0] != tid and a.content not in model_vocab:
                del tok._added_by_id[tok._added[a.content][0]]
                tok._put_added(tid, a)
        rebuild_hf_caches(tok)  # as HF's, fresh from the file
        tok._refresh_matcher()
        return tok

    # --------------------------------------------------------------- saving
    def _vocab_lines(self):
        by_id = sorted(self._vocab.items(), key=lambda kv: kv[1])
        return [t for t, _ in by_id]

    def save_vocabulary(self, save_directory, filename_prefix=None):
        save_directory = os.fspath(save_directory)
        if os.path.isdir(save_directory):
            path = os.path.join(save_directory, (filename_prefix + "-" if filename_prefix else "") + VOCAB_FILE)
        else:
            path = (filename_prefix + "-" if filename_prefix else "") + save_directory
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for tok in self._vocab_lines():
                f.write(tok + "\n")
        return (path,)

    def _tokenizer_json(self):
        added = [{"id": i, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
                  "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special}
                 for i, t in sorted(self._added_by_id.items())]
        cls, sep = self.cls_token, self.sep_token

        def special(name, type_id):
            return {"SpecialToken": {"id": name, "type_id": type_id}}

        def seq(name, type_id):
            return {"Sequence": {"id": name, "type_id": type_id}}

        return {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": self.tokenize_chinese_chars, "strip_accents": self.strip_accents,
                           "lowercase": self.do_lower_case},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [special(cls, 0), seq("A", 0), special(sep, 0)],
                "pair": [special(cls, 0), seq("A", 0), special(sep, 0), seq("B", 1), special(sep, 1)],
                "special_tokens": {cls: {"id": cls, "ids": [self.cls_token_id], "tokens": [cls]},
                                   sep: {"id": sep, "ids": [self.sep_token_id], "tokens": [sep]}}},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": self.unk_token, "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": self.max_input_chars_per_word, "vocab": dict(self._vocab)},
        }

    def save_pretrained(self, save_directory, legacy_format=None, filename_prefix=None, **kwargs):
        """Writes vocab.txt, tokenizer_config.json, special_tokens_map.json and, except in
        reference="transformers" mode, tokenizer.json; transformers loads the directory."""
        save_directory = os.fspath(save_directory)
        if os.path.isfile(save_directory):
            raise OSError(f"Provided path ({save_directory}) should be a directory, not a file")
        os.makedirs(save_directory, exist_ok=True)
        files = []
        config = {
            "added_tokens_decoder": {str(i): t.to_dict() for i, t in sorted(self._added_by_id.items())},
            "clean_up_tokenization_spaces": self.clean_up_tokenization_spaces,
            "do_basic_tokenize": self.do_basic_tokenize,
            "do_lower_case": self.do_lower_case,
            "model_max_length": self.model_max_length,
            "never_split": self.never_split,
            "strip_accents": self.strip_accents,
            "tokenize_chinese_chars": self.tokenize_chinese_chars,
            "padding_side": self.padding_side,
            "truncation_side": self.truncation_side,
            "tokenizer_class": "BertTokenizerLegacy" if self.legacy else "BertTokenizer",
            REFERENCE_KEY: self.reference,  # (from_pretrained reloads in this mode; transformers ignores it)
        }
        config.update(self.special_tokens_map)
        if self._extra_special_tokens:
            config["extra_special_tokens"] = [str(t) for t in self._extra_special_tokens]
        files.extend(chat_templates.save(self.chat_template, save_directory, config, filename_prefix,
                                         kwargs.get("save_jinja_files", True)))
        path = os.path.join(save_directory, (filename_prefix + "-" if filename_prefix else "") + CONFIG_FILE)
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        files.insert(0, path)
        files.extend(self.save_vocabulary(save_directory, filename_prefix))
        if not self.legacy:
            path = os.path.join(save_directory, (filename_prefix + "-" if filename_prefix else "") + TOKENIZER_FILE)
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(self._tokenizer_json(), indent=2, ensure_ascii=False) + "\n")
            files.append(path)
        return tuple(files)
