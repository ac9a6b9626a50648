"""The ask path: clean → answer cache → encode → hybrid search → policy → ask log → card."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from appliance.asklog.tokens import AskTokens
from appliance.asklog.log import AskLog, AskRecord, UnknownAskError
from appliance.common.batcher import MicroBatcher
from appliance.ask.card import ABSTAIN_MESSAGE, CHOOSE_MESSAGE, AnswerCard, SimilarQuestion
from appliance.config import Config
from appliance.ask.dense_index import DenseIndex
from appliance.bank.kb import QuestionBank
from appliance.ask.metrics import ApplianceMetrics
from appliance.asklog.photo_archive import PhotoArchive
from appliance.ask.policy import Decision, decide
from appliance.ask.search import HybridSearch, Signal
from appliance.db.store import Store
from appliance.common.textnorm import clean_question, search_form
from appliance.inference.engine_wiring import open_encoder
from engines.encoders import SentenceEncoder

log = logging.getLogger(__name__)


class PhotoUnavailable(RuntimeError):
    """This appliance has no photo reader configured."""


class NotAPhotoAsk(ValueError):
    """A correction names an ask that is not a photo ask of this log."""


class _Stopwatch:
    def __init__(self) -> None:
        self.stages: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.stages[stage] = round((now - self._last) * 1000, 3)
        self._last = now


@dataclass
class AskService:
    config: Config
    store: Store
    bank: QuestionBank
    encoder: SentenceEncoder
    index: DenseIndex
    search: HybridSearch
    asks: AskLog
    metrics: ApplianceMetrics = field(default_factory=ApplianceMetrics)
    #: Kept photos (under the data dir, with retention).
    photos: PhotoArchive | None = None
    #: How to open the photo reader (``appliance.ocr``) on the first photo; None: photo
    #: asks are refused. ``ocr`` is the open reader.
    ocr_settings: object | None = None
    ocr: object | None = None
    #: The engines manager serving the encoder (its per-model status feeds the status page);
    #: None when ONNX Runtime FP32 serves directly (``encoder.engines = false``).
    engines: object | None = None

    def __post_init__(self) -> None:
        self._encode_lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._ocr_lock = threading.Lock()
        self.tokens = AskTokens(self.store)
        if self.photos is None:
            self.photos = PhotoArchive(self.config.data_dir / "photos", self.config.ask.photo_retention_days)
        self._cache: OrderedDict[tuple[str, int], Decision] = OrderedDict()
        self._index_version = -1
        serving = self.config.serving
        self.encoder_batcher = MicroBatcher(
            self._encode_batch, "encoder", max_batch=serving.batch_max,
            max_wait_ms=serving.batch_wait_ms, max_queue=serving.queue_max,
            on_batch=self.metrics.batch_size.labels("encoder").observe,
        )
        self.metrics.queue_depth.labels("encoder").set_function(lambda: self.encoder_batcher.depth)
        self.metrics.backend.labels(self.encoder.model_key, self.encoder.backend_name).set(1)
        self.refresh_index()

    @classmethod
    def open(cls, config: Config, progress: bool = False, signal: Signal = "hybrid",
             load_demo: bool | None = None) -> "AskService":
        store = Store(config.db_path)
        bank = QuestionBank(store)
        if config.bank.demo_bank if load_demo is None else load_demo:
            bank.load_demo_if_empty()
        encoder, engines = open_encoder(config)
        index = DenseIndex(store, encoder)
        search = HybridSearch(bank, index, candidates=config.search.candidates, signal=signal)
        from appliance.ocr import OcrSettings

        service = cls(config, store, bank, encoder, index, search, AskLog(store),
                      ocr_settings=OcrSettings.from_config(config), engines=engines)
        service.photos.prune()
        if progress:
            service.refresh_index(progress=True)
        return service

    def refresh_index(self, progress: bool = False) -> None:
        """Bring the dense index up to date with the bank (only changed entries are embedded)."""
        if self.bank.version() == self._index_version:  # every ask: no lock on the way
            return
        with self._refresh_lock:
            version = self.bank.version()
            if version == self._index_version:
                return
            with self._encode_lock:
                self.index.refresh(progress=progress)
            self._index_version = version
            self.clear_answer_cache()

    def clear_answer_cache(self) -> None:
        with self._cache_lock:
            self._cache.clear()

    def ask(self, text: str, client: str = "", kind: str = "text") -> AnswerCard:
        """Answer one question. The ask is in the log before this returns."""
        return self._ask(text, client, kind, _Stopwatch(), ocr=None)

    def ask_correction(self, text: str, photo_ask_id: int, client: str = "") -> AnswerCard:
        """Ask the text the student edited (or picked) after a photo ask; logged as a
        correction of that photo ask (kind ``photo_edit``, ``corrects_ask_id``)."""
        try:
            original = self.asks.get(int(photo_ask_id))
        except (UnknownAskError, ValueError, TypeError):
            raise NotAPhotoAsk(f"no photo ask {photo_ask_id!r} to correct") from None
        if original["kind"] not in ("photo", "photo_edit"):
            raise NotAPhotoAsk(f"ask {photo_ask_id} was not asked by photo")
        first = original["corrects_ask_id"] or original["id"]  # corrections chain to the photo ask
        return self._ask(text, client, "photo_edit", _Stopwatch(), ocr=None, corrects=first)

    def ask_photo(self, photo: bytes, client: str = "", crop: tuple | None = None) -> AnswerCard:
        """Answer a photographed question: OCR, then the text path. The photo is kept under
        the data dir. Raises ``ImageRejected`` for an upload that is not a usable photo; a
        photo without text gets an abstaining card and is logged for the teacher. ``crop``
        (x0, y0, x1, y1 in the upright photo's pixels): only that part is read and kept."""
        watch = _Stopwatch()
        if crop is not None:
            from appliance.ocr.crop import crop_photo
            from appliance.ocr.image import ImageLimits

            limits = self.ocr_settings.limits if self.ocr_settings is not None else ImageLimits()
            photo = crop_photo(photo, crop, limits)
        result = self._photo_reader().read(photo)
        for stage, ms in result.stage_ms.items():
            watch.stages[f"ocr_{stage}"] = ms
        watch.lap("ocr")
        self.photos.save(photo)
        if result.empty:
            return self._unreadable_photo(result, client, watch)
        if result.ambiguous:
            return self._ambiguous_photo(result, client, watch)
        return self._ask(result.text, client, "photo", watch, ocr=result)

    def _photo_reader(self):
        with self._ocr_lock:
            if self.ocr is None:
                if self.ocr_settings is None:
                    raise PhotoUnavailable("photo questions are not available on this appliance")
                from appliance.ocr import OcrReader

                self.ocr = OcrReader.open(self.ocr_settings)
            return self.ocr

    def _unreadable_photo(self, result, client: str, watch: _Stopwatch) -> AnswerCard:
        from appliance.ocr import NoTextFound

        ask_id = self.asks.record(AskRecord(
            client=client, kind="photo", question="", truncated=False, matched_id=None,
            confidence=0.0, abstained=True, stage_ms=watch.stages, backend=result.backend,
            ocr_text="", ocr_confidence=0.0, photo_sha256=result.sha256,
        ))
        watch.lap("log")
        self.metrics.record_ask("photo", "no_text", watch.stages, sum(watch.stages.values()))
        return AnswerCard(ask_id=ask_id, question="", abstained=True, confidence=0.0,
                          message=NoTextFound.MESSAGE, stage_ms=watch.stages,
                          backend=result.backend, ask_token=self.tokens.token(ask_id))

    def _ambiguous_photo(self, result, client: str, watch: _Stopwatch) -> AnswerCard:
        """Two or more whole problems with equal claim: no answer, the student picks one."""
        ask_id = self.asks.record(AskRecord(
            client=client, kind="photo", question="", truncated=False, matched_id=None,
            confidence=0.0, abstained=True, stage_ms=watch.stages, backend=result.backend,
            ocr_text=result.page_text, ocr_confidence=result.confidence, photo_sha256=result.sha256,
        ))
        watch.lap("log")
        self.metrics.record_ask("photo", "ambiguous", watch.stages, sum(watch.stages.values()))
        limit = self.config.ask.max_question_chars
        return AnswerCard(ask_id=ask_id, question="", abstained=True, confidence=0.0, message=CHOOSE_MESSAGE,
                          stage_ms=watch.stages, backend=result.backend, ask_token=self.tokens.token(ask_id),
                          choices=[choice[:limit] for choice in result.choices])

    def _ask(self, text: str, client: str, kind: str, watch: "_Stopwatch", ocr,
             corrects: int | None = None) -> AnswerCard:
        question = clean_question(text, self.config.ask.max_question_chars)
        watch.lap("normalise")
        self.refresh_index()
        key = (search_form(question.text), self._index_version)
        with self._cache_lock:
            decision = self._cache.get(key)
        cached = decision is not None
        self.metrics.cache.labels("answer", "hit" if cached else "miss").inc()
        watch.lap("cache")
        if decision is None:
            decision = self._decide(question.text, watch)
            self._remember(key, decision)
        best = decision.best
        ask_id = self.asks.record(AskRecord(
            client=client, kind=kind, question=question.text, truncated=question.truncated,
            matched_id=best[1]["id"] if best else None, confidence=decision.confidence,
            abstained=decision.abstained, stage_ms=watch.stages, backend=self.encoder.backend_name,
            ocr_text=(ocr.page_text or ocr.text) if ocr else None,
            ocr_confidence=ocr.confidence if ocr else None,
            photo_sha256=ocr.sha256 if ocr else None, corrects=corrects,
        ))
        watch.lap("log")
        total = sum(ms for stage, ms in watch.stages.items() if not stage.startswith("ocr_"))
        self.metrics.record_ask(kind, "abstained" if decision.abstained else "answered", watch.stages, total)
        card = self._card(ask_id, question, decision, watch.stages, cached)
        return dataclasses.replace(card, corrects=corrects) if corrects is not None else card

    def decide_only(self, text: str) -> Decision:
        """The decision for a question without logging it (evaluation, benchmarks)."""
        question = clean_question(text, self.config.ask.max_question_chars)
        self.refresh_index()
        return self._decide(question.text, _Stopwatch())

    def _encode_batch(self, texts: list[str]) -> list[tuple]:
        """One batch: embed the questions, then the dense top candidates of all of them in
        one pass over the bank's matrix. Each caller gets (vector, dense top)."""
        with self._encode_lock:
            vectors = self.encoder.encode(texts)
        tops = self.index.top_many(vectors, self.search.candidates)
        return list(zip(vectors, tops))

    def decide_photo_only(self, photo: bytes) -> Decision:
        """The decision for a photographed question without logging it (evaluation)."""
        result = self._photo_reader().read(photo)
        if result.empty or result.ambiguous:
            return Decision(None, 0.0, True, [])
        return self.decide_only(result.text)

    def _decide(self, question: str, watch: _Stopwatch) -> Decision:
        vector, dense_top = self.encoder_batcher.submit(question, timeout_s=self.config.serving.deadline_s)
        watch.lap("encode")
        ranked = self.search.search(question, vector, dense_top, bank_version=self._index_version)
        watch.lap("search")
        decision = decide(ranked, self.config.search.abstain_below, self.config.search.similar)
        watch.lap("policy")
        return decision

    def _remember(self, key: tuple[str, int], decision: Decision) -> None:
        with self._cache_lock:
            self._cache[key] = decision
            while len(self._cache) > self.config.ask.cache_size:
                self._cache.popitem(last=False)

    def _card(self, ask_id: int, question, decision: Decision, stages: dict, cached: bool) -> AnswerCard:
        notices = []
        if question.truncated:
            notices.append(
                f"问题太长，只用了前 {self.config.ask.max_question_chars} 个字。"
                f" (Question cut to its first {self.config.ask.max_question_chars} characters.)"
            )
        if question.removed_controls:
            notices.append(f"removed {question.removed_controls} control character(s)")
        similar = [SimilarQuestion(e["id"], e["question"], round(c.score, 4)) for c, e in decision.similar]
        common = dict(
            ask_id=ask_id, question=question.text, confidence=round(decision.confidence, 4),
            similar=similar, notices=notices, truncated=question.truncated, stage_ms=stages,
            backend=self.encoder.backend_name, cached=cached, ask_token=self.tokens.token(ask_id),
        )
        if decision.best is None:
            return AnswerCard(abstained=True, message=ABSTAIN_MESSAGE, **common)
        _, entry = decision.best
        return AnswerCard(
            abstained=False, answer=entry["answer"], matched_id=entry["id"],
            matched_question=entry["question"], subject=entry["subject"],
            knowledge_points=entry["knowledge_points"], source=entry["source"], **common,
        )

    def close(self) -> None:
        """Finish queued work, flush the ask log, close the database."""
        self.encoder_batcher.close()
        if self.ocr is not None:
            self.ocr.close()
        self.asks.close()
        self.store.close()
