"""Sharing one run's time among the hosts and their sections, so that every host and every
section is observed in every run: the next step goes to the host that has used the least of the
run's time so far among those that can go on now, and a host's steps to its sections in turn.
A host's first step reads the engines' status of its index; a section's first step draws its
sample (``sampling``); each later one inspects and checks one URL as far as the property's
budget and the host's health checks allow. When every host with work left waits for its
property's pause, the run waits for the first to end.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable

from sitemap_updater.observe.estimates import latency
from sitemap_updater.observe.exclusion import Exclusions, due_again
from sitemap_updater.observe.records import ItemTooLarge, Observation, ObservationStore
from sitemap_updater.observe.run.engines import EngineCalls
from sitemap_updater.observe.run.state import HostRun, SectionRun
from sitemap_updater.observe.sampling import (
    RANDOM,
    RECENT,
    RECHECK_SECONDS,
    Drawn,
    Listed,
    draw,
)
from sitemap_updater.observe.settings import ObserveConfig

#: the URLs a published file lists, by its key (``sampling.read_listed`` on the run's bucket)
Reader = Callable[[str], list[Listed]]


class TimeShare:
    """The steps of a run at ``now``: ``calls`` makes the engines' calls, ``read`` reads a
    published file, the stores keep what was seen."""

    def __init__(
        self,
        config: ObserveConfig,
        calls: EngineCalls,
        observations: ObservationStore,
        exclusions: Exclusions,
        read: Reader,
        *,
        now: float,
        rng: random.Random,
        sleep: Callable[[float], None],
        monotonic: Callable[[], float],
    ) -> None:
        self.config = config
        self._calls = calls
        self._observations = observations
        self._exclusions = exclusions
        self._read = read
        self._now = now
        self._rng = rng
        self._sleep = sleep
        self._monotonic = monotonic

    def share_out(self, hosts: list[HostRun]) -> None:
        """Step the hosts until their work is done or the run's time is up: each step to the
        host that has used the least time among those that can go on now; when every host
        with work left waits for a property's pause, wait for the first to end."""
        while self._calls.in_time():
            waiting = [h for h in hosts if self._has_work(h)]
            if not waiting:
                return
            now = self._monotonic()
            ready = [h for h in waiting if self._ready(h, now)]
            if not ready:
                wake = min(self._calls.paused.get(h.prop, now) for h in waiting) - now
                if not self._calls.in_time(wake):
                    return
                self._sleep(max(0.0, wake))
                continue
            host = min(ready, key=lambda h: (h.used, h.order))
            started = self._monotonic()
            try:
                self._step(host)
            finally:
                host.used += self._monotonic() - started

    def _has_work(self, host: HostRun) -> bool:
        if not host.started:
            return True
        return any(
            s.queue is None
            or s.queue
            or (s.checks_again and host.health_left > 0)
            or (s.deferred and self._calls.may_inspect(host))
            for s in host.sections
        )

    def _ready(self, host: HostRun, now: float) -> bool:
        if not host.started:
            return True
        paused = self._calls.paused_now(host, now)
        return any(
            s.queue is None
            or s.queue
            or (s.checks_again and host.health_left > 0)
            or (s.deferred and self._calls.may_inspect(host) and not paused)
            for s in host.sections
        )

    def _step(self, host: HostRun) -> None:
        """One step of ``host``: its first reads the engines' status of its index; each later
        one goes to the next section in turn that has something to do."""
        if not host.started:
            host.started = True
            self._calls.index_status(host)
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
            self._save(host, section, self._calls.health(host, section, seen))
            return True
        while section.queue:
            if self._look(host, section, section.queue.popleft()):
                return True
        if section.deferred and self._calls.may_inspect(host) and not self._calls.paused_now(host):
            section.queue.extend(section.deferred)
            section.deferred.clear()
            while section.queue:
                if self._look(host, section, section.queue.popleft()):
                    return True
        return False

    # --- a section's sample ---------------------------------------------------------------

    def _draw(self, host: HostRun, section: SectionRun) -> None:
        """Load the section's observations and exclusions and draw its sample."""
        origin, now = host.frame.origin, self._now
        section.observed = self._observations.load(origin, section.name, now)
        section.excluded = self._exclusions.load(origin, section.name)
        if self.config.exclude_unhealthy and host.health_share > 0:  # first, its whole share
            again = due_again(section.excluded, section.observed, now, host.health_share)
            section.checks_again = deque(again)
        google = self._calls.engines.search_console is not None
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
                    read[key] = self._read(key)
                except Exception as error:  # a file gone or unreadable: its URLs only
                    read[key] = []
                    host.problems.append(self._calls.kept(f"{key} cannot be read: {error}"))
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

    def _look(self, host: HostRun, section: SectionRun, item: Drawn) -> bool:
        """Inspect and check ``item`` as far as the budgets allow; False when nothing could
        be done for it now (left for later, or for no run)."""
        seen = section.observed.get(item.url) or Observation(url=item.url, stratum=item.stratum)
        seen = latency.with_change(seen.with_changes(stratum=item.stratum), item.changed_at)
        inspect = self._calls.may_inspect(host)
        check = host.health_left > 0 and self._check_due(seen)
        deferred = inspect and self._calls.paused_now(host)
        if not check and (deferred or not inspect):
            if deferred:
                section.deferred.append(item)
            return False
        if inspect and not deferred:
            seen, retry = self._calls.inspect(host, section, seen)
            deferred = retry
        if check:
            seen = self._calls.health(host, section, seen)
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
            host.problems.append(self._calls.kept(f"{seen.url}: {error}"))
