"""``convergence``: candidate-level audit of every Stage-B refit in a bench folder (paper §5.4.1).

Counts every pooled candidate with at least one free coefficient (``params_initial`` not
empty) by its recorded status: converged, timeout, not_converged (finite but unconverged),
failed (non-finite or error).  Zero-parameter candidates ("fixed") are counted apart.
"""
from __future__ import annotations

from collections.abc import Iterable

from desyr.model.result import CandidateRecord
from desyr.report.charts import bar_chart
from desyr.report.figures import FigureRecord
from desyr.studies.common import StudyContext, StudyOutput, archived_runs, by_config, table

TITLE = "Candidate-level convergence audit"
STATUSES = ["converged", "timeout", "not_converged", "failed"]
PAPER = "3,745 of 3,774 refits with a free coefficient converged (99.23%); 27 timeouts (0.72%), 2 finite but " \
        "unconverged (0.05%), no non-finite outcome (17 scalar configurations)"


def audit(records: Iterable[CandidateRecord]) -> dict[str, int]:
    counts = {s: 0 for s in STATUSES + ["fixed"]}
    for c in records:
        if not c.params_initial:
            counts["fixed"] += 1
        elif c.status in counts:
            counts[c.status] += 1
        else:
            counts["failed"] += 1
    return counts


def run(ctx: StudyContext) -> StudyOutput:
    assert ctx.bench is not None
    groups = by_config(archived_runs(ctx.bench))
    per_config = {name: audit([c for r in runs for c in r.result.candidates]) for name, runs in groups.items()}
    total = {s: sum(v[s] for v in per_config.values()) for s in STATUSES + ["fixed"]}
    free = sum(total[s] for s in STATUSES)

    def pct(n: int) -> str:
        return f"{n} ({100.0 * n / free:.2f}%)" if free else str(n)

    body = [[name, len(groups[name]), sum(v[s] for s in STATUSES)] + [v[s] for s in STATUSES] + [v["fixed"]]
            for name, v in per_config.items()]
    body.append(["**all**", sum(len(r) for r in groups.values()), free] + [pct(total[s]) for s in STATUSES]
                + [total["fixed"]])
    lines = table(["configuration", "runs", "refits with free coefficients"] + STATUSES + ["zero-parameter"], body)
    lines += ["", f"{total['converged']} of {free} refits with a free coefficient converged. Paper: {PAPER}."]
    figures = []
    path = ctx.figure("convergence.png")
    if path is not None and per_config:
        names = list(per_config)
        bar_chart(path, names, [(s, [per_config[n][s] for n in names]) for s in STATUSES],
                  "Stage-B refits (count)", stacked=True)
        figures.append(FigureRecord(path, "Stage-B refits with at least one free coefficient per configuration, "
                                          "by recorded status."))
    return StudyOutput("convergence", TITLE, {"per_config": per_config, "total": total, "with_free": free,
                                              "paper": PAPER}, lines, figures)
