"""The padded USE graph (for TensorRT) gives the same embeddings as the NonZero graph."""

from __future__ import annotations

import numpy as np
import pytest

from engines.encoders import use_m3
from engines.encoders.use_m3 import UseM3Encoder
from engines.ort_backend import OnnxRuntimeBackend
from engines.recipes import get_recipe

pytestmark = pytest.mark.slow


def test_padded_graph_matches(model_cache, text_data):
    recipe = get_recipe("use-m3")
    flat = UseM3Encoder.load(model_cache)
    padded_path = recipe.onnx_for_trt(model_cache)
    import onnx

    ops = {n.op_type for n in onnx.load(str(padded_path), load_external_data=False).graph.node}
    assert "NonZero" not in ops
    padded = UseM3Encoder(OnnxRuntimeBackend(padded_path), use_m3.package_resources()[1], flat.model_key)
    texts = list(text_data.bank) + ["", "水", "a", "光合作用" * 60]
    a, b = flat.encode(texts), padded.encode(texts)
    assert np.abs(a - b).max() < 1e-5
