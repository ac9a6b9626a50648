"""What every sentence encoder offers, and how one is chosen by name."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence

import numpy as np


class EncoderError(RuntimeError):
    """An encoder could not be built, exported or loaded."""


class SentenceEncoder(Protocol):
    #: Identifies the model and its weights, e.g. ``use-m3:1f2e3d4c5b6a``; stored
    #: embeddings are keyed by it so a model change re-embeds the bank.
    model_key: str
    dim: int
    #: The backend serving the model now, e.g. ``onnxruntime-cpu``.
    backend_name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch of texts → float32 array (len(texts), dim), rows L2-normalised."""
        ...


def load_encoder(name: str, cache_dir: Path, max_tokens: int = 128, threads: int = 0) -> SentenceEncoder:
    """Build (once, cached under ``cache_dir``) and load the encoder called ``name``."""
    if name == "use-m3":
        from engines.encoders.use_m3 import UseM3Encoder

        return UseM3Encoder.load(cache_dir, max_tokens=max_tokens, threads=threads)
    if name == "minilm":
        from engines.encoders.minilm import MiniLmEncoder

        return MiniLmEncoder.load(cache_dir, max_tokens=max_tokens, threads=threads)
    raise EncoderError(f"unknown encoder {name!r}; choose 'use-m3' or 'minilm'")
