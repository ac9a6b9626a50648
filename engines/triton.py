"""Export a Triton Inference Server model repository.

``DIR/<model>/config.pbtxt`` + ``DIR/<model>/1/model.plan`` (a full TensorRT
engine: Triton's TensorRT backend cannot load TensorRT-RTX engines) or
``DIR/<model>/1/model.onnx`` (served by Triton's ONNX Runtime backend, which
can itself use TensorRT as an execution accelerator). Dynamic batching is on,
up to the profile's largest batch.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from engines.onnx_io import TensorSpec, read_io
from engines.recipes import ModelRecipe

log = logging.getLogger(__name__)

TRITON_TYPES = {
    "bool": "TYPE_BOOL", "uint8": "TYPE_UINT8", "int8": "TYPE_INT8", "int16": "TYPE_INT16",
    "int32": "TYPE_INT32", "int64": "TYPE_INT64", "float16": "TYPE_FP16", "float32": "TYPE_FP32",
    "float64": "TYPE_FP64",
}
PREFERRED_BATCHES = (8, 16, 32, 64)
MAX_QUEUE_DELAY_US = 2000


class TritonExportError(RuntimeError):
    """The repository could not be written."""


@dataclass(frozen=True)
class TritonModel:
    name: str
    #: "tensorrt_plan" or "onnxruntime"
    kind: str
    model_file: Path
    max_batch_size: int


def _tensor_block(keyword: str, spec: TensorSpec) -> str:
    dims = ", ".join(str(d if d > 0 else -1) for d in spec.shape[1:])
    try:
        data_type = TRITON_TYPES[spec.dtype]
    except KeyError:
        raise TritonExportError(f"{spec.name}: dtype {spec.dtype} has no Triton type") from None
    return f'{keyword} {{\n  name: "{spec.name}"\n  data_type: {data_type}\n  dims: [ {dims} ]\n}}\n'


def config_text(model: TritonModel, onnx_path: Path) -> str:
    """config.pbtxt for ``model``; I/O taken from the ONNX file (the engine has the same I/O)."""
    io = read_io(onnx_path)
    head = [f'name: "{model.name}"']
    if model.kind == "tensorrt_plan":
        head.append('platform: "tensorrt_plan"')
    else:
        head.append('backend: "onnxruntime"')
    head += [f'default_model_filename: "{model.model_file.name}"', f"max_batch_size: {model.max_batch_size}"]
    blocks = [_tensor_block("input", s) for s in io.inputs] + [_tensor_block("output", s) for s in io.outputs]
    preferred = ", ".join(str(b) for b in PREFERRED_BATCHES if b <= model.max_batch_size) or "1"
    tail = (
        f"dynamic_batching {{\n  preferred_batch_size: [ {preferred} ]\n"
        f"  max_queue_delay_microseconds: {MAX_QUEUE_DELAY_US}\n}}\n"
        "instance_group {\n  kind: KIND_GPU\n  count: 1\n}\n"
    )
    return "\n".join(head) + "\n" + "".join(blocks) + tail


def _place(src: Path, dst: Path) -> None:
    """Hard-link where the file system allows, else copy."""
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def export_model(recipe: ModelRecipe, out_dir: Path, onnx_path: Path, engine_path: Path | None = None) -> TritonModel:
    """Write one model's directory; ``engine_path`` (a full TensorRT engine) wins over ONNX."""
    kind, file_name = ("tensorrt_plan", "model.plan") if engine_path else ("onnxruntime", "model.onnx")
    model_dir = Path(out_dir) / recipe.id
    version_dir = model_dir / "1"
    version_dir.mkdir(parents=True, exist_ok=True)
    model = TritonModel(recipe.id, kind, version_dir / file_name, max(p.max[0] for p in recipe.profiles))
    _place(engine_path or onnx_path, model.model_file)
    (model_dir / "config.pbtxt").write_text(config_text(model, onnx_path), encoding="utf-8")
    log.info("exported %s (%s) to %s", recipe.id, kind, model_dir)
    return model
