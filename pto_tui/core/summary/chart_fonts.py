"""Fonts for the summary chart: a CJK font when the machine has one, clean text when not.

Titles and hypotheses are often written in Chinese. matplotlib's bundled DejaVu Sans
has no CJK glyphs, so the chart asks for DejaVu Sans first and a CJK font second
(matplotlib falls back glyph by glyph along the family list). Debian packages that
provide one: fonts-wqy-microhei (small), fonts-wqy-zenhei, fonts-noto-cjk.

When no CJK font exists, text is cleaned before it is drawn: characters no font
covers are replaced by "…" (a label that becomes mostly "…" is replaced by a fallback
the caller gives), so the chart never shows tofu boxes and matplotlib never warns
about missing glyphs.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

BASE_FAMILY = "DejaVu Sans"  # bundled with matplotlib, always present
OMITTED = "…"

# Where Debian's CJK font packages put their files (checked before asking fontconfig).
DEBIAN_CJK_FILES: tuple[str, ...] = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
)
_PROBE = "中文迭代"  # a font that has these glyphs is a usable CJK font


class FontKeywords(TypedDict, total=False):
    """The font keyword arguments the chart passes to matplotlib's text calls."""

    fontfamily: list[str]
    fontweight: str


@dataclass(frozen=True)
class ChartFonts:
    """The font families to draw with, and the code points they cover together."""

    families: tuple[str, ...]
    covered: frozenset[int]
    cjk_file: str = ""  # the CJK font file used ("" = none found)
    cjk_bold: bool = False  # the CJK font has a bold face (asking for a missing one warns)
    base_covered: frozenset[int] = frozenset()  # what DejaVu Sans alone covers

    @property
    def has_cjk(self) -> bool:
        return bool(self.cjk_file)

    def can_render(self, char: str) -> bool:
        return char.isspace() or ord(char) in self.covered

    def regular(self) -> FontKeywords:
        """Font keywords for regular text: the whole family list, so CJK glyphs fall back."""
        return {"fontfamily": list(self.families)}

    def bold(self, text: str) -> FontKeywords:
        """Font keywords for bold text: bold in DejaVu Sans when it covers the text or the
        CJK font has a bold face; otherwise regular weight (never a missing-face warning)."""
        if not self.has_cjk or all(c.isspace() or ord(c) in self.base_covered for c in text):
            return {"fontfamily": [BASE_FAMILY], "fontweight": "bold"}
        return {"fontfamily": list(self.families), "fontweight": "bold" if self.cjk_bold else "normal"}


def _charmap(path: str) -> frozenset[int]:
    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


def _has_bold(family: str) -> bool:
    """Whether matplotlib knows a bold face of the family (weights are numbers or names)."""
    for entry in font_manager.fontManager.ttflist:
        weight = entry.weight
        if not isinstance(weight, int):
            weight = font_manager.weight_dict.get(str(weight), 400)
        if entry.name == family and weight >= 600:
            return True
    return False


def _fontconfig_cjk_files() -> list[str]:
    """Files fontconfig lists for Chinese; empty when fc-list is missing or fails."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return []
    try:
        done = subprocess.run(
            [fc_list, ":lang=zh", "file"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return []
    files = [line.strip().rstrip(":") for line in done.stdout.splitlines() if line.strip()]
    return sorted(f for f in files if f.lower().endswith((".ttf", ".ttc", ".otf")))


def base_fonts() -> ChartFonts:
    """DejaVu Sans alone: what every machine has (also used by tests of the fallback)."""
    covered = _charmap(font_manager.findfont(BASE_FAMILY, fallback_to_default=True))
    return ChartFonts(families=(BASE_FAMILY,), covered=covered, base_covered=covered)


@functools.cache
def find_chart_fonts() -> ChartFonts:
    """DejaVu Sans plus the first CJK font found on the machine (cached per process)."""
    base = base_fonts()
    for path in (*DEBIAN_CJK_FILES, *_fontconfig_cjk_files()):
        if not Path(path).is_file():
            continue
        covered = _charmap(path)
        if not all(ord(c) in covered for c in _PROBE):
            continue
        known = {entry.fname for entry in font_manager.fontManager.ttflist}
        if path not in known:
            # Additive registration: other users of matplotlib only gain a font.
            font_manager.fontManager.addfont(path)
        family = font_manager.FontProperties(fname=path).get_name()
        return ChartFonts(
            families=(*base.families, family),
            covered=base.covered | covered,
            cjk_file=path,
            cjk_bold=_has_bold(family),
            base_covered=base.covered,
        )
    return base


_MATH = re.compile(r"(?<!\\)\$")


def clean_text(text: str, fonts: ChartFonts, fallback: str = "") -> str:
    """Text safe to draw: uncovered characters become "…", "$" cannot start mathtext.

    When less than half of the visible characters survive, `fallback` (if given) is
    returned instead: a label of dots says nothing.
    """
    out: list[str] = []
    kept = lost = 0
    for char in text:
        if fonts.can_render(char):
            out.append(char)
            kept += not char.isspace()
        else:
            lost += 1
            if not out or out[-1] != OMITTED:
                out.append(OMITTED)
    if fallback and lost and kept < lost:
        return clean_text(fallback, fonts)
    return _MATH.sub(r"\\$", "".join(out))
