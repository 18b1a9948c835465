"""The anytime order of an attempt's searches: rounds of searchers, and seed waves within a round.

Rounds (:func:`search_rounds`): on one field, the quick searchers alone first, then every searcher.
Seed waves (:func:`seed_waves`): a round's searches in two waves, so that a verified answer skips the rest.

Every search of a round used to run before any candidate was refit or verified, so nothing could be
cancelled once an answer was proved.  A round with several seeds now searches the first seeds alone
(as few as give two searches, whatever the executor), takes them through Stages B and C and the verdict, and searches
the remaining seeds only when that answer is not verified exact.  The second wave's pool holds the
first wave's fronts too, in the same seed order, so a run that needs both waves selects from the
same pool as one wave would.  The seeds skipped are recorded in ``search.skipped_seeds``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from desyr.config.spec import SearchSettings
from desyr.extension.roles import Searcher
from desyr.model.context import SearchRun
from desyr.model.problem import Problem
from desyr.stages.search import SearchOutcome


def search_rounds(found: list[Searcher], problem: Problem) -> list[list[Searcher]]:
    """The searchers of each round: on one field, the quick ones alone first when slower ones are
    pooled with them (their verified answer ends the attempt), then all; otherwise all at once."""
    quick = [f for f in found if f.quick]
    return [quick, found] if len(problem.fields) == 1 and quick and len(quick) < len(found) else [found]


#: the searches a first wave holds at least: both cores of the smallest machine DeSyR targets. A fixed
#: number, not the executor's workers, so that a run's waves, pool and verdict are the same on every executor
FIRST_WAVE_SEARCHES = 2


def seed_waves(settings: SearchSettings, units_per_seed: int, searches: int = FIRST_WAVE_SEARCHES
               ) -> list[SearchSettings]:
    """The round's search settings, one per wave: the first wave has the fewest seeds that give at least
    ``searches`` searches; the second has the rest.  One wave when that is every seed (nothing to skip)."""
    first = max(1, math.ceil(max(int(searches), 1) / max(units_per_seed, 1)))
    if first >= settings.runs:
        return [settings]
    return [replace(settings, runs=first),
            replace(settings, runs=settings.runs - first, seed_offset=settings.seed_offset + first)]


def merged(earlier: SearchOutcome | None, later: SearchOutcome, fields: Sequence[str], searchers: Sequence[str]
           ) -> SearchOutcome:
    """Two waves' searches as one outcome: the fronts of each (field, searcher) in seed order, the runs
    ordered as one wave lists them (field, then searcher, then seed), the seconds of both."""
    if earlier is None:
        return later
    fronts = {key: list(earlier.fronts.get(key, [])) + list(later.fronts.get(key, []))
              for key in [*earlier.fronts, *(k for k in later.fronts if k not in earlier.fronts)]}

    def order(run: SearchRun) -> tuple[int, int, int]:
        name = run.info.get("searcher", "")
        return (fields.index(run.field) if run.field in fields else len(fields),
                searchers.index(name) if name in searchers else len(searchers), run.seed)

    info = replace(earlier.info, seeds=list(earlier.info.seeds) + list(later.info.seeds),
                   runs=sorted([*earlier.info.runs, *later.info.runs], key=order))
    return SearchOutcome(fronts, info, earlier.seconds + later.seconds)


def wave_line(verdict: str, solved: bool, done: bool, seeds: Sequence[int], rest: Sequence[int],
              units_per_seed: int) -> str:
    """The progress line after a wave that has waves after it: skipped, cut by the wall, or going on."""
    if solved:
        return (f"anytime: verified exact after search seed(s) {list(seeds)}; {len(rest) * units_per_seed} "
                f"search(es) of seed(s) {list(rest)} skipped")
    if done:
        return f"anytime: the wall is reached; search seed(s) {list(rest)} not run"
    return f"anytime: search seed(s) {list(seeds)} gave no verified answer ({verdict.replace('_', ' ')}); " \
           f"now seed(s) {list(rest)}"
