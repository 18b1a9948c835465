"""Figures for run reports and benches (matplotlib, Agg backend; optional ``plots`` extra).

Every function takes plain arrays and writes one PNG of a fixed pixel size
(:data:`SIZE` or :data:`WIDE` at :data:`DPI`); matplotlib is imported inside the
functions, so importing this module never loads it.  :func:`plan_run_figures`
turns a run's result into :class:`FigurePlan` s (the arrays to draw), :func:`draw_plans`
draws them (here, or in a spare process: :mod:`desyr.report.drawer`) and returns
:class:`FigureRecord` s; :func:`figure_section` turns those into report lines
(``![caption](file.png)``).
DeSyR's problems carry no units: axes say "dimensionless".
"""
from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DPI = 100
SIZE = (6.4, 4.0)        # 640 x 400 pixels
WIDE = (9.6, 4.0)        # 960 x 400 pixels
FLOOR = 1e-18            # plotting floor of log10 |error| (stored zeros are shown here)
UNITLESS = "dimensionless"


@dataclass(frozen=True)
class FigureRecord:
    path: Path
    caption: str
    kind: str = "figure"        # "formula": the exact form drawn as an image (report.html shows it, report.md not)


@dataclass(frozen=True)
class DrawnFigures:
    """What a run drew for its reports: the records (found in the run's folder by file name), or why none."""
    records: tuple[FigureRecord, ...] = ()
    skipped: str | None = None

    def section(self) -> list[str]:
        """report.md's figure section (formulas are not figures there: report.md prints them as LaTeX)."""
        return figure_section([r for r in self.records if r.kind == "figure"], self.skipped)


@dataclass(frozen=True)
class FigurePlan:
    """One figure to draw: a drawing function of this module (by name, one of :data:`DRAWINGS`),
    its arguments (paths, arrays, labels) and its caption. Plain data, so another process can draw it."""
    draw: str
    args: tuple[Any, ...]
    caption: str


def have_matplotlib() -> bool:
    """Whether matplotlib is installed, without importing it: the import takes a tenth of a second
    of CPU (more on a loaded machine), and a run's figures are drawn by a spare process
    (:mod:`desyr.report.drawer`). A broken installation is found when drawing: each figure that
    fails is left out (:func:`draw_plans`)."""
    if "matplotlib" in sys.modules:
        return sys.modules["matplotlib"] is not None       # None: blocked, as by a test
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, never a window)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def warm_up() -> None:
    """Import pyplot and render some text once (fonts load on the first draw): about a second. A
    formula too: mathtext builds its parser on first use (0.03 s a run would otherwise wait for)."""
    import io

    from matplotlib import mathtext

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.set_title("warm")
    fig.savefig(io.BytesIO(), format="png", dpi=10)
    plt.close(fig)
    mathtext.math_to_image(r"$\frac{x}{1}$", io.BytesIO(), dpi=10, format="svg")


def save_figure(fig: Any, path: str | Path) -> Path:
    """``fig`` written to ``path`` at the report's resolution, then closed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI)           # no bbox "tight": the pixel size stays fixed
    pyplot().close(fig)
    return path


def log_error(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log10 |a - b| with zeros at the plotting floor."""
    with np.errstate(all="ignore"):
        logged: np.ndarray = np.log10(np.maximum(np.abs(np.asarray(a, float) - np.asarray(b, float)), FLOOR))
    return logged


def _label(name: str) -> str:
    return f"{name} ({UNITLESS})"


# ------------------------------------------------------------------ solutions
def profile_1d(path: str | Path, x: np.ndarray, reference: np.ndarray | None, recovered: np.ndarray,
               teacher: np.ndarray | None = None, pre_refit: np.ndarray | None = None,
               xname: str = "x", field: str = "u") -> Path:
    """(a) the profiles; (b) log10 |error| of teacher, pre-refit and recovered against the reference."""
    plt = pyplot()
    order = np.argsort(x)
    x = np.asarray(x, float)[order]
    fig, axes = plt.subplots(1, 2 if reference is not None else 1, figsize=WIDE, squeeze=False)
    ax = axes[0][0]
    curves = [("reference", reference, "-", None), ("teacher", teacher, "--", "o"),
              ("pre-refit", pre_refit, ":", "s"), ("recovered", recovered, "-.", "^")]
    for i, (name, y, style, marker) in enumerate(curves):
        if y is not None:
            ax.plot(x, np.asarray(y, float)[order], style, marker=marker, markevery=(i * 7, 25), label=name)
    ax.set_xlabel(_label(xname))
    ax.set_ylabel(_label(field))
    ax.set_title("(a) solution")
    ax.legend(fontsize=8)
    if reference is not None:
        ax = axes[0][1]
        ref = np.asarray(reference, float)[order]
        for name, y in (("teacher", teacher), ("pre-refit", pre_refit), ("recovered", recovered)):
            if y is not None:
                ax.plot(x, log_error(np.asarray(y, float)[order], ref), label=name)
        ax.set_xlabel(_label(xname))
        ax.set_ylabel(f"log10 |error| of {field} ({UNITLESS})")
        ax.set_title(f"(b) pointwise error (floor 1e{int(math.log10(FLOOR))})")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def field_maps(path: str | Path, grid: tuple[np.ndarray, np.ndarray], names: tuple[str, str],
               panels: Sequence[tuple[str, np.ndarray, bool]], field: str = "u") -> Path:
    """Heat maps on a regular grid: ``panels`` are (title, values (ny, nx), is_log_error)."""
    plt = pyplot()
    gx, gy = grid
    extent = (float(gx.min()), float(gx.max()), float(gy.min()), float(gy.max()))
    fig, axes = plt.subplots(1, len(panels), figsize=WIDE, squeeze=False)
    errors = [v for _, v, is_err in panels if is_err]
    # NaN marks points outside a shape's domain: the shared scale is over the points inside
    finite = [v[np.isfinite(v)] for v in errors if np.isfinite(v).any()]
    lo = min(float(np.min(v)) for v in finite) if finite else None
    hi = max(float(np.max(v)) for v in finite) if finite else None
    for ax, (title, values, is_err) in zip(axes[0], panels):
        kw = {"vmin": lo, "vmax": hi if hi != lo else (lo or 0) + 1} if is_err else {}
        im = ax.imshow(values, origin="lower", extent=extent, aspect="auto", cmap="magma" if is_err else "viridis",
                       **kw)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(_label(names[0]))
        ax.set_ylabel(_label(names[1]))
        bar = fig.colorbar(im, ax=ax)
        bar.set_label(f"log10 |error| ({UNITLESS})" if is_err else _label(field), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def training_curve(path: str | Path, steps: Sequence[float], s_val: Sequence[float],
                   selected_step: int | None, loss: Sequence[float] | None = None) -> Path:
    """The teacher's S_val (and training loss) against the step, the selected checkpoint marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=SIZE)
    steps_a, s = np.asarray(steps, float), np.maximum(np.asarray(s_val, float), FLOOR)
    ax.semilogy(steps_a, s, "-o", markersize=3, label="S_val (physics validation)")
    if loss is not None:
        ax.semilogy(steps_a, np.maximum(np.asarray(loss, float), FLOOR), "--", label="training loss")
    if selected_step is not None and selected_step in set(steps_a.astype(int).tolist()):
        i = int(np.where(steps_a.astype(int) == selected_step)[0][0])
        ax.semilogy([steps_a[i]], [s[i]], "r*", markersize=14, label=f"selected checkpoint (step {selected_step})")
    ax.set_xlabel("training step (count)")
    ax.set_ylabel(f"S_val, loss ({UNITLESS})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def pareto_fronts(path: str | Path, fronts: Sequence[tuple[str, Sequence[float], Sequence[float]]],
                  selected: tuple[float, float] | None = None) -> Path:
    """Each search run's front (complexity against loss) and the selected candidate's search point."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=SIZE)
    for label, size, loss in fronts:
        ax.semilogy(np.asarray(size, float), np.maximum(np.asarray(loss, float), FLOOR), "-o", markersize=4,
                    drawstyle="steps-post", label=label)
    if selected is not None:
        ax.semilogy([selected[0]], [max(selected[1], FLOOR)], "r*", markersize=16, label="selected (pre-refit)")
    ax.set_xlabel("expression complexity (nodes)")
    ax.set_ylabel(f"search loss, MSE to teacher ({UNITLESS})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def write_run_figures(result: Any, problem: Any, out_dir: str | Path,
                      teacher_predict: Callable[[np.ndarray], np.ndarray] | None = None) -> list[FigureRecord]:
    """Every figure the result allows, in ``out_dir``; [] (and no error) without matplotlib."""
    if not have_matplotlib():
        return []
    return draw_plans(plan_run_figures(result, problem, out_dir, teacher_predict))


def plan_run_figures(result: Any, problem: Any, out_dir: str | Path,
                     teacher_predict: Callable[[np.ndarray], np.ndarray] | None = None) -> list[FigurePlan]:
    """The figures the result allows, evaluated (expressions, reference, teacher) but not drawn."""
    out = Path(out_dir)
    plans: list[FigurePlan] = []
    for plan in (_solution_figure, _training_figure, _pareto_figure, _formula_images):
        try:
            plans += plan(result, problem, out, teacher_predict)
        except Exception:  # noqa: BLE001 - a figure must never cost the run its result
            continue
    return plans


def draw_plans(plans: Sequence[FigurePlan]) -> list[FigureRecord]:
    """Draw each plan; a figure that fails is left out (it never costs the run its result)."""
    records = []
    for plan in plans:
        if plan.draw not in DRAWINGS:
            continue
        try:
            path = Path(globals()[plan.draw](*plan.args))
        except Exception:  # noqa: BLE001
            continue
        if path.exists():
            records.append(FigureRecord(path, plan.caption, "formula" if plan.draw == "formula" else "figure"))
    return records


def _solution_figure(result: Any, problem: Any, out: Path, teacher_predict: Any) -> list[FigurePlan]:
    """Recovered solution against teacher and reference: a profile (1-D) or heat maps (2-D; the
    first two variables with the others at their midpoints for d > 2)."""
    from desyr.symbolic.numeric import evaluate

    exprs = result.solution() if result.expression is not None else None
    if not exprs:
        return []
    pre, bounds, field, names = result.pre_refit_expression or {}, problem.bounds, problem.fields[0], problem.variable_names
    if problem.dim == 1:
        x = np.linspace(bounds[0, 0], bounds[0, 1], 400)
        X = x[:, None]
    else:
        n = 80
        gx, gy = np.meshgrid(np.linspace(bounds[0, 0], bounds[0, 1], n), np.linspace(bounds[1, 0], bounds[1, 1], n))
        X = np.tile(bounds.mean(axis=1), (n * n, 1))
        X[:, 0], X[:, 1] = gx.ravel(), gy.ravel()
    rec = evaluate(exprs[field], problem.symbols, X)
    ref = None if (ref_all := problem.evaluate_reference(X)) is None else ref_all[:, 0]
    teach = np.asarray(teacher_predict(X), float).reshape(len(X), -1)[:, 0] if teacher_predict else None
    pre_v = evaluate(problem.parse(pre[field]), problem.symbols, X) if field in pre else None
    if problem.dim > 1:      # drawn on the domain only: blank outside a shape
        hide = problem.outside(X)
        rec = np.where(hide, np.nan, np.asarray(rec, float))
        ref, teach, pre_v = (None if v is None else np.where(hide, np.nan, np.asarray(v, float)) for v in (ref, teach, pre_v))
    what = "reference, teacher, pre-refit and recovered" if teach is not None else "reference, pre-refit and recovered"
    if problem.dim == 1:
        return [FigurePlan("profile_1d", (out / "fig_solution.png", x, ref, rec, teach, pre_v, names[0], field),
                           f"(a) {what} {field} along {names[0]}; (b) log10 of the pointwise absolute "
                           f"error against the reference (all quantities {UNITLESS}).")]
    shape = gx.shape
    panels = [("reference" if ref is not None else "recovered", (ref if ref is not None else rec).reshape(shape), False)]
    if ref is not None:
        if teach is not None:
            panels.append(("log10 |teacher - reference|", log_error(teach, ref).reshape(shape), True))
        panels.append(("log10 |recovered - reference|", log_error(rec, ref).reshape(shape), True))
    sliced = "" if problem.dim == 2 else (" on the slice " + ", ".join(
        f"{v} = {m:g}" for v, m in zip(names[2:], bounds.mean(axis=1)[2:])))
    return [FigurePlan("field_maps", (out / "fig_solution.png", (gx, gy), (names[0], names[1]), panels, field),
                       f"{field} over ({names[0]}, {names[1]}){sliced}: the reference field and log10 of "
                       f"the absolute error of {'the teacher and of ' if teach is not None else ''}the recovered "
                       f"expression (shared colour scale, floor {FLOOR:g}; {UNITLESS}).")]


def _training_figure(result: Any, problem: Any, out: Path, teacher_predict: Any) -> list[FigurePlan]:
    facts = result.teacher.facts if result.teacher is not None else {}
    history = facts.get("history") if isinstance(facts, dict) else None
    if not history:
        return []
    rows = [h for h in history if isinstance(h, (list, tuple)) and len(h) >= 3]
    if not rows:
        return []
    steps, loss, s_val = zip(*[(float(h[0]), float(h[1]), float(h[2])) for h in rows])
    step = facts.get("selected_step")
    args = (out / "fig_training.png", steps, s_val, step if isinstance(step, int) else None, loss)
    return [FigurePlan("training_curve", args, f"Teacher training: the physics-validation score S_val and the "
                       f"training loss against the step; the star marks the selected checkpoint (step {step}).")]


def _pareto_figure(result: Any, problem: Any, out: Path, teacher_predict: Any) -> list[FigurePlan]:
    search = result.search
    if search is None or not search.runs:
        return []
    fronts = [(f"{r.field}, seed {r.seed}", [m["complexity"] for m in r.front], [m["loss"] for m in r.front])
              for r in search.runs if r.front]
    best = result.get_best()
    selected = None
    if best is not None and best.search_complexity is not None and best.search_loss is not None:
        selected = (float(best.search_complexity), float(best.search_loss))
    return [FigurePlan("pareto_fronts", (out / "fig_pareto.png", fronts, selected),
                       f"Pareto fronts of the {len(fronts)} seeded searches (complexity against the search "
                       "loss); the star is the selected candidate before its refit.")]


def formula(path: str | Path, tex: str) -> Path:
    """``tex`` drawn by matplotlib's mathtext as an SVG (no LaTeX installation, no fonts to fetch)."""
    from matplotlib import font_manager, mathtext

    mathtext.math_to_image(f"${tex}$", str(path), prop=font_manager.FontProperties(size=16), dpi=DPI, format="svg")
    return Path(path)


def _formula_images(result: Any, problem: Any, out: Path, teacher_predict: Any) -> list[FigurePlan]:
    """The exact form of each field as an image, for report.html."""
    import sympy as sp
    exprs = result.solution() if result.exact_form is not None and result.exact_form.expressions else None
    return [FigurePlan("formula", (out / f"formula_{i}.svg", f"{sp.latex(sp.Symbol(name))} = {sp.latex(e)}"),
                       f"exact form of {name}") for i, (name, e) in enumerate((exprs or {}).items())]


def figure_section(records: Sequence[FigureRecord], skipped: str | None = None) -> list[str]:
    """Markdown lines of the report's figure section (paths relative to report.md)."""
    lines = ["## Figures", ""]
    if skipped:
        return lines + [skipped, ""]
    if not records:
        return lines + ["No figure could be drawn for this result.", ""]
    for r in records:
        caption = " ".join(r.caption.replace("[", "(").replace("]", ")").split())
        lines += [f"![{caption}]({Path(r.path).name})", "", f"*{caption}*", ""]
    return lines


#: the drawing functions a :class:`FigurePlan` may name
DRAWINGS = ("profile_1d", "field_maps", "training_curve", "pareto_fronts", "formula")
NO_MATPLOTLIB = "Figures skipped: matplotlib is not installed (install the `plots` extra)."
