"""What a line's pixels show that its characters alone do not: blanks drawn as lines,
and digits printed raised (x², 10³) or lowered (a₁, H₂O).

The recogniser gives each character's output time step, i.e. its column in the 48-px
line crop. A run of spaces over a stroke that runs along the lower part of the crop is a
blank to fill in (``____``); a digit after a letter or a bracket whose ink ends above the
middle of the line's letters is a superscript, one whose ink starts below their middle a
subscript.

A blank's line also lies outside the boxes where the detector ended a box at it: between
two boxes of a row, at the end of a row whose sentence runs on below, or at the start of
one that goes on with the sentence above (:func:`blanks_beside`, on the page's pixels).
"""

from __future__ import annotations

import bisect
import re
import statistics
from dataclasses import dataclass, replace

import cv2
import numpy as np

from appliance.ocr.geometry import crop_line
from appliance.ocr.rec import STRIDE, Reading
from appliance.wording.problem_text import ends_sentence, is_cjk, is_note_or_mark

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
BLANK = "____"


@dataclass(frozen=True)
class GlyphParams:
    min_blank_px: int = 40  # a blank is at least this wide in the 48-px crop (about one character)
    letters_above: float = 0.3  # a blank's line has letters above at most this share of its length
    between_share: float = 0.75  # between two characters read with a space, the line is this share of min_blank_px
    unspaced_share: float = 1.5  # ...and this share where no space was read between them
    latin_share: float = 1.0  # ...or this share between two Latin words ("Heto" for "He ___ to")
    raised: float = 0.55  # a superscript's ink ends above this share of the letters' height (from the top)
    lowered: float = 0.45  # a subscript's ink starts below this share
    filled_bare: int = 12  # a word's blank runs on bare at least this far past it (48-px crop)
    full_stop: float = 0.8  # after a subscript, a lowered ring at most this share of its height is a full stop


def refine(reading: Reading, crop: np.ndarray, params: GlyphParams = GlyphParams()) -> Reading:
    """The reading with drawn blanks and raised/lowered digits written out."""
    if not reading.text or len(reading.steps) != len(reading.text):
        return reading
    ink = ink_mask(crop)
    spans = char_spans(reading.steps, ink.shape[1])
    text = scripts(reading.text, spans, ink, params)
    text = drawn_blanks(filled_blanks(text, spans, ink, params), spans, ink, params)
    return replace(reading, text=text) if text != reading.text else reading


def ink_mask(crop: np.ndarray) -> np.ndarray:
    """Ink: under a shadow across the line (paper at 150 at one end and 250 at the other),
    each pixel is weighed against the brightest one within a line height of it, so the
    shaded paper reads as paper, not as ink."""
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    paper = cv2.dilate(gray, np.ones((gray.shape[0], max(1, gray.shape[0])), np.uint8))
    if int(paper.min()) >= SHADE_LEAST * int(paper.max()):
        level = gray  # evenly lit: the crop as it is
    else:
        level = cv2.divide(gray, paper, scale=255)
    _, mask = cv2.threshold(level, 0, 1, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return mask.astype(bool)


# The paper under a line is taken as evenly lit where its darkest part is this share of its brightest.
SHADE_LEAST = 0.85


def char_spans(steps: tuple[int, ...], width: int) -> list[tuple[int, int]]:
    """Columns [start, end) of each character: halfway to its neighbours' positions."""
    centres = [s * STRIDE + STRIDE // 2 for s in steps]
    spans = []
    for i, c in enumerate(centres):
        start = (centres[i - 1] + c) // 2 if i else max(0, c - 2 * STRIDE)
        end = (c + centres[i + 1]) // 2 if i + 1 < len(centres) else min(width, c + 2 * STRIDE)
        spans.append((start, max(start + 1, end)))
    return spans


def ink_rows(ink: np.ndarray, span: tuple[int, int]) -> tuple[int, int] | None:
    rows = np.flatnonzero(ink[:, span[0]:span[1]].any(axis=1))
    return (int(rows[0]), int(rows[-1])) if rows.size else None


def scripts(text: str, spans: list[tuple[int, int]], ink: np.ndarray, params: GlyphParams) -> str:
    letters = [ink_rows(ink, s) for ch, s in zip(text, spans) if ch.isalpha()]
    letters = [r for r in letters if r is not None]
    if not letters:
        return text
    top = statistics.median(r[0] for r in letters)
    bottom = statistics.median(r[1] for r in letters)
    height = max(1.0, bottom - top)
    out = list(text)
    for i, ch in enumerate(text):
        if i and ch in "0oO" and out[i - 1] in _LOWERED and _ends_term(text, i) \
                and _full_stop(ink_rows(ink, spans[i]), ink_rows(ink, spans[i - 1]), top, height, params):
            out[i] = "。" if any(is_cjk(c) for c in text) else "."
            continue
        if not ch.isdigit() or not i or not (text[i - 1].isalpha() or text[i - 1] in ")）" or out[i - 1] != text[i - 1]):
            continue
        if is_cjk(text[i - 1]) and i + 1 < len(text) and is_cjk(text[i + 1]):
            continue  # 「第3题」: a Chinese character's ink reaches lower than a digit's
        rows = ink_rows(ink, spans[i])
        if rows is None:
            continue
        if rows[1] < top + params.raised * height:
            out[i] = ch.translate(SUPERSCRIPT)
        elif rows[0] > top + params.lowered * height and (text[i - 1].isalpha() or out[i - 1] in _LOWERED):
            out[i] = ch.translate(SUBSCRIPT)  # after a letter, or on from a lowered digit: a₁₀
    return "".join(out)


_LOWERED = frozenset("₀₁₂₃₄₅₆₇₈₉")


def _ends_term(text: str, i: int) -> bool:
    """No letter or digit follows the character at ``i``: a full stop ends the term before it
    (「求a₁₀。」); a ring with a figure after it is one of the term's digits."""
    return i + 1 == len(text) or not (text[i + 1].isascii() and text[i + 1].isalnum())


def _full_stop(rows: tuple[int, int] | None, digit: tuple[int, int] | None, top: float, height: float,
               params: GlyphParams) -> bool:
    """A character read as 0 or o after a lowered digit (whose ink rows are ``digit``) that is
    a ring low on the line and smaller than that digit (at most ``full_stop`` of its height):
    the sentence's full stop (「求a₁₀。」 read as 「求a₁₀0」)."""
    return rows is not None and digit is not None and rows[0] > top + params.lowered * height \
        and rows[1] - rows[0] <= params.full_stop * (digit[1] - digit[0])


def filled_blanks(text: str, spans: list[tuple[int, int]], ink: np.ndarray, params: GlyphParams) -> str:
    """A word written on a blank's line ("here since 2010" over 「here ___ 2010」) → underscores: a line drawn low
    under that word and nothing else (in the rows next to it too), running on ``filled_bare`` past it bare."""
    lines = [(r, *run) for r in range(ink.shape[0] * 2 // 3, ink.shape[0]) for run in _runs(ink[r])
             if run[1] - run[0] >= params.min_blank_px]
    words, out = [m.span() for m in re.finditer(r"[A-Za-z]{2,}", text)], list(text)
    middles, bare = sorted(_middle(span) for ch, span in zip(text, spans) if ch.strip("_＿ ")), params.filled_bare
    near = [[(a2, b2) for r2, a2, b2 in lines if abs(r2 - r) <= 2 and a2 < b and b2 > a] for r, a, b in lines]
    reach = [(min(n)[0], max(b2 for _, b2 in n)) for n in near]  # each line's reach in the rows next to it
    for start, end in words:
        left, right = spans[start][0], spans[end - 1][1]
        for (r, a, b), (x0, x1) in zip(lines, reach):
            if a <= left and b >= right and bisect.bisect_left(middles, x1) - bisect.bisect_right(middles, x0) == end - start and (
                    a <= left - bare and not _letters_above(ink, r, left - bare, left)
                    or b >= right + bare and not _letters_above(ink, r, right, right + bare)):
                out[start:end] = "_" * (end - start)
    return "".join(out)


def drawn_blanks(text: str, spans: list[tuple[int, int]], ink: np.ndarray, params: GlyphParams) -> str:
    """Spaces between two characters, over a gap with a line drawn low across it → ``____``."""
    out, i = [], 0
    unspaced = _drawn_lines(ink, int(params.min_blank_px * params.unspaced_share), params)
    latin, least = None, int(params.min_blank_px * params.latin_share)
    while i < len(text):
        if text[i] != " " or not out:
            # no space read at all over a long drawn line (shorter between two Latin words set
            # far enough apart: looked for only there, most rows of a crop have that much ink):
            # looked for between the middles of the characters either side of it
            lines = unspaced
            # (a line of ``least`` columns lies mostly between the two middles only if they are
            # half that far apart: :func:`_lies_within`)
            if i >= 2 and 2 * (_middle(spans[i]) - _middle(spans[i - 1]) + 1) >= least and _LATIN_WORDS.match(text, i - 2):
                latin = _drawn_lines(ink, least, params) if latin is None else latin
                lines = latin
            if i and lines and text[i - 1] not in " _＿" and text[i] not in "_＿" \
                    and _lies_within(lines, _middle(spans[i - 1]), _middle(spans[i]) + 1):
                out.append(f" {BLANK} ")
            out.append(text[i])
            i += 1
            continue
        j = i
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and underlined(ink, spans[i - 1][1], spans[j][0], params,
                                         least=int(params.between_share * params.min_blank_px)):
            out.append(f" {BLANK} ")
        else:
            out.append(text[i:j])
        i = j
    return "".join(out)


# Two letters (or a colon or quote) before the gap and two after: "He|to", '"an":|university'.
_LATIN_WORDS = re.compile(r"(?:[A-Za-z]{2}|.[:：\"])[A-Za-z]{2}")


def _middle(span: tuple[int, int]) -> int:
    return (span[0] + span[1]) // 2


def _drawn_lines(ink: np.ndarray, least: int, params: GlyphParams) -> list[tuple[int, int]]:
    """[start, end) of every line drawn for a blank in the crop's lower half, ``least``
    columns long or more, with few letters above it (:func:`blank_line`'s test), found
    once for the whole crop: most crops have no row with that much ink and cost one sum."""
    lower = ink[ink.shape[0] // 2:]
    if lower.size == 0 or int(lower.sum(axis=1).max()) < least:
        return []
    lines = []
    for r in range(ink.shape[0] // 2, ink.shape[0]):
        for start, end in _runs(ink[r]):
            if end - start >= least and ink[:max(1, r - 3), start:end].any(axis=0).mean() <= params.letters_above:
                lines.append((start, end))
    return lines


def _lies_within(lines: list[tuple[int, int]], start: int, end: int) -> bool:
    """One of ``lines`` lies mostly within [start, end)."""
    return any(min(e, end) - max(s, start) >= 0.5 * (e - s) for s, e in lines)


def underlined(ink: np.ndarray, start: int, end: int, params: GlyphParams, least: int) -> bool:
    """A line drawn low across [start, end) (:func:`blank_row`), ``least`` columns long."""
    return end > start and blank_row(ink, start, end, least, params) is not None


def blank_row(ink: np.ndarray, start: int, end: int, least: int, params: GlyphParams) -> int | None:
    """The row of :func:`blank_line`, or None."""
    found = blank_line(ink, start, end, least, params)
    return None if found is None else found[0]


def blank_line(ink: np.ndarray, start: int, end: int, least: int,
               params: GlyphParams, letters: np.ndarray | None = None) -> tuple[int, int, int] | None:
    """(row, start, end) of a line drawn for a blank across [start, end) in the crop's lower
    half: a run of ink ``least`` columns long or more, lying mostly in that window, with
    letters above at most ``letters_above`` of its columns (an underlined word has letters
    all along its line); None when there is none. ``letters``: the mask the letters above
    are looked for in (default ``ink``)."""
    rows = ink.shape[0]
    letters = ink if letters is None else letters
    for r in range(rows // 2, rows):
        for run_start, run_end in _runs(ink[r]):
            inside = min(run_end, end) - max(run_start, start)
            if run_end - run_start < least or inside < 0.5 * (run_end - run_start):
                continue
            above = letters[:max(1, r - 3), run_start:run_end].any(axis=0)
            if above.mean() <= params.letters_above:
                return r, run_start, run_end
    return None


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of ink along a row (breaks of 2 columns or less bridged)."""
    cols = np.flatnonzero(row)
    if cols.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(cols) > 3)
    starts = np.concatenate(([cols[0]], cols[breaks + 1]))
    ends = np.concatenate((cols[breaks] + 1, [cols[-1] + 1]))
    return list(zip(starts.tolist(), ends.tolist()))


@dataclass(frozen=True)
class BesideParams:
    reach: float = 3.0  # a blank beside a box is looked for this many line heights past its end
    between_reach: float = 6.0  # ...and between two boxes of a row this far apart (a long drawn blank)
    least_gap: float = 0.3  # ...where the next box on its row stands at least this far (line heights)
    gap_fill: float = 0.8  # between two boxes, the stroke spans at least this share of the gap
    start_within: int = 30  # the blank's line starts this close to the box's edge (48-px scale)
    # ...or, before a row's first box, this close: a justified line spreads its words, the
    # blank that starts it too (「___   to   school   by   bike」)
    start_within_before: int = 48
    paper_share: float = 0.65  # ink is darker than this share of the paper's brightness
    # A line blurred thin or printed grey may only reach this share: it is looked for at this
    # share when none is found at ``paper_share``, letters still told at that one.
    faint_share: float = 0.85
    # A row's first box is looked at for a blank before it when the row above ends this
    # near (line heights), or this far when that row ends at a colon: what follows the
    # colon may stand below a wide band (a problem printed in pieces).
    after_colon_reach: float = 3.5


def blanks_beside(pixels: np.ndarray, quads: list[np.ndarray], texts: list[str], crops: list[np.ndarray],
                  glyphs: GlyphParams = GlyphParams(), params: BesideParams = BesideParams()) -> list[str]:
    """Texts with the blanks drawn as lines *outside* their boxes: the detector often ends a
    box where a blank begins ("…an\":" ␣ "university", "I have lived here" ⏎ "2010."), so
    no crop shows it. Looked for between two boxes of a row, after the last box of a row
    whose sentence goes on below it, and before the first box of a row that goes on with
    the sentence above it; never after a finished sentence (a line there is the answer's)."""
    lines = [_Line.of(q) for q in quads]
    out = list(texts)
    for i, line in enumerate(lines):
        text = texts[i].strip()
        if not text:
            continue
        near, before = line.neighbours(lines, params.reach)
        if before is not None and is_note_or_mark(texts[before]):
            before = None  # a cross drawn in the margin: the row's words start with this box
        after = near if near is not None else line.neighbours(lines, params.between_reach)[0]
        right = False
        if near is None:  # the row's end, or a long gap that a long blank may fill
            right = line.next_row(lines) is not None and not ends_sentence(text) and blank_beside(
                pixels, quads[i], params.reach * line.height, (crops[i], None), "right", glyphs, params)
        if not right and after is not None and not is_note_or_mark(texts[after]):
            gap = lines[after].start - line.end
            right = gap >= params.least_gap * line.height and blank_beside(
                pixels, quads[i], gap, (crops[i], crops[after]), "right", glyphs, params,
                slant=texts[after].strip()[:1].isalpha())  # words after it, not a table's numbers
        if right and not text.endswith("_") and not ends_sentence(text) and (len(text.replace(" ", "")) > 2 or text.isalpha()):
            out[i] = f"{out[i]} {BLANK}"
        above = line.previous_row(lines) if before is None else None
        if above is None and before is None:  # a problem in pieces: 「"an":」, a wide band, 「___ apple」
            above = line.previous_row(lines, params.after_colon_reach)
            above = above if above is not None and texts[above].rstrip()[-1:] in (":", "：") else None
        if above is not None and not ends_sentence(texts[above].strip() or ".") and not text.startswith("_") \
                and blank_beside(pixels, quads[i], params.reach * line.height, (crops[i], None), "left",
                                 glyphs, params):
            out[i] = f"{BLANK} {out[i]}"
    return out


@dataclass(frozen=True)
class _Line:
    """A box in its own frame: along its text, across it. Plain floats: every box is
    measured against every other (:meth:`neighbours`, :meth:`_row_at`), and numpy's
    overhead on 2-vectors made that most of :func:`blanks_beside`'s time."""
    along: tuple[float, float]
    across: tuple[float, float]
    start: float
    end: float
    middle: float  # across
    height: float
    ends: tuple[tuple[float, float], tuple[float, float]]  # the middles of its left and right sides, on the page

    @classmethod
    def of(cls, quad: np.ndarray) -> _Line:
        tl, tr, br, bl = quad.astype(np.float64)
        along = (tr - tl) / max(float(np.linalg.norm(tr - tl)), 1e-6)
        across = np.array([-along[1], along[0]])
        height = max(1.0, (float(np.linalg.norm(bl - tl)) + float(np.linalg.norm(br - tr))) / 2)
        start, end = float(along @ ((tl + bl) / 2)), float(along @ ((tr + br) / 2))
        middle = float(across @ ((tl + tr + br + bl) / 4))
        ends = tuple((float(x), float(y)) for x, y in (start * along + middle * across, end * along + middle * across))
        return cls((float(along[0]), float(along[1])), (float(across[0]), float(across[1])), start, end, middle,
                   height, ends)

    def span(self, other: _Line) -> tuple[float, float, float]:
        """Another box's start, end and middle in this box's frame."""
        (x0, y0), (x1, y1) = other.ends
        ax, ay = self.along
        cx, cy = self.across
        first, last = ax * x0 + ay * y0, ax * x1 + ay * y1
        middle = cx * ((x0 + x1) / 2) + cy * ((y0 + y1) / 2)
        return (first, last, middle) if first <= last else (last, first, middle)

    def neighbours(self, lines: list[_Line], reach: float) -> tuple[int | None, int | None]:
        """The nearest boxes after and before this one on its row, within ``reach`` line heights."""
        after = before = None
        best_after = best_before = reach * self.height
        for j, other in enumerate(lines):
            start, end, middle = self.span(other)
            if other is self or abs(middle - self.middle) > self.height / 2:
                continue
            if start >= self.end - self.height / 2 and start - self.end <= best_after:
                after, best_after = j, start - self.end
            elif end <= self.start + self.height / 2 and self.start - end <= best_before:
                before, best_before = j, self.start - end
        return after, before

    def next_row(self, lines: list[_Line]) -> int | None:
        """A box of the line below that this one's paragraph runs on to (0.7–1.8 line heights down, under it)."""
        return self._row_at(lines, 1)

    def previous_row(self, lines: list[_Line], most: float = 1.8) -> int | None:
        return self._row_at(lines, -1, most)

    def _row_at(self, lines: list[_Line], direction: int, most: float = 1.8) -> int | None:
        """The nearest box on the line below (direction 1) or above (-1) that overlaps this one,
        0.7 to ``most`` line heights away."""
        best, nearest = None, most * self.height
        for j, other in enumerate(lines):
            start, end, middle = self.span(other)
            down = (middle - self.middle) * direction
            if other is not self and 0.7 * self.height <= down <= nearest and start < self.end and end > self.start:
                best, nearest = j, down
        return best


def blank_beside(pixels: np.ndarray, quad: np.ndarray, length: float, crops: tuple, side: str,
                 glyphs: GlyphParams, params: BesideParams, slant: bool = False) -> bool:
    """A blank's line in the strip of the page right after (or before) the box: a dark line
    along its lower half from the box's edge, ``min_blank_px`` long (48-px scale), or across
    the gap to the next box (``slant``: perhaps a row or two aslant), with clear paper above
    it; not a line that runs on under the box's own letters or the next box's (an
    underline, ruled paper)."""
    tl, tr, br, bl = quad.astype(np.float32)
    height = float(_Line.of(quad).height)
    along = (tr - tl) / max(float(np.linalg.norm(tr - tl)), 1e-6) * (1 if side == "right" else -1)
    start = (tr, br) if side == "right" else (tl, bl)
    # up to the frame's side: a blank at the end of a line that runs near it
    reach = params.reach if crops[1] is None else params.between_reach
    length = min(length, reach * height, _room(start, along, pixels.shape))
    if length < 2:
        return False
    step = along * length
    strip = np.array([tr, tr + step, br + step, br] if side == "right" else [tl + step, tl, bl, bl + step])
    if not _inside(strip, pixels.shape):
        return False
    own, other = crops
    grey = crop_line(pixels, strip, own.shape[0])
    letters = dark(grey, params.paper_share)
    if side == "left":
        grey, letters = grey[:, ::-1], letters[:, ::-1]
    if other is not None:
        return _blank_in_strip(grey, letters, max(10, int(params.gap_fill * letters.shape[1])), crops, side,
                               glyphs, params, slant=slant)
    # at a row's end, a shorter line (four underscores: 0.8 of a line height) where no longer
    # one passes: thin and level (not the corner of a frame drawn round the problem)
    return _blank_in_strip(grey, letters, glyphs.min_blank_px, crops, side, glyphs, params) or _blank_in_strip(
        grey, letters, int(glyphs.between_share * glyphs.min_blank_px), crops, side, glyphs, params, thin=True)


def _blank_in_strip(grey: np.ndarray, letters: np.ndarray, least: int, crops: tuple, side: str,
                    glyphs: GlyphParams, params: BesideParams, thin: bool = False, slant: bool = False) -> bool:
    """:func:`blank_beside`'s test of the strip (upright, read from the box's edge) for a
    line ``least`` columns long (``thin``: with paper under it, and level: :func:`_level`;
    ``slant``: between two boxes, a row or two aslant)."""
    # a faint line between two boxes must fill the gap and stop at both boxes' letters; at a
    # row's end or start (a grey blank printed thin) it must be thin and level, with no grey
    # above it either (a blurred character's foot is no blank)
    # (a line whose end by the box is lighter than the paper share, blurred or compressed, is
    # found from its darker middle on, too far off: it is looked for at the faint share too)
    within = params.start_within if side == "right" else params.start_within_before
    for share in (params.paper_share, params.faint_share):
        ink = dark(grey, share)
        alone = share != params.paper_share and crops[1] is None
        found = blank_line(ink, 0, ink.shape[1], least, glyphs, ink if alone else letters)
        if found is None and slant:  # a line at a slant across the gap: a row or two either way
            found = blank_line(_widened(ink), 0, ink.shape[1], least, glyphs, letters)
        if found is not None and found[1] > params.start_within:  # a line a row aslant: its start lies a row lower
            below = ink.copy()
            below[:found[0] + 1] = False
            found = blank_line(below, 0, ink.shape[1], least, glyphs, ink if alone else letters) or found
        if found is not None and found[1] <= within and (
                _thin(ink, *found) and _level(ink, *found) if thin or alone
                else share == params.paper_share or _thin(ink, *found)):
            break
        found = None
    if found is None:
        return False
    row, run_start, _ = found
    if run_start > params.start_within and letters[:, :run_start].any(axis=0).sum() > 2:
        return False  # a word space's paper only: 「一、」's stroke has its mark between it and the box
    side_above = letters[:max(1, row - 3), max(0, run_start - 2):run_start + 3].any(axis=1).mean()
    if side_above >= 0.6:  # the line is a drawn box's bottom edge (an answer box), not a blank
        return False
    return not _runs_under_letters(crops, side, row, share, glyphs)


def _widened(ink: np.ndarray) -> np.ndarray:
    """Each row with the ink of the rows above and below it: a line drawn at a slant of a row
    or two across the strip (a short box's direction misjudged) is one run in a row."""
    wide = ink.copy()
    wide[1:] |= ink[:-1]
    wide[:-1] |= ink[1:]
    return wide


def _thin(ink: np.ndarray, row: int, start: int, end: int, within: int = 8) -> bool:
    """Paper again under the line within ``within`` rows: a drawn line, not the edge of a
    shadow or a grey band."""
    below = ink[row + 1:row + 1 + within, start:end]
    return bool(below.size) and bool((below.mean(axis=1) < 0.5).any())


def _level(ink: np.ndarray, row: int, start: int, end: int, reach: int = 5, most: float = 3.0) -> bool:
    """The line found at ``row`` keeps to its row: in every column of it, the ink within
    ``reach`` rows has its middle within ``most`` rows of the others' (a pen's curve does not)."""
    band = ink[max(0, row - reach):row + reach + 1, start:end].astype(np.float64)
    weight = band.sum(axis=0)
    inked = weight > 0  # the few columns of a bridged break have none
    middles = (band[:, inked] * np.arange(band.shape[0])[:, None]).sum(axis=0) / weight[inked]
    return bool(inked.any()) and float(middles.max() - middles.min()) <= most


def _runs_under_letters(crops: tuple, side: str, row: int, share: float, glyphs: GlyphParams) -> bool:
    """The line found at ``row`` goes on under the box's own letters or the next box's (an
    underlined word, ruled paper), told at the ``share`` it was found at."""
    own, other = crops
    own_ink = dark(own, share)
    edge = own_ink[:, -glyphs.min_blank_px:] if side == "right" else own_ink[:, :glyphs.min_blank_px][:, ::-1]
    runs_on = not _shaded(edge) and _runs_to_edge(edge, row, from_end=True) \
        and not _after_letters(own_ink if side == "right" else own_ink[:, ::-1], row)
    if other is not None:  # into the next box: under its letters, not on into its blank start
        runs_on = runs_on or _runs_to_edge(dark(other, share)[:, :glyphs.min_blank_px], row, from_end=False,
                                           under_letters=True)
    return runs_on


def _shaded(ink: np.ndarray, most: float = 0.9) -> bool:
    """Dark nearly all over: a shadow across the box's end (the page's paper read as ink
    there), in which no line can be told from the paper."""
    return bool(ink.size) and float(ink.mean()) >= most


def _runs_to_edge(ink: np.ndarray, row: int, from_end: bool, under_letters: bool = False) -> bool:
    """A line at ``row`` (± 2) that reaches the crop's edge next to the strip and runs half
    its width into it: the blank's line goes on under the letters (``under_letters``: only
    where ink stands above the run, as letters do; the detector may begin the next box on
    the blank's own line, with paper above it)."""
    band = ink[max(0, row - 2):row + 3]
    width = band.shape[1]
    for r in band:
        for start, end in _runs(r):
            at_edge = end >= width - 3 if from_end else start <= 3
            if at_edge and end - start >= width // 2 and (not under_letters or _letters_above(ink, row, start, end)):
                return True
    return False


def _after_letters(ink: np.ndarray, row: int) -> bool:
    """The line at ``row`` (± 2) that reaches the crop's end starts after the last letter
    above it: the detector took the blank's start into the box ("He ___" in the box of
    "He"), no underline under the box's words."""
    columns = np.flatnonzero(ink[:max(1, row - 3)].any(axis=0))
    starts = [start for r in ink[max(0, row - 2):row + 3] for start, end in _runs(r) if end >= ink.shape[1] - 3]
    return bool(columns.size) and bool(starts) and min(starts) > columns.max()


def _letters_above(ink: np.ndarray, row: int, start: int, end: int, share: float = 0.2) -> bool:
    """Ink above the line at ``row`` over at least ``share`` of its columns from ``start`` to ``end``."""
    above = ink[:max(1, row - 3), start:end]
    return bool(above.size) and float(above.any(axis=0).mean()) >= share


def _room(points: tuple[np.ndarray, ...], direction: np.ndarray, shape: tuple[int, ...]) -> float:
    """How far the points can go along ``direction`` (a unit vector) and stay in the image."""
    most = float("inf")
    for point in points:
        for axis, limit in ((0, shape[1] - 1), (1, shape[0] - 1)):
            if direction[axis] > 1e-6:
                most = min(most, (limit - float(point[axis])) / float(direction[axis]))
            elif direction[axis] < -1e-6:
                most = min(most, -float(point[axis]) / float(direction[axis]))
    return max(0.0, most - 1)


def _inside(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    return bool((quad[:, 0] >= 0).all() and (quad[:, 0] < shape[1]).all()
                and (quad[:, 1] >= 0).all() and (quad[:, 1] < shape[0]).all())


def dark(crop: np.ndarray, share: float) -> np.ndarray:
    """Pixels darker than ``share`` of the paper's brightness (the crop's 90th percentile)."""
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    return gray < share * float(np.percentile(gray, 90))
