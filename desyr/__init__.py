"""DeSyR: decoupled symbolic recovery of closed-form solutions of differential equations."""
import pluggy

__version__ = "0.1.0"

#: Mark a plugin function as an implementation of a DeSyR hook.
hookimpl = pluggy.HookimplMarker("desyr")
