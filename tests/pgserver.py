"""A throwaway PostgreSQL server for the tests: its own data directory, a Unix socket only.

The server binaries come from the operating system's PostgreSQL package (Debian puts them
in /usr/lib/postgresql/<major>/bin; ``ARBITRO_PG_BIN`` overrides). ``initdb`` refuses to run
as root, so under root the server runs as an unprivileged user (``ARBITRO_PG_USER``, else
``postgres`` when it exists, else ``nobody``) who owns the temporary directory. No TCP port
is opened: the socket lives in that directory, so parallel runs never collide.

Tuned for tests, not for data you keep: ``fsync=off`` (a client killed mid-transaction is
still rolled back by the server; only an operating-system crash could lose commits).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SUPERUSER = "arbitro"
PORT = 5432
OPTIONAL_ENV = "ARBITRO_PG_OPTIONAL"


class ServerUnavailable(RuntimeError):
    """No PostgreSQL server binaries here, or the server would not start."""


def find_bin_dir() -> Path:
    """The directory holding initdb and pg_ctl; `ServerUnavailable` if there is none."""
    candidates: list[str] = []
    if os.environ.get("ARBITRO_PG_BIN"):
        candidates.append(os.environ["ARBITRO_PG_BIN"])

    def major(path: str) -> int:
        name = Path(path).parent.name
        return int(name) if name.isdigit() else 0

    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=major, reverse=True)
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    for candidate in candidates:
        directory = Path(candidate)
        if (directory / "initdb").is_file() and (directory / "pg_ctl").is_file():
            return directory
    raise ServerUnavailable(
        "no PostgreSQL server binaries (initdb, pg_ctl) were found in $ARBITRO_PG_BIN, "
        "/usr/lib/postgresql/*/bin or on PATH. Install them (Debian: "
        "`apt-get install postgresql`; .ci/run does this) or set "
        f"{OPTIONAL_ENV}=1 to skip the PostgreSQL leg of the store tests on this machine."
    )


def _server_user() -> pwd.struct_passwd | None:
    """Who runs the server: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in (os.environ.get("ARBITRO_PG_USER"), "postgres", "nobody"):
        if not name:
            continue
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise ServerUnavailable("running as root and no unprivileged user (postgres, nobody)")


@dataclass
class PgServer:
    """One running server; `url(database)` names a database on it."""

    bin_dir: Path
    base: Path
    user: pwd.struct_passwd | None
    durable: bool = False
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _options: str = ""

    @property
    def data_dir(self) -> Path:
        return self.base / "data"

    @property
    def socket_dir(self) -> Path:
        return self.base / "socket"

    def url(self, database: str) -> str:
        """An asyncpg URL for ``database`` over the server's Unix socket."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={PORT}"

    def fresh_name(self, prefix: str = "t") -> str:
        """A database name not used before in this session."""
        return f"{prefix}{os.getpid()}_{next(self._names)}"

    def new_schema_url(self) -> str:
        """Create a fresh schema in the ``postgres`` database; a URL whose search_path is it."""
        name = self.fresh_name("s")

        async def create() -> None:
            import asyncpg

            connection = await asyncpg.connect(self.url("postgres"))
            try:
                await connection.execute(f"CREATE SCHEMA {name}")
            finally:
                await connection.close()

        # Its own loop on a worker thread: callers may be inside a running event loop.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, create()).result()
        return f"{self.url('postgres')}&search_path={name}"

    def _run(self, *argv: str) -> None:
        kwargs: dict[str, object] = {}
        if self.user is not None:
            kwargs = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        completed = subprocess.run(
            [str(self.bin_dir / argv[0]), *argv[1:]],
            cwd=self.base,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            env={**os.environ, "LC_ALL": "C", "LANG": "C"},
            **kwargs,  # type: ignore[arg-type]
        )
        if completed.returncode != 0:
            log = self.base / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise ServerUnavailable(
                f"{argv[0]} failed ({completed.returncode}): "
                f"{completed.stderr.strip() or completed.stdout.strip()}\n{tail}"
            )

    def start(self) -> None:
        self.socket_dir.mkdir()
        if self.user is not None:
            for path in (self.base, self.socket_dir):
                os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data_dir),
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        settings = [
            f"-k {self.socket_dir}",
            "-c listen_addresses=''",
            f"-p {PORT}",
            "-c max_connections=300",
            "-c shared_buffers=32MB",
        ]
        if not self.durable:
            settings += ["-c fsync=off", "-c full_page_writes=off"]
        self._options = " ".join(settings)
        self.resume()

    def halt(self) -> None:
        """Stop the server at once (as a crash or an outage would), keeping its data."""
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")

    def resume(self) -> None:
        """Start the server on its data directory (after `start`, or again after `halt`)."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.data_dir),
            "-o",
            self._options,
            "-l",
            "server.log",
            "-w",
            "start",
        )

    def stop(self) -> None:
        with contextlib.suppress(ServerUnavailable, subprocess.TimeoutExpired):
            self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.base, ignore_errors=True)


def start_server(*, durable: bool = False) -> PgServer:
    """Start a server in a new temporary directory; `ServerUnavailable` if impossible.

    ``durable`` keeps PostgreSQL's default fsync (for benchmarks comparable with SQLite's
    ``synchronous=FULL``); tests run without it.
    """
    bin_dir = find_bin_dir()
    user = _server_user()
    # Not under pytest's tmp_path: its parent is private to root, and the server user must
    # reach its own directory.
    base = Path(tempfile.mkdtemp(prefix="arbitro-pg-", dir="/tmp"))
    server = PgServer(bin_dir=bin_dir, base=base, user=user, durable=durable)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server
