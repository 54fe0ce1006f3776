"""Seeded fault injection into boto3 calls: throttling and server errors, as real responses.

A :class:`FaultPlan` registers a botocore ``before-send`` handler on the default boto3 session's
event system (the one the Lambda handlers create their clients from). ``before-send`` is the hook
where the SDK asks "does anyone already have a response for this request?"; moto answers it too,
and its handler is a built-in registered with every session. botocore calls every handler and
takes the first response, so the plan registers itself *first*. For a chosen call it answers with
an :class:`botocore.awsrequest.AWSResponse` carrying a real error (DynamoDB: HTTP 400
``ThrottlingException`` / ``ProvisionedThroughputExceededException`` or 500
``InternalServerError``; S3: HTTP 503 ``SlowDown`` or 500 ``InternalError``) and keeps the attempt
from reaching moto, as a throttled request never reaches the service; every other call falls
through to moto. The SDK then parses, retries and raises exactly as it would against AWS.

Whether a call fails is a pure function of ``(seed, service, operation, n)`` where ``n`` counts
the calls of that operation, so a plan with the same seed fails the same calls every run, even
when other operations interleave differently. Clients must be created after :meth:`install`
(botocore copies the session's handlers into each client when it is created).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

import boto3
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.compat import HTTPHeaders

_HANDLER_ID = "sitemap-updater-local-faults"
_NOT_SERVED = "https://fault-injected.invalid/"

#: (HTTP status, error code, message) per service; one is chosen per injected fault.
_DYNAMODB_ERRORS = (
    (400, "ThrottlingException", "Rate of requests exceeds the allowed throughput."),
    (
        400,
        "ProvisionedThroughputExceededException",
        "The level of configured provisioned throughput for the table was exceeded.",
    ),
    (500, "InternalServerError", "Internal server error"),
)
_S3_ERRORS = (
    (503, "SlowDown", "Please reduce your request rate."),
    (500, "InternalError", "We encountered an internal error. Please try again."),
)


class _RawBody(BytesIO):
    """The ``raw`` object an AWSResponse reads its body from."""

    def stream(self, **_: Any) -> Iterator[bytes]:
        chunk = self.read()
        while chunk:
            yield chunk
            chunk = self.read()


@dataclass(frozen=True, slots=True)
class InjectedFault:
    service: str
    operation: str
    call_number: int
    status: int
    code: str


@dataclass
class FaultPlan:
    """Fail a seeded share ``rate`` of the calls to ``services`` with a real error response."""

    rate: float
    seed: int
    services: tuple[str, ...] = ("dynamodb", "s3")
    injected: list[InjectedFault] = field(default_factory=list)
    _calls: Counter[tuple[str, str]] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _session: boto3.Session | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate {self.rate!r} must be between 0 and 1")
        unknown = set(self.services) - {"dynamodb", "s3"}
        if unknown:
            raise ValueError(f"fault services {sorted(unknown)} not supported (dynamodb, s3)")

    # --- decisions (pure) -------------------------------------------------------------------

    def _draw(self, service: str, operation: str, n: int) -> tuple[float, int]:
        digest = hashlib.sha256(f"{self.seed}:{service}:{operation}:{n}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64, digest[8]

    def decide(self, service: str, operation: str, n: int) -> tuple[int, str, str] | None:
        """The error for the ``n``-th call of ``service.operation``, or None to let it through."""
        if service not in self.services:
            return None
        share, pick = self._draw(service, operation, n)
        if share >= self.rate:
            return None
        errors = _DYNAMODB_ERRORS if service == "dynamodb" else _S3_ERRORS
        return errors[pick % len(errors)]

    # --- botocore hook ----------------------------------------------------------------------

    def _before_send(self, request: AWSPreparedRequest, **kwargs: Any) -> AWSResponse | None:
        event_name = str(kwargs.get("event_name", ""))
        parts = event_name.split(".")
        if len(parts) < 3:
            return None
        service, operation = parts[1], parts[2]
        if service not in self.services:
            return None
        with self._lock:
            self._calls[(service, operation)] += 1
            n = self._calls[(service, operation)]
        error = self.decide(service, operation, n)
        if error is None:
            return None
        status, code, message = error
        with self._lock:
            self.injected.append(InjectedFault(service, operation, n, status, code))
        url = request.url
        # botocore calls every before-send handler and uses the first response, so moto would
        # still execute this attempt (a throttled write must not be applied). Pointing the
        # attempt's request (botocore builds a new one for each retry) at a host moto does not
        # serve makes moto pass on it.
        request.url = _NOT_SERVED
        return _error_response(service, url, status, code, message)

    def install(self, session: boto3.Session | None = None) -> None:
        """Register on ``session`` (default: boto3's default session), ahead of moto."""
        if session is None:
            if boto3.DEFAULT_SESSION is None:
                boto3.setup_default_session()
            session = boto3.DEFAULT_SESSION
        assert session is not None
        hook: Any = self._before_send
        session.events.register_first("before-send", hook, unique_id=_HANDLER_ID)
        self._session = session

    def uninstall(self) -> None:
        if self._session is not None:
            self._session.events.unregister("before-send", unique_id=_HANDLER_ID)
            self._session = None

    def counts(self) -> dict[str, int]:
        """Injected faults by error code."""
        return dict(Counter(f.code for f in self.injected))


def _error_response(service: str, url: str, status: int, code: str, message: str) -> AWSResponse:
    request_id = hashlib.sha256(f"{url}:{code}".encode()).hexdigest()[:32].upper()
    if service == "dynamodb":
        body = json.dumps(
            {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}
        ).encode()
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "x-amzn-RequestId": request_id,
        }
    else:
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{code}</Code><Message>{message}</Message>"
            f"<RequestId>{request_id}</RequestId></Error>"
        ).encode()
        headers = {"Content-Type": "application/xml", "x-amz-request-id": request_id}
    headers["Content-Length"] = str(len(body))
    http_headers = HTTPHeaders()
    for name, value in headers.items():
        http_headers[name] = value
    return AWSResponse(url, status, http_headers, _RawBody(body))
