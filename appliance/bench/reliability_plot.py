"""The reliability plot of the ask path's confidence on query sets (docs/reliability.png).

    python -m appliance.bench.reliability_plot OUT.png SET.csv [SET.csv ...]

Each set is asked through the full path (default encoder, demo bank, throwaway data dir);
per confidence bucket, the share of queries whose most likely entry was right is drawn
against the mean confidence, with the diagonal of perfect calibration.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
from pathlib import Path

from appliance.bench import evaluation


def summaries(paths: list[Path]) -> dict[str, dict]:
    from appliance.ask.service import AskService
    from appliance.config import Config

    with tempfile.TemporaryDirectory() as tmp:
        service = AskService.open(dataclasses.replace(Config(), data_dir=Path(tmp)))
        try:
            return {p.stem: evaluation.summarise(evaluation.run_eval(evaluation.read_queries(p), service.decide_only))
                    for p in paths}
        finally:
            service.close()


def plot(results: dict[str, dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", label="perfect calibration")
    for name, summary in results.items():
        rows = summary["calibration"]["reliability"]
        ece = summary["calibration"]["ece"]
        ax.plot([r["confidence"] for r in rows], [r["accuracy"] for r in rows], marker="o",
                label=f"{name} (ECE {ece:.3f}, n={summary['n']})")
        for r in rows:
            ax.annotate(str(r["n"]), (r["confidence"], r["accuracy"]), fontsize=7,
                        textcoords="offset points", xytext=(4, -10))
    ax.set_xlabel("confidence (mean in bucket)")
    ax.set_ylabel("share right (most likely entry is the query's)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title("eduqa ask path: reliability (10 buckets; n per point)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("sets", type=Path, nargs="+")
    args = parser.parse_args(argv)
    results = summaries(args.sets)
    plot(results, args.out)
    print(json.dumps({k: {"ece": v["calibration"]["ece"], "by_kind": v["by_kind"], "abstain": v["abstain"],
                          "confident": [v["calibration"]["confident_answers"], v["calibration"]["confident_precision"]]}
                      for k, v in results.items()}, indent=1))


if __name__ == "__main__":
    main()
