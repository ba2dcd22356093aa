"""The fonts the drafted documents print with, and the rule that entered text either prints
as entered or the draft is refused naming the character: fpdf2 would otherwise drop a
character no font draws and log it, and a name on an Auto would silently lose a letter.

DejaVu Sans (Debian fonts-dejavu-core 2.37) prints Latin, Greek, Cyrillic and most
symbols. Two fallbacks, each a subset so the repository stays small
(``scripts/subset_fonts.py`` rebuilds them from Debian's packages; licences in
``fonts/``): Noto Sans CJK SC for Chinese, Japanese and Korean names, Symbola for emoji
and pictographs. fpdf2 switches to a fallback for each character the current font lacks.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from importlib import resources
from typing import Any

from fpdf import FPDF

from vigia.alerts.procedure.workflow import ProcedureDataError

FONT = "DejaVu"
_FONTS = resources.files("vigia.alerts.procedure").joinpath("fonts")
_STYLES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf", "I": "DejaVuSans-Oblique.ttf"}
#: tried in this order for a character the current font lacks; DejaVu's regular face
#: first, as its bold and oblique faces draw fewer characters
FALLBACKS = {"NotoCJK": "NotoSansCJKsc-subset.otf", "Symbola": "Symbola-subset.ttf"}
#: variation selectors ask for a text or emoji presentation of the character before
#: them; a monochrome font has one presentation, so they draw nothing and are left out
_SELECTORS = frozenset(chr(c) for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))
#: characters handled by the layout itself, not drawn
_LAYOUT = frozenset("\n\t\r")
#: explicit direction marks, embeddings, overrides and isolates: entered text could
#: otherwise reorder what the document says around it (a "Trojan Source" name)
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class UnprintableTextError(ProcedureDataError):
    """Entered text with a character no font of the documents draws (HTTP 422)."""

    code = "unprintable-text"


def clean_text(text: str) -> str:
    """Entered text made safe to print: bidi controls and control, format, surrogate
    and unassigned characters become U+FFFD (visibly, never dropped), line breaks and
    tabs stay."""
    out = []
    for ch in text:
        if ch in "\n\t":
            out.append(ch)
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Cn", "Co"):
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def add_fonts(pdf: FPDF) -> None:
    """Load DejaVu Sans in its three styles and the fallbacks into ``pdf``."""
    for style, name in _STYLES.items():
        with resources.as_file(_FONTS.joinpath(name)) as path:
            pdf.add_font(FONT, style, str(path))
    for family, name in FALLBACKS.items():
        with resources.as_file(_FONTS.joinpath(name)) as path:
            pdf.add_font(family, "", str(path))
    pdf.set_fallback_fonts([FONT, *FALLBACKS], exact_match=False)


def drawn(pdf: FPDF) -> frozenset[int]:
    """The code points some font loaded into ``pdf`` draws."""
    points: set[int] = set()
    for font in pdf.fonts.values():
        points.update(getattr(font, "cmap", None) or ())
    return frozenset(points)


def char_name(ch: str) -> str:
    """``U+4E2D CJK UNIFIED IDEOGRAPH-4E2D ('中')``: a character a person can look up."""
    name = unicodedata.name(ch, "unnamed character")
    return f"U+{ord(ch):04X} {name} ({ch!r})"


def printable(text: str, points: frozenset[int], field: str | None = None) -> str:
    """``text`` as it will print: unchanged but for variation selectors; a character no
    font draws refuses the draft, naming it and, when known, the field it came from."""
    out = []
    for ch in text:
        if ch in _SELECTORS:
            continue
        if ch not in _LAYOUT and ord(ch) not in points:
            where = f" in {field}" if field else ""
            raise UnprintableTextError(
                f"the draft cannot print {char_name(ch)}{where}: no font of the documents "
                "draws it (DejaVu Sans, Noto Sans CJK, Symbola). Enter the text as it is "
                "written in a script they print (a transliteration, as on a passport) "
                "instead: Vigia never drops a character",
                field,
            )
        out.append(ch)
    return "".join(out)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def check_entered(values: dict[str, Any], points: frozenset[int]) -> None:
    """Every string among ``values`` (nested dicts and lists) prints, or the draft is
    refused naming the character and where it was entered (``responsible[0].name``)."""
    for path, text in _strings(values, ""):
        printable(clean_text(text), points, path)
