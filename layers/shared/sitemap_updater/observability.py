"""The Powertools Logger, Metrics and Tracer shared by both functions.

Service name, namespace and log level come from POWERTOOLS_* environment variables set in
template.yaml, as the Powertools documentation recommends.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
metrics = Metrics()
tracer = Tracer()
