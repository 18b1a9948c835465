"""Observations that carry no information must not dilute the data test (issue 35, route 4): 80 noisy
heat observations plus 99,920 exact values at t = 0, where every candidate meeting the initial condition
agrees, let nu = 1/5 and nu = 1/2 pass a chi-square bound pooled over all points. The test is now on the
informative observations only, and two-sided: a misfit far below the stated noise fails too."""
from __future__ import annotations

import numpy as np
import pytest
from test_inverse_config import HEAT as HEAT_PROBLEM

from desyr.verify.verdict import decide

HEAT = HEAT_PROBLEM + '[observations]\nfile = "data.npz"\nnoise = NOISE\n'
CANDIDATES = {"1/10": "exp(-pi**2*t/10)*sin(pi*x)", "1/5": "exp(-pi**2*t/5)*sin(pi*x)",
              "1/2": "exp(-pi**2*t/2)*sin(pi*x)"}


def _informative(n: int = 80, noise: float = 0.01, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x, t = rng.random(n), rng.random(n)
    clean = np.exp(-np.pi**2 * t / 10) * np.sin(np.pi * x)
    return x, t, clean + noise * np.sqrt(np.mean(clean**2)) * rng.standard_normal(n)


def _verdicts(tmp_path, x, t, u, noise: float = 0.01) -> dict[str, dict]:
    np.savez(tmp_path / "data.npz", x=x, t=t, u=u)
    text = HEAT.replace("NOISE", repr(noise))
    (tmp_path / "c.toml").write_text(text)
    out = {}
    for nu, field in CANDIDATES.items():
        request = {"schema": "desyr.verify-request/1", "expressions": {"u": field, "nu": nu},
                   "config": {"format": "toml", "text": text, "source": str(tmp_path / "c.toml")},
                   "exact_expressions": None, "seed": 0}
        out[nu] = decide(request)
    return out


def _padded(pad: int = 99_920) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, t, u = _informative()
    xp = np.random.default_rng(1).random(pad)
    return np.concatenate([x, xp]), np.concatenate([t, np.zeros(pad)]), np.concatenate([u, np.sin(np.pi * xp)])


def test_padding_where_the_initial_condition_fixes_the_value_proves_no_wrong_coefficient(tmp_path):
    answers = _verdicts(tmp_path, *_padded())
    assert answers["1/10"]["verdict"] == "proved", answers["1/10"]["reason"]
    for nu in ("1/5", "1/2"):
        assert answers[nu]["verdict"] == "not_exact", (nu, answers[nu]["reason"])
        assert "above what the stated noise" in answers[nu]["reason"]
    data = answers["1/10"]["observations"]
    assert data["uninformative"] == 99_920 and "carry no information" in data["warning"]
    assert "99920 of the 100000 observations lie where a constraint fixes the value (t = 0)" in data["reason"]


def test_the_padded_verdict_is_the_unpadded_one(tmp_path):
    plain = _verdicts(tmp_path, *_informative())
    padded = _verdicts(tmp_path, *_padded(500))
    for nu in CANDIDATES:
        assert plain[nu]["verdict"] == padded[nu]["verdict"]
        assert plain[nu]["observations"]["relative_misfit"] == pytest.approx(
            padded[nu]["observations"]["relative_misfit"], rel=1e-12)
    assert "warning" in plain["1/10"]["observations"] and not plain["1/10"]["observations"]["warning"]


@pytest.mark.parametrize("noise", [0.1, 0.45])
def test_exact_data_claimed_with_a_large_noise_prove_nothing(tmp_path, noise):
    # the stated 45 % would let nu = 1/5 (misfit 0.31) through a one-sided test; it is far below the band
    x, t, _ = _informative()
    u = np.exp(-np.pi**2 * t / 10) * np.sin(np.pi * x)
    answers = _verdicts(tmp_path, x, t, u, noise=noise)
    for nu in CANDIDATES:
        assert answers[nu]["verdict"] == "not_exact", (nu, answers[nu]["reason"])
    assert f"far below what the stated noise {noise:g} allows" in answers["1/10"]["reason"]
    assert "noise is overstated" in answers["1/10"]["reason"]


def test_near_the_padding_the_lower_side_still_catches_exact_values(tmp_path):
    # exact values a hair after t = 0 are not on the constraint's set, but far closer than the noise
    x, t, u = _informative()
    xp = np.random.default_rng(2).random(99_920)
    tp = np.full(99_920, 1e-6)
    up = np.exp(-np.pi**2 * tp / 5) * np.sin(np.pi * xp)
    answers = _verdicts(tmp_path, np.concatenate([x, xp]), np.concatenate([t, tp]), np.concatenate([u, up]))
    assert answers["1/5"]["verdict"] == "not_exact" and answers["1/2"]["verdict"] == "not_exact"


def test_the_band_the_noise_allows():
    from desyr.model.unknowns import allowed_misfit, least_misfit

    assert allowed_misfit(0.01, 80) == pytest.approx(0.0121, abs=1e-4)
    assert least_misfit(0.01, 80, 1) == pytest.approx(0.01 * np.sqrt(1 - 3 * np.sqrt(2 / 79)))
    assert least_misfit(0.0, 80, 1) == 0.0 and least_misfit(0.01, 10, 1) == 0.0   # no bound: exact, or too few


def test_the_cli_warns_on_stderr(capsys):
    from desyr.verify.command import _warn_uninformative

    _warn_uninformative({"observations": {"warning": "3 of the 83 observations lie where a constraint fixes"}})
    _warn_uninformative({"observations": {"warning": ""}})
    err = capsys.readouterr().err
    assert err == "desyr: warning: 3 of the 83 observations lie where a constraint fixes\n"
