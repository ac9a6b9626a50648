"""Text boxes as quadrilaterals: ordering corners, measuring, turning the page, cropping.

A quad is a float32 array of shape (4, 2): corners (x, y) clockwise from top-left.
"""

from __future__ import annotations

import cv2
import numpy as np

ROTATIONS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def order_quad(points: np.ndarray) -> np.ndarray:
    """Corners clockwise from top-left (by x+y and y−x extremes; text is near axis-aligned)."""
    pts = np.asarray(points, np.float32).reshape(4, 2)
    total, diff = pts.sum(axis=1), pts[:, 1] - pts[:, 0]
    ordered = pts[[np.argmin(total), np.argmin(diff), np.argmax(total), np.argmax(diff)]]
    if len({tuple(p) for p in ordered.tolist()}) < 4:  # degenerate: fall back to angle sort
        centre = pts.mean(axis=0)
        angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
        ordered = pts[np.argsort(angles)]
        ordered = np.roll(ordered, -int(np.argmin(ordered.sum(axis=1))), axis=0)
    return ordered


def quad_size(quad: np.ndarray) -> tuple[float, float]:
    """(width, height): the longer of the top/bottom edges, the longer of left/right."""
    width = max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[3] - quad[2]))
    height = max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2]))
    return float(width), float(height)


def rotate_page(image: np.ndarray, quads: list[np.ndarray], degrees: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Turn the image clockwise by 90, 180 or 270 degrees and carry the quads along."""
    if degrees % 360 == 0:
        return image, quads
    height, width = image.shape[:2]
    turned = cv2.rotate(image, ROTATIONS[degrees % 360])
    return turned, [order_quad(rotate_points(q, degrees, width, height)) for q in quads]


def rotate_points(points: np.ndarray, degrees: int, width: int, height: int) -> np.ndarray:
    x, y = points[:, 0], points[:, 1]
    if degrees % 360 == 90:
        moved = (height - 1 - y, x)
    elif degrees % 360 == 180:
        moved = (width - 1 - x, height - 1 - y)
    else:  # 270
        moved = (y, width - 1 - x)
    return np.stack(moved, axis=1).astype(np.float32)


def crop_line(image: np.ndarray, quad: np.ndarray, height: int) -> np.ndarray:
    """The quad's pixels straightened, scaled to ``height`` rows (aspect kept)."""
    width_px, height_px = quad_size(quad)
    width_px, height_px = max(round(width_px), 1), max(round(height_px), 1)
    target = np.array([[0, 0], [width_px, 0], [width_px, height_px], [0, height_px]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    crop = cv2.warpPerspective(image, matrix, (width_px, height_px), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    new_width = max(1, round(width_px * height / height_px))
    interp = cv2.INTER_AREA if height_px > height else cv2.INTER_LINEAR
    return cv2.resize(crop, (new_width, height), interpolation=interp)
