"""Precision passes on the ONNX model (TensorRT 10+/RTX networks are strongly typed).

* :func:`to_fp16` — float tensors and weights to FP16, graph I/O kept float32/int64
  (``onnxconverter-common``'s converter, ``keep_io_types``).
* :func:`to_int8_qdq` — explicit Q/DQ for TensorRT: ONNX Runtime static
  quantisation in QDQ format, the weight GEMMs only (MatMul/Gemm with an
  initializer operand), symmetric INT8, per-channel weights, MinMax ranges
  from real calibration feeds, GEMM outputs left unquantised (the residual
  stream of a transformer has outliers a per-tensor scale cannot hold),
  Softmax/LayerNorm untouched; SmoothQuant smoothing first; then everything
  left in float goes to FP16 (opset 19, FP16 Q/DQ scales).
* :func:`to_int8_dynamic` — ONNX Runtime dynamic INT8 (per-channel weights,
  activation scales computed per call) for the ONNX Runtime CPU backend.

Every pass writes its output atomically and raises :class:`PrecisionError`.
"""

from __future__ import annotations

import logging
import tempfile
import warnings
from pathlib import Path
from typing import Iterator, Sequence

from engines import smoothing
from engines.atomic import save_onnx
from engines.feeds import Feeds

log = logging.getLogger(__name__)


#: First opset whose QuantizeLinear/DequantizeLinear take FP16 scales.
QDQ_FP16_OPSET = 19


class PrecisionError(RuntimeError):
    """A precision pass failed."""


def _fp16_model(model):
    """Float tensors and weights to FP16 in an in-memory model, graph I/O kept."""
    try:
        from onnxconverter_common import float16
    except ImportError as exc:
        raise PrecisionError(f"FP16 conversion needs onnxconverter-common ({exc})") from exc
    # Stale value_info (e.g. a Cast's float output) would contradict the converted types.
    del model.graph.value_info[:]
    smoothing.name_nodes(model)
    # Casts stay as written (the converter would not rewrite their 'to'); it puts FP16
    # casts after them. By node name, not op type: the op-type list would also match the
    # casts the converter inserts, and it would never stop inserting.
    casts = [node.name for node in model.graph.node if node.op_type == "Cast"]
    try:
        with warnings.catch_warnings():  # "number will be truncated to 1e-07": expected, weights clamp
            warnings.simplefilter("ignore", UserWarning)
            return float16.convert_float_to_float16(model, keep_io_types=True, node_block_list=casts)
    except Exception as exc:  # the converter raises plain Exceptions
        raise PrecisionError(f"FP16 conversion failed: {exc}") from exc


def to_fp16(src: str | Path, dst: str | Path) -> Path:
    import onnx

    return save_onnx(_fp16_model(onnx.load(str(src))), Path(dst))


def _fp16_around_qdq(model):
    """FP16 for everything the Q/DQ pass left in float32. Opset 19 first: from there on
    Q/DQ scales may be FP16, so a DequantizeLinear feeds its GEMM in FP16 directly (the
    pattern TensorRT fuses into an INT8 GEMM); otherwise the non-INT8 layers of a strongly
    typed network would run in FP32."""
    from onnx import version_converter

    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset < QDQ_FP16_OPSET:
        try:
            model = version_converter.convert_version(model, QDQ_FP16_OPSET)
        except Exception as exc:  # the converter raises plain Exceptions
            raise PrecisionError(f"cannot move the model to opset {QDQ_FP16_OPSET}: {exc}") from exc
    return _fp16_model(model)


class _Reader:
    """ONNX Runtime's CalibrationDataReader over a list of feeds."""

    def __init__(self, feeds: Sequence[Feeds]):
        self._feeds: Iterator[Feeds] = iter(feeds)

    def get_next(self):
        return next(self._feeds, None)

    def rewind(self) -> None:  # pragma: no cover - only some calibrators call it
        pass


def to_int8_qdq(
    src: str | Path,
    dst: str | Path,
    calibration: Sequence[Feeds],
    exclude: Sequence[str] = (),
    smooth_alpha: float | None = 0.5,
    fp16_rest: bool = True,
) -> Path:
    """Static INT8 with explicit Q/DQ on the weight GEMMs (the rest FP16 unless
    ``fp16_rest`` is False); see the module docstring."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    if not calibration:
        raise PrecisionError("INT8 calibration needs at least one batch of real inputs")
    model = onnx.load(str(src))
    smoothing.name_nodes(model)
    nodes = smoothing.weight_gemms(model, exclude)
    if not nodes:
        raise PrecisionError(f"{src} has no weight GEMMs to quantise")
    if smooth_alpha:
        ranges = smoothing.activation_ranges(model, nodes, calibration)
        smoothing.smooth(model, nodes, ranges, smooth_alpha)
    dst = Path(dst)
    with tempfile.TemporaryDirectory(dir=dst.parent if dst.parent.exists() else None) as work:
        prepared = save_onnx(model, Path(work) / "prepared.onnx")
        out = Path(work) / "int8.onnx"
        try:
            quantize_static(
                str(prepared), str(out), _Reader(calibration),
                quant_format=QuantFormat.QDQ,
                nodes_to_quantize=[n.name for n in nodes],
                per_channel=True,
                activation_type=QuantType.QInt8,
                weight_type=QuantType.QInt8,
                calibrate_method=CalibrationMethod.MinMax,
                extra_options={
                    "ActivationSymmetric": True,  # TensorRT takes zero-point 0 only
                    "WeightSymmetric": True,
                    "OpTypesToExcludeOutputQuantization": ["MatMul", "Gemm"],
                },
            )
        except Exception as exc:
            raise PrecisionError(f"INT8 Q/DQ quantisation of {src} failed: {exc}") from exc
        log.info("INT8 Q/DQ: %d GEMMs quantised (%d exclusion patterns)", len(nodes), len(exclude))
        quantised = onnx.load(str(out))
        return save_onnx(_fp16_around_qdq(quantised) if fp16_rest else quantised, dst)


def _gemm_to_matmul(model) -> int:
    """Rewrite plain Gemms (no transA, alpha = beta = 1) with a weight operand as MatMul + Add:
    ONNX Runtime's dynamic quantiser handles MatMul only. Returns how many were rewritten."""
    from onnx import helper, numpy_helper

    initializers = {init.name: init for init in model.graph.initializer}
    nodes, rewritten = [], 0
    for node in model.graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        plain = attrs.get("transA", 0) == 0 and attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0
        if node.op_type != "Gemm" or not plain or node.input[1] not in initializers:
            nodes.append(node)
            continue
        if attrs.get("transB", 0):
            weight = initializers[node.input[1]]
            weight.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weight).T.copy(), weight.name))
        product = f"{node.name}_matmul_out" if len(node.input) > 2 else node.output[0]
        nodes.append(helper.make_node("MatMul", node.input[:2], [product], name=f"{node.name}_matmul"))
        if len(node.input) > 2:
            nodes.append(helper.make_node("Add", [product, node.input[2]], list(node.output), name=f"{node.name}_bias"))
        rewritten += 1
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return rewritten


def to_int8_dynamic(src: str | Path, dst: str | Path, exclude: Sequence[str] = ()) -> Path:
    """Dynamic INT8 for ONNX Runtime on the CPU: per-channel INT8 weights of the weight GEMMs."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(src))
    smoothing.name_nodes(model)
    _gemm_to_matmul(model)
    nodes = smoothing.weight_gemms(model, exclude)
    dst = Path(dst)
    with tempfile.TemporaryDirectory(dir=dst.parent if dst.parent.exists() else None) as work:
        named = save_onnx(model, Path(work) / "named.onnx")
        out = Path(work) / "dyn.onnx"
        try:
            quantize_dynamic(
                str(named), str(out),
                per_channel=True,
                weight_type=QuantType.QInt8,
                nodes_to_quantize=[n.name for n in nodes],
            )
        except Exception as exc:
            raise PrecisionError(f"dynamic INT8 quantisation of {src} failed: {exc}") from exc
        return save_onnx(onnx.load(str(out)), dst)
