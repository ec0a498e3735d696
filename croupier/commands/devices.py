"""``croupier devices verify [DEVICE]``: a device's firmware checked for authenticity now, by the running
table service (58 Pa. Code § 461a.20(b): on demand; decision 0026).

The command asks the service over its local API (``POST /v1/devices/{name}/verify``) as the
supervisor whose token it is given: the service makes the check over its own link, records it in the
audit trail and latches FIRMWARE_UNVERIFIED on a failure, as it does for a check that falls due. The
token is read from ``--token-file`` (a file holding the token alone, readable by its owner only) or
the ``CROUPIER_TOKEN`` environment variable, never from the command line, where other users could see
it. Where the API listens, and over TLS or not, comes from the table configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import stat
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from croupier.config import DEFAULT_TABLE_CONFIG, TableConfig, load_table_config
from croupier.errors import ConfigError

#: The environment variable a supervisor's API token may be given in.
TOKEN_ENV = "CROUPIER_TOKEN"
#: Seconds to wait for the service's answer: a device refused before is connected again first.
TIMEOUT = 30.0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "devices",
        help="ask the running table service about its devices",
        description="Ask the running table service (croupier run) about its devices, over its local API.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    verify = actions.add_parser(
        "verify",
        help="check a device's firmware for authenticity now (every device without DEVICE)",
        description="Have the running service check DEVICE's firmware now (58 Pa. Code § 461a.20(b)): a "
        "challenge where it holds the approved image, else the hash against the allow-list. The check "
        "is recorded in the audit trail; a failure latches FIRMWARE_UNVERIFIED. Exit 0 if every check "
        "passed, 1 if one failed or could not be made.",
    )
    verify.add_argument("device", nargs="?", metavar="DEVICE", help="a [devices.NAME] of the configuration")
    verify.add_argument("--config", type=Path, help=f"table configuration (default {DEFAULT_TABLE_CONFIG})")
    verify.add_argument(
        "--token-file",
        type=Path,
        help=f"a file holding a supervisor's API token (mode 0600); default: ${TOKEN_ENV}",
    )
    verify.add_argument(
        "--cafile",
        type=Path,
        help="the certificate to trust for an HTTPS API (default: [service] api_tls_cert)",
    )
    verify.set_defaults(handler=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    config = load_table_config(args.config or DEFAULT_TABLE_CONFIG)
    devices = [args.device] if args.device else list(config.devices)
    if args.device and args.device not in config.devices:
        raise ConfigError(
            f"{config.source}: no [devices.{args.device}]; devices: {', '.join(config.devices)}"
        )
    token = _token(args.token_file)
    context = _tls(config, args.cafile)
    scheme = "http" if context is None else "https"
    base = f"{scheme}://{config.service.api_host}:{config.service.api_port}"
    failed = 0
    for device in devices:
        status, body = _post(f"{base}/v1/devices/{device}/verify", token, context)
        if status != 200:
            print(f"{device}: not verified: {body.get('error', body)} (HTTP {status})", file=sys.stderr)
            failed += 1
            continue
        print(_line(body))
        failed += body["result"] != "passed"
    return 1 if failed else 0


def _line(check: dict[str, Any]) -> str:  # Any: JSON values
    """One check for people: the result, the kind of check, the unit and when the next is due."""
    return (
        f"{check['device']}: {check['result']} ({check['check']} check, {check['trigger']}): "
        f"{check['detail']}; "
        f"{check['model']} s/n {check['serial']} fw {check['firmware']}; "
        f"next due {check['next_due']}"
    )


def _token(path: Path | None) -> str:
    """The token from ``path`` (refused when group or others may read it) or the environment."""
    if path is None:
        token = os.environ.get(TOKEN_ENV, "").strip()
        if not token:
            raise ConfigError(f"no API token: give --token-file FILE or set {TOKEN_ENV}")
        return token
    try:
        mode = path.stat().st_mode
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"--token-file {path}: cannot be read: {exc.strerror or exc}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"--token-file {path}: mode {stat.S_IMODE(mode):04o} lets others read it (chmod 0600)"
        )
    if not token:
        raise ConfigError(f"--token-file {path}: empty (expected a supervisor's API token)")
    return token


def _tls(config: TableConfig, cafile: Path | None) -> ssl.SSLContext | None:
    """The TLS context for an API served over HTTPS: the service's own certificate (or ``cafile``)
    is trusted, so a self-signed certificate of the table PC works; None for plain HTTP."""
    if config.service.api_tls_cert is None:
        return None
    context = ssl.create_default_context(cafile=str(cafile or config.service.api_tls_cert))
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN  # the service's own certificate is trusted
    return context


def _post(
    url: str, token: str, context: ssl.SSLContext | None
) -> tuple[int, dict[str, Any]]:  # Any: JSON values
    """POST ``url`` with the token and a fresh Idempotency-Key (decision 0022); the status and JSON."""
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())}
    request = urllib.request.Request(url, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT, context=context) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.loads(error.read())
        except ValueError:
            return error.code, {"error": error.reason}
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return 0, {"error": f"the table service does not answer at {url}: {reason}"}
