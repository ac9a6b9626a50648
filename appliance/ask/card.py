"""The answer card: everything a student (and the ask log) gets back for one question."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

ABSTAIN_MESSAGE = "没有足够把握的答案，老师会看到这个问题。 (No confident answer; your teacher will see this question.)"
CHOOSE_MESSAGE = ("照片里有不止一道完整的题目：请选择你要问的那一道，或者裁剪照片后再问。"
                  " (The photo holds more than one whole problem: pick the one you mean, or crop the photo"
                  " and ask again.)")


@dataclass(frozen=True)
class SimilarQuestion:
    entry_id: str
    question: str
    score: float


@dataclass(frozen=True)
class AnswerCard:
    ask_id: int
    question: str
    abstained: bool
    confidence: float
    answer: str | None = None
    matched_id: str | None = None
    matched_question: str | None = None
    subject: str | None = None
    knowledge_points: list[str] = field(default_factory=list)
    source: str | None = None
    similar: list[SimilarQuestion] = field(default_factory=list)
    message: str = ""
    notices: list[str] = field(default_factory=list)
    truncated: bool = False
    stage_ms: dict[str, float] = field(default_factory=dict)
    backend: str = ""
    cached: bool = False
    #: Needed to read this ask back or rate it over HTTP (ids are sequential).
    ask_token: str = ""
    #: Model → "backend precision" of each model that answered this ask (the encoder; for a
    #: photo also the OCR models), e.g. {"use-m3": "onnxruntime int8"}.
    served_by: dict[str, str] = field(default_factory=dict)
    #: Photo asks: the problems with equal claim to be the one framed (the student picks
    #: one; nothing was answered), and the id of the photo ask an edited text corrects.
    choices: list[str] = field(default_factory=list)
    corrects: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)
