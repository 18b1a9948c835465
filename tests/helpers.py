"""Small shared helpers for the tests (importable because pytest puts tests/ on sys.path)."""


def write_config(tmp_path, text, name="problem.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


SINE_1D = """
name = "sine"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx + pi**2*sin(pi*x)"
[[constraints]]
on = ["x = 0", "x = 1"]
value = 0
[reference]
u = "sin(pi*x)"
[points]
refine = 300
verify = 300
search = 100
validate = 100
"""
