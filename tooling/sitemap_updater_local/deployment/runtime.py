"""A minimal Lambda runtime: load a handler by file path, invoke it with its environment.

Each invocation applies the function's environment variables to ``os.environ`` (restored
afterwards), passes a context object with the attributes Powertools reads, and captures what the
function prints to stdout: that is the function's log stream, where Powertools also writes its
CloudWatch embedded-metric-format (EMF) lines.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import json
import logging
import os
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from sitemap_updater_local.deployment.stack.template import ACCOUNT_ID, REGION, FunctionSpec

Handler = Callable[[dict[str, Any], Any], Any]

_module_ids = itertools.count(1)

#: Set for every local invocation: there is no X-Ray daemon in the local deployment.
LOCAL_ENVIRONMENT = {
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
    "POWERTOOLS_TRACE_DISABLED": "true",
}


class LambdaContext:
    """The context object a Lambda handler receives, with a real countdown of remaining time."""

    def __init__(self, function_name: str, memory_mb: int, remaining_ms: int) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{function_name}"
        self.memory_limit_in_mb = memory_mb
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = f"local/{self.aws_request_id}"
        self._deadline = time.monotonic() + remaining_ms / 1000.0

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class FunctionOutput(io.TextIOBase):
    """The stdout of the local functions: collects lines per invocation, keeps a bounded tail,
    and copies every line to ``sink`` when one is given (a log file).

    Installed as ``sys.stdout`` while a function's module is loaded and while it runs, so a
    logger that binds the stream at import time keeps writing here rather than to the terminal;
    a logging handler that was bound to the stdout of before (a module the command imported
    first) writes here for the duration too.
    """

    def __init__(self, keep_lines: int = 5_000, sink: TextIO | None = None) -> None:
        super().__init__()
        self.tail: deque[str] = deque(maxlen=keep_lines)
        self.sink = sink
        self._current: list[str] | None = None
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for line in lines:
            self.tail.append(line)
            if self._current is not None:
                self._current.append(line)
            if self.sink is not None:
                self.sink.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        if self.sink is not None:
            self.sink.flush()

    @contextlib.contextmanager
    def capture(self) -> Iterator[list[str]]:
        lines: list[str] = []
        previous, self._current = self._current, lines
        saved = sys.stdout
        sys.stdout = self
        moved = _moved_handlers(saved, self)
        try:
            yield lines
        finally:
            self.write("\n" if self._partial else "")
            for handler in moved:
                handler.setStream(saved)
            sys.stdout = saved
            self._current = previous


def _moved_handlers(old: object, new: io.TextIOBase) -> list[logging.StreamHandler[Any]]:
    """Every logging stream handler writing to ``old``, now writing to ``new``."""
    if old is new:
        return []
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    moved: list[logging.StreamHandler[Any]] = []
    for logger in loggers:
        for handler in getattr(logger, "handlers", ()):
            if isinstance(handler, logging.StreamHandler) and handler.stream is old:
                handler.setStream(new)
                moved.append(handler)
    return moved


def emf_metrics(lines: list[str]) -> dict[str, float]:
    """Sum of every metric value in the CloudWatch EMF lines among ``lines``, by metric name."""
    totals: dict[str, float] = {}
    for line in lines:
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if not isinstance(doc, dict) or "_aws" not in doc:
            continue
        for directive in doc["_aws"].get("CloudWatchMetrics", []):
            for metric in directive.get("Metrics", []):
                name = metric.get("Name")
                raw = doc.get(name)
                values = raw if isinstance(raw, list) else [raw]
                for value in values:
                    if isinstance(value, int | float):
                        totals[name] = totals.get(name, 0.0) + float(value)
    return totals


@contextlib.contextmanager
def applied_environment(env: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` updated with ``env`` for the duration; every changed name restored after."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class Invocation:
    result: Any
    error: BaseException | None
    metrics: dict[str, float]
    log_lines: list[str]
    seconds: float


@dataclass
class LocalFunction:
    """One function of the template, loaded from its file under a module name of its own."""

    spec: FunctionSpec
    environment: dict[str, str]
    output: FunctionOutput
    module: ModuleType | None = None
    invocations: int = 0
    physical_name: str = field(default="")
    #: epoch seconds the function sees instead of the system clock (its module's ``clock``)
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if not self.physical_name:
            self.physical_name = f"sitemap-updater-local-{self.spec.logical_id}"

    def _env(self) -> dict[str, str]:
        return {**self.environment, **LOCAL_ENVIRONMENT}

    def load(self) -> ModuleType:
        if self.module is not None:
            return self.module
        path = self.spec.code_path
        if not path.is_file():
            raise FileNotFoundError(
                f"function {self.spec.logical_id}: handler file {path} does not exist"
            )
        name = f"_sitemap_updater_local_{self.spec.logical_id.lower()}_{next(_module_ids)}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        code_dir = str(Path(path).parent)
        sys.path.insert(0, code_dir)
        try:
            with applied_environment(self._env()), self.output.capture():
                spec.loader.exec_module(module)
        finally:
            sys.path.remove(code_dir)
        if not callable(getattr(module, self.spec.handler_name, None)):
            raise AttributeError(
                f"function {self.spec.logical_id}: {path} has no callable "
                f"{self.spec.handler_name!r}"
            )
        if self.clock is not None and callable(getattr(module, "clock", None)):
            module.__dict__["clock"] = self.clock
        self.module = module
        _ensure_metrics_namespace(self._env())
        return module

    def invoke(self, event: dict[str, Any], remaining_ms: int | None = None) -> Invocation:
        """Call the handler once; an exception is returned in ``error``, as Lambda reports it."""
        handler: Handler = getattr(self.load(), self.spec.handler_name)
        budget = self.spec.timeout_seconds * 1000 if remaining_ms is None else remaining_ms
        context = LambdaContext(self.physical_name, self.spec.memory_mb, budget)
        self.invocations += 1
        started = time.perf_counter()
        result: Any = None
        error: BaseException | None = None
        with applied_environment(self._env()), self.output.capture() as lines:
            try:
                result = handler(event, context)
            except Exception as exc:  # Lambda turns any exception into a failed invocation
                error = exc
        return Invocation(
            result=result,
            error=error,
            metrics=emf_metrics(lines),
            log_lines=lines,
            seconds=time.perf_counter() - started,
        )


def _ensure_metrics_namespace(env: Mapping[str, str]) -> None:
    """Give the shared Powertools Metrics its namespace if it was imported before the env was set.

    Powertools reads ``POWERTOOLS_METRICS_NAMESPACE`` when the ``Metrics`` object is created; in a
    process that imported the shared package earlier (a test session), it would have none and
    every flush would fail. Lambda always starts a fresh process, so this only fixes the local case.
    """
    namespace = env.get("POWERTOOLS_METRICS_NAMESPACE")
    observability = sys.modules.get("sitemap_updater.observability")
    metrics = getattr(observability, "metrics", None)
    provider = getattr(metrics, "provider", None)
    if namespace and provider is not None and getattr(provider, "namespace", None) is None:
        provider.namespace = namespace
