"""Stage-A retention rule, empirical fronts and pooling (pure, fast)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from desyr.extension.roles import ParetoMember
from desyr.stages.pool import (
    empirical_front,
    pool_fronts,
    retain,
    select_representatives,
    teacher_fit_mse,
    topology_key,
)

x, t = sp.Symbol("x", real=True), sp.Symbol("t", real=True)


def front_of(losses, start=1):
    """Members of complexity start, start+1, ... with the given losses; expression c_i*x**i."""
    return [ParetoMember(sp.Float(1.0 + i) * x ** (i + 1), start + i, loss) for i, loss in enumerate(losses)]


def test_empirical_front_removes_dominated_and_nonfinite():
    ms = [
        ParetoMember(x, 3, 0.5),
        ParetoMember(x + 1, 3, 0.4),            # same complexity, better: replaces
        ParetoMember(sp.sin(x), 5, 0.45),       # dominated by (3, 0.4)
        ParetoMember(sp.cos(x), 2, math.nan),   # non-finite
        ParetoMember(sp.exp(x), 7, math.inf),
        ParetoMember(x ** 2, 1, 1.0),
        ParetoMember(x ** 3, 9, 0.1),
        ParetoMember(x ** 4, 10, 0.1),          # equal loss, more complex: dominated
    ]
    front = empirical_front(ms)
    assert [(m.complexity, m.loss) for m in front] == [(1, 1.0), (3, 0.4), (9, 0.1)]


def test_small_front_is_kept_whole():
    front = front_of([1.0, 0.1, 0.01])
    kept = select_representatives(front)
    assert [r.member.complexity for r in kept] == [1, 2, 3]
    assert kept[0].roles == ("simplest",) and kept[-1].roles == ("best_fit",)
    assert len(retain(front_of([1.0, 0.5, 0.2, 0.1, 0.05]))) == 5


def test_rule_keeps_simplest_best_knees_and_coverage():
    # complexities 1..10; large drops (knees) into index 3 (3 decades) and index 7 (2 decades)
    losses = [1.0, 0.8, 0.6, 6e-4, 5e-4, 4e-4, 3e-4, 3e-6, 2.9e-6, 2.8e-6]
    kept = select_representatives(front_of(losses))
    by_index = {r.member.complexity - 1: r.roles for r in kept}
    assert len(kept) == 5
    assert by_index[0] == ("simplest",)
    assert by_index[9] == ("best_fit",)
    assert by_index[3] == ("knee",) and by_index[7] == ("knee",)
    # one coverage slot: target 1*(10-1)/2 = 4.5 -> nearest free index, ties to lower -> 4
    assert by_index[4] == ("coverage",)
    assert [r.member.complexity for r in kept] == sorted(r.member.complexity for r in kept)


def test_knee_threshold_and_limit():
    # smooth front: no drop reaches 0.5 decades -> no knees, three coverage slots
    losses = [10 ** (-0.1 * i) for i in range(12)]
    kept = select_representatives(front_of(losses))
    assert not any("knee" in r.roles for r in kept)
    # targets 11/4*{1,2,3} = 2.75, 5.5, 8.25 -> 3, 5 (tie -> lower), 8
    assert [r.member.complexity - 1 for r in kept] == [0, 3, 5, 8, 11]
    # three big drops: only the two largest are knees
    losses = [1.0, 1e-1, 9e-2, 8e-2, 1e-5, 9e-6, 8e-6, 1e-9, 9e-10]
    kept = select_representatives(front_of(losses))
    knees = [r.member.complexity - 1 for r in kept if "knee" in r.roles]
    assert knees == [4, 7]    # 3.9 and 3.9 decades beat 1.0 decade at index 1
    assert len(kept) == 5


def test_knee_on_best_fit_does_not_use_a_slot():
    losses = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 1e-6]
    kept = select_representatives(front_of(losses))
    best = kept[-1]
    assert best.roles == ("best_fit", "knee")
    assert len(kept) == 5 and sum("coverage" in r.roles for r in kept) == 3


def test_zero_loss_uses_floor():
    kept = select_representatives(front_of([1.0, 0.5, 0.4, 0.3, 0.2, 0.0]))
    assert kept[-1].member.loss == 0.0 and "knee" in kept[-1].roles


def test_max_keep_parameter():
    front = front_of([10 ** -i for i in range(10)])
    assert len(retain(front, max_keep=3)) == 3
    assert len(retain(front, max_keep=1)) == 1
    with pytest.raises(ValueError):
        retain(front, max_keep=0)
    assert retain([]) == []


def test_topology_key_ignores_constants_not_structure():
    a = sp.Float(2.0) * sp.sin(sp.Float(3.1) * x) + sp.Float(0.5)
    b = sp.Float(-7.0) * sp.sin(sp.Float(3.14159) * x) + sp.Float(1e-8)
    c = sp.Float(2.0) * sp.cos(sp.Float(3.1) * x) + sp.Float(0.5)
    d = sp.Float(2.0) * sp.sin(x) + sp.Float(0.5)
    assert topology_key(a) == topology_key(b)
    assert topology_key(a) != topology_key(c)
    assert topology_key(a) != topology_key(d)
    assert topology_key(sp.exp(-t) * sp.sin(x)) == topology_key(sp.sin(x) * sp.exp(-t))


def test_pool_dedups_by_topology_and_records_seeds():
    s1 = [ParetoMember(sp.Float(0.6) * x, 3, 0.1),
          ParetoMember(sp.sin(sp.Float(3.1) * x), 4, 1e-3)]
    s2 = [ParetoMember(sp.sin(sp.Float(3.14159) * x), 4, 1e-12),
          ParetoMember(sp.Float(0.2) + x, 3, 0.2)]
    s3 = [ParetoMember(sp.sin(sp.Float(3.2) * x), 4, 1e-2)]
    pool = pool_fronts([(11, s1), (22, s2), (33, s3)])
    assert len(pool) == 3
    sine = [p for p in pool if p.member.expression.has(sp.sin)][0]
    assert sine.seed == 22 and sine.seeds == (11, 22, 33)
    assert sine.member.loss == 1e-12
    assert [p.seed for p in pool if not p.member.expression.has(sp.sin)] == [11, 22]
    assert [(p.member.complexity, p.member.loss) for p in pool] == sorted(
        (p.member.complexity, p.member.loss) for p in pool)


def test_teacher_fit_mse():
    X = np.linspace(0.1, 1, 50)[:, None]
    assert teacher_fit_mse(sp.sin(x), [x], X, np.sin(X[:, 0])) == 0.0
    assert teacher_fit_mse(sp.log(x - 5), [x], X, X[:, 0]) == math.inf
    assert teacher_fit_mse(sp.Float(2.0), [x], X, np.zeros(50)) == pytest.approx(4.0)


def test_scored_members_drop_unusable_members_with_a_warning():
    import numpy as np
    import sympy as sp

    from desyr.extension.roles import Searcher, SearchTask

    class Dummy(Searcher):
        name = "dummy"

        def search(self, task):
            return []

    x = sp.Symbol("x", real=True)
    X = np.linspace(0, 1, 20)[:, None]
    task = SearchTask(X=X, y=np.sin(X[:, 0]), variables=["x"], binary=[], unary=[], max_size=10, seed=0)

    def broken():
        raise ValueError("cannot parse")

    raw = [("good", 3, lambda: sp.sin(x)), ("bad", 2, broken), ("nan", 4, lambda: sp.log(x - 5))]
    with pytest.warns(RuntimeWarning, match="searcher 'dummy' dropped 2 front member"):
        members, dropped = Dummy().scored_members(raw, task)
    assert dropped == 2 and [m.complexity for m in members] == [3] and members[0].loss == 0.0


def test_topology_keeps_terms_that_differ_only_in_their_constants():
    """A helper found `1.5*cos(2.0*x) + 0.7*cos(3.0*x)` shown in result.json as `2*c*cos(c*x)`."""
    from desyr.model.candidates import topology
    from desyr.symbolic.expressions import expression_text

    x = sp.Symbol("x")
    assert expression_text(topology(1.5 * sp.cos(2.0 * x) + 0.7 * sp.cos(3.0 * x))) == "c*cos(c*x) + c*cos(c*x)"
    assert expression_text(topology(x ** 2 + 3 * x)) == "x**2 + 3*x"      # exact numbers are structure
