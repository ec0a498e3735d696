"""The Croupier service: configuration, daemon, local API, audit trail and the command line.

``commands`` holds one module per ``croupier`` command (croupier.cli builds the command line from
them); ``service`` the table service that ``croupier run`` keeps running (its journal, the dealer's
screen, real equipment, systemd); ``api`` its local API; ``audit`` the trail; ``config`` the
configuration; ``state`` the table's state on disk; ``tables`` the games' tables; ``sim``,
``simulated`` and ``players`` the virtual table of ``croupier sim``. ``logs`` and ``errors`` are
shared by all.
"""
