"""docs/search-engines.md says what the code does: the User-Agent, the quotas, the exclusion's
problems, and every parameter of the template's search engines group."""

from __future__ import annotations

import re
from pathlib import Path

from sitemap_updater.engines.health import MAX_HTML_BYTES, USER_AGENT
from sitemap_updater.observe.exclusion import EXCLUDABLE
from sitemap_updater.observe.records import WINDOW_DAYS
from sitemap_updater.observe.settings import INSPECTION_DAILY_QUOTA, INSPECTION_MINUTE_QUOTA
from tests.template.cfn import load_template

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "search-engines.md").read_text()


def test_the_user_agent_and_the_read_limit_are_the_code_s() -> None:
    assert f"`{USER_AGENT}`" in PAGE.replace("\n  ", "")
    assert f"at most {MAX_HTML_BYTES // 1024} KB" in PAGE


def test_the_quotas_and_the_window_are_the_code_s() -> None:
    assert f"{INSPECTION_DAILY_QUOTA:,} a day and {INSPECTION_MINUTE_QUOTA} a minute" in PAGE
    assert f"window ({WINDOW_DAYS} days)" in PAGE


def test_the_exclusion_names_exactly_the_problems_that_exclude() -> None:
    section = PAGE.split("## Leaving unhealthy URLs out", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z-]+)`", section.split("A server error", 1)[0]))
    assert named == set(EXCLUDABLE)


def test_every_parameter_of_the_search_engines_group_is_in_the_table() -> None:
    groups = load_template()["Metadata"]["AWS::CloudFormation::Interface"]["ParameterGroups"]
    (group,) = [g for g in groups if g["Label"]["default"] == "Search engines"]
    table = PAGE.split("### Parameters", 1)[1].split("\n## ", 1)[0]
    for name in group["Parameters"]:
        assert f"`{name}`" in table, name
