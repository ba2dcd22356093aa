"""Rebuild the drafted documents' fallback fonts (alerts/procedure/fonts/) from Debian's
packages, cut to what a party's name is likely to hold so the repository stays small.

    apt-get download fonts-noto-cjk fonts-symbola
    dpkg-deb -x fonts-noto-cjk_*.deb x && dpkg-deb -x fonts-symbola_*.deb x
    python -m scripts.subset_fonts x

- Noto Sans CJK SC Regular (fonts-noto-cjk, SIL OFL 1.1): the hanzi of GB 2312 (6,763,
  simplified Chinese), the kanji of JIS X 0208 (6,355, Japanese), the 5,401 frequent
  hanzi of Big5 (traditional Chinese), the 2,350 hangul syllables of KS X 1001 (Korean),
  kana, CJK punctuation and the full-width forms. The sets come from Python's own codecs.
- Symbola (fonts-symbola, "free for any use"): the emoji and pictograph blocks (with the
  regional indicators that spell flags) and the miscellaneous symbols and dingbats,
  less what DejaVu Sans or the CJK subset already draw.

A character none of the fonts draws is refused by the draft with its name
(alerts/procedure/glyphs.py), never dropped.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from fontTools import subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

OUT = Path(__file__).resolve().parents[1] / "alerts" / "procedure" / "fonts"
NOTO = "usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
NOTO_SC = 2  # the collection's faces: JP, KR, SC, TC, HK, then the Mono ones
SYMBOLA = "usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"
#: Unicode blocks taken from Symbola: misc symbols and dingbats, misc symbols and arrows,
#: enclosed alphanumerics (regional indicators), pictographs, emoticons, transport,
#: supplemental pictographs
SYMBOL_BLOCKS = (
    (0x2600, 0x27BF),
    (0x2B00, 0x2BFF),
    (0x1F100, 0x1F2FF),
    (0x1F300, 0x1F6FF),
    (0x1F900, 0x1F9FF),
)


def _double_byte(codec: str, lead: range, trail: range) -> set[str]:
    """Every character a two-byte national charset encodes (decoded by Python's codec)."""
    out = set()
    for a in lead:
        for b in trail:
            try:
                text = bytes([a, b]).decode(codec)
            except UnicodeDecodeError:
                continue
            if len(text) == 1:
                out.add(text)
    return out


def cjk_characters() -> set[int]:
    """GB 2312, JIS X 0208, KS X 1001 and Big5 level 1, above what DejaVu Sans holds,
    plus CJK punctuation, kana and the full-width forms."""
    euc = range(0xA1, 0xFF)
    chars = _double_byte("gb2312", range(0xA1, 0xF8), euc)
    chars |= _double_byte("euc_jp", euc, euc)
    chars |= _double_byte("euc_kr", euc, euc)
    chars |= _double_byte("big5", range(0xA4, 0xC7), range(0x40, 0xFF))  # level 1
    points = {ord(c) for c in chars if ord(c) >= 0x2E80}
    return points | set(range(0x3000, 0x3100)) | set(range(0xFF00, 0xFFF0))


def _subset(font: Any, points: set[int], out: Path) -> None:
    opts = subset.Options()
    opts.layout_features = []  # no shaping features: fpdf2 draws glyph by glyph
    opts.hinting = False
    opts.notdef_outline = True
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=sorted(points))
    sub.subset(font)
    font.save(str(out))
    print(f"{out.name}: {len(font.getBestCmap())} characters, {out.stat().st_size} bytes")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="where the two .deb files were extracted")
    args = parser.parse_args(argv)
    dejavu = set(TTFont(str(OUT / "DejaVuSans.ttf")).getBestCmap())
    cjk = cjk_characters()
    _subset(
        TTFont(str(args.root / NOTO), fontNumber=NOTO_SC), cjk, OUT / "NotoSansCJKsc-subset.otf"
    )
    symbola = TTFont(str(args.root / SYMBOLA))
    wanted = {p for a, b in SYMBOL_BLOCKS for p in range(a, b + 1)}
    points = (set(symbola.getBestCmap()) & wanted) - dejavu - cjk
    _subset(symbola, points, OUT / "Symbola-subset.ttf")


if __name__ == "__main__":
    main()
