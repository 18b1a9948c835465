"""Declarative option specs, in the spirit of scikit-learn's ``_parameter_constraints``.

Every component and every config section declares its options once, as a
mapping name -> :class:`Option` (default, accepted type, range, one-line doc).
The core checks given values against the spec when the config is loaded,
before any work starts, and the tables in ``docs/`` are generated from the same
specs (``desyr.extension.options.markdown_table``).
"""
from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desyr.errors import ConfigError

#: the names used in messages and docs for each accepted Python type
_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "table"}


class OptionError(ConfigError):
    """A value does not fit its declared option spec (one line, for users)."""


@dataclass(frozen=True)
class Option:
    """One declared option.

    ``kind`` is the accepted type: ``bool``, ``int``, ``float`` (ints are accepted
    and converted), ``str``, ``list`` (of ``item``) or ``dict`` (a table).
    ``low``/``high`` bound numbers (and the length of lists), inclusive unless
    ``open_low``/``open_high``; a bound left as None is unbounded on that side, and
    infinity is accepted only where the range includes it (``high=math.inf``, closed).
    ``choices`` restricts a str (or list items).
    ``nullable`` allows ``None`` (only from Python; TOML has no null).
    """

    default: Any
    doc: str
    kind: type = str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[Any, ...] | None = None
    item: type | None = None
    nullable: bool = False

    def type_text(self) -> str:
        if self.kind is object:
            return "any"
        text = _TYPE_NAMES.get(self.kind, self.kind.__name__)
        if self.kind is list and self.item is not None:
            text = f"list of {_TYPE_NAMES.get(self.item, self.item.__name__)}"
        if self.choices:
            text += ": one of " + ", ".join(f"`{c}`" for c in self.choices)
        return text + (" or None" if self.nullable else "")

    def range_text(self) -> str:
        if self.low is None and self.high is None:
            return ""
        # an unbounded side is open: infinity itself is accepted only where a bound says so
        lo = "(" if self.open_low or self.low is None else "["
        hi = ")" if self.open_high or self.high is None else "]"
        text = f"{lo}{'-inf' if self.low is None else f'{self.low:g}'}, {'inf' if self.high is None else f'{self.high:g}'}{hi}"
        return f"length in {text}" if self.kind is list else text

    def check(self, name: str, value: Any) -> Any:
        """The value, converted (int -> float), or :class:`OptionError` saying what is wrong."""
        if value is None:
            if self.nullable:
                return None
            raise OptionError(f"option '{name}' must be {self.type_text()}, got None")
        value = self._typed(name, value)
        if self.kind is list:
            for item in value:
                self._in_choices(name, item)
            self._in_range(name, len(value), "length of ")
        elif self.kind in (int, float):
            self._in_range(name, value, "")
        elif self.kind is str:
            self._in_choices(name, value)
        return value

    def _typed(self, name: str, value: Any) -> Any:
        if self.kind is list and isinstance(value, tuple):
            value = list(value)
        ok = isinstance(value, self.kind) and not (self.kind is not bool and isinstance(value, bool))
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            if abs(value).bit_length() > 1024:      # float() would raise OverflowError
                raise OptionError(f"option '{name}' must be {self.type_text()}, got an integer of "
                                  f"{abs(value).bit_length()} bits, too large for a float")
            value, ok = float(value), True
        if ok and self.kind is list and self.item is not None:
            items = [Option(None, "", self.item).check(f"{name}[{i}]", v) for i, v in enumerate(value)]
            value = items
        if not ok:
            raise OptionError(f"option '{name}' must be {self.type_text()}, got {type(value).__name__} {_short(value)}")
        if self.kind is float and math.isinf(value) and not self._admits(value) \
                and (self.low is not None or self.high is not None):
            raise OptionError(f"option '{name}' must be a finite number in {self.range_text()}, got {value!r}")
        return value

    def _admits(self, value: float) -> bool:
        """Whether the declared range includes this infinity (``high=math.inf``, not open)."""
        bound, is_open = (self.high, self.open_high) if value > 0 else (self.low, self.open_low)
        return bound == value and not is_open

    def _in_range(self, name: str, value: float, what: str) -> None:
        if isinstance(value, float) and math.isnan(value):      # (math.isnan of a 400-digit int overflows)
            raise OptionError(f"option '{name}' must be a number, got nan")
        too_low = self.low is not None and (value < self.low or (self.open_low and value == self.low))
        too_high = self.high is not None and (value > self.high or (self.open_high and value == self.high))
        if too_low or too_high:
            raise OptionError(f"option '{name}': {what}{_short(value)} is outside {self.range_text()}")

    def _in_choices(self, name: str, value: Any) -> None:
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise OptionError(f"option '{name}' must be one of {allowed}, got {_short(value)}")


@dataclass(frozen=True)
class CommandOption:
    """A command-line option a plugin declares (hook ``desyr_cli_options``), as tox's ``tox_add_option``.

    ``flag`` is the long option (``--scheduler``); ``metavar`` None makes it a switch. The value goes
    where the plugin's code reads it: ``executor_option`` passes it to the selected executor's options
    (the config's ``[execution.options]`` are overridden), ``environment`` sets that variable for this
    process and its children (a switch sets ``"1"``; ``desyr bench`` hands a set variable on to its
    runs as the flag). ``command_line_only`` lists config places (``"execution.options.scheduler"``)
    that may not set it: a config is data and may not make desyr trust code; ``instead`` says where
    else it may be set. ``kind`` (``str``, ``int``, ``float``) with ``low``/``high`` or ``choices``
    types a value: ``--depth abc`` is one line and exit 2 as the command line is read, before any work."""

    flag: str
    help: str
    metavar: str | None = None
    commands: tuple[str, ...] = ("run", "refine", "bench", "study")
    executor_option: str | None = None
    environment: str | None = None
    command_line_only: tuple[str, ...] = ()
    instead: str = ""
    #: the value's type (``str``, ``int`` or ``float``) and, as an :class:`Option`'s, its range or choices:
    #: a value that does not fit is a one-line usage error before any work (a switch takes none of them)
    kind: type = str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None

    @property
    def dest(self) -> str:
        """Where argparse keeps the value: apart from the core's own options."""
        return "plugin_option:" + self.flag

    def check(self) -> None:
        """A declaration the command line can take, or :class:`ConfigError` saying why not."""
        name = self.flag[2:]
        if not self.flag.startswith("--") or not name or not all(c.isalnum() or c == "-" for c in name):
            raise ConfigError(f"command-line option {self.flag!r} must be a long option such as --my-option")
        for place in self.command_line_only:
            if not isinstance(place, str) or len(place.split(".")) < 2 or not all(place.split(".")):
                raise ConfigError(f"{self.flag}: command_line_only place {place!r} must be SECTION.KEY or "
                                  "SECTION.TABLE.KEY")
        if self.kind not in (str, int, float):
            raise ConfigError(f"{self.flag}: kind must be str, int or float, got {self.kind!r}")
        typed = self.kind is not str or self.low is not None or self.high is not None or self.choices is not None
        if self.metavar is None and typed:
            raise ConfigError(f"{self.flag} is a switch (no metavar): it takes no kind, range or choices")
        for value in self.choices or ():
            self.spec.check(self.flag, value)

    @property
    def spec(self) -> Option:
        """The value's type and range as an :class:`Option` (the docs and ``desyr plugins`` print it)."""
        return Option(None, self.help, kind=self.kind, low=self.low, high=self.high, choices=self.choices)

    def value(self, text: str) -> Any:
        """The command line's ``text`` as the declared type, checked; :class:`OptionError` (one line) if not."""
        try:
            value = self.kind(text)
        except ValueError:
            raise OptionError(f"{self.flag} takes {self.spec.type_text()}, got {_short(text)}") from None
        try:
            return self.spec.check(self.flag, value)
        except OptionError as exc:
            raise OptionError(str(exc).replace(f"option '{self.flag}'", self.flag, 1)) from None


def infer(default: Any, doc: str = "") -> Option:
    """A spec for a plain default value, so a plugin may still declare ``options = {"k": 3}``."""
    if isinstance(default, Option):
        return default
    # Without a declared type, a None default says nothing about the values it stands for.
    kind = type(default) if default is not None else object
    if kind is tuple:
        kind = list
    return Option(default, doc, kind=kind if kind in _TYPE_NAMES else object, nullable=True if default is None else False)


def specs_of(declared: Mapping[str, Any]) -> dict[str, Option]:
    return {name: infer(value) for name, value in declared.items()}


def checked_specs(declared: Mapping[str, Any]) -> dict[str, Option]:
    """``specs_of``, each default held to its own spec: a default outside its declared type or range is
    its declarer's error (:class:`OptionError`, one line naming the option)."""
    specs = specs_of(declared)
    for name, spec in specs.items():
        if spec.kind is not object and spec.default is not None:
            spec.check(name, spec.default)
    return specs


def validate(specs: Mapping[str, Any], given: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Defaults merged with the checked given values; one-line :class:`OptionError` naming ``where``."""
    if not isinstance(given, Mapping):
        raise OptionError(f"{where} must be a table of options, got {type(given).__name__} {_short(given)}")
    specs = specs_of(specs)
    unknown = sorted(set(given) - set(specs))
    if unknown:
        allowed = ", ".join(sorted(specs)) or "(none)"
        raise OptionError(f"{where} does not know option(s) {', '.join(map(str, unknown))}; allowed: {allowed}")
    # fresh copies: whoever receives the values (a component, a stage) may change them, and neither
    # the declaration's default nor the config's own table may change with them
    out = {name: _fresh(spec.default) for name, spec in specs.items()}
    for name, value in given.items():
        spec = specs[name]
        if spec.kind is object:
            out[name] = _fresh(value)
            continue
        try:
            out[name] = _fresh(spec.check(name, value))
        except OptionError as exc:
            raise OptionError(f"{where}: {exc}") from None
    return out


def table_option(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` where a table of options belongs (``[search.options.<name>]``), else :class:`OptionError`."""
    if not isinstance(value, Mapping):
        raise OptionError(f"{where} must be a table, got {type(value).__name__}")
    return value


def _fresh(value: Any) -> Any:
    """A copy of a mutable value; an object that cannot be copied (a callable's closure, a lock)
    is handed on as it is."""
    if value is None or isinstance(value, (bool, int, float, str, bytes, tuple, frozenset)):
        return value
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def options_dict(specs: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Declared options as ``desyr plugins --json`` lists them: default, type, range and doc of each."""
    return {name: {"default": _json_default(spec.default), "type": spec.type_text(),
                   "range": spec.range_text() or None, "doc": spec.doc}
            for name, spec in specs_of(specs).items()}


def _json_default(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, list, dict, type(None))) else repr(value)


def markdown_table(specs: Mapping[str, Any]) -> str:
    """The docs table of a spec mapping: option, type, default, range, meaning."""
    rows = ["| option | type | default | range | meaning |", "|---|---|---|---|---|"]
    for name, spec in specs_of(specs).items():
        rows.append(f"| `{name}` | {spec.type_text()} | `{spec.default!r}` | {spec.range_text() or '–'} | {spec.doc} |")
    return "\n".join(rows)


def _short(value: Any) -> str:
    if isinstance(value, int) and abs(value).bit_length() > 128:    # repr of 5000 digits raises ValueError
        return f"an integer of {abs(value).bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
