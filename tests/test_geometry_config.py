"""Shapes and the new constraint kinds in configs: what they read into, the one-line errors for
bad input, and the proof and refit residuals of normal, periodic, point and integral constraints."""
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from desyr.config.reading import problem_from_toml
from desyr.errors import ConfigError
from desyr.model.geometry import Part
from desyr.model.points import make_point_sets, make_verification_points
from desyr.model.residuals import verify
from desyr.symbolic.expressions import Jet
from desyr.verify.proof import prove

DISK = '[domain]\nshape = "disk(center=(0, 0), radius=1)"\n[[equations]]\nlhs = "u_xx + u_yy"\nrhs = 4\n'


def _problem(text: str):
    return problem_from_toml(text, source="t.toml")


def _exprs(problem, text: str):
    return {problem.fields[0]: problem.parse(text)}


def test_table_and_text_forms_of_a_shape_read_alike():
    a = _problem('[domain]\nshape = "disk"\ncenter = [0, 0]\nradius = 1\n[[equations]]\nlhs = "u_xx + u_yy"\n')
    b = _problem('[domain]\nshape = "disk(center=(0, 0), radius=1)"\n[[equations]]\nlhs = "u_xx + u_yy"\n')
    assert a.geometry.text == b.geometry.text
    assert [(v.name, v.lo, v.hi) for v in a.variables] == [("x", -1, 1), ("y", -1, 1)]


def test_space_names_the_variables_and_time_stays_an_interval():
    p = _problem('time = "t"\n[domain]\nshape = "disk(center=(0, 0), radius=2)"\nspace = ["r1", "r2"]\nt = [0, 3]\n'
                 '[[equations]]\nlhs = "u_t - u_r1r1 - u_r2r2"\n[[constraints]]\non = "initial"\nvalue = 0\n')
    assert p.variable_names == ["r1", "r2", "t"] and p.geometry.space == ("r1", "r2")
    X = make_point_sets(p, 0).constraints[0]
    assert np.all(X[:, 2] == 0) and np.all(X[:, 0] ** 2 + X[:, 1] ** 2 < 4)


def test_u_n_takes_each_sets_normal_and_is_proved_on_the_whole_circle():
    p = _problem(DISK + '[[constraints]]\noperator = "u_n"\non = "circle"\nvalue = 2\n'
                 '[[constraints]]\nat = [[0, 0]]\nvalue = 0\n')
    x, y = p.symbols
    u_x, u_y = (p.jet_symbol(Jet("u", (v,))) for v in ("x", "y"))
    assert sp.simplify(p.constraints[0].operator - (x * u_x + y * u_y)) == 0
    assert prove(p, _exprs(p, "x**2 + y**2")).proved
    wrong = _exprs(p, "x**2 + y**2 + 1")          # misses the point constraint only
    assert not prove(p, wrong).proved
    v = verify(p, wrong, make_verification_points(p, 3))
    assert v.R_con_per_constraint[0] < 1e-12 and v.R_con_per_constraint[1] == pytest.approx(1)


def test_u_n_on_a_polygon_becomes_one_constraint_per_edge():
    p = _problem('[domain]\nshape = "polygon([(0, 0), (2, 0), (2, 1), (0, 1)])"\n[[equations]]\nlhs = "u_xx + u_yy"\n'
                 '[[constraints]]\noperator = "u_n + u"\non = "boundary"\nvalue = "reference"\n[reference]\nu = "x*y"\n')
    assert len(p.constraints) == 4 and all(isinstance(c.faces[0], Part) for c in p.constraints)
    assert prove(p, _exprs(p, "x*y")).proved
    assert not prove(p, _exprs(p, "x*y + x")).proved


def test_robin_on_a_box_face_uses_the_face_normal():
    p = _problem('[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = "u_xx + u_yy"\n'
                 '[[constraints]]\noperator = "u_n"\non = ["x = 0", "x = 1"]\nvalue = "reference"\n'
                 '[reference]\nu = "x**2 - y**2"\n')
    x = p.symbols[0]
    # -u_x on x = 0, u_x on x = 1: the reference's values there are 0 and 2
    assert [float(c.value.subs(x, c.faces[0].fixed[0][1])) for c in p.constraints] == [0, 2]


def test_a_predicate_cuts_a_part_and_the_points_obey_it():
    p = _problem(DISK + '[[constraints]]\non = "circle where y > 0.5"\nvalue = 0\n')
    X = make_point_sets(p, 0).constraints[0]
    assert np.all(X[:, 1] > 0.5) and np.allclose(np.hypot(X[:, 0], X[:, 1]), 1)


def test_periodic_constraint_pairs_the_faces_and_its_residual_compares_them():
    p = _problem('time = "t"\n[domain]\nx = [0, 2]\nt = [0, 1]\n[[equations]]\nlhs = "u_t + u_x"\n'
                 '[[constraints]]\non = "x = 0"\nperiodic = "x = 2"\n')
    con = p.constraints[0]
    assert con.kind == "periodic" and con.shift == (2.0, 0.0)
    assert prove(p, _exprs(p, "sin(pi*(x - t))")).proved
    assert not prove(p, _exprs(p, "x - t")).proved
    v = verify(p, _exprs(p, "x - t"), make_verification_points(p, 0))
    assert v.R_con_per_constraint[0] == pytest.approx(2)


def test_periodic_edges_of_a_polygon_and_their_extents():
    base = '[domain]\nshape = "polygon([(0, 0), (1, 0), (1, 1), (0, 1)])"\n[[equations]]\nlhs = "u_xx + u_yy"\n'
    p = _problem(base + '[[constraints]]\non = "edge 3"\nperiodic = "edge 1"\n')
    assert p.constraints[0].shift == (1.0, 0.0)
    with pytest.raises(ConfigError, match="different extents"):
        _problem(base.replace("(1, 1), (0, 1)", "(1, 2), (0, 1)") + '[[constraints]]\non = "edge 3"\nperiodic = "edge 1"\n')


def test_integral_constraint_fixes_the_constant_and_is_proved():
    p = _problem(DISK + '[[constraints]]\noperator = "u_n"\non = "circle"\nvalue = 2\n'
                 '[[constraints]]\nintegral = true\nvalue = "pi/2"\n')
    con = p.constraints[1]
    assert con.kind == "integral" and con.measure == pytest.approx(np.pi)
    assert prove(p, _exprs(p, "x**2 + y**2")).proved
    v = verify(p, _exprs(p, "x**2 + y**2 + 1"), make_verification_points(p, 0))
    assert v.R_con_per_constraint[1] == pytest.approx(np.pi)       # off by 1 over an area of pi
    assert not prove(p, _exprs(p, "x**2 + y**2 + 1")).proved


def test_integral_constraint_in_time_holds_at_every_time():
    p = _problem('time = "t"\n[domain]\nx = [0, 1]\nt = [0, 1]\n[[equations]]\nlhs = "u_t - u_xx"\n'
                 '[[constraints]]\nintegral = true\nvalue = "2*exp(-pi**2*t)/pi"\n')
    points = make_point_sets(p, 0)
    assert points.reductions[0].shape[0] == 8
    good = verify(p, _exprs(p, "exp(-pi**2*t)*sin(pi*x)"), make_verification_points(p, 1))
    assert good.R_con < 1e-13
    assert prove(p, _exprs(p, "exp(-pi**2*t)*sin(pi*x)")).proved


@pytest.mark.parametrize("config, message", [
    ('[domain]\nshape = "polygon([(0, 0), (1, 1), (1, 0), (0, 1)])"\n', "self-intersecting"),
    ('[domain]\nshape = "disk((0, 0), 1) & disk((3, 0), 1)"\n', "is empty"),
    ('[domain]\nshape = "disk((0, 0), 1)"\n[[constraints]]\noperator = "u_n"\nat = [[0, 0]]\nvalue = 0\n',
     "no outward normal"),
    ('[domain]\nx = [0, 1]\ny = [0, 2]\n[[constraints]]\non = "x = 0"\nperiodic = "y = 2"\n', "different extents"),
    ('[domain]\nshape = "disk((0, 0), 1)"\n[[constraints]]\non = "circle where x > 2"\nvalue = 0\n',
     "selects no boundary point"),
    ('[domain]\nshape = "disk((0, 0), 1)"\n[[constraints]]\nat = [[2, 0]]\nvalue = 0\n', "outside the domain"),
    ('[domain]\nshape = "hexagon(1)"\n', "unknown shape"),
    ('[domain]\nshape = "annulus((0, 0), 2, 1)"\n', "inner < outer"),
    ('[domain]\nshape = "disk((0, 0), 1) | disk((0, 0), 1) - 3"\n', "expected a number|a shape is a call"),
    ('[domain]\nshape = "disk((0, 0), 1) | ball((0, 0, 0), 1)"\n', "cannot combine"),
    ('[domain]\nshape = "disk((0, 0), 1)"\nx = [0, 1]\n', "range comes from the shape"),
    ('[domain]\nshape = "disk((0, 0), 1) | disk((1, 0), 1)"\n[[constraints]]\nintegral = true\nvalue = 1\n',
     "quadrature rule"),
    ('[domain]\nshape = "disk((0, 0), 1)"\n[[constraints]]\non = "x = 3"\nvalue = 0\n', "outside the domain"),
    ('[domain]\nshape = "disk((0, 0), 1)"\n[[constraints]]\non = "edge 0"\nvalue = 0\n', "cannot read set"),
])
def test_bad_geometry_input_is_one_config_error(config, message):
    text = config + ("" if "[[equations]]" in config else "") + '[[equations]]\nlhs = "u_xx + u_yy"\n'
    with pytest.raises(ConfigError, match=message) as info:
        _problem(text)
    assert "\n" not in str(info.value)


def test_the_cli_prints_one_error_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[domain]\nshape = "polygon([(0, 0), (1, 1), (1, 0), (0, 1)])"\n'
                    '[[equations]]\nlhs = "u_xx + u_yy"\n', encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "desyr", "run", str(path), "--out", str(tmp_path / "o")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("desyr: error:") and "self-intersecting" in lines[0]
