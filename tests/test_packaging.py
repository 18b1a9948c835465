"""The distributions: `python -m build` makes a wheel and an sdist that carry the built-in plugins
and the bundled problems, with the metadata a package index shows; the wheel installs into a
fresh virtual environment and runs the demo there."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow      # a build, a fresh venv and a pip install


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    pytest.importorskip("build")
    work = tmp_path_factory.mktemp("dist")
    src = work / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                             "__pycache__", ".mypy_cache", ".desyr-cache", "runs",
                                                             "test-artifacts", ".pytest_cache"))
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "out"), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return work / "out"


def test_the_wheel_and_the_sdist_carry_the_plugins_problems_and_metadata(dist):
    wheel, = dist.glob("desyr-*.whl")
    sdist, = dist.glob("desyr-*.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("desyr/py.typed", "desyr_paper/problems/13_burgers.toml", "desyr_paper/examples/08_stokes_taylor_green.toml",
                   "desyr_sympy/plugin.py", "desyr_deepxde/plugin.py", "desyr_dictionary/plugin.py"):
        assert needed in names, needed
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[desyr]" in text and "sympy = desyr_sympy.plugin" in text and "desyr = desyr.cli.main:entry" in text
    meta = Parser().parsestr(zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode())
    assert meta["Name"] == "desyr" and meta["Description-Content-Type"] == "text/markdown"
    assert "Programming Language :: Python :: 3" in meta.get_all("Classifier")
    assert "Topic :: Scientific/Engineering :: Mathematics" in meta.get_all("Classifier")
    assert "# DeSyR" in meta.get_payload()            # the README is the long description
    assert "plots" in meta.get_all("Provides-Extra") and "notebook" in meta.get_all("Provides-Extra")
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(m.endswith("plugins/desyr_paper/problems/14_kovasznay.toml") for m in members)
    assert any(m.endswith("tests/test_packaging.py") for m in members)
    assert any(m.endswith("docs/examples/quickstart.ipynb") for m in members)


def test_the_wheel_runs_the_demo_in_a_fresh_venv(dist, tmp_path):
    wheel, = dist.glob("desyr-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    done = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           f"{wheel}[plots]"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    demo = subprocess.run([str(venv / "bin" / "desyr"), "run", "paper:sine_poisson_1d", "--out", "runs/demo"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "verdict: Proved" in demo.stdout
    assert all((tmp_path / "runs" / "demo" / f).is_file() for f in ("result.json", "report.md", "report.html"))
    # the core alone: no torch, operon or gplearn came with it, and their plugins say so only when asked
    listed = subprocess.run([str(py), "-c", "import importlib.util as u; print([m for m in ('torch', 'pyoperon', "
                             "'gplearn') if u.find_spec(m)])"], capture_output=True, text=True, timeout=60)
    assert listed.stdout.strip() == "[]"
