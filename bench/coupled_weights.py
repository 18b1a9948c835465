"""The field weights of an inverse fit, in least squares alone: `inverse:coupled_rate` over many seeds.

    python bench/coupled_weights.py --seeds 300

The coupled system u' = -a v, v' = u, u(0) = 1, v(0) = 0 has u = cos(sqrt(a) t) and
v = sin(sqrt(a) t)/sqrt(a) for every a, so the data alone decide a.  For each seed of the bundled
observations at 5 % noise this fits a by least squares, unweighted and with
:meth:`desyr.model.unknowns.Observations.weight`, and compares a = 4 with its nearest rival
25/(2 pi) as the run does (half the rise in noise variances, plus the prior of
:func:`desyr.stages.unknowns.closed_forms`).  A margin under 2 nats is "cannot decide"; a negative
one names the rival.  No refit, no search: seconds for hundreds of seeds.
"""
from __future__ import annotations

import argparse
import math
from importlib import resources

import numpy as np
from scipy.optimize import minimize_scalar

from desyr.config.reading import problem_from_toml
from desyr.stages.unknowns import DECISIVE_NATS, closed_forms

RIVAL = 25 / (2 * math.pi)


def _prior(value: float) -> float:
    return next(f.prior for f in closed_forms(value, 1e-6) if abs(float(f.value) - value) < 1e-12)


def margins(seed: int, text: str) -> tuple[float, float]:
    """The rival's cost minus 4's, unweighted and weighted (nats)."""
    problem = problem_from_toml(text.replace("noise = 0.0\n", f"noise = 0.05\nseed = {seed}\n"))
    obs = problem.observations
    assert obs is not None
    t, u, v = obs.X[:, 0], obs.column("u"), obs.column("v")
    out = []
    for w in (1.0, obs.weight("v")):
        def rss(a: float, w: float = w) -> float:
            return float(np.sum((np.cos(np.sqrt(a) * t) - u) ** 2) +
                         np.sum((w * (np.sin(np.sqrt(a) * t) / np.sqrt(a) - v)) ** 2))
        best = minimize_scalar(rss, bounds=(3.5, 4.5), method="bounded").x
        variance = rss(best) / (2 * len(t) - 1)
        cost = {a: 0.5 * (rss(a) - rss(best)) / variance + _prior(a) for a in (4.0, RIVAL)}
        out.append(cost[RIVAL] - cost[4.0])
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=300)
    args = parser.parse_args()
    text = (resources.files("desyr_paper") / "inverse" / "05_coupled_rate.toml").read_text(encoding="utf-8")
    found = np.array([margins(seed, text) for seed in range(args.seeds)])
    for k, name in enumerate(("unweighted", "weighted")):
        m = found[:, k]
        print(f"{name}: undecided {int(np.sum((m >= 0) & (m < DECISIVE_NATS)))}, rival named {int(np.sum(m < 0))} "
              f"of {args.seeds} seeds; median margin {np.median(m):.2f} nats")


if __name__ == "__main__":
    main()
