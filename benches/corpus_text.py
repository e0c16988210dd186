"""A slice of a corpus as the benches time it: whole lines only."""


def head(path, mb, skip_mb=0.0):
    """`mb` MB of `path` from its start, or from the first full line after `skip_mb` MB (text the rounds
    did not tune on), cut at the last full line."""
    with open(path, encoding="utf-8") as f:
        text = f.read(int((skip_mb + mb) * 1_000_000))
    if skip_mb:
        text = text[int(skip_mb * 1_000_000):]
        text = text[text.find("\n") + 1:]
    return text[: text.rfind("\n") + 1] if "\n" in text else text
