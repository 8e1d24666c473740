"""While PostgreSQL is down: commands answer "storage unavailable", and stderr holds one
line per outage, not asyncpg's traceback per reconnection attempt (db/drivers/outage.py)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from db.drivers.outage import POOL_RETRY_MESSAGE, OutageLog
from tests.pgserver import OPTIONAL_ENV

SCRIPT = Path(__file__).with_name("pg_outage_script.py")


def test_an_outage_is_one_line_on_stderr_not_a_traceback_per_attempt() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=180
    )
    if result.returncode == 3:
        if os.environ.get(OPTIONAL_ENV) == "1":
            pytest.skip(f"PostgreSQL unavailable ({OPTIONAL_ENV}=1): {result.stderr}")
        pytest.fail(f"PostgreSQL leg cannot run: {result.stderr}", pytrace=False)
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert "during the outage: unavailable: store.unavailable" in answers
    assert "after the outage: version 1" in answers and "played: version 2" in answers
    # Two outages: one line each (the logging's last resort prints WARNING records).
    assert "Traceback" not in result.stderr and POOL_RETRY_MESSAGE not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert all("does not answer" in line and "storage unavailable" in line for line in lines)


def test_the_outage_log_reports_each_change_once(caplog: pytest.LogCaptureFixture) -> None:
    outages = OutageLog()
    outages.where = "PostgreSQL at db"
    caplog.set_level(logging.INFO, logger="db.drivers.postgres")
    pool_record = logging.LogRecord(
        "asyncpg.pool",
        logging.WARNING,
        __file__,
        1,
        POOL_RETRY_MESSAGE + "; retrying",
        None,
        (OSError("gone"), OSError("gone"), None),
    )
    assert outages.filter(pool_record) is False  # asyncpg's record is dropped
    outages.failed(ConnectionRefusedError("refused"))
    assert outages.filter(pool_record) is False
    assert outages.down
    outages.answered()
    outages.answered()
    assert not outages.down
    other = logging.LogRecord("asyncpg.pool", logging.WARNING, __file__, 1, "other", None, None)
    assert outages.filter(other) is True
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in messages] == ["WARNING", "INFO"]
    assert "PostgreSQL at db does not answer (OSError: gone)" in messages[0][1]
    assert messages[1][1].startswith("PostgreSQL at db answers again")
