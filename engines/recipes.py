"""Model recipes: where each model comes from and how its engine is shaped.

A recipe names the ONNX source (a file shipped in a package, or a builder
that writes one into the cache), the inputs with their dtypes, one
optimisation profile (min/opt/max shape per input) and the precision wanted.
Shapes that the ONNX file fixes (image channels, the recogniser's height) are
read from the file, never typed in twice.
"""

from __future__ import annotations

import re
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from engines.onnx_io import OnnxModelError, read_io

log = logging.getLogger(__name__)

PRECISIONS = ("fp32", "fp16", "int8")
#: Every model the appliance knows (the recipes below), for checking configs without loading them.
MODEL_IDS = ("use-m3", "minilm", "ocr-det", "ocr-rec", "ocr-cls")
#: Encoders: batch 1..64 (opt 8), sequence 1..128 tokens (opt 32: most questions are short).
ENCODER_BATCH = (1, 8, 64)
ENCODER_SEQ = (1, 32, 128)


class RecipeError(RuntimeError):
    """A recipe is unknown or its source model cannot be produced."""


@dataclass(frozen=True)
class InputProfile:
    """min/opt/max shape of one input in the optimisation profile."""

    name: str
    dtype: str
    min: tuple[int, ...]
    opt: tuple[int, ...]
    max: tuple[int, ...]


@dataclass(frozen=True)
class ModelRecipe:
    id: str
    #: "sentence-encoder" or "ocr".
    task: str
    #: Writes (once, cached) or finds the reference ONNX model → its path.
    source: Callable[[Path], Path]
    profiles: tuple[InputProfile, ...]
    precision: str = "fp16"
    #: An alternative graph with the same I/O for TensorRT (e.g. without NonZero).
    trt_source: Optional[Callable[[Path], Path]] = None
    #: Regexes of GEMM node (or weight) names kept in float by the static INT8 Q/DQ pass.
    int8_exclude: tuple[str, ...] = ()
    #: The same for dynamic INT8 (per-call activation scales cope with more than static ones).
    int8_dynamic_exclude: tuple[str, ...] = ()
    #: Held-back queries the accuracy gate may use (e.g. an English-only model
    #: ranks Chinese queries by noise: they would measure nothing).
    gate_query_filter: Optional[Callable[[str], bool]] = field(default=None, compare=False)
    #: Builds the sentence encoder over any backend, ``make_encoder(backend, max_tokens=128)``
    #: (encoders only): feeds, gates and serving use it.
    make_encoder: Optional[Callable[..., object]] = field(default=None, compare=False)
    #: Where ``source`` / ``trt_source`` put their file, without writing anything (None: the
    #: source only finds a shipped file), so that status and doctor only read.
    locate: Optional[Callable[[Path], Path]] = field(default=None, compare=False)
    trt_locate: Optional[Callable[[Path], Path]] = field(default=None, compare=False)

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.profiles)

    def onnx_for_ort(self, cache_dir: Path, create: bool = True) -> Path:
        return self._onnx(self.source, self.locate, cache_dir, create)

    def onnx_for_trt(self, cache_dir: Path, create: bool = True) -> Path:
        if self.trt_source is None:
            return self.onnx_for_ort(cache_dir, create)
        return self._onnx(self.trt_source, self.trt_locate, cache_dir, create)

    def _onnx(self, make, locate, cache_dir: Path, create: bool) -> Path:
        """The model file; with ``create`` False nothing is written, and a file not made yet
        raises :class:`RecipeError`."""
        if create or locate is None:
            return make(Path(cache_dir))
        path = locate(Path(cache_dir))
        if not path.is_file():
            raise RecipeError(f"{self.id}: the ONNX model is not exported yet ({path.name}; the daemon or "
                              "eduqa engines ensure writes it)")
        return path


# --------------------------------------------------------------------------
# encoders
# --------------------------------------------------------------------------


def _encoder_profiles() -> tuple[InputProfile, ...]:
    shapes = [tuple((b, s)) for b, s in zip(ENCODER_BATCH, ENCODER_SEQ)]
    return tuple(InputProfile(name, "int64", *shapes) for name in ("input_ids", "attention_mask"))


def _use_m3_paths(cache_dir: Path) -> tuple[Path, Path, str]:
    from engines.encoders import use_m3

    weights, _ = use_m3.package_resources()
    sha12 = use_m3.weights_sha256(weights)[:12]
    return weights, Path(cache_dir) / "models", sha12


def _use_m3_path(cache_dir: Path) -> Path:
    _, models, sha12 = _use_m3_paths(cache_dir)
    return models / f"use-m3-{sha12}.onnx"


def _use_m3_padded_path(cache_dir: Path) -> Path:
    _, models, sha12 = _use_m3_paths(cache_dir)
    return models / f"use-m3-padded-{sha12}.onnx"


def _use_m3_source(cache_dir: Path) -> Path:
    from engines.encoders import use_m3

    path = _use_m3_path(cache_dir)
    return path if path.is_file() else use_m3.build_use_m3_onnx(_use_m3_paths(cache_dir)[0], path)


def _use_m3_trt_source(cache_dir: Path) -> Path:
    from engines.encoders import use_m3_padded

    path = _use_m3_padded_path(cache_dir)
    return path if path.is_file() else use_m3_padded.build_use_m3_padded_onnx(_use_m3_paths(cache_dir)[0], path)


def _use_m3_encoder(backend, max_tokens: int = 128):
    from engines.encoders import use_m3

    weights, sp_model = use_m3.package_resources()
    return use_m3.UseM3Encoder(backend, sp_model, f"use-m3:{use_m3.weights_sha256(weights)[:12]}", max_tokens)


def _minilm_path(cache_dir: Path) -> Path:
    from engines.encoders import minilm

    model_dir = minilm.model_dir_from_package()
    return Path(cache_dir) / "models" / f"minilm-{minilm.weights_sha12(model_dir)}.onnx"


def _minilm_source(cache_dir: Path) -> Path:
    from engines.encoders import minilm

    path = _minilm_path(cache_dir)
    return path if path.is_file() else minilm.export_minilm_onnx(minilm.model_dir_from_package(), path)


def _minilm_encoder(backend, max_tokens: int = 128):
    from engines.encoders import minilm

    model_dir = minilm.model_dir_from_package()
    return minilm.MiniLmEncoder(backend, model_dir, f"minilm:{minilm.weights_sha12(model_dir)}", max_tokens)


def has_no_cjk(text: str) -> bool:
    """True for text without CJK ideographs (MiniLM's tokenizer maps those to [UNK])."""
    return not re.search(r"[\u3400-\u9fff\uf900-\ufaff]", text)


def encoder_recipes() -> list[ModelRecipe]:
    return [
        ModelRecipe(
            id="use-m3",
            task="sentence-encoder",
            source=_use_m3_source,
            trt_source=_use_m3_trt_source,
            locate=_use_m3_path,
            trt_locate=_use_m3_padded_path,
            profiles=_encoder_profiles(),
            precision="int8",
            # The head (d0..d3, p1, p3) and pooling (cnn_W) GEMMs run once per sentence,
            # not per token: INT8 there saves no time and costs accuracy.
            int8_exclude=(r"^(d[0-3]|p[13]|cnn_W)$",),
            make_encoder=_use_m3_encoder,
        ),
        ModelRecipe(
            id="minilm",
            task="sentence-encoder",
            source=_minilm_source,
            locate=_minilm_path,
            profiles=_encoder_profiles(),
            precision="int8",
            # The feed-forward GEMMs stay float: the down-projection reads GELU outputs
            # whose outlier channels no per-tensor INT8 scale holds, and the up-projection
            # alone costs ~0.01 cosine. INT8: the Q/K/V and attention-output projections.
            int8_exclude=(r"layer\.\d+/output/dense/MatMul$", r"intermediate/dense/MatMul$"),
            # Dynamic INT8 (ONNX Runtime on the CPU) takes every GEMM: it scales each call's
            # activations, and keeping the down-projections float cost a quarter of the
            # speed-up (1.5x instead of 2.0x) for a top-1 agreement within the gate either way.
            gate_query_filter=has_no_cjk,
            make_encoder=_minilm_encoder,
        ),
    ]


# --------------------------------------------------------------------------
# PP-OCR (files shipped in rapidocr)
# --------------------------------------------------------------------------

#: model id → attribute of :func:`engines.ocr_models.bundled_models` (files shipped in rapidocr).
OCR_FILES = {"ocr-det": "det", "ocr-rec": "rec", "ocr-cls": "cls"}
#: (batch min/opt/max, height min/opt/max or None = fixed by the file, width min/opt/max)
OCR_RANGES = {
    "ocr-det": ((1, 1, 1), (32, 736, 1280), (32, 736, 1280)),
    "ocr-rec": ((1, 8, 64), None, (32, 320, 1280)),
    "ocr-cls": ((1, 8, 64), (48, 48, 48), (192, 192, 192)),
}


def _packaged(role: str) -> Callable[[Path], Path]:
    def source(cache_dir: Path) -> Path:
        from engines.ocr_models import OcrModelMissing, bundled_models

        try:
            return getattr(bundled_models(), role)
        except OcrModelMissing as exc:
            raise RecipeError(str(exc)) from exc

    return source


def _cls_path(cache_dir: Path) -> Path:
    return Path(cache_dir) / "models" / "ocr-cls-dims.onnx"


def _cls_source(cache_dir: Path) -> Path:
    """The angle classifier names both spatial dims '?', which TensorRT reads as
    one symbol (H == W); write a copy with distinct names."""
    import onnx

    src = _packaged(OCR_FILES["ocr-cls"])(cache_dir)
    dst = _cls_path(cache_dir)
    if dst.is_file() and dst.stat().st_mtime >= src.stat().st_mtime:
        return dst
    model = onnx.load(str(src))
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for dim, name in zip(dims, ("batch", None, "height", "width")):
        if name:
            dim.dim_param = name
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(dst)
    return dst


def _ocr_profile(model_id: str, path: Path) -> InputProfile:
    spec = read_io(path).inputs[0]
    if len(spec.shape) != 4:
        raise RecipeError(f"{path}: expected an NCHW input, got {spec.shape}")
    batch, height, width = OCR_RANGES[model_id]
    fixed_h = spec.shape[2]
    if height is None:
        if fixed_h <= 0:
            raise RecipeError(f"{path}: the height is dynamic; give a range")
        height = (fixed_h,) * 3
    channels = spec.shape[1] if spec.shape[1] > 0 else 3
    shapes = [(b, channels, h, w) for b, h, w in zip(batch, height, width)]
    return InputProfile(spec.name, spec.dtype, *shapes)


def ocr_recipes() -> list[ModelRecipe]:
    recipes = []
    for model_id, file_name in OCR_FILES.items():
        source = _cls_source if model_id == "ocr-cls" else _packaged(file_name)
        try:
            profile = _ocr_profile(model_id, _packaged(file_name)(Path(".")))
        except (RecipeError, OnnxModelError) as exc:
            log.warning("no recipe for %s: %s", model_id, exc)
            continue
        recipes.append(ModelRecipe(id=model_id, task="ocr", source=source, profiles=(profile,), precision="fp16",
                                   locate=_cls_path if model_id == "ocr-cls" else None))
    return recipes


def default_recipes() -> dict[str, ModelRecipe]:
    """Every model the appliance knows, by id."""
    return {r.id: r for r in encoder_recipes() + ocr_recipes()}


def get_recipe(model_id: str, recipes: dict[str, ModelRecipe] | None = None) -> ModelRecipe:
    recipes = default_recipes() if recipes is None else recipes
    try:
        return recipes[model_id]
    except KeyError:
        raise RecipeError(f"unknown model {model_id!r}; known: {', '.join(sorted(recipes))}") from None
