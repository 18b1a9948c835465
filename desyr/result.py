"""The versioned result (``result.json``) and the human report (``report.md``).

Schema ``desyr.result/1`` is documented in ``docs/results.md``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desyr import __version__
from desyr.candidates import Candidate, _num
from desyr.context import RunContext
from desyr.expressions import expression_text

SCHEMA = "desyr.result/1"
EXACT_TOLERANCE = 1e-8


@dataclass
class Result:
    data: dict[str, Any]
    selected: Candidate | None
    pool: list[Candidate]

    @property
    def expression(self) -> dict[str, str] | None:
        return self.data["expression"]

    def write(self, out: str | Path) -> Path:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "result.json").write_text(json.dumps(self.data, indent=2) + "\n", encoding="utf-8")
        (out / "report.md").write_text(render_report(self.data), encoding="utf-8")
        return out


def build_result(command: str, ctx: RunContext, pool: list[Candidate], outcome: dict[str, Any]) -> Result:
    selection, verification, errors = outcome["selection"], outcome["verification"], outcome["errors"]
    chosen = selection.selected
    tol = float((ctx.problem.sections.get("selection") or {}).get("exact_tolerance", EXACT_TOLERANCE))
    residuals = None
    if verification is not None:
        residuals = {"R_eq": _num(verification.R_eq), "R_con": _num(verification.R_con),
                     "R_eq_per_equation": [_num(v) for v in verification.R_eq_per_equation],
                     "R_con_per_constraint": [_num(v) for v in verification.R_con_per_constraint]}
    exact = bool(verification and max(v for v in (verification.R_eq, verification.R_con) if v is not None) <= tol)
    data = {
        "schema": SCHEMA,
        "desyr_version": __version__,
        "command": command,
        "problem": {"name": ctx.problem.name, "title": ctx.problem.title, "source": ctx.problem.source,
                    "fields": ctx.problem.fields, "variables": ctx.problem.variable_names},
        "seed": ctx.seed,
        "expression": {f: expression_text(e) for f, e in chosen.expressions.items()} if chosen else None,
        "pre_refit_expression": ({f: expression_text(e) for f, e in chosen.search_expressions.items()}
                                 if chosen else None),
        "selected_id": chosen.id if chosen else None,
        "converged": bool(chosen and chosen.converged),
        "status": chosen.refit.status if chosen else "no_candidate",
        "complexity": chosen.complexity if chosen else None,
        "exact": exact,
        "exact_tolerance": tol,
        "residuals": residuals,
        "errors": {k: _num(v) for k, v in errors.items()},
        "selection": {"gates": [r.as_dict() for r in selection.records], "fallback": selection.fallback},
        "candidates": [c.as_dict() for c in pool],
        "teacher": ctx.info.get("teacher"),
        "search": ctx.info.get("search"),
        "coupled": ctx.info.get("coupled"),
        "timings": {k: round(v, 4) for k, v in ctx.timings.items()},
    }
    return Result(data, chosen, pool)


# ---------------------------------------------------------------- report.md
def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return "0" if v == 0 else (f"{v:.3e}" if abs(v) < 1e-3 or abs(v) >= 1e4 else f"{v:.4g}")
    return str(v)


def render_report(d: dict[str, Any]) -> str:
    lines = [f"# DeSyR {d['command']}: {d['problem']['title']}", ""]
    if d["expression"] is None:
        lines += ["**No candidate could be selected** (every candidate was removed; see the gates below).", ""]
    else:
        lines += ["## Selected expression", ""]
        lines += [f"    {f} = {e}" for f, e in d["expression"].items()]
        lines += ["", _verdict(d), ""]
        teacher = d.get("teacher") or {}
        if teacher.get("selected_step") == 0:
            lines += ["**Warning:** the teacher never improved on its initial network (S_val was lowest at "
                      "step 0); its samples carry little information. Revisit the teacher settings.", ""]
        res, err = d["residuals"], d["errors"]
        lines += ["| quantity | value |", "|---|---|",
                  f"| status | {d['status']} |", f"| converged | {d['converged']} |",
                  f"| final complexity | {d['complexity']} |",
                  f"| R_eq (independent interior points) | {_fmt(res['R_eq'])} |",
                  f"| R_con (constraint sets) | {_fmt(res['R_con'])} |",
                  f"| relative L2 vs reference | {_fmt(err.get('rel_l2'))} |"]
        lines += [f"| relative L2 of {k[len('rel_l2_'):]} | {_fmt(v)} |" for k, v in err.items() if k.startswith("rel_l2_")]
        for key, label in (("pre_refit_rel_l2", "pre-refit relative L2"), ("teacher_rel_l2", "teacher relative L2")):
            if key in err:
                lines.append(f"| {label} | {_fmt(err[key])} |")
        lines += ["", "Pre-refit (search) expression: " +
                  "; ".join(f"`{f} = {e}`" for f, e in d["pre_refit_expression"].items()), ""]
    lines += _coupled_section(d)
    lines += ["## Gates", "", "| gate | active | kept | removed | note |", "|---|---|---|---|---|"]
    for g in d["selection"]["gates"]:
        lines.append(f"| {g['gate']} | {'yes' if g['active'] else 'no'} | {len(g['kept'])} | "
                     f"{len(g['removed'])} | {g['note'] or ''} |")
    if d["selection"]["fallback"]:
        lines += ["", d["selection"]["fallback"]]
    lines += ["", "## Candidates", "", "| id | status | nfev | complexity | eps_T | Phi | removed by | expression |",
              "|---|---|---|---|---|---|---|---|"]
    for c in d["candidates"]:
        expr = "; ".join(f"{k} = {v}" for k, v in (c["expression"] or c["pre_refit_expression"]).items())
        lines.append(f"| {c['id']} | {c['status']} | {c['nfev']} | {_fmt(c['complexity'])} | {_fmt(c['eps_T'])} | "
                     f"{_fmt(c['phi'])} | {c['removed_by'] or ('**selected**' if c['id'] == d['selected_id'] else '')} | "
                     f"`{expr}` |")
    lines += ["", "## Timings (s)", "", "| stage | seconds |", "|---|---|"]
    lines += [f"| {k} | {v:.3f} |" for k, v in d["timings"].items()]
    return "\n".join(lines) + "\n"


def _coupled_section(d: dict[str, Any]) -> list[str]:
    coupled = d.get("coupled")
    if not coupled:
        return []
    shared = coupled["augmentation"]["shared"]
    rates = ", ".join(f"{c['median_rate']:.6g} in {c['variable']} (fields {', '.join(c['fields'])})" for c in shared)
    sizes = " x ".join(str(len(v["kept"])) for v in coupled["shortlists"].values())
    chosen = next((c for c in d["candidates"] if c["id"] == d["selected_id"]), None)
    ties = "; ".join(f"{t['field']}: {t['multiple']}*{t['parameter']}" for t in (chosen or {}).get("shared_rates", []))
    return ["## Coupled stage", "",
            f"- shared exponential rates: {rates or 'none'}",
            f"- shortlists {sizes} gave {coupled['groups']} groups; the best {coupled['screened']} were screened "
            f"({coupled['screening_seconds']:.1f} s)",
            f"- rates tied in the final refit: {ties or 'none'}", ""]


def _verdict(d: dict[str, Any]) -> str:
    res = d["residuals"]
    if d["exact"]:
        return (f"**Verified**: the expression satisfies the governing equation and the constraints to "
                f"{d['exact_tolerance']:g} on independent points.")
    values = [res[k] for k in ("R_eq", "R_con") if res and res[k] is not None]
    worst = f"{max(values):.3e}" if values and all(isinstance(v, float) for v in values) else "non-finite"
    return (f"**Not an exact solution.** The verification residuals (worst {worst}) exceed "
            f"{d['exact_tolerance']:g}: this expression approximates the solution but is not exact. "
            "The gates are relative, so they always pick something; only these absolute residuals "
            "say whether recovery succeeded. A missing operator in the library is a common cause.")
