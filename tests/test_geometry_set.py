"""The third bundled set, ``geometry:``: problems on shapes other than boxes, with default settings.

Each file loads without a [teacher] table, its reference solves every equation and constraint
(numerically on fresh points, and by proof), and together they cover every shape and constraint
kind of docs/config.md.  Whole runs of the set are a benchmark (docs/benchmarks.md).
"""
from importlib import resources

import pytest

from desyr.config.loading import load_problem, tomllib
from desyr.model.csg import Combined
from desyr.model.geometry import Part
from desyr.model.points import make_verification_points
from desyr.model.residuals import verify
from desyr.verify.proof import prove


def _files():
    folder = resources.files("desyr_paper") / "geometry"
    return sorted(f for f in folder.iterdir() if f.name.endswith(".toml"))


def _load(res, registry):
    return load_problem(f"geometry:{res.name[:-5].partition('_')[2]}", registry)


@pytest.mark.parametrize("res", _files(), ids=lambda f: f.name[:-5])
def test_problem_loads_with_default_teacher_and_its_reference_is_proved(registry, res):
    raw = tomllib.loads(res.read_text(encoding="utf-8"))
    assert "teacher" not in raw, "the set uses the default teacher"
    assert res.read_text(encoding="utf-8").startswith("#"), "each file starts with a header comment"
    problem = _load(res, registry)
    assert problem.reference and set(problem.reference) == set(problem.fields)
    v = verify(problem, problem.reference, make_verification_points(problem, 5))
    assert max(v.R_eq_per_equation) < 1e-10 and max(v.R_con_per_constraint) < 1e-10, (res.name, v)
    assert prove(problem, problem.reference).proved, res.name


def _primitive_kinds(shape):
    out = {type(p).__name__ for p in shape.primitives()}
    stack = [shape]
    while stack:
        s = stack.pop()
        if isinstance(s, Combined):
            out.add(s.op)
            stack += [s.a, s.b]
    return out


def test_the_set_covers_every_shape_and_constraint_kind(registry):
    problems = [_load(res, registry) for res in _files()]
    assert len(problems) >= 10
    shapes = set().union(*(_primitive_kinds(p.geometry.shape) for p in problems if p.geometry))
    assert {"Disk", "Annulus", "Ellipse", "Polygon", "Ball", "Cylinder", "Box",
            "union", "difference", "intersection"} <= shapes
    kinds = {c.kind for p in problems for c in p.constraints}
    assert kinds == {"pointwise", "periodic", "integral"}
    normal = [p.name for p in problems for c in p.constraints if any(isinstance(s, Part) for s in c.faces)
              and "u_" in str(c.operator) and c.operator.has(*p.symbols)]
    assert normal, "a u_n or Robin condition on a curved or slanted part"
    predicates = [p.name for p in problems for c in p.constraints for s in c.faces
                  if isinstance(s, Part) and s.condition is not None]
    assert predicates
    points = [p.name for p in problems for c in p.constraints if c.faces and all(
        not isinstance(s, Part) and len(s.fixed) == p.dim for s in c.faces)]
    assert points
    assert any(p.geometry and p.time for p in problems), "a shape times an interval"
    assert any(p.geometry and len(p.fields) > 1 for p in problems), "a coupled system on a shape"
    names = {p.name for p in problems}
    assert {"disk_neumann", "annulus_log", "polygon_hole", "periodic_advection", "coupled_disk"} <= names
