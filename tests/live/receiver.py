"""A webhook receiver on 127.0.0.1 that verifies Standard Webhooks signatures with the
``standardwebhooks`` package, as a real receiver would, and can fail on purpose."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError

from tests.live.service import free_port


class Receiver:
    """Start, stop and start again on the same port; ``fail`` answers 500."""

    def __init__(self) -> None:
        self.port = free_port()
        self.secret: str | None = None
        self.fail = False
        self.received: list[tuple[str, dict[str, Any]]] = []  # (webhook-id, CloudEvent)
        self.bad_signatures = 0
        self.refused = 0
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> Receiver:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                if outer.fail:
                    with outer._lock:
                        outer.refused += 1
                    self.send_response(500)
                    self.end_headers()
                    return
                try:
                    assert outer.secret is not None
                    event = Webhook(outer.secret).verify(body, dict(self.headers.items()))
                except (WebhookVerificationError, AssertionError):
                    with outer._lock:
                        outer.bad_signatures += 1
                    self.send_response(401)
                    self.end_headers()
                    return
                with outer._lock:
                    outer.received.append((self.headers["webhook-id"], event))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Down: connections are refused."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def ids(self) -> list[str]:
        with self._lock:
            return [i for i, _ in self.received]

    def dump(self) -> str:
        return json.dumps(self.received, indent=1)[:3000]
