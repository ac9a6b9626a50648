"""``eduqa bench-ask``: the warm ask path timed on a generated bank of any size.

The bank is the demo bank plus generated problems (templates × random numbers, in
Chinese and English), built in a throwaway data directory so the school's own data
is never touched. Figures: indexing throughput, then per-ask latency percentiles
end to end and per stage.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path

from appliance.bank.bank_file import BankEntry
from appliance.config import Config
from appliance.bench.evaluation import read_queries
from appliance.bank.kb import demo_eval_path

_TEMPLATES = (
    ("math", "7", "解方程：{a}x + {b} = {c}"),
    ("math", "8", "一个长方形的长是{a}厘米，宽是{b}厘米，它的面积是多少？"),
    ("math", "6", "计算：{a} × {b} + {c} = ?"),
    ("math", "9", "已知直角三角形两条直角边分别为{a}和{b}，求斜边长。"),
    ("math", "5", "小明有{a}个苹果，吃掉了{b}个，又买了{c}个，现在有几个？"),
    ("math", "8", "Solve for x: {a}x - {b} = {c}"),
    ("math", "7", "A train travels {a} km in {b} hours. What is its average speed?"),
    ("physics", "8", "一个物体质量为{a}千克，受到{b}牛的合力，求它的加速度。"),
    ("physics", "9", "电阻为{a}欧的导体两端电压为{b}伏，通过它的电流是多少？"),
    ("physics", "8", "汽车以{a}米每秒的速度行驶{b}秒，通过的路程是多少？"),
    ("chemistry", "9", "{a}克氢气完全燃烧，需要多少克氧气？"),
    ("chemistry", "9", "配制{a}克质量分数为{b}%的氯化钠溶液，需要氯化钠多少克？"),
    ("biology", "7", "一个细胞连续分裂{a}次，会得到多少个细胞？"),
    ("geography", "7", "比例尺为1:{a}的地图上，两地相距{b}厘米，实际距离是多少千米？"),
    ("history", "8", "公元前{a}年到公元{b}年一共经过了多少年？"),
    ("english", "7", "Fill in the blank: There are {a} students in Class {b}, and ___ of them like football."),
)


def generate_bank(size: int, seed: int = 7) -> list[BankEntry]:
    rng = random.Random(seed)
    entries, seen = [], set()
    while len(entries) < size:
        subject, grade, template = rng.choice(_TEMPLATES)
        question = template.format(a=rng.randint(2, 999), b=rng.randint(2, 99), c=rng.randint(2, 999))
        if question in seen:
            continue
        seen.add(question)
        entries.append(BankEntry(
            id=f"gen-{len(entries):06d}", subject=subject, grade=grade, question=question,
            answer="（生成的基准题，答案略）generated benchmark entry", knowledge_points=("基准",),
            source="benchmark generator",
        ))
    return entries


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_ask_bench(config: Config, bank_size: int, asks: int, seed: int = 7) -> dict:
    from appliance.ask.service import AskService

    with tempfile.TemporaryDirectory(prefix="eduqa-bench-") as tmp:
        # Keep the model cache of the real data dir: the ONNX export is not what we time.
        bench_config = dataclasses.replace(config, data_dir=Path(tmp))
        bench_config.cache_dir.parent.mkdir(parents=True, exist_ok=True)
        (Path(tmp) / "cache").symlink_to(config.cache_dir.resolve(), target_is_directory=True)
        config.cache_dir.mkdir(parents=True, exist_ok=True)
        service = AskService.open(bench_config, load_demo=True)
        demo_size = service.bank.count()
        service.bank.upsert(generate_bank(max(0, bank_size - demo_size), seed), "benchmark")
        started = time.perf_counter()
        service.refresh_index()
        index_seconds = time.perf_counter() - started
        indexed = service.index.matrix.shape[0]

        queries = [q.query for q in read_queries(demo_eval_path())]
        rng = random.Random(seed)
        for text in rng.sample(queries, min(50, len(queries))):  # warm-up, caches cleared below
            service.ask(text, client="bench")
        totals, stages = [], {}
        for i in range(asks):
            service.clear_answer_cache()  # time the full path, not the answer cache
            text = queries[i % len(queries)]
            started = time.perf_counter()
            card = service.ask(text, client="bench")
            totals.append((time.perf_counter() - started) * 1000)
            for stage, ms in card.stage_ms.items():
                stages.setdefault(stage, []).append(ms)
        backend, model_key = service.encoder.backend_name, service.encoder.model_key
        service.close()
    return {
        "encoder": config.encoder.model,
        "backend": backend,
        "model_key": model_key,
        "bank_entries": indexed,
        "index_seconds": round(index_seconds, 2),
        "index_entries_per_s": round((indexed - demo_size) / index_seconds, 1) if index_seconds else None,
        "asks": asks,
        "median_ms": round(statistics.median(totals), 2),
        "p95_ms": round(_percentile(totals, 0.95), 2),
        "p99_ms": round(_percentile(totals, 0.99), 2),
        "stage_median_ms": {s: round(statistics.median(v), 3) for s, v in stages.items()},
    }
