"""The load errors. sentencepiece raises RuntimeError for a missing or broken
model file; bertpiece's are also the more precise built-in types (a broken file
is a ValueError naming the field or byte offset), so `except RuntimeError`
written for sentencepiece still catches them."""


class ModelLoadError(ValueError, RuntimeError):
    """A `.model` file (or serialized proto) that is malformed or contradicts itself."""


class ModelFileNotFoundError(FileNotFoundError, RuntimeError):
    """`model_file` names no file."""


class SurrogateTextError(UnicodeEncodeError, TypeError, RuntimeError):
    """A text or piece with a lone surrogate (not UTF-8). sentencepiece raises RuntimeError for one text and
    TypeError for a list; this is both, and the UnicodeEncodeError (a ValueError) that names the position."""


def surrogate_error(e):
    return SurrogateTextError(e.encoding, e.object, e.start, e.end, e.reason)
