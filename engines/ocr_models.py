"""PP-OCR model files: the PP-OCRv6 ONNX models bundled in the ``rapidocr`` package.

Only locates files and reads their metadata; nothing is downloaded and ``rapidocr``
itself is not imported (its import pulls in its own configuration machinery).
Running the models is the job of a backend (:mod:`engines.ort_backend`, TensorRT).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from engines.backend import BackendError

DET_FILE = "PP-OCRv6_det_small.onnx"
REC_FILE = "PP-OCRv6_rec_small.onnx"
CLS_FILE = "ch_ppocr_mobile_v2.0_cls_mobile.onnx"


class OcrModelMissing(BackendError):
    """The PP-OCR model files are not where they should be."""


@dataclass(frozen=True)
class PpOcrModels:
    det: Path
    rec: Path
    cls: Path

    @property
    def version(self) -> str:
        return "PP-OCRv6-small"


def bundled_models(model_dir: str | Path | None = None) -> PpOcrModels:
    """The det/rec/cls ONNX files in ``model_dir``, or in rapidocr's package folder."""
    folder = Path(model_dir) if model_dir else _rapidocr_models_dir()
    models = PpOcrModels(folder / DET_FILE, folder / REC_FILE, folder / CLS_FILE)
    missing = [p.name for p in (models.det, models.rec, models.cls) if not p.is_file()]
    if missing:
        raise OcrModelMissing(f"OCR model file(s) missing in {folder}: {', '.join(missing)}")
    return models


def _rapidocr_models_dir() -> Path:
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise OcrModelMissing("the rapidocr package is not installed: it ships the PP-OCR models "
                              "(pip install 'rapidocr==3.9.*')")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def character_table(rec_model: str | Path) -> list[str]:
    """The recogniser's output classes: CTC blank, the characters stored in the ONNX
    file's ``character`` metadata, then a space (PaddleOCR's convention)."""
    import onnx

    try:
        model = onnx.load(str(rec_model), load_external_data=False)
    except Exception as exc:  # onnx raises DecodeError, OSError, ...
        raise OcrModelMissing(f"cannot read {rec_model}: {exc}") from exc
    meta = {p.key: p.value for p in model.metadata_props}
    if "character" not in meta:
        raise OcrModelMissing(f"{rec_model} has no 'character' metadata")
    return ["<blank>", *meta["character"].splitlines(), " "]
