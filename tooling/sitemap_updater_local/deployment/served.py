"""A local deployment kept running on 127.0.0.1, reachable from other processes.

```python
with ServedDeployment(parameters={"SectionRules": "/articles/=articles"}) as served:
    served.endpoint_url        # http://127.0.0.1:PORT, moto's server
    served.environment()       # AWS_ENDPOINT_URL, QUEUE_URL, DLQ_URL, ... by variable name
    served.run(print)          # until Ctrl-C (KeyboardInterrupt) or SIGTERM
```

moto runs as a server (``moto.server.ThreadedMotoServer``, a thread of this process) on
127.0.0.1. The stack is provisioned from template.yaml into it (``deployment.stack``) and
registered in its CloudFormation under the stack's name with the template's outputs, so that
``status``, ``coverage``, ``send``, ``redrive`` and the AWS CLI find it as they find a deployed
stack. The functions reach it over HTTP as a Lambda function reaches AWS. The site, Search
Console and Bing are the loopback stand-ins (``deployment.observed``): the site is the stack's
``SiteUrl``. While it runs:

- ingest is fed from the queue: the event source mapping long-polls it, as Lambda does, and
  invokes the function with each batch it receives;
- each schedule of the template (``deployment.schedules``) invokes its function one period after
  the start and then every period, as EventBridge does: the rebuild, the reconciling full
  rebuild, the observer. ``speed`` runs every schedule that many times as often;
- the urgent event source mapping (``deployment.stream_source``) polls the table's stream between
  batches and starts a rebuild for news and deletes once its window has passed.

Everything lives in memory: a new deployment starts empty.
"""

from __future__ import annotations

import contextlib
import logging
import math
import socket
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TextIO

from moto.server import ThreadedMotoServer

from sitemap_updater.printable import printable
from sitemap_updater_local.deployment.clock import scheduled_event
from sitemap_updater_local.deployment.event_source import MAX_WAIT_SECONDS, BatchResult
from sitemap_updater_local.deployment.local import DEFAULT_TEMPLATE, FAKE_CREDENTIALS
from sitemap_updater_local.deployment.observed import ObservedSite, observed_site
from sitemap_updater_local.deployment.runtime import FunctionOutput
from sitemap_updater_local.deployment.schedules import Scheduled, schedules

#: The stack's name: the one the docs' commands use (``--stack-name sitemap-updater``).
DEFAULT_STACK_NAME: Final = "sitemap-updater"
LOOPBACK: Final = "127.0.0.1"


class ServedDeployment:
    """The deployment, moto's server and the stand-ins, for the duration of a ``with``."""

    def __init__(
        self,
        *,
        template: Path = DEFAULT_TEMPLATE,
        parameters: Mapping[str, str] | None = None,
        port: int = 0,
        stack_name: str = DEFAULT_STACK_NAME,
        speed: float = 1.0,
        log: TextIO | None = None,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed {speed!r} must be above 0")
        self.template = template
        self.parameters = dict(parameters or {})
        self.port = port
        self.stack_name = stack_name
        self.speed = speed
        self.output = FunctionOutput(sink=log)
        self._exits = contextlib.ExitStack()

    def __enter__(self) -> ServedDeployment:
        try:
            self._start()
        except BaseException:
            self._exits.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._exits.close()

    def _start(self) -> None:
        # moto's server logs each request it serves (werkzeug's access log) on stderr
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        _check_free(self.port)
        server = ThreadedMotoServer(ip_address=LOOPBACK, port=self.port, verbose=False)
        server.start()
        self._exits.callback(server.stop)
        host, port = server.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        self.observed: ObservedSite = self._exits.enter_context(
            observed_site(
                articles=0,
                parameters=self.parameters,
                template=self.template,
                endpoint_url=self.endpoint_url,
                stack_name=self.stack_name,
                output=self.output,
            )
        )
        self.deployment = self.observed.deployment
        self.deployment.register_stack()
        self.schedules: list[Scheduled] = schedules(self.deployment.template)

    def environment(self) -> dict[str, str]:
        """What another process needs to reach the deployment, by variable name: the endpoint,
        credentials and region for the SDKs and the AWS CLI, and the stack's names as the docs'
        commands use them."""
        dep = self.deployment
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            "AWS_DEFAULT_REGION": FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
            "STACK_NAME": self.stack_name,
            "SITE_URL": self.observed.site.url,
            "QUEUE_URL": dep.queue_url,
            "QUEUE_ARN": dep.queue_arn,
            "DLQ_URL": dep.dlq_url,
            "BUCKET": dep.bucket_name,
            "TABLE_NAME": dep.table_name,
        }

    def run(self, report: Callable[[str], None]) -> None:
        """Feed ingest from the queue and run the schedules, until interrupted; ``report``
        gets one line for each invocation."""
        started = time.monotonic()
        due = [started + self._period(item) for item in self.schedules]
        while True:
            now = time.monotonic()
            for i, item in enumerate(self.schedules):
                if due[i] <= now:
                    report(self._invoke(item))
                    while due[i] <= time.monotonic():  # a run longer than its period skips
                        due[i] += self._period(item)
            wait = min(due, default=now + MAX_WAIT_SECONDS) - time.monotonic()
            seconds = max(0, min(MAX_WAIT_SECONDS, math.ceil(wait)))
            if any(m.waiting for m in self.deployment.stream_mappings):
                seconds = min(seconds, 1)  # an urgent batch is due within its window
            batch = self.deployment.mapping.poll_once(wait_seconds=seconds)
            if batch is not None:
                report(_stamped(ingest_line(batch)))
            for poll in self.deployment.poll_streams():
                for result in poll.results:
                    report(_stamped(f"urgent run: {run_summary(result)}"))
                for error in poll.errors:
                    report(_stamped(f"urgent run: failed: {type(error).__name__}: {error}"))

    def _period(self, item: Scheduled) -> float:
        return item.seconds / self.speed

    def _invoke(self, item: Scheduled) -> str:
        function = self.deployment.functions[item.function]
        event = scheduled_event(datetime.now(UTC)) if item.payload is None else item.payload
        invocation = function.invoke(event)
        what = f"{item.function} ({item.event}, {item.expression})"
        if invocation.error is not None:
            error = invocation.error
            return _stamped(f"{what}: failed: {type(error).__name__}: {error}")
        return _stamped(f"{what}: {run_summary(invocation.result)}")


def _check_free(port: int) -> None:
    """Raise OSError when ``port`` cannot be listened on: moto's server would wait for ever for
    a thread that failed to bind it."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        probe.bind((LOOPBACK, port))


def ingest_line(batch: BatchResult) -> str:
    """One invocation of ingest, in a line."""
    counts = {
        name: int(batch.metrics.get(f"{name}Records", 0))
        for name in ("Accepted", "Stale", "Rejected")
    }
    line = (
        f"ingest: {batch.records} message(s); changes: {counts['Accepted']} accepted, "
        f"{counts['Stale']} stale, {counts['Rejected']} rejected; "
        f"{len(batch.failed_ids)} message(s) to retry"
    )
    return line if batch.error is None else f"{line}; failed: {batch.error}"


def run_summary(report: Any) -> str:
    """What a scheduled function's report says, in a line: the rebuild's or the observer's."""
    if not isinstance(report, dict):
        return f"returned {type(report).__name__}"
    if "objects_written" in report:
        return (
            f"{report.get('status')}, {len(report['objects_written'])} object(s) written, "
            f"{len(report.get('objects_deleted', []))} deleted, "
            f"{report.get('urls_changed', 0)} URL(s) changed, {report.get('urls_published', 0)} "
            "published" + ("" if report.get("complete", True) else ", leaves pending")
        )
    submissions = report.get("submissions", [])
    return (
        f"{report.get('sections', 0)} section(s) observed, {report.get('inspected', 0)} URL(s) "
        f"inspected, {report.get('health_checks', 0)} health check(s)"
        + (f"; {'; '.join(submissions)}" if submissions else "")
    )


def _stamped(line: str) -> str:
    return printable(f"{datetime.now(UTC):%H:%M:%S} {line}")
