"""What one observer run keeps of each host and of each of its sections while it goes."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sitemap_updater.observe.budget import RunBudget
from sitemap_updater.observe.exclusion import Excluded
from sitemap_updater.observe.records import Observation
from sitemap_updater.observe.sampling import Drawn, HostFrame


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
