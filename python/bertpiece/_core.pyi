# Kept as one file over ~400 lines: a .pyi stubs one module, and bertpiece._core is one compiled module. Split
# into a stub package (_core/__init__.pyi re-exporting from _core/_part.pyi), mypy 2.4.1's stubtest
# (tests/test_api.py) fails on the stub-only submodule, absent at runtime, and with it allowlisted no longer
# checks the classes it holds against the extension (both tried on 2026-11-27).
"""Type stubs for the compiled extension (src/python/)."""

from os import PathLike
from typing import Any, Callable, Iterable, Optional, Sequence, TypeVar, Union, final

# (data address, data size, offsets address, offset width, first row, rows): see bertpiece.batch.
_ArrowChunk = tuple[int, int, int, int, int, int]

_T = TypeVar("_T")
_Text = Union[str, bytes]
_Path = Union[str, PathLike[str]]

UNICODE_VERSION: str
__version__: str
__all__ = [
    "Array",
    "BasicTokenizer",
    "BpeOptions",
    "ByteLevelCounter",
    "FullTokenizer",
    "MetaspaceCounter",
    "Needles",
    "OneText",
    "PaddedPlan",
    "PipelineEncoding",
    "PipelinePaddedPlan",
    "PipelineSettings",
    "PipelineTokenizer",
    "PreTokenCounter",
    "SentencePieceModel",
    "UNICODE_VERSION",
    "UnigramOptions",
    "WordCounter",
    "WordCounts",
    "WordpieceTokenizer",
    "__version__",
    "_forget_words",
    "_normalize",
    "encode_padded_block",
    "encode_padded_planes",
    "encode_to_dict",
    "encode_to_list",
    "encode_to_lists",
    "encode_to_offsets",
    "encode_to_windows",
    "exact_float_literals",
    "int_rows",
    "json_document",
    "json_document_to_file",
    "json_top_level_values",
    "pipeline_encode_flat",
    "pipeline_encode_ids",
    "pipeline_encode_padded",
    "pipeline_encode_padded_planes",
    "load_vocab",
    "new_instance",
    "serde_exact_literal",
    "serving_call",
    "serving_call_handoff",
    "whitespace_tokenize",
]

@final
class Array:
    """Memory NumPy adopts without a copy (`numpy.asarray(array)`)."""
    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    @property
    def __array_struct__(self) -> Any: ...  # a PyCapsule holding NumPy's PyArrayInterface

@final
class FullTokenizer:
    def __new__(
        cls,
        vocab_file: _Path,
        do_lower_case: bool = True,
        *,
        reference: str = "google",
        never_split: Optional[Sequence[_Text]] = None,
        tokenize_chinese_chars: bool = True,
        strip_accents: Optional[bool] = None,
        do_split_on_punc: bool = True,
        preserve_unused_tokens: bool = False,
        max_input_chars_per_word: Optional[int] = None,
        unk_token: str = "[UNK]",
    ) -> FullTokenizer: ...
    def tokenize(self, text: _Text) -> list[str]: ...
    def encode(self, text: _Text) -> list[int]: ...
    def encode_offsets(self, text: _Text) -> tuple[list[int], list[tuple[int, int]], list[int]]: ...
    def hf_normalize(self, text: str) -> str: ...
    def encode_batch(
        self,
        texts: Iterable[str],
        *,
        special: Optional[tuple[int, int]] = None,
        max_length: Optional[int] = None,
        return_offsets: bool = False,
        num_threads: Optional[int] = None,
        arrow: Optional[list[_ArrowChunk]] = None,
        added: Optional[list[str]] = None,
        pairs: Optional[Iterable[str]] = None,
        pair_truncation: str = "longest_first",
    ) -> tuple[Array, Array, Optional[Array], list[int], Optional[Array], bool]: ...
    def encode_padded(
        self,
        texts: Iterable[str],
        *,
        special: Optional[tuple[int, int]] = None,
        max_length: Optional[int] = None,
        pad_to: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
        pad_id: int = 0,
        padding_left: bool = False,
        return_offsets: bool = False,
        num_threads: Optional[int] = None,
        arrow: Optional[list[_ArrowChunk]] = None,
        added: Optional[list[str]] = None,
        pairs: Optional[Iterable[str]] = None,
        pair_truncation: str = "longest_first",
        pad_type_id: int = 0,
    ) -> tuple[int, Array, Array, Optional[Array], Array, list[int], Optional[Array], bool]: ...
    @staticmethod
    def from_entries(
        entries: Sequence[tuple[_Text, int]],
        do_lower_case: bool = True,
        *,
        reference: str = "google",
        never_split: Optional[Sequence[_Text]] = None,
        tokenize_chinese_chars: bool = True,
        strip_accents: Optional[bool] = None,
        do_split_on_punc: bool = True,
        preserve_unused_tokens: bool = False,
        max_input_chars_per_word: Optional[int] = None,
        unk_token: str = "[UNK]",
    ) -> FullTokenizer: ...
    def vocab_entries(self) -> list[tuple[str, int]]: ...
    @property
    def unk_token(self) -> str: ...
    def __len__(self) -> int: ...
    def token_to_id(self, token: str) -> Optional[int]: ...

@final
class BasicTokenizer:
    def __new__(
        cls,
        do_lower_case: bool = True,
        *,
        reference: str = "google",
        never_split: Optional[Sequence[_Text]] = None,
        tokenize_chinese_chars: bool = True,
        strip_accents: Optional[bool] = None,
        do_split_on_punc: bool = True,
        preserve_unused: Optional[Sequence[_Text]] = None,
    ) -> BasicTokenizer: ...
    def tokenize(self, text: _Text, never_split: Optional[Sequence[_Text]] = None) -> list[str]: ...

@final
class WordpieceTokenizer:
    def __new__(cls, tokens: Sequence[_Text], unk_token: _Text, max_input_chars_per_word: int) -> WordpieceTokenizer: ...
    def tokenize(self, text: _Text) -> list[str]: ...

_Item = tuple[list[str], Optional[list[str]]]
_State = tuple[list[int], list[int], list[str], list[Optional[int]], list[tuple[int, int]], list[int], list[int]]

@final
class PipelineEncoding:
    """One encoding of the general pipeline (bertpiece.Encoding); columns become lists when read."""
    @property
    def ids(self) -> list[int]: ...
    @property
    def type_ids(self) -> list[int]: ...
    @property
    def tokens(self) -> list[str]: ...
    @property
    def word_ids(self) -> list[Optional[int]]: ...
    @property
    def words(self) -> list[Optional[int]]: ...
    @property
    def offsets(self) -> list[tuple[int, int]]: ...
    @property
    def special_tokens_mask(self) -> list[int]: ...
    @property
    def attention_mask(self) -> list[int]: ...
    @property
    def sequence_ids(self) -> list[Optional[int]]: ...
    @property
    def overflowing(self) -> list[PipelineEncoding]: ...
    @property
    def n_sequences(self) -> int: ...
    def token_to_sequence(self, token_index: int) -> Optional[int]: ...
    def token_to_chars(self, token_index: int) -> Optional[tuple[int, int]]: ...
    def token_to_word(self, token_index: int) -> Optional[int]: ...
    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> Optional[tuple[int, int]]: ...
    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> Optional[tuple[int, int]]: ...
    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> Optional[int]: ...
    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> Optional[int]: ...
    def __len__(self) -> int: ...
    def __reduce__(self) -> tuple[object, tuple[_State, list[tuple[int, int, int]], list[PipelineEncoding]]]: ...
    @classmethod
    def _from_state(
        cls, cols: _State, ranges: list[tuple[int, int, int]], overflowing: list[PipelineEncoding]
    ) -> PipelineEncoding: ...

_Trunc = tuple[int, int, str, str]  # (max_length, stride, strategy, direction)
_Pad = tuple[Optional[int], Optional[int], int, str, int, str]  # (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction)
_AddedToken = tuple[str, bool, bool, bool, bool, bool]  # (content, single_word, lstrip, rstrip, normalized, special)

@final
class PipelineSettings:
    """Truncation and padding: an immutable value (enable_*/no_* make a new one)."""
    @property
    def truncation(self) -> Optional[_Trunc]: ...
    @property
    def padding(self) -> Optional[_Pad]: ...

@final
class PipelineTokenizer:
    """The general pipeline from a tokenizer.json (behind bertpiece.Tokenizer); never changes."""
    @staticmethod
    def from_str(json: str, fast_path: bool = True) -> PipelineTokenizer: ...
    def stored_settings(self) -> PipelineSettings: ...
    def encode(self, item: _Item, is_pretokenized: bool, add_special_tokens: bool, settings: PipelineSettings) -> PipelineEncoding: ...
    def encode_text(self, text: str, add_special_tokens: bool, settings: PipelineSettings) -> PipelineEncoding: ...
    def encode_batch_texts(
        self, texts: list[str], add_special_tokens: bool, settings: PipelineSettings, num_threads: Optional[int] = None
    ) -> list[PipelineEncoding]: ...
    def encode_batch(
        self,
        items: list[_Item],
        is_pretokenized: bool,
        add_special_tokens: bool,
        settings: PipelineSettings,
        num_threads: Optional[int] = None,
    ) -> list[PipelineEncoding]: ...
    def decode(self, ids: list[int], skip_special_tokens: bool) -> str: ...
    def decode_batch(
        self, batch: list[list[int]], skip_special_tokens: bool, num_threads: Optional[int] = None
    ) -> list[str]: ...
    def token_to_id(self, token: str) -> Optional[int]: ...
    def id_to_token(self, id: int) -> Optional[str]: ...
    def get_vocab(self, with_added_tokens: bool) -> dict[str, int]: ...
    def fast_path(self) -> Optional[str]: ...
    def num_special_tokens_to_add(self, is_pair: bool) -> int: ...
    def with_truncation(self, settings: PipelineSettings, params: Optional[_Trunc]) -> PipelineSettings: ...
    def with_padding(self, settings: PipelineSettings, params: Optional[_Pad]) -> PipelineSettings: ...
    def with_added_tokens(self, tokens: list[_AddedToken]) -> tuple[PipelineTokenizer, int]: ...
    @property
    def encode_special_tokens(self) -> bool: ...
    def with_encode_special_tokens(self, value: bool) -> PipelineTokenizer: ...
    def added_tokens(self) -> list[tuple[int, _AddedToken]]: ...

@final
class BpeOptions:
    """BPE training options as BpeTrainer takes them, checked once (see bertpiece.trainers)."""
    def __new__(
        cls,
        vocab_size: int,
        *,
        min_frequency: int = 0,
        special_tokens: Sequence[str] = ...,
        limit_alphabet: Optional[int] = None,
        initial_alphabet: Sequence[str] = ...,
        continuing_subword_prefix: Optional[str] = None,
        end_of_word_suffix: Optional[str] = None,
        max_token_length: Optional[int] = None,
        initial_tokens: Optional[Sequence[str]] = None,
    ) -> BpeOptions: ...

@final
class WordCounter:
    """Streaming word counts for vocabulary training (see bertpiece.training)."""
    def __new__(
        cls,
        *,
        reference: str = "google",
        do_lower_case: bool = True,
        strip_accents: Optional[bool] = None,
        tokenize_chinese_chars: bool = True,
        max_input_chars_per_word: Optional[int] = None,
    ) -> WordCounter: ...
    def feed(self, texts: Sequence[str], num_threads: Optional[int] = None) -> None: ...
    def stats(self) -> tuple[int, int, int]: ...
    def train(
        self,
        vocab_size: int,
        *,
        algorithm: str = "likelihood",
        special_tokens: Sequence[str] = ...,
        unused_tokens: int = 0,
        min_frequency: int = 0,
        limit_alphabet: Optional[int] = None,
        initial_alphabet: Sequence[str] = ...,
        continuing_subword_prefix: str = ...,
        initial_tokens: Optional[Sequence[str]] = None,
        progress: Optional[Callable[[int, int], object]] = None,
    ) -> tuple[list[str], int, int]: ...
    def train_bpe(
        self, options: BpeOptions, progress: Optional[Callable[[int, int], object]] = None
    ) -> tuple[list[str], list[tuple[str, str]], int]: ...

@final
class ByteLevelCounter:
    """Streaming counts of byte-level (GPT-2) pre-tokens for BPE training (see bertpiece.trainers)."""
    def __new__(cls, *, add_prefix_space: bool = False) -> ByteLevelCounter: ...
    @staticmethod
    def alphabet() -> list[str]: ...
    def feed(self, texts: Sequence[str], num_threads: Optional[int] = None) -> None: ...
    def stats(self) -> tuple[int, int]: ...
    def train_bpe(
        self, options: BpeOptions, progress: Optional[Callable[[int, int], object]] = None
    ) -> tuple[list[str], list[tuple[str, str]], int]: ...

@final
class MetaspaceCounter:
    """Streaming counts of Metaspace words (HF's Metaspace()) for Unigram training (see bertpiece.trainers)."""
    def __new__(cls) -> MetaspaceCounter: ...
    def feed(self, texts: Sequence[str], num_threads: Optional[int] = None) -> None: ...
    def stats(self) -> tuple[int, int]: ...
    def counts(self) -> list[tuple[str, int]]: ...
    def train_unigram(
        self,
        options: UnigramOptions,
        num_threads: Optional[int] = None,
        progress: Optional[Callable[[int, int], object]] = None,
    ) -> tuple[list[tuple[str, float]], Optional[int], int]: ...

@final
class UnigramOptions:
    """UnigramTrainer's options, checked once, for either train_unigram."""
    def __new__(
        cls,
        vocab_size: int,
        *,
        special_tokens: Sequence[str] = ...,
        shrinking_factor: float = 0.75,
        unk_token: Optional[str] = None,
        max_piece_length: int = 16,
        n_sub_iterations: int = 2,
        initial_alphabet: Sequence[str] = ...,
        seed_size: int = 1000000,
    ) -> UnigramOptions: ...

@final
class WordCounts:
    """Counted words (a Tokenizer's own pre-tokens, from PreTokenCounter or given), trained as the counters train (see bertpiece.tokenizers_api.training)."""
    def __new__(cls, counts: Sequence[tuple[str, int]]) -> WordCounts: ...
    def __len__(self) -> int: ...
    def items(self) -> list[tuple[str, int]]: ...
    def train_bpe(
        self, options: BpeOptions, progress: Optional[Callable[[int, int], object]] = None
    ) -> tuple[list[str], list[tuple[str, str]], int]: ...
    def train_unigram(
        self,
        options: UnigramOptions,
        num_threads: Optional[int] = None,
        progress: Optional[Callable[[int, int], object]] = None,
    ) -> tuple[list[tuple[str, float]], Optional[int], int]: ...

@final
class PreTokenCounter:
    """The pre-tokens of a tokenizer.json's normalizer and pre-tokenizer, counted in Rust (Tokenizer.train)."""
    def __new__(cls, json: str) -> PreTokenCounter: ...
    def feed(self, texts: Sequence[str], num_threads: Optional[int] = None) -> None: ...
    def stats(self) -> tuple[int, int]: ...
    @property
    def kind(self) -> str: ...
    def word_counts(self) -> WordCounts: ...

@final
class Needles:
    """Added tokens the serving entry points search rows for (converted once)."""
    def __new__(cls, added: list[str]) -> Needles: ...

@final
class OneText:
    """What `tok(text)`'s core path reads of a tokenizer (src/python/serving_call.rs)."""
    def __new__(
        cls,
        owner: int,
        core: FullTokenizer,
        cls_id: int,
        sep: int,
        added: Needles,
        model_max_length: object,
        made: object,
    ) -> OneText: ...

@final
class PaddedPlan:
    """A padded call's fixed options, converted once (src/python/serving_padded.rs)."""
    def __new__(
        cls,
        special: Optional[tuple[int, int]] = None,
        max_length: Optional[int] = None,
        pad_to: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
        pad_id: int = 0,
        padding_left: bool = False,
        pad_type_id: int = 0,
        added: Optional[Needles] = None,
    ) -> PaddedPlan: ...

@final
class PipelinePaddedPlan:
    """A general-pipeline padded call's fixed options, converted once (src/python/pipeline_serving.rs)."""
    def __new__(
        cls,
        settings: PipelineSettings,
        add_special_tokens: bool = True,
        pad_to: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
        pad_id: int = 0,
        pad_type_id: int = 0,
        padding_left: bool = False,
    ) -> PipelinePaddedPlan: ...

# tokenizer.json text as serde_json reads it (src/python/serde_literal.rs, src/python/json_text.rs).
def serde_exact_literal(x: float, repr: str) -> str | None: ...
def exact_float_literals(text: str, fallback: Callable[[str], str]) -> str: ...
def json_top_level_values(text: str, keys: list[str], pretty: bool) -> list[str | None]: ...
def json_document(text: str, head: str, keys: list[str], pretty: bool) -> str: ...
def json_document_to_file(text: str, head: str, keys: list[str], pretty: bool, path: str) -> None: ...

# The serving entry points of BertTokenizer.__call__ (src/python/serving.rs).
def encode_to_list(
    tok: FullTokenizer,
    text: str,
    cls: Optional[int] = None,
    sep: Optional[int] = None,
    added: Optional[Needles] = None,
) -> Optional[list[int]]: ...
def serving_call(
    general: Callable[..., Any],
    serving: dict[str, Any],
    encoding: type,
    rows: type,
    owner: type,
    doc: str,
    handoff: str = "auto",
) -> Callable[..., Any]: ...
def serving_call_handoff() -> str: ...
def new_instance(cls: type[_T]) -> _T: ...
def encode_to_dict(tok: FullTokenizer, text: str, cls: Optional[int] = None, sep: Optional[int] = None,
                   added: Optional[Needles] = None) -> Optional[dict[str, list[int]]]: ...
def encode_to_lists(
    tok: FullTokenizer,
    texts: Iterable[str],
    special: Optional[tuple[int, int]] = None,
    max_length: Optional[int] = None,
    added: Optional[Needles] = None,
    num_threads: Optional[int] = None,
) -> tuple[list[list[int]], list[list[int]], list[list[int]], list[int]]: ...
def encode_to_offsets(
    tok: FullTokenizer, text: str, cls: Optional[int] = None, sep: Optional[int] = None
) -> Optional[tuple[list[int], list[tuple[int, int]]]]: ...
def encode_to_windows(
    tok: FullTokenizer,
    text: str,
    windows: Callable[[int], list[tuple[int, int]]],
    cls: Optional[int] = None,
    sep: Optional[int] = None,
) -> Optional[tuple[list[list[int]], list[list[int]], list[list[int]]]]: ...
def encode_padded_block(
    tok: FullTokenizer,
    texts: Iterable[str],
    special: Optional[tuple[int, int]] = None,
    max_length: Optional[int] = None,
    pad_to: Optional[int] = None,
    pad_to_multiple_of: Optional[int] = None,
    pad_id: int = 0,
    padding_left: bool = False,
    pad_type_id: int = 0,
    added: Optional[Needles] = None,
    num_threads: Optional[int] = None,
) -> tuple[int, Array, list[int], int]: ...
# (width, (input ids, token type ids, attention mask) as int64 NumPy arrays, rows holding an added string, longest row)
def encode_padded_planes(
    tok: FullTokenizer, texts: Iterable[str], plan: PaddedPlan, num_threads: Optional[int] = None
) -> tuple[int, tuple[Any, Any, Any], list[int], int]: ...
def int_rows(data: bytes, bounds: Sequence[int], pairs: bool = False) -> list[list[Any]]: ...
# (ids int32, row_splits int64, offsets int32 (n, 2) or None, rows truncation cut)
def pipeline_encode_flat(
    tokenizer: PipelineTokenizer,
    settings: PipelineSettings,
    texts: Iterable[str],
    *,
    add_special_tokens: bool = True,
    max_length: Optional[int] = None,
    own_truncation: bool = True,
    return_offsets: bool = False,
    num_threads: Optional[int] = None,
    arrow: Optional[list[_ArrowChunk]] = None,
) -> tuple[Array, Array, Optional[Array], int]: ...
def pipeline_encode_ids(
    tokenizer: PipelineTokenizer, settings: PipelineSettings, text: str, add_special_tokens: bool = True
) -> list[int]: ...
# (width, int64 block (3, rows, width): ids, token type ids, attention mask; longest row, shortest row)
def pipeline_encode_padded(
    tokenizer: PipelineTokenizer,
    settings: PipelineSettings,
    texts: Iterable[str],
    *,
    add_special_tokens: bool = True,
    pad_to: Optional[int] = None,
    pad_to_multiple_of: Optional[int] = None,
    pad_id: int = 0,
    pad_type_id: int = 0,
    padding_left: bool = False,
    num_threads: Optional[int] = None,
) -> tuple[int, Array, int, int]: ...
# (width, (ids, token type ids, attention mask) as int64 NumPy arrays of (rows, width), longest row, shortest row)
def pipeline_encode_padded_planes(
    tokenizer: PipelineTokenizer, texts: Iterable[str], plan: PipelinePaddedPlan, num_threads: Optional[int] = None
) -> tuple[int, tuple[Any, Any, Any], int, int]: ...
def load_vocab(vocab_file: _Path, reference: str = "google") -> list[tuple[str, int]]: ...
def whitespace_tokenize(text: _Text) -> list[str]: ...
def _normalize(form: str, text: _Text) -> str: ...
def _forget_words() -> None: ...

@final
class SentencePieceModel:
    """sentencepiece's processor over one serialized ModelProto (bertpiece.SentencePieceProcessor's core)."""
    def __new__(cls, model_proto: bytes) -> SentencePieceModel: ...
    def encode_ids(self, text: str) -> list[int]: ...
    def encode_pieces(self, text: str) -> list[str]: ...
    def encode_ids_batch(self, texts: list[str], num_threads: int, bos: int | None = None, eos: int | None = None,
                         reverse: bool = False, numpy: bool = False) -> list[list[int]] | list[Any]: ...
    def encode_pieces_batch(self, texts: list[str], num_threads: int, bos: int | None = None, eos: int | None = None,
                            reverse: bool = False, emit_unk_piece: bool = False,
                            as_bytes: bool = False) -> list[list[str]] | list[list[bytes]]: ...
    def decode_ids(self, ids: Sequence[int]) -> str: ...
    def decode_pieces(self, pieces: Sequence[str]) -> str: ...
    def normalize(self, text: str) -> str: ...
    def piece_to_id(self, piece: str) -> int: ...
    def id_to_piece(self, id: int) -> str: ...
    def get_score(self, id: int) -> float: ...
    def piece_type(self, id: int) -> int: ...
    def special_pieces(self) -> tuple[str, str, str, str]: ...
    def model_type(self) -> str: ...
    def _shared_words(self) -> int: ...
    def __len__(self) -> int: ...
