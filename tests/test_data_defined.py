"""A constraint's data undefined on its own set is refused when the config is read, in one line, exit 2
(issue 44, item 5): ``1/x`` on ``x = 0`` had trained three teachers before the run stopped."""
import pytest

from desyr.cli.main import main
from desyr.errors import ConfigError
from desyr.testing import make_problem

BOX = """[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u_xx + u_yy"
[[constraints]]
operator = "{operator}"
on = "{on}"
value = "{value}"
"""


def _box(value: str, on: str = "x = 0", operator: str = "u") -> str:
    return BOX.format(value=value, on=on, operator=operator)


@pytest.mark.parametrize(("value", "on", "operator", "said"), [
    ("1/x", "x = 0", "u", "is not a finite number there"),
    ("log(x)", "x = 0", "u", "is not a finite number there"),
    ("1/(y - 1/2)", "x = 0", "u", "y - 1/2 != 0, which fails inside the set"),
    ("sqrt(y - 2)", "x = 0", "u", "needs y - 2 >= 0"),
    ("0", "x = 0", "u + log(x - 1/2)", "x - 1/2 > 0"),             # the operator's own data
    ("1/(x - 1/3)", "y = 1", "u_x", "fails inside the set"),
])
def test_data_undefined_on_its_set_is_refused(value, on, operator, said):
    with pytest.raises(ConfigError, match="its data is undefined on its set") as caught:
        make_problem(_box(value, on, operator))
    assert said in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(("value", "on"), [
    ("y*log(y)", "x = 0"),          # undefined only at the face's end, as the verifier allows
    ("1/(y + 1)", "x = 0"),
    ("sqrt(x)", "x = 0"),           # 0 there: sqrt needs >= 0
    ("1/x", "x = 1"),
])
def test_data_defined_on_its_set_is_kept(value, on):
    assert make_problem(_box(value, on)).constraints


def test_the_run_refuses_it_before_any_work(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text('[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_x"\nrhs = "1"\n[[constraints]]\n'
                    'on = "x = 0"\nvalue = "1/x"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("desyr: error:") and len(err.splitlines()) == 1 and "1/x" in err
    assert not (tmp_path / "out").exists()


def test_a_series_as_data_is_refused_in_one_line_that_says_so():
    # its upper limit oo had read as a value that is not finite (red team 44i); a series is an answer, not data
    with pytest.raises(ConfigError, match="is an infinite series; write the data as a formula") as caught:
        make_problem(_box("Sum(sin(n*y)/2**n, (n, 1, oo))"))
    assert "\n" not in str(caught.value)
    assert make_problem(_box("Sum(sin(n*y)/2**n, (n, 1, 3))")).constraints     # a finite sum is a formula
