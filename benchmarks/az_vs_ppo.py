"""Which learner is stronger per hour: the win rate of ``az`` and PPO runs against one
opponent over training minutes, read from their run folders' ``eval.csv`` (the
``seconds`` column counts from the trainer's start, resumed segments included; both
runs trained on the same machine with nothing else heavy running).

    python benchmarks/az_vs_ppo.py --title "TARDIS Run" \\
        --run az=docs/results/az/tardis_run_v0/training/eval.csv \\
        --run ppo=docs/results/baselines/tardis_run_v0/eval.csv \\
        --opponent heuristic --out docs/results/az/tardis_run_v0/az_vs_ppo.png

Prints each run's points (minutes, win rate, 95% interval) and writes the plot.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path


def read_curve(path: Path, opponent: str) -> list[tuple[float, float, float, float]]:
    """``(minutes, win rate, low, high)`` of every evaluation against ``opponent``, in percent.
    In Time of the Daleks the evaluations name a team-mate: an ``az`` run's ``partner``
    column, a PPO run's ``opponent`` column (the agent beside which the learner's team played)."""
    with open(path, newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("opponent", r.get("partner")) == opponent]
    if not rows:
        raise SystemExit(f"{path}: no evaluation against {opponent!r}")
    return [(float(r["seconds"]) / 60, 100 * float(r["win_rate"]), 100 * float(r["ci_low"]), 100 * float(r["ci_high"])) for r in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, help="label=path/to/eval.csv (repeat for each run)")
    parser.add_argument("--opponent", default="heuristic", help="the evaluation opponent to plot (default heuristic)")
    parser.add_argument("--title", default="", help="the game's name for the plot's title")
    parser.add_argument("--ylabel", default="", help="the y axis's label (default: win rate vs the opponent)")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    curves = {}
    for item in args.run:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            parser.error(f"--run takes label=path/to/eval.csv, got {item!r}")
        curves[label] = read_curve(Path(path), args.opponent)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, points in curves.items():
        minutes, rate, low, high = zip(*points)
        ax.plot(minutes, rate, marker="o", markersize=3, label=label)
        ax.fill_between(minutes, low, high, alpha=0.2)
        print(f"{label}: " + ", ".join(f"{m:.0f} min {r:.1f}% [{lo:.1f}, {hi:.1f}]" for m, r, lo, hi in points))
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("training minutes on this machine")
    ax.set_ylabel(args.ylabel or f"win rate vs {args.opponent} (%), 95% interval")
    ax.set_ylim(0, 100)
    ax.set_title(f"{args.title}: az and PPO per training minute".strip(": "))
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=100)
    plt.close(fig)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
