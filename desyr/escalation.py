"""Escalation: when the selected expression is not verified exact, try again within a budget.

The policy is a ladder of steps (``[escalation] steps``), each applied on top of the ones before;
the default order spends the first attempts on what can change the outcome (``docs/escalation.md``):

1. ``enrich_library`` -- a library chosen from the problem (no ``[search] unary``) grows one step per
   attempt: the functions the teacher's values show (:mod:`desyr.unary.evidence`), then the broad
   base in cost tiers (:mod:`desyr.unary.choice`); a library the config gives is not grown. A shape
   the library already has a function for adds nothing, and where the problem's text named the
   library and the teacher shows no shape beyond it, one ``more_searches`` attempt comes before the
   base (the library can likely express the answer);
2. ``other_searcher`` -- the other search family joins the pool (``dictionary`` with
   ``operon``, or ``operon`` with ``dictionary``);
3. ``more_searches``  -- K more seeded searches, on new seeds, with the same library and teacher;
4. ``larger_teacher`` -- the teacher plugin's own larger budget (deepxde: ``budget_scale``
   doubled, so twice the steps and points, set or derived from the problem).

When the policy's steps are spent and time is left, new seeds, a larger teacher and another searcher
follow in turn (:data:`BEYOND`), each saying so in its reason.

Every attempt is a whole run on the changed config (an unchanged teacher is the earlier attempt's, and
the run's memo answers the searches and refits already computed), and records what changed and why.
The run stops at the first verified-exact attempt; otherwise it returns the attempt with the smallest
verification residual.  An attempt starts only while the time left is at least what it should cost
(:func:`next_cost`: the last attempt's, less a teacher it reuses).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple

from desyr.config.spec import RunSpec, frozen, thawed
from desyr.errors import ConfigError
from desyr.extension.registry import Registry
from desyr.extension.roles import Teacher
from desyr.model.result import AttemptRecord, Result
from desyr.runtime.progress import Progress
from desyr.stages.run_components import searcher_names
from desyr.stages.stops import noted_stops, spent_by
from desyr.unary.choice import is_chosen, library_steps, refused_operators
from desyr.unary.evidence import Finding


@dataclass(frozen=True)
class Policy:
    budget: float
    steps: tuple[str, ...]
    chosen: bool = False        # the library is chosen from the problem (no [search] unary): it may grow


def policy(spec: RunSpec, budget: float | None) -> Policy | None:
    """The escalation policy of a run (``budget`` overrides ``[escalation] budget``); None: one attempt."""
    sec = spec.escalation
    seconds = sec.budget if budget is None else budget
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf:
        raise ConfigError(f"escalation budget must be a positive finite number of seconds, got {seconds!r}")
    return Policy(float(seconds), tuple(sec.steps), is_chosen(spec))


#: one step: the derived spec and what changed, or None where the step does not apply
Step = tuple[RunSpec, str] | None


def _with_search(spec: RunSpec, **changes: Any) -> RunSpec:
    return replace(spec, search=replace(spec.search, **changes))


def _more_searches(spec: RunSpec, registry: Registry) -> Step:
    return spec, _new_seeds(spec)


def _new_seeds(spec: RunSpec) -> str:
    # K more searches, not 2K: the seeds move on (escalate), so none repeats, and the attempt costs
    # what the first one's search did
    k = spec.search.runs
    return f"K = {k} seeded search{'es' if k > 1 else ''} on new seeds (a fresh pool)"


def _other_searcher(spec: RunSpec, registry: Registry) -> Step:
    names = searcher_names(registry, spec)
    extra = [n for n in escalation_searchers(registry) if n not in names]
    if not extra:
        return None
    plugins = (*names, extra[0])     # [search.options] stays with the first
    return _with_search(spec, plugin=None, plugins=plugins), f"searchers {'+'.join(names)} → {'+'.join(plugins)}"


def escalation_searchers(registry: Registry) -> list[str]:
    """Installed searchers that declare an ``escalation_rank``, lowest rank first."""
    ranked = []
    for name in registry.names("searcher"):
        rank = getattr(registry.get("searcher", name), "escalation_rank", None)
        if rank is not None:
            ranked.append((rank, name))
    return [name for _, name in sorted(ranked)]


def _larger_teacher(spec: RunSpec, registry: Registry) -> Step:
    from desyr.stages.teach import make_teacher

    teacher = make_teacher(registry, spec)
    assert isinstance(teacher, Teacher)
    larger = teacher.larger_budget()
    if not larger:
        return None
    options = frozen({**thawed(spec.teacher.options), **larger})
    change = f"teacher {teacher.name}: " + ", ".join(f"{k} = {v}" for k, v in larger.items())
    return replace(spec, teacher=replace(spec.teacher, options=options)), change


class Change(NamedTuple):
    """One step's derived spec: the step, what changed, and why."""

    step: str
    change: str
    reason: str
    spec: RunSpec


#: why each search-side step is worth an attempt (the library's steps say their own reason)
REASONS = {
    "more_searches": "the search may have missed a form its library can express",
    "other_searcher": "sums of many terms are easy for sparse regression and hard for genetic programming; "
                      "deep trees the reverse",
    "larger_teacher": "a rougher teacher can hide a term from the search",
}
#: why a library named by the problem's text gets new seeds before the broad base
TEXT_COVERS = ("the library the problem's text names has a function for every shape the teacher's values show: "
               "the search may have missed a form it can express")


#: the search- and teacher-side steps (the library's steps are :func:`_changes`'s own)
_STEPS: dict[str, Callable[[RunSpec, Registry], Step]] = {
    "more_searches": _more_searches, "other_searcher": _other_searcher, "larger_teacher": _larger_teacher}


def _changes(spec: RunSpec, registry: Registry, steps: tuple[str, ...], chosen: bool,
             findings: Callable[[], list[Finding]] = list) -> Iterator[Change]:
    """Each step in order, each on top of the specs before it. ``chosen``: the library was chosen from the
    problem (only then does ``enrich_library`` grow it); ``findings``: what the last teacher's values show."""
    for step in steps:
        if step == "enrich_library":
            if not chosen:
                continue
            refused = partial(refused_operators, spec, registry)    # this step's searchers
            named = bool(spec.search.unary)
            for kind, library, reason in library_steps(list(spec.search.unary or ()), findings, refused):
                if kind == "base" and named and "more_searches" in steps:
                    # the text named the library and the teacher shows no shape beyond it: it can likely
                    # express the answer, so new seeds come before functions nothing pointed to
                    named = False
                    yield Change("more_searches", _new_seeds(spec), TEXT_COVERS, spec)
                old = list(spec.search.unary or ())
                spec = _with_search(spec, unary=tuple(library))
                yield Change(step, f"unary {old} → {library}", reason, spec)
                named = named and kind != "evidence"
            continue
        found = _STEPS[step](spec, registry)
        if found is not None:
            spec, change = found
            yield Change(step, change, REASONS[step], spec)


#: the steps that follow the policy's, in turn, while time is left (each applied on top of the last)
BEYOND = ("more_searches", "larger_teacher", "other_searcher")
#: why an attempt beyond the policy is made
BEYOND_REASON = "every step of the policy was tried and time is left"


def _then_beyond(policy_changes: Iterator[Change], spec: RunSpec, registry: Registry) -> Iterator[Change]:
    """The policy's changes, then :data:`BEYOND`'s steps in turn, each on top of the last spec, for as
    long as one of them applies (``more_searches`` always does: new seeds are the last resort)."""
    for change in policy_changes:
        spec = change.spec
        yield change
    while True:
        applied = False
        for step in BEYOND:
            found = _STEPS[step](spec, registry)
            if found is not None:
                spec, text = found
                applied = True
                yield Change(step, text, f"{BEYOND_REASON}: {REASONS[step]}", spec)
        if not applied:
            return


def next_cost(seconds: float, result: Result, step: str) -> float:
    """What the next attempt should cost, from the last one: its searches and refits again, and a
    teacher only when the step changes it (the run keeps an unchanged teacher between attempts; a
    larger one starts from the smaller one's network and trains about as long again)."""
    timings = result.timings if isinstance(getattr(result, "timings", None), dict) else {}
    teacher = _seconds(timings.get("teacher")) + _seconds(timings.get("smaller_teacher"))
    rest = max(seconds - teacher, 0.0)
    if step != "larger_teacher":
        return rest
    info = getattr(result, "teacher", None)
    facts = info.facts if info is not None and isinstance(info.facts, dict) else {}
    return rest + max(_seconds(facts.get("train_seconds")), teacher)


def _seconds(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0.0


def escalate(spec: RunSpec, rule: Policy, registry: Registry, progress: Progress,
             attempt: Callable[[RunSpec], tuple[Result, Any]], first: int = 1,
             evidence: Callable[[Any], list[Finding]] | None = None, why_first: str = "",
             clock: Callable[[], float] = time.perf_counter) -> tuple[Result, Any, list[AttemptRecord], str]:
    """Attempts until one is verified exact or the budget is spent; the chosen attempt, its handle, the log,
    and why escalation stopped. Each attempt gets a spec derived from the last; ``spec`` is never changed.
    Attempts are numbered from ``first`` (2 when stage 0's exact attempt was attempt 1), so the progress
    lines, the table and the stop reason name each attempt by the same number. ``evidence`` reads an
    attempt's handle for the shapes in its teacher's values; ``why_first``: why the first attempt's library."""
    start = clock()
    variant = spec
    records: list[AttemptRecord] = []
    best: tuple[float, Result, Any] | None = None
    handles: list[Any] = []
    read: list[list[Finding]] = []

    def findings() -> list[Finding]:      # read once, from the last attempt's teacher
        if not read:
            read.append(evidence(handles[-1]) if evidence is not None and handles else [])
        return read[0]

    if "enrich_library" in rule.steps and not rule.chosen:
        progress.message("escalation: [search] unary is the whole library, so enrich_library is skipped "
                         "(add_unary adds to a chosen library instead)")
    changes = _then_beyond(_changes(spec, registry, rule.steps, rule.chosen, findings), spec, registry)
    step, change, reason, used = "first", "the config as given", why_first, 0
    while True:
        t0 = clock()
        number = first + len(records)
        progress.message(f"escalation: attempt {number} ({step}: {change})" + (f", because {reason}" if reason else ""))
        result, handle = attempt(variant)
        handles.append(handle)
        seconds = clock() - t0
        records.append(attempt_record(number, step, change, seconds, result, reason))
        score = _worst(result)
        if best is None or score < best[0]:
            best = (score, result, handle)
        if result.exact:
            stop = f"attempt {number} is verified exact"
            break
        stopped = getattr(result, "stopped", None)
        if stopped:
            first_stop = stopped[0]
            stop = (f"{first_stop.role} '{first_stop.name}' was stopped at its stop time in attempt {number}; "
                    "another attempt would wait on it again")
            break
        left = rule.budget - (clock() - start)
        if left <= 0 and noted_stops():     # an earlier call overran: name it, not the attempt that got no time
            stop = f"no time was left after attempt {number}: {spent_by()}"
            break
        used += variant.search.runs
        if used + variant.search.runs > 1000:     # a seed block holds 1000 searches
            stop = "no fresh search seeds left for this seed"
            break
        nxt = next(changes, None)
        if nxt is None:
            stop = "every step of the policy was tried"
            break
        cost = next_cost(seconds, result, nxt.step)
        if left < cost and nxt.step == "larger_teacher" and left >= next_cost(seconds, result, "more_searches"):
            # a larger teacher would not fit, new seeds on this teacher do: the time left is not wasted
            nxt = Change("more_searches", _new_seeds(variant), f"a larger teacher would not fit the {left:.0f} s left "
                         f"(about {cost:.0f} s): {REASONS['more_searches']}", variant)
            cost = next_cost(seconds, result, nxt.step)
        if left < cost:
            stop = (f"{max(left, 0):.0f} s of the {rule.budget:.0f} s left to these attempts, less than the next "
                    f"attempt would take ({cost:.0f} s: the last took {seconds:.0f} s"
                    + (", its teacher reused" if nxt.step != "larger_teacher" and cost < seconds else "") + ")")
            break
        step, change, reason, derived = nxt
        variant = _with_search(derived, seed_offset=used)
        change += f"; search seeds from seed_offset = {used}"       # what reproduces it without a budget
    assert best is not None
    progress.message(f"escalation: stopped at attempt {first + len(records) - 1}: {stop}")
    return best[1], best[2], records, stop


def attempt_record(index: int, step: str, change: str, seconds: float, result: Result,
                   reason: str = "") -> AttemptRecord:
    """One line of the attempts table: what changed and why, its time and verdict, and which searcher (or
    exact solver, ``sympy:dsolve``) produced the selected candidate."""
    return AttemptRecord(index, step, change, round(seconds, 3), result.exact, _worst(result),
                         (result.expression or None), _source(result), reason=reason)


def candidate_failures(result: Result) -> list[str]:
    """Why each candidate of ``result`` is not its verified answer, one line each: the refit's reason, the
    gate that removed it, or the verifier's reason for the selected one. Stage 0 proposes a few candidates,
    each meant as the solution, so each one's fate is worth a line ("failed 2" alone says nothing)."""
    lines = []
    reason = result.verification.reason if result.verification else "not checked by the verifier"
    for c in result.candidates:
        who = f"{c.id} ({c.searcher})" if c.searcher else c.id
        if c.status in ("failed", "timeout") or c.expression is None:
            lines.append(f"{who}: refit {c.status}: {c.reason or 'no reason given'}")
        elif c.removed_by:
            lines.append(f"{who}: removed by the {c.removed_by} gate" + (f": {c.removed_reason}" if c.removed_reason
                                                                          else ""))
        elif c.id == result.selected_id and not result.exact:
            lines.append(f"{who}: selected, but {result.verdict.replace('_', ' ')}: {reason}")
    return lines


def _source(result: Result) -> str:
    """Which source proposed the selected candidate: the searcher of its pooled front member (``dictionary``
    when operon and the dictionary pooled), the exact solver (``sympy:dsolve``), else the run's searchers."""
    chosen = next((c for c in result.candidates if c.id == result.selected_id), None)
    return chosen.searcher if chosen is not None and chosen.searcher else result.provenance.components.get("searcher", "")


def _worst(result: Result) -> float:
    """The largest relative residual of the attempt's verification (inf without one)."""
    return result.residuals.worst() if result.residuals else math.inf
