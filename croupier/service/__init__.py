"""The table service: ``table_service.TableService`` keeps one table in service; ``journal`` audits
people's actions before they are acknowledged; ``hardware`` assembles a table on real equipment;
``systemd`` speaks the daemon's readiness and watchdog to systemd. The dealer's screen it waits on
is croupier.screen; the HTTP API (croupier.api) is an adapter over the service, never imported by it.
"""
