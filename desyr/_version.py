"""The single source of DeSyR's version (read by pyproject.toml and result.json)."""
#: the installed DeSyR version (recorded in every result.json)
__version__ = "0.4.0"
