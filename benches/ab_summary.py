"""The summary line the A/B benches print after their rounds: each side's median and the median (and
range) of the per-round ratios second / first. Not run by itself."""

from __future__ import annotations

import statistics


def median_ratio_line(a, b, unit="MB/s", names=("A", "B"), digits=3):
    """`a` and `b`: the two sides' figures, round by round (the same rounds, in order)."""
    ratios = sorted(y / x for x, y in zip(a, b))
    (first, second), d = names, digits
    return (f"{first} median {statistics.median(a):.1f} {unit}, {second} median {statistics.median(b):.1f} {unit}; "
            f"{second}/{first} median of rounds {statistics.median(ratios):.{d}f} ({ratios[0]:.{d}f}-{ratios[-1]:.{d}f})")
