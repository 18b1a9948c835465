"""Configs are untrusted data (docs/security.md): TOML nested 5000 levels deep, a domain whose width
overflows, a domain too narrow to draw distinct points in, and text that hides or reorders itself in
report.md each give one error line or an inert report, never a traceback."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_fuzz import assert_contract, base_config, cli, refine_cli
from toml_edit import to_toml

from desyr.config.loading import load_problem, problem_from_dict, problem_from_toml
from desyr.errors import ConfigError
from desyr.exact.identify import propose
from desyr.model.points import make_point_sets
from desyr.report.markdown import code, md
from desyr.symbolic.physics import rms

DEEP_ARRAY = "x = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_TABLE = "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n"


def config_file(tmp_path, text: str, name: str = "c.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------ nesting
@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_TABLE, to_toml(base_config()) + DEEP_ARRAY.replace("x =", "y =")],
                         ids=["array", "inline_table", "after_a_valid_config"])
@pytest.mark.parametrize("command", ["run", "refine"])
def test_deeply_nested_toml_is_one_error_line(tmp_path, text, command):
    path = config_file(tmp_path, text)
    argv = [command, str(path), "--quiet"] + (["--candidate=sin(3.1*x)"] if command == "refine" else [])
    rc, out, err = cli(*argv)
    assert rc == 2
    assert_contract(rc, out, err, command)
    assert "nested more than 64 levels deep" in err
    with pytest.raises(ConfigError, match="nested more than"):
        problem_from_toml(text)


def test_nesting_is_bounded_for_configs_given_as_data():
    data = base_config()
    deep: list = []
    for _ in range(80):                  # parses (json, tomllib), but deepcopy and repr would recurse
        deep = [deep]
    data["refine"]["options"]["starts"] = deep
    with pytest.raises(ConfigError, match="nested more than 64 levels deep"):
        problem_from_dict(data)


@pytest.mark.parametrize("line", ["[domain]\nx = [0, 1{zeros}]", "[selection]\nexact_tolerance = 1{zeros}",
                                  pytest.param("[refine.options]\nstarts = 1{zeros}", marks=pytest.mark.slow),  # refits: seconds
                                  "[points]\nrefine = 1{zeros}"])
@pytest.mark.parametrize("digits", [400, 5000])
def test_huge_integers_in_a_config_are_one_error_line(tmp_path, line, digits):
    """More digits than a float holds (OverflowError) or than Python reads (ValueError) once escaped."""
    text = 'name = "big"\n[[equations]]\nlhs = "u_xx"\n' + line.format(zeros="0" * digits) + "\n"
    if not text.count("[domain]"):
        text += "[domain]\nx = [0, 1]\n"
    rc, out, err = refine_cli(config_file(tmp_path, text), "x")
    assert_contract(rc, out, err, line)          # starts has no upper bound: 10**400 starts is allowed


# ------------------------------------------------------------ domain widths
@pytest.mark.parametrize("span", [[-1e308, 1e308], [-1.7e308, 1e307], [-9e307, 9e307]])
def test_a_domain_whose_width_overflows_is_refused_at_load(tmp_path, span):
    data = base_config()
    data["domain"]["x"] = span
    path = config_file(tmp_path, to_toml(data))
    with pytest.raises(ConfigError, match=r"too wide: its width hi - lo must be a finite number"):
        load_problem(path)
    rc, out, err = refine_cli(path, "sin(3.1*x)")
    assert rc == 2
    assert_contract(rc, out, err, span)


@pytest.mark.parametrize("span", [[0, 5e-324], [1e15, 1e15 + 0.25], [1.0, 1.0 + 2**-40]])
def test_a_domain_without_room_for_distinct_points_is_refused_at_load(tmp_path, span):
    data = base_config()
    data["domain"]["x"] = span
    data["constraints"][0]["on"] = "boundary"
    with pytest.raises(ConfigError, match="too narrow for its magnitude"):
        load_problem(config_file(tmp_path, to_toml(data)))


@pytest.mark.parametrize("span", [[-8e307, 8e307], [0, 1e-10], [0, 1e-300], [1e6, 1e6 + 0.1]])
def test_extreme_but_valid_domains_draw_disjoint_points(tmp_path, span):
    data = base_config()
    data["domain"]["x"] = span
    data["constraints"][0]["on"] = "boundary"
    data["points"] = {"refine": 500, "verify": 500, "search": 200, "validate": 200, "constraint": 4}
    problem = load_problem(config_file(tmp_path, to_toml(data)))
    sets = make_point_sets(problem, 0)
    every = np.concatenate([sets.search, sets.refine, sets.verify, sets.validate])
    assert np.isfinite(every).all() and len(np.unique(every)) == len(every)
    assert (every >= span[0]).all() and (every <= span[1]).all()


def test_a_huge_but_finite_domain_runs_without_overflow_warnings(tmp_path):
    data = base_config()
    data["domain"]["x"] = [-8e307, 8e307]
    data["constraints"][0]["on"] = "boundary"
    rc, out, err = refine_cli(config_file(tmp_path, to_toml(data)), "x")
    assert_contract(rc, out, err, "huge domain")         # warnings count as stderr lines here


def test_rms_of_finite_values_does_not_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rms(np.array([1e300, -1e300])) == pytest.approx(1e300, rel=1e-15)
        assert rms(np.array([3.0, 4.0])) == math.sqrt(12.5)      # ordinary values: the plain formula
        assert rms(np.array([np.inf, 1.0])) == np.inf


@pytest.mark.parametrize("value", [1e200, -1.7e308, 5e-324])
def test_constant_proposals_for_extreme_values_do_not_overflow(value):
    assert isinstance(propose(value), list)


# ------------------------------------------------------------ report text
HIDDEN = ["\u202e", "\u202a", "\u202b", "\u202c", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e",
          "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\x1b", "\x00", "\x7f",
          "\u3164", "\udfff", "\U000e0041", "\ufe0f", "\U000e0100", "\u2800"]     # the last three: a red team's


@pytest.mark.parametrize("ch", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_report_shows_invisible_and_bidi_characters_by_their_code(ch):
    for render in (md, code):
        text = render(f"deifireV{ch}**x**")
        assert ch not in text
        assert f"U+{ord(ch):04X}" in text
    assert md("caf\u00e9 \u03c0") == "caf\u00e9 \u03c0"           # visible text is left alone


@pytest.mark.slow
def test_config_title_with_a_right_to_left_override_is_inert_in_report(tmp_path):
    data = base_config()
    data["title"] = "Sine \u202e deifireV** \u2066x\u2069 \u200b"
    data["name"] = "sine\u202e"
    out = tmp_path / "out"
    rc, stdout, err = refine_cli(config_file(tmp_path, to_toml(data)), "sin(3.1*x)", f"--out={out}")
    assert rc == 0, err
    report = (out / "report.md").read_text(encoding="utf-8")
    for ch in "\u202e\u2066\u2069\u200b":
        assert ch not in report
    assert "&lt;U+202E&gt;" in report.splitlines()[0]


@pytest.mark.parametrize("key, where", [("title", None), ("name", None), ("description", None), ("label", 0)])
def test_texts_every_report_repeats_have_a_length_limit(key, where):
    """A red team's 7 MB title made a 48 MB report.html, a 24 MB report.md and a 20 MB result.json."""
    from desyr.config.reading import MAX_TEXT
    from desyr.testing import SINE_POISSON_1D, make_problem

    long_text = "A" * (MAX_TEXT[key] + 1)
    if where is None:
        text = f"{key} = '{long_text}'\n" + SINE_POISSON_1D.replace(f'\n{key} = ', f'\n_{key} = ', 1)
        text = "\n".join(line for line in text.splitlines() if not line.startswith(f"_{key} = "))
    else:
        text = SINE_POISSON_1D.replace('on = ["x = 0", "x = 1"]', f'on = ["x = 0", "x = 1"]\nlabel = "{long_text}"')
    with pytest.raises(ConfigError, match=f"{key} is {MAX_TEXT[key] + 1} characters long") as info:
        make_problem(text)
    assert "\n" not in str(info.value)
    make_problem(text.replace(long_text, long_text[:-1]))          # at the limit: accepted
