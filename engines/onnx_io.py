"""Read what an ONNX file takes and returns, and hash it, without running it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class OnnxModelError(RuntimeError):
    """An ONNX file is missing, unreadable or not what a recipe expects."""


@dataclass(frozen=True)
class TensorSpec:
    """One graph input or output: name, numpy dtype name, dims (-1 where dynamic)."""

    name: str
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class ModelIO:
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]

    def input(self, name: str) -> TensorSpec:
        for spec in self.inputs:
            if spec.name == name:
                return spec
        raise OnnxModelError(f"the model has no input {name!r}; it has {[s.name for s in self.inputs]}")


def _spec(value_info) -> TensorSpec:
    from onnx import helper

    tensor_type = value_info.type.tensor_type
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)).name
    dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tensor_type.shape.dim)
    return TensorSpec(value_info.name, dtype, dims)


def read_io(path: str | Path) -> ModelIO:
    """The graph's real inputs (initializers excluded) and outputs."""
    import onnx

    try:
        model = onnx.load(str(path), load_external_data=False)
    except (OSError, onnx.onnx_cpp2py_export.checker.ValidationError, Exception) as exc:
        raise OnnxModelError(f"cannot read ONNX model {path}: {exc}") from exc
    initializers = {init.name for init in model.graph.initializer}
    inputs = tuple(_spec(v) for v in model.graph.input if v.name not in initializers)
    outputs = tuple(_spec(v) for v in model.graph.output)
    return ModelIO(inputs, outputs)


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise OnnxModelError(f"cannot read {path}: {exc}") from exc
    return digest.hexdigest()
