"""The plugin machinery: roles, hook specifications, declared options and the registry.

Plugin authors import from :mod:`desyr.plugin`, which re-exports what they need from here."""
