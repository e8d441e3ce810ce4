"""One entry in front of the server(s): nginx with the load balancer's configuration of
docker-compose.yml (deploy/nginx.conf), its upstream the benchmark's own servers.

With ``--entry nginx`` every client connects to this one port and nginx spreads the
HTTP requests and the room sockets over the nodes in plain round robin, as in
production; which node a socket reaches is then nginx's choice (the bridged and direct
halves are not told apart). nginx must be installed (Debian: ``apt-get install
nginx-light``); it runs as this user, its files in the store's temporary directory.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

from .server import ROOT, free_port

CONF = ROOT / "deploy" / "nginx.conf"


def configuration(template: str, ports: list[int], port: int, workdir: Path) -> str:
    """deploy/nginx.conf with the benchmark's upstream servers, port and files.

    >>> conf = configuration(CONF.read_text(), [8001, 8002], 9000, Path("/tmp/x"))
    >>> "server 127.0.0.1:8002 max_fails=1 fail_timeout=5s;" in conf, "app1" in conf
    (True, False)
    >>> "listen 127.0.0.1:9000;" in conf and "pid /tmp/x/nginx.pid;" in conf
    True
    """
    upstream = "".join(
        f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in ports
    )
    conf, n = re.subn(r"(?m)^\s*server app\d+:8000[^\n]*\n", "", template)
    if n == 0:
        raise ValueError("deploy/nginx.conf names no upstream server appN:8000")
    conf = conf.replace("upstream remi {\n", "upstream remi {\n" + upstream, 1)
    conf, n = re.subn(r"listen 8000;", f"listen 127.0.0.1:{port};", conf)
    if n != 1:
        raise ValueError("deploy/nginx.conf does not listen on 8000")
    temp = "\n".join(
        f"    {kind}_temp_path {workdir / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = conf.replace("http {\n", f"http {{\n    access_log off;\n{temp}\n", 1)
    return (
        f"pid {workdir / 'nginx.pid'};\nerror_log {workdir / 'nginx-error.log'} warn;\n"
        f"worker_rlimit_nofile 65536;\n{conf}"
    )


class Entry:
    """nginx in front of ``ports``, on a free port of its own."""

    def __init__(self, ports: list[int], data_dir: Path) -> None:
        binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
        if binary is None:
            raise SystemExit("--entry nginx needs nginx (Debian: apt-get install nginx-light)")
        self.port = free_port()
        self.ports = [self.port]
        workdir = data_dir / "nginx"
        workdir.mkdir(parents=True, exist_ok=True)
        path = workdir / "nginx.conf"
        path.write_text(configuration(CONF.read_text(), ports, self.port, workdir))
        self.proc = subprocess.Popen(
            [binary, "-p", str(workdir), "-c", str(path), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=(workdir / "nginx-stderr.log").open("wb"),
            start_new_session=True,
        )
        end = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited; see {workdir}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError(f"nginx did not listen; see {workdir}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
