"""A throwaway PostgreSQL cluster that a test may crash: ``initdb`` in a temporary
directory, started on a free port, stopped with ``pg_ctl stop -m immediate`` (the
server processes killed without a shutdown checkpoint, as in a crash) and started again.

The shared PostgreSQL of the other tests is never stopped. The binaries are the
machine's own (``initdb``, ``pg_ctl`` on the PATH or under /usr/lib/postgresql);
PostgreSQL refuses to run as root, so under root the cluster belongs to the
``postgres`` user and its commands run through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cluster_problem() -> str | None:
    """None when a private cluster can be made here, else why not."""
    for name in ("initdb", "pg_ctl"):
        if _binary(name) is None:
            return f"{name} is not installed"
    if os.geteuid() == 0 and (shutil.which("runuser") is None or _uid("postgres") is None):
        return "running as root without a 'postgres' user and runuser"
    return None


def _uid(user: str) -> int | None:
    import pwd

    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        return None


class PgCluster:
    """One private PostgreSQL server: :meth:`create`, then :meth:`crash` / :meth:`start`,
    :meth:`destroy` at the end. ``url`` is its SQLAlchemy URL (trust auth, database
    ``postgres``)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="remi-pgcluster-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"
        self._prefix: list[str] = []
        if os.geteuid() == 0:
            uid = _uid("postgres")
            assert uid is not None
            os.chown(self.dir, uid, -1)
            self._prefix = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self._prefix, *args], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}")

    @classmethod
    def create(cls) -> PgCluster:
        cluster = cls()
        initdb = _binary("initdb")
        assert initdb is not None
        cluster._run(initdb, "-D", str(cluster.data), "-U", "postgres", "--auth=trust", "--no-sync")
        cluster.start()
        return cluster

    def start(self) -> None:
        """Start the server (again) and wait until it accepts connections."""
        pg_ctl = _binary("pg_ctl")
        assert pg_ctl is not None
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            pg_ctl, "-D", str(self.data), "-l", str(self.dir / "log"), "-w", "-o", options, "start"
        )

    def crash(self) -> None:
        """``pg_ctl stop -m immediate``: every connection is cut at once, whatever it was
        doing; the next start recovers from the WAL."""
        pg_ctl = _binary("pg_ctl")
        assert pg_ctl is not None
        self._run(pg_ctl, "-D", str(self.data), "-w", "-m", "immediate", "stop")

    def destroy(self) -> None:
        pg_ctl = _binary("pg_ctl")
        if pg_ctl is not None and (self.data / "postmaster.pid").exists():
            subprocess.run(
                [*self._prefix, pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
                check=False,
            )
        shutil.rmtree(self.dir, ignore_errors=True)
