"""Character error rate: edit distance over characters after NFKC, whitespace ignored.

NFKC folds full-width forms and sub/superscripts (H₂O == H2O, ：== :, x² == x2), so
the rate counts misread characters, not typography. A blank to fill in counts as one
token whatever its length: any run of two or more underscores is ``____`` on both sides
(the OCR step writes every blank, printed as underscores or as a drawn line, that way).
"""

from __future__ import annotations

import re
import unicodedata

_BLANK = re.compile(r"_{2,}")


def normalise(text: str) -> str:
    return _BLANK.sub("____", "".join(unicodedata.normalize("NFKC", text).split()))


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions each cost 1)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edits, reference length) after normalisation: summed over a set for its overall CER."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    return edit_distance(ref, hyp), len(ref)


def cer(reference: str, hypothesis: str) -> float:
    """Edits per reference character; an empty reference gives 0 (nothing to read) or 1."""
    edits, length = errors(reference, hypothesis)
    if length == 0:
        return 0.0 if not normalise(hypothesis) else 1.0
    return edits / length
