"""Headless Chromium driven through the DevTools protocol over a pipe, for tests/browser and
benchmarks/bench_view.py.

``--remote-debugging-pipe`` makes Chromium read protocol messages from file descriptor 3 and
write its answers to 4, each a JSON text ended by a NUL byte (the transport Puppeteer uses): no
port, no websocket, nothing but the standard library. A page is a target the browser creates;
its session id goes with each command meant for it. Waiting is done in the page: a script that
resolves when the condition holds (checked on each animation frame), awaited by
``Runtime.evaluate``, so no test sleeps.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

#: Flags that keep headless Chromium quiet and alone on a build machine.
QUIET_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
#: XSLT off, as in the browsers that have removed it.
WITHOUT_XSLT: Final = "--disable-features=XSLT"


class BrowserError(Exception):
    """A protocol command failed, or a script in the page threw."""


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One Chromium process; :meth:`page` opens a tab."""

    def __init__(self, binary: str, *flags: str, window: tuple[int, int] = (1280, 900)) -> None:
        self._profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_browser, self._write_fd = os.pipe()
        self._read_fd, from_browser = os.pipe()

        arguments = [
            *QUIET_FLAGS,
            *flags,
            f"--window-size={window[0]},{window[1]}",
            f"--user-data-dir={self._profile}",
            "about:blank",
        ]
        # bash (dash cannot name fds above 9) puts the pipe ends on 3 and 4, then becomes
        # Chromium: no preexec_fn
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}', binary, *arguments],
            pass_fds=(to_browser, from_browser),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.window = window
        self._next_id = 0
        self._buffer = b""

    def send(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        """Run one protocol command and return its result (events met meanwhile are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write_fd, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._read_fd, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed the pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        answer: dict[str, Any] = json.loads(message)
        return answer

    def page(self) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        page = Page(self, session["sessionId"])
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": self.window[0],
                "height": self.window[1],
                "deviceScaleFactor": 1,
                "mobile": False,
            },
        )
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self._write_fd)
        os.close(self._read_fd)
        shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    """A tab: navigate, evaluate, wait for a condition, press keys, type, take a screenshot."""

    def __init__(self, browser: Browser, session: str) -> None:
        self._browser = browser
        self._session = session

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self._browser.send(method, params, self._session)

    def open(self, url: str) -> None:
        """Navigate and wait for the load; a document replaced while loading (an XSLT result
        replaces the XML it came from) is waited for in turn."""
        self.call("Page.navigate", {"url": url})
        for _ in range(5):
            try:
                self.wait("document.readyState === 'complete'")
                return
            except BrowserError as error:
                if "context was destroyed" not in str(error):
                    raise
        raise BrowserError(f"{url}: its document kept being replaced")

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` (awaited when it is a promise), as JSON."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description", str(details)))
        return result["result"].get("value")

    def wait(self, condition: str, timeout_ms: int = 30_000) -> Any:
        """The first truthy value of ``condition``, checked in the page on every frame."""
        timed_out = json.dumps("timed out: " + condition)
        script = f"""new Promise((done, fail) => {{
            const until = performance.now() + {timeout_ms};
            const check = () => {{
                let value;
                try {{ value = ({condition}); }} catch (e) {{ value = undefined; }}
                if (value) done(value);
                else if (performance.now() > until) fail(new Error({timed_out}));
                else requestAnimationFrame(check);
            }};
            check();
        }})"""
        return self.evaluate(script)

    def press(self, key: str, code: str | None = None, key_code: int = 0) -> None:
        """A key pressed and released where the focus is (``key`` as KeyboardEvent.key)."""
        for kind in ("rawKeyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                {
                    "type": kind,
                    "key": key,
                    "code": code or key,
                    "windowsVirtualKeyCode": key_code,
                },
            )

    def type(self, text: str) -> None:
        self.call("Input.insertText", {"text": text})

    def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])
        path.write_bytes(data)
        return data


@contextmanager
def browser(binary: str, *flags: str, window: tuple[int, int] = (1280, 900)) -> Iterator[Browser]:
    running = Browser(binary, *flags, window=window)
    try:
        yield running
    finally:
        running.close()
