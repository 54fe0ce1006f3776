"""When Google crawls each page, drawn from a known distribution: the truth a test holds the
observer's crawl latency against.

```python
crawls = CrawlSchedule(median_hours=6, sigma=0.8, recrawl_hours=(30, 48), seed=1)
crawls.changed(url, when)                # the page changed (as its lastmod says)
crawls.last_crawl(url, at)               # what URL Inspection's lastCrawlTime says then
console.crawls = crawls                  # the Search Console stand-in answers from it
```

After each change, Google's first crawl of the page comes a delay later that is drawn from a
log-normal distribution of median ``median_hours`` (``sigma`` its spread on the log scale), so
the true median of the crawl latency is ``median_hours``; after that first crawl it recrawls the
page every ``recrawl_hours`` (drawn uniformly in that range), until the next change, whose
first crawl is again a fresh delay after it (till then, the last crawl is the previous
version's). A page with no change known has never been crawled. Each draw comes from a random
generator seeded by ``seed``, the URL and the change's place among the page's changes, so the
crawls of a page never depend on what else was asked, nor on the exact moment of its change.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass
class CrawlSchedule:
    median_hours: float = 6.0
    sigma: float = 0.8
    recrawl_hours: tuple[float, float] = (30.0, 48.0)
    seed: int = 0
    #: the share of pages Google crawls but does not index (their coverage state)
    not_indexed_share: float = 0.0
    not_indexed_state: str = "Crawled - currently not indexed"
    _changes: dict[str, list[float]] = field(default_factory=dict)

    def changed(self, url: str, when: datetime | float) -> None:
        """``url`` changed at ``when`` (a datetime, or epoch seconds)."""
        moment = when.timestamp() if isinstance(when, datetime) else float(when)
        self._changes.setdefault(url, []).append(moment)
        self._changes[url].sort()

    def _rng(self, url: str, change: float, what: str) -> random.Random:
        changes = self._changes.get(url, [])
        place = changes.index(change) if change in changes else len(changes)
        return random.Random(f"{self.seed}|{url}|{place}|{what}")

    def first_crawl_delay(self, url: str, change: float) -> float:
        """Seconds from ``change`` to the page's first crawl after it."""
        rng = self._rng(url, change, "delay")
        return math.exp(rng.gauss(math.log(self.median_hours * 3600), self.sigma))

    def _recrawl(self, rng: random.Random) -> float:
        low, high = self.recrawl_hours
        return rng.uniform(low, high) * 3600

    def last_crawl(self, url: str, at: datetime | float) -> datetime | None:
        """The page's last crawl at or before ``at`` (None: never crawled yet)."""
        moment = at.timestamp() if isinstance(at, datetime) else float(at)
        changes = [c for c in self._changes.get(url, []) if c <= moment]
        if not changes:
            return None
        change = changes[-1]
        rng = self._rng(url, change, "recrawl")
        crawl = change + self.first_crawl_delay(url, change)
        last = None
        while crawl <= moment:
            last = crawl
            crawl += self._recrawl(rng)
        if last is None and len(changes) > 1:  # not crawled since: the previous version's
            return self.last_crawl(url, math.nextafter(change, -math.inf))
        return None if last is None else datetime.fromtimestamp(last, UTC)

    def indexed(self, url: str) -> bool:
        """Whether Google indexes the page once crawled (drawn once per URL)."""
        return random.Random(f"{self.seed}|index|{url}").random() >= self.not_indexed_share
