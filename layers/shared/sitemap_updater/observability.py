"""The Powertools Logger, Metrics and Tracer shared by both functions, and the one rule for URLs
in log lines.

Service name, namespace and log level come from POWERTOOLS_* environment variables set in
template.yaml, as the Powertools documentation recommends.

A URL's query string may carry what its sender did not mean to publish in logs (session ids,
tokens, e-mail addresses), and logs are kept longer and read more widely than the table. So the
logger's formatter passes every log line through :func:`redact_queries`, which replaces each
URL's query string with ``?[redacted]`` unless the log level is DEBUG (turned on, on purpose and
for a short time, to diagnose one URL). Being the formatter, it covers every field, the messages
of exceptions and the run report alike, whoever writes the line.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, cast

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.shared.functions import resolve_truthy_env_var_choice

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer
    from aws_lambda_powertools.logging.types import LogRecord

#: What stands for a query string in a log line.
REDACTED_QUERY: Final = "?[redacted]"
#: An absolute http(s) URL's query: from its ``?`` to the fragment or the end of the URL (a
#: quote or a backslash ends it too, so that a JSON log line stays JSON).
_QUERY: Final = re.compile(r"""(?i)(\bhttps?://[^\s?#'"<>\\]*)\?[^\s#'"<>\\]*""")


def redact_queries(text: str) -> str:
    """``text`` (a URL, or any text that may hold URLs) with each URL's query string replaced
    by :data:`REDACTED_QUERY`, unless the log level is DEBUG."""
    if "?" not in text or logger.log_level <= logging.DEBUG:
        return text
    return _QUERY.sub(lambda found: found[1] + REDACTED_QUERY, text)


class QueryRedactingFormatter(LambdaPowertoolsFormatter):
    """The Powertools JSON formatter, with :func:`redact_queries` applied to each line."""

    def serialize(self, log: LogRecord) -> str:
        return redact_queries(super().serialize(log))


logger = Logger(logger_formatter=QueryRedactingFormatter())
metrics = Metrics()
#: Whether the functions trace: template.yaml's ``Tracing`` parameter sets
#: ``POWERTOOLS_TRACE_DISABLED`` with the functions' X-Ray mode. When it is off no Tracer is made:
#: Powertools' Tracer imports the X-Ray SDK even when disabled, the largest part of a cold start
#: (docs/design.md, "Tracing stays X-Ray").
TRACING: Final = not resolve_truthy_env_var_choice(
    env=os.environ.get("POWERTOOLS_TRACE_DISABLED", "false")
)
tracer: Tracer | None = None
if TRACING:
    from aws_lambda_powertools import Tracer

    tracer = Tracer()


def traced_handler[Traced: Callable[..., Any]](handler: Traced) -> Traced:
    """``handler`` in its own X-Ray subsegment (Powertools' ``capture_lambda_handler``), or
    itself when tracing is off."""
    return cast(Traced, tracer.capture_lambda_handler(handler)) if tracer else handler


def traced_method[Traced: Callable[..., Any]](method: Traced) -> Traced:
    """``method`` in its own subsegment, its response left out of the trace (it may hold URLs),
    or itself when tracing is off."""
    if tracer is None:
        return method
    return tracer.capture_method(capture_response=False)(method)
