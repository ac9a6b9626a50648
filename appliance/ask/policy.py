"""The answer decision: one bank entry with a confidence, or an abstention.

The decision itself is made by the verifier (:mod:`appliance.ask.verify`): the entry
that is most likely the student's problem is the answer when its calibrated
probability of being right reaches the abstain threshold. ``confidence`` is that
probability; ``raw`` the verifier's uncalibrated score (kept for recalibration).
"""

from __future__ import annotations

from dataclasses import dataclass

from appliance.ask.search import Candidate


@dataclass(frozen=True)
class Decision:
    best: tuple[Candidate, dict] | None
    confidence: float
    abstained: bool
    similar: list[tuple[Candidate, dict]]
    raw: float = 0.0
    #: The entry the verifier rated most likely, answered or not (for calibration reports).
    top_id: str | None = None
