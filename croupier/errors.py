"""Errors of the service layer."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file, the key and the problem."""


class StartupError(RuntimeError):
    """The service cannot start: another daemon holds the table, the token file is unusable, the API
    port is taken, the state or the trail cannot be opened. Reported as one line, exit status 2, which
    the systemd unit does not restart on (``RestartPreventExitStatus=2``): restarting would not help."""
