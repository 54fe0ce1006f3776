"""One observer run: submit the indexes that are due, then observe each host and section.

The run reads what the last publish listed (``frame``), submits each host's index to the
engines turned on (``submissions``), reads Search Console's status of the index and of a few of
its files, draws each section's sample (``sampling``), inspects it within the property's share
of the day's budget (``budget``) and checks its health on the site itself, then writes the
figures (``figures``) to the state table and to CloudWatch (``signals``). An engine that fails
costs only its own figures: the run goes on and says so in its report.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.engines.exceptions import EngineError, QuotaExhausted
from sitemap_updater.engines.health import PageHealth, check_page
from sitemap_updater.engines.pacing import HostPacer
from sitemap_updater.observe.budget import BudgetLedger, RunBudget
from sitemap_updater.observe.exclusion import Exclusions, review
from sitemap_updater.observe.figures import section_figures
from sitemap_updater.observe.records import FiguresStore, Observation, ObservationStore
from sitemap_updater.observe.sampling import (
    RANDOM,
    Drawn,
    HostFrame,
    draw,
    frames,
    pick_files,
    read_listed,
    split_evenly,
)
from sitemap_updater.observe.settings import INSPECTION_MINUTE_QUOTA, ObserveConfig
from sitemap_updater.observe.signals import (
    emit_alarm_figures,
    emit_host,
    emit_section,
    log_section,
    sitemap_status_dict,
)
from sitemap_updater.observe.submissions import SubmissionLedger, Target, submit_all
from sitemap_updater.rebuild.state.published import PublishedStore
from sitemap_updater.store.spaces import Layout

if TYPE_CHECKING:
    # the engines' clients are made by ``credentials.engine_clients`` only for the engines turned
    # on: google-auth and its cryptography load then, never in a cold start without them
    from sitemap_updater.engines.bing import BingWebmaster
    from sitemap_updater.engines.console_answers import Inspection
    from sitemap_updater.engines.search_console import SearchConsole

#: a run starts no request with less than this left of its time
TIME_MARGIN_SECONDS: Final = 30.0
#: at most this share of a run's calls goes to reading the files' status
FILE_STATUS_SHARE: Final = 0.1

Check = Callable[..., PageHealth]


@dataclass
class Engines:
    """The engine clients a run uses; None: that engine is off."""

    search_console: SearchConsole | None = None
    bing: BingWebmaster | None = None


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
    ) -> None:
        self.config = config
        self._dynamodb = dynamodb
        self._s3 = s3
        self._engines = engines
        self._clock = clock
        self._remaining = remaining_seconds
        self._rng = rng or random.Random()
        self._check = check
        table = config.state_table_name
        self._observations = ObservationStore(dynamodb, table)
        self._figures = FiguresStore(dynamodb, table)
        self._ledger = SubmissionLedger(dynamodb, table)
        self._exclusions = Exclusions(dynamodb, config.url_table_name, table)
        self._budgets = BudgetLedger(
            dynamodb, table, config.daily_api_calls, config.interval_minutes * 60
        )
        self._layout = Layout.of(config.site_url, config.section_rules, config.public_base_url)
        self._site_pacer = HostPacer(config.health_requests_per_second, sleep=sleep)
        self._api_pacer = HostPacer(INSPECTION_MINUTE_QUOTA / 60, sleep=sleep)
        self._spent: set[str] = set()  # properties whose quota ran out in this run

    def _in_time(self) -> bool:
        return self._remaining() > TIME_MARGIN_SECONDS

    def run(self) -> dict[str, Any]:
        now = self._clock()
        record = PublishedStore(self._dynamodb, self.config.state_table_name).load()
        hosts = frames(record, self._layout)
        budgets = {self.config.property_of(h.origin): RunBudget(0) for h in hosts}
        if self._engines.search_console is not None:
            budgets = {prop: self._budgets.open(prop, now) for prop in budgets}
        submitted = self._submit(hosts, budgets, int(now))
        previous = self._figures.load_all()
        sections: list[dict[str, Any]] = []
        host_figures = []
        for host in hosts:
            budget = budgets[self.config.property_of(host.origin)]
            figures, of_sections = self._observe_host(host, budget, previous, now)
            host_figures.append(figures)
            sections += of_sections
        for prop, budget in budgets.items():
            self._budgets.close(prop, budget, now)
        alarms = emit_alarm_figures(sections, host_figures)
        return {
            "hosts": len(hosts),
            "sections": len(sections),
            "submissions": [f"{s.engine} {s.index_url}: {s.state}" for s in submitted],
            "search_console_calls": {prop: b.spent for prop, b in budgets.items()},
            "inspected": sum(s["inspected_this_run"] for s in sections),
            "health_checks": sum(s["checked_this_run"] for s in sections),
            "alarm_figures": alarms,
        }

    # --- submission ----------------------------------------------------------------------

    def _submit(self, hosts: list[HostFrame], budgets: dict[str, RunBudget], now: int) -> list[Any]:
        made = []
        google, bing = self._engines.search_console, self._engines.bing
        for host in hosts:
            if host.index_url is None:
                continue  # not published yet: a later run submits it
            prop = self.config.property_of(host.origin)
            if google is not None:
                target = Target(host.index_url, prop)
                made += submit_all(
                    self._ledger, "google", google.submit, [target], now, budgets[prop].take
                )
            if bing is not None:
                target = Target(host.index_url, f"{host.origin}/")
                made += submit_all(self._ledger, "bing", bing.submit_feed, [target], now)
        return made

    # --- a host --------------------------------------------------------------------------

    def _observe_host(
        self,
        host: HostFrame,
        budget: RunBudget,
        previous: dict[tuple[str, str], dict[str, Any]],
        now: float,
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        prop = self.config.property_of(host.origin)
        known = previous.get((host.origin, ""), {})
        problems: list[str] = []
        index = self._index_status(host, prop, budget, problems, now)
        files = self._file_statuses(host, prop, budget, dict(known.get("files", {})), problems, now)
        names = sorted(host.sections)
        inspect = split_evenly(budget.left, len(names))
        health = split_evenly(self._health_per_run(), len(names))
        sections = [
            self._observe_section(host, name, files, inspect[i], health[i], budget, now)
            for i, name in enumerate(names)
        ]
        figures = {
            "property": prop,
            "index_url": host.index_url,
            "index": index,
            "index_download_age_hours": self._download_age(host, index, now),
            "index_errors": None if index is None else index["errors"],
            "index_warnings": None if index is None else index["warnings"],
            "published": sum(host.published(name) for name in names),
            "submissions": self._submissions_of(host),
            "files": files,
            "problems": problems,
            "computed_at": int(now),
        }
        self._figures.save(host.origin, "", figures)
        if self.config.section_metrics:
            emit_host(host.origin, figures)
        return figures, sections

    def _health_per_run(self) -> int:
        return math.ceil(self.config.health_checks_per_day * self.config.interval_minutes / 1440)

    def _index_status(
        self, host: HostFrame, prop: str, budget: RunBudget, problems: list[str], now: float
    ) -> dict[str, Any] | None:
        google = self._engines.search_console
        if google is None or host.index_url is None or not budget.take():
            return None
        try:
            listed = google.sitemaps(prop)
        except EngineError as error:
            problems.append(str(error))
            return None
        found = next((s for s in listed if s.path == host.index_url), None)
        return None if found is None else sitemap_status_dict(found, now)

    def _file_statuses(
        self,
        host: HostFrame,
        prop: str,
        budget: RunBudget,
        files: dict[str, dict[str, Any]],
        problems: list[str],
        now: float,
    ) -> dict[str, dict[str, Any]]:
        """Search Console's status of each file, the least recently read ones read again."""
        listed = {key for section in host.sections.values() for key in section}
        files = {key: status for key, status in files.items() if key in listed}
        google = self._engines.search_console
        if google is None:
            return files
        order = sorted(listed, key=lambda key: (files.get(key, {}).get("checked_at", 0), key))
        for key in order[: max(1, int(budget.left * FILE_STATUS_SHARE))]:
            if prop in self._spent or not budget.take():
                break
            try:
                status = google.sitemap(prop, self._layout.url_of(key))
            except QuotaExhausted as error:
                self._spent.add(prop)
                problems.append(str(error))
            except EngineError as error:  # 404: Google has not read the file from the index yet
                files[key] = {"unknown": True, "checked_at": int(now), "reason": error.reason}
            else:
                files[key] = sitemap_status_dict(status, now)
        return files

    def _download_age(self, host: HostFrame, index: dict[str, Any] | None, now: float) -> Any:
        """Hours since Google last downloaded the index, or since it was submitted to Google
        when it never has (None: not submitted)."""
        if index is not None and index.get("last_downloaded") is not None:
            return round((now - index["last_downloaded"]) / 3600, 2)
        for submission in self._ledger.load().values():
            ours = submission.engine == "google" and submission.index_url == host.index_url
            if ours and submission.submitted_at is not None:
                return round((now - submission.submitted_at) / 3600, 2)
        return None

    def _submissions_of(self, host: HostFrame) -> list[dict[str, Any]]:
        return [
            {"engine": s.engine, "state": s.state, "attempts": s.attempts, "reason": s.reason}
            for s in self._ledger.load().values()
            if s.index_url == host.index_url
        ]

    # --- a section -----------------------------------------------------------------------

    def _observe_section(
        self,
        host: HostFrame,
        section: str,
        files: dict[str, dict[str, Any]],
        inspect: int,
        health: int,
        budget: RunBudget,
        now: float,
    ) -> dict[str, Any]:
        observed = self._observations.load(host.origin, section, now)
        drawn = self._draw(host, section, max(inspect, health), observed, now)
        inspected = checked = 0
        for item in drawn:
            if not self._in_time():
                break
            seen = observed.get(item.url) or Observation(url=item.url, stratum=item.stratum)
            seen = seen.with_changes(stratum=item.stratum, changed_at=item.changed_at)
            if inspected < inspect:
                seen, asked = self._inspect(seen, self.config.property_of(host.origin), budget, now)
                inspected += asked
            if checked < health:
                seen = self._health(seen, now)
                checked += 1
            self._observations.save(host.origin, section, seen, now)
            observed[item.url] = seen
        exclusions, checked_again = self._exclude(host.origin, section, observed, health, now)
        mine = {key: files[key] for key in host.sections[section] if key in files}
        figures = section_figures(host.published(section), mine, observed.values(), now)
        figures.update(exclusions)
        self._figures.save(host.origin, section, figures)
        log_section(host.origin, section, figures)
        if self.config.section_metrics:
            emit_section(host.origin, section, figures)
        return {
            **figures,
            "inspected_this_run": inspected,
            "checked_this_run": checked + checked_again,
        }

    def _exclude(
        self, origin: str, section: str, observed: dict[str, Observation], health: int, now: float
    ) -> tuple[dict[str, Any], int]:
        """The exclusions' review (``exclusion.review``), each re-check a health check saved
        with the section's observations; the figures, and the checks made."""

        def recheck(url: str) -> Observation | None:
            if not self._in_time():
                return None
            seen = self._health(observed.get(url) or Observation(url, RANDOM), now)
            self._observations.save(origin, section, seen, now)
            return seen

        return review(
            self._exclusions,
            origin,
            section,
            observed,
            turned_on=self.config.exclude_unhealthy,
            after_failures=self.config.exclude_after_failures,
            rechecks=max(1, health),
            recheck=recheck,
            now=now,
        )

    def _draw(
        self, host: HostFrame, section: str, size: int, observed: dict[str, Observation], now: float
    ) -> list[Drawn]:
        if size <= 0 or not self._in_time():
            return []
        newest, drawn = pick_files(host.sections[section], self._rng)
        if newest is None or drawn is None:
            return []
        recent = read_listed(self._s3, self.config.bucket_name, newest)
        uniform = (
            recent if drawn == newest else read_listed(self._s3, self.config.bucket_name, drawn)
        )
        return draw(recent, uniform, size, observed, now, self._rng)

    def _inspect(
        self, seen: Observation, prop: str, budget: RunBudget, now: float
    ) -> tuple[Observation, int]:
        google = self._engines.search_console
        if google is None or prop in self._spent or not budget.take():
            return seen, 0
        self._api_pacer.wait(prop)
        try:
            found: Inspection = google.inspect(prop, seen.url)
        except QuotaExhausted:
            self._spent.add(prop)
            return seen, 1
        except EngineError:
            return seen, 1
        crawled = found.last_crawl_time.timestamp() if found.last_crawl_time else None
        return seen.with_changes(
            inspected_at=now,
            verdict=found.verdict,
            coverage_state=found.coverage_state,
            google_canonical=found.google_canonical,
            user_canonical=found.user_canonical,
            crawled_at=crawled,
        ), 1

    def _health(self, seen: Observation, now: float) -> Observation:
        page = self._check(
            seen.url,
            listed_hosts=self._layout.sites,
            deadline_seconds=self.config.deadline_seconds,
            pacer=self._site_pacer,
        )
        return seen.with_changes(
            checked_at=now,
            status=page.status,
            redirect_to=page.redirect_to,
            problem=page.problem,
            failures=seen.failures + 1 if page.problem else 0,
        )
