"""The engines' calls of one run, each isolated: the status of a host's index (Search Console's
``sitemaps.list``, once a property, and with ``sitemapIndex=``; Bing's ``GetFeeds`` and
``GetFeedDetails``), one URL's inspection, one page's health check.

Nothing one answer or one page holds goes further than its own figure: an inspection that
fails is that URL's ``inspection_error``, a check that fails its ``error``, each with its
reason, redacted and capped. A 429 with a per-minute quota pauses the property's inspections
for its ``Retry-After`` (the refused URL is asked again after it) and costs that call only; a
daily one, refused credentials, or answers missing three times in a row end the property's
calls for the run (``budget.RunBudget.stop``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.engines.exceptions import (
    PER_DAY,
    CredentialsRefused,
    EngineError,
    EngineUnavailable,
    QuotaExhausted,
)
from sitemap_updater.engines.health import PageHealth, check_page
from sitemap_updater.engines.pacing import HostPacer
from sitemap_updater.engines.redaction import redact
from sitemap_updater.observe.estimates import latency
from sitemap_updater.observe.records import REASON_CHARS, Observation, capped
from sitemap_updater.observe.run.state import HostRun, SectionRun
from sitemap_updater.observe.settings import INSPECTION_MINUTE_QUOTA, ObserveConfig
from sitemap_updater.observe.signals import bing_feed_dict, sitemap_status_dict
from sitemap_updater.store.spaces import Layout

if TYPE_CHECKING:
    # the engines' clients are made by ``credentials.engine_clients`` only for the engines turned
    # on: google-auth and its cryptography load then, never in a cold start without them
    from sitemap_updater.engines.bing import BingWebmaster
    from sitemap_updater.engines.console_answers import SitemapStatus
    from sitemap_updater.engines.search_console import SearchConsole

#: a run starts no request with less than this left of its time
TIME_MARGIN_SECONDS: Final = 30.0
#: a per-minute quota refusal is waited out (its Retry-After; this long when it names none) ...
DEFAULT_RETRY_SECONDS: Final = 60.0
#: ... when it asks for at most this long, and at most this many times a property and run
MAX_RETRY_SECONDS: Final = 120.0
MAX_PAUSES: Final = 3
#: a property's calls end for the run after this many in a row that got no answer (5xx, none)
UNAVAILABLE_IN_A_ROW: Final = 3

Check = Callable[..., PageHealth]


@dataclass
class Engines:
    """The engine clients a run uses; None: that engine is off."""

    search_console: SearchConsole | None = None
    bing: BingWebmaster | None = None

    def redact(self, text: str) -> str:
        """``text`` without any credential of the engines or any Bearer value."""
        secrets: list[str] = []
        for client in (self.search_console, self.bing):
            if client is not None:
                secrets += client.secrets()
        return redact(text, secrets)


class EngineCalls:
    """The engines' calls of a run at ``now`` (epoch seconds), within what ``remaining``
    (seconds) leaves of its time; the paced waits on ``sleep``, measured on ``monotonic``."""

    def __init__(
        self,
        config: ObserveConfig,
        engines: Engines,
        layout: Layout,
        *,
        now: float,
        remaining: Callable[[], float] = lambda: math.inf,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        check: Check = check_page,
    ) -> None:
        self.config = config
        self.engines = engines
        self._layout = layout
        self._now = now
        self._remaining = remaining
        self._monotonic = monotonic
        self._check = check
        self._site_pacer = HostPacer(
            config.health_requests_per_second, clock=monotonic, sleep=sleep
        )
        self._api_pacer = HostPacer(INSPECTION_MINUTE_QUOTA / 60, clock=monotonic, sleep=sleep)
        #: per property: the pause of its inspections (monotonic end), the pauses so far, the
        #: answers missing in a row, and its sitemaps.list of this run
        self.paused: dict[str, float] = {}
        self._pauses: dict[str, int] = {}
        self._unavailable: dict[str, int] = {}
        self._listed: dict[str, list[SitemapStatus] | None] = {}

    def in_time(self, wait: float = 0.0) -> bool:
        """Whether a request (after ``wait`` seconds) may start with the margin left."""
        return self._remaining() - wait > TIME_MARGIN_SECONDS

    def kept(self, text: str) -> str:
        """A text to keep: redacted, then capped."""
        return capped(self.engines.redact(text), REASON_CHARS) or ""

    def may_inspect(self, host: HostRun) -> bool:
        return self.engines.search_console is not None and host.budget.left > 0

    def paused_now(self, host: HostRun, now: float | None = None) -> bool:
        """Whether the host's property's inspections wait for a pause to end."""
        return self.paused.get(host.prop, -math.inf) > (self._monotonic() if now is None else now)

    # --- a host's index ----------------------------------------------------------------------

    def index_status(self, host: HostRun) -> None:
        """Search Console's and Bing's status of the host's index and of its files."""
        google, bing = self.engines.search_console, self.engines.bing
        index = host.frame.index_url
        if index is None:
            return
        if google is not None:
            host.status["index"] = self._console_index(host, index)
            host.files = self._console_files(host, index)
        if bing is not None:
            site = f"{host.frame.origin}/"
            try:
                found = next((f for f in bing.feeds(site) if f.url == index), None)
                host.status["bing_index"] = None if found is None else bing_feed_dict(found)
                host.bing_files = {
                    feed.url: bing_feed_dict(feed) for feed in bing.feed_details(site, index)
                }
            except EngineError as error:
                host.problems.append(self.kept(str(error)))
            except Exception as error:  # an answer no reading survives: this host's figure only
                host.problems.append(self.kept(f"bing: {type(error).__name__}: {error}"))

    def _console_call(self, host: HostRun, call: Callable[[], Any]) -> Any:
        """One Search Console call of the host's property within its budget (None: not made
        or failed, the failure in the host's problems)."""
        if not host.budget.take():
            return None
        try:
            answer = call()
        except QuotaExhausted as error:
            self.refused(host, error)
        except CredentialsRefused as error:
            host.budget.stop("refused", self.kept(error.reason))
            host.problems.append(self.kept(str(error)))
        except EngineError as error:
            host.problems.append(self.kept(str(error)))
        except Exception as error:  # an answer no reading survives: this host's figure only
            host.problems.append(self.kept(f"search-console: {type(error).__name__}: {error}"))
        else:
            host.budget.answered += 1
            return answer
        return None

    def _console_index(self, host: HostRun, index: str) -> dict[str, Any] | None:
        google = self.engines.search_console
        assert google is not None
        if host.prop not in self._listed:  # once a property and run
            self._listed[host.prop] = self._console_call(host, lambda: google.sitemaps(host.prop))
        found = next((s for s in self._listed[host.prop] or [] if s.path == index), None)
        return None if found is None else sitemap_status_dict(found, self._now)

    def _console_files(self, host: HostRun, index: str) -> dict[str, dict[str, Any]] | None:
        google = self.engines.search_console
        assert google is not None
        listed = self._console_call(host, lambda: google.sitemaps(host.prop, index))
        if listed is None:
            return None
        return {s.path: sitemap_status_dict(s, self._now) for s in listed}

    # --- one URL ----------------------------------------------------------------------------

    def inspect(
        self, host: HostRun, section: SectionRun, seen: Observation
    ) -> tuple[Observation, bool]:
        """One inspection of ``seen``: the observation with its answer or its error, and
        whether to ask again once the property's pause has ended."""
        google = self.engines.search_console
        if google is None or not host.budget.take():
            return seen, False
        self._api_pacer.wait(host.prop)
        try:
            found = google.inspect(host.prop, seen.url)
        except QuotaExhausted as error:
            return seen, self.refused(host, error)
        except CredentialsRefused as error:
            host.budget.stop("refused", self.kept(error.reason))
            host.problems.append(self.kept(str(error)))
            return seen.with_changes(inspection_error=self.kept(str(error))), False
        except EngineUnavailable as error:
            missing = self._unavailable[host.prop] = self._unavailable.get(host.prop, 0) + 1
            if missing >= UNAVAILABLE_IN_A_ROW:
                host.budget.stop("unavailable", self.kept(error.reason))
            return seen.with_changes(inspection_error=self.kept(str(error))), False
        except EngineError as error:
            return seen.with_changes(inspection_error=self.kept(str(error))), False
        except Exception as error:  # an answer no reading survives costs its own URL only
            reason = self.kept(f"{type(error).__name__}: {error}")
            return seen.with_changes(inspection_error=reason), False
        self._unavailable[host.prop] = 0
        host.budget.answered += 1
        section.inspected += 1
        crawled = found.last_crawl_time.timestamp() if found.last_crawl_time else None
        answered = seen.with_changes(
            inspected_at=self._now,
            verdict=found.verdict,
            coverage_state=found.coverage_state,
            google_canonical=found.google_canonical,
            user_canonical=found.user_canonical,
            crawled_at=crawled,
            inspection_error=None,
        )
        return latency.with_answer(answered, self._now, crawled), False

    def refused(self, host: HostRun, error: QuotaExhausted) -> bool:
        """Record a quota refusal; True when the property's inspections pause for its wait
        (a per-minute quota, or one that does not say, asking for a short enough wait)."""
        budget = host.budget
        window = error.window or "unknown"
        budget.refused[window] = budget.refused.get(window, 0) + 1
        reason = self.kept(str(error))
        wait = DEFAULT_RETRY_SECONDS if error.retry_after is None else error.retry_after
        pauses = self._pauses.get(host.prop, 0)
        if window == PER_DAY or wait > MAX_RETRY_SECONDS:
            budget.stop(PER_DAY if window == PER_DAY else window, reason)
        elif pauses >= MAX_PAUSES or not self.in_time(wait):
            budget.stop(window, reason)
        else:
            self._pauses[host.prop] = pauses + 1
            self.paused[host.prop] = self._monotonic() + wait
            budget.waited += wait
            return True
        host.problems.append(reason)
        return False

    def health(self, host: HostRun, section: SectionRun, seen: Observation) -> Observation:
        host.health_left -= 1
        section.checked += 1
        try:
            page = self._check(
                seen.url,
                listed_hosts=self._layout.sites,
                deadline_seconds=self.config.deadline_seconds,
                pacer=self._site_pacer,
            )
        except Exception as error:  # a page no check survives costs its own URL only
            reason = f"{type(error).__name__}: {error}"
            page = PageHealth(seen.url, None, None, False, None, False, "error", reason)
        return seen.with_changes(
            checked_at=self._now,
            status=page.status,
            redirect_to=page.redirect_to,
            problem=page.problem,
            health_reason=None if page.reason is None else self.kept(page.reason),
            failures=seen.failures + 1 if page.problem else 0,
        )
