"""desyr.report.figures: every figure exists, has its pixel size and is not blank; the report lines embed them."""
import copy
from pathlib import Path

import numpy as np
import pytest
from figure_checks import check_png

from desyr.config.loading import load_problem
from desyr.model.result import load_result
from desyr.report import charts, figures

pytest.importorskip("matplotlib")
RUN = next((Path(__file__).parent / "fixtures" / "study_bench" / "runs").glob("tiny_sine-*/seed0"))
TINY = Path(__file__).parent / "fixtures" / "study_bench" / "configs" / "tiny_sine.toml"


@pytest.mark.slow
def test_plain_array_figures(tmp_path):
    x = np.linspace(0, 1, 50)
    ref = np.sin(np.pi * x)
    check_png(figures.profile_1d(tmp_path / "p.png", x, ref, ref + 1e-15, ref + 1e-4, ref + 1e-5), (400, 960))
    gx, gy = np.meshgrid(np.linspace(0, 1, 20), np.linspace(0, 1, 20))
    u = np.sin(gx) * np.sin(gy)
    panels = [("reference", u, False), ("teacher error", figures.log_error(u, u + 1e-4), True),
              ("recovered error", figures.log_error(u, u), True)]
    check_png(figures.field_maps(tmp_path / "m.png", (gx, gy), ("x", "y"), panels), (400, 960))
    check_png(figures.training_curve(tmp_path / "t.png", [0, 100, 200], [1, 0.1, 0.2], 100, [1, 0.5, 0.1]), (400, 640))
    check_png(figures.pareto_fronts(tmp_path / "f.png", [("seed 0", [1, 3, 5], [1, 1e-2, 1e-6])], (5, 1e-6)),
              (400, 640))
    check_png(charts.before_after_chart(tmp_path / "b.png", ["a", "b"], [("pre", [1e-4, 1e-3]),
                                                                          ("refined", [0.0, 1e-15])]), (400, 960))
    check_png(charts.line_chart(tmp_path / "l.png", [1, 2], [("s", [1e-3, 1e-6])], "x", "y"), (400, 640))
    check_png(charts.bar_chart(tmp_path / "c.png", ["a", "b"], [("s", [1, 2]), ("t", [2, 1])], "n", stacked=True),
              (400, 960))


@pytest.mark.slow
def test_run_figures_1d_with_teacher(tmp_path):
    result = load_result(RUN)
    result.teacher.facts = {"history": [[0, 1.0, 0.5], [100, 0.1, 0.05], [200, 0.01, 0.08]], "selected_step": 100}
    problem = load_problem(str(TINY))
    records = figures.write_run_figures(result, problem, tmp_path,
                                        teacher_predict=lambda X: 1.0002 * np.sin(3.1413 * X[:, 0]))
    assert [r.path.name for r in records if r.kind == "figure"] == ["fig_solution.png", "fig_training.png",
                                                                    "fig_pareto.png"]
    formulas = [r for r in records if r.kind == "formula"]      # the exact form, for report.html
    assert [r.path.name for r in formulas] == [f"formula_{i}.svg" for i in range(len(result.exact_form.latex))]
    assert all(r.path.read_bytes().lstrip().startswith((b"<?xml", b"<svg")) for r in formulas)
    for r in records:
        if r.kind == "figure":
            check_png(r.path)
        assert r.caption
    lines = figures.DrawnFigures(tuple(records)).section()
    assert lines[0] == "## Figures"
    assert sum(line.startswith("![") for line in lines) == 3


@pytest.mark.slow
def test_run_figures_2d_and_3d_slices(tmp_path, paper):
    result = copy.deepcopy(load_result(RUN))
    result.teacher = None
    for spec, expr in (("sine_poisson_2d", "sin(pi*x)*sin(pi*y)"), ("sine_poisson_3d", "sin(pi*x)*sin(pi*y)*sin(pi*z)")):
        problem = paper(spec)
        result.expression = {"u": expr}
        result.pre_refit_expression = {"u": expr.replace("pi", "3.1416")}
        result.exact_form = None
        result.problem.variables = problem.variable_names
        out = tmp_path / spec
        records = figures.write_run_figures(result, problem, out, teacher_predict=lambda X: np.prod(
            np.sin(np.pi * X), axis=1) + 1e-4)
        assert records[0].path.name == "fig_solution.png"
        check_png(records[0].path, (400, 960))
        assert ("slice" in records[0].caption) == (spec == "sine_poisson_3d")


def test_section_without_matplotlib_note():
    lines = figures.figure_section([], figures.NO_MATPLOTLIB)
    assert "matplotlib is not installed" in lines[2]
