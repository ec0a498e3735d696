"""The log lines as an operator's tools read them (croupier/logs.py): JSON naming the logger and
the level, a traceback as structured data, and under systemd the syslog priority journald files
each line under. Each case runs in its own process, whose logging it configures."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from croupier import logs

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """
import logging, structlog
from croupier import logs
logs.configure("info", json=True)
link = structlog.get_logger("croupier.link").bind(device="shoe")
link.warning("link still down", failures=3)
try:
    {}["missing"]
except KeyError:
    link.exception("unexpected error on the link")
    logging.getLogger("aiohttp.server").exception("Error handling request")
logging.getLogger("asyncio").info("from the standard library")
link.debug("not at info")
"""


def run(stderr: Path, journal: bool = False) -> list[str]:
    env = {key: value for key, value in os.environ.items() if key != "JOURNAL_STREAM"}
    with stderr.open("w") as sink:
        if journal:  # systemd names the stream it connected to the journal by device and inode
            status = os.fstat(sink.fileno())
            env["JOURNAL_STREAM"] = f"{status.st_dev}:{status.st_ino}"
        subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, env=env, stderr=sink, check=True)
    return stderr.read_text().splitlines()


def test_each_line_names_its_logger_and_level(tmp_path):
    lines = [json.loads(line) for line in run(tmp_path / "stderr")]
    assert [(line["logger"], line["level"], line["event"]) for line in lines] == [
        ("croupier.link", "warning", "link still down"),
        ("croupier.link", "error", "unexpected error on the link"),
        ("aiohttp.server", "error", "Error handling request"),
        ("asyncio", "info", "from the standard library"),
    ]


def test_a_traceback_is_structured_data_without_local_variables(tmp_path):
    lines = [json.loads(line) for line in run(tmp_path / "stderr")]
    for line in lines[1:3]:  # from structlog and from the standard library alike
        assert "exc_info" not in line
        (exception,) = line["exception"]
        assert (exception["exc_type"], exception["exc_value"]) == ("KeyError", "'missing'")
        assert exception["frames"][-1]["lineno"] == 8
        assert all("locals" not in frame for frame in exception["frames"])


def test_under_systemd_each_line_starts_with_the_priority_journald_files_it_under(tmp_path):
    lines = run(tmp_path / "stderr", journal=True)
    assert [line[:3] for line in lines] == ["<4>", "<3>", "<3>", "<6>"]
    assert json.loads(lines[0][3:])["event"] == "link still down"


def test_while_a_live_view_holds_the_terminal_its_log_lines_go_to_the_view_and_a_files_stay():
    """croupier.commands.terminal prints the lines bound for its terminal above its live view
    (``logs.written_by``); a handler writing to a file (or a pipe, or journald) is left as it is,
    and the terminal's own is given back after."""
    controller, terminal = os.openpty()
    tty, file = os.fdopen(terminal, "w"), io.StringIO()
    root, logger = logging.getLogger(), logging.getLogger("croupier.test")
    saved, level = root.handlers[:], root.level
    root.handlers[:] = [logging.StreamHandler(tty), logging.StreamHandler(file)]
    root.setLevel(logging.WARNING)
    taken: list[str] = []
    try:
        with logs.written_by(taken.append):
            logger.warning("above the view")
        logger.warning("the view gone")
        written = os.read(controller, 1024)
    finally:
        root.handlers[:], root.level = saved, level
        tty.close()
        os.close(controller)
    assert taken == ["above the view"]
    assert file.getvalue() == "above the view\nthe view gone\n"
    assert written == b"the view gone\r\n"
