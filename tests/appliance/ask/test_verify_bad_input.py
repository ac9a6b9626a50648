"""Any text gets a card through search and verification, or a clear refusal (a
:class:`BadQuestionError`: empty, not valid text, too long), never another exception."""

import pytest

from appliance.ask.service import AskService
from appliance.common.textnorm import BadQuestionError, EmptyQuestionError

ODD_TEXTS = [
    "😀🤖🧮 ➕ 😀",
    "？！，。…… ——!!!???",
    "解方程 2x+3=13 ولكن Привет 🙂 x² a₁₀ H₂O “引号” 《书名》 (go / went)",
    "((((((((((((((((((((",
    "^^^^____****////",
    "1,000,000,000 000 000.5 −−−3 ²³⁴₅₆",
]


@pytest.fixture(scope="module")
def service(tmp_path_factory, model_cache):
    import dataclasses

    from appliance.config import Config

    data_dir = tmp_path_factory.mktemp("bad-input")
    (data_dir / "cache").symlink_to(model_cache, target_is_directory=True)
    svc = AskService.open(dataclasses.replace(Config(), data_dir=data_dir))
    yield svc
    svc.close()


@pytest.mark.parametrize("text", ODD_TEXTS, ids=range(len(ODD_TEXTS)))
def test_odd_text_gets_a_card(service, text):
    card = service.ask(text)
    assert 0.0 <= card.confidence <= 1.0
    assert card.abstained or card.matched_id
    assert service.asks.get(card.ask_id) is not None


def test_whitespace_only_is_refused_clearly(service):
    with pytest.raises(EmptyQuestionError):
        service.ask(" \u200b\t ")


@pytest.mark.parametrize("text", ["x\ud800y 解方程 \udfff", "9" * 100_000], ids=["lone-surrogates", "100k-digits"])
def test_text_that_is_no_question_is_refused_clearly(service, text):
    with pytest.raises(BadQuestionError):
        service.ask(text)
