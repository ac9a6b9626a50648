"""Recipes: profiles come from the ONNX files; sources resolve offline."""

from __future__ import annotations

import pytest

from engines.onnx_io import read_io
from engines.recipes import ENCODER_BATCH, ENCODER_SEQ, RecipeError, default_recipes, get_recipe, has_no_cjk

pytest.importorskip("rapidocr")


def test_every_model_has_a_recipe():
    recipes = default_recipes()
    assert {"use-m3", "minilm", "ocr-det", "ocr-rec", "ocr-cls"} <= set(recipes)
    assert recipes["use-m3"].precision == "int8" and recipes["ocr-det"].precision == "fp16"
    with pytest.raises(RecipeError, match="unknown model"):
        get_recipe("nope", recipes)


def test_encoder_profiles():
    for model_id in ("use-m3", "minilm"):
        recipe = get_recipe(model_id)
        assert recipe.input_names == ("input_ids", "attention_mask")
        for p in recipe.profiles:
            assert p.dtype == "int64"
            assert (p.min[0], p.opt[0], p.max[0]) == ENCODER_BATCH == (1, 8, 64)
            assert p.max[1] == ENCODER_SEQ[2] == 128


def test_ocr_profiles_follow_the_files(tmp_path):
    recipes = default_recipes()
    rec = recipes["ocr-rec"].profiles[0]
    spec = read_io(recipes["ocr-rec"].onnx_for_ort(tmp_path)).inputs[0]
    assert (rec.name, rec.dtype) == (spec.name, spec.dtype) == ("x", "float32")
    assert spec.shape[1:3] == (3, 48)  # the file fixes channels and height
    assert rec.min[1:3] == rec.max[1:3] == (3, 48) and rec.max[0] == 64 and rec.max[3] == 1280
    det = recipes["ocr-det"].profiles[0]
    assert det.min == (1, 3, 32, 32) and det.max == (1, 3, 1280, 1280)


def test_cls_copy_gets_distinct_dim_names(tmp_path):
    path = get_recipe("ocr-cls").onnx_for_trt(tmp_path)
    import onnx

    dims = onnx.load(str(path), load_external_data=False).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param for d in dims] == ["batch", "", "height", "width"]


def test_cjk_filter():
    assert has_no_cjk("What is 7 × 8?") and not has_no_cjk("水的沸点是多少？")
