"""The code points the every-code-point sweeps run through.

Every code point of planes 0-3 and 14 (all that any Unicode version assigns so far), and every 61st of
planes 4-13 (unassigned) and 15-16 (private use, with each plane's two noncharacters), plus each run's
first and last two: there every code point has the same properties (asserted against unicodedata2 here),
so the references and the oracle treat them alike, and the whole range costs several times the rest."""

import functools

UNIFORM_RUNS = (range(0x40000, 0xE0000), range(0xF0000, 0xFFFFE), range(0x100000, 0x10FFFE))
STRIDE = 61


def _sampled(cp):
    for run in UNIFORM_RUNS:
        if cp in run:
            return (cp - run.start) % STRIDE == 0 or cp - run.start < 2 or run.stop - cp <= 2
    return True


@functools.lru_cache(maxsize=None)
def _checked():
    """The runs are uniform in the newest Unicode the tests know (unicodedata2): unassigned, or private use."""
    import unicodedata2

    for run, category in zip(UNIFORM_RUNS, ("Cn", "Co", "Co")):
        odd = [cp for cp in run if unicodedata2.category(chr(cp)) != category]
        assert not odd, f"U+{odd[0]:04X} is not {category}: the sampled runs of tests/code_points.py are not uniform"
    return True


def code_points(start=0, stop=0x110000, surrogates=False):
    """The swept code points in [start, stop): see the module's docstring."""
    _checked()
    return [cp for cp in range(start, stop) if (surrogates or not 0xD800 <= cp < 0xE000) and _sampled(cp)]
