"""Fixtures of the build / send / backfill command tests."""

from __future__ import annotations

import pytest
from lxml import etree

from tests.integration.cli.support import load_schema


@pytest.fixture(scope="session")
def urlset_schema() -> etree.XMLSchema:
    return load_schema("sitemap.xsd")


@pytest.fixture(scope="session")
def index_schema() -> etree.XMLSchema:
    return load_schema("siteindex.xsd")
