"""The Powertools Logger, Metrics and Tracer shared by both functions, and the one rule for URLs
in log lines.

Service name, namespace and log level come from POWERTOOLS_* environment variables set in
template.yaml, as the Powertools documentation recommends.

A URL's query string may carry what its sender did not mean to publish in logs (session ids,
tokens, e-mail addresses), and logs are kept and read more widely than the table. So every log
line that holds a URL, or text that may hold one, passes it through :func:`redact_queries`,
which replaces each query string with ``?[redacted]`` unless the log level is DEBUG (turned on
for a diagnosis, on purpose, for a short time).
"""

from __future__ import annotations

import logging
import re
from typing import Final

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
metrics = Metrics()
tracer = Tracer()

#: What stands for a query string in a log line.
REDACTED_QUERY: Final = "?[redacted]"
#: An absolute http(s) URL's query: from its ``?`` to the fragment or the end of the URL.
_QUERY: Final = re.compile(r"""(?i)(\bhttps?://[^\s?#'"<>]*)\?[^\s#'"<>]*""")


def redact_queries(text: str) -> str:
    """``text`` (a URL, or any text that may hold URLs) with each URL's query string replaced
    by :data:`REDACTED_QUERY`, unless the log level is DEBUG."""
    if logger.log_level <= logging.DEBUG or "?" not in text:
        return text
    return _QUERY.sub(lambda found: found[1] + REDACTED_QUERY, text)
