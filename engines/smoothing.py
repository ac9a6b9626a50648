"""SmoothQuant-style smoothing of GEMM inputs before INT8 quantisation.

Per-tensor INT8 of an activation with a few outlier channels wastes most of
its 256 levels on them. Smoothing moves that range into the weights: for a
GEMM ``y = x @ W`` with per-input-channel activation range ``a_k`` and
weight range ``w_k``, ``s_k = a_k**alpha / w_k**(1 - alpha)`` and
``y = (x / s) @ (diag(s) W)`` — the same function, with a flatter ``x / s``.
The ``x / s`` is one elementwise Mul in front of the GEMM (TensorRT fuses it
into the producer). Reference: Xiao et al., "SmoothQuant" (ICML 2023).
"""

from __future__ import annotations

import logging
import re
from typing import Iterable, Sequence

import numpy as np

log = logging.getLogger(__name__)


def weight_gemms(model, exclude: Sequence[str] = ()) -> list:
    """MatMul/Gemm nodes whose second operand is a 2-D initializer (the model's linear layers),
    less those whose node name or weight name matches a pattern in ``exclude``."""
    initializers = {init.name: init for init in model.graph.initializer}
    patterns = [re.compile(p) for p in exclude]
    nodes = []
    for node in model.graph.node:
        if node.op_type not in ("MatMul", "Gemm") or len(node.input) < 2:
            continue
        weight = initializers.get(node.input[1])
        if weight is None or len(weight.dims) != 2 or _attr(node, "transA", 0):
            continue
        if any(p.search(node.name) or p.search(node.input[1]) for p in patterns):
            continue
        nodes.append(node)
    return nodes


def _attr(node, name: str, default: int) -> int:
    for attr in node.attribute:
        if attr.name == name:
            return attr.i
    return default


def name_nodes(model) -> None:
    """Give every unnamed node a stable name (quantisation selects nodes by name)."""
    for i, node in enumerate(model.graph.node):
        if not node.name:
            node.name = f"{node.op_type.lower()}_node_{i}"


def activation_ranges(model, nodes: Sequence, feeds: Iterable[dict]) -> dict[str, np.ndarray]:
    """Per-channel max |x| of each GEMM's activation input over ``feeds``."""
    import onnx
    import onnxruntime as ort

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    names = sorted({node.input[0] for node in nodes})
    existing = {o.name for o in probe.graph.output}
    for name in names:
        if name not in existing:
            probe.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    ranges: dict[str, np.ndarray] = {}
    for feed in feeds:
        for name, value in zip(names, session.run(names, feed)):
            amax = np.abs(value.reshape(-1, value.shape[-1])).max(axis=0)
            ranges[name] = amax if name not in ranges else np.maximum(ranges[name], amax)
    return ranges


def smooth(model, nodes: Sequence, ranges: dict[str, np.ndarray], alpha: float = 0.5) -> int:
    """Rewrite ``model`` in place; returns how many GEMMs were smoothed."""
    from onnx import helper, numpy_helper

    initializers = {init.name: init for init in model.graph.initializer}
    smoothed, inserted, seen = 0, {}, set()
    for node in nodes:
        if node.input[1] in seen:  # a shared weight can only carry one scale
            continue
        seen.add(node.input[1])
        weight_init = initializers[node.input[1]]
        weight = numpy_helper.to_array(weight_init).astype(np.float32)
        trans_b = node.op_type == "Gemm" and _attr(node, "transB", 0) == 1
        k_axis = 1 if trans_b else 0
        act = ranges.get(node.input[0])
        if act is None or act.shape[0] != weight.shape[k_axis]:
            continue
        w_range = np.abs(weight).max(axis=1 - k_axis)
        scale = (np.maximum(act, 1e-5) ** alpha / np.maximum(w_range, 1e-5) ** (1 - alpha)).astype(np.float32)
        scaled = weight * (scale[None, :] if trans_b else scale[:, None])
        weight_init.CopyFrom(numpy_helper.from_array(scaled.astype(np.float32), weight_init.name))
        inv_name = f"{node.name}_smooth_inv"
        model.graph.initializer.append(numpy_helper.from_array((1.0 / scale).astype(np.float32), inv_name))
        out = f"{node.name}_smoothed_input"
        inserted[node.name] = helper.make_node("Mul", [node.input[0], inv_name], [out], name=f"{node.name}_smooth")
        node.input[0] = out
        smoothed += 1
    ordered = []
    for node in model.graph.node:
        if node.name in inserted:
            ordered.append(inserted[node.name])
        ordered.append(node)
    del model.graph.node[:]
    model.graph.node.extend(ordered)
    log.info("smoothed %d of %d GEMM inputs (alpha %.2f)", smoothed, len(nodes), alpha)
    return smoothed
