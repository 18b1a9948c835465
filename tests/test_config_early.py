"""A config whose only error is in an expression fails before SymPy loads (issue 37, item 8): the
expressions' syntax and names are checked on the parsed TOML (desyr.config.early), with the full
reader's own one-line error, and no helper process starts; a valid config is never refused."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from desyr.config.early import check_expressions
from desyr.config.outline import precheck
from desyr.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
LOGISTIC = (ROOT / "tests" / "fixtures" / "logistic.toml").read_text(encoding="utf-8")
BASE = 'name = "w"\ntime = "t"\n[domain]\nx = [0, 1]\nt = [0, 1]\n'
#: (config, what its error says): each has one error, in an expression
WRONG = [
    (LOGISTIC.replace("u*(1 - u)", "u*(1 - q)"), "equations[0]: unknown name 'q' (known: t, u, E, pi)"),
    (LOGISTIC.replace("u*(1 - u)", "u*(1 - u"), "equations[0]: cannot parse 'u_t - u*(1 - u': '(' was never"),
    (LOGISTIC.replace("u*(1 - u)", "u^2"), "operator ^ (write ** for powers) is not allowed"),
    (LOGISTIC.replace("u*(1 - u)", "sine(u)"), "function 'sine' is not allowed"),
    (LOGISTIC.replace("1/(1 + exp(-t))", "1/(1 + exp(-s))"), "reference: unknown name 's'"),
    (LOGISTIC.replace("value = 0.5", 'value = "1/2 +"'), "constraints[0]: cannot parse '1/2 +'"),
    (BASE + '[[equations]]\nlhs = "u_t - u_xx"\nrhs = "sin(pi*y)"\n', "equations[0]: unknown name 'y'"),
    (BASE + '[[equations]]\nlhs = "u_t - u_yy"\n', "unknown name 'u_yy' (known: x, t, u, E, pi); a derivative"),
    (BASE + '[[equations]]\nlhs = "u_t - u_xx"\n[[constraints]]\non = "x = 0"\noperator = "u(0)"\nvalue = 0\n',
     "constraints[0]: u(...) is not an expression here"),
    (BASE + '[[equations]]\nlhs = "u_t - u_xx"\n[[constraints]]\non = "x = 0"\nvalue = "x.real"\n',
     "constraints[0]: attribute access '.real' is not allowed"),
    (BASE + '[[equations]]\nlhs = "u_t - u_xx"\n[[constraints]]\non = "x = 0"\nvalue = "\u03c0"\n',
     "non-ASCII character"),
    ('[domain]\nshape = "box(lo=(-1, -1), hi=(1, 1)) | disk(center=(1, 0), radius=0.8)"\n[[equations]]\n'
     'lhs = "u_xx + u_zz"\n', "unknown name 'u_zz' (known: x, y, u, E, pi)"),
    (BASE + '[unknowns]\nk = [0, 1]\n[[equations]]\nlhs = "u_t - k*u_xx"\n[observations]\nu = "exp(-kk*t)"\n',
     "[observations] u: unknown name 'kk'"),
]


@pytest.mark.parametrize("text, says", WRONG, ids=[s[:30] for _, s in WRONG])
def test_a_wrong_expression_fails_early_with_the_full_readers_line(text, says):
    from desyr.config.reading import problem_from_toml

    with pytest.raises(ConfigError) as early:
        precheck(tomllib.loads(text), "c.toml")
    with pytest.raises(ConfigError) as full:
        problem_from_toml(text, "c.toml")
    assert says in str(early.value)
    assert str(early.value) == str(full.value)


PROBE = ("import sys\nimport desyr.cli.main as cli\nstarted = []\ncli._start_spares = lambda args: started.append(1)\n"
         "rcs = [cli.main(['run', p, '--out', p + '.out']) for p in sys.argv[1:]]\n"
         "print(rcs, len(started), sorted(m for m in ('sympy', 'numpy', 'scipy') if m in sys.modules))")


def test_desyr_run_refuses_a_wrong_expression_without_sympy_or_a_helper_process(tmp_path):
    paths = []
    for i, (text, _) in enumerate(WRONG):
        paths.append(tmp_path / f"bad{i}.toml")
        paths[-1].write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, paths)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split("\n")[0] == f"{[2] * len(WRONG)} 0 []", done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == len(WRONG) and all(says in line for line, (_, says) in zip(lines, WRONG))


VALID = [
    # u_n on a constraint's operator; "from_reference" and "reference" stand for values
    BASE.replace("t = [0, 1]\n", "t = [0, 1]\ny = [0, 1]\n") + '[[equations]]\nlhs = "u_t - u_xx - u_yy"\n'
    'rhs = "from_reference"\n[reference]\nu = "exp(-t)*sin(x)*besselj(0, y)"\n'
    '[[constraints]]\non = "x = 0"\noperator = "u_n + u_xy"\nvalue = "reference"\n',
    # a variable named n: u_n is a derivative; a parameter and an unknown are names too
    'time = "t"\n[domain]\nn = [0, 1]\nt = [0, 1]\n[parameters]\nnu = [1, 2]\n[unknowns]\nk = [0, 1]\n'
    '[[equations]]\nlhs = "u_t - nu*k*u_nn"\n[[constraints]]\non = "n = 0"\noperator = "u_n"\nvalue = "pi*E"\n',
    # a shape's default spatial variables (x, y for a disk) and a time beside it
    'time = "t"\n[domain]\nshape = "disk(center=(0, 0), radius=1)"\nt = [0, 1]\n[[equations]]\n'
    'lhs = "u_t - u_xx - u_yy"\nrhs = "Abs(x*y) + erfc(t) + airyai(x) + coth(1 + y**2)"\n',
    BASE + '[[equations]]\nlhs = "u_t - u_xx"\nrhs = 0.5\n',
    # a box's variables may have the names of a shape's keys
    '[domain]\nradius = [1, 2]\n[[equations]]\nlhs = "u_radiusradius + u_radius/radius"\n',
]


@pytest.mark.parametrize("text", VALID)
def test_what_the_reader_accepts_passes(text):
    from desyr.config.reading import problem_from_toml

    problem_from_toml(text, "c.toml")
    check_expressions(tomllib.loads(text), "c.toml")


def test_what_the_reader_words_itself_is_left_to_it():
    """A call with the wrong number of arguments: the reader's own line, whatever its arguments name."""
    check_expressions(tomllib.loads(BASE + '[[equations]]\nlhs = "u_t - sin(x, q)"\n'), "c.toml")


def test_a_config_whose_tables_are_not_yet_readable_is_left_to_the_reader():
    check_expressions({"domain": [1], "equations": [{"lhs": "q"}]}, "c.toml")
    check_expressions({"domain": {"x": [0, 1]}, "fields": 3, "equations": [{"lhs": "q"}]}, "c.toml")


def test_the_names_match_the_expression_languages_tables():
    from desyr.symbolic import expressions, operator_names

    assert set(operator_names.FUNCTIONS) == set(expressions.FUNCTIONS)
    assert set(operator_names.TWO_ARGUMENTS) == set(expressions.TWO_ARGUMENTS)
    assert set(operator_names.CONSTANTS) == set(expressions.CONSTANTS)


def test_every_bundled_toml_config_passes():
    """The configs the plugins ship, as written (a config that extends another is checked whole below)."""
    files = sorted((ROOT / "plugins").rglob("*.toml"))
    checked = 0
    for path in files:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if "domain" in data and "extends" not in data:
            check_expressions(data, str(path))
            checked += 1
    assert checked >= 80


@pytest.mark.slow
def test_every_problem_of_every_set_passes():
    from desyr.extension.registry import load_registry

    registry = load_registry()
    specs = [spec for problem_set in registry.problem_sets() for spec in problem_set.specs]
    assert len(specs) >= 80
    for spec in specs:
        problem = registry.load_problem(spec)
        text = problem.config_text
        check_expressions(tomllib.loads(text) if problem.config_format == "toml" else json.loads(text), spec)
