import numpy as np
import pytest

from appliance.ask import search as search_module
from appliance.bank.bank_file import BankEntry
from appliance.ask.dense_index import DenseIndex
from appliance.bank.kb import QuestionBank
from appliance.ask.search import HybridSearch
from appliance.db.store import Store
from appliance.common.textnorm import search_form, trigrams


class _HashEncoder:
    """A stand-in encoder: a fixed random unit vector per text (no model needed)."""

    model_key = "hash:1"
    dim = 16
    backend_name = "test"

    def encode(self, texts):
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(self.dim) for t in texts]
        matrix = np.array(rows, dtype=np.float32)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture
def bank_and_index(tmp_path):
    store = Store(tmp_path / "eduqa.db")
    bank = QuestionBank(store)
    # Every entry shares the framing "求下列方程的解" (common trigrams); each has its own number words.
    words = ["甲乙丙", "丁戊己", "庚辛壬", "子丑寅", "卯辰巳", "午未申", "酉戌亥", "春夏秋"]
    entries = [BankEntry(f"e{i}", "math", "7", f"求下列方程的解：{w}", f"答案 {i}", ("kp",), "ch")
               for i, w in enumerate(words)]
    bank.upsert(entries, origin="test")
    index = DenseIndex(store, _HashEncoder())
    index.refresh()
    yield bank, index
    store.close()


def test_batched_dense_top_equals_one_question_at_a_time(bank_and_index):
    _, index = bank_and_index
    queries = _HashEncoder().encode(["a", "b", "c"])
    batched, single = index.top_many(queries, 3), [index.top(q, 3) for q in queries]
    assert [[i for i, _ in hits] for hits in batched] == [[i for i, _ in hits] for hits in single]
    assert np.allclose([[s for _, s in h] for h in batched], [[s for _, s in h] for h in single], atol=1e-6)


def test_bm25_leaves_out_trigrams_most_entries_hold(bank_and_index, monkeypatch):
    bank, index = bank_and_index
    search = HybridSearch(bank, index, candidates=5)
    question = search_form("求下列方程的解：午未申")
    search._known_text()
    assert set(search._query_trigrams(question)) == trigrams(question)  # small bank: nothing left out
    monkeypatch.setattr(search_module, "COMMON_MIN", 2)  # "common" now means in more than 2 entries
    kept = search._query_trigrams(question)
    assert kept and all("午" in g or "未" in g or "申" in g for g in kept)
    hits = search._bm25(question)
    assert next(iter(hits)) == "e5"


def test_bm25_keeps_the_rarest_trigrams_when_the_question_is_long(bank_and_index, monkeypatch):
    bank, index = bank_and_index
    search = HybridSearch(bank, index, candidates=5)
    search._known_text()
    form = search_form("求下列方程的解：酉戌亥")
    own = {g for g in trigrams(form) if set(g) & set("酉戌亥")}  # held by entry e6 alone
    monkeypatch.setattr(search_module, "MAX_QUERY_TRIGRAMS", len(own))
    assert set(search._query_trigrams(form)) == own


def test_entry_cache_is_forgotten_when_the_bank_changes(bank_and_index):
    bank, index = bank_and_index
    search = HybridSearch(bank, index, candidates=5)
    question = "求下列方程的解：甲乙丙"
    vector = _HashEncoder().encode([question])[0]

    def answers():
        return {e["id"]: e["answer"] for _, e in search.search(question, vector)}

    assert answers()["e0"] == "答案 0"
    bank.upsert([BankEntry("e0", "math", "7", question, "新答案", ("kp",), "ch")], origin="test")
    index.refresh()
    assert answers()["e0"] == "新答案"
