"""desyr-myplugin: a DeSyR plugin (rename me)."""

__version__ = "0.1.0"
