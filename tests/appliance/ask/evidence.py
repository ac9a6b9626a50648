"""What a recogniser saw, made by hand for the tests of photo reading."""

from appliance.ocr.result import LineEvidence


def seen(*steps) -> LineEvidence:
    """A box as the recogniser saw it, step by step: a character (or "" for the blank) it
    was sure of, or {class: probability} where it doubted."""
    odds, text, at, before = [], "", [], ""
    for t, step in enumerate(steps):
        pairs = tuple(sorted((step if isinstance(step, dict) else {step: 1.0}).items(), key=lambda kv: -kv[1]))
        odds.append(pairs)
        if pairs[0][0] and pairs[0][0] != before:
            text, at = text + pairs[0][0], at + [t]
        before = pairs[0][0]
    return LineEvidence(text, tuple(at), tuple(odds))


def sure(text: str, **doubted) -> list:
    """Steps for ``text``, each character sure and a blank after it; ``doubted``: character
    position (as "at3") -> the step's classes instead."""
    return [s for i, ch in enumerate(text) for s in (doubted.get(f"at{i}", ch), "")]

