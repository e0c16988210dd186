"""A stateful differential fuzzer: one `bertpiece.BertTokenizer` and the
reference built the same way (transformers' `BertTokenizer(vocab=...)` for
reference="tokenizers", `BertTokenizerLegacy(vocab_file=...)` for
reference="transformers"), driven by hypothesis through the same sequence of
calls and state changes:

- calls: `__call__` (single, pair, batch, pre-tokenized; random options),
  `pad` of earlier results, `decode`/`batch_decode`, `tokenize`, `convert_*`,
  `encode`; token metadata (`tokens()`, `word_ids()`, `sequence_ids()`,
  `char_to_token`, `word_to_tokens`) and the keys of results made by EARLIER
  calls, after whatever happened since; pickling both tokenizers (the copies
  go on) and past results;
- state changes: `add_tokens` (str and `AddedToken` with every flag),
  `add_special_tokens`, special-token attributes (to None, vocabulary and added
  tokens, new strings), `padding_side`, `truncation_side`, `model_max_length`,
  `split_special_tokens`.

Every step compares values and types (stateful_compare.py) and fails on the
first difference, which hypothesis shrinks to a minimal sequence of steps.
The deliberate differences of docs/bert_tokenizer.md are modelled where they
arise (each cites its row); KNOWN_OPEN (known_open.py) lists the comparisons
switched off until a reported defect's fix lands.
"""

from __future__ import annotations

import pickle
import unicodedata
import warnings

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, multiple, precondition, rule

import bertpiece

from . import stateful_strategies as S
from .compare import _documented_exception, _pinned_only, transformers
from .known_open import open_defect
from .stateful_compare import attempt, outcome_difference

AddedToken = transformers.AddedToken
MODEL = "bert-base-uncased"


class Pair:
    """The same call's result on both sides, kept for later steps."""

    def __init__(self, ours, theirs, call, version, none_special=False, unpickled=False):
        self.ours, self.theirs, self.call = ours, theirs, call
        self.version = version  # the machine's state version when it was made (known_open.py)
        self.none_special = none_special  # made while cls_token or sep_token was None (known_open.py)
        self.unpickled = unpickled

    def __repr__(self):
        return f"<result of {self.call}>"


def _added(spec):
    if isinstance(spec, str):
        return spec
    content, lstrip, rstrip, normalized, single_word, special = spec
    return AddedToken(content, lstrip=lstrip, rstrip=rstrip, normalized=normalized,
                      single_word=single_word, special=special)


class BertTokenizerMachine(RuleBasedStateMachine):
    reference = "tokenizers"
    results = Bundle("results")

    @initialize(options=st.fixed_dictionaries({}, optional={
        "padding_side": st.sampled_from(["left", "right"]),
        "truncation_side": st.sampled_from(["left", "right"]),
        "model_max_length": st.integers(4, 40),
        "strip_accents": st.booleans()}))
    def build(self, options):
        path = bertpiece.vocab_path(MODEL)
        self.ours = bertpiece.BertTokenizer(path, reference=self.reference, **options)
        if self.reference == "tokenizers":
            self.theirs = transformers.BertTokenizer(vocab=path, **options)
        else:
            self.theirs = transformers.BertTokenizerLegacy(vocab_file=path, **options)
        self.template = self.special_ids()
        self.version = 0  # counts state changes and pickling of the tokenizers

    # ------------------------------------------------------------------ helpers
    def both(self, fn):
        """fn(tokenizer) on both sides (reference first): the two attempt() outcomes."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = attempt(lambda: fn(self.theirs))
            ours = attempt(lambda: fn(self.ours))
        return ours, theirs

    def check(self, ours, theirs, where, case=None, **args):
        """Fails on a difference, unless documented (compare._documented_exception's rows of
        docs/bert_tokenizer.md, given the call's `case`) or a KNOWN_OPEN defect (`args`: the
        step's arguments its predicate reads)."""
        if case is not None and (ours[1] is not None or theirs[1] is not None):
            kwargs = case["kwargs"]
            if kwargs.get("truncation") not in (None, False, "do_not_truncate") and kwargs.get("max_length") is None:
                # truncation to model_max_length: the "max_length smaller than the special tokens" row too
                case = {**case, "kwargs": {**kwargs, "max_length": self.theirs.model_max_length}}
            if _documented_exception(case, ours[1], theirs[1]):
                return
            # the same row when the reference refuses the call for another reason (stride, overflow)
            if isinstance(ours[1], ValueError) and isinstance(theirs[1], ValueError) \
                    and "special tokens added" in str(ours[1]) and case["kwargs"].get("max_length") is not None:
                return
        d = outcome_difference(ours, theirs, where)
        if d is not None and not open_defect(self, where, d, ours, theirs, {**(case or {}), **args}):
            raise AssertionError(d)

    def text(self, value):
        # BertTokenizerLegacy reads this Python's Unicode data: drop the code points that differ
        # from bertpiece's pinned version (docs/semantics.md), as compare.run_case does.
        return _pinned_only(value) if self.reference == "transformers" else value

    def _normalized_match_differs(self, texts) -> bool:
        """docs/bert_tokenizer.md row "normalized added tokens": the reference matches a
        normalized added token in the normalized text (HF: a special one too), bertpiece in
        the raw text. True when that could change this text's tokens."""
        lower = self.theirs.do_lower_case if hasattr(self.theirs, "do_lower_case") else True
        for token in self.theirs.added_tokens_decoder.values():
            if not token.normalized or (token.special and self.reference != "tokenizers"):
                continue
            for text in texts:
                norm = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
                norm = norm.lower() if lower else norm
                if text.count(token.content) != norm.count(token.content) or text.lower() != text and \
                        token.content.lower() in norm:
                    return True
        return False

    def _legacy_never_split(self, texts) -> bool:
        """docs/bert_tokenizer.md row "legacy mode: a special token renamed by attribute":
        BertTokenizerLegacy keeps such a token whole (never_split), bertpiece splits it."""
        if self.reference != "transformers":
            return False
        loose = [t for t in self.theirs.all_special_tokens if t not in self.theirs.added_tokens_encoder]
        return any(t in text for t in loose for text in texts)

    def documented_text(self, *texts) -> bool:
        flat = []
        for t in texts:
            if isinstance(t, str):
                flat.append(t)
            elif isinstance(t, (list, tuple)):
                flat.extend(x if isinstance(x, str) else " ".join(x) for x in t if isinstance(x, (str, list)))
        return self._normalized_match_differs(flat) or self._legacy_never_split(flat)

    def special_ids(self):
        return self.theirs.cls_token, self.theirs.sep_token, self.theirs.cls_token_id, self.theirs.sep_token_id

    def sync_template(self):
        """docs/bert_tokenizer.md row "tokenizers mode: cls_token / sep_token renamed after
        loading": HF keeps the ids its post-processor was built with, bertpiece uses the current
        ones (as BertTokenizerLegacy). Rebuild the reference's BERT template (its own __init__
        code) so that both mean the current tokens."""
        self.version += 1
        now = self.special_ids()
        if self.reference != "tokenizers" or now == self.template or None in now:
            return  # None: a known open defect (known_open.py), nothing to rebuild
        from tokenizers import processors

        # pieces as lists: a token may hold a space; a name with no id of its own stands for the
        # unk id, whose token the row shows (the same doc row)
        cls, sep = (str(t) if self.theirs.convert_tokens_to_ids(str(t)) != self.theirs.unk_token_id
                    or str(t) == str(self.theirs.unk_token) else self.theirs.convert_ids_to_tokens(i)
                    for t, i in ((now[0], now[2]), (now[1], now[3])))
        self.theirs._tokenizer.post_processor = processors.TemplateProcessing(
            single=[f"{cls}:0", "$A:0", f"{sep}:0"], pair=[f"{cls}:0", "$A:0", f"{sep}:0", "$B:1", f"{sep}:1"],
            special_tokens=[(cls, self.theirs.cls_token_id), (sep, self.theirs.sep_token_id)])
        self.template = now

    # -------------------------------------------------------------------- calls
    # One rule per kind of input, so that calls are most of the steps (hypothesis picks rules evenly).
    @rule(target=results, pretokenized=st.booleans(), data=st.data(), options=S.CALL_OPTIONS)
    def call_single(self, pretokenized, data, options):
        return self.call("single", pretokenized, data, options)

    @rule(target=results, pretokenized=st.booleans(), data=st.data(), options=S.CALL_OPTIONS)
    def call_pair(self, pretokenized, data, options):
        return self.call("pair", pretokenized, data, options)

    @rule(target=results, pretokenized=st.booleans(), data=st.data(), options=S.CALL_OPTIONS)
    def call_batch(self, pretokenized, data, options):
        return self.call("batch", pretokenized, data, options)

    @rule(target=results, pretokenized=st.booleans(), data=st.data(), options=S.CALL_OPTIONS)
    def call_batch_pair(self, pretokenized, data, options):
        return self.call("batch_pair", pretokenized, data, options)

    def call(self, kind, pretokenized, data, options):
        item = S.WORD_LIST if pretokenized else S.TEXT
        n = data.draw(st.integers(0, 3), label="rows") if kind.startswith("batch") else None
        draw = (lambda: data.draw(st.lists(item, min_size=n, max_size=n))) if n is not None else \
            (lambda: data.draw(item))
        text = self.text(draw())
        kwargs = dict(options, is_split_into_words=True) if pretokenized else dict(options)
        if kind.endswith("pair"):
            kwargs["text_pair"] = self.text(draw())
        if self.documented_text(text, kwargs.get("text_pair")):
            return multiple()
        ours, theirs = self.both(lambda tok: tok(text, **kwargs))
        case = {"tokenizer": {"reference": self.reference}, "kwargs": kwargs, "text": text}
        self.check(ours, theirs, f"__call__({text!r}, **{kwargs!r})", case)
        if ours[1] is None and theirs[1] is None:
            return Pair(ours[0], theirs[0], f"__call__({text!r}, **{kwargs!r})", self.version,
                        none_special=None in (self.ours.cls_token, self.ours.sep_token))
        return multiple()

    @rule(text=S.TEXT, pair=st.one_of(st.none(), S.TEXT), add_special_tokens=st.booleans(),
          truncation=st.sampled_from([False, True, "only_second"]), max_length=st.one_of(st.none(), S.MAX_LENGTH),
          return_tensors=st.sampled_from([None, "np", "pt"]))
    def encode(self, text, pair, add_special_tokens, truncation, max_length, return_tensors):
        text, pair = self.text(text), self.text(pair) if pair is not None else None
        if self.documented_text(text, pair):
            return
        kwargs = dict(add_special_tokens=add_special_tokens, truncation=truncation, return_tensors=return_tensors)
        if max_length is not None:
            kwargs["max_length"] = max_length
        ours, theirs = self.both(lambda tok: tok.encode(text, pair, **kwargs))
        case = {"tokenizer": {"reference": self.reference}, "kwargs": kwargs, "text": text}
        self.check(ours, theirs, f"encode({text!r}, {pair!r}, **{kwargs!r})", case, pair=pair)

    @rule(text=S.TEXT)
    def tokenize(self, text):
        text = self.text(text)
        if self.documented_text(text):
            return
        self.check(*self.both(lambda tok: tok.tokenize(text)), f"tokenize({text!r})", text=text)

    @rule(tokens=st.one_of(S.TOKENS, st.sampled_from(S.ADDED_POOL)))
    def convert_tokens_to_ids(self, tokens):
        self.check(*self.both(lambda tok: tok.convert_tokens_to_ids(tokens)), f"convert_tokens_to_ids({tokens!r})")

    @rule(ids=st.one_of(S.IDS, S.ID), skip=st.booleans())
    def convert_ids_to_tokens(self, ids, skip):
        self.check(*self.both(lambda tok: tok.convert_ids_to_tokens(ids, skip_special_tokens=skip)),
                   f"convert_ids_to_tokens({ids!r}, skip_special_tokens={skip})", ids=ids)

    @rule(ids=st.one_of(S.IDS, st.lists(S.IDS, max_size=3)), options=S.DECODE_OPTIONS)
    def decode(self, ids, options):
        method = "batch_decode" if ids and isinstance(ids[0], list) else "decode"
        self.check(*self.both(lambda tok: getattr(tok, method)(ids, **options)),
                   f"{method}({ids!r}, **{options!r})", ids=ids)

    @rule(r=results, options=S.DECODE_OPTIONS)
    def decode_result(self, r, options):
        """decode / batch_decode of an earlier result's input_ids, each side its own (list, array, tensor)."""
        ours, theirs = r.ours["input_ids"], r.theirs["input_ids"]
        batched = len(theirs) > 0 and not isinstance(theirs[0], int) and getattr(theirs[0], "ndim", 0) != 0
        method = "batch_decode" if batched else "decode"
        self.check(attempt(lambda: getattr(self.ours, method)(ours, **options)),
                   attempt(lambda: getattr(self.theirs, method)(theirs, **options)),
                   f"{method}({r!r}['input_ids'], **{options!r})", result=r)

    @rule(r=results, options=S.PAD_OPTIONS)
    def pad(self, r, options):
        self.check(*self._pad(lambda side: getattr(r, side), options), f"pad({r!r}, **{options!r})", result=r)

    @rule(rs=st.lists(results, min_size=1, max_size=3), options=S.PAD_OPTIONS)
    def pad_list(self, rs, options):
        """pad of a list of results, as a data collator does."""
        self.check(*self._pad(lambda side: [getattr(r, side) for r in rs], options), f"pad({rs!r}, **{options!r})",
                   result=Pair(None, None, "rows", self.version, none_special=any(r.none_special for r in rs)))

    def _pad(self, inputs, options):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = attempt(lambda: self.theirs.pad(inputs("theirs"), **options))
            ours = attempt(lambda: self.ours.pad(inputs("ours"), **options))
        return ours, theirs

    @rule(r=results, batch_index=st.integers(0, 3), char_index=st.integers(0, 30), word_index=st.integers(0, 6),
          sequence_index=st.sampled_from([0, 1]))
    def read_result(self, r, batch_index, char_index, word_index, sequence_index):
        """An earlier result, read now: its keys again, and its token metadata."""
        self.check((r.ours, None), (r.theirs, None), f"{r!r} read again", result=r)
        encodings = lambda x: None if x.encodings is None else len(x.encodings)  # noqa: E731
        self.check(attempt(lambda: encodings(r.ours)), attempt(lambda: encodings(r.theirs)), f"{r!r}.encodings",
                   result=r, method="encodings")
        for name, args in [("tokens", (batch_index,)), ("word_ids", (batch_index,)),
                                          ("sequence_ids", (batch_index,)),
                           ("char_to_token", (batch_index, char_index, sequence_index)),
                           ("word_to_tokens", (batch_index, word_index, sequence_index))]:
            self.check(attempt(lambda: getattr(r.ours, name)(*args)), attempt(lambda: getattr(r.theirs, name)(*args)),
                       f"{r!r}.{name}{args}", result=r, method=name, batch_index=batch_index,
                       sequence_index=sequence_index)

    @rule(target=results, r=results)
    def pickle_result(self, r):
        ours, theirs = attempt(lambda: pickle.loads(pickle.dumps(r.ours))), \
            attempt(lambda: pickle.loads(pickle.dumps(r.theirs)))
        self.check(ours, theirs, f"pickle of {r!r}", result=r)
        if ours[1] is None and theirs[1] is None:
            return Pair(ours[0], theirs[0], f"unpickled {r.call}", r.version, none_special=r.none_special,
                        unpickled=True)
        return multiple()

    @rule(now=st.integers(0, 3))
    def pickle_tokenizers(self, now):
        if now:  # one time in four: a round trip costs as much as ten calls
            return
        self.ours = pickle.loads(pickle.dumps(self.ours))
        self.theirs = pickle.loads(pickle.dumps(self.theirs))
        self.version += 1

    # ------------------------------------------------------------ state changes
    @rule(specs=st.lists(S.ADDED_SPEC, min_size=1, max_size=3), special=st.booleans())
    def add_tokens(self, specs, special):
        ours, theirs = self.both(lambda tok: tok.add_tokens([_added(s) for s in specs], special_tokens=special))
        self.check(ours, theirs, f"add_tokens({specs!r}, special_tokens={special})", specs=specs)
        self.sync_template()

    @rule(name=st.sampled_from(S.SPECIAL_NAMES + ["additional_special_tokens", "extra_special_tokens"]),
          spec=S.ADDED_SPEC, replace=st.booleans())
    def add_special_tokens(self, name, spec, replace):
        value = (lambda: [_added(spec)]) if name.endswith("special_tokens") else (lambda: _added(spec))
        self.check(*self.both(lambda tok: tok.add_special_tokens({name: value()},
                                                                 replace_extra_special_tokens=replace)),
                   f"add_special_tokens({{{name!r}: {spec!r}}}, replace_extra_special_tokens={replace})",
                   specs=[spec])
        self.sync_template()

    @rule(name=st.sampled_from(S.SPECIAL_NAMES), value=st.sampled_from(S.SPECIAL_VALUES))
    def set_special_token(self, name, value):
        if name == "unk_token" and value is not None and value not in self.theirs.get_vocab():
            # transformers' BertTokenizer recurses without end (RecursionError) on any unknown
            # token once unk_token is itself unknown; bertpiece's unk_token_id is None, as
            # BertTokenizerLegacy's. Reported; not drawn, as every later step would hit it.
            return
        self.check(*self.both(lambda tok: setattr(tok, name, value)), f"{name} = {value!r}")
        self.sync_template()

    # Not "middle": docs/bert_tokenizer.md's padding_side / truncation_side row (bertpiece refuses
    # it when set, transformers when used next), so the two cannot be compared step by step after it.
    @rule(name=st.sampled_from(["padding_side", "truncation_side"]), value=st.sampled_from(["left", "right"]))
    def set_side(self, name, value):
        self.check(*self.both(lambda tok: setattr(tok, name, value)), f"{name} = {value!r}")
        self.check((getattr(self.ours, name), None), (getattr(self.theirs, name), None), f"{name} read back")
        self.version += 1

    @rule(value=st.one_of(st.integers(0, 40), st.just(512)))
    def set_model_max_length(self, value):
        self.check(*self.both(lambda tok: setattr(tok, "model_max_length", value)), f"model_max_length = {value}")
        self.version += 1

    @rule(value=st.booleans())
    def set_split_special_tokens(self, value):
        self.check(*self.both(lambda tok: setattr(tok, "split_special_tokens", value)),
                   f"split_special_tokens = {value}")
        self.version += 1

    @precondition(lambda self: hasattr(self, "theirs"))
    @rule()
    def special_state(self):
        """The tokenizers' special-token state, read back."""
        for name in S.SPECIAL_NAMES + ["all_special_tokens", "all_special_ids", "padding_side", "truncation_side"]:
            self.check(attempt(lambda: getattr(self.ours, name)), attempt(lambda: getattr(self.theirs, name)), name)
        self.check(attempt(lambda: len(self.ours)), attempt(lambda: len(self.theirs)), "len()")


class LegacyMachine(BertTokenizerMachine):
    reference = "transformers"
