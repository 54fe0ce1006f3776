"""The local IndexNow endpoint answering as a test scripts it.

```python
with ScriptedEndpoint() as endpoint:
    endpoint.script(Reply(429, {"Retry-After": "120"}), Reply(200))   # then 200 for the rest
    ...
```

A :class:`Reply` may ``drop`` the connection without an answer, or ``hold`` it until
:meth:`ScriptedEndpoint.release` (an answer slower than the client's timeout).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from sitemap_updater_local.deployment.indexnow_endpoint import Received, RecordingEndpoint, write

#: How long a held answer waits for :meth:`ScriptedEndpoint.release` at most.
HOLD_LIMIT_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    #: close the connection without answering
    drop: bool = False
    #: answer only once the endpoint is released
    hold: bool = False


class ScriptedEndpoint(RecordingEndpoint):
    """A :class:`RecordingEndpoint` whose next answers are scripted."""

    def __init__(self) -> None:
        super().__init__()
        self._script: list[Reply] = []
        self._script_lock = threading.Lock()
        self._released = threading.Event()

    def script(self, *replies: Reply) -> None:
        """The next answers, in order; after them, the default one."""
        with self._script_lock:
            self._script.extend(replies)

    def release(self) -> None:
        """Let every held answer go."""
        self._released.set()

    def respond(self, handler: BaseHTTPRequestHandler, received: Received) -> None:
        with self._script_lock:
            reply = self._script.pop(0) if self._script else None
        if reply is None:
            super().respond(handler, received)
            return
        if reply.hold:
            self._released.wait(HOLD_LIMIT_SECONDS)
        if reply.drop:
            handler.close_connection = True
            return
        write(handler, reply.status, reply.headers, reply.body)

    def __exit__(self, *exc_info: object) -> None:
        self.release()
        super().__exit__(*exc_info)
