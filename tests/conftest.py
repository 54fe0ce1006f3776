"""Settings every test process needs before the shared package is imported, and the schema
check that applies to every test.

Powertools' ``Metrics()`` reads ``POWERTOOLS_METRICS_NAMESPACE`` once, when
``sitemap_updater.observability`` is first imported. In Lambda, template.yaml sets it for both
functions. Here the first import can happen in any test file (pytest-xdist spreads files over
workers), so it is set before collection, as the template would.

Every sitemap file any test produces in this process is validated against the official XSDs
(:func:`tests.helpers.xsd.check_written_sitemaps`); a test during which an invalid file was
written fails. Files written by a command run in a child process are validated by the test that
runs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.helpers.xsd import WrittenSitemaps

os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "SitemapUpdaterTest")
# Import it now, so the first import never happens inside a local deployment's handler
# environment (which carries the template's namespace) and the namespace is the same in every file.
import sitemap_updater.observability  # noqa: F401


@pytest.fixture(autouse=True)
def written_sitemaps(monkeypatch: pytest.MonkeyPatch) -> Iterator[WrittenSitemaps]:
    """Validates every urlset and index written during the test (see the module text)."""
    from tests.helpers.xsd import check_written_sitemaps  # after the environment is set

    seen = check_written_sitemaps(monkeypatch)
    yield seen
    if seen.problems:
        pytest.fail("\n".join(seen.problems), pytrace=False)


#: The credentials and region moto is reached with (it checks none of them).
FAKE_AWS_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture
def aws_credentials(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """:data:`FAKE_AWS_ENVIRONMENT` set for the test, so that no real account is ever reached."""
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    return monkeypatch


#: The longest files of the suite, longest first (measured with ``--durations``); the fault
#: replays lead, as their module fixtures run in processes of their own beside the rest.
LONGEST_FIRST = (
    "reliability/test_faults.py",
    "reliability/test_faults_more_seeds.py",
    "docs/test_benchmarks.py",
    "docs/test_doc_commands.py",
    "integration/cli/test_peer_corpus.py",
    "reliability/test_crashes.py",
    "e2e/test_observe.py",
    "e2e/test_observe_hosts.py",
    "e2e/test_observe_latency.py",
    "unit/observe/test_alarm_replay.py",
    "reliability/test_scale_split.py",
    "integration/rebuild/test_hostile_objects.py",
    "integration/cli/test_build_safety.py",
    "integration/ingest/test_rejections.py",
    "property/test_incremental_equals_full.py",
)


def _start_rank(item: pytest.Item) -> int:
    path = item.path.as_posix()
    return next(
        (rank for rank, name in enumerate(LONGEST_FIRST) if path.endswith("tests/" + name)),
        len(LONGEST_FIRST),
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, the rest in collection order: pytest-xdist hands out whole files
    in this order (``--dist loadfile --no-loadscope-reorder``, see the Makefile), so a long file
    never starts last and keeps one worker busy alone while the other has finished."""
    items.sort(key=_start_rank)
