"""USE multilingual v3 as a padded, fixed-layout ONNX graph for TensorRT.

:mod:`engines.encoders.use_m3` drops the padding with ``NonZero`` and runs on
a flat token stream; TensorRT-RTX has no ``NonZero`` (it needs a plugin), and
data-dependent shapes defeat optimisation profiles anyway. This graph keeps
the [batch, seq] layout instead and gives the same embeddings, with the same
inputs (``input_ids``, ``attention_mask``: int64 [batch, seq], padding at the
end of each row) and output (``embeddings``: float32 [batch, 512]):

* every per-token tensor is multiplied by the mask, so a padded position is
  zero, which is exactly the zero padding the n-gram convolutions see at a
  sentence's end;
* a convolution window is the concatenation of the sequence shifted by its
  offsets (a ``Pad`` of two zero positions each side, then static slices);
* the per-sentence sum is a masked ``ReduceSum`` over the sequence axis.

Padded positions cost compute here, so callers should bucket by length (the
encoders already sort a batch by length before chunking).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from engines.atomic import save_onnx
from engines.encoders import use_m3
from engines.encoders.base import EncoderError

log = logging.getLogger(__name__)

_CNN = use_m3._CNN_DIM
_LEFT, _RIGHT = use_m3._MAX_LEFT, use_m3._MAX_RIGHT
_INT64_MAX = np.iinfo(np.int64).max


def _masked(g: "use_m3._Graph", x: str, mask3: str) -> str:
    """Zero the padded positions of a [B, T, C] tensor."""
    return g.op("Mul", x, mask3)


def _shifted(g: "use_m3._Graph", padded: str, offset: int, tag: str) -> str:
    """``x[:, t + offset]`` for every t, from ``x`` zero-padded by 2 each side on axis 1."""
    start = _LEFT + offset
    end = start - (_LEFT + _RIGHT)  # negative: counts back from the padded end
    end_value = _INT64_MAX if end == 0 else end
    return g.op(
        "Slice", padded, g.ints(f"{tag}_s", [start]), g.ints(f"{tag}_e", [end_value]), g.ints(f"{tag}_ax", [1])
    )


def _ngram_conv(g, x: str, mask3: str, weight: np.ndarray, bias: np.ndarray, order: int, left: int, tag: str) -> str:
    """relu(window @ weight + bias) over a masked [B, T, 256] tensor; output masked too."""
    padded = g.op("Pad", _masked(g, x, mask3), "seq_pads", mode="constant")
    parts = [_shifted(g, padded, off, f"{tag}_{i}") for i, off in enumerate(range(-left, order - left))]
    windows = g.op("Concat", *parts, axis=-1)  # [B, T, order*256], neighbour-major like the flat graph
    out = g.op("Add", g.op("MatMul", windows, g.const(f"{tag}_w", weight.astype(np.float32))),
               g.const(f"{tag}_b", bias.astype(np.float32)))
    return _masked(g, g.op("Relu", out), mask3)


def _cnn_branch(g, x: str, mask3: str, w: dict, order: int, left: int) -> str:
    h = g.op("Add", x, _ngram_conv(g, x, mask3, w[f"w1_{order}"], w[f"b1_{order}"], order, left, f"c{order}a"))
    return g.op("Add", h, _ngram_conv(g, h, mask3, w[f"w2_{order}"], w[f"b2_{order}"], order, left, f"c{order}b"))


def _embed(g, table: np.ndarray, w: dict) -> str:
    """[B, T] ids → dequantised [B, T, 512] rows (padding rows are masked later)."""
    from onnx import TensorProto

    ids = "input_ids"
    rows = g.op("Cast", g.op("Gather", g.const("emb_table", table), ids), to=TensorProto.FLOAT)
    chunk = g.op("Mod", ids, g.const("num_chunks", np.int64(use_m3._NUM_CHUNKS)))
    scale = g.op("Gather", g.const("emb_scale", w["scale"].astype(np.float32).reshape(-1, 1)), chunk)
    lo = g.op("Gather", g.const("emb_lo", w["lo"].astype(np.float32).reshape(-1, 1)), chunk)
    return g.op("Add", g.op("Mul", rows, scale), lo)


def _pool(g, feats: str, mask3: str, length: str, w: dict) -> str:
    summed = g.op("ReduceSum", g.op("Mul", feats, mask3), g.ints("seq_axis", [1]), keepdims=0)  # [B, 1280]
    length = g.op("Max", length, g.const("one_f", np.float32(1.0)))
    pooled = g.op(
        "Add",
        g.op("MatMul", summed, g.const("cnn_W", w["cnn_W"].astype(np.float32))),
        g.op("Mul", length, g.const("cnn_b", w["cnn_b"].astype(np.float32))),
    )
    return g.op("Div", pooled, g.op("Sqrt", length))


def _build_graph(table: np.ndarray, w: dict):
    from onnx import TensorProto, helper

    eps = float(w["eps"])
    g = use_m3._Graph()
    g.ints("seq_pads", [0, _LEFT, 0, 0, _RIGHT, 0])
    mask_f = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask3 = g.op("Unsqueeze", mask_f, g.ints("last", [2]))  # [B, T, 1]
    length = g.op("ReduceSum", mask_f, g.ints("len_axis", [1]), keepdims=1)  # [B, 1]

    emb = _embed(g, table, w)
    proj_w = np.concatenate([w[f"proj{n}"] for n, _ in use_m3._ORDERS], axis=1)
    proj_b = np.concatenate([w[f"proj_b{n}"] for n, _ in use_m3._ORDERS])
    x = g.op("Add", g.op("MatMul", emb, g.const("proj_W", proj_w.astype(np.float32))),
             g.const("proj_b", proj_b.astype(np.float32)))
    gamma = np.concatenate([w[f"ln_g{n}"] for n, _ in use_m3._ORDERS])
    beta = np.concatenate([w[f"ln_b{n}"] for n, _ in use_m3._ORDERS])
    x = use_m3._layernorm(g, x, gamma, beta, eps, "ln_proj")  # [B, T, 768]

    parts = [f"split_{n}" for n, _ in use_m3._ORDERS]
    g.nodes.append(helper.make_node("Split", [x, g.ints("split_sizes", [_CNN] * 3)], parts, axis=-1))
    branches = [_cnn_branch(g, part, mask3, w, n, left) for part, (n, left) in zip(parts, use_m3._ORDERS)]
    feats = use_m3._layernorm(g, g.op("Concat", emb, *branches, axis=-1), w["ln_g"], w["ln_b"], eps, "ln_feat")
    use_m3._head(g, _pool(g, feats, mask3, length, w), w, eps)

    graph = helper.make_graph(
        g.nodes,
        "use_multilingual_v3_padded",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in use_m3.INPUT_NAMES],
        [helper.make_tensor_value_info(use_m3.OUTPUT_NAME, TensorProto.FLOAT, ["batch", use_m3.DIM])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", use_m3.OPSET)], producer_name="eduqa")
    model.doc_string = "Universal Sentence Encoder multilingual v3, padded layout for TensorRT"
    return model


def build_use_m3_padded_onnx(weights_path: str | Path, out_path: str | Path) -> Path:
    """Write the padded graph for ``weights.npz`` to ``out_path`` (atomically, checked)."""
    weights_path, out_path = Path(weights_path), Path(out_path)
    started = time.perf_counter()
    try:
        table, arrays = use_m3._load_weights(weights_path)
        model = _build_graph(table, arrays)
    except (OSError, KeyError, ValueError) as exc:
        raise EncoderError(f"cannot build the padded use-m3 graph from {weights_path}: {exc}") from exc
    try:
        save_onnx(model, out_path, check=True)
    except Exception as exc:  # onnx raises its own checker and IO errors
        raise EncoderError(f"writing the padded use-m3 ONNX model to {out_path} failed: {exc}") from exc
    log.info("built the padded use-m3 ONNX model %s in %.1fs", out_path, time.perf_counter() - started)
    return out_path
