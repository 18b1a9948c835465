"""``report.md``: the human summary of a :class:`desyr.model.result.Result`.

Every string that a config or a plugin supplies (title, source, notes, reasons)
is escaped before it is rendered, so no config can put text, markup or a fake
verdict into the report (``md``).  Expressions are printed by DeSyR itself and
shown as code.
"""
from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:      # model.result shows itself in notebooks through this package: no import at run time
    from desyr.model.result import Result

_MARKDOWN = re.compile(r"([\\`*\[\]|~#])")
# An underscore inside a word (teacher_compatibility) is inert in Markdown; one at a word edge
# could open emphasis (__Verified__), so only those are escaped.
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


# Characters that do not show but change how text around them reads: bidi embeddings, overrides and
# isolates (U+202A-E, U+2066-9), marks (U+200E/F, U+061C), zero-width ones (U+200B-D, U+2060, U+FEFF),
# other format and control characters, and letters drawn as blanks.  A title with U+202E could show
# "deifireV" as "Verified" ("Trojan Source"); in a report they appear as their code, <U+202E>.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u034f\u2800")
#: variation selectors: marks that change nothing visible on plain letters, so they can carry hidden data
_SELECTORS = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF))


def _hidden(ch: str) -> bool:
    code = ord(ch)
    return (unicodedata.category(ch) in _HIDDEN_CATEGORIES or ch in _BLANK_LETTERS
            or any(lo <= code <= hi for lo, hi in _SELECTORS))


def visible(text: str) -> str:
    """``text`` with every invisible or reordering character replaced by its code point, ``<U+202E>``."""
    return "".join(f"<U+{ord(ch):04X}>" if _hidden(ch) else ch for ch in text)


def md(text: Any) -> str:
    """Plain text made inert for Markdown and HTML: one line, hidden characters shown by their code,
    markup characters escaped."""
    one_line = visible(" ".join(str(text).split()))
    escaped = _MARKDOWN.sub(r"\\\1", html.escape(one_line, quote=False))
    return _EDGE_UNDERSCORE.sub(r"\\_", escaped)


def code(text: Any) -> str:
    """Inline code that cannot be broken out of (backticks replaced, one line, hidden characters shown)."""
    return "`" + visible(" ".join(str(text).replace("`", "'").split())).replace("|", "\\|") + "`"


def float_text(v: float) -> str:
    """A residual or a time as the reports print it: 0, 1.234e-08, 0.1235, 1.235e+04."""
    return "0" if v == 0 else (f"{v:.3e}" if abs(v) < 1e-3 or abs(v) >= 1e4 else f"{v:.4g}")


def fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return float_text(v)
    return md(v)


def undecided(result: Result) -> set[str]:
    """The unknowns a run found not identifiable: their values are arbitrary, so none is shown."""
    chosen = next((c for c in result.candidates if c.id == result.selected_id), None)
    note = chosen.unknowns if chosen is not None else None
    if not note or not note.startswith("not identifiable"):
        return set()
    return set(result.problem.unknowns)


def shown(result: Result, exact: bool = False) -> dict[str, str]:
    """The selected formulas (``exact``: the exact form's) as the report shows them: the verifier's print
    of what it decided, where the result records its answer, never other text beside its verdict (a
    result read from a file may hold any text); else the result's own text."""
    if exact:
        own = dict(result.exact_form.expressions) if result.exact_form is not None else {}
    else:
        own = dict(result.expression or {})
    answer = result.verification.answer if result.verification else None
    part = answer.get("exact_form") if exact and isinstance(answer, dict) else answer
    if not isinstance(part, dict):
        return own
    printed = {k: v for key in ("expressions", "unknowns") if isinstance(part.get(key), dict)
               for k, v in part[key].items()}
    if own and all(isinstance(printed.get(f), str) for f in own):
        return {f: printed[f] for f in own}
    return own


def inverse_lines(result: Result) -> list[str]:
    """An inverse problem's two extra facts: how its unknowns were decided, and the data misfit."""
    chosen = next((c for c in result.candidates if c.id == result.selected_id), None)
    lines = [f"unknowns: {chosen.unknowns}"] if chosen is not None and chosen.unknowns else []
    answer = result.verification.answer if result.verification else None
    data = answer.get("observations") if isinstance(answer, dict) else None
    if isinstance(data, dict) and isinstance(data.get("reason"), str):
        lines.append(f"observations: {data['reason']}")
    return lines


def render_report(r: Result, figures: list[str] | None = None) -> str:
    """The report; ``figures`` are the markdown lines of the figure section (desyr.report.figures)."""
    lines = [f"# DeSyR {md(r.command)}: {md(r.problem.title)}", ""]
    if r.expression is None:
        why = ("the search pool was empty" if r.search is not None and r.search.pool_size == 0 else
               "there were no candidates" if not r.candidates else "every candidate was removed; see the gates below")
        lines += [f"**No candidate could be selected** ({why}).", ""]
    else:
        lines += ["## Selected expression", ""]
        hidden = undecided(r)
        lines += [f"    {f} = {e}" for f, e in shown(r).items() if f not in hidden]
        lines += ["", verdict(r), ""]
        lines += [f"- {md(line)}" for line in inverse_lines(r)] + ([""] if inverse_lines(r) else [])
        lines += _exact_section(r)
        if r.teacher is not None and r.teacher.selected_step == 0:
            lines += ["**Warning:** the teacher never improved on its initial network (S_val was lowest at "
                      "step 0); its samples carry little information. Revisit the teacher settings.", ""]
        lines += _quantities(r)
    lines += _coupled_section(r)
    lines += _search_section(r)
    lines += _attempts_section(r)
    lines += ["## Gates", "", "| gate | active | kept | removed | note |", "|---|---|---|---|---|"]
    for g in r.selection.gates:
        lines.append(f"| {md(g.gate)} | {'yes' if g.active else 'no'} | {len(g.kept)} | {len(g.removed)} | {md(g.note)} |")
    if r.selection.fallback:
        lines += ["", md(r.selection.fallback)]
    lines += ["", "## Candidates", "", "| id | searcher | status | nfev | complexity | eps_T | Phi | removed by | expression |",
              "|---|---|---|---|---|---|---|---|---|"]
    for c in r.candidates:
        expr = "; ".join(f"{k} = {v}" for k, v in (c.expression or c.pre_refit_expression).items())
        mark = md(c.removed_by) if c.removed_by else ("**selected**" if c.id == r.selected_id else "")
        lines.append(f"| {md(c.id)} | {md(c.searcher)} | {md(c.status)} | {c.nfev} | {fmt(c.complexity)} | "
                     f"{fmt(c.eps_T)} | {fmt(c.phi)} | {mark} | {code(expr)} |")
    lines += [""] + list(figures or [])
    lines += ["## Timings (s)", "", "| stage | seconds |", "|---|---|"]
    lines += [f"| {md(k)} | {v:.3f} |" for k, v in r.timings.items()]
    lines += ["", f"DeSyR {md(r.provenance.desyr_version)}, schema {md(r.schema)}; components: "
              + ", ".join(md(label) for label in component_labels(r))]
    return "\n".join(lines) + "\n"


def component_labels(r: Result) -> list[str]:
    """Each component of the run with where it came from (``gate g (desyr-g 0.1.0)``); a result written
    before the origins were recorded names the components alone."""
    if r.provenance.origins:
        return [o.text() for o in r.provenance.origins]
    return [f"{k} {v}" for k, v in r.provenance.components.items()]


def _quantities(r: Result) -> list[str]:
    res, err = r.residuals, r.errors
    lines = ["| quantity | value |", "|---|---|",
             f"| status | {md(r.status)} |", f"| converged | {r.converged} |",
             f"| final complexity | {fmt(r.complexity)} |",
             f"| verdict (separate verifier) | {md(r.verdict)} |",
             f"| R_eq (verifier's independent interior points) | {fmt(res.R_eq if res else None)} |",
             f"| R_con (verifier's independent constraint points) | {fmt(res.R_con if res else None)} |",
             f"| largest residual relative to the problem's scale (what the tolerance judges) | "
             f"{fmt(res.relative if res else None)} |",
             f"| relative L2 vs reference | {fmt(err.rel_l2)} |"]
    run = r.verification.run_residuals if r.verification else None
    if run is not None:
        lines += [f"| run residuals R_eq, R_con (in-process, for comparison) | {fmt(run.R_eq)}, {fmt(run.R_con)} |"]
    lines += [f"| relative L2 of {md(f)} | {fmt(v)} |" for f, v in err.fieldwise.items()]
    lines += [f"| absolute L2 (RMS) of {md(f)} (its reference is 0: no relative error) | {fmt(v)} |"
              for f, v in err.absolute.items()]
    lines += [f"| pre-refit relative L2 | {fmt(err.pre_refit_rel_l2)} |"] if err.pre_refit_rel_l2 is not None else []
    lines += [f"| teacher relative L2 | {fmt(err.teacher_rel_l2)} |"] if err.teacher_rel_l2 is not None else []
    best = r.get_best()
    if best is not None:
        lines.append(f"| proposed by | {md(best.searcher)} |")
        if best.cleaning:
            lines.append(f"| Stage-C cleaning | {md(best.cleaning)} |")
    lines += ["", "Pre-refit (search) expression: " +
              "; ".join(code(f"{f} = {e}") for f, e in (r.pre_refit_expression or {}).items()), ""]
    return lines


def _exact_section(r: Result) -> list[str]:
    form = r.exact_form
    if form is None or not form.latex:
        return []
    lines = ["Exact form (constants identified and rewrites applied only where the verification residuals "
             "stay at round-off; see docs/exact.md):", ""]
    hidden = undecided(r)
    lines += [f"    {f} = {e}" for f, e in shown(r, exact=True).items() if f not in hidden]
    lines += [""] + [f"$$ {f} = {tex} $$" for f, tex in form.latex.items() if f not in hidden]
    accepted = [c for c in form.constants if c.accepted]
    if accepted:
        lines += ["", "Identified constants: " + ", ".join(f"{c.value!r} = {code(c.proposed)}" for c in accepted)]
    # a field the problem leaves free up to a function (a pressure up to a function of time): say which member
    gauges = [g for g in form.rewrites if g.name == "gauge" and g.accepted]
    if gauges:
        lines += [""] + [f"Gauge: {md(g.reason or '')} (as found: {code(g.before)})." for g in gauges]
    if form.symbolic_match is not None:
        lines += ["", f"Symbolic match with the reference: {'yes' if form.symbolic_match else 'no'}"]
    lines += [line for text in series_lines(r) for line in ("", text)]
    return lines + [""]


def series_lines(r: Result) -> list[str]:
    """One line per field that is a series: the terms its numbers kept and the proved tail bound."""
    if r.series is None:
        return []
    out = []
    for f, cut in r.series.fields.items():
        reached = (f"a proved tail bound of {cut.tail_bound:.2g} there" if cut.tail_bound is not None
                   else "no tail bound is proved on those points")
        cap = " (the cap)" if cut.capped else ""
        holds = (f"a tail bound holds on {cut.bound_holds}" if cut.bound_holds
                 else "no tail bound is proved on any part of the domain tried")
        out.append(f"Series: {f} keeps {cut.terms} terms{cap} on the verification points, with {reached}; {holds} "
                   f"(docs/series.md).")
    return out


def _search_section(r: Result) -> list[str]:
    """Why a searcher contributed nothing: the reasons searchers gave for an empty front (info["rejected"])."""
    search = r.search
    if search is None:
        return []
    reasons: dict[tuple[str, str], list[str]] = {}
    for run in search.runs:
        if run.info.get("rejected"):
            key = (str(run.info.get("searcher", search.plugin)), str(run.info["rejected"]))
            reasons.setdefault(key, []).append(f"{run.field}, seed {run.seed}")
    if not reasons and search.pool_size:
        return []
    lines = ["## Search", "", f"{search.pool_size} pooled candidate(s) from {len(search.runs)} search(es) "
             f"({md(search.plugin)})."]
    lines += [f"- {md(name)}: rejected — {md(why)} ({md('; '.join(runs))})" for (name, why), runs in reasons.items()]
    return lines + [""]


def _attempts_section(r: Result) -> list[str]:
    if not r.attempts:
        return []
    lines = ["## Attempts", "", "The exact solvers' attempt comes first (docs/solvers.md); escalation "
             "(docs/escalation.md) changes each later attempt from the one before. The run stops at the first "
             "verified-exact attempt and reports it, else the attempt with the smallest residual.", "",
             "| # | step | change | why | source of the selected candidate | time (s) | worst relative residual | "
             "verified exact |", "|---|---|---|---|---|---|---|---|"]
    for a in r.attempts:
        lines.append(f"| {a.index} | {md(a.step)} | {md(a.change)} | {md(a.reason)} | {md(a.searchers)} | "
                     f"{a.seconds:.1f} | "
                     f"{fmt(a.worst_residual)} | {'yes' if a.exact else 'no'} |")
    if r.escalation_stop:
        lines += ["", f"Stopped: {md(r.escalation_stop)}."]
    if r.stopped:
        lines += ["", "Calls stopped at the budget's wall:", ""] + [f"- {md(c.line())}" for c in r.stopped]
    for a in r.attempts:
        if a.failures:
            lines += ["", f"Why attempt {a.index}'s candidates are not the answer:", ""]
            lines += [f"- {md(line)}" for line in a.failures]
    if r.solvers:
        lines += ["", "Exact solvers (stage 0):", "", "| searcher | solver | time (s) | outcome |", "|---|---|---|---|"]
        lines += [f"| {md(c.searcher)} | {md(c.solver)} | {c.seconds:.2f} | {md(c.outcome)}"
                  f"{' (' + md(c.detail) + ')' if c.detail else ''} |" for c in r.solvers]
    return lines + [""]


def _coupled_section(r: Result) -> list[str]:
    coupled = r.coupled
    if coupled is None:
        return []
    shared = coupled.augmentation.get("shared", [])
    rates = ", ".join(f"{c['median_rate']:.6g} in {md(c['variable'])} (fields {md(', '.join(c['fields']))})"
                      for c in shared)
    sizes = " x ".join(str(len(v["kept"])) for v in coupled.shortlists.values())
    best = r.get_best()
    ties = "; ".join(f"{md(t['field'])}: {t['multiple']}\\*{md(t['parameter'])}" for t in (best.shared_rates if best else []))
    return ["## Coupled stage", "",
            f"- shared exponential rates: {rates or 'none'}",
            f"- shortlists {sizes} gave {coupled.groups} groups; the best {coupled.screened} were screened "
            f"({coupled.screening_seconds:.1f} s)",
            f"- rates tied in the final refit: {ties or 'none'}", ""]


def verdict_parts(r: Result, quote: Callable[[Any], str] = md) -> tuple[str, str, str]:
    """The verdict as the separate verifier gave it (docs/security.md): its headline, the sentence
    after it, and a note (empty when none); the verifier's own words pass through ``quote``."""
    v = r.verification
    reason = quote(v.reason) if v else "this result was not checked by the verifier"
    note = f"{quote(v.disagreement)}." if v and v.disagreement else ""
    if r.verdict == "proved":
        return ("Proved", f": the exact form, substituted into the equations and the constraints, reduces every "
                f"residual to exactly 0 ({reason}); the numeric expression agrees with it on independent points.", note)
    if r.verdict == "verified":
        return ("Verified", f" (not proved): the expression satisfies the governing equation and the constraints "
                f"to {r.exact_tolerance:g} of the problem's scale on independent points, but it was not proved symbolically ({reason}). "
                f"A formula with unidentified float constants can agree with the solution to round-off on the "
                f"domain without being it.", note)
    if r.verdict == "unverified":
        return "Unverified", f": {reason}. Run desyr verify on this result.", note
    return ("Not an exact solution", f" ({reason}). This expression approximates the solution but is not exact. "
            "The gates are relative, so they always pick something; only the verifier's checks say "
            "whether recovery succeeded. A missing operator in the library is a common cause.", note)


def verdict(r: Result) -> str:
    """The verdict line of report.md."""
    head, body, note = verdict_parts(r)
    if r.verdict == "unverified":
        body = body.replace("Run desyr verify", "Run `desyr verify`")
    return f"**{head}**{body}" + (f"\n\n**Note:** {note}" if note else "")
