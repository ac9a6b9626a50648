"""Recognised boxes → blocks: one block per printed problem or header, in reading order.

1. Marks (a tick, a cross, a circled number standing apart) are set aside, and so are a
   figure's labels or a table's cells printed beside a problem's lines, unless the page
   speaks of a figure or table.
2. The page is cut into regions, XY-cut style: across wide empty bands (the space between
   problems), and down empty gutters (the columns of a two-column worksheet), so rows are
   never merged across columns.
3. In each region boxes form rows (read left to right) and rows form blocks: a problem
   number ("22.", 「第3题」, "(3)" where the page has no top-level numbers) starts a new
   block, as does a row after a score note or after a finished sentence spaced like the
   problems (a number the detector missed); a score note alone on its row ends the problem
   above it; a header line (a title, name/class line, a label such as 「第一题（5分）」) is
   a block of its own; a region without a number that follows a numbered problem in the same
   column continues it (sub-questions, answer options); rows of a figure's labels or a
   table's cells at a problem's end are a block of their own unless the problem speaks of
   a figure or table.
4. A block touching an edge of the frame is *cut*: part of it may be outside the photo.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from appliance.ocr.layout import TextBox, group_rows, join, merge_row, sides_of
from appliance.ocr.result import OcrLine
from appliance.wording.problem_text import (BLANK, NUMBER, axis_figures, is_chat_line, starts_sentence, is_answer_bracket, is_chinese_character, turns_to_chinese_question, ends_with_options_bracket, without_answer_bracket, PART, SCORE, TOP_LEVEL, says_something, finishes, mended_label, goes_on_below, without_score_at_end, formula_part_alone, is_bare_label, label_over_parts, numbers_lost, breaks_off, is_answer_row, formula_goes_on, goes_on, next_part, ringed_part, is_hint_title, is_cell_writing, ends_axis, has_arrow, is_arrow, reads_as_drawing, is_figure_row, bracketed_number, brackets_number_problems, ends_formula,
                                            ends_mid_sentence, ends_question, closes_heading, continues_bracket, continues_quantity, gives_after_colon, leaves_bracket_open, ends_sentence, ends_with_score, cut_score_note, ends_paragraph, ends_with_note, is_options_bracket, first_word, goes_on_with_problem, starts_bracketed_label, sets_a_task, is_annotation, marks_column, refers_back, names_nothing, is_caption,
                                            is_bare_number, is_header, is_heading, is_lead_in, is_label, is_label_after, is_mark, is_number_alone, is_options,
                                            label_near, reads_as_figures,
                                            is_lone_letter, is_options_or_data, is_score_only, numbered_in_turn, is_scribble, is_section_label, is_signed_score, is_margin_sum, is_stray, label_number, page_label_styles, styled_label, without_sum_at_end,
                                            reads_as_question, reads_as_working, speaks_of_figure, starts_answer,
                                            next_own_style_part, ringed_number, starts_part, starts_problem, with_lost_brackets, wraps_lead_in, table_before_parts, top_level_count, starts_sub_questions, strip_number, strip_ticks,
                                            without_working)

#: Column gutters of a page: (x from, x to) of each, left to right, on the levelled page
#: (the other way round where the columns' boxes overlap it: :func:`_overlapping_gutter`).
Gutters = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class BlockParams:
    problem_gap: float = 0.9  # empty line heights that separate two regions
    gutter: float = 1.5  # empty line heights that separate two columns
    blank_reach: float = 3.0  # ...unless a blank read between two boxes of a row fills it, up to this long
    column_rows: int = 3  # a gutter down the whole page has this many rows on either side...
    # ...under up to this many rows at the top (a title, a textbook's lines of reading) that may run across it
    spanning_rows: int = 6
    # ...and may be as narrow as this (wider than a space between words: no box on any row
    # below the title crosses it), with this many rows on either side...
    page_gutter: float = 0.5
    narrow_rows: int = 5
    # ...or narrower still, down to this (the detector's boxes reach past the ink: a printed
    # gutter with a rule in it can be left a fifth of a line height), where the lines of one
    # side do not all reach it
    flush_gutter: float = 0.1
    # ...or none, the boxes of two columns overlapping by up to this (the detector's margins
    # round the ink), where it parted this many rows at the gutter and no box runs across it
    overlap_gutter: float = 0.9
    parted_rows: int = 3
    continuation_gap: float = 3.0  # an unnumbered region this close below a problem continues it
    edge_margin: float = 4.0  # pixels from the frame edge that count as touching it
    mark_gap: float = 1.0  # a mark is this many line heights away from other text on its row
    side_gap: float = 0.6  # a box at the frame's side this far from its row's other text is another column's
    margin_stack: float = 0.6  # a margin's letters stacked down the page stand this close to one line (line heights)
    margin_step: float = 2.0  # ...and each at most this far below the one before it (line heights)
    margin_clear: float = 1.0  # a character alone this far out from every line of words near it is the margin's...
    margin_clear_reach: float = 3.0  # ...those lines lying within this many line heights above or below it
    side_reach: float = 2.0  # ...or, alone on its row, this far from the text of the rows above and below
    side_gap_before_number: float = 0.3  # ...or this far from a problem number at its right
    side_inset: float = 1.0  # a box this near the side, under or over one at it, is of its column too
    side_words: float = 2.0  # a remnant that long, ending before the column's margin beside it, is another column's
    written_height: float = 1.6  # a short figure this many line heights tall is written by hand...
    written_ratio: float = 1.3  # ...as is one this much taller than the line it follows,
    written_gap: float = 0.3  # ...this many line heights after its end
    answer_chars: int = 8  # an answer written after a problem's end is at most this long...
    answer_reach: float = 4.0  # ...and at most this many line heights after it
    answer_gap: float = 0.6  # ...and at least this many (a space in a line of print is a third of one)
    margin_reach: float = 6.0  # problem numbers this many line heights above or below a note show the margin
    figure_gap: float = 0.5  # labels this many line heights after a row's words are a figure beside it
    # A row after a finished sentence (or an instruction with its formula) starts a problem
    # whose number was not read when the space above it is this share of the page's space
    # between numbered problems...
    lost_number_share: float = 0.6
    lost_number_least: float = 0.3  # ...and at least this many line heights,
    lost_number_pitch: float = 1.6  # ...or this many times the block's usual row pitch below the row above
    # ...or where the row above ends a question, a sentence or an instruction's formula, or
    # ends on a blank with room for the next row's first word and this many line heights
    # more before the column's right side (a paragraph's end; blocks without labels)
    paragraph_room: float = 1.0
    # Problems set side by side without numbers: a finished one, then a space of at least
    # this many line heights before one that asks (a word space is a third of one)
    cell_gap: float = 1.5


@dataclass(frozen=True)
class Row:
    line: OcrLine
    top: float
    bottom: float
    left: float
    right: float
    height: float
    sides: frozenset[str] = frozenset()  # the frame's sides its boxes touch
    pieces: tuple[str, ...] = ()  # its boxes' texts, left to right
    label: int = 0  # the length of a label in a style the page uses (:func:`page_label_styles`)
    label_value: int | None = None  # ...and its number
    cell: bool = False  # one of problems set side by side in a printed row (:func:`grid_cells`)

    @property
    def text(self) -> str:
        return self.line.text


@dataclass(frozen=True)
class Block:
    rows: tuple[Row, ...]
    header: bool
    numbered: bool
    cut: bool  # touches the frame's edge

    @property
    def text(self) -> str:
        text = ""
        for row in self.rows:
            text = join(text, row.text)
        return text

    @cached_property  # rows are a tuple: fixed once the block is made
    def bounds(self) -> tuple[float, float, float, float]:
        return (min(r.left for r in self.rows), min(r.top for r in self.rows),
                max(r.right for r in self.rows), max(r.bottom for r in self.rows))

    @property
    def chars(self) -> int:
        return sum(len(r.text.replace(" ", "")) for r in self.rows)


def find_blocks(boxes: list[TextBox], size: tuple[int, int], params: BlockParams = BlockParams(),
                gutters: Gutters | None = None) -> list[Block]:
    """Blocks in reading order (regions top to bottom, columns left to right). ``gutters``:
    the page's column gutters when they are known from more lines than ``boxes`` (a page
    read centre-first); None: found in ``boxes`` (:func:`page_gutters`)."""
    if not boxes:
        return []
    unit = statistics.median(b.height for b in boxes)
    boxes = [part for box in boxes for part in parted_at_margin(box, boxes, size, unit, params)]
    figures_spoken_of = any(speaks_of_figure(b.text) for b in boxes)
    at_side = {id(b) for b in boxes if other_column_at_side(b, boxes, size, unit, params)}
    framed = [b for b in boxes if id(b) not in at_side]  # a row ends where another column's remnant starts

    def neighbours(box: TextBox) -> list[TextBox]:  # a remnant at the side is seen among every line
        return boxes if id(box) in at_side else framed
    in_margin = margin_letters(boxes, unit, params)
    on_chat = any(is_chat_line(b.text) for b in boxes)  # a character alone at the side: a sender's avatar
    print_boxes = [b for b in boxes if not is_scribble(b.text) and not is_cell_writing(b.text) and not isolated_mark(b, boxes, unit, params)
                   and not margin_note(b, boxes, unit, params) and id(b) not in in_margin
                   and (on_chat or not margin_character(b, boxes, unit, params))
                   and not trailing_stray(b, neighbours(b), unit, params)
                   and not another_columns_number(b, boxes, params)
                   and not written_after_the_end(b, boxes, size, params)
                   and not answer_after_the_end(b, boxes, unit, params)
                   and (figures_spoken_of or not figure_beside(b, neighbours(b), unit, params))]
    # another column's lines at the frame's side are left out of the problems, not of the
    # page's columns: its gutter is found with them
    text_boxes = [b for b in print_boxes if id(b) not in at_side]
    kept = text_boxes or boxes
    if gutters is None:
        gutters = page_gutters(print_boxes or boxes, unit, params)
    kept = [part for box in kept for part in parted_at_gutter(box, gutters)]
    regions = xy_cut(kept, unit, params, gutters)
    lines = with_lost_brackets([merge_row(row)[0].text for r in regions for row in group_rows(r)])
    bracketed = [n for n in map(bracketed_number, lines) if n is not None]
    sub_questions_start = brackets_number_problems(top_level_count(lines), bracketed)
    styles = page_label_styles(lines)
    numbers = set(bracketed)
    blocks: list[Block] = []
    for region in regions:
        rows = [labelled(_label_mended(row, numbers), styles)
                for boxes in group_rows(region) for row in cell_rows(boxes, size, unit, params)]
        led_in = under_lead_in(blocks)
        for block in split_region(rows, sub_questions_start, led_in, led_in and blocks[-1].header):
            previous = blocks[-1] if blocks else None
            if previous is not None and continues(previous, block, unit, params):
                blocks[-1] = Block(previous.rows + block.rows, False, True, previous.cut or block.cut)
            else:
                blocks.append(block)
    blocks = split_skipped_numbers([part for block in split_lost_numbers(join_pieces(blocks), unit, params) for part in split_after_options(block)])
    for split in (split_off_answer, split_off_working_above, split_off_figure):
        blocks = [part for block in blocks for part in split(block)]
    return split_off_working_before_answer(blocks)


def cell_rows(boxes: list[TextBox], size: tuple[int, int], unit: float, params: BlockParams) -> list[Row]:
    """One row of boxes as rows: one per cell where problems are set side by side (:func:`grid_cells`)."""
    cells = grid_cells(boxes, params.cell_gap * unit)
    return [replace(to_row(cell, size, params), cell=len(cells) > 1) for cell in cells]


def grid_cells(row: list[TextBox], gap: float) -> list[list[TextBox]]:
    """A row of problems set side by side (「【9】解方程：2x+3=11   【10】计算：3/4+1/6」), one
    cell per problem: parted before each box numbered in turn after the cell before it
    (:func:`numbered_in_turn`), or that asks ``gap`` or more after a box that finishes a
    problem (「水的化学式是什么？      计算：√48÷√3」); else the row whole."""
    boxes = sorted(row, key=lambda b: b.left)
    cells = [[boxes[0]]]
    for box in boxes[1:]:
        before = cells[-1][-1]
        finished = ends_paragraph(text := strip_ticks(before.text)) or ends_formula(text)
        if numbered_in_turn(cells[-1][0].text, box.text) or (
                box.left - before.right >= gap and finished and reads_as_question(box.text)):
            cells.append([box])
        else:
            cells[-1].append(box)
    return cells


def split_off_working_above(block: Block) -> list[Block]:
    """An unnumbered problem without the working that starts it (「由牛顿第二定律F」): the
    student's, for the problem above, written down to this one."""
    if block.numbered or block.header:
        return [block]
    working = 0
    while working < len(block.rows) - 1 and reads_as_working(block.rows[working].text):
        working += 1
    rest = block.rows[working:]
    if not working or not any(reads_as_question(r.text) for r in rest):
        return [block]
    head = block.rows[:working]
    return [Block(head, False, False, touches_edge(head)), Block(rest, False, False, touches_edge(rest))]


def split_off_figure(block: Block) -> list[Block]:
    """A problem without the figure or table printed below or beside it that it does not
    speak of (another problem's chart, a table of values for the next exercise): rows of
    labels or cells at its end (:func:`reads_as_figure`) are a block of their own, no problem.
    A problem that speaks of a figure (「根据下表…」, "as shown") keeps them. A caption
    right above its first row (「图4」) is the figure's above it."""
    captions = next((i for i, row in enumerate(block.rows) if not is_caption(row.text)), 0)
    if captions and not block.header:
        rest = block.rows[captions:]
        numbered = block.numbered or bool(rest[0].label) or TOP_LEVEL.match(rest[0].text) is not None
        return [Block(block.rows[:captions], False, False, touches_edge(block.rows[:captions])),
                *split_off_figure(Block(rest, False, numbered, touches_edge(rest)))]
    end, start = len(block.rows), None
    while end != start:  # a chart's scale, one figure to a row, above or below its labels
        start = end
        while end > 0 and (reads_as_figure(block.rows[end - 1]) or is_arrow(block.rows[end - 1].text)
                           or axis_end(block.rows[end - 1]) and (end < len(block.rows) or has_arrow(block.rows[end - 1].text))):
            if end > 1 and leaves_bracket_open(block.rows[end - 2].text):
                break  # the row closes the bracket its problem left open (「…（π取」 「3.14)（）」)
            end -= 1
        end -= axis_figures([row.text if len(row.pieces) <= 1 else "" for row in block.rows[:end]])
    head, tail = block.rows[:end], block.rows[end:]
    if block.header or not tail or speaks_of_figure(" ".join(r.text for r in head)) \
            or head and breaks_off(head[-1].text):  # 「找规律：」 ⏎ "3 6 9 12", 「…公差」 「d=3,」 ⏎ 「求a10 (5分)」
        return [block]
    if not head:  # labels alone, parted from their problem at its score note: no problem
        return [block] if TOP_LEVEL.match(block.rows[0].text) else [Block(tail, False, False, block.cut)]
    return [Block(head, False, block.numbered, touches_edge(head)), Block(tail, False, False, touches_edge(tail))]


def reads_as_figure(row: Row) -> bool:
    """A row of a figure's labels, a table's cells, an axis or a caption (:func:`is_figure_row`)."""
    return is_figure_row(row.text, row.pieces)


def axis_end(row: Row) -> bool:
    """One short piece that ends a figure's axis ("↑y", "4y", "x→"): above the figure's other
    rows, or with its arrow read, it is the figure's too."""
    return len(row.pieces) == 1 and ends_axis(row.text)


def split_after_options(block: Block) -> list[Block]:
    """A problem's answer options (in rows of their own, or in a bracket at the question's
    end: "(go / goes / went)") end it: rows after them that ask something are the next
    problem, whose number was not read (unnumbered too: a page whose numbers were all
    lost), and rows that ask nothing are the student's writing, no problem. Options at a
    block's top are the options of a problem above the frame's edge."""
    if block.header:
        return [block]
    for i in range(1, len(block.rows)):
        head, tail = block.rows[:i], block.rows[i:]
        ended = is_options(head[-1].text) or ends_with_options_bracket(" ".join(r.text for r in head))
        if not ended or is_options_or_data(tail[0].text):
            continue
        numbered = block.numbered and not is_options(head[0].text)
        if any(reads_as_question(r.text) for r in tail):
            return [Block(head, False, numbered, touches_edge(head)),
                    *split_after_options(Block(tail, False, block.numbered, touches_edge(tail)))]
        if i > 1:  # rows under the options that ask nothing: the student's writing ("The cell is the…")
            return [Block(head, False, numbered, touches_edge(head)), Block(tail, False, False, touches_edge(tail))]
    return [block]


def split_off_answer(block: Block) -> list[Block]:
    """A problem (its number read or lost) without the rows after its question mark that ask nothing (a
    student's working or answer written below it, 「25℃时pH=7」), or after its end that
    read as working (「移项得…」) or a bare number (「…求A∩B。」 ⏎ 「59」), or figures alone under an
    instruction's formula (「解方程：3x - 7 = 2x + 5」 ⏎ "12 12cm 24 cm²"): they are a block of their own, no problem. Answer options
    (A. …) and given data in brackets stay (also after a table printed under the question),
    and so does a sentence after a full stop that goes on with the problem (「…求阻值。以及它
    消耗的电功率。」)."""
    if block.header:
        return [block]
    for i in range(1, len(block.rows)):
        head, tail = block.rows[:i], block.rows[i:]
        last = without_working(strip_number(head[-1].text))  # 「…哪一年? +5」: the teacher's score
        given = next((r for r in tail if not reads_as_figure(r)), tail[0])  # after a table: 「(π取3.14)」
        answer = ends_question(last) and not is_options_or_data(given.text)
        working = (reads_as_working(tail[0].text) and (ends_sentence(last) or reads_as_question(last))
                   or is_stray(tail[0].text) and ends_sentence(last)
                   or len(tail) == 1 and is_answer_row(tail[0].text) and ends_sentence(last)
                   or len(tail) == 1 and reads_as_figures(tail[0].text) and ends_formula(last)) \
            and not leaves_bracket_open(last) and not formula_goes_on(last, tail[0].text)  # 「…(ρ水」 「= 1.0×10³ kg/m³)」 is a given
        if (answer or working) and not any(reads_as_question(r.text) for r in tail):
            return [Block(head, False, block.numbered, touches_edge(head)), Block(tail, False, False, touches_edge(tail))]
        written = _written_rows(tail) if answer or working else 0
        if written:  # a short answer between the question and the next problem, whose label was lost
            rest = Block(tail[written:], False, True, touches_edge(tail[written:]))
            return [Block(head, False, block.numbered, touches_edge(head)),
                    Block(tail[:written], False, False, touches_edge(tail[:written])), *split_off_answer(rest)]
    return [block]


def split_off_working_before_answer(blocks: list[Block]) -> list[Block]:
    """A problem right above the answer space's label ("Ans:", 「答：」) without the rows after
    its stem's end that ask nothing: the student's working, written before the answer
    ("Slope m = …" ⏎ "The slope is 2." ⏎ "Ans: 2")."""
    out: list[Block] = []
    for block, below in zip(blocks, [*blocks[1:], None]):
        end = _stem_end(block) if below is not None and below.header and starts_answer(below.rows[0].text) \
            and not block.header and _overlap(block, below) > 0 else None
        if end is None:
            out.append(block)
            continue
        head, tail = block.rows[:end], block.rows[end:]
        out += [Block(head, False, block.numbered, touches_edge(head)), Block(tail, False, False, touches_edge(tail))]
    return out


def _stem_end(block: Block) -> int | None:
    """Where the problem's rows end: after the first row that finishes a sentence with the
    text so far asking, when no row after it asks; None when no row follows that end."""
    for end in range(1, len(block.rows)):
        text = " ".join(r.text for r in block.rows[:end])
        if finishes(block.rows[end - 1].text) and reads_as_question(strip_number(text)):
            rest = block.rows[end:]
            return end if not any(reads_as_question(r.text) or is_options_or_data(r.text) for r in rest) else None
    return None


#: A student's answer between a problem and the next is at most this many characters a row.
WRITTEN_ROW = 12


def _written_rows(rows: tuple[Row, ...]) -> int:
    """How many of ``rows`` are short writing ("x=2, x=3") before a row that asks with no
    label of its own (the problem's own part "(1)" under a table of figures is none); 0 if
    none is, or no such row follows them."""
    asking = next((i for i, r in enumerate(rows) if reads_as_question(r.text)), 0)
    if NUMBER.match(rows[asking].text) is not None or starts_part(rows[asking].text):
        return 0
    short = all(len(r.text.replace(" ", "")) <= WRITTEN_ROW and not is_options_or_data(r.text)
                and NUMBER.match(r.text) is None and not starts_part(r.text) for r in rows[:asking])
    return asking if short else 0


def join_pieces(blocks: list[Block]) -> list[Block]:
    """A problem printed in pieces (a formula on a line of its own, a drawing or a wide space
    between its givens and its question): an unnumbered block is the rest of the block right
    above it in its column when that one breaks off mid-sentence (「…并联，」, "Solve:"), or
    when that one is problem n and problem n + 1 comes next below: no number was lost between,
    or when problems on this page end with a score note and this block's does while that
    one's does not (:func:`_score_ends_pieces`)."""
    scored = _score_ends_problems(blocks)
    joined: list[Block] = []
    for i, block in enumerate(blocks):
        at = next((j for j in range(len(joined) - 1, -1, -1)
                   if _in_column(joined[j], block, blocks) and not _drawing(joined[j])), None)
        above = None if at is None or block.numbered or _drawing(block) else joined[at]
        if above is None or above.header or above.bounds[3] > block.bounds[1]:
            joined.append(block)
            continue
        # its last row of words, not a drawing's letter beside it
        last = next((r for r in reversed(above.rows) if not _letters(r)), above.rows[-1])
        in_turn = _next_in_turn(above, block, blocks[i + 1:])
        if block.header and not gives_after_colon(last.text, block.rows[0].text):  # 「Translate into Chinese:」 ⏎ a title's words
            joined.append(block)
        elif (breaks_off(last.text) and "right" not in last.sides) or (in_turn and goes_on(above.text, [r.text for r in block.rows])) \
                or (scored and _score_ends_pieces(above, block)):
            joined[at] = Block(above.rows + block.rows, False, above.numbered, above.cut or block.cut)
        else:
            joined.append(block)
    return joined


#: A page whose problems end with a score note shows at least this many that do.
SCORED_PROBLEMS = 2


def _score_ends_problems(blocks: list[Block]) -> bool:
    """Problems on this page end with their score note ("(5 marks)", 「(5分)」): at least
    ``SCORED_PROBLEMS`` blocks that are no header do."""
    return sum(not b.header and ends_with_score(b.rows[-1].text) for b in blocks) >= SCORED_PROBLEMS


def _score_ends_pieces(above: Block, block: Block) -> bool:
    """On a page whose problems end with a score note, ``above`` has none and ``block``, with
    no label, ends with one: the problem's pieces are one problem, its note after the last
    (「4、钠元素的原子序数是多少？」 ⏎ 「钠原子核外有几个电子？（5分）」)."""
    return not any(ends_with_score(r.text) for r in above.rows) and ends_with_score(block.rows[-1].text) \
        and says_something(block.text, 3) and says_something(above.text, 3)


def _drawing(block: Block) -> bool:
    """The block is a drawing's letters or a figure's labels only ("B", "A  C")."""
    return all(reads_as_figure(r) or _letters(r) for r in block.rows)


def _letters(row: Row) -> bool:
    """A drawing's letter or letters ("B", "A  C")."""
    return is_lone_letter(row.text) or len(row.pieces) <= 1 and reads_as_drawing(row.text)


def _in_column(above: Block, block: Block, blocks: list[Block]) -> bool:
    """``block`` lies within the span of ``above``'s column (a formula set in from its short line)."""
    return min(_column_right(above, blocks), block.bounds[2]) > max(above.bounds[0], block.bounds[0])


def _next_in_turn(problem: Block, block: Block, later: list[Block]) -> bool:
    """``problem`` is numbered n and the problem next below ``block`` in its column (of the
    blocks ``later``) is numbered n + 1."""
    below = next((b for b in later if not b.header and _overlap(b, block) > 0), None)
    if not problem.numbered or below is None or not below.numbered:
        return False
    number = row_number(problem.rows[0])
    return number is not None and row_number(below.rows[0]) == number + 1


def split_lost_numbers(blocks: list[Block], unit: float, params: BlockParams) -> list[Block]:
    """Problems whose number the detector missed (a faint or far-set "9、"), split from the
    problem above them: a numbered block is split after a row that ends with a score note,
    or after a finished sentence (or 「计算：3/4 + 1/6」) where the next row stands about as
    far below it as the numbered problems stand apart on this page, or well beyond the
    block's usual row pitch. The part below counts as numbered. An
    unnumbered block (a textbook's paragraph over a problem whose number was lost, or a
    page whose numbers were all lost) is split the same way, its parts unnumbered."""
    spacing = problem_spacing(blocks)
    least = math.inf if spacing is None else max(params.lost_number_share * spacing,
                                                 params.lost_number_least * unit)
    split: list[Block] = []
    for i, block in enumerate(blocks):
        if block.header:
            split.append(block)
            continue
        # the column's side matters only to the paragraph rule, of blocks without labels (and
        # of a lead-in's parts: each is a problem, and one whose label was lost reads on into
        # it; and of a label over a list of paragraphs that each ask)
        column_right = _column_right(block, blocks)
        labelled = _printed_label(block) and not (starts_part(block.rows[0].text) and under_lead_in(blocks[:i])) \
            and not _problems_under_label(block, column_right - params.paragraph_room * unit)
        right = block.bounds[2] if labelled else column_right
        in_turn = _next_in_turn(block, block, blocks[i + 1:])  # no number lost below it
        if _label_over_problems(block, column_right - params.paragraph_room * unit):
            split.append(Block(block.rows[:1], True, False, touches_edge(block.rows[:1])))
            block, right = Block(block.rows[1:], False, False, touches_edge(block.rows[1:])), column_right
        for piece in _formula_part_apart(block):
            split.extend(_split_at_gaps(piece, least, params.lost_number_pitch, params.paragraph_room, right, in_turn,
                                        labelled and _printed_label(piece)))
    return split


#: A label alone on its row over at least this many problems printed without labels heads
#: them all (:func:`_label_over_problems`).
PROBLEMS_UNDER_LABEL = 3


def _problems_under_label(block: Block, edge: float) -> bool:
    """A labelled problem's rows end ``PROBLEMS_UNDER_LABEL`` paragraphs or more as problems
    printed without labels do (:func:`_paragraph_ends`): problems without labels read on
    into it, not one problem's sentences (a label parts two: 「（3）西汉建立于哪一年？」 ⏎
    「建立者是谁？」)."""
    return _paragraphs(block.rows, edge) >= PROBLEMS_UNDER_LABEL


def _paragraphs(rows: tuple[Row, ...], edge: float) -> int:
    """How many paragraphs ``rows`` hold, parted where problems printed without labels end
    (:func:`_paragraph_ends`)."""
    return 1 + sum(_paragraph_ends(rows[:i], rows[i:i + 2], edge) for i in range(1, len(rows)))


def _label_over_problems(block: Block, edge: float) -> bool:
    """The block's first row is a label alone (「第一题（4分）」) over rows that end paragraphs
    as problems printed without labels do (:func:`_paragraph_ends`), at least
    ``PROBLEMS_UNDER_LABEL`` of them: the label heads a group of problems, not one problem
    of several paragraphs."""
    rows = block.rows[1:]
    if not block.numbered or len(rows) < PROBLEMS_UNDER_LABEL or not is_number_alone(block.rows[0].text):
        return False
    return _paragraphs(rows, edge) >= PROBLEMS_UNDER_LABEL


def _formula_part_apart(block: Block) -> list[Block]:
    """A part that is a formula alone, as the last of a lead-in's (「解下列方程：」 ⏎ "(2) x/2 +
    8 = 7"), is whole on its row: rows after it that ask or set a task of their own
    (「计算：3/4 + 1/6」) are problems printed without labels, parted as such."""
    if len(block.rows) < 2 or not formula_part_alone(block.rows[0].text, block.rows[1].text):
        return [block]
    rest = block.rows[1:]
    return [Block(block.rows[:1], False, block.numbered, touches_edge(block.rows[:1])),
            Block(rest, False, False, touches_edge(rest))]


def split_skipped_numbers(blocks: list[Block]) -> list[Block]:
    """Problem n right above problem n + k in its column (k up to ``MOST_SKIPPED`` + 1), and
    none of n + 1 … n + k - 1 on the page: those lost their numbers (a faint or circled
    print) and, spaced like a problem's own lines, were read on into n. They start after
    n's paragraph ends (:func:`_paragraph_ends_of`), where there are as many as problems lost."""
    numbers = problem_numbers(blocks)
    split: list[Block] = []
    for i, block in enumerate(blocks):
        below = next((b for b in blocks[i + 1:] if not b.header and _overlap(block, b) > 0), None)
        after = row_number(below.rows[0]) if below is not None and below.numbered else None
        lost = numbers_lost(numbers[i], after, numbers)
        ats = _paragraph_ends_of(block, lost) if lost else []
        parts = [block.rows[a:b] for a, b in zip([0, *ats], [*ats, len(block.rows)])]
        split.extend(Block(p, block.header, block.numbered, touches_edge(p)) for p in parts)
    return split


def problem_numbers(blocks: list[Block]) -> list[int | None]:
    """Each block's problem number: its label's, but a part numbered ② set apart from its
    problem (「② 春天来了。(扩句)」 under 「6. 按要求改写句子。」, a lead-in or a problem with
    parts) has the number of that problem; None for a block without a number."""
    numbers: list[int | None] = []
    problem, has_parts = None, False  # the last number of a problem that is no part
    for block in blocks:
        number = row_number(block.rows[0]) if block.numbered or block.header else None
        if number is not None and problem is not None and has_parts and ringed_number(block.rows[0].text):
            number = problem
        elif number is not None:  # a numbered lead-in (「6. 按要求改写句子。」) is a header
            problem = number
            has_parts = is_lead_in(block.rows[0].text) or any(
                PART.match(r.text) or ringed_number(r.text) for r in block.rows[1:])
        numbers.append(None if block.header else number)
    return numbers


def _printed_label(block: Block) -> bool:
    """The block starts with a printed label, not only numbered as the first line under a lead-in."""
    return block.numbered and (block.rows[0].label > 0 or NUMBER.match(block.rows[0].text) is not None)


def _column_right(block: Block, blocks: list[Block]) -> float:
    """The right side of the block's column: its widest row, or a wider one of the problems above and below."""
    return max([block.bounds[2]] + [b.bounds[2] for b in blocks if not b.header and _overlap(block, b) > 0])


def row_number(row: Row) -> int | None:
    return row.label_value if row.label else label_number(row.text)


def _paragraph_ends_of(block: Block, count: int) -> list[int]:
    """The ``count`` rows after which new paragraphs start: after finished sentences that stop
    short of the block's width, or after the only finished sentences (not before answer
    options or sub-questions), or else after the only rows that stop short on a blank (the
    full stop after 「…= ____」 is often lost), or else after those of them where rows that ask
    follow (not the student's writing under the last); [] when there are not exactly that many."""
    left, right = min(r.left for r in block.rows), max(r.right for r in block.rows)
    ends, short, blanks = [], [], []
    for i in range(1, len(block.rows)):
        above, row = strip_number(block.rows[i - 1].text), block.rows[i].text
        if is_options(row) or PART.match(row) or starts_answer(row):
            continue
        stops_short = block.rows[i - 1].right < left + 0.8 * (right - left)
        if ends_sentence(above) or ends_formula(above):
            ends.append(i)
            if stops_short:
                short.append(i)
        elif stops_short and above.rstrip().endswith("_"):
            blanks.append(i)
    asking = [i for i in ends if reads_as_question(" ".join(r.text for r in block.rows[i:]))]  # not the writing under it
    return next((found for found in (short, ends, blanks, [i for i in short if i in asking], asking) if len(found) == count), [])


def problem_spacing(blocks: list[Block]) -> float | None:
    """The median space between a problem and the numbered problem that follows it in the
    same column; None when the page shows fewer than two such pairs."""
    gaps = [b.rows[0].top - a.rows[-1].bottom for a, b in zip(blocks, blocks[1:])
            if b.numbered and not a.header and not b.header and _overlap(a, b) > 0]
    gaps = [g for g in gaps if g >= 0]
    return statistics.median(gaps) if len(gaps) >= 2 else None


def _first_word(row: Row) -> float:
    """How wide the row's first word (:func:`first_word`) is printed: its share of the row."""
    text = row.text.strip()
    return (row.right - row.left) * len(first_word(text)) / max(1, len(text))


#: A space this share of a line's height between two rows is a blank line (:func:`_split_at_gaps`).
BLANK_LINE = 0.5


def _split_at_gaps(block: Block, least: float, pitch_share: float, room: float, right: float,
                   in_turn: bool = False, labelled: bool | None = None) -> list[Block]:
    """``in_turn``: problem n + 1 comes next below, so no number was lost: a gap parts only a
    problem of its own from n (:func:`goes_on`). ``labelled``: the block starts with a label
    that parts it from the next problem, so its paragraphs do not (None: it has a printed label)."""
    labelled = _printed_label(block) if labelled is None else labelled
    pitches = [_pitch(a, b) for a, b in zip(block.rows, block.rows[1:])]
    room *= statistics.median(r.height for r in block.rows)
    farther = pitch_share * statistics.median(pitches) if len(pitches) >= 3 else math.inf
    # ...or of its closest pitches, where a space as tall as half a line stands between
    # (problems set one or two lines each, most of the block's pitches between problems)
    closest = pitch_share * sorted(pitches)[len(pitches) // 4] if len(pitches) >= 3 else math.inf
    parts: list[list[Row]] = [[block.rows[0]]]
    answers: set[int] = set()  # parts that may be writing right under a question's score note
    for i, row in enumerate(block.rows[1:], 1):
        above = parts[-1][-1]
        stem = strip_number(above.text)
        finished = ends_sentence(stem) or ends_formula(stem)
        gap, pitch = row.top - above.bottom, _pitch(above, row)
        apart = gap >= least or pitch >= farther or pitch >= closest and gap >= BLANK_LINE * min(row.height, above.height)
        spaced = apart and finished and not (
            in_turn and goes_on(" ".join(r.text for r in parts[-1]), [r.text for r in block.rows[i:]]))
        spaced = spaced or (not labelled and _paragraph_ends(parts[-1], block.rows[i:i + 2], right - room))
        spaced = spaced or (finished and (above.cell or row.cell))  # each problem of a row set side by side ends there
        spaced = spaced or turns_to_chinese_question(" ".join(r.text for r in parts[-1]), row.text)
        spaced = spaced or (not in_turn and _bracket_ends(parts[-1], row))
        # two lines' space or more between a problem that asks, ending with no mark and not
        # breaking off ("…: ____ university"), and a row that asks on its own
        spaced = spaced or (gap >= WIDE_GAP * max(row.height, above.height) and not finished and not breaks_off(stem)
                            and reads_as_question(" ".join(r.text for r in parts[-1]))
                            and starts_sentence(row.text) and reads_as_question(row.text))
        # its options, its (1), or a table between it and its (1)
        parts_of_it = is_options(row.text) or starts_sub_questions(row.text) or table_before_parts(r.text for r in block.rows[i:])
        # a score note ends the problem, unless it ends a full row whose sentence goes on
        # below it (「…打八折出售，现价（3分）」 ⏎ 「是多少元？」)
        scored = ends_with_score(noted := without_working(above.text)) and not marks_column(above.pieces) \
            and not (above.right >= right - room and goes_on_below(without_score_at_end(noted), row.text))
        # a score note the frame's side cut off ends it too, on the same terms
        cut = cut_score_note(stem, above.pieces[-1] if above.pieces else stem) if "right" in above.sides else None
        cut_off = cut is not None and not goes_on_below(stem[:cut], row.text)
        if (spaced or scored or cut_off) and not parts_of_it:
            if not spaced and (ends_question(stem) or cut_off):
                answers.add(len(parts))
            parts.append([row])
        else:
            parts[-1].append(row)
    if len(parts) == 1:
        return [block]
    # right under "…pentagon? (5 points)", rows that ask nothing are the student's answer
    # ("The interi…"), not a problem whose number was lost
    blocks = [Block(tuple(p), False, block.numbered and not (i in answers and not any(reads_as_question(r.text) for r in p)),
                    touches_edge(p)) for i, p in enumerate(parts)]
    return blocks[:1] + [part for b in blocks[1:] for part in _figures_apart(b)]


def _bracket_ends(lines: list[Row], row: Row) -> bool:
    """``lines`` end with a finished sentence and its answer bracket alone on a row (「是 100 cm³，
    求它的密度。」 ⏎ 「（ ）」): a row under it that asks on its own is the next problem, its
    label lost (a circled "(4)"), not a question that goes on under the bracket."""
    return (len(lines) > 1 and is_answer_bracket(lines[-1].text) and ends_sentence(strip_number(lines[-2].text))
            and starts_sentence(row.text) and reads_as_question(row.text))


#: A space this many line heights tall between two rows parts problems (:func:`_split_at_gaps`).
WIDE_GAP = 2.0


def _paragraph_ends(lines: list[Row], below: tuple[Row, ...], edge: float) -> bool:
    """In problems printed without labels, ``lines`` end a problem: the last ends a question,
    a full stop or an instruction's formula (wherever it stops: a one-line problem may fill
    its column, 「…求斜边的长。」 ⏎ 「计算：sin 30° + cos 60°」), or ends on a blank short of
    ``edge`` (the column's right side less some room) by the next line's first word (the
    full stop after 「…是 ____」 is often lost; a blank at the column's side may go on below);
    after a line that fills its column, the next must not say how to answer or join a task
    to it (「…多少千米？」 ⏎ 「请写出计算过程并说明理由。」); the lines set a task ("A bag contains 3 red balls and 5 blue balls." is the stem of
    the question below it); the next line asks on its own, with no label or part (or runs
    off the frame's side, its end unseen), and does not point back. Where labels are
    printed they part the problems: "3. A box holds 12 eggs." ⏎ "How many…" and
    「（3）西汉建立于哪一年？」 ⏎ 「建立者是谁？」 are one problem each (up to
    :func:`_problems_under_label`)."""
    last, row = lines[-1], below[0]
    # the sentence before its score note and answer bracket: 「…化学方程式。 (  ) (2 pts)」
    stem = without_answer_bracket(without_score_at_end(strip_number(strip_ticks(last.text))))
    short = edge - last.right > _first_word(row)
    ends = ((ends_paragraph(stem) or ends_formula(stem) or ends_with_note(" ".join(r.text for r in lines)))
            and (short or not goes_on_with_problem(row.text))
            or (stem.rstrip().endswith("_") and short))
    return (ends and not PART.match(row.text) and label_number(row.text) is None and not refers_back(row.text)
            and not (names_nothing(row.text) and abs(row.left - last.left) <= row.height)  # 「作者是谁？」, wrapped
            and not is_options_bracket(row.text)
            and (reads_as_question(" ".join(r.text for r in below)) or "right" in row.sides)
            and sets_a_task(" ".join(r.text for r in lines)))


def _figures_apart(block: Block) -> list[Block]:
    """A part split off below a gap that starts with a row of figures over a question
    ("0.5 mol 20 25" ⏎ "Find the slope…"): the figures are the student's answers to the
    problem above, no part of the problem whose number was lost under them."""
    if len(block.rows) < 2 or not reads_as_figures(block.rows[0].text) or not reads_as_question(block.rows[1].text):
        return [block]
    head, rest = block.rows[:1], block.rows[1:]
    return [Block(head, False, False, touches_edge(head)), Block(rest, False, block.numbered, touches_edge(rest))]


def _pitch(above: Row, row: Row) -> float:
    """From the middle of one row to the next: unlike the space between their boxes, not
    shrunk by a mark the detector took into a line's box."""
    return (row.top + row.bottom - above.top - above.bottom) / 2


def _overlap(a: Block, b: Block) -> float:
    return min(a.bounds[2], b.bounds[2]) - max(a.bounds[0], b.bounds[0])


def to_row(boxes: list[TextBox], size: tuple[int, int], params: BlockParams = BlockParams()) -> Row:
    """One row; a tick the detector took into the line's box is cut off (with its share
    of the row's width, so a tick near the frame's side does not make the row look cut),
    and a side the row touches but is whole at does not count."""
    if len(boxes) > 1 and is_margin_sum(boxes[-2].text, boxes[-1].text):
        boxes = boxes[:-1]  # a student's sum in the margin after the row's words
    line, (top, bottom, height) = merge_row(boxes)
    left, right = min(b.left for b in boxes), max(b.right for b in boxes)
    # a teacher's score or a mark written in the margin at the frame's side cuts no line
    words = [b for b in boxes if not is_stray(b.text)] or boxes
    sides = frozenset().union(*(sides_of(b, size, params.edge_margin) for b in words))
    text = strip_ticks(line.text)
    if text != line.text and line.text:
        if line.text.endswith(text):  # the tick was at the start
            cut_to = right - (right - left) * len(text) / len(line.text)
            sides, left = (sides - {"left"} if cut_to - left > params.edge_margin else sides), cut_to
        else:
            sides, right = _cut_at_right(sides, left, right, len(text) / len(line.text), params)
        line = OcrLine(text, line.confidence, line.box)
    if "right" in sides and (kept := without_sum_at_end(text)) != text:  # a sum written in the margin
        sides, right = _cut_at_right(sides, left, right, len(kept) / len(text), params)
        text, line = kept, OcrLine(kept, line.confidence, line.box)
    # Whole at a side it touches: a line that ends its sentence at the right, or starts with
    # its problem number at the left (its box ran on over a mark or the paper's edge).
    if "right" in sides and ends_sentence(text):
        sides -= {"right"}
    if "left" in sides and (TOP_LEVEL.match(text) or starts_bracketed_label(text)):
        sides -= {"left"}
    return Row(line, top, bottom, left, right, height, sides, tuple(b.text.strip() for b in boxes))


def _cut_at_right(sides: frozenset[str], left: float, right: float, kept: float,
                  params: BlockParams) -> tuple[frozenset[str], float]:
    """The row's sides and right end once the text after the ``kept`` share of it is cut
    off: what was cut, not the row, reached the frame's right side unless the cut is
    within ``edge_margin`` of it."""
    cut_to = left + (right - left) * kept
    return (sides - {"right"} if right - cut_to > params.edge_margin else sides), cut_to


def _label_mended(row: Row, numbers: set[int]) -> Row:
    """The row with its label mended (:func:`mended_label`)."""
    text = mended_label(row.text, numbers)
    return row if text == row.text else replace(row, line=replace(row.line, text=text))


def labelled(row: Row, styles: frozenset[str]) -> Row:
    """The row with the label it starts with, in a style the page uses, if any."""
    label = styled_label(row.text, styles)
    return row if label is None else replace(row, label=label[0], label_value=label[1])


def margin_note(box: TextBox, boxes: list[TextBox], unit: float, params: BlockParams) -> bool:
    """A note written in the margin right before a problem's number (「再看一遍」, 「易错」,
    "check!"): a few characters, no figure, within ``mark_gap`` line heights of a box on its
    row that starts with a problem number, and standing a line height or more out to the
    left of where the problems' numbers above and below it stand. It is no part of the
    problem, and hid its number."""
    text = box.text.strip()
    if not text or len(text) > params.answer_chars or any(ch.isdigit() for ch in text) or NUMBER.match(text):
        return False
    right = box.right
    numbered = any(same_row(o, box) and o.left > box.left and o.left - right < params.mark_gap * unit
                   and NUMBER.match(o.text) for o in boxes if o is not box)
    # the column's margin: where the other problems' numbers stand, above and below
    margin = [o.left for o in boxes if not same_row(o, box) and NUMBER.match(o.text)
              and abs(o.centre_y - box.centre_y) < params.margin_reach * unit]
    return numbered and bool(margin) and box.left < min(margin) - unit


def margin_letters(boxes: list[TextBox], unit: float, params: BlockParams) -> set[int]:
    """The ids of boxes that are letters of words printed down the page's margin
    (「密封线内不要答题」, "DO NOT WRITE HERE"): boxes of one character stacked one under
    another (each within ``margin_stack`` line heights of the next's middle and
    ``margin_step`` below it), at least three, all out to the left or right of every line of
    the rows they span. They belong to no problem. (The sealed line's characters, printed
    further apart, are each found alone: :func:`margin_character`.)"""
    single = sorted((b for b in boxes if len(b.text.strip()) == 1 and b.right - b.left <= 1.6 * b.height),
                    key=lambda b: b.centre_y)
    runs: list[list[TextBox]] = []
    for letter in single:
        run = next((r for r in runs if 0 < letter.centre_y - r[-1].centre_y <= params.margin_step * unit
                    and abs((letter.left + letter.right) - (r[-1].left + r[-1].right)) / 2 < params.margin_stack * unit), None)
        if run is None:
            runs.append([letter])
        else:
            run.append(letter)
    letters: set[int] = set()
    for run in runs:
        top, bottom = run[0].top - unit, run[-1].bottom + unit
        lines = [b for b in boxes if len(b.text.strip()) > 1 and top < b.centre_y < bottom]
        if len(run) >= 3 and lines and (max(b.right for b in run) < min(b.left for b in lines)
                                        or min(b.left for b in run) > max(b.right for b in lines)):
            letters.update(map(id, run))
    return letters


def margin_character(box: TextBox, boxes: list[TextBox], unit: float, params: BlockParams) -> bool:
    """One Chinese character out in the page's side margin, alone: a letter of the sealed
    line along the binding (「密」 … 「封」 … 「线」, printed far apart) or of a field written
    down it (「学校」's 「学」). Every line of words within ``margin_clear_reach`` line heights
    above and below it starts ``margin_clear`` line heights or more to its right (or ends as
    far to its left). A character that wrapped onto a row of its own stands in its column."""
    if not is_chinese_character(box.text):
        return False
    near = [o for o in boxes if len(o.text.strip()) > 2 and abs(o.centre_y - box.centre_y) < params.margin_clear_reach * unit]
    clear = params.margin_clear * unit
    return bool(near) and (box.right + clear <= min(o.left for o in near) or box.left - clear >= max(o.right for o in near))


def isolated_mark(box: TextBox, boxes: list[TextBox], unit: float, params: BlockParams) -> bool:
    """A mark, or a score with its sign (a teacher's "+5" in the margin), standing apart: no
    other box on its row within ``mark_gap`` line heights."""
    if not (is_mark(box.text) or is_signed_score(box.text)):
        return False
    right = box.right
    for other in boxes:
        if other is box or not same_row(other, box):
            continue
        gap = max(other.left - right, box.left - other.right)
        if gap < params.mark_gap * unit and not is_mark(other.text):
            return False
    return True


def trailing_stray(box: TextBox, boxes: list[TextBox], unit: float, params: BlockParams) -> bool:
    """A short figure or mark (:func:`is_stray`) that is not print of the problem: written
    by hand (much taller than the printed lines, or than the line it follows), or standing
    ``mark_gap`` line heights or more after the end of a line of words, with nothing after
    it on that line — a score written beside the problem, or the next column's bare
    number. (Printed alone on its row, a number starts the problem below it, as circled
    numbers do.)"""
    letter = is_lone_letter(box.text) and not is_stray(box.text)  # not a cross read as "X"
    if not (letter or is_stray(box.text)):
        return False
    if box.height >= params.written_height * unit and not letter:
        return True
    # any overlap, not only :func:`same_row`: a mark by hand may sit off its row
    beside = [o for o in boxes if o is not box and o.top < box.bottom and box.top < o.bottom]
    # a letter only after a finished sentence: it may be the line's own (「求 x」)
    after = _after_words(box, beside, params, finished=letter)
    return after is not None and _set_apart(*after, unit, params)


def another_columns_number(box: TextBox, boxes: list[TextBox], params: BlockParams) -> bool:
    """A problem number alone (「24、」, with a cross beside it: 「X24.」) that ends a row of
    words, however near: a number starts its problem's line, so this one is the next
    column's, whose words were lost or lie beyond the frame."""
    text = strip_ticks(box.text)
    if not (TOP_LEVEL.match(text) and is_number_alone(text)):
        return False
    beside = [o for o in boxes if o is not box and same_row(o, box)]
    return _after_words(without_ticks(box), beside, params, finished=False) is not None


def _after_words(box: TextBox, beside: list[TextBox], params: BlockParams,
                 finished: bool) -> tuple[float, bool] | None:
    """(gap in pixels, much taller) of a box that ends its row (``beside``: the other boxes on
    it) after a line of words, a finished sentence when ``finished``; else None."""
    before = [o for o in beside if o.right <= box.left]
    if not before or any(o.left >= box.left for o in beside):
        return None
    last = max(before, key=lambda b: b.right)
    if len(last.text.strip()) < 4 or is_stray(last.text):  # it follows no line of words
        return None
    if finished and not ends_sentence(strip_ticks(last.text)):
        return None
    return box.left - last.right, box.height >= params.written_ratio * last.height


def _set_apart(gap: float, taller: bool, unit: float, params: BlockParams) -> bool:
    """``mark_gap`` line heights or more after the words, or ``written_gap`` and much taller."""
    return gap >= params.mark_gap * unit or (taller and gap >= params.written_gap * unit)


def written_after_the_end(box: TextBox, boxes: list[TextBox], size: tuple[int, int], params: BlockParams) -> bool:
    """A student's writing on a problem's row after its end: working (:func:`reads_as_working`)
    after its question mark, full stop or score note (「…的物质的量是多少？」 「所以n」,
    "…(10 marks)" "x2 = 3"), or anything that asks nothing
    after its full stop or closing bracket and on to the frame's right side (「…（π取3.14）」
    「圆的周长C」), where it would make the problem look cut."""
    before = [o for o in boxes if o is not box and o.left < box.left and same_row(o, box)]
    if not before or TOP_LEVEL.match(box.text):  # a problem's number: the next column's (「19、…a₁=」)
        return False
    last = strip_number(strip_ticks(max(before, key=lambda b: b.right).text)).strip()  # "" after a bare number
    if reads_as_working(box.text) and ends_sentence(last):
        return True
    at_right = "right" in sides_of(box, size, params.edge_margin)
    return at_right and ends_sentence(last) and not reads_as_question(box.text)


def answer_after_the_end(box: TextBox, boxes: list[TextBox], unit: float, params: BlockParams) -> bool:
    """A short answer written by hand on a problem's row after its end: a few words
    ("Children", 「练习」, "24" in the answer box printed at the row's end) that end the row,
    set ``answer_gap`` line heights or more after a finished sentence (up to
    ``answer_reach``), or ``written_gap`` after it and much taller than its line. Not a problem's or sub-question's number, option, score note or
    question, nor a line that ends a sentence: those are another column's."""
    text = box.text.strip()
    if not 0 < len(text) <= params.answer_chars or ends_sentence(text) or starts_problem(text, True) \
            or is_options(text) or SCORE.match(text) or reads_as_question(text):
        return False
    after = _after_words(box, [o for o in boxes if o is not box and same_row(o, box)], params, finished=True)
    if after is None or after[0] > params.answer_reach * unit:  # farther off: the next column's line
        return False
    return _set_apart(*after, unit, params) or after[0] >= params.answer_gap * unit


def same_row(a: TextBox, b: TextBox) -> bool:
    """The two boxes' centres are less than half the taller one's height apart. For level
    boxes, that is an overlap of more than half the shorter one: more than the sliver by
    which a tall box of large print reaches into the row above or below. Centres and
    heights, not the boxes' extents, so that a box still leaning a little after levelling
    does not reach into the next row."""
    return abs(a.centre_y - b.centre_y) < 0.5 * max(a.height, b.height)


def figure_beside(box: TextBox, boxes: list[TextBox], unit: float, params: BlockParams) -> bool:
    """A figure's label or a table's cell printed beside a problem's lines: one of two or
    more short pieces (:func:`is_label`) that end their row, set ``figure_gap`` line heights
    or more after a line of words (「…它」 "x 0 1 2")."""
    if not _labels(box):
        return False
    row = sorted((o for o in boxes if o is box or same_row(o, box)), key=lambda o: o.left)
    at = next(i for i, o in enumerate(row) if o is box)
    if not all(map(_labels, row[at:])):
        return False  # words after it: part of the line (「已知 x + 3 = 12，求 x。」)
    first = at
    while first > 0 and _labels(row[first - 1]):
        first -= 1
    if first == 0 or len(row) - first < 2:
        return False
    words = row[first - 1]
    return len(words.text.strip()) >= 4 and row[first].left - words.right >= params.figure_gap * unit


def _labels(box: TextBox) -> bool:
    return is_label(box.text) and not is_options(box.text)


def other_column_at_side(box: TextBox, boxes: list[TextBox], size: tuple[int, int], unit: float,
                         params: BlockParams) -> bool:
    """A box cut by the frame's left or right side, standing apart from the text on its
    row: the neighbouring column's remnant (the whole of a row at the side is kept). A box
    across the frame's middle is of the column framed, though it touches the side (a page
    whose columns are both cut, the other's remnant at the far side)."""
    if box.left <= size[0] / 2 <= box.right:
        return False
    right = box.right
    side = _side_column(box, boxes, size, unit, params)
    if side is None:
        return False
    at_left = side == "left"
    # a teacher's score written between the columns ("-1") is neither's text
    row = [o for o in boxes if o is not box and same_row(o, box) and not is_stray(o.text)]
    if not row:  # alone on its row: compare with the rows around it, leaving out other remnants at this side
        row = [o for o in boxes if o is not box and abs(o.centre_y - box.centre_y) < params.side_reach * unit
               and side not in sides_of(o, size, params.edge_margin) and not is_stray(o.text)]
    if not row:
        return False
    gaps = [(o.left - right) if at_left else (box.left - o.right) for o in row]
    gap, nearest = min(zip(gaps, row), key=lambda pair: pair[0])
    if at_left and TOP_LEVEL.match(nearest.text) and gap >= params.side_gap_before_number * unit:
        return True  # a problem number starts the line: what stands before it is another column's
    if at_left and gap >= params.side_gap_before_number * unit and _before_margin(box, boxes, size, unit, params):
        return True  # it ends before the left margin of the column beside it
    return gap >= params.side_gap * unit


def _before_margin(box: TextBox, boxes: list[TextBox], size: tuple[int, int], unit: float,
                   params: BlockParams) -> bool:
    """Words cut by the frame's left side that end before the left margin of the lines
    above and below them (those within ``side_reach`` line heights, clear of the side)."""
    if box.right - box.left < params.side_words * unit or TOP_LEVEL.match(box.text):
        return False
    near = [o for o in boxes if o is not box and not same_row(o, box)
            and "left" not in sides_of(o, size, params.edge_margin)
            and abs(o.centre_y - box.centre_y) < params.side_reach * unit]
    return bool(near) and all(o.left >= box.right for o in near)


def _side_column(box: TextBox, boxes: list[TextBox], size: tuple[int, int], unit: float,
                 params: BlockParams) -> str | None:
    """The frame's side ("left", "right") whose column the box is a line of: it touches the
    side, or starts within ``side_inset`` line heights of it below or above a line that does
    (a cut column's line that begins a character in)."""
    sides = sides_of(box, size, params.edge_margin)
    for side in ("left", "right"):
        if side in sides:
            return side
    for side, inset in (("left", box.left), ("right", size[0] - box.right)):
        if inset <= params.side_inset * unit and any(
                side in sides_of(o, size, params.edge_margin) and abs(o.centre_y - box.centre_y) < params.side_reach * unit
                for o in boxes if o is not box):
            return side
    return None


def xy_cut(boxes: list[TextBox], unit: float, params: BlockParams,
           gutters: tuple[tuple[float, float], ...] = ()) -> list[list[TextBox]]:
    """Regions in reading order: split across wide empty bands, then down empty gutters (a
    band's own, or else the page's ``gutters``: a band with one row per column has none of
    its own that can be told from a wide space in a line)."""
    bands = split_spans(boxes, lambda b: (b.top, b.bottom), params.problem_gap * unit)
    if len(bands) > 1:
        return [region for band in bands for region in xy_cut(band, unit, params, gutters)]
    columns = split_columns(boxes, unit, params, 2)
    if columns:
        return [region for column in columns for region in xy_cut(column, unit, params, gutters)]
    across, columns = split_at_gutters(boxes, gutters)
    if len(columns) > 1:
        return ([across] if across else []) + [region for column in columns
                                                for region in xy_cut(column, unit, params)]
    return [boxes]


def page_gutters(boxes: list[TextBox], unit: float, params: BlockParams) -> Gutters:
    """The empty gutters (x from, x to) that run down the whole page between columns of
    ``column_rows`` rows or more, leaving out up to ``spanning_rows`` rows at the top and
    one at the bottom that may run across them (a title or a paragraph of reading, a footer). A gutter narrower
    than ``gutter`` counts only between columns of ``narrow_rows`` rows or more, and one
    narrower than ``page_gutter`` not where every row on both sides reaches it: lines each
    found in two pieces at the same place are no columns. A cross the detector ran a box
    on over does not close a gutter (:func:`without_ticks`), and score notes set at the
    right are no column (:func:`split_columns`). Where leaving out more of the rows at the
    top shows more gutters (a name line across the second of three columns), or leaving
    out the page's headings does (「四、选择题（本大题共5小题）」 midway down, wider than its
    column: :func:`_heading`), those count."""
    rows = group_rows([without_ticks(b) for b in boxes])
    found = _page_gutters(rows, unit, params)
    # headings below the rows at the top (those are left out anyway)
    if any(is_heading(b.text) for row in rows[params.spanning_rows:] for b in row):
        without = _page_gutters([[b for b in row if not is_heading(b.text)] for row in rows], unit, params)
        found = without if len(without) > len(found) else found
    return found


def _page_gutters(rows: list[list[TextBox]], unit: float, params: BlockParams) -> Gutters:
    """The most gutters found under the fewest top rows left out: from the first number of
    top rows that shows gutters, one row more at a time while that shows more."""
    rows = [row for row in rows if row]
    found: Gutters = ()
    for top in range(params.spanning_rows + 1):
        gutters = _gutters(rows[top:], unit, params) or _gutters(rows[top:-1], unit, params)
        if found and len(gutters) <= len(found):
            break
        found = gutters if len(gutters) > len(found) else found
    return found or _overlapping_gutter(rows, unit, params)


def _overlapping_gutter(rows: list[list[TextBox]], unit: float, params: BlockParams) -> Gutters:
    """Two columns with no empty gutter between their boxes (a narrow one, under the margins
    the detector leaves round the ink): ``parted_rows`` rows parted there into words on
    either side, and not every row reaching it (:func:`_flush`: lines found in two pieces).
    The gutter is (the left column's right end, the right one's left start)."""
    columns = split_columns([b for row in rows for b in row], unit, params, params.narrow_rows, -params.overlap_gutter)
    if columns is None or len(columns) != 2 or _flush(*columns, params.gutter * unit) \
            or not all(statistics.median(len(b.text.replace(" ", "")) for b in c) >= 5 for c in columns):
        return ()
    left = {id(b) for b in columns[0]}
    parted = sum(any(id(b) in left for b in row) and not all(id(b) in left for b in row) for row in rows)
    return ((max(b.right for b in columns[0]), min(b.left for b in columns[1])),) if parted >= params.parted_rows else ()


def _gutters(rows: list[list[TextBox]], unit: float, params: BlockParams) -> Gutters:
    rest = [b for row in rows for b in row]
    columns = split_columns(rest, unit, params, params.column_rows, params.flush_gutter)
    pairs = list(zip(columns or [], (columns or [])[1:]))
    if any(_gap(a, c) < params.gutter * unit for a, c in pairs) \
            and (any(len(group_rows(c)) < params.narrow_rows for c in columns or [])
                 or any(_gap(a, c) < params.page_gutter * unit and _flush(a, c, params.gutter * unit) for a, c in pairs)):
        columns = split_columns(rest, unit, params, params.column_rows)
    return tuple((max(b.right for b in a), min(b.left for b in c)) for a, c in zip(columns or [], (columns or [])[1:]))


def without_ticks(box: TextBox) -> TextBox:
    """A score note or mark without a tick or cross the detector ran its box on over
    (「(6分)X」), with that share of its width: a mark beside a score note may reach into
    the gutter. A line of words keeps its box."""
    text = strip_ticks(box.text)
    if text == box.text or not text or not is_annotation(text):
        return box
    left, right = box.left, box.right
    cut = (right - left) * (1 - len(text) / len(box.text))
    quad = box.quad.copy()
    if box.text.endswith(text):
        quad[:, 0] = np.maximum(quad[:, 0], left + cut)
    else:
        quad[:, 0] = np.minimum(quad[:, 0], right - cut)
    return replace(box, text=text, quad=quad)


def _gap(left: list[TextBox], right: list[TextBox]) -> float:
    return min(b.left for b in right) - max(b.right for b in left)


def _flush(left: list[TextBox], right: list[TextBox], reach: float) -> bool:
    """Every row on either side of a narrow gap comes within ``reach`` of it: lines each
    found in two pieces at the same place, where columns have lines of their own lengths."""
    start, end = max(b.right for b in left), min(b.left for b in right)
    return all(start - max(b.right for b in row) < reach for row in group_rows(left)) \
        and all(min(b.left for b in row) - end < reach for row in group_rows(right))


def parted_at_gutter(box: TextBox, gutters: Gutters) -> list[TextBox]:
    """A box the detector ran across a gutter over two columns' lines, parted at the gutter
    where a problem's label starts there (:func:`label_near`); else the box."""
    for start, end in (sorted(gutter) for gutter in gutters):  # (from, to), or (to, from) where boxes overlap it
        if not (box.left < start and box.right > end):
            continue
        cut = label_near(box.text, ((start + end) / 2 - box.left) / (box.right - box.left))
        if cut:
            left, right = box.quad.copy(), box.quad.copy()
            left[:, 0], right[:, 0] = np.minimum(left[:, 0], start), np.maximum(right[:, 0], end)
            sides = (None, None) if box.sides is None else (box.sides - {"right"}, box.sides - {"left"})
            return [replace(box, text=box.text[:cut].rstrip(), quad=left, sides=sides[0]),
                    replace(box, text=box.text[cut:], quad=right, sides=sides[1])]
    return [box]


def parted_at_margin(box: TextBox, boxes: list[TextBox], size: tuple[int, int], unit: float,
                     params: BlockParams) -> list[TextBox]:
    """A box cut by the frame's left side that runs on into a problem's label where the
    column below or above it starts (「通过它的电流　12.一个直角三角形…」): the detector joined
    the other column's remnant to the problem's first line. The remnant is left out."""
    if "left" not in sides_of(box, size, params.edge_margin) or box.right <= box.left:
        return [box]
    near = [o for o in boxes if o is not box and box.left + unit <= o.left < box.right and "left" not in sides_of(o, size, params.edge_margin)
            and 0 < abs(o.centre_y - box.centre_y) <= params.margin_reach * unit]
    if not near:
        return [box]
    margin = min(near, key=lambda o: abs(o.centre_y - box.centre_y)).left
    cut = label_near(box.text, (margin - box.left) / (box.right - box.left), reach=1.0)
    if cut is None or not TOP_LEVEL.match(box.text[cut:]):
        return [box]
    quad = box.quad.copy()
    quad[:, 0] = np.maximum(quad[:, 0], margin)
    return [replace(box, text=box.text[cut:], quad=quad, sides=sides_of(box, size, params.edge_margin) - {"left"})]


def split_at_gutters(boxes: list[TextBox], gutters: tuple[tuple[float, float], ...]
                     ) -> tuple[list[TextBox], list[list[TextBox]]]:
    """(boxes running across a gutter, the other boxes split at the gutters, left to right)."""
    across: list[TextBox] = []
    columns: list[list[TextBox]] = [[] for _ in range(len(gutters) + 1)]
    for box in boxes:
        trimmed = without_ticks(box)
        if any(trimmed.left < end and trimmed.right > start for start, end in gutters):
            across.append(box)
        else:
            columns[sum(box.left >= end for _, end in gutters)].append(box)
    return across, [c for c in columns if c]


def split_columns(boxes: list[TextBox], unit: float, params: BlockParams, rows: int,
                  gutter: float | None = None) -> list[list[TextBox]] | None:
    """The boxes split down empty gutters into columns of ``rows`` rows or more each (rows
    with words: not only score notes, answer brackets, marks); None if not. Marks and
    scores set apart from the text (a teacher's "+5" in the margin) are no column: they go
    with the nearer one."""
    width = params.gutter if gutter is None else gutter
    spans = blank_filled_spans(boxes, params.blank_reach * unit) if any(BLANK in b.text for b in boxes) else None
    columns = with_annotations_joined(split_spans(boxes, (lambda b: spans[id(b)]) if spans else (lambda b: (b.left, b.right)), width * unit))
    return columns if len(columns) > 1 and all(_word_rows(c) >= rows for c in columns) else None


def blank_filled_spans(boxes: list[TextBox], reach: float) -> dict[int, tuple[float, float]]:
    """Each box's span across the page, reaching the next box of its row up to ``reach``
    away where the blank drawn between them was read (:data:`BLANK` at the end of one or
    the start of the other): the line goes on over the blank ("…or \"an\": ____" ␣
    "university"), no gutter. Farther, or before a number, it is a gutter after a blank."""
    spans = {id(b): (b.left, b.right) for b in boxes}
    for box in boxes:
        if box.text.rstrip().endswith(BLANK):
            after = min((o for o in boxes if o.left >= box.right and same_row(box, o)), key=lambda o: o.left, default=None)
            pair = (box, after)
        elif box.text.lstrip().startswith(BLANK):
            pair = (max((o for o in boxes if o.right <= box.left and same_row(box, o)), key=lambda o: o.right, default=None), box)
        else:
            continue
        before, after = pair
        if before is not None and after is not None and after.left - before.right <= reach and not TOP_LEVEL.match(after.text):
            spans[id(before)] = (before.left, after.left)
    return spans


def with_annotations_joined(columns: list[list[TextBox]]) -> list[list[TextBox]]:
    """Columns (left to right) with each one of annotations alone joined to the nearer
    column beside it, and so is one of the last answer options of rows to its left
    ("A、16 B、3 C、14" … "D、13" set far right: :func:`_last_options`)."""
    joined = [list(c) for c in columns]
    for i in range(len(joined) - 1, -1, -1):
        if len(joined) == 1 or (_word_rows(joined[i]) > 0 and not (i and _last_options(joined[i], joined[i - 1]))):
            continue
        gaps = [(_gap(joined[j], joined[i]) if j < i else _gap(joined[i], joined[j]), j)
                for j in (i - 1, i + 1) if 0 <= j < len(joined)]
        nearest = min(gaps)[1]
        joined[nearest].extend(joined.pop(i))
    return joined


def _last_options(column: list[TextBox], left: list[TextBox]) -> bool:
    """Every box of the column whose text is known (some, on a page read in part) is an
    answer option on a row whose part to the left holds options too: the options of
    problems spread across the page, no column of its own."""
    known = [b for b in column if b.text.strip()]
    return bool(known) and all(is_options(b.text) and any(same_row(b, o) and is_options(o.text) for o in left)
                               for b in known)


def _word_rows(column: list[TextBox]) -> int:
    """Rows with words: score notes set at the right, answer brackets and marks are no
    column, nor is a box of one glyph not yet read (a page planned from its boxes alone:
    a star or a tick in the margin), nor problem numbers set apart from their lines (「7、」
    a space before 「写出…」; a number in brackets may be a marks column's "[5]")."""
    return len(group_rows([b for b in column if not is_annotation(b.text) and not _one_glyph_unread(b)
                           and not is_bare_number(b.text)]))


def _one_glyph_unread(box: TextBox) -> bool:
    """A box whose text is not known, no wider than one glyph of its height."""
    return not box.text.strip() and box.right - box.left <= box.height


def split_spans(boxes: list[TextBox], span, gap: float) -> list[list[TextBox]]:
    """Groups of boxes whose spans (along one axis) are separated by more than ``gap``."""
    ordered = sorted(boxes, key=lambda b: span(b)[0])
    groups: list[list[TextBox]] = []
    end = None
    for box in ordered:
        start, stop = span(box)
        if end is None or start - end > gap:
            groups.append([box])
            end = stop
        else:
            groups[-1].append(box)
            end = max(end, stop)
    return groups


def split_region(rows: list[Row], sub_questions_start: bool, led_in: bool = False,
                 lead_in_above: bool = False) -> list[Block]:
    """``led_in``: the region starts below a lead-in (「解答下列各题。」, :func:`under_lead_in`),
    whose parts, "(1)" or "a)", are problems of their own; ``lead_in_above``: right below it."""
    blocks: list[list[Row]] = []
    kinds: list[tuple[bool, bool]] = []  # (header, numbered)
    part = 0  # the problem's last sub-question number so far (0: none)
    ringed = 0  # the number of the problem above when its run of numbers began with ① (:func:`ringed_number`)
    goes_on_lead_in = False  # the row above is a lead-in's first row, this its last
    for i, row in enumerate(rows):
        if goes_on_lead_in:  # "following." under "2. Use what you have learnt to answer the"
            blocks[-1].append(row)
            goes_on_lead_in = False
            continue
        sub = next_part(row.text, part, [r.text for r in blocks[-1]]) if sub_questions_start and blocks and not kinds[-1][0] else 0
        if not sub and blocks and kinds[-1][1] and not (led_in and not part and asks(blocks[-1])):
            # (under a lead-in, "1)" after a problem that asks is the next problem, not its first part)
            sub = next_own_style_part(row.text, part, blocks[-1][0].text)
        if not sub and blocks and not kinds[-1][0]:
            sub = ringed_part(row.text, [r.text for r in blocks[-1]])
        after_ring = bool(ringed) and not sub and bracketed_number(row.text) == ringed + 1
        # A line that goes on with the sentence above ("6). (3 marks)" under 「…and (3,」)
        # starts no problem, and is no header though its words look like a number alone.
        wrapped = bool(blocks) and (continues_bracket(blocks[-1][-1].text, row.text)
                                    or continues_quantity(blocks[-1][-1].text, row.text)
                                    or not kinds[-1][0] and gives_after_colon(blocks[-1][-1].text, row.text))
        numbered = not sub and not wrapped and (after_ring or starts_problem(row.text, sub_questions_start) or row.label > 0
                                                or led_in and PART.match(row.text) is not None)
        # Nor is a line that goes on with an English sentence broken after "into" or "the" a
        # header ("Translate into" ⏎ "Chinese: Practice", words of a sheet's title).
        broken = bool(blocks) and not kinds[-1][0] and ends_mid_sentence(blocks[-1][-1].text)
        # a lead-in wrapped onto the next row ("…to answer the" ⏎ "following.")
        goes_on_lead_in = i + 1 < len(rows) and wraps_lead_in(row.text, rows[i + 1].text)
        header = not wrapped and not broken and (starts_answer(row.text) or is_header(row.text) or goes_on_lead_in
                                                 or is_hint_title(row.text)
                                                 or bool(blocks and is_label_after(blocks[-1][-1].text, row.text))
                                                 or not blocks and heads_problem(row, rows[i + 1:i + 2]))
        if blocks and kinds[-1][0] and closes_heading(blocks[-1][-1].text, row.text):
            blocks[-1].append(row)  # the heading's note, wrapped
            led_in = led_in or label_over_parts(blocks[-1][0].text, [r.text for r in rows[i + 1:i + 2]])
            continue
        if blocks and kinds[-1][0] and not header and not numbered and _in_hint_box(blocks[-1], row):
            blocks[-1].append(row)  # a hint box's text under its title: no problem
        elif blocks and not kinds[-1][0] and is_score_only(row.text):
            blocks[-1].append(row)  # the problem's score note, wrapped onto a line of its own
        elif blocks and not header and not numbered and len(blocks[-1]) == 1 and is_bare_label(blocks[-1][0].text, sub_questions_start):
            blocks[-1].append(row)  # the number stood on a line of its own: this is its problem
            kinds[-1] = (False, True)
        elif not blocks or header or numbered or kinds[-1][0]:
            blocks.append([row])
            # the first line under a lead-in starts its part though no number stands before it
            right_below = kinds[-1][0] if kinds else lead_in_above
            kinds.append((header, (numbered or led_in and right_below) and not header))
        else:
            blocks[-1].append(row)
        part = sub or (0 if numbered or header else part)
        if numbered or header:
            ringed = ringed + 1 if after_ring else ringed_number(row.text) if numbered else 0
            led_in = (is_lead_in(row.text) or goes_on_lead_in or header and label_over_parts(row.text, [r.text for r in rows[i + 1:i + 2]])
                      or led_in and not TOP_LEVEL.match(row.text) and not is_header(row.text))
    return [Block(tuple(b), h, n, touches_edge(b)) for b, (h, n) in zip(blocks, kinds)]


#: A hint box's line is at most this many times its height below the line above it; a
#: problem printed after the box stands further off.
HINT_PITCH = 2.2
#: ...and its next lines at most this many times the pitch of the two lines above.
HINT_LINES = 1.25


def _in_hint_box(block: list[Row], row: Row) -> bool:
    """``row`` goes on with the hint box ``block`` opens with its title (:func:`is_hint_title`):
    with no label of its own, close below the title, and its next lines at the box's own
    line pitch (a problem after the box stands further off)."""
    above = block[-1]
    if not is_hint_title(block[0].text) or NUMBER.match(row.text) is not None:
        return False
    if len(block) == 1:
        return _pitch(above, row) <= HINT_PITCH * min(above.height, row.height)
    return _pitch(above, row) <= HINT_LINES * _pitch(block[-2], above)


def asks(rows: list[Row]) -> bool:
    """The rows ask something (:func:`reads_as_question`): no stem of givens only."""
    return reads_as_question(strip_number(" ".join(r.text for r in rows)))


def heads_problem(row: Row, below: list[Row]) -> bool:
    """A workbook's section label (「综合运用」) over the problem that starts a region: no
    half as wide as the line below it, which asks."""
    return bool(below) and is_section_label(row.text) and reads_as_question(below[0].text) \
        and row.right - row.left <= 0.5 * (below[0].right - below[0].left)


def under_lead_in(blocks: list[Block]) -> bool:
    """What follows ``blocks`` is below a lead-in: the last header is one (also wrapped onto
    two rows), or a label with no stem over its parts (:func:`label_over_parts`), and only
    its parts ("(1)", ①, "a)") came after it, no problem numbered otherwise."""
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.header:
            return is_lead_in(block.rows[0].text) or len(block.rows) > 1 and is_lead_in(block.text) \
                or label_over_parts(block.rows[0].text, [b.rows[0].text for b in blocks[i + 1:i + 2]])
        if block.numbered and not starts_part(block.rows[0].text):
            return False
    return False


def continues(previous: Block, block: Block, unit: float, params: BlockParams) -> bool:
    """An unnumbered, non-header block right below a numbered problem, in the same column."""
    if block.header or block.numbered or previous.header or not previous.numbered:
        return False
    if is_label_after(previous.rows[-1].text, block.rows[0].text):
        return False
    px0, _, px1, py1 = previous.bounds
    bx0, by0, bx1, _ = block.bounds
    overlap = min(px1, bx1) - max(px0, bx0)
    return overlap > 0 and 0 <= by0 - py1 <= params.continuation_gap * unit


def touches_edge(rows: list[Row]) -> bool:
    return any(r.sides and not _whole_before_edge(r) for r in rows)


def _whole_before_edge(row: Row) -> bool:
    """A row that runs to the frame's right side only with writing after its problem's end
    (「…求A∩B。由既属于A又」, the student's working in the box of the print): the problem
    itself ends in the frame; or only with a score note cut off (「…的阻值。(3」, a marks
    column's 「(2分」)."""
    kept = without_working(row.text)
    return row.sides == {"right"} and ((kept != row.text and ends_sentence(kept))
                                       or cut_score_note(row.text, row.pieces[-1] if row.pieces else row.text) is not None)
