"""The coverage report: what the observer stored, as one JSON-ready object.

``sitemap-updater coverage`` prints it (as text, as JSON, or its problem URLs as CSV), and the
local deployment's demo shows it. Per host: the figures of its index (Search Console's and
Bing's status, the submissions, the run's Search Console calls and quota refusals); per
section: its figures, every problem URL of the window (read from the observations, not only the
few the figures keep), and with ``since`` the history of its figures from then on.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sitemap_updater.observe.figures import problems
from sitemap_updater.observe.records import FiguresStore, HistoryStore, ObservationStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def coverage_report(
    client: DynamoDBClient,
    table: str,
    stack: str,
    *,
    since: float | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The report of the observer whose items are in the state table ``table``: ``hosts``, each
    with its ``index`` figures and its ``sections`` (``worst``: every problem URL; ``history``
    with ``since``)."""
    now = time.time() if now is None else now
    observations = ObservationStore(client, table)
    history = HistoryStore(client, table)
    hosts: dict[str, dict[str, Any]] = {}
    for (origin, section), figures in sorted(FiguresStore(client, table).load_all().items()):
        host = hosts.setdefault(origin, {"url": origin, "index": None, "sections": []})
        if not section:
            host["index"] = figures
            continue
        excluded = {e["url"] for e in figures.get("exclusions", [])}
        seen = observations.load(origin, section, now).values()
        entry = {**figures, "name": section}
        entry["worst"] = problems(o for o in seen if o.url not in excluded)
        if since is not None:
            entry["history"] = history.load(origin, section, since, now)
        host["sections"].append(entry)
    return {"stack": stack, "hosts": list(hosts.values())}
