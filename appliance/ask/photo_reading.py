"""A photo's text read as a bank question: what a camera and a recogniser confuse.

A line read from a photo differs from the printed question in ways that carry no
meaning: a raised or lowered digit read level (10³ → 103, log₂8 → log28, aₙ → an), O read
as 0 (and a Chinese question's closing 。 too: 「S₁₀。」 → S100), I as l or 1 and N as the Roman numeral Ⅳ, spaces and full- or half-width punctuation, × read as x, and the
problem's number or a circled mark left before it (⑧, "6 "). The verifier rightly takes
a new number for another problem, so such a reading abstains although the student
photographed the bank's own question. :func:`reads_as` tells that case: the two texts are
the same once those differences are folded away, and nothing else differs, so a
different number, word or sign is never folded into a match.
"""

from __future__ import annotations

import re
import unicodedata

# Characters a recogniser confuses, each folded to one of its set.
_CONFUSED = str.maketrans({"O": "0", "o": "0", "〇": "0", "I": "1", "l": "1", "|": "1", "×": "x", "X": "x",
                           "。": ".", "·": ".", "—": "-", "－": "-", "−": "-"})
# A problem number or a mark left before the question: one or two digits, a circled
# number (NFKC reads ⑧ as 8), a tick or cross.
_LEADING = re.compile(r"^(?:\d{1,2}|[√✓✔x])[.)]?")


# Read before NFKC, which would spell them out: the Roman numeral Ⅳ for a serif N ("10 Ⅳ").
_CONFUSED_SIGNS = str.maketrans({"Ⅳ": "N"})


def camera_form(text: str) -> str:
    """The text with what a photo cannot tell apart folded away: NFKC (raised and lowered
    digits level, full-width forms half-width), no spaces, the confusable characters as
    one."""
    return "".join(unicodedata.normalize("NFKC", text.translate(_CONFUSED_SIGNS)).split()).translate(_CONFUSED)


def reads_as(read: str, question: str) -> bool:
    """``read`` (a photo's text) is ``question`` as a camera reads it, perhaps with its
    problem number or a mark still before it."""
    seen, printed = camera_form(read), camera_form(question)
    if not printed:
        return False
    if seen == printed or (question.rstrip().endswith("。") and seen == printed[:-1] + "0"):
        return True  # a Chinese question's closing 。 read as a zero (「S₁₀。」 as S100)
    extra = len(seen) - len(printed)
    return 0 < extra <= 3 and seen.endswith(printed) and _LEADING.fullmatch(seen[:extra]) is not None
