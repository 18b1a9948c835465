"""Read-only copies of plain data: what the problem and the run's settings hold instead of lists and dicts."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class ReadOnly(Mapping[Any, Any]):
    """A table that cannot be changed; unlike ``types.MappingProxyType`` it pickles and deep-copies,
    so a frozen problem still travels to worker processes."""

    __slots__ = ("_data",)
    _data: dict[Any, Any]

    def __init__(self, data: Mapping[Any, Any] | None = None) -> None:
        object.__setattr__(self, "_data", dict(data or {}))

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"ReadOnly({self._data!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return ReadOnly, (self._data,)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a {type(self).__name__} cannot be changed")


def frozen(value: Any) -> Any:
    """A read-only copy: lists -> tuples, tables -> read-only mappings, all the way down."""
    if isinstance(value, Mapping):
        return ReadOnly({k: frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def thawed(value: Any) -> Any:
    """A plain, mutable copy of a frozen value (for JSON records and component options)."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thawed(v) for v in value]
    return value


def as_tuples(record: object, *names: str) -> None:
    """Lists given for ``names`` kept as tuples (a frozen record's sequences cannot be changed in place)."""
    for name in names:
        value = getattr(record, name)
        if not isinstance(value, tuple):
            object.__setattr__(record, name, tuple(value))
