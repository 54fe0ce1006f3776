"""One observer run: submit the indexes that are due, then observe every host and section.

The run reads what the last publish listed (``frame``), submits each host's index to the
engines turned on (``submissions``), then shares its time and its calls among the hosts: the
next step always goes to the host that has used the least of the run's time so far, and a
host's steps go to its sections in turn, so that every host and every section is observed in
every run, however many there are, and a slow site or a slow engine costs its own host's share
only. A host's first step reads the engines' status of its index (Search Console's
``sitemaps.list`` of the property once a run, and of the index with ``sitemapIndex=``; Bing's
``GetFeeds`` and ``GetFeedDetails``); a section's first step draws its sample (``sampling``);
each later step inspects one URL within the property's share of the day's budget (``budget``)
and checks its health on the site itself.

Nothing one URL or one answer holds can stop the run: each inspection and each check is
isolated, and what goes wrong is that URL's outcome (an ``error`` with its reason). A 429 with
a per-minute quota pauses the property's inspections for its ``Retry-After`` (other hosts and
the health checks go on meanwhile) and costs that call only; a daily one ends the property's
calls for the run. Every call is counted in the day's budget as it is made, and every text
kept is capped and redacted (no credential of the run in it). The figures go to the state
table (``records``) and to CloudWatch (``signals``).
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
from sitemap_updater.observe import latency
from sitemap_updater.observe.budget import BudgetLedger, RunBudget
from sitemap_updater.observe.exclusion import Excluded, Exclusions, due_again, review
from sitemap_updater.observe.figures import (
    bing_figures,
    history_entry,
    section_figures,
    sitemap_figures,
)
from sitemap_updater.observe.records import (
    REASON_CHARS,
    FiguresStore,
    HistoryStore,
    ItemTooLarge,
    Observation,
    ObservationStore,
    capped,
)
from sitemap_updater.observe.sampling import (
    RANDOM,
    RECENT,
    RECHECK_SECONDS,
    Drawn,
    HostFrame,
    Listed,
    draw,
    frames,
    read_listed,
)
from sitemap_updater.observe.settings import INSPECTION_MINUTE_QUOTA, ObserveConfig
from sitemap_updater.observe.signals import (
    alarm_figures,
    bing_feed_dict,
    emit_alarm_figures,
    emit_host,
    emit_section,
    log_section,
    sitemap_status_dict,
)
from sitemap_updater.observe.submissions import SUBMITTED, SubmissionLedger, Target, submit_all
from sitemap_updater.rebuild.state.published import PublishedStore
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
#: the problems a host's figures keep (each capped to ``records.REASON_CHARS``)
PROBLEMS_KEPT: Final = 20

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


@dataclass
class SectionRun:
    """One section in the run: its sample (drawn at its first turn) and what was done."""

    name: str
    observed: dict[str, Observation] = field(default_factory=dict)
    excluded: dict[str, Excluded] = field(default_factory=dict)
    #: the URLs to look at, in order; None until the sample is drawn
    queue: deque[Drawn] | None = None
    #: the excluded and suspect URLs to check again (health only)
    checks_again: deque[str] = field(default_factory=deque)
    #: URLs whose inspection waits for the property's pause to end
    deferred: list[Drawn] = field(default_factory=list)
    inspected: int = 0
    checked: int = 0


@dataclass
class HostRun:
    """One host in the run: its frame, its property's budget, and its share of the time."""

    frame: HostFrame
    prop: str
    budget: RunBudget
    health_left: int
    inspect_share: int
    health_share: int
    sections: list[SectionRun]
    order: int
    started: bool = False
    turn: int = 0
    used: float = 0.0
    problems: list[str] = field(default_factory=list)
    status: dict[str, Any] = field(default_factory=dict)
    #: Search Console's and Bing's status of each listed file, by key (this run's reads)
    files: dict[str, dict[str, Any]] | None = None
    bing_files: dict[str, dict[str, Any]] | None = None


class ObserveService:
    def __init__(
        self,
        config: ObserveConfig,
        *,
        dynamodb: Any,
        s3: Any,
        engines: Engines,
        clock: Callable[[], float] = time.time,
        remaining_seconds: Callable[[], float] = lambda: math.inf,
        rng: random.Random | None = None,
        check: Check = check_page,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._dynamodb = dynamodb
        self._s3 = s3
        self._engines = engines
        self._clock = clock
        self._remaining = remaining_seconds
        self._rng = rng or random.Random()
        self._check = check
        self._sleep = sleep
        self._monotonic = monotonic
        table = config.state_table_name
        self._observations = ObservationStore(dynamodb, table)
        self._figures = FiguresStore(dynamodb, table)
        self._history = HistoryStore(dynamodb, table)
        self._ledger = SubmissionLedger(dynamodb, table)
        self._exclusions = Exclusions(dynamodb, config.url_table_name, table)
        self._budgets = BudgetLedger(
            dynamodb, table, config.daily_api_calls, config.interval_minutes * 60
        )
        self._layout = Layout.of(config.site_url, config.section_rules, config.public_base_url)
        self._site_pacer = HostPacer(
            config.health_requests_per_second, clock=monotonic, sleep=sleep
        )
        self._api_pacer = HostPacer(INSPECTION_MINUTE_QUOTA / 60, clock=monotonic, sleep=sleep)
        #: per property: the pause of its inspections (monotonic end), the pauses so far, the
        #: answers missing in a row, and its sitemaps.list of this run
        self._paused: dict[str, float] = {}
        self._pauses: dict[str, int] = {}
        self._unavailable: dict[str, int] = {}
        self._listed: dict[str, list[SitemapStatus] | None] = {}
        self._now = 0.0
        self._previous: dict[tuple[str, str], dict[str, Any]] = {}
        self._submissions: list[Any] = []

    def _in_time(self, wait: float = 0.0) -> bool:
        return self._remaining() - wait > TIME_MARGIN_SECONDS

    def _kept(self, text: str) -> str:
        """A text to keep: redacted, then capped."""
        return capped(self._engines.redact(text), REASON_CHARS) or ""

    # --- the run --------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        now = self._now = self._clock()
        record = PublishedStore(self._dynamodb, self.config.state_table_name).load()
        host_frames = frames(record, self._layout)
        props = [self.config.property_of(h.origin) for h in host_frames]
        budgets = {prop: RunBudget(0) for prop in props}
        if self._engines.search_console is not None:
            budgets = {prop: self._budgets.open(prop, now) for prop in budgets}
        submitted = self._submit(host_frames, budgets, int(now))
        self._submissions = list(self._ledger.load().values())
        self._previous = self._figures.load_all()
        self._figures.delete_legacy()  # replaced by this run's
        hosts = [
            self._host_run(frame, prop, budgets[prop], props.count(prop), order)
            for order, (frame, prop) in enumerate(zip(host_frames, props, strict=True))
        ]
        self._share_out(hosts)
        sections: list[dict[str, Any]] = []
        host_figures = []
        for host in hosts:
            figures, of_sections = self._finish_host(host)
            host_figures.append(figures)
            sections += of_sections
        alarms = alarm_figures(
            sections, host_figures, search_console=self._engines.search_console is not None
        )
        emit_alarm_figures(alarms)
        return {
            "hosts": len(hosts),
            "sections": len(sections),
            "submissions": [f"{s.engine} {s.index_url}: {s.state}" for s in submitted],
            "search_console_calls": {prop: b.report() for prop, b in budgets.items()},
            "inspected": sum(s["inspected_this_run"] for s in sections),
            "health_checks": sum(s["checked_this_run"] for s in sections),
            "per_host": {
                h.frame.origin: {
                    "inspected": sum(s.inspected for s in h.sections),
                    "health_checks": sum(s.checked for s in h.sections),
                    "seconds": round(h.used, 3),
                }
                for h in hosts
            },
            "alarm_figures": alarms,
        }

    def _host_run(
        self, frame: HostFrame, prop: str, budget: RunBudget, sharing: int, order: int
    ) -> HostRun:
        names = sorted(frame.sections)
        google = self._engines.search_console is not None
        per_run = self._health_per_run()
        inspect = math.ceil(budget.allowed / max(1, sharing)) if google else 0
        return HostRun(
            frame=frame,
            prop=prop,
            budget=budget,
            health_left=per_run,
            inspect_share=math.ceil(inspect / len(names)) if names else 0,
            health_share=math.ceil(per_run / len(names)) if names else 0,
            sections=[SectionRun(name) for name in names],
            order=order,
        )

    def _health_per_run(self) -> int:
        return math.ceil(self.config.health_checks_per_day * self.config.interval_minutes / 1440)

    # --- submission ----------------------------------------------------------------------

    def _submit(self, hosts: list[HostFrame], budgets: dict[str, RunBudget], now: int) -> list[Any]:
        made = []
        google, bing = self._engines.search_console, self._engines.bing
        for host in hosts:
            if host.index_url is None or not self._in_time():
                continue  # not published yet: a later run submits it
            prop = self.config.property_of(host.origin)
            if google is not None:
                target = Target(host.index_url, prop)
                done = submit_all(
                    self._ledger,
                    "google",
                    google.submit,
                    [target],
                    now,
                    budgets[prop].take,
                    redact=self._kept,
                )
                budgets[prop].answered += sum(1 for s in done if s.state == SUBMITTED)
                made += done
            if bing is not None:
                target = Target(host.index_url, f"{host.origin}/")
                made += submit_all(
                    self._ledger, "bing", bing.submit_feed, [target], now, redact=self._kept
                )
        return made

    # --- sharing the run's time ------------------------------------------------------------

    def _share_out(self, hosts: list[HostRun]) -> None:
        """Step the hosts until their work is done or the run's time is up: each step to the
        host that has used the least time among those that can go on now; when every host
        with work left waits for a property's pause, wait for the first to end."""
        while self._in_time():
            waiting = [h for h in hosts if self._has_work(h)]
            if not waiting:
                return
            now = self._monotonic()
            ready = [h for h in waiting if self._ready(h, now)]
            if not ready:
                wake = min(self._paused.get(h.prop, now) for h in waiting) - now
                if not self._in_time(wake):
                    return
                self._sleep(max(0.0, wake))
                continue
            host = min(ready, key=lambda h: (h.used, h.order))
            started = self._monotonic()
            try:
                self._step(host)
            finally:
                host.used += self._monotonic() - started

    def _may_inspect(self, host: HostRun) -> bool:
        return self._engines.search_console is not None and host.budget.left > 0

    def _paused_now(self, host: HostRun, now: float | None = None) -> bool:
        return self._paused.get(host.prop, -math.inf) > (self._monotonic() if now is None else now)

    def _has_work(self, host: HostRun) -> bool:
        if not host.started:
            return True
        return any(
            s.queue is None
            or s.queue
            or (s.checks_again and host.health_left > 0)
            or (s.deferred and self._may_inspect(host))
            for s in host.sections
        )

    def _ready(self, host: HostRun, now: float) -> bool:
        if not host.started:
            return True
        paused = self._paused_now(host, now)
        return any(
            s.queue is None
            or s.queue
            or (s.checks_again and host.health_left > 0)
            or (s.deferred and self._may_inspect(host) and not paused)
            for s in host.sections
        )

    def _step(self, host: HostRun) -> None:
        """One step of ``host``: its first reads the engines' status of its index; each later
        one goes to the next section in turn that has something to do."""
        if not host.started:
            host.started = True
            self._index_status(host)
            return
        count = len(host.sections)
        for offset in range(count):
            section = host.sections[(host.turn + offset) % count]
            if self._advance(host, section):
                host.turn = (host.turn + offset + 1) % count
                return

    def _advance(self, host: HostRun, section: SectionRun) -> bool:
        """Do the next thing of ``section``; False when it has nothing to do now."""
        if section.queue is None:
            self._draw(host, section)
            return True
        if section.checks_again and host.health_left > 0:
            url = section.checks_again.popleft()
            seen = section.observed.get(url) or Observation(url, RANDOM)
            self._save(host, section, self._health(host, section, seen))
            return True
        while section.queue:
            if self._look(host, section, section.queue.popleft()):
                return True
        if section.deferred and self._may_inspect(host) and not self._paused_now(host):
            section.queue.extend(section.deferred)
            section.deferred.clear()
            while section.queue:
                if self._look(host, section, section.queue.popleft()):
                    return True
        return False

    # --- a host's index ----------------------------------------------------------------------

    def _index_status(self, host: HostRun) -> None:
        """Search Console's and Bing's status of the host's index and of its files."""
        google, bing = self._engines.search_console, self._engines.bing
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
                host.problems.append(self._kept(str(error)))
            except Exception as error:  # an answer no reading survives: this host's figure only
                host.problems.append(self._kept(f"bing: {type(error).__name__}: {error}"))

    def _console_call(self, host: HostRun, call: Callable[[], Any]) -> Any:
        """One Search Console call of the host's property within its budget (None: not made
        or failed, the failure in the host's problems)."""
        if not host.budget.take():
            return None
        try:
            answer = call()
        except QuotaExhausted as error:
            self._refused(host, error)
        except CredentialsRefused as error:
            host.budget.stop("refused", self._kept(error.reason))
            host.problems.append(self._kept(str(error)))
        except EngineError as error:
            host.problems.append(self._kept(str(error)))
        except Exception as error:  # an answer no reading survives: this host's figure only
            host.problems.append(self._kept(f"search-console: {type(error).__name__}: {error}"))
        else:
            host.budget.answered += 1
            return answer
        return None

    def _console_index(self, host: HostRun, index: str) -> dict[str, Any] | None:
        google = self._engines.search_console
        assert google is not None
        if host.prop not in self._listed:  # once a property and run
            self._listed[host.prop] = self._console_call(host, lambda: google.sitemaps(host.prop))
        found = next((s for s in self._listed[host.prop] or [] if s.path == index), None)
        return None if found is None else sitemap_status_dict(found, self._now)

    def _console_files(self, host: HostRun, index: str) -> dict[str, dict[str, Any]] | None:
        google = self._engines.search_console
        assert google is not None
        listed = self._console_call(host, lambda: google.sitemaps(host.prop, index))
        if listed is None:
            return None
        return {s.path: sitemap_status_dict(s, self._now) for s in listed}

    # --- a section's sample --------------------------------------------------------------------

    def _draw(self, host: HostRun, section: SectionRun) -> None:
        """Load the section's observations and exclusions and draw its sample."""
        origin, now = host.frame.origin, self._now
        section.observed = self._observations.load(origin, section.name, now)
        section.excluded = self._exclusions.load(origin, section.name)
        if self.config.exclude_unhealthy and host.health_share > 0:  # first, its whole share
            again = due_again(section.excluded, section.observed, now, host.health_share)
            section.checks_again = deque(again)
        google = self._engines.search_console is not None
        size = 2 * max(host.inspect_share, host.health_share)
        awaiting = sorted(
            (o for o in section.observed.values() if google and latency.awaiting(o, now)),
            key=lambda o: (o.inspected_at or 0.0, o.url),
        )
        files = host.frame.sections[section.name]
        read: dict[str, list[Listed]] = {}

        def reader(key: str) -> list[Listed]:
            if key not in read:
                try:
                    read[key] = read_listed(self._s3, self.config.bucket_name, key)
                except Exception as error:  # a file gone or unreadable: its URLs only
                    read[key] = []
                    host.problems.append(self._kept(f"{key} cannot be read: {error}"))
            return read[key]

        drawn = draw(
            files,
            reader,
            size,
            section.observed,
            now,
            self._rng,
            awaiting=[Drawn(o.url, o.changed_at, RECENT) for o in awaiting],
        )
        section.queue = deque(drawn)

    # --- one URL ------------------------------------------------------------------------------

    def _look(self, host: HostRun, section: SectionRun, item: Drawn) -> bool:
        """Inspect and check ``item`` as far as the budgets allow; False when nothing could
        be done for it now (left for later, or for no run)."""
        seen = section.observed.get(item.url) or Observation(url=item.url, stratum=item.stratum)
        seen = latency.with_change(seen.with_changes(stratum=item.stratum), item.changed_at)
        inspect = self._may_inspect(host)
        check = host.health_left > 0 and self._check_due(seen)
        deferred = inspect and self._paused_now(host)
        if not check and (deferred or not inspect):
            if deferred:
                section.deferred.append(item)
            return False
        if inspect and not deferred:
            seen, retry = self._inspect(host, section, seen)
            deferred = retry
        if check:
            seen = self._health(host, section, seen)
        if deferred:
            section.deferred.append(item)
        self._save(host, section, seen)
        return True

    def _check_due(self, seen: Observation) -> bool:
        if seen.checked_at is None:
            return True
        if seen.changed_at is not None and seen.changed_at > seen.checked_at:
            return True
        return self._now - seen.checked_at >= RECHECK_SECONDS

    def _save(self, host: HostRun, section: SectionRun, seen: Observation) -> None:
        seen = seen.capped()  # the figures count what is stored, as it is stored
        section.observed[seen.url] = seen
        try:
            self._observations.save(host.frame.origin, section.name, seen, self._now)
        except ItemTooLarge as error:  # cannot happen with capped texts; the URL's loss only
            host.problems.append(self._kept(f"{seen.url}: {error}"))

    def _inspect(
        self, host: HostRun, section: SectionRun, seen: Observation
    ) -> tuple[Observation, bool]:
        """One inspection of ``seen``: the observation with its answer or its error, and
        whether to ask again once the property's pause has ended."""
        google = self._engines.search_console
        if google is None or not host.budget.take():
            return seen, False
        self._api_pacer.wait(host.prop)
        try:
            found = google.inspect(host.prop, seen.url)
        except QuotaExhausted as error:
            return seen, self._refused(host, error)
        except CredentialsRefused as error:
            host.budget.stop("refused", self._kept(error.reason))
            host.problems.append(self._kept(str(error)))
            return seen.with_changes(inspection_error=self._kept(str(error))), False
        except EngineUnavailable as error:
            missing = self._unavailable[host.prop] = self._unavailable.get(host.prop, 0) + 1
            if missing >= UNAVAILABLE_IN_A_ROW:
                host.budget.stop("unavailable", self._kept(error.reason))
            return seen.with_changes(inspection_error=self._kept(str(error))), False
        except EngineError as error:
            return seen.with_changes(inspection_error=self._kept(str(error))), False
        except Exception as error:  # an answer no reading survives costs its own URL only
            reason = self._kept(f"{type(error).__name__}: {error}")
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

    def _refused(self, host: HostRun, error: QuotaExhausted) -> bool:
        """Record a quota refusal; True when the property's inspections pause for its wait
        (a per-minute quota, or one that does not say, asking for a short enough wait)."""
        budget = host.budget
        window = error.window or "unknown"
        budget.refused[window] = budget.refused.get(window, 0) + 1
        reason = self._kept(str(error))
        wait = DEFAULT_RETRY_SECONDS if error.retry_after is None else error.retry_after
        pauses = self._pauses.get(host.prop, 0)
        if window == PER_DAY or wait > MAX_RETRY_SECONDS:
            budget.stop(PER_DAY if window == PER_DAY else window, reason)
        elif pauses >= MAX_PAUSES or not self._in_time(wait):
            budget.stop(window, reason)
        else:
            self._pauses[host.prop] = pauses + 1
            self._paused[host.prop] = self._monotonic() + wait
            budget.waited += wait
            return True
        host.problems.append(reason)
        return False

    def _health(self, host: HostRun, section: SectionRun, seen: Observation) -> Observation:
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
            health_reason=None if page.reason is None else self._kept(page.reason),
            failures=seen.failures + 1 if page.problem else 0,
        )

    # --- figures ------------------------------------------------------------------------------

    def _finish_host(self, host: HostRun) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Write the figures of the host and of each of its sections."""
        origin, now = host.frame.origin, self._now
        previous = self._previous.get((origin, ""), {})
        sections = [self._finish_section(host, section) for section in host.sections]
        index = host.status.get("index")
        figures = {
            "property": host.prop,
            "index_url": host.frame.index_url,
            "index": index,
            "index_download_age_hours": self._download_age(host, index),
            "index_errors": None if index is None else index["errors"],
            "index_warnings": None if index is None else index["warnings"],
            "bing_index": host.status.get("bing_index", previous.get("bing_index")),
            "published": sum(host.frame.published(s.name) for s in host.sections),
            "submissions": self._submissions_of(host),
            "search_console_calls": host.budget.report(),
            "inspected_this_run": sum(s.inspected for s in host.sections),
            "checked_this_run": sum(s.checked for s in host.sections),
            "problems": host.problems[:PROBLEMS_KEPT],
            "computed_at": int(now),
        }
        self._figures.save(origin, "", figures)
        if self.config.section_metrics:
            emit_host(origin, figures)
        return figures, sections

    def _finish_section(self, host: HostRun, section: SectionRun) -> dict[str, Any]:
        origin, now = host.frame.origin, self._now
        if section.queue is None:  # the run's time ended before its turn: its window still
            section.observed = self._observations.load(origin, section.name, now)
            section.excluded = self._exclusions.load(origin, section.name)
        previous = self._previous.get((origin, section.name), {})
        published = host.frame.published(section.name)
        exclusions = review(
            self._exclusions,
            origin,
            section.name,
            section.excluded,
            section.observed,
            turned_on=self.config.exclude_unhealthy,
            after_failures=self.config.exclude_after_failures,
            now=now,
        )
        listed = [o for url, o in section.observed.items() if url not in section.excluded]
        figures = section_figures(published, listed, now)
        keys = host.frame.sections[section.name]
        urls = {self._layout.url_of(key) for key in keys}
        figures.update(self._file_figures(host.files, urls, previous, sitemap_figures, now))
        figures.update(self._file_figures(host.bing_files, urls, previous, bing_figures, now))
        figures.update(exclusions)
        figures["inspected_this_run"] = section.inspected
        figures["checked_this_run"] = section.checked
        self._figures.save(origin, section.name, figures)
        self._history.append(origin, section.name, history_entry(figures, now), now)
        log_section(origin, section.name, figures)
        if self.config.section_metrics:
            emit_section(origin, section.name, figures)
        return figures

    @staticmethod
    def _file_figures(
        read: Mapping[str, Mapping[str, Any]] | None,
        urls: set[str],
        previous: Mapping[str, Any],
        figures_of: Callable[[Sequence[Mapping[str, Any]], float], dict[str, Any]],
        now: float,
    ) -> dict[str, Any]:
        """An engine's figures of a section's files, from this run's read of them, else as
        the last run that read them had them."""
        empty = figures_of([], now)
        if read is None:
            return {name: previous.get(name, value) for name, value in empty.items()}
        return figures_of([status for url, status in read.items() if url in urls], now)

    def _download_age(self, host: HostRun, index: Mapping[str, Any] | None) -> Any:
        """Hours since Google last downloaded the index, or since it was submitted to Google
        when it never has (None: not submitted)."""
        if index is not None and index.get("last_downloaded") is not None:
            return round((self._now - index["last_downloaded"]) / 3600, 2)
        for submission in self._submissions:
            ours = submission.engine == "google" and submission.index_url == host.frame.index_url
            if ours and submission.submitted_at is not None:
                return round((self._now - submission.submitted_at) / 3600, 2)
        return None

    def _submissions_of(self, host: HostRun) -> list[dict[str, Any]]:
        return [
            {"engine": s.engine, "state": s.state, "attempts": s.attempts, "reason": s.reason}
            for s in self._submissions
            if s.index_url == host.frame.index_url
        ]
