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


#: Texts per backend call; larger batches are split.
CHUNK = 64


def pad_rows(rows: Sequence[Sequence[int]], pad_id: int = 0) -> dict[str, np.ndarray]:
    """Right-pad token id rows to the longest one → ``input_ids`` and ``attention_mask``."""
    width = max(map(len, rows))
    input_ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    attention_mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, ids in enumerate(rows):
        input_ids[i, : len(ids)] = ids
        attention_mask[i, : len(ids)] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask}


def encode_rows(backend, rows: Sequence[Sequence[int]], dim: int, pad_id: int = 0,
                output: str = "embeddings") -> np.ndarray:
    """Token id rows → float32 (len(rows), dim) through ``backend``, in chunks of at most
    CHUNK rows grouped by length, so that each chunk pads as little as possible."""
    out = np.empty((len(rows), dim), dtype=np.float32)
    if not rows:
        return out
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    order = np.argsort(lengths, kind="stable")
    for start in range(0, len(order), CHUNK):
        chunk = order[start : start + CHUNK]
        out[chunk] = backend.run(pad_rows([rows[i] for i in chunk], pad_id))[output]
    return out


def load_encoder(name: str, cache_dir: Path, max_tokens: int = 128, threads: int = 0) -> SentenceEncoder:
    """The encoder called ``name`` on ONNX Runtime FP32, from its recipe (the one list of
    models, :mod:`engines.recipes`); its ONNX model is built once, cached under ``cache_dir``."""
    from engines.ort_backend import OnnxRuntimeBackend
    from engines.recipes import encoder_recipes

    recipes = {r.id: r for r in encoder_recipes()}
    if name not in recipes:
        raise EncoderError(f"unknown encoder {name!r}; choose {' or '.join(repr(n) for n in recipes)}")
    recipe = recipes[name]
    backend = OnnxRuntimeBackend(recipe.onnx_for_ort(Path(cache_dir)), threads=threads)
    return recipe.make_encoder(backend, max_tokens)
