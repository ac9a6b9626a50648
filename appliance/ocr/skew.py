"""A page photographed at a slant, levelled for the layout.

Rows, bands between problems and column gutters are all found from upright rectangles;
on a page turned by a few degrees a long line's rectangle is several lines tall, and a
line found in two pieces has its second piece as low as the next line's first, so rows
merge and the space between problems vanishes. The detector's boxes are turned
rectangles, so the slope of the page can be read off them. A phone held at an angle
also sees the page in perspective: the lines near the top slope otherwise than those
near the bottom. So the slope is fitted as a straight function of the height on the
photo, over the page's long lines (weighted by their length, a stray one left out), and
every point is moved up or down along its column by what that slope puts it off level
(a page turned in the phone's plane also has its columns leaning: ``lean`` moves each
point across as well, by as much of a turn as the page's layout shows, ``page.py``).
Which sides of the frame a box touches is decided from the photo itself
(``layout.frame_sides``), and the lines of the chosen problem are moved back into photo
pixels at the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from appliance.ocr.geometry import quad_size

#: A line this many times longer than tall tells the page's slope.
LONG_LINE = 3.0
#: Long lines whose slope is this far (degrees) off the first fit are left out of the second.
STRAY = 1.5
#: A long line this far (degrees) off the slope of most of the page's lines, in print this
#: many times as tall, is printed across the page (:func:`printed_across`).
ACROSS_DEGREES = 20.0
ACROSS_HEIGHT = 1.35
#: ...and at least this many times as long as tall (four large characters of a watermark).
ACROSS_LINE = 2.0


@dataclass(frozen=True)
class Skew:
    """The slope of the page's lines (degrees; positive when they fall to the right, image
    y down) at height ``y``: ``degrees + per_px * (y - centre[1])``."""

    degrees: float
    centre: tuple[float, float]
    per_px: float = 0.0
    lean: float = 0.0  # the page's columns lean this share of the way the lines turn (1: a turned page)

    @property
    def level(self) -> bool:
        return self.degrees == 0.0 and self.per_px == 0.0

    def slope(self, y: np.ndarray) -> np.ndarray:
        return np.tan(np.radians(self.degrees + self.per_px * (y - self.centre[1])))

    def to_page(self, points: np.ndarray) -> np.ndarray:
        """Photo pixels → the levelled page's: each point moved along its column by how far
        the line through it has fallen since the photo's middle column, and across by
        ``lean`` times how far the page's columns have leant since the middle row."""
        points = np.asarray(points, np.float32)
        if self.level:
            return points
        x, y = points[:, 0], points[:, 1]
        level_x = x + self.lean * self.drift(y)
        return np.stack([level_x, y - (x - self.centre[0]) * self.slope(y)], axis=1).astype(np.float32)

    def to_photo(self, points: np.ndarray) -> np.ndarray:
        points = np.asarray(points, np.float32)
        if self.level:
            return points
        level_x, level_y = points[:, 0], points[:, 1]
        x, y = level_x.copy(), level_y.copy()
        for _ in range(12):  # each step shrinks the error by about the slope (< tan 35°)
            y = level_y + (x - self.centre[0]) * self.slope(y)
            x = level_x - self.lean * self.drift(y)
        return np.stack([x, y], axis=1).astype(np.float32)

    def drift(self, y):
        """How far across a column of a page turned as its middle row is has moved at height
        ``y`` since that row: a straight line, as a page's upright edges stay straight lines
        in a photo also in perspective (where the lines' slope changes down the page)."""
        return (y - self.centre[1]) * math.tan(math.radians(self.degrees))


def measure_skew(quads: list[np.ndarray], size: tuple[int, int], min_degrees: float = 0.3,
                 max_degrees: float = 35.0, min_lines: int = 2) -> Skew:
    """The page's slope from its long lines (see the module's docstring); level when there
    are fewer than ``min_lines`` long lines, when the slope stays under ``min_degrees``
    across the photo (nothing to gain) or passes ``max_degrees`` (not a slanted page: the
    page turn is decided before this). A phone held askew turns a page by 15–20°, more at
    one end of the photo in perspective; up to 35° the lines' boxes still tell the slope.
    ``quads``: the page's lines, those :func:`printed_across` it left out."""
    centre = (size[0] / 2, size[1] / 2)
    lines = [line for line in map(line_slope, quads) if line is not None]
    if len(lines) < min_lines:
        return Skew(0.0, centre)
    y, slopes, weights = (np.array(v, float) for v in zip(*lines))
    skew = fit(y - centre[1], slopes, weights)
    kept = np.abs(slopes - (skew[0] + skew[1] * (y - centre[1]))) <= STRAY
    if min_lines <= kept.sum() < len(kept):
        skew = fit(y[kept] - centre[1], slopes[kept], weights[kept])
    degrees, per_px = skew
    ends = [abs(degrees + per_px * (edge - centre[1])) for edge in (0, size[1])]
    if max(ends) < min_degrees or max(ends) > max_degrees:
        return Skew(0.0, centre)
    return Skew(round(degrees, 4), centre, per_px)


def printed_across(quads: list[np.ndarray]) -> list[bool]:
    """Which boxes are lines printed across the page's text rather than in it: at least
    ``ACROSS_DEGREES`` off the slope that most of the long lines' length shows, in print at
    least ``ACROSS_HEIGHT`` times as tall as their median (a watermark's 「内部资料」 at 30°,
    the name on a pen lying on the page). A page's own lines, curled or in perspective, or
    a second sheet's, are printed as tall as the rest."""
    heights = [quad_size(q)[1] for q in quads]
    lines = [(line, tall) for line, tall in zip(map(line_slope, quads), heights) if line is not None]
    if len(lines) < 3:
        return [False] * len(quads)
    slope = weighted_median(np.array([line[1] for line, _ in lines]), np.array([line[2] for line, _ in lines]))
    height = float(np.median([tall for _, tall in lines]))
    return [(line := line_slope(q, ACROSS_LINE)) is not None and abs(line[1] - slope) >= ACROSS_DEGREES
            and tall >= ACROSS_HEIGHT * height for q, tall in zip(quads, heights)]


def weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The value below and above which lie at most half of the weight each."""
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, cumulative[-1] / 2)])


def line_slope(quad: np.ndarray, long: float = LONG_LINE) -> tuple[float, float, float] | None:
    """(centre y, slope in degrees, length) of a box at least ``long`` times as long as tall;
    None for a shorter one."""
    width, height = quad_size(quad)
    if height <= 0 or width < long * height:
        return None
    top, bottom = quad[1] - quad[0], quad[2] - quad[3]
    return float(quad[:, 1].mean()), math.degrees(math.atan2(top[1] + bottom[1], top[0] + bottom[0])), width


def fit(dy: np.ndarray, slopes: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Weighted straight line slope = a + b·dy; a constant where the lines' heights do not
    spread enough to tell a change (all in one band of the photo)."""
    if np.ptp(dy) < 1.0 or len(dy) < 3:
        return float(np.average(slopes, weights=weights)), 0.0
    b, a = np.polyfit(dy, slopes, 1, w=np.sqrt(weights))
    return float(a), float(b)

