"""`SentencePieceProcessor`: sentencepiece's Python class over bertpiece's
Rust processor (`_core.SentencePieceModel`). Same constructor, methods
(CamelCase and snake_case), defaults and exception types; the random or
proto-returning calls (sampling, n-best, `return_type='proto'`, offsets) are
refused with NotImplementedError naming them."""

import re

from .. import _core
from . import args as _args
from .errors import ModelFileNotFoundError, ModelLoadError, surrogate_error

_NORMAL, _UNKNOWN, _CONTROL, _USER_DEFINED, _UNUSED, _BYTE = 1, 2, 3, 4, 5, 6


def _per_id(method):
    """One id -> the answer; a sequence of ids -> a list of answers (as sentencepiece's ID methods)."""
    def call(self, id):
        model = self._loaded()
        try:
            if _args.is_sequence(id):
                return [method(self, model, i) for i in id]
            return method(self, model, id)
        except OverflowError:
            raise TypeError("Input must be an integer buffer, list of integers, or a sequence of integers.") from None
    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    return call


class SentencePieceProcessor:
    def __init__(self, model_file=None, model_proto=None, out_type=None, add_bos=False, add_eos=False, reverse=False,
                 emit_unk_piece=False, enable_sampling=False, nbest_size=-1, alpha=0.1, num_threads=-1,
                 return_type=None):
        self._model = None
        self._return_type = _args.return_type(int, return_type, out_type)
        self._add_bos, self._add_eos, self._reverse = add_bos, add_eos, reverse
        self._emit_unk_piece = emit_unk_piece
        self._enable_sampling, self._nbest_size, self._alpha = enable_sampling, nbest_size, alpha
        self._num_threads = num_threads
        if model_file or model_proto:
            self.Load(model_file=model_file, model_proto=model_proto)

    @classmethod
    def from_file(cls, model_file, **kwargs):
        if "model_file" in kwargs or "model_proto" in kwargs:
            raise ValueError("model_file and model_proto cannot be passed via kwargs when using from_file classmethod.")
        processor = cls(**kwargs)
        processor.LoadFromFile(model_file)
        return processor

    @classmethod
    def from_proto(cls, model_proto, **kwargs):
        if "model_file" in kwargs or "model_proto" in kwargs:
            raise ValueError("model_file and model_proto cannot be passed via kwargs when using from_proto classmethod.")
        processor = cls(**kwargs)
        processor.LoadFromSerializedProto(model_proto)
        return processor

    # -- loading ---------------------------------------------------------------------------------------

    def Load(self, model_file=None, model_proto=None):
        if model_file and model_proto:
            raise ValueError("model_file and model_proto must be exclusive.")
        if model_proto:
            return self.LoadFromSerializedProto(model_proto)
        if model_file:
            return self.LoadFromFile(model_file)
        raise ValueError("Either model_file or model_proto must be specified.")

    def LoadFromFile(self, filename):
        try:
            with open(filename, "rb") as f:
                blob = f.read()
        except FileNotFoundError as e:
            raise ModelFileNotFoundError(e.errno, e.strerror, str(filename)) from None
        return self._load(blob)

    def LoadFromSerializedProto(self, serialized):
        if hasattr(serialized, "SerializeToString"):
            serialized = serialized.SerializeToString()
        if not isinstance(serialized, (bytes, bytearray, memoryview)):
            raise TypeError("model_proto must be bytes or a ModelProto")
        return self._load(bytes(serialized))

    def _load(self, blob):
        try:
            model = _core.SentencePieceModel(blob)
        except ValueError as e:
            raise ModelLoadError(str(e)) from None
        self._model, self._blob = model, blob
        unk, bos, eos, pad = model.special_pieces()
        self._unk_id = self._reserved_id(unk, _UNKNOWN)
        self._bos_id, self._eos_id, self._pad_id = (self._reserved_id(p, _CONTROL) for p in (bos, eos, pad))
        return True

    def _reserved_id(self, piece, kind):
        """sentencepiece's unk_id()/bos_id()...: the piece's id if it has that type, else -1."""
        id = self._model.piece_to_id(piece)
        return id if self._model.piece_type(id) == kind else -1

    def _loaded(self):
        if self._model is None:
            raise RuntimeError("INTERNAL: Model is not initialized.")
        return self._model

    # -- encoding --------------------------------------------------------------------------------------

    def Encode(self, input, add_bos=None, add_eos=None, reverse=None, emit_unk_piece=None, enable_sampling=None,
               nbest_size=None, alpha=None, num_threads=None, thread_pool=None, return_type=None, out_type=None,
               return_bytes=None):
        return_type = _args.return_type(self._return_type, return_type, out_type)
        if return_bytes is not None:
            raise ValueError("return_bytes is only supported when return_type='offset_mapping'")
        add_bos = self._add_bos if add_bos is None else add_bos
        add_eos = self._add_eos if add_eos is None else add_eos
        reverse = self._reverse if reverse is None else reverse
        emit_unk_piece = self._emit_unk_piece if emit_unk_piece is None else emit_unk_piece
        enable_sampling = self._enable_sampling if enable_sampling is None else enable_sampling
        nbest_size, alpha = self._nbest_size if nbest_size is None else nbest_size, self._alpha if alpha is None else alpha
        num_threads = self._num_threads if num_threads is None else num_threads
        _args.check_types((("add_bos", add_bos), ("add_eos", add_eos), ("reverse", reverse),
                           ("emit_unk_piece", emit_unk_piece if return_type in (str, bytes) else None),
                           ("enable_sampling", enable_sampling)),
                          nbest_size, alpha, num_threads if isinstance(input, list) else None)
        _args.refuse_sampling(enable_sampling, nbest_size, alpha)
        if not isinstance(num_threads, int):
            raise TypeError("num_threads must be int")
        model = self._loaded()
        batch = isinstance(input, list)
        texts = _args.texts(input) if batch else [_args.text(input)]
        _args.special_checks(self, add_bos, add_eos, emit_unk_piece and return_type in (str, bytes))
        try:
            return self._encode(model, texts, batch, return_type, add_bos, add_eos, reverse, emit_unk_piece, num_threads)
        except UnicodeEncodeError as e:
            raise surrogate_error(e) from None

    def _encode(self, model, texts, batch, return_type, add_bos, add_eos, reverse, emit_unk_piece, num_threads):
        if not batch and not (add_bos or add_eos or reverse or emit_unk_piece):
            return self._encode_one(model, texts[0], return_type)
        # The options are applied by the core in each slice's job (in parallel for a list;
        # one text with options is a list of one on one thread: one definition of them).
        bos, eos, reverse = self._bos_id if add_bos else None, self._eos_id if add_eos else None, bool(reverse)
        if return_type in (int, "numpy"):
            # numpy: int32 arrays made by the core, as np.array(row, dtype=np.int32)
            rows = model.encode_ids_batch(texts, num_threads if batch else 1, bos, eos, reverse, return_type == "numpy")
        else:
            rows = model.encode_pieces_batch(texts, num_threads if batch else 1, bos, eos, reverse, bool(emit_unk_piece),
                                             return_type is bytes)
        return rows if batch else rows[0]

    def _encode_one(self, model, text, return_type):
        if return_type in (int, "numpy"):
            row = model.encode_ids(text)
            if return_type == "numpy":
                import numpy as np
                row = np.array(row, dtype=np.int32)
                row.flags.writeable = False  # as sentencepiece's: a read-only view of its buffer
            return row
        row = model.encode_pieces(text)
        return [p.encode("utf-8") for p in row] if return_type is bytes else row

    def EncodeAsPieces(self, input, **kwargs):
        return self.Encode(input=input, out_type=str, **kwargs)

    def EncodeAsIds(self, input, **kwargs):
        return self.Encode(input=input, out_type=int, **kwargs)

    def EncodeAsNumpy(self, input, **kwargs):
        return self.Encode(input=input, out_type="numpy", **kwargs)

    # -- decoding --------------------------------------------------------------------------------------

    def Decode(self, input, return_type=None, out_type=None, num_threads=None, thread_pool=None, return_bytes=None):
        return_type = _args.return_type(str, return_type, out_type)
        if return_bytes is not None:
            raise ValueError("return_bytes is only supported when return_type='offset_mapping'")
        num_threads = self._num_threads if num_threads is None else num_threads
        if not isinstance(num_threads, int):
            raise TypeError("num_threads must be int")
        if return_type not in (str, bytes):
            raise ValueError(f"unknown return_type={return_type} or input type")
        model = self._loaded()
        if input is None or (isinstance(input, (str, bytes)) and len(input) == 0):
            input = []
        if not _args.is_sequence(input):
            input = [input]
            batch = False
        else:
            batch = len(input) > 0 and _args.is_sequence(input[0])
        rows = input if batch else [input]
        texts = [self._decode_one(model, row, return_type) for row in rows]
        return texts if batch else texts[0]

    def _decode_one(self, model, row, return_type):
        if len(row) and not hasattr(row, "dtype") and isinstance(row[0], (str, bytes)):
            # Pieces given as bytes decode to bytes, as in sentencepiece.
            as_bytes = return_type is bytes or isinstance(row[0], bytes)
            try:
                text = model.decode_pieces([p.decode("utf-8") if isinstance(p, bytes) else p for p in row])
            except UnicodeEncodeError as e:
                raise surrogate_error(e) from None
            return text.encode("utf-8") if as_bytes else text
        return self._decode_ids(model, row, return_type)

    def _decode_ids(self, model, row, return_type):
        try:
            text = model.decode_ids(row)
        except (TypeError, OverflowError):
            raise TypeError("Input must be an integer buffer, list of integers, or a sequence of integers.") from None
        return text.encode("utf-8") if return_type is bytes else text


    def DecodePieces(self, input, return_type=None, **kwargs):
        return self.Decode(input=input, return_type=return_type, **kwargs)

    def DecodeIds(self, input, return_type=None, **kwargs):
        return self.Decode(input=input, return_type=return_type, **kwargs)

    def Normalize(self, input, with_offsets=None):
        if with_offsets:
            raise NotImplementedError("bertpiece.SentencePieceProcessor does not implement Normalize(with_offsets=True)")
        model = self._loaded()
        if isinstance(input, list):
            return [model.normalize(_args.text(x)) for x in input]
        return model.normalize(_args.text(input))

    # -- refused: random or n-best segmentations, protos ----------------------------------------------

    def _refuse(name):
        def method(self, *a, **k):
            raise NotImplementedError(f"bertpiece.SentencePieceProcessor does not implement {name}")
        method.__name__ = name
        return method

    for _name in ("SampleEncodeAsPieces", "SampleEncodeAsIds", "SampleEncodeAsNumpy", "SampleEncodeAsProto",
                  "NBestEncode", "NBestEncodeAsPieces", "NBestEncodeAsIds", "NBestEncodeAsNumpy", "NBestEncodeAsProto",
                  "EncodeAsProto", "EncodeAsOffsetMapping", "DecodePiecesAsProto", "DecodeIdsAsProto",
                  "ParallelEncode", "ParallelEncodeAsPieces", "ParallelEncodeAsIds", "ParallelEncodeAsNumpy",
                  "ParallelEncodeAsProto"):
        locals()[_name] = _refuse(_name)
    del _name, _refuse

    # -- the vocabulary --------------------------------------------------------------------------------

    def GetPieceSize(self):
        return len(self._loaded())

    def PieceToId(self, piece):
        model = self._loaded()
        try:
            if isinstance(piece, (str, bytes)):
                return model.piece_to_id(_args.text(piece))
            if _args.is_sequence(piece):
                return [model.piece_to_id(_args.text(p)) for p in piece]
        except UnicodeEncodeError as e:
            raise surrogate_error(e) from None
        raise TypeError("PieceToId(): incompatible function arguments: expected str, bytes or a list of them")

    @_per_id
    def IdToPiece(self, model, id):
        return model.id_to_piece(id)

    @_per_id
    def GetScore(self, model, id):
        return model.get_score(id)

    @_per_id
    def IsUnknown(self, model, id):
        return model.piece_type(id) == _UNKNOWN

    @_per_id
    def IsControl(self, model, id):
        return model.piece_type(id) == _CONTROL

    @_per_id
    def IsUnused(self, model, id):
        return model.piece_type(id) == _UNUSED

    @_per_id
    def IsByte(self, model, id):
        return model.piece_type(id) == _BYTE

    def unk_id(self):
        self._loaded()
        return self._unk_id

    def bos_id(self):
        self._loaded()
        return self._bos_id

    def eos_id(self):
        self._loaded()
        return self._eos_id

    def pad_id(self):
        self._loaded()
        return self._pad_id

    def serialized_model_proto(self):
        return self._blob if self._model is not None else b""

    piece_size = GetPieceSize
    vocab_size = GetPieceSize
    Tokenize = Encode
    Detokenize = Decode

    def __len__(self):
        return self.GetPieceSize()

    def __getitem__(self, piece):
        return self.PieceToId(piece)

    # -- pickling: the settings and the model's bytes -------------------------------------------------

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_model", "_blob")}
        state["model_proto"] = self.serialized_model_proto()
        return state

    def __setstate__(self, state):
        state = dict(state) if isinstance(state, dict) else {"model_proto": state}
        blob = state.pop("model_proto")
        SentencePieceProcessor.__init__(self)
        if blob:
            self.LoadFromSerializedProto(blob)
        self.__dict__.update(state)


def _add_snake_case(cls):
    """sentencepiece's aliases: EncodeAsIds -> encode_as_ids, NBestEncode -> nbest_encode..."""
    for name, value in list(cls.__dict__.items()):
        if re.match(r"^[A-Z]+", name):
            setattr(cls, re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("n_best", "nbest"), value)


_add_snake_case(SentencePieceProcessor)
