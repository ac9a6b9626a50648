"""Sample inputs for calibration and verification.

Encoder feeds come from real text run through the encoder's own tokeniser:
the encoder is built over a :class:`FeedRecorder` backend, which keeps the
feeds it is given instead of running a model, so the feeds are exactly what
the served encoder would send. OCR feeds are deterministic synthetic images
within the recipe's profile.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from engines.recipes import ModelRecipe, RecipeError

Feeds = dict[str, np.ndarray]


class FeedRecorder:
    """An :class:`InferenceBackend` that records its feeds and returns zeros."""

    name = "feed-recorder"
    output_names = ("embeddings",)

    def __init__(self, input_names: Sequence[str], dim: int):
        self.input_names = tuple(input_names)
        self.dim = dim
        self.feeds: list[Feeds] = []

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        self.feeds.append({k: np.array(v) for k, v in feeds.items()})
        batch = next(iter(feeds.values())).shape[0]
        return {"embeddings": np.zeros((batch, self.dim), dtype=np.float32)}


def text_feeds(recipe: ModelRecipe, texts: Sequence[str], batch_size: int = 16) -> list[Feeds]:
    """Tokenised, padded feeds for ``texts`` in batches of ``batch_size``."""
    if recipe.make_encoder is None:
        raise RecipeError(f"{recipe.id} is not a sentence encoder; it takes no text")
    probe = recipe.make_encoder(FeedRecorder(recipe.input_names, dim=1))
    recorder = FeedRecorder(recipe.input_names, dim=probe.dim)
    encoder = recipe.make_encoder(recorder)
    texts = list(texts)
    for start in range(0, len(texts), batch_size):
        encoder.encode(texts[start : start + batch_size])
    return recorder.feeds


def image_feeds(recipe: ModelRecipe, count: int = 4, seed: int = 0) -> list[Feeds]:
    """Deterministic images inside the profile: gradients, stripes and noise in [-1, 1]."""
    rng = np.random.default_rng(seed)
    profile = recipe.profiles[0]
    feeds = []
    for i in range(count):
        batch = max(profile.min[0], min(profile.opt[0], 2))
        height = _between(profile, 2, i)
        width = _between(profile, 3, i)
        y = np.linspace(-1, 1, height, dtype=np.float32)[:, None]
        x = np.linspace(-1, 1, width, dtype=np.float32)[None, :]
        base = np.sin(6 * x + 3 * y) * 0.6 + 0.3 * np.sign(np.sin(40 * x))
        image = base[None, None] + 0.1 * rng.standard_normal((batch, profile.opt[1], height, width))
        feeds.append({profile.name: np.clip(image, -1, 1).astype(profile.dtype)})
    return feeds


def _between(profile, axis: int, i: int) -> int:
    """A size from the profile's range on ``axis``, a multiple of 32 where the range allows."""
    low, opt, high = profile.min[axis], profile.opt[axis], profile.max[axis]
    if low == high:
        return low
    wanted = min(opt, 320) + 32 * i
    return int(min(max(low, wanted - wanted % 32), high))


def sample_feeds(recipe: ModelRecipe, texts: Sequence[str] | None = None) -> list[Feeds]:
    """Feeds to verify an engine with: text for encoders, images for OCR."""
    if recipe.task == "sentence-encoder":
        if not texts:
            texts = ["What is photosynthesis?", "解方程：2x + 3 = 13", "Hi", "水的沸点是多少摄氏度？" * 3]
        return text_feeds(recipe, texts, batch_size=8)
    return image_feeds(recipe)
