"""Errors that the command line reports on one line, without a traceback (exit code 2)."""


class DesyrError(Exception):
    """Base class for user-facing errors."""


class ConfigError(DesyrError):
    """The config or the command line asked for something that cannot be done."""


class PluginError(DesyrError):
    """A plugin or component could not be found or used."""


class ComponentError(DesyrError):
    """A component refused its options or its input; the message is for users."""
