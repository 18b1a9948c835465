"""Reading a config file's TOML (:func:`read_toml`: light, so the command line checks a file before
it loads any plugin); the writer, :func:`dumps`, lives in :mod:`desyr.model.toml_writer` (a
problem writes its own config, ``Problem.to_toml``) and is re-exported here."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from desyr.errors import ConfigError
from desyr.model.nesting import DataError, toml_loads
from desyr.model.toml_writer import TomlWriteError, dumps

__all__ = ["TomlWriteError", "dumps", "read_toml", "tomllib"]



def read_toml(path: str | Path) -> dict[str, Any]:
    """A config file's tables; every way it can fail to be one is one :class:`ConfigError` line."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        return toml_loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: malformed TOML: {exc}") from None
    except DataError as exc:           # nested too deep, or a number with more digits than a float holds
        raise ConfigError(f"{path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:         # an integer of more than 4300 digits
        raise ConfigError(f"{path}: malformed TOML: {exc}") from None
