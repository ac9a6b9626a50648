"""The one small interface every runtime backend implements.

A backend runs one model: named input arrays in, named output arrays out. ONNX
Runtime implements it today; the TensorRT backend implements the same shape.
Backends are not thread-safe unless they say so; callers serialise access.
"""

from __future__ import annotations

from typing import Mapping, Protocol, runtime_checkable

import numpy as np


class BackendError(RuntimeError):
    """A backend could not load its model or failed while running it."""


@runtime_checkable
class InferenceBackend(Protocol):
    #: Short label shown in status pages and logs, e.g. ``onnxruntime-cpu``.
    name: str
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run one batch. ``feeds`` maps every input name to an array."""
        ...
