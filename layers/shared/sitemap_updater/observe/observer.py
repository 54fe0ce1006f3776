"""One observer run: submit the indexes that are due, then observe every host and section.

The run reads what the last publish listed (``frame``), submits each host's index to the
engines turned on (``submissions``), then shares its time and its calls among the hosts and
their sections (``run.hosts``): every host and section is observed in every run, however many
there are, each host's engines' status read (``run.engines``), each section's sample drawn
(``sampling``), inspected within the property's share of the day's budget (``budget``) and
checked on the site itself. Nothing one URL or one answer holds can stop the run, every call is
counted as it is made, and every text kept is capped and redacted. Then it writes the figures
and their history (``figures``, ``records``) and sends them to CloudWatch (``signals``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from sitemap_updater.engines.health import check_page
from sitemap_updater.observe.budget import BudgetLedger, RunBudget
from sitemap_updater.observe.exclusion import Exclusions, review
from sitemap_updater.observe.figures import (
    bing_figures,
    history_entry,
    section_figures,
    sitemap_figures,
)
from sitemap_updater.observe.records import FiguresStore, HistoryStore, ObservationStore
from sitemap_updater.observe.run.engines import Check, EngineCalls, Engines
from sitemap_updater.observe.run.hosts import TimeShare
from sitemap_updater.observe.run.state import HostRun, SectionRun
from sitemap_updater.observe.sampling import HostFrame, Listed, frames, read_listed
from sitemap_updater.observe.settings import ObserveConfig
from sitemap_updater.observe.signals import (
    alarm_figures,
    emit_alarm_figures,
    emit_host,
    emit_section,
    log_section,
)
from sitemap_updater.observe.submissions import SUBMITTED, SubmissionLedger, Target, submit_all
from sitemap_updater.rebuild.state.published import PublishedStore
from sitemap_updater.store.spaces import Layout

__all__ = ["Engines", "ObserveService"]

#: the problems a host's figures keep (each capped to ``records.REASON_CHARS``)
PROBLEMS_KEPT: Final = 20


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
        self._now = 0.0
        self._calls = self._calls_at(0.0)
        self._previous: dict[tuple[str, str], dict[str, Any]] = {}
        self._submissions: list[Any] = []

    def _calls_at(self, now: float) -> EngineCalls:
        return EngineCalls(
            self.config,
            self._engines,
            self._layout,
            now=now,
            remaining=self._remaining,
            sleep=self._sleep,
            monotonic=self._monotonic,
            check=self._check,
        )

    def _read(self, key: str) -> list[Listed]:
        return read_listed(self._s3, self.config.bucket_name, key)

    # --- the run --------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        now = self._now = self._clock()
        self._calls = self._calls_at(now)
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
        TimeShare(
            self.config,
            self._calls,
            self._observations,
            self._exclusions,
            self._read,
            now=now,
            rng=self._rng,
            sleep=self._sleep,
            monotonic=self._monotonic,
        ).share_out(hosts)
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
            if host.index_url is None or not self._calls.in_time():
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
                    redact=self._calls.kept,
                )
                budgets[prop].answered += sum(1 for s in done if s.state == SUBMITTED)
                made += done
            if bing is not None:
                target = Target(host.index_url, f"{host.origin}/")
                made += submit_all(
                    self._ledger, "bing", bing.submit_feed, [target], now, redact=self._calls.kept
                )
        return made

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
