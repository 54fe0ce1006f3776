"""Observer handler: an EventBridge schedule runs it (hourly by default). It submits each host's
index to the search engines turned on and measures what they did with it, per host and section.
All logic lives in ``sitemap_updater.observe``."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import boto3
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.config import Config

from sitemap_updater.observability import logger, traced_handler
from sitemap_updater.observe.credentials import engine_clients
from sitemap_updater.observe.observer import ObserveService
from sitemap_updater.observe.settings import ObserveConfig

_CLIENT_CONFIG = Config(retries={"mode": "standard", "max_attempts": 5})
_clients: dict[str, Any] = {}
#: Epoch seconds now (the local deployment sets its own clock here, as for the rebuild), and
#: the waits of the paced requests with the clock they are measured on (a local deployment on a
#: simulated clock sets both to it, so that its waits take no real time).
clock: Callable[[], float] = time.time
sleep: Callable[[float], None] = time.sleep
monotonic: Callable[[], float] = time.monotonic
#: The sample's draws (the local deployment fixes their seed, so that a test's runs repeat).
rng = random.Random()


def _client(name: str) -> Any:
    """A boto3 client from the default session, created on first use and kept for warm starts."""
    if name not in _clients:
        _clients[name] = boto3.client(name, config=_CLIENT_CONFIG)  # type: ignore[call-overload]
    return _clients[name]


@logger.inject_lambda_context
@traced_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    config = ObserveConfig.from_env()
    service = ObserveService(
        config,
        dynamodb=_client("dynamodb"),
        s3=_client("s3"),
        engines=engine_clients(config, _client("secretsmanager")),
        clock=clock,
        remaining_seconds=lambda: context.get_remaining_time_in_millis() / 1000,
        sleep=sleep,
        monotonic=monotonic,
        rng=rng,
    )
    report = service.run()
    logger.info("observer run finished", extra={"report": report})
    return report
