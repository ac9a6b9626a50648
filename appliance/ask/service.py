"""The ask path: clean → answer cache → encode → hybrid search → verify → ask log → card."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from appliance.asklog.tokens import AskTokens
from appliance.asklog.log import AskLog, AskRecord, UnknownAskError
from appliance.common.batcher import ItemFailed, MicroBatcher
from appliance.ask.card import ABSTAIN_MESSAGE, CHOOSE_MESSAGE, AnswerCard, SimilarQuestion
from appliance.config import Config
from appliance.ask.dense_index import DenseIndex
from appliance.bank.kb import QuestionBank
from appliance.ask.metrics import ApplianceMetrics
from appliance.asklog.photo_archive import PhotoArchive
from appliance.ask.photo_reading import reads_as, seen_as, starts_as
from appliance.ask.policy import Decision
from appliance.ask.search import Candidate, HybridSearch, Signal
from appliance.ask import calibration
from appliance.ask.calibration import RECALIBRATE_MIN
from appliance.ask.key_term_swap import warm_readings
from appliance.ask.pair_features import question_problem, terse, warm_entry
from appliance.ask.verify import BankContext, TeacherView, Verifier, VerifierModel
from appliance.asklog.teacher_memory import TeacherMemory
from appliance.db import sql
from appliance.db.store import Store
from appliance.common.textnorm import BadQuestionError, clean_question, search_form, trigrams
from appliance.inference.engine_wiring import OCR_MODELS, ocr_backend_factory, open_encoder, open_engines
from engines.encoders import SentenceEncoder

log = logging.getLogger(__name__)

#: ``AskService.open``'s default: make the engines manager from the config.
_OWN_ENGINES = object()


def ocr_opener(config: Config, engines) -> Callable[[], object]:
    """Opens the photo reader: the PP-OCR models served by ``engines`` like the encoder (the
    bundled models only: a school's own ``ocr.model_dir`` or PaddleOCR run as they are)."""
    from appliance.ocr import OcrReader, OcrSettings

    settings = OcrSettings.from_config(config)
    through_engines = engines is not None and settings.backend == "onnx" and not settings.model_dir
    factory = ocr_backend_factory(engines, settings.threads) if through_engines else None
    return lambda: OcrReader.open(settings, backend_factory=factory)

#: After the first recalibration, refit each time this many more judgements are in.
RECALIBRATE_EVERY = 50


class PhotoUnavailable(RuntimeError):
    """This appliance has no photo reader configured."""


class UnreadableQuestionError(BadQuestionError):
    """The encoder failed on this question alone (its batch-mates were answered)."""


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
    #: Opens the photo reader (``appliance.ocr``) on the first photo; None: photo asks are
    #: refused. ``ocr`` is the open reader.
    open_ocr: Callable[[], object] | None = None
    ocr: object | None = None
    #: The engines manager serving the encoder and the OCR models (its per-model status feeds
    #: the status page, the card and /metrics); None when ONNX Runtime FP32 serves directly
    #: (``encoder.engines = false``).
    engines: object | None = None
    #: The verifier's model; None: the one shipped in ``appliance/data/verifier.json``.
    verifier_model: VerifierModel | None = None

    def __post_init__(self) -> None:
        self._encode_lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._ocr_lock = threading.Lock()
        self.tokens = AskTokens(self.store)
        if self.photos is None:
            self.photos = PhotoArchive(self.config.data_dir / "photos", self.config.ask.photo_retention_days)
        self._cache: OrderedDict[tuple[str, int, int], Decision] = OrderedDict()
        self._index_version = -1
        self.memory = TeacherMemory(self.store)
        self.verifier = Verifier(self.verifier_model or VerifierModel.load(),
                                 self.config.search.abstain_below, self.config.search.similar)
        self._context = BankContext.build(-1, [])
        self._teacher = TeacherView()
        self._memory_version = -1
        self._alias_vectors: dict = {}
        self._recalibrated_at = 0
        serving = self.config.serving
        self.encoder_batcher = MicroBatcher(
            self._encode_batch, "encoder", max_batch=serving.batch_max,
            max_wait_ms=serving.batch_wait_ms, max_queue=serving.queue_max,
            on_batch=self.metrics.batch_size.labels("encoder").observe,
        )
        self.metrics.queue_depth.labels("encoder").set_function(lambda: self.encoder_batcher.depth)
        self.metrics.serving.rows = self.serving_rows
        self.refresh_index()
        self.refresh_memory()

    @classmethod
    def open(cls, config: Config, progress: bool = False, signal: Signal = "hybrid",
             load_demo: bool | None = None, engines=_OWN_ENGINES,
             verifier_model: VerifierModel | None = None) -> "AskService":
        """The service over ``config``'s store. ``engines``: the engines manager serving every
        model (the daemon passes the one it made); by default one is made from the config."""
        store = Store(config.db_path)
        bank = QuestionBank(store)
        if config.bank.demo_bank if load_demo is None else load_demo:
            bank.load_demo_if_empty()
        if engines is _OWN_ENGINES:
            engines = open_engines(config)
        encoder = open_encoder(config, engines)
        index = DenseIndex(store, encoder)
        search = HybridSearch(bank, index, candidates=config.search.candidates, signal=signal)
        service = cls(config, store, bank, encoder, index, search, AskLog(store),
                      open_ocr=ocr_opener(config, engines), engines=engines,
                      verifier_model=verifier_model)
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
            rows = self.store.query(sql.KB_QUESTIONS_SEARCH_TEXTS)
            self._context = BankContext.build(version, [form for _, form in rows])
            started = time.perf_counter()
            warm_readings()
            for question, form in rows:  # the memory for the bank's features, taken now
                self.search.warm(question, form)
                warm_entry(question)
            log.info("features of %d bank questions ready in %.1f s", len(rows), time.perf_counter() - started)
            self._index_version = version
            self.clear_answer_cache()

    def refresh_memory(self) -> None:
        """Reload the teachers' aliases and known negatives when they changed (aliases are
        embedded once each); cached answers are forgotten then."""
        if self.memory.version() == self._memory_version:
            return
        with self._refresh_lock:
            snapshot = self.memory.snapshot()
            if snapshot.version == self._memory_version:
                return
            new = sorted({w for _, w in snapshot.aliases} - set(self._alias_vectors))
            if new:
                with self._encode_lock:
                    self._alias_vectors.update(zip(new, self.encoder.encode(new)))
            self._teacher = TeacherView.build(snapshot.aliases, snapshot.negatives, self._alias_vectors)
            self._memory_version = snapshot.version
            self.clear_answer_cache()
        self._maybe_recalibrate()

    def _maybe_recalibrate(self) -> None:
        """Recalibrate in the background each time RECALIBRATE_EVERY more judgements are in
        (from RECALIBRATE_MIN on); asks go on with the current calibration meanwhile."""
        count = self.memory.label_count()
        if count < RECALIBRATE_MIN or count < self._recalibrated_at + RECALIBRATE_EVERY:
            return
        self._recalibrated_at = count
        threading.Thread(target=self._recalibrate_logged, name="recalibrate", daemon=True).start()

    def _recalibrate_logged(self) -> None:
        try:
            self.recalibrate()
        except Exception:  # a failed refit keeps the calibration in use; the asks go on
            log.exception("recalibration failed; the current calibration stays")

    def recalibrate(self) -> bool:
        """Refit the confidence map and the abstain threshold on the school's own judged
        asks, once there are RECALIBRATE_MIN of them. Each judged wording is scored as the
        verifier would score it without the teachers' memory: its most likely entry and raw
        score, labelled right when that is the entry a teacher approved, wrong when it is
        one a teacher rejected (or another than the approved one)."""
        labels = self.memory.labels()
        if len(labels) < RECALIBRATE_MIN:
            return False
        vectors = self._encode_direct([label.wording for label in labels])
        raws, rights, terse_flags = [], [], []
        for label, vector in zip(labels, vectors):
            ranked = self.search.search(label.wording, vector, bank_version=self._index_version)
            scored = self.verifier.score(label.wording, vector, ranked, self._context, TeacherView())
            if not scored:
                continue
            top = scored[0]
            if label.right or top.entry["id"] == label.entry_id:
                raws.append(top.raw)
                rights.append(label.right and top.entry["id"] == label.entry_id)
                terse_flags.append(terse(question_problem(label.wording)))
        try:
            fitted = calibration.fit_on_decisions(raws, rights)
        except calibration.CalibrationError as exc:
            log.warning("recalibration skipped: %s", exc)
            return False
        terse_at = calibration.terse_threshold(fitted(np.asarray(raws, float)), rights, terse_flags)
        self.verifier.model = self.verifier.model.with_calibration(
            fitted.x, fitted.y, fitted.threshold, f"recalibrated on {len(raws)} of the school's judged asks",
            terse_threshold=terse_at)
        self.clear_answer_cache()
        log.info("recalibrated on %d judged asks: abstain below %.3f", len(raws), fitted.threshold)
        return True

    def _encode_direct(self, texts: list[str]):
        with self._encode_lock:
            return self.encoder.encode(texts)

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
            from appliance.ocr import OcrSettings
            from appliance.ocr.crop import crop_photo

            photo = crop_photo(photo, crop, OcrSettings.from_config(self.config).limits)
        result = self._photo_reader().read(photo, client=client)
        for stage, ms in result.stage_ms.items():
            watch.stages[f"ocr_{stage}"] = ms
        watch.lap("ocr")
        if not result.cached:
            self.metrics.record_photo_read(result.unread)
        self.photos.save(photo)
        if result.empty:
            return self._unreadable_photo(result, client, watch)
        if result.ambiguous:
            return self._ambiguous_photo(result, client, watch)
        return self._ask(result.text, client, "photo", watch, ocr=result)

    def prepare_photos(self) -> None:
        """Open the photo reader now rather than at the first photo (the daemon calls this in
        the background at start: a fresh install builds and gates its INT8 detector then,
        so the first class's photos do not wait for it). A failure is logged; the first
        photo ask then tries again and reports it."""
        try:
            self._photo_reader()
        except Exception as exc:  # noqa: BLE001 - logged; the ask path reports it properly
            log.warning("the photo reader could not be prepared at start: %s", exc)

    def _photo_reader(self):
        with self._ocr_lock:
            if self.ocr is None:
                if self.open_ocr is None:
                    raise PhotoUnavailable("photo questions are not available on this appliance")
                self.ocr = self.open_ocr()
            return self.ocr

    def serving_rows(self) -> list[tuple[str, str, str]]:
        """(model, backend, precision) of every model serving now: the engines manager's
        status (which a failover changes), else what the encoder and the OCR step say."""
        rows = [(s.model_id, s.serving, s.precision) for s in self.engines.status()] if self.engines else []
        served = {row[0] for row in rows}
        model = self.encoder.model_key.split(":", 1)[0]
        if model not in served:
            rows.append((model, self.encoder.backend_name, getattr(self.encoder, "precision", "fp32")))
        if self.ocr is not None and not served & set(OCR_MODELS.values()):
            rows.append(("ocr", str(getattr(self.ocr, "backend", "")), ""))
        # The OCR step's own swaps: its gated INT8 detector and BF16 recogniser (docs/OCR.md).
        for role, (backend, precision) in getattr(getattr(self.ocr, "pipeline", None), "lowered", {}).items():
            model = OCR_MODELS[role]
            rows = [row for row in rows if row[0] != model] + [(model, backend, precision)]
        return rows

    def served_by(self, photo: bool) -> dict[str, str]:
        """Model → "backend precision" of the models that answer one ask (text: the encoder;
        photo: also the OCR models)."""
        model = self.encoder.model_key.split(":", 1)[0]
        wanted = {model} | ({"ocr", *OCR_MODELS.values()} if photo else set())
        return {m: f"{b} {p}".strip() for m, b, p in self.serving_rows() if m in wanted}

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
                          backend=result.backend, ask_token=self.tokens.token(ask_id), served_by=self.served_by(photo=True))

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
        self.refresh_memory()
        look_alikes, evidence = (ocr.look_alikes, ocr.evidence) if ocr else ((), ())
        seen = ocr.sha256 if evidence else None  # a photo's decision may rest on what its recogniser saw
        key = (search_form(question.text), self._index_version, self._memory_version, ocr is not None, look_alikes, seen)
        with self._cache_lock:
            decision = self._cache.get(key)
        cached = decision is not None
        self.metrics.cache.labels("answer", "hit" if cached else "miss").inc()
        watch.lap("cache")
        if decision is None:
            decision = self._decide(question.text, watch, photo=ocr is not None, look_alikes=look_alikes,
                                    evidence=evidence)
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
        card = self._card(ask_id, question, decision, watch.stages, cached, photo=ocr is not None)
        return dataclasses.replace(card, corrects=corrects) if corrects is not None else card

    def decide_only(self, text: str, photo: bool = False, look_alikes: tuple[tuple[str, str], ...] = (),
                    evidence: tuple = ()) -> Decision:
        """The decision for a question without logging it (evaluation, benchmarks);
        ``photo``: the text was read from a photo (``look_alikes``, ``evidence``: the
        ``OcrResult``'s)."""
        question = clean_question(text, self.config.ask.max_question_chars)
        self.refresh_index()
        self.refresh_memory()
        return self._decide(question.text, _Stopwatch(), photo=photo, look_alikes=look_alikes, evidence=evidence)

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
        return self.decide_only(result.text, photo=True, look_alikes=result.look_alikes, evidence=result.evidence)

    def _decide(self, question: str, watch: _Stopwatch, photo: bool = False,
                look_alikes: tuple[tuple[str, str], ...] = (), evidence: tuple = ()) -> Decision:
        """The verifier's decision; for a photo's text that abstains, the decision for the
        close bank question it reads as (:func:`photo_reading.reads_as`: O read as 0, x²
        read as x2, the problem number left before it, a character the recogniser nearly
        read as the printed one), if one does; else for the one candidate the recogniser's
        steps support (:func:`photo_reading.seen_as`), if only one is; else for the one the
        reading begins with, a student's writing after it (:func:`photo_reading.starts_as`)."""
        decision, ranked = self._verified(question, watch)
        if photo and decision.abstained:
            # the verifier's closest first, then every other candidate the search found
            found = [e["question"] for _, e in [*decision.similar, *ranked]]
            printed = next((q for q in found if reads_as(question, q, look_alikes)), None)
            if printed is None and evidence:
                printed = seen_as(evidence, question, found)
            if printed is None:
                printed = starts_as(question, found)
            if printed is not None:
                decision, _ = self._verified(printed, watch)
        return decision

    def _verified(self, question: str, watch: _Stopwatch) -> tuple[Decision, list[tuple[Candidate, dict]]]:
        """The verifier's decision and the candidates the search found for it."""
        try:
            vector, dense_top = self.encoder_batcher.submit(question, timeout_s=self.config.serving.deadline_s)
        except ItemFailed:
            raise UnreadableQuestionError("this question could not be read; retype it in plain words") from None
        watch.lap("encode")
        ranked = self.search.search(question, vector, dense_top, bank_version=self._index_version)
        ranked = ranked + self._alias_candidates(question, vector, ranked)
        watch.lap("search")
        scored = self.verifier.score(question, vector, ranked, self._context, self._teacher)
        decision = self.verifier.decide(scored, question)
        watch.lap("policy")
        return decision, ranked

    def _alias_candidates(self, question: str, vector, ranked: list) -> list[tuple[Candidate, dict]]:
        """Entries whose teacher-approved wordings read like the question, when retrieval
        did not bring them: an alias is searched like a question of its entry."""
        seen = {entry["id"] for _, entry in ranked}
        wanted = [e for e in self._teacher.entries_near(search_form(question)) if e not in seen]
        if not wanted:
            return []
        found = self.bank.get_many(wanted)
        q_grams = trigrams(search_form(question))
        extra = []
        for entry_id, entry in found.items():
            dense = self.index.cosine(vector, entry_id)
            lexical = len(q_grams & trigrams(entry["search_text"])) / len(q_grams) if q_grams else 0.0
            similarity = dense + 0.25 * lexical
            extra.append((Candidate(entry_id, dense, lexical, 0.0, True, None, similarity, similarity), entry))
        return extra

    def _remember(self, key: tuple[str, int, int], decision: Decision) -> None:
        with self._cache_lock:
            self._cache[key] = decision
            while len(self._cache) > self.config.ask.cache_size:
                self._cache.popitem(last=False)

    def _card(self, ask_id: int, question, decision: Decision, stages: dict, cached: bool,
              photo: bool = False) -> AnswerCard:
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
            served_by=self.served_by(photo),
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
