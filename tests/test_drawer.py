"""desyr.report.drawer: a run's figures drawn by a spare process, the same as drawn here, and
drawn here when the spare is gone; the CLI's exit skips the teardown but not the atexit handlers."""
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from figure_checks import check_png

from desyr.config.loading import load_problem
from desyr.model.result import load_result
from desyr.report import drawer, figures

pytest.importorskip("matplotlib")
RUN = next((Path(__file__).parent / "fixtures" / "study_bench" / "runs").glob("tiny_sine-*/seed0"))
TINY = Path(__file__).parent / "fixtures" / "study_bench" / "configs" / "tiny_sine.toml"


def _plans(out):
    result = load_result(RUN)
    result.teacher.facts = {"history": [[0, 1.0, 0.5], [100, 0.1, 0.05]], "selected_step": 100}
    return figures.plan_run_figures(result, load_problem(str(TINY)), out,
                                    teacher_predict=lambda X: np.sin(3.1413 * X[:, 0]))


def test_plans_are_plain_data_naming_known_drawings(tmp_path):
    plans = _plans(tmp_path)
    assert [p.draw for p in plans] == ["profile_1d", "training_curve", "pareto_fronts", "formula"]
    assert all(p.draw in figures.DRAWINGS for p in plans)
    back = pickle.loads(pickle.dumps(plans))      # what travels to the spare
    assert [(p.draw, p.caption) for p in back] == [(p.draw, p.caption) for p in plans]
    np.testing.assert_array_equal(back[0].args[3], plans[0].args[3])
    assert not list(tmp_path.iterdir())          # planned, not drawn


@pytest.mark.slow
def test_spare_draws_what_this_process_would(tmp_path):
    drawer.start_drawer()
    spare = drawer.DRAWER.process
    assert spare is not None and spare.poll() is None
    records = drawer.draw(_plans(tmp_path / "spare"))
    assert drawer.DRAWER.process is None and spare.wait(10) == 0      # it answered, and it was the one that did
    here = figures.draw_plans(_plans(tmp_path / "here"))
    assert [(r.path.name, r.caption, r.kind) for r in records] == [(r.path.name, r.caption, r.kind) for r in here]
    for r in records:
        if r.kind == "figure":
            check_png(r.path)


@pytest.mark.slow
def test_a_dead_spare_means_drawing_here(tmp_path):
    drawer.start_drawer()
    drawer.DRAWER.process.kill()
    drawer.DRAWER.process.wait()
    records = drawer.draw(_plans(tmp_path))
    assert [r.path.name for r in records] == ["fig_solution.png", "fig_training.png", "fig_pareto.png",
                                              "formula_0.svg"]
    for r in records[:3]:
        check_png(r.path)


def test_a_plan_naming_anything_else_is_not_called(tmp_path):
    bad = figures.FigurePlan("_save", (None, tmp_path / "x.png"), "no")
    assert figures.draw_plans([bad]) == []


def test_leave_runs_the_atexit_handlers_and_keeps_the_code():
    code = ("import atexit, sys; from desyr.cli.main import leave; "
            "atexit.register(lambda: print('handler ran', flush=True)); print('out', end=''); leave(3)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert done.stdout == "outhandler ran\n"


@pytest.mark.slow
def test_run_from_python_starts_no_spare(monkeypatch, tmp_path):
    """From Python only the verifier is a process of the run's own; the figures are drawn here."""
    import types

    from desyr.api import run
    from desyr.testing import SINE_POISSON_1D, make_problem

    started = []
    monkeypatch.setattr(drawer, "subprocess", types.SimpleNamespace(Popen=lambda *a, **k: started.append(a)))
    result = run(make_problem(SINE_POISSON_1D.replace("[solvers]\nenabled = false\n", "")), out=tmp_path / "r")
    assert result.verdict == "proved" and started == []
    assert (tmp_path / "r" / "fig_solution.png").is_file() and (tmp_path / "r" / "report.html").is_file()


def test_the_spare_leaves_without_the_interpreters_teardown_once_it_has_answered():
    """The run waits for the spare's exit (``communicate``): freeing matplotlib's objects one by one
    would only delay it. Its answer is complete and flushed first."""
    code = ("import atexit; import desyr.report.figures as f; f.warm_up = lambda: None; "
            "atexit.register(lambda: print('teardown', flush=True)); from desyr.report.drawer import serve; serve()")
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps([]), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == pickle.dumps([])          # the answer, and nothing after it: no handler ran


def test_the_warm_up_builds_the_formula_parser_the_first_formula_would_wait_for():
    code = ("from desyr.report.figures import warm_up; warm_up(); from matplotlib import mathtext; "
            "print(mathtext.MathTextParser._parser is not None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
