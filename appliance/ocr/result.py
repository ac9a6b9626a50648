"""What the OCR step hands to the rest of the appliance."""

from __future__ import annotations

from dataclasses import dataclass

from appliance.ocr.errors import NoTextFound
from appliance.wording.problem_text import is_cjk

STAGES = ("decode", "det", "cls", "rec", "layout")
MARK_MOST = 2  # signs a text without Chinese may hold and still be a mark, not a problem


@dataclass(frozen=True)
class OcrLine:
    text: str
    confidence: float
    # Four corners (x, y) clockwise from top-left, in the upright photo's pixels.
    box: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict:
        return {"text": self.text, "confidence": round(self.confidence, 4),
                "box": [[round(x, 1), round(y, 1)] for x, y in self.box]}


@dataclass(frozen=True)
class LineEvidence:
    """What the recogniser saw along one box of the chosen problem (``Reading``): its text as
    read, the output step of each character, and each step's likely classes."""

    text: str
    steps: tuple[int, ...]
    odds: tuple[tuple[tuple[str, float], ...], ...]


@dataclass(frozen=True)
class OcrResult:
    text: str  # the framed problem's text (number and header left out), lines joined
    confidence: float  # character-weighted mean of the kept lines' confidences; 0 if none
    lines: tuple[OcrLine, ...]
    stage_ms: dict[str, float]  # decode, det, cls, rec, layout; {"cache": ms} on a cache hit
    sha256: str  # of the photo's bytes, as received
    backend: str = ""
    rotation: int = 0  # degrees the page was turned (clockwise) to read it upright
    cached: bool = False
    dropped: int = 0  # detected lines left out (cut by the frame edge, unreadable)
    image_size: tuple[int, int] = (0, 0)  # width, height of the photo as stored
    page_text: str = ""  # everything read on the page; ``text`` is the problem chosen from it
    choices: tuple[str, ...] = ()  # two or more problems with equal claim: the student picks or crops
    unread: int = 0  # lines found and not read: a busy reader read from the centre (``page_text`` lacks them)
    # (read, runner-up) characters of ``text`` the recogniser nearly read otherwise: what
    # the search may take them for (:func:`appliance.ask.photo_reading.reads_as`).
    look_alikes: tuple[tuple[str, str], ...] = ()
    # The chosen problem's boxes in reading order, as the recogniser saw them: what a bank
    # question is weighed against (:func:`appliance.ask.photo_reading.supported_by`).
    evidence: tuple[LineEvidence, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.choices) > 1

    @property
    def empty(self) -> bool:
        """No problem read: no text, or one or two signs without a Chinese character (a
        scribble or a stray mark read as "N" or "BV"; no problem is that short)."""
        signs = "".join(self.text.split())
        return len(signs) <= MARK_MOST and not any(map(is_cjk, signs))

    @property
    def total_ms(self) -> float:
        return round(sum(self.stage_ms.values()), 3)

    def require_text(self) -> str:
        """The question text, or :class:`NoTextFound` (carrying this result) if there is none."""
        if self.empty:
            raise NoTextFound(self)
        return self.text

    def to_dict(self) -> dict:
        return {
            "text": self.text, "confidence": round(self.confidence, 4), "sha256": self.sha256,
            "backend": self.backend, "rotation": self.rotation, "cached": self.cached,
            "dropped": self.dropped, "image_size": list(self.image_size),
            "page_text": self.page_text, "choices": list(self.choices), "unread": self.unread,
            "look_alikes": [list(pair) for pair in self.look_alikes],
            "stage_ms": self.stage_ms, "total_ms": self.total_ms,
            "lines": [line.to_dict() for line in self.lines],
        }
