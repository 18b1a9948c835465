"""Errors that the command line reports without a traceback (exit code 2)."""


class DesyrError(Exception):
    """Base class for user-facing errors."""


class ConfigError(DesyrError):
    """The config or the command line asked for something that cannot be done."""


class PluginError(DesyrError):
    """A plugin or component could not be found or used."""
