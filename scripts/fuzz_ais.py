"""Fuzzed AIS lines, and the field-by-field comparison of the batch decoder with pyais.

``python -m scripts.fuzz_ais [--count 1000000] [--seed 1] [--file F ...]`` feeds the same
fuzzed lines (or, with ``--file``, the lines of real captures instead) to
the per-line ingest path (pyais decoding every payload) and to the batch decoder, and
prints the counts checked and the counts different: records, every field of every
record, every ingest counter, the vessel registry. The suite runs the same comparison on
every fixture and on a bounded number of hypothesis examples
(tests/ingest/test_batch_decoder.py).

The lines are mostly plain single-sentence reports of every type with random bits, and
values the rules single out written into their fields (lon 181, lat 91, speed 102.3 and
102.2, course 360 and 359.9, heading 511, 360 and 359, type 27's 63 and 511, zero and
reserved ship types, zero dimensions, type 24 part numbers 0-3, auxiliary-craft MMSIs,
text with '@' and blanks), lengths around each type's minimum, garbage in the fill bits;
then odd framing: tag blocks, multi-sentence messages, bad checksums, lower-case
checksums, extra fields, bad payload characters, blank and cut lines.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from typing import Any

from vigia.ingest.ais import MIN_BITS
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.decoder import Ingestor
from vigia.ingest.nmea import nmea_checksum
from vigia.ingest.records import RawLine, field_names

# (start, width, values) written into a payload of the type, each with some probability
SPECIAL: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {
    1: [
        (38, 4, (0, 1, 5, 15)),
        (50, 10, (1023, 1022, 0)),
        (61, 28, (181 * 600_000, (1 << 28) - 181 * 600_000, 180 * 600_000, 0, 1 << 27)),
        (89, 27, (91 * 600_000, (1 << 27) - 91 * 600_000, 90 * 600_000, 1 << 26)),
        (116, 12, (3600, 3599, 4095, 0)),
        (128, 9, (511, 360, 359, 0)),
    ],
    18: [
        (46, 10, (1023, 1022)),
        (57, 28, (181 * 600_000, 0, (1 << 28) - 1)),
        (85, 27, (91 * 600_000, 1 << 26)),
        (112, 12, (3600, 3599)),
        (124, 9, (511, 360, 359)),
    ],
    19: [
        (46, 10, (1023, 1022)),
        (57, 28, (181 * 600_000,)),
        (85, 27, (91 * 600_000,)),
        (112, 12, (3600,)),
        (124, 9, (511,)),
        (143, 120, (0, int("20" * 20, 16), int("00" * 19 + "21", 16))),
        (263, 8, (0, 26, 100, 255, 70)),
        (271, 9, (0,)),
        (280, 9, (0,)),
        (289, 6, (0,)),
        (295, 6, (0,)),
    ],
    27: [
        (40, 4, (15, 0)),
        (44, 18, (181 * 600, (1 << 18) - 1, 1 << 17)),
        (62, 17, (91 * 600, 1 << 16)),
        (79, 6, (63, 62)),
        (85, 9, (511, 360, 359)),
    ],
    5: [
        (40, 30, (0,)),
        (70, 42, (0, int("1" * 42, 2))),
        (112, 120, (0, 1 << 119)),
        (232, 8, (0, 26, 57, 100, 80)),
        (240, 9, (0,)),
        (249, 9, (0,)),
        (258, 6, (0,)),
        (264, 6, (0,)),
        (302, 120, (0,)),
    ],
    24: [
        (8, 30, (981_234_567, 980_000_000, 989_999_999, 990_000_000)),
        (38, 2, (0, 1, 1, 2, 3)),
        (40, 8, (0, 70)),
        (132, 30, (0,)),
    ],
    4: [(79, 28, (181 * 600_000,)), (107, 27, (91 * 600_000,))],
}
SPECIAL[2] = SPECIAL[3] = SPECIAL[1]
# full lengths of the types (bits), and the weights of the type mix
FULL = {1: 168, 2: 168, 3: 168, 4: 168, 5: 424, 18: 168, 19: 312, 24: 168, 27: 96}
TYPES = [1, 1, 1, 2, 3, 18, 18, 19, 27, 5, 5, 24, 24, 4, 0, 8, 14, 21, 63]


def armor(bits: int, nbits: int) -> str:
    """6-bit armouring of ``nbits`` bits (a multiple of 6)."""
    out = []
    for shift in range(nbits - 6, -6, -6):
        v = (bits >> shift) & 0x3F
        out.append(chr(v + 48 if v < 40 else v + 56))
    return "".join(out)


def payload(rng: random.Random) -> tuple[str, int]:
    """A random payload and its fill bits."""
    k = rng.choice(TYPES)
    if k in (0, 8, 14, 21, 63) or rng.random() < 0.05:
        k = rng.randrange(64) if rng.random() < 0.3 else k
    full = FULL.get(k, 168)
    least = MIN_BITS.get(k, 40)
    r = rng.random()
    if r < 0.7:
        nbits = full
    elif r < 0.9:
        nbits = rng.randint(max(6, least - 6), least + 6)
    else:
        nbits = rng.randint(6, 480)
    value = rng.getrandbits(nbits) & ((1 << (nbits - 6)) - 1) | (k << (nbits - 6))
    for start, width, choices in SPECIAL.get(k, []):
        if rng.random() < 0.25 and start + width <= nbits:
            shift = nbits - start - width
            value &= ~(((1 << width) - 1) << shift)
            value |= rng.choice(choices) << shift
    chars = (nbits + 5) // 6
    fill = chars * 6 - nbits
    value <<= fill
    if fill and rng.random() < 0.3:
        value |= rng.getrandbits(fill)  # garbage in the fill bits, which are not data
    return armor(value, chars * 6), fill


def sentence(body: str, rng: random.Random) -> str:
    cs = f"{nmea_checksum(body):02X}"
    r = rng.random()
    if r < 0.02:
        cs = f"{(nmea_checksum(body) + 1) & 0xFF:02X}"
    elif r < 0.04:
        cs = cs.lower()
    return f"!{body}*{cs}"


def fuzz_lines(
    rng: random.Random, n: int, t0: float = 1_700_000_000.0, lost_parts: bool = True
) -> list[str]:
    """``n`` or a few more fuzzed lines; without ``lost_parts`` no part of a multi-sentence
    message is lost or out of order (nothing is left pending: the batch decoder then
    frames the two-sentence messages whole)."""
    out: list[str] = []
    seq = 0
    while len(out) < n:
        pay, fill = payload(rng)
        talker = rng.choice(("AIVDM", "AIVDM", "AIVDM", "AIVDO", "BSVDM", "AIVDX"))
        channel = rng.choice(("A", "B", "", "1"))
        r = rng.random()
        if r < 0.08 and len(pay) > 8:  # multi-sentence
            seq = (seq + 1) % 10
            cut = rng.randint(1, len(pay) - 1)
            parts = [(pay[:cut], 0), (pay[cut:], fill)]
            lines = [
                sentence(f"{talker},2,{i},{seq},{channel},{p},{f}", rng)
                for i, (p, f) in enumerate(parts, 1)
            ]
            if lost_parts and rng.random() < 0.1:
                lines.reverse()
            if lost_parts and rng.random() < 0.05:
                lines.pop()
            out += lines
            continue
        line = sentence(f"{talker},1,1,,{channel},{pay},{fill}", rng)
        r = rng.random()
        if r < 0.15:
            body = f"s:st{rng.randrange(3)},c:{int(t0) + rng.randrange(100_000)}"
            line = f"\\{body}*{nmea_checksum(body):02X}\\{line}"
        elif r < 0.17:
            line = f"\\c:{int(t0)}*00\\{line}"  # bad tag-block checksum
        elif r < 0.19:
            i = rng.randrange(len(line))
            line = line[:i] + rng.choice(" ,*!\\x@~\t") + line[i + 1 :]
        elif r < 0.2:
            line = line[: rng.randrange(len(line))]
        elif r < 0.21:
            line = sentence(f"{talker},1,1,,{channel},{pay},{fill},x", rng)
        elif r < 0.215:
            line = rng.choice(("", "  ", "$GPGGA,1*00", " " + line, line + " "))
        out.append(line)
    return out


def compare(
    texts: list[str], block: int = 4096, rx: float = 1_800_000_000.0, **options: Any
) -> tuple[Counter[str], Counter[str]]:
    """Feed ``texts`` to both paths, built with ``options``; (counts checked, counts
    different) by field, and ``lines in columns``: how many the batch path framed."""
    # every 997 lines a read 30 s later: a part left pending times out after a few reads
    lines = [RawLine(t, rx + 30 * (i // 997), "fuzz") for i, t in enumerate(texts)]
    ref = Ingestor(**options)
    want: list[Any] = []
    for ln in lines:
        want += ref.feed(ln)
    want += ref.flush()
    bat = BatchIngestor(**options)
    got: list[Any] = []
    for i in range(0, len(lines), block):
        got += bat.feed_batch(lines[i : i + block])
    got += bat.flush()
    checked: Counter[str] = Counter()
    differ: Counter[str] = Counter()
    checked["records"] += max(len(want), len(got))
    differ["records"] += abs(len(want) - len(got))
    for a, b in zip(want, got, strict=False):
        checked["record type"] += 1
        if type(a) is not type(b):
            differ["record type"] += 1
            continue
        for name in field_names(type(a)):
            x, y = getattr(a, name), getattr(b, name)
            key = f"{type(a).__name__}.{name}"
            checked[key] += 1
            # repr: 1 and 1.0 and True are equal but are not the same value
            if type(x) is not type(y) or repr(x) != repr(y):
                differ[key] += 1
    for name, value in ref.counters.as_dict().items():
        checked[f"counter {name}"] += 1
        if getattr(bat.counters, name) != value:
            differ[f"counter {name}"] += 1
    vessels = dict(ref.registry.items())
    for mmsi, info in bat.registry.items():
        checked["registry vessel"] += 1
        if vessels.pop(mmsi, None) != info:
            differ["registry vessel"] += 1
    checked["registry vessel"] += len(vessels)
    differ["registry vessel"] += len(vessels)
    checked["lines in columns"] += bat.column_lines
    return checked, differ


def main() -> int:
    """Run the comparison and print the counts."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1_000_000, help="fuzzed lines")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=100_000, help="lines per comparison run")
    ap.add_argument(
        "--file", nargs="*", default=[], help="compare on these captures instead of fuzz"
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    checked: Counter[str] = Counter()
    differ: Counter[str] = Counter()
    done = 0
    t0 = time.time()
    for name in args.file:
        with open(name, encoding="utf-8", errors="replace") as fh:
            texts = fh.read().splitlines()
        for block in (1, 512, 4096):
            c, d = compare(texts, block)
            checked += c
            differ += d
        done += len(texts)
        print(f"{name}: {len(texts):,} lines, compared in blocks of 1, 512 and 4,096")
    while not args.file and done < args.count:
        texts = fuzz_lines(rng, min(args.chunk, args.count - done), lost_parts=rng.random() < 0.5)
        # receipt times before, among and after the tag blocks' times; with and without
        # a bound on stale times
        rx = rng.choice((1_800_000_000.0, 1_700_050_000.0))
        options = rng.choice(({}, {"max_behind_s": 1e8 + 50_000.0}))
        c, d = compare(texts, rng.choice((1, 7, 512, 4096)), rx, **options)
        checked += c
        differ += d
        done += len(texts)
    what = "real lines (x3 block sizes)" if args.file else f"fuzzed lines (seed {args.seed})"
    print(f"{what}: {done:,} ({time.time() - t0:.0f} s)")
    print(f"{'what':<30} {'checked':>12} {'different':>10}")
    columns = checked.pop("lines in columns")
    print(f"lines the batch path decoded in columns: {columns:,}")
    for key in sorted(checked):
        print(f"{key:<30} {checked[key]:>12,} {differ[key]:>10,}")
    total_c, total_d = sum(checked.values()), sum(differ.values())
    print(f"{'TOTAL':<30} {total_c:>12,} {total_d:>10,}")
    return 1 if total_d else 0


if __name__ == "__main__":
    sys.exit(main())
