"""The bank's embeddings as one in-memory matrix, kept in step with SQLite.

Vectors are stored per model key in ``kb_embeddings`` with the sha256 of the text
they embed, so a refresh embeds only new or edited entries.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from appliance.db import sql
from appliance.db.store import Store
from engines.encoders import SentenceEncoder

log = logging.getLogger(__name__)

EMBED_BATCH = 64


@dataclass(frozen=True)
class RefreshReport:
    entries: int
    embedded: int
    seconds: float


class DenseIndex:
    def __init__(self, store: Store, encoder: SentenceEncoder):
        self.store = store
        self.encoder = encoder
        self._snapshot = _Snapshot([], np.zeros((0, encoder.dim), dtype=np.float32), {})

    @property
    def ids(self) -> list[str]:
        return self._snapshot.ids

    @property
    def matrix(self) -> np.ndarray:
        return self._snapshot.matrix

    def refresh(self, progress: bool = False) -> RefreshReport:
        """Embed entries that have no vector for this model (or an outdated one), then
        rebuild the in-memory matrix."""
        started = time.perf_counter()
        rows = self.store.query(sql.EMB_FOR_MODEL, (self.encoder.model_key,))
        ids, vectors, stale = [], [], []
        for entry_id, question, text_sha, blob in rows:
            sha = _sha(question)
            ids.append(entry_id)
            if blob is not None and text_sha == sha:
                vectors.append(np.frombuffer(blob, dtype=np.float32))
            else:
                vectors.append(None)
                stale.append((len(ids) - 1, entry_id, question, sha))
        self._embed_stale(stale, vectors, progress)
        matrix = np.vstack(vectors).astype(np.float32) if vectors else self.matrix[:0]
        # One assignment: a search running meanwhile sees the old index or the new, never a mix.
        self._snapshot = _Snapshot(ids, matrix, {entry_id: i for i, entry_id in enumerate(ids)})
        report = RefreshReport(len(ids), len(stale), time.perf_counter() - started)
        if stale:
            log.info("embedded %d of %d entries in %.1f s", report.embedded, report.entries, report.seconds)
        return report

    def _embed_stale(self, stale: list, vectors: list, progress: bool) -> None:
        bar = tqdm(total=len(stale), desc="embedding bank", unit="entry", disable=not progress)
        for start in range(0, len(stale), EMBED_BATCH):
            chunk = stale[start : start + EMBED_BATCH]
            embedded = self.encoder.encode([question for _, _, question, _ in chunk])
            with self.store.transaction() as conn:
                conn.executemany(
                    sql.EMB_UPSERT,
                    [(entry_id, self.encoder.model_key, sha, vec.astype(np.float32).tobytes())
                     for (_, entry_id, _, sha), vec in zip(chunk, embedded)],
                )
            for (row, *_), vec in zip(chunk, embedded):
                vectors[row] = vec
            bar.update(len(chunk))
        bar.close()

    def top(self, query_vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The ``k`` entries with the highest cosine to ``query_vector`` (unit vectors)."""
        return self.top_many(np.asarray(query_vector)[None, :], k)[0]

    def top_many(self, query_vectors: np.ndarray, k: int) -> list[list[tuple[str, float]]]:
        """:meth:`top` for a batch of queries (rows), in one pass over the matrix: the
        matrix is read from memory once per batch instead of once per question."""
        snap = self._snapshot
        if not snap.ids:
            return [[] for _ in range(len(query_vectors))]
        scores = np.asarray(query_vectors, dtype=np.float32) @ snap.matrix.T
        k = min(k, scores.shape[1])
        hits = []
        for row in scores:
            best = np.argpartition(-row, k - 1)[:k]
            best = best[np.argsort(-row[best])]
            hits.append([(snap.ids[i], float(row[i])) for i in best])
        return hits

    def cosine(self, query_vector: np.ndarray, entry_id: str) -> float:
        snap = self._snapshot
        row = snap.row_of.get(entry_id)
        return float(snap.matrix[row] @ query_vector) if row is not None else 0.0


@dataclass(frozen=True)
class _Snapshot:
    ids: list[str]
    matrix: np.ndarray
    row_of: dict[str, int]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
