"""The problem the student framed, out of the blocks on the page.

The student points the camera at one problem, so it is the *complete* problem (no line
touching the frame's edge) that lies nearest the centre of the photo (see :func:`rank`); a crop
makes the frame smaller and the same rule picks inside it. Headers (titles, labels such
as 「第一题（5分）」) are never chosen. The chosen text loses its problem number and score
note and writes blanks as ``____``; the whole page's text is kept beside it for the
teacher. When two complete problems are about equally near the centre, there is no
guess: ``choices`` holds both texts and the student picks one or crops — unless the
frame's centre falls within the nearer one's lines and not the other's: then the
student aimed at it, and it is chosen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from appliance.ocr.blocks import Block, Row, reads_as_figure, touches_edge
from appliance.ocr.layout import join
from appliance.ocr.result import OcrLine
from appliance.wording.problem_text import (searched_text, cut_score_note, is_lone_letter, is_chosen_in_bracket, marks_column, says_something, speaks_of_figure, is_hint, is_options, reads_as_question, says_how_to_answer,
                                            starts_sub_questions, stem_asks, table_before_parts)


@dataclass(frozen=True)
class SelectParams:
    # Two complete problems have equal claim when the farther one's centre is less than
    # ``equal_share`` of its distance + ``equal_margin`` (frame sides = 1) farther from
    # the frame's centre than the nearer one's.
    equal_share: float = 0.1
    equal_margin: float = 0.0
    min_chars: int = 3  # shorter blocks (a page number, a stray letter) are not problems


@dataclass(frozen=True)
class Selection:
    text: str  # the chosen problem, without number or header; "" when nothing was read
    lines: tuple[OcrLine, ...]  # its lines
    page_text: str  # every block read, in reading order, one per line
    choices: tuple[str, ...] = ()  # two or more problems with equal claim: ask the student


def select_problem(blocks: list[Block], size: tuple[int, int], params: SelectParams = SelectParams()) -> Selection:
    page_text = "\n".join(b.text for b in blocks)
    ranked = rank(candidates(blocks, params), size, blocks)
    if not ranked:
        return Selection("", (), page_text)
    holding = [b for _, b in ranked if _holds_centre(b, size)]
    if len(holding) == 1 and _in_pieces(holding[0]):  # its middle may lie in its own wide gap
        ranked = [pair for pair in ranked if pair[1] is holding[0]]
    best = ranked[0]
    tied = [b for d, b in ranked if d - best[0] < params.equal_share * d + params.equal_margin]
    if len(tied) > 1 and _holds_centre(best[1], size) and not any(_holds_centre(b, size) for b in tied[1:]):
        tied = [best[1]]  # the frame's centre falls on this problem's lines and on no other's
    chosen = best[1]
    choices = tuple(problem_text(b) for b in tied) if len(tied) > 1 else ()
    return Selection(problem_text(chosen), tuple(r.line for r in chosen.rows), page_text, choices)


def candidates(blocks: list[Block], params: SelectParams) -> list[Block]:
    """Complete problems (a problem says something: figures alone are a figure's labels, and
    answer options alone the options of a problem above the frame's edge);
    else problems cut by the edge; else whatever text there is. On a
    page whose problems are numbered, an unnumbered line (a title the header rules do not
    know, a caption) is not a problem while a numbered one is in frame, unless it reads as
    a question (:func:`reads_as_question`): a problem whose number was not read (a circle
    drawn round it, a faint print)."""
    problems = [b for b in blocks if not b.header and not is_options(b.rows[0].text) and says_something(problem_text(b), params.min_chars)]
    complete = [b for b in problems if not b.cut or not touches_edge(_stem(b))]
    numbered = [b for b in complete if b.numbered or reads_as_question(b.text)]
    if not any(b.numbered for b in numbered):
        numbered = []
    return numbered or complete or problems or [b for b in blocks if not b.header] or blocks


def _stem(block: Block) -> list[Row]:
    """The block's rows before its answer options: the frame may cut the options and not the problem."""
    options = next((i for i, row in enumerate(block.rows) if i and is_options(row.text)), len(block.rows))
    return list(block.rows[:options])


def rank(blocks: list[Block], size: tuple[int, int], page: list[Block] | None = None) -> list[tuple[float, Block]]:
    """Blocks by their distance from the frame's centre (frame sides = 1): down, from the
    centre to the block's middle; across, from the centre to the block's span of lines.
    Where the centre is level with a block's lines, it is aimed at, however far left of
    the centre its text ends (a student frames the column): no distance across, unless the
    centre falls on another column's text (a block of the ``page``, default ``blocks``,
    with no part above or below this one)."""
    width, height = (max(1, s) for s in size)
    page = [b for b in (page if page is not None else blocks) if not b.header]
    scored = []
    for block in blocks:
        x0, y0, x1, y1 = block.bounds
        across = max(x0 / width - 0.5, 0.5 - x1 / width, 0.0)
        if y0 <= height / 2 <= y1 and not _centre_beside(block, page, width):
            across = 0.0
        scored.append((math.hypot(across, (y0 + y1) / 2 / height - 0.5), block))
    return sorted(scored, key=lambda pair: pair[0])


def _centre_beside(block: Block, page: list[Block], width: int) -> bool:
    """The frame's centre falls on text of another column: a block lying across the centre
    with no part above or below this block."""
    x0, _, x1, _ = block.bounds
    return any(o.bounds[0] <= width / 2 <= o.bounds[2] and (o.bounds[2] <= x0 or o.bounds[0] >= x1)
               for o in page if o is not block)


def _in_pieces(block: Block) -> bool:
    """The problem is printed in pieces: a line's height or more of space between two of its rows."""
    height = sorted(r.bottom - r.top for r in block.rows)[len(block.rows) // 2]
    return any(b.top - a.bottom >= height for a, b in zip(block.rows, block.rows[1:]))


def _holds_centre(block: Block, size: tuple[int, int]) -> bool:
    """The frame's centre lies within the block's rectangle."""
    x0, y0, x1, y1 = block.bounds
    return x0 <= size[0] / 2 <= x1 and y0 <= size[1] / 2 <= y1


def problem_text(block: Block) -> str:
    """What is searched: the block's text up to its answer options (A. … B. …; the bank keeps
    a question's stem), or up to its sub-questions where the stem asks by itself (「…是多少？
    (1) 列出算式；(2) …」: they say how to answer), without its number, score note, working
    after its end, sub-questions that say only how to answer ("(1) Show your working."), a
    table's rows after a stem that asks and does not speak of it ("65 33"), or empty answer bracket (「（　）」) at its end."""
    text = ""
    for i, row in enumerate(block.rows):
        row = _printed_problem(row, i + 1 < len(block.rows))
        rest = (r.text for r in block.rows[i:])  # read only as far as a table goes
        if i and (is_options(row.text) or is_hint(row.text) or ((starts_sub_questions(row.text) or table_before_parts(rest)) and stem_asks(text))):
            break
        if not says_how_to_answer(row.text) and not (i and (is_lone_letter(row.text) or is_chosen_in_bracket(row.text))) \
                and not (i and reads_as_figure(row) and stem_asks(text) and not speaks_of_figure(text)):
            text = join(text, row.text)  # a table's row after a stem that asks, a drawing's letter: no part of it
    return searched_text(text)


def _printed_problem(row: Row, more: bool) -> Row:
    """The row without its label in a style the page uses ("A3", "VI."), a score note in a
    marks column beside it (when ``more`` rows follow) and a score
    note cut off by the frame's right side."""
    text = row.text[row.label:]
    if more and marks_column(row.pieces):
        text = text[:text.rindex(row.pieces[-1])]
    if "right" in row.sides and (at := cut_score_note(text, row.pieces[-1] if row.pieces else text)) is not None:
        text = text[:at]
    return row if text == row.text else replace(row, line=replace(row.line, text=text.rstrip()))
