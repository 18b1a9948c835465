"""Small shared helpers for the tests (importable because pytest puts tests/ on sys.path)."""
from desyr.testing import SINE_POISSON_1D

#: appended to a config whose test is about the teacher and the searches: SymPy integrates these
#: tests' small problems exactly, so stage 0 would otherwise end the run before any teacher
#: (``SINE_POISSON_1D`` has it already)
NO_SOLVERS = """
[solvers]
enabled = false
"""


#: u' + k u = 0, u(0) = 1, with k unknown and 60 clean observations of exp(-2t): the smallest
#: inverse problem (k = 2)
DECAY_INVERSE = '''time = "t"
[domain]
t = [0, 2]
[unknowns]
k = [0.2, 5]
[[equations]]
lhs = "u_t + k*u"
[[constraints]]
on = "t = 0"
value = 1
[observations]
u = "exp(-2*t)"
points = 60
'''


def write_config(tmp_path, text, name="problem.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# The package's own small test problem, under the short name these tests' reports use.
SINE_1D = SINE_POISSON_1D.replace('name = "sine_poisson_1d"\ntitle = "Sine-Poisson 1D (testing)"', 'name = "sine"')


def sine_model():
    """A teacher model whose values are the exact sine-Poisson solution, sin(pi x) (tests' own teachers)."""
    import numpy as np

    from desyr.plugin import TeacherModel

    class SineModel(TeacherModel):
        def predict(self, X):
            return np.sin(np.pi * np.asarray(X, dtype=float)[:, :1])

    return SineModel()


def rough_sine(X):
    """A stand-in teacher with a realistic error: a slightly wrong frequency and amplitude."""
    import numpy as np

    return 1.0002 * np.sin(3.1413 * X[:, 0])


SINE_RUN = SINE_1D + """
[teacher]
plugin = "callable"
[teacher.options]
function = "helpers:rough_sine"

[search]
plugin = "operon"
binary = ["*"]
unary = ["sin"]
max_size = 15
runs = 2

[search.options]
generations = 30
population_size = 200
time_limit = 0
"""


def pip_install(source, workdir):
    """Install the distribution at ``source`` with pip into ``workdir/site`` (from a copy, so the
    tree stays clean) and return that folder; skip when pip is not available."""
    import shutil
    import subprocess
    import sys

    import pytest

    probe = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"pip is not available to {sys.executable}: {probe.stderr.strip()[:200]}")
    copy, target = workdir / "src", workdir / "site"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                           "--disable-pip-version-check", "--quiet", "--target", str(target), str(copy)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"pip install failed:\n{proc.stdout}\n{proc.stderr}"
    return target



def _poly_only():
    from desyr_light_teachers.tinybench import CONFIGS

    text = CONFIGS["tiny_poisson4"].replace('name = "tiny_poisson4"', 'name = "poly_only"')
    assert 'unary = ["sin"]' in text
    return text.replace('unary = ["sin"]', "unary = []") + NO_SOLVERS


#: u'' = -16 sin(4x) on [0, 1] with a polynomial-only library: not recoverable until sin is added
POLY_ONLY = _poly_only()


def line_problem(equation: str, initial: str | None, reference: str, domain: str = "x = [-2, 2]\nt = [0, 1]",
                 time: bool = True):
    """One field ``u`` with ``equation``, the reference on the boundary and ``initial`` at t = 0 (none:
    no data at a fixed time): the shape the stage-0 reduction tests write their problems in."""
    from desyr.plugin import problem_from_toml

    initial_block = f'[[constraints]]\non = "initial"\nvalue = "{initial}"\n' if initial else ""
    clock = 'time = "t"' if time else ""
    text = (f'name = "made"\n{clock}\n[domain]\n{domain}\n'
            f'[[equations]]\nlhs = "{equation}"\n'
            f'[[constraints]]\non = "boundary"\nvalue = "reference"\n{initial_block}'
            f'[reference]\nu = "{reference}"\n')
    return problem_from_toml(text, "made")


def in_a_fresh_process(fn, *args):
    """``fn(*args)`` in a spawned interpreter, its answer back: for a library the test process must not
    load (JAX runs threads of its own, and the suite forks; tests/conftest.py checks). ``fn`` is a
    module-level function of a test module."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()
