"""The table service's local API: HTTP and a WebSocket event stream over one table (issue 6).

``croupier.api.app.make_app`` builds the aiohttp application; ``croupier run`` serves it on loopback
by default (docs/decisions/0010-local-api-on-loopback.md). See docs/api.md for integrators.
"""
