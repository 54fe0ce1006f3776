"""The IndexNow protocol: one POST of changed URLs, and what the answer means.

Protocol facts (https://www.indexnow.org/documentation, "Submitting set of URLs" and "Response
format"):

- a set of URLs is sent as one POST with ``Content-Type: application/json; charset=utf-8`` and the
  JSON body ``{"host", "key", "keyLocation", "urlList"}``; at most 10,000 URLs per POST;
- a key has 8 to 128 characters of ``a-z``, ``A-Z``, ``0-9`` and ``-``;
- ``keyLocation`` names the UTF-8 text file holding the key when it is not ``/<key>.txt``; the file
  must be on the same host, and its directory bounds the URLs the key may submit (a file at the
  root covers the whole host; https://yandex.com/support/webmaster/indexnow/key.html);
- 200 (OK) and 202 (Accepted, key validation pending) are success; 400 (bad request), 403 (key not
  valid) and 422 (URLs not on the host, or a key not matching the schema) refuse the request; 429
  is "too many requests".

The endpoint shared by the participating search engines is ``https://api.indexnow.org/indexnow``.
"""

from __future__ import annotations

import enum
import http.client
import json
import re
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from sitemap_updater.bounded_http import Deadline, opener, retry_after_seconds

DEFAULT_ENDPOINT: Final = "https://api.indexnow.org/indexnow"
MAX_URLS_PER_POST: Final = 10_000
KEY_RULE: Final = "8 to 128 characters of a-z, A-Z, 0-9 and -"
_KEY = re.compile(r"[a-zA-Z0-9-]{8,128}")
#: How long one POST may take in all (connect, send, answer): an overall deadline, not only a
#: bound on each read; a slower answer is retried in a later run.
TIMEOUT_SECONDS: Final = 5.0
#: Most characters of an answer's body kept for the log.
DETAIL_CHARS: Final = 500
_RETRY_STATUSES: Final = frozenset({408, 429})


class IndexNowConfigError(ValueError):
    """An IndexNow setting that breaks a rule of the protocol."""

    def __init__(self, field: str, value: str, rule: str) -> None:
        super().__init__(f"{field}={value!r} is not valid: {rule}")
        self.field = field
        self.value = value
        self.rule = rule


def check_key(key: str, *, field: str = "INDEXNOW_KEY") -> str:
    """``key`` if the protocol allows it; else :class:`IndexNowConfigError`."""
    if not _KEY.fullmatch(key):
        raise IndexNowConfigError(field, key, f"must be {KEY_RULE}")
    return key


#: Hosts an ``http://`` endpoint may name: a request to them never leaves the machine (a local
#: test endpoint); anywhere else the key travels only over https.
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost"})
ENDPOINT_RULE: Final = (
    "must be an https:// URL, since each request carries the key "
    "(http:// only to 127.0.0.1 or localhost)"
)


def check_endpoint(endpoint: str, *, field: str = "INDEXNOW_ENDPOINT") -> str:
    """``endpoint`` if it is an https URL with a host (or http to a loopback host); else
    :class:`IndexNowConfigError`."""
    parts = urlsplit(endpoint)
    secure = parts.scheme == "https" or (
        parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    )
    if not secure or not parts.hostname:
        raise IndexNowConfigError(field, endpoint, ENDPOINT_RULE)
    return endpoint


#: How every key file's object key starts.
KEY_FILE_PREFIX: Final = "sitemap-indexnow-"


def key_file_name(key: str) -> str:
    """The key file's object key: it starts with ``sitemap`` so that the CloudFront path that
    serves ``/sitemap*`` serves it too, at the root of the host (whose every URL it covers)."""
    return f"{KEY_FILE_PREFIX}{check_key(key)}.txt"


class AnswerKind(enum.Enum):
    ACCEPTED = "accepted"
    #: 429, 408, 5xx, a timeout or a dropped connection: send again in a later run
    RETRY = "retry"
    #: 400, 403, 422 or any other answer: sending the same request again cannot succeed
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class EndpointAnswer:
    outcome: AnswerKind
    #: the HTTP status, None when no answer came
    status: int | None
    #: the answer's body (shortened), or why no answer came
    detail: str
    #: seconds the endpoint asked to wait (``Retry-After``)
    retry_after: float | None = None


def classify(status: int) -> AnswerKind:
    if 200 <= status < 300:
        return AnswerKind.ACCEPTED
    if status in _RETRY_STATUSES or status >= 500:
        return AnswerKind.RETRY
    return AnswerKind.REJECTED


def request_body(host: str, key: str, key_location: str, urls: Sequence[str]) -> bytes:
    if not urls or len(urls) > MAX_URLS_PER_POST:
        raise ValueError(f"one POST carries 1 to {MAX_URLS_PER_POST} URLs, not {len(urls)}")
    body = {"host": host, "key": key, "keyLocation": key_location, "urlList": list(urls)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class IndexNowClient:
    """Sends URLs of one host to one IndexNow endpoint."""

    def __init__(
        self,
        endpoint: str,
        key: str,
        *,
        site_url: str,
        public_base_url: str,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self.endpoint = check_endpoint(endpoint)
        self.key = check_key(key)
        self.host = urlsplit(site_url).hostname or ""
        base_host = urlsplit(public_base_url).hostname or ""
        if base_host != self.host:
            raise IndexNowConfigError(
                "PUBLIC_BASE_URL",
                public_base_url,
                f"must be on the site's host {self.host} for IndexNow: the key file "
                "(keyLocation) must be on the host of the URLs it submits",
            )
        self.key_location = f"{public_base_url.rstrip('/')}/{key_file_name(key)}"
        self.timeout = timeout

    def post(
        self, urls: Sequence[str], now: float, *, budget: float | None = None
    ) -> EndpointAnswer:
        """One POST of ``urls`` (1 to 10,000 of the site's host), ended by its deadline: the
        client's timeout, or the ``budget`` of seconds the run has left if that is shorter.
        Never raises for the endpoint's behaviour: every answer, timeout or broken connection
        becomes an EndpointAnswer."""
        seconds = self.timeout if budget is None else max(0.0, min(self.timeout, budget))
        request = urllib.request.Request(
            self.endpoint,
            data=request_body(self.host, self.key, self.key_location, urls),
            headers={"Content-Type": "application/json; charset=utf-8"},
            method="POST",
        )
        try:
            with opener(Deadline(seconds)).open(request, timeout=self.timeout) as response:
                status = int(response.status)
                detail = response.read(DETAIL_CHARS).decode("utf-8", "replace")
                headers = response.headers
        except urllib.error.HTTPError as error:
            status = error.code
            detail = error.read(DETAIL_CHARS).decode("utf-8", "replace") if error.fp else ""
            headers = error.headers
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", None) or error
            return EndpointAnswer(
                AnswerKind.RETRY, None, f"no answer: {type(error).__name__}: {reason}"
            )
        retry_after = retry_after_seconds(headers.get("Retry-After") if headers else None, now)
        return EndpointAnswer(classify(status), status, detail, retry_after)
