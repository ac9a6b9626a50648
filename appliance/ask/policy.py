"""Answer policy: turn ranked candidates into one answer with a confidence, or abstain.

Confidence is a number in [0, 1]: a logistic function of the best candidate's score alone
(the fused score after any guard penalty, see :mod:`appliance.ask.search`),

    confidence = 1 / (1 + exp(-SCORE_SLOPE * (score - SCORE_CENTRE)))

Nothing else enters it: not the runner-up, not the number of candidates. The two constants were set by hand, not fitted: the centre was
chosen on the tuning set (appliance/data/demo_eval.csv) so that the default
``search.abstain_below`` of 0.5 falls at a score of 0.55; the slope (10) is a round value.
The confidence is therefore monotone in the score but not a calibrated probability;
docs/SEARCH.md gives how often the answers at each confidence were right on both evaluation
sets. The appliance abstains below ``search.abstain_below``, when the best candidate is
another problem, or when an entry that reads closer is another problem (:func:`decide`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from appliance.ask.search import Candidate

# Set by hand (see the module docstring); the centre was chosen on appliance/data/demo_eval.csv.
SCORE_CENTRE = 0.55
SCORE_SLOPE = 10.0
# How much closer than the best answerable entry another-problem entry may read.
CLOSER_VARIANT_MARGIN = 0.05


@dataclass(frozen=True)
class Decision:
    best: tuple[Candidate, dict] | None
    confidence: float
    abstained: bool
    similar: list[tuple[Candidate, dict]]


def confidence_of(ranked: list[tuple[Candidate, dict]]) -> float:
    if not ranked:
        return 0.0
    z = SCORE_SLOPE * (ranked[0][0].score - SCORE_CENTRE)
    return 1.0 / (1.0 + math.exp(-z))


def decide(ranked: list[tuple[Candidate, dict]], abstain_below: float, similar: int) -> Decision:
    """Answer with the best candidate unless its confidence is below ``abstain_below``,
    it is another problem (other numbers, a swapped key term), or an entry that reads
    closer to the question is another problem: then the question is most likely a
    variant the bank does not hold, and a looser match must not stand in for it."""
    confidence = confidence_of(ranked)
    closest = max((c.similarity for c, _ in ranked), default=0.0)
    abstained = (
        not ranked
        or confidence < abstain_below
        or not ranked[0][0].answerable
        or ranked[0][0].similarity < closest - CLOSER_VARIANT_MARGIN
    )
    if abstained:
        return Decision(None, confidence, True, ranked[:similar])
    return Decision(ranked[0], confidence, False, ranked[1 : 1 + similar])
