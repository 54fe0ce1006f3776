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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The fault-replay files first: their module fixtures are the longest single pieces of the
    suite, so started first on a worker they end with the rest of the suite instead of after it
    (pytest-xdist hands out whole files in collection order)."""
    items.sort(key=lambda item: not item.path.name.startswith("test_faults"))
