"""What the registry records of one contributed component: its role and name, the plugin and distribution
it came from, the plugin whose component of the same name shadows it, what ``desyr plugins --json`` shows
of it, and whether its class declares itself a default. Apart from :mod:`desyr.extension.registry`
(loading the plugins and answering their hooks), since a component's record is plain data that the
registry fills in and the listings read."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desyr.extension.options import options_dict

if TYPE_CHECKING:       # the roles import SymPy: only a question about components needs them
    from desyr.extension.roles import Component


@dataclass(frozen=True)
class ComponentInfo:
    """One contributed component: where it came from and what it accepts."""

    role: str
    name: str
    origin: str                 # distribution and version, or IN_PROCESS
    cls: type[Component]
    plugin: str = ""            # entry-point (or registration) name of the contributing plugin
    shadowed_by: str | None = None
    distribution: tuple[str, str] | None = None    # (name, version) declaring it; None: -p, DESYR_PLUGINS, in process

    @property
    def qualified_name(self) -> str:
        return f"{self.plugin}:{self.name}"

    def as_dict(self) -> dict[str, Any]:
        options = options_dict(self.cls.options)
        dist, version = self.distribution or (None, None)
        return {"role": self.role, "name": self.name, "origin": self.origin, "distribution": dist,
                "version": version, "entry_point": self.plugin, "qualified_name": self.qualified_name,
                "default": is_default(self.cls), "shadowed_by": self.shadowed_by, "options": options}


def is_default(cls: type[Component]) -> bool:
    return bool(getattr(cls, "default", False)) or getattr(cls, "default_position", None) is not None
