"""The table service: ``table_service.TableService`` keeps one table in service; ``journal`` audits
people's actions before they are acknowledged; ``screen`` and ``screen_dealer`` are the dealer's
screen and the human dealer on it; ``hardware`` assembles a table on real equipment; ``systemd``
speaks the daemon's readiness and watchdog to systemd.

Nothing is imported here: croupier.api.app imports the service and the service imports
croupier.api.keyed, so each module is imported by its own name.
"""
