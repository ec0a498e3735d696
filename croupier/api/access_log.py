"""The HTTP access log as structured events: one ``http request`` per request, its fields apart
(method, path, status, bytes, duration, client), for a log shipper to index and a query to filter
(``status >= 400``), rather than a line of text in the web server's format."""

from __future__ import annotations

import logging

import structlog
from aiohttp.abc import AbstractAccessLogger
from aiohttp.web import BaseRequest, StreamResponse

#: The logger each request is logged under (``"logger"`` in the JSON line).
NAME = "croupier.api.access"
requests_log = structlog.get_logger(NAME)


class AccessLog(AbstractAccessLogger):
    """aiohttp's access logger for the table's API (``AppRunner(access_log_class=AccessLog)``)."""

    def log(self, request: BaseRequest, response: StreamResponse, time: float) -> None:
        # The path without its query string: a query may one day carry a ticket or a token.
        requests_log.info(
            "http request",
            method=request.method,
            path=request.path,
            status=response.status,
            bytes=response.body_length,
            duration_ms=round(time * 1000, 1),
            client=request.remote,
        )

    @property
    def enabled(self) -> bool:
        return logging.getLogger(NAME).isEnabledFor(logging.INFO)
