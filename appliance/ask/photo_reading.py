"""A photo's text read as a bank question: what a camera and a recogniser confuse.

A line read from a photo differs from the printed question in ways that carry no
meaning: a raised or lowered digit read level (10³ → 103, log₂8 → log28, aₙ → an), O read
as 0 (and a Chinese question's closing 。 too: 「S₁₀。」 → S100), I as l or 1 and N as the Roman numeral Ⅳ, spaces and full- or half-width punctuation, × read as x, and the
problem's number or a circled mark left before it (⑧, "6 "). The verifier rightly takes
a new number for another problem, so such a reading abstains although the student
photographed the bank's own question. :func:`reads_as` tells that case: the two texts are
the same once those differences are folded away, and nothing else differs, so a
different number, word or sign is never folded into a match.

The recogniser also says which characters it nearly read as another (its look-alikes:
游 for 语, q for g). A reading that differs from the printed question only there, at a
few characters, reads as it too, unless the character is a digit or a letter standing
alone (a variable: 「与 y 轴」 is not 「与 x 轴」). So does one that lacks a letter of a word or
index the recogniser nearly read where it read none (the lowered n of 「{aₙ}」 read 「{a}」).

A reading further off (a blurred line: 「Transtate into Cinese: Nractice makes paniect.」)
may still be the printed question as the recogniser *saw* it: :func:`supported_by` weighs
the question against the classes the recogniser gave each output step of the chosen
problem's lines (``OcrResult.evidence``). The question is supported when its characters
can be laid along those steps in order (a CTC alignment: each character on one or more
steps, blanks between) so that every step's class got at least a share of that step's
best class. A digit the recogniser read plainly as another is never supported.
"""

from __future__ import annotations

import math
import re
import unicodedata
from difflib import SequenceMatcher

import numpy as np

# Characters a recogniser confuses, each folded to one of its set; Greek capitals drawn as
# Latin ones (「10 Ν」 with a Greek Nu) as those.
_CONFUSED = str.maketrans({"O": "0", "o": "0", "〇": "0", "I": "1", "l": "1", "|": "1", "×": "x", "X": "x",
                           "。": ".", "·": ".", "—": "-", "－": "-", "−": "-",
                           **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZH1KMN0PTYx"))})
# A problem number or a mark left before the question: one or two digits, a circled
# number (NFKC reads ⑧ as 8), a tick or cross.
_LEADING = re.compile(r"^(?:\d{1,2}|[√✓✔x])[.)]?")


# Read before NFKC, which would spell them out: the Roman numeral Ⅳ for a serif N ("10 Ⅳ").
_CONFUSED_SIGNS = str.maketrans({"Ⅳ": "N"})


def camera_form(text: str) -> str:
    """The text with what a photo cannot tell apart folded away: NFKC (raised and lowered
    digits level, full-width forms half-width), no spaces, the confusable characters as
    one."""
    return level_form(text).translate(_CONFUSED)


def level_form(text: str) -> str:
    """NFKC without spaces: :func:`camera_form` before its confusable characters are
    folded (the same length, character for character)."""
    return "".join(unicodedata.normalize("NFKC", text.translate(_CONFUSED_SIGNS)).split())


# A question that ends its sentence (a question mark, a full stop): what follows it is not
# its own text.
_ENDS_SENTENCE = re.compile(r"[?？。.!！]\s*$")


def starts_as(read: str, questions: list[str]) -> str | None:
    """The one question of ``questions`` that the reading begins with, whole, perhaps after
    its problem number, and ending its sentence, followed by writing that asks nothing and
    gives no data in brackets: a student's answer or working on the printed problem's last
    line (「辛亥革命爆发于哪一年？1½2」, "…(3, 6). The slope is 2."). None when none or
    more than one does."""
    seen = camera_form(read)
    found = {q for q in dict.fromkeys(questions) if _ENDS_SENTENCE.search(q) and _starts(seen, camera_form(q))}
    return next(iter(found)) if len(found) == 1 else None


def _starts(seen: str, printed: str) -> bool:
    at = seen.find(printed) if printed else -1
    if at < 0 or at > 3 or (at and not _LEADING.fullmatch(seen[:at])):
        return False
    rest = seen[at + len(printed):]
    return 0 < len(rest) <= len(printed) and "?" not in rest and rest[0] not in "(（[【"


# At most this many characters may differ by a look-alike.
LOOK_ALIKES_MOST = 2


def reads_as(read: str, question: str, look_alikes: tuple[tuple[str, str], ...] = ()) -> bool:
    """``read`` (a photo's text) is ``question`` as a camera reads it, perhaps with its
    problem number or a mark still before it. ``look_alikes``: (read, runner-up)
    characters the recogniser nearly read otherwise (``OcrResult.look_alikes``)."""
    seen, level = camera_form(read), level_form(question)
    printed = level.translate(_CONFUSED)
    if not printed:
        return False
    forms = [printed] + ([printed[:-1] + "0"] if question.rstrip().endswith("。") else [])  # 「S₁₀。」 read as S100
    extra = len(seen) - len(printed)
    if 0 < extra <= 3 and _LEADING.fullmatch(seen[:extra]):
        seen = seen[extra:]  # the problem's number or a mark before it
    pairs = {folded for pair in look_alikes if (folded := _folded_pair(pair))}
    return any(_differs_by_look_alikes(seen, form, level, pairs) for form in forms)


def _folded_pair(pair: tuple[str, str]) -> tuple[str, str] | None:
    read, other = (camera_form(ch) for ch in pair)
    return (read, other) if len(read) <= 1 and len(other) == 1 and read != other else None


def _differs_by_look_alikes(seen: str, printed: str, level: str, pairs: set[tuple[str, str]]) -> bool:
    """``seen`` is ``printed`` but for a few look-alikes: a character read as its look-alike,
    or a letter of a word or index the recogniser nearly read where it read none ("", c)
    (``level``: the printed text's :func:`level_form`, which tells a letter from a digit)."""
    if seen == printed:
        return True
    if not pairs:
        return False
    edits = 0
    for op, i1, i2, j1, j2 in SequenceMatcher(None, seen, printed, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            alike = all((seen[i], printed[j]) in pairs and not seen[i].isdigit() and not _carries_meaning(level, j)
                        for i, j in zip(range(i1, i2), range(j1, j2)))
        elif op == "insert":
            alike = all(("", printed[j]) in pairs and level[j].isascii() and level[j].isalpha()
                        and not _carries_meaning(level, j) for j in range(j1, j2))
        else:
            return False
        if not alike:
            return False
        edits += j2 - j1
    return edits <= LOOK_ALIKES_MOST


def _carries_meaning(text: str, i: int) -> bool:
    """A digit, or a Latin letter alone (a variable or an option), is never a look-alike."""
    ch = text[i]
    if ch.isdigit():
        return True
    alone = not any(0 <= j < len(text) and text[j].isascii() and text[j].isalpha() for j in (i - 1, i + 1))
    return ch.isascii() and ch.isalpha() and alone


# A step's class counts only when it got at least this share of the step's best class
# (e^-5, about 0.7 %); a class the recogniser did not keep counts with ``UNKEPT``.
SUPPORT_LEAST = math.exp(-5.0)
UNKEPT = 1e-4
# ...and the alignment's steps together may fall short of the best classes by at most this
# much (the sum of the natural logs of those shares).
SHORTFALL_MOST = 12.0
_NOT = -math.inf
# Only candidates with at least this share of their characters in common with the reading are weighed.
ROUGHLY_ALIKE = 0.5


def seen_as(evidence, read: str, questions: list[str]) -> str | None:
    """The one question of ``questions`` (the search's candidates) that the recogniser's
    steps support (:func:`supported_by`); None when none or more than one is."""
    steps = _steps(evidence, read)  # the same steps for every candidate
    found = {camera_form(q): q for q in dict.fromkeys(questions)
             if SequenceMatcher(None, camera_form(read), camera_form(q)).quick_ratio() >= ROUGHLY_ALIKE
             and _supported(steps, q)}
    return next(iter(found.values())) if len(found) == 1 else None


def supported_by(evidence, read: str, question: str) -> bool:
    """``question`` can be read along the recogniser's steps (``evidence``:
    ``OcrResult.evidence``, the chosen problem's boxes in reading order) that gave ``read``
    (``OcrResult.text``). Only the steps of ``read``'s own characters count: a problem
    number or score note before or after it is left out, as the reading left it out."""
    return _supported(_steps(evidence, read), question)


def _supported(steps: list[tuple[float, dict[str, float], float]], question: str) -> bool:
    chars = [c for c in map(_folded, question) if c]
    if not chars or len(steps) < len(chars):
        return False
    return _shortfall(steps, chars) <= SHORTFALL_MOST


def _folded(ch: str) -> str:
    """A character as :func:`camera_form` folds it; "" for a space or a blank's underline."""
    folded = camera_form(ch)
    return "" if folded in ("", "_") else folded if len(folded) == 1 else ch


def _steps(evidence, read: str) -> list[tuple[float, dict[str, float], float]]:
    """(blank's probability, each character's, the best class's) of each step from the
    first to the last of ``read``'s own characters."""
    steps, seen, at = [], [], []
    for line in evidence:
        for ch, step in zip(line.text, line.steps):
            if folded := _folded(ch):
                seen.append(folded)
                at.append(len(steps) + step)
        for odds in line.odds:
            classes: dict[str, float] = {}
            for ch, p in odds:
                classes[_folded(ch)] = classes.get(_folded(ch), 0.0) + p
            blank = classes.pop("", 0.0)
            steps.append((blank, classes, max([blank, *classes.values()])))
    kept = [c for c in map(_folded, read) if c]
    ops = SequenceMatcher(None, seen, kept, autojunk=False).get_opcodes()
    if not kept or not any(op == "equal" for op, *_ in ops):
        return []
    # characters read and left out before or after the problem (its number, a score note)
    first = ops[0][2] if ops[0][0] == "delete" else 0
    end = ops[-1][1] if ops[-1][0] == "delete" else len(seen)
    return steps[at[first - 1] + 1 if first else 0:at[end] if end < len(at) else len(steps)]


def _shortfall(steps: list[tuple[float, dict[str, float], float]], chars: list[str]) -> float:
    """How far the best CTC alignment of ``chars`` over ``steps`` falls short of each
    step's best class (the sum of log shares; inf when no alignment keeps every share at
    ``SUPPORT_LEAST``). States: a blank before each character, the character, a last blank."""
    least = math.log(SUPPORT_LEAST)
    states = 2 * len(chars) + 1
    may_skip = np.zeros(states, bool)  # from the character two states back, over the blank
    may_skip[3::2] = [a != b for a, b in zip(chars[1:], chars)]
    where: dict[str, list[int]] = {}
    for i, c in enumerate(chars):
        where.setdefault(c, []).append(2 * i + 1)
    score = np.full(states, _NOT)
    score[0] = 0.0  # before the first step: the first state, or the first character, comes next
    for blank, classes, best in steps:
        share = np.full(states, math.log(UNKEPT / best))
        share[0::2] = math.log(max(blank, UNKEPT) / best)
        for c, p in classes.items():
            share[where.get(c, [])] = math.log(max(p, UNKEPT) / best)
        share[share < least] = _NOT
        came = np.maximum(score, np.concatenate(([_NOT], score[:-1])))
        came = np.maximum(came, np.where(may_skip, np.concatenate(([_NOT, _NOT], score[:-2])), _NOT))
        score = came + share
    return -max(score[-1], score[-2])
