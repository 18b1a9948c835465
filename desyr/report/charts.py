"""Charts of the studies and benches: before/after, lines and bars, in the run figures' style
(:mod:`desyr.report.figures`)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from desyr.report.figures import FLOOR, SIZE, UNITLESS, WIDE, pyplot, save_figure


def before_after_chart(path: str | Path, names: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]],
                       ylabel: str = "relative L2 error") -> Path:
    """Per configuration, one marker per series (e.g. teacher, pre-refit, refined) on a log axis."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=WIDE)
    pos = np.arange(len(names))
    markers = "os^Dvx"
    for k, (label, values) in enumerate(series):
        vals = [max(float(v), FLOOR) if v is not None and math.isfinite(float(v)) else np.nan for v in values]
        ax.semilogy(pos + 0.12 * (k - (len(series) - 1) / 2), vals, markers[k % len(markers)], label=label)
    ax.axhline(1e-10, color="grey", linestyle="--", linewidth=0.8, label="recovery threshold 1e-10")
    ax.set_xticks(pos)
    ax.set_xticklabels(list(names), rotation=30, ha="right", fontsize=8)
    ax.set_xlabel("configuration")
    ax.set_ylabel(f"{ylabel} ({UNITLESS}; floor 1e{int(math.log10(FLOOR))})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def line_chart(path: str | Path, x: Sequence[float], series: Sequence[tuple[str, Sequence[float]]], xlabel: str,
               ylabel: str, logx: bool = False, logy: bool = True) -> Path:
    """Generic lines (study figures): log axes as asked, non-positive values at the floor."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=SIZE)
    for label, ys in series:
        vals = np.maximum(np.asarray(ys, float), FLOOR) if logy else np.asarray(ys, float)
        ax.plot(np.asarray(x, float), vals, "-o", label=label)
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def bar_chart(path: str | Path, labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]],
              ylabel: str, logy: bool = False, stacked: bool = False) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=WIDE)
    pos = np.arange(len(labels))
    width = 0.8 if stacked else 0.8 / max(len(series), 1)
    bottom = np.zeros(len(labels))
    for k, (name, values) in enumerate(series):
        vals = np.asarray(values, float)
        if stacked:
            ax.bar(pos, vals, width, bottom=bottom, label=name)
            bottom = bottom + vals
        else:
            ax.bar(pos + width * (k - (len(series) - 1) / 2), vals, width, label=name)
    if logy:
        ax.set_yscale("log")
    ax.set_xticks(pos)
    ax.set_xticklabels(list(labels), rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


# ------------------------------------------------------------------ one run
