#!/usr/bin/env python3
"""Generate bertpiece's Unicode tables from one pinned Unicode version.

Two sources, both for Unicode ``UNICODE_VERSION``:

* ``unicodedata2`` (the installed wheel): general category, canonical
  combining class, canonical decomposition and composition.  This is what
  Google's ``tokenization.py`` reads through ``unicodedata``.
* CPython's *character type* database, ``unicodetype_db.h``, as shipped in the
  ``unicodedata2`` source distribution of the same version: full lowercase
  mappings, ``isspace``, ``Cased``, ``Case_Ignorable`` and decimal digits.
  This is what ``str.lower()``, ``str.split()``/``strip()`` and ``re``'s ``\\d``
  read inside the interpreter, so it is the right source for those; taking
  them from the pinned file instead of the running interpreter makes the
  oracle and the Rust core agree on every Python version.

Outputs (both marked generated):

* ``src/unicode_tables.rs`` -- the Rust core's tables.
* ``python/bertpiece/_strtables.py`` -- the str-method tables the oracle uses.

Usage::

    python scripts/gen_unicode_tables.py            # write both files
    python scripts/gen_unicode_tables.py --check    # exit 1 if either is stale
    python scripts/gen_unicode_tables.py --fetch    # download the sdists first
    python scripts/gen_unicode_tables.py --verify-interpreter

``--verify-interpreter`` checks the ctype-database reader itself: it reads the
``unicodedata2`` sdist of the *running interpreter's* Unicode version and
compares the result with that interpreter's own ``str.lower()``,
``str.isspace()``, ``re`` ``\\d`` and Final_Sigma behaviour on every code point.

The sdists are downloaded from PyPI (``pip download``) into ``.cache/``.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path

UNICODEDATA2_PIN = "17.0.1"  # unicodedata2 package version
UNICODE_VERSION = "17.0.0"  # the Unicode version it carries

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache"
RUST_OUT = ROOT / "src" / "unicode_tables.rs"
PY_OUT = ROOT / "python" / "bertpiece" / "_strtables.py"

def sdist_path(version: str) -> Path:
    return CACHE / f"unicodedata2-{version}.tar.gz"


def interpreter_sdist_version() -> str:
    """The unicodedata2 release carrying this interpreter's Unicode version."""
    import unicodedata

    return UNICODEDATA2_PIN if unicodedata.unidata_version == UNICODE_VERSION else unicodedata.unidata_version

MAX_CP = 0x110000
HANGUL_S_BASE, HANGUL_S_COUNT = 0xAC00, 11172

# Flag bits of the Rust property table (keep in sync with src/unicode.rs).
FLAG_BITS = {
    "CONTROL": 1 << 0,  # Cc or Cf (Google's _is_control, minus the \t\n\r exception)
    "OTHER": 1 << 1,  # any C* category (transformers' _is_control)
    "ZS": 1 << 2,  # Zs (BERT whitespace besides " \t\n\r")
    "MN": 1 << 3,  # Mn (stripped after NFD)
    "PUNCT": 1 << 4,  # P* or the four ASCII ranges
    "SPACE": 1 << 5,  # str.isspace()
    "CASED": 1 << 6,  # Cased (final sigma)
    "IGNORABLE": 1 << 7,  # Case_Ignorable (final sigma)
    "DECIMAL": 1 << 8,  # re \d
    "HAS_LOWER": 1 << 9,  # str.lower() changes the code point
    "DECOMPOSES": 1 << 10,  # NFD changes the code point
    "COMPOSES": 1 << 11,  # may be the second half of a canonical composition
}

# CPython's ctype flag masks (Objects/unicodectype.c).
CT_DECIMAL, CT_SPACE = 0x02, 0x20
CT_CASE_IGNORABLE, CT_CASED, CT_EXTENDED_CASE = 0x1000, 0x2000, 0x4000


def fetch_sdist(version: str) -> None:
    if sdist_path(version).exists():
        return
    CACHE.mkdir(exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary=:all:",
         "-q", "-d", str(CACHE), f"unicodedata2=={version}"],
        check=True,
    )


def read_ctype_db(version: str = UNICODEDATA2_PIN) -> str:
    path = sdist_path(version)
    if not path.exists():
        sys.exit(f"missing {path}: run `python scripts/{Path(__file__).name} --fetch` (or `make fetch-ucd`)")
    with tarfile.open(path) as tar:
        member = tar.extractfile(f"unicodedata2-{version}/unicodedata2/unicodetype_db.h")
        assert member is not None
        return io.TextIOWrapper(member, encoding="utf-8").read()


def c_array(src: str, name: str) -> list[str]:
    m = re.search(re.escape(name) + r"\[\] = \{(.*?)\};", src, re.S)
    if m is None:
        sys.exit(f"unicodetype_db.h: array {name} not found")
    return m.group(1)


def parse_ctype_db(src: str):
    """Return per-code-point (lower: str, flags: int) exactly as CPython computes them."""
    records = [tuple(int(x) for x in r.split(","))
               for r in re.findall(r"\{([-\d, ]+)\}", c_array(src, "_PyUnicode_TypeRecords"))]
    extended = [int(x) for x in c_array(src, "_PyUnicode_ExtendedCase").replace("\n", " ").split(",") if x.strip()]
    shift = int(re.search(r"#define SHIFT (\d+)", src).group(1))
    index1 = [int(x) for x in c_array(src, "index1").split(",") if x.strip()]
    index2 = [int(x) for x in c_array(src, "index2").split(",") if x.strip()]

    def record(cp: int):
        i = index1[cp >> shift]
        return records[index2[(i << shift) + (cp & ((1 << shift) - 1))]]

    lower, flags = {}, [0] * MAX_CP
    for cp in range(MAX_CP):
        _upper, low, _title, _dec, _dig, fl = record(cp)
        flags[cp] = fl
        if fl & CT_EXTENDED_CASE:  # _PyUnicode_ToLowerFull
            start, n = low & 0xFFFF, low >> 24
            mapped = "".join(chr(c) for c in extended[start:start + n])
        else:
            mapped = chr(cp + low)
        if mapped != chr(cp):
            lower[cp] = mapped
    return lower, flags


def ranges(cps) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] + 1 == cp:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return [tuple(r) for r in out]


def is_ascii_punct(cp: int) -> bool:
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126


def build():
    import unicodedata2 as ud

    if ud.unidata_version != UNICODE_VERSION:
        sys.exit(f"unicodedata2 carries Unicode {ud.unidata_version}, expected {UNICODE_VERSION}: "
                 f"pip install unicodedata2=={UNICODEDATA2_PIN}")
    lower, ctype = parse_ctype_db(read_ctype_db())

    # Canonical decompositions (full, recursive: what NFD yields for one code
    # point) and primary composites (pairs NFC recombines).  Hangul is
    # algorithmic in src/unicode.rs and left out of both tables.
    decomp: dict[int, list[int]] = {}
    compose: list[tuple[int, int, int]] = []
    second_halves: set[int] = set()
    for cp in range(MAX_CP):
        if HANGUL_S_BASE <= cp < HANGUL_S_BASE + HANGUL_S_COUNT:
            continue
        ch = chr(cp)
        nfd = ud.normalize("NFD", ch)
        if nfd != ch:
            decomp[cp] = [ord(c) for c in nfd]
        raw = ud.decomposition(ch)
        if raw and not raw.startswith("<"):
            parts = [int(p, 16) for p in raw.split()]
            if len(parts) == 2 and ud.normalize("NFC", ch) == ch:
                compose.append((parts[0], parts[1], cp))
                second_halves.add(parts[1])
    second_halves.update(range(0x1161, 0x1176))  # Hangul V
    second_halves.update(range(0x11A8, 0x11C3))  # Hangul T
    compose.sort()

    props: list[tuple[int, int]] = []  # distinct (flags, ccc)
    prop_index: dict[tuple[int, int], int] = {}
    per_cp = [0] * MAX_CP
    for cp in range(MAX_CP):
        ch = chr(cp)
        cat = ud.category(ch)
        f = 0
        if cat in ("Cc", "Cf"):
            f |= FLAG_BITS["CONTROL"]
        if cat.startswith("C"):
            f |= FLAG_BITS["OTHER"]
        if cat == "Zs":
            f |= FLAG_BITS["ZS"]
        if cat == "Mn":
            f |= FLAG_BITS["MN"]
        if cat.startswith("P") or is_ascii_punct(cp):
            f |= FLAG_BITS["PUNCT"]
        if ctype[cp] & CT_SPACE:
            f |= FLAG_BITS["SPACE"]
        if ctype[cp] & CT_CASED:
            f |= FLAG_BITS["CASED"]
        if ctype[cp] & CT_CASE_IGNORABLE:
            f |= FLAG_BITS["IGNORABLE"]
        if ctype[cp] & CT_DECIMAL:
            f |= FLAG_BITS["DECIMAL"]
        if cp in lower:
            f |= FLAG_BITS["HAS_LOWER"]
        if cp in decomp or HANGUL_S_BASE <= cp < HANGUL_S_BASE + HANGUL_S_COUNT:
            f |= FLAG_BITS["DECOMPOSES"]
        if cp in second_halves:
            f |= FLAG_BITS["COMPOSES"]
        key = (f, ud.combining(ch))
        if key not in prop_index:
            prop_index[key] = len(props)
            props.append(key)
        per_cp[cp] = prop_index[key]
    assert len(props) <= 256, "property classes no longer fit in a u8"
    return ud, lower, ctype, decomp, compose, props, per_cp


def two_level(per_cp: list[int], shift: int):
    block = 1 << shift
    blocks: dict[tuple[int, ...], int] = {}
    stage1, stage2 = [], []
    for start in range(0, MAX_CP, block):
        chunk = tuple(per_cp[start:start + block])
        if chunk not in blocks:
            blocks[chunk] = len(blocks)
            stage2.extend(chunk)
        stage1.append(blocks[chunk])
    return stage1, stage2


def rust_array(name: str, ty: str, values, per_line: int = 16) -> str:
    lines = [f"pub static {name}: [{ty}; {len(values)}] = ["]
    for i in range(0, len(values), per_line):
        lines.append("    " + ", ".join(str(v) for v in values[i:i + per_line]) + ",")
    lines.append("];")
    return "\n".join(lines)


HEADER = "generated by scripts/gen_unicode_tables.py from unicodedata2 {pin} (Unicode {ver}); do not edit"


def render_rust(lower, decomp, compose, props, per_cp) -> str:
    shift = 7
    stage1, stage2 = two_level(per_cp, shift)
    out = [f"// @{HEADER.format(pin=UNICODEDATA2_PIN, ver=UNICODE_VERSION)}.",
           "// Layout and meaning: src/unicode.rs.", "",
           f'pub const UNICODE_VERSION: &str = "{UNICODE_VERSION}";',
           f"pub const SHIFT: u32 = {shift};", ""]
    for name, bit in FLAG_BITS.items():
        out.append(f"pub const {name}: u16 = {bit};")
    out.append("")
    out.append(f"/// Distinct (flags, canonical combining class) pairs.\npub static PROPS: [(u16, u8); {len(props)}] = [")
    for i in range(0, len(props), 8):
        out.append("    " + ", ".join(f"({f}, {c})" for f, c in props[i:i + 8]) + ",")
    out.append("];")
    out.append(rust_array("STAGE1", "u16", stage1))
    out.append(rust_array("STAGE2", "u8", stage2, 32))

    assert max(len(v) for v in lower.values()) <= 3
    out.append(f"/// Full lowercase mapping (str.lower() without the sigma context rule), sorted.\n"
               f"pub static LOWER: [(u32, [u32; 3]); {len(lower)}] = [")
    for cp in sorted(lower):
        vals = [ord(c) for c in lower[cp]] + [0] * (3 - len(lower[cp]))
        out.append(f"    ({cp:#x}, [{', '.join(f'{v:#x}' for v in vals)}]),")
    out.append("];")

    data: list[int] = []
    index = []
    for cp in sorted(decomp):
        index.append((cp, len(data), len(decomp[cp])))
        data.extend(decomp[cp])
    out.append(f"/// Canonical decomposition (full) of each code point NFD changes, but Hangul: (cp, start, len) into DECOMP_DATA.\n"
               f"pub static DECOMP: [(u32, u16, u8); {len(index)}] = [")
    for i in range(0, len(index), 6):
        out.append("    " + ", ".join(f"({cp:#x}, {s}, {n})" for cp, s, n in index[i:i + 6]) + ",")
    out.append("];")
    out.append(rust_array("DECOMP_DATA", "u32", [f"{v:#x}" for v in data], 10))
    out.append(f"/// Primary composites: (first, second, composed), sorted.\npub static COMPOSE: [(u32, u32, u32); {len(compose)}] = [")
    for i in range(0, len(compose), 4):
        out.append("    " + ", ".join(f"({a:#x}, {b:#x}, {c:#x})" for a, b, c in compose[i:i + 4]) + ",")
    out.append("];")
    return "\n".join(out) + "\n"


def render_py(lower, ctype) -> str:
    def rng(mask):
        return ranges(cp for cp in range(MAX_CP) if ctype[cp] & mask)

    def frozen(name, rs):
        body = ",\n    ".join(f"({a:#x}, {b:#x})" for a, b in rs)
        return f"{name} = _expand((\n    {body},\n))\n"

    out = [f"# @{HEADER.format(pin=UNICODEDATA2_PIN, ver=UNICODE_VERSION)}.",
           '"""CPython str-method data (str.lower, str.isspace, re \\\\d) at the pinned Unicode version.',
           "",
           "The oracle uses these instead of the running interpreter's own tables so that its",
           'output does not depend on which Python runs it."""',
           "",
           f'UNICODE_VERSION = "{UNICODE_VERSION}"',
           "",
           "",
           "def _expand(ranges):",
           "    return frozenset(cp for lo, hi in ranges for cp in range(lo, hi + 1))",
           "",
           "",
           "# code point -> full lowercase mapping, where it differs from the code point",
           "LOWER = {"]
    for cp in sorted(lower):
        out.append(f"    {cp:#x}: {lower[cp]!r},")
    out.append("}")
    out.append("")
    out.append(frozen("SPACE", rng(CT_SPACE)))
    out.append(frozen("CASED", rng(CT_CASED)))
    out.append(frozen("CASE_IGNORABLE", rng(CT_CASE_IGNORABLE)))
    out.append(frozen("DECIMAL", rng(CT_DECIMAL)))
    return "\n".join(out)


def verify_interpreter() -> int:
    """Compare the ctype reader's output with this interpreter's str methods."""
    lower, flags = parse_ctype_db(read_ctype_db(interpreter_sdist_version()))
    digit = re.compile(r"\d")
    bad = []
    for cp in range(MAX_CP):
        ch = chr(cp)
        # Final_Sigma classes, probed through str.lower() itself.
        cased_probe = ("1" + ch + "\u03a3").lower()[-1] == "\u03c2"
        ignorable_or_cased_probe = ("A" + ch + "\u03a3").lower()[-1] == "\u03c2"
        ignorable, cased = bool(flags[cp] & CT_CASE_IGNORABLE), bool(flags[cp] & CT_CASED)
        if (lower.get(cp, ch) != ch.lower()
                or bool(flags[cp] & CT_SPACE) != ch.isspace()
                or bool(flags[cp] & CT_DECIMAL) != bool(digit.match(ch))
                or (cp != 0x3A3 and (cased_probe != (cased and not ignorable)
                                     or ignorable_or_cased_probe != (ignorable or cased)))):
            bad.append(cp)
    import unicodedata

    print(f"ctype reader vs this interpreter (Unicode {unicodedata.unidata_version}): "
          f"{len(bad)} code points differ {[hex(c) for c in bad[:10]]}")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a generated file is stale")
    ap.add_argument("--fetch", action="store_true", help="download the unicodedata2 sdists first")
    ap.add_argument("--verify-interpreter", action="store_true",
                    help="check the ctype reader against this interpreter's own str methods")
    args = ap.parse_args()
    if args.fetch:
        fetch_sdist(UNICODEDATA2_PIN)
        fetch_sdist(interpreter_sdist_version())
    if args.verify_interpreter:
        return verify_interpreter()
    _ud, lower, ctype, decomp, compose, props, per_cp = build()
    outputs = {RUST_OUT: render_rust(lower, decomp, compose, props, per_cp), PY_OUT: render_py(lower, ctype)}
    stale = [p for p, text in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)} (run scripts/gen_unicode_tables.py)")
        return 1 if stale else 0
    for p, text in outputs.items():
        p.write_text(text, encoding="utf-8")
        print(f"wrote {p.relative_to(ROOT)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
