"""sentencepiece's trainer options as `SentencePieceTrainer.train` takes them:
keyword arguments or the "--name=value" string, with sentencepiece's names,
defaults and value forms (lists comma-separated in the string form, bools
"true"/"false"). Options not implemented exactly are refused by name."""

from __future__ import annotations

import shlex
from typing import Any, Dict, List

from ._spm_model import MODEL_TYPES, TRAINER_FIELDS

__all__ = ["parse_options", "SUPPORTED", "DEFAULTS", "NORMALIZATION_RULES"]

NORMALIZATION_RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity")

# Implemented exactly (their meaning; the learned pieces follow bertpiece's Unigram/BPE trainers).
DEFAULTS: Dict[str, Any] = {
    "input": [], "model_prefix": None, "model_type": "unigram", "vocab_size": 8000, "character_coverage": 0.9995,
    "normalization_rule_name": "nmt_nfkc", "add_dummy_prefix": True, "remove_extra_whitespaces": True,
    "byte_fallback": False, "user_defined_symbols": [], "control_symbols": [], "split_digits": False,
    "unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1, "unk_piece": "<unk>", "bos_piece": "<s>",
    "eos_piece": "</s>", "pad_piece": "<pad>", "shrinking_factor": 0.75, "num_sub_iterations": 2,
    "max_sentencepiece_length": 16, "seed_sentencepiece_size": 1_000_000, "num_threads": 16,
    "max_sentence_length": 4192,
}
SUPPORTED = set(DEFAULTS)
# Accepted when given their default value only (anything else would change the result).
ONLY_DEFAULT: Dict[str, Any] = {
    "input_sentence_size": 0, "shuffle_input_sentence": True, "hard_vocab_limit": True, "use_all_vocab": False,
    "split_by_whitespace": True, "treat_whitespace_as_suffix": False, "allow_whitespace_only_pieces": False,
    "escape_whitespaces": True, "vocabulary_output_piece_score": True, "train_extremely_large_corpus": False,
    "enable_differential_privacy": False, "input_format": "",
}
# Logging only.
IGNORED = {"minloglevel", "logstream"}
_NORMALIZER_ONLY = {"normalization_rule_name", "add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces"}


def _bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    raise ValueError(f"{name} must be true or false, got {value!r}")


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer, got {value!r}") from None


def _float(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None


def _strings(name: str, value: Any) -> List[str]:
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"{name} must be a list of str or a comma-separated str, got {value!r}")


def _value(name: str, value: Any) -> Any:
    if name == "normalization_rule_name":
        if value not in NORMALIZATION_RULES:
            raise ValueError(f"normalization_rule_name must be one of {', '.join(NORMALIZATION_RULES)}, got "
                             f"{value!r} (a custom normalization_rule_tsv is not implemented)")
        return value
    if name == "model_type":
        if value not in ("unigram", "bpe"):
            raise ValueError(f"model_type must be 'unigram' or 'bpe', got {value!r} (word and char are not "
                             "implemented)")
        return value
    kind = TRAINER_FIELDS[name][1] if name in TRAINER_FIELDS else "bool"
    if kind == "strings":
        return _strings(name, value)
    if kind == "bool":
        return _bool(name, value)
    if kind in ("int32", "uint64"):
        return _int(name, value)
    if kind == "float":
        return _float(name, value)
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a str, got {value!r}")
    return value


def _from_string(arg: str) -> Dict[str, str]:
    out = {}
    for item in shlex.split(arg):
        if not item.startswith("--") or "=" not in item:
            raise ValueError(f"expected --name=value in the options string, got {item!r}")
        name, value = item[2:].split("=", 1)
        out[name] = value
    return out


def parse_options(arg: Any, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """{name: typed value} of the options given (the string form's and the
    keyword arguments; a name in both is an error), checked; refused: unknown
    names (ValueError naming them) and options not implemented exactly."""
    given: Dict[str, Any] = {}
    if arg is not None:
        if not isinstance(arg, str):
            raise TypeError(f"arg must be a str of --name=value options, got {type(arg).__name__}")
        given.update(_from_string(arg))
    for name, value in kwargs.items():
        if name in given:
            raise ValueError(f"option {name} is given twice")
        given[name] = value
    unknown = sorted(n for n in given if n not in SUPPORTED and n not in ONLY_DEFAULT and n not in IGNORED)
    if unknown:
        raise ValueError(f"sentencepiece option(s) not implemented by bertpiece.SentencePieceTrainer: "
                         f"{', '.join(unknown)}")
    options: Dict[str, Any] = {}
    for name, value in given.items():
        if name in IGNORED:
            continue
        typed = _value(name, value)
        if name in ONLY_DEFAULT and typed != ONLY_DEFAULT[name]:
            raise ValueError(f"{name}={value!r} is not implemented by bertpiece.SentencePieceTrainer (only "
                             f"{ONLY_DEFAULT[name]!r})")
        options[name] = typed
    return options


def trainer_spec(options: Dict[str, Any]) -> Dict[str, Any]:
    """The TrainerSpec fields sentencepiece writes: the options given, as given."""
    spec = {n: v for n, v in options.items() if n in TRAINER_FIELDS and n not in _NORMALIZER_ONLY}
    if "model_type" in spec:
        spec["model_type"] = MODEL_TYPES[spec["model_type"]]
    return spec
