"""The run's Latin hypercube is SciPy's, drawn without importing ``scipy.stats`` (a second or more)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import qmc

from desyr.model.points import make_point_sets, scipy_latin_hypercube
from desyr.testing import make_problem


@pytest.mark.parametrize("n, d, seed", [(1, 1, 0), (7, 1, 3), (100, 2, 11), (257, 3, [5, 2]), (64, 4, 2**31)])
def test_the_numpy_latin_hypercube_is_scipys_bit_for_bit(n, d, seed):
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    for _ in range(3):       # consecutive draws too: each spawns the next child of the seed sequence
        a = scipy_latin_hypercube(ours, n, d)
        b = qmc.LatinHypercube(d=d, rng=theirs).random(n)
        assert a.shape == (n, d) and np.array_equal(a, b)
    assert np.array_equal(ours.random(4), theirs.random(4))     # the parent's own stream is left alike


def test_drawing_a_runs_points_imports_no_scipy_stats_or_spatial():
    code = ("import sys; from desyr.model.points import make_point_sets; from desyr.testing import make_problem; "
            "make_point_sets(make_problem(), 0); print(sorted(m for m in ('scipy.stats', 'scipy.spatial') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("d", [1, 2, 4])
def test_the_clash_check_agrees_with_a_kd_tree(d):
    from scipy.spatial import cKDTree

    from desyr.model.points import _clashes

    rng = np.random.default_rng(d)
    taken = np.round(rng.random((80, d)) * 4) / 4          # a grid: ties in the first coordinate
    pts = np.round(rng.random((120, d)) * 4) / 4 + rng.choice([0.0, 4e-13, 3e-12], size=(120, d))
    pts[:10] = rng.random((10, d))                           # and some far from every taken point
    want = cKDTree(taken).query(pts, k=1)[0] <= 1e-12
    got = _clashes(pts, [taken, np.empty((0, d))])
    assert 0 < want.sum() < len(pts) and np.array_equal(got, want)
    assert not _clashes(np.empty((0, d)), [taken]).any()


def test_point_sets_are_reproducible():
    a, b = make_point_sets(make_problem(), 4), make_point_sets(make_problem(), 4)
    assert np.array_equal(a.search, b.search) and np.array_equal(a.verify, b.verify)
