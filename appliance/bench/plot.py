"""QPS and p99 latency against concurrent clients, ours and the baseline, as one PNG."""

from __future__ import annotations


def plot_curve(rows: dict, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for who, style in (("ours", "o-"), ("baseline", "s--")):
        runs = rows.get(who) or []
        if not runs:
            continue
        clients = [r["clients"] for r in runs]
        left.plot(clients, [r["qps"] for r in runs], style, label=who)
        right.plot(clients, [r["p99_ms"] for r in runs], style, label=who)
    for axis, label in ((left, "asks per second"), (right, "p99 latency (ms)")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("concurrent clients")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
        axis.legend()
    right.set_yscale("log")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
