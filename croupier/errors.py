"""Errors of the service layer."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file, the key and the problem."""
