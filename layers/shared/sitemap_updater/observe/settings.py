"""The observer's settings, from the environment variables template.yaml sets."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from sitemap_updater.config import (
    ConfigError,
    _bool,
    _get,
    _int,
    _section_rules,
    _site_list,
)
from sitemap_updater.sections import SectionRules

#: URL Inspection's quota per property: 2,000 calls a day and 600 a minute
#: (https://developers.google.com/webmaster-tools/limits)
INSPECTION_DAILY_QUOTA: Final = 2_000
INSPECTION_MINUTE_QUOTA: Final = 600


@dataclass(frozen=True, slots=True)
class ObserveConfig:
    state_table_name: str
    bucket_name: str
    #: the URL table, where an excluded URL's item is marked (``exclusion``)
    url_table_name: str
    site_url: str
    #: where the index and the files are served (empty: each host's own origin)
    public_base_url: str
    section_rules: SectionRules
    #: the Secrets Manager ARNs of the credentials; an empty one turns its engine off
    search_console_secret_arn: str = ""
    bing_secret_arn: str = ""
    #: ``origin=property`` pairs (``https://www.example.com=sc-domain:example.com``); a host
    #: without one is the URL-prefix property ``<origin>/``
    search_console_properties: str = ""
    #: the APIs' roots (empty: the engines' own); the local deployment points them at 127.0.0.1
    search_console_api_root: str = ""
    bing_api_root: str = ""
    #: Search Console calls a day per property (inspections, sitemap reads and submissions)
    daily_api_calls: int = 1_500
    #: minutes between two scheduled runs (the schedule's rate), to spread the day's budget
    interval_minutes: int = 60
    #: pages fetched from the site a day per host, and at most how many a second per host
    health_checks_per_day: int = 1_200
    health_requests_per_second: float = 1.0
    #: overall deadline of one request to an engine or the site
    deadline_seconds: float = 10.0
    #: leave a URL out of the sitemaps once this many checks in a row found it unhealthy
    exclude_unhealthy: bool = False
    exclude_after_failures: int = 3
    #: send each section's figures as CloudWatch metrics (each is a custom metric, billed)
    section_metrics: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ObserveConfig:
        e = os.environ if env is None else env
        site = _site_list(e)
        return cls(
            state_table_name=_get(e, "STATE_TABLE_NAME"),
            url_table_name=_get(e, "TABLE_NAME"),
            bucket_name=_get(e, "BUCKET_NAME"),
            site_url=site,
            public_base_url=e.get("PUBLIC_BASE_URL", "") or "",
            section_rules=_section_rules(e),
            search_console_secret_arn=e.get("SEARCH_CONSOLE_SECRET_ARN", ""),
            bing_secret_arn=e.get("BING_SECRET_ARN", ""),
            search_console_properties=e.get("SEARCH_CONSOLE_PROPERTIES", ""),
            search_console_api_root=e.get("SEARCH_CONSOLE_API_ROOT", ""),
            bing_api_root=e.get("BING_API_ROOT", ""),
            daily_api_calls=_int(e, "OBSERVE_DAILY_API_CALLS", 1_500, 0, INSPECTION_DAILY_QUOTA),
            interval_minutes=_int(e, "OBSERVE_INTERVAL_MINUTES", 60, 1, 1_440),
            health_checks_per_day=_int(e, "HEALTH_CHECKS_PER_DAY", 1_200, 0, 100_000),
            health_requests_per_second=float(_int(e, "HEALTH_REQUESTS_PER_SECOND", 1, 1, 10)),
            exclude_unhealthy=_bool(e, "EXCLUDE_UNHEALTHY", False),
            exclude_after_failures=_int(e, "EXCLUDE_AFTER_FAILURES", 3, 2, 100),
            section_metrics=_bool(e, "SECTION_METRICS", False),
            deadline_seconds=float(_int(e, "OBSERVE_DEADLINE_SECONDS", 10, 1, 60)),
        )

    def property_of(self, origin: str) -> str:
        """The Search Console property of a host: its pair in ``search_console_properties``,
        else the URL-prefix property of its origin."""
        for pair in filter(None, (p.strip() for p in self.search_console_properties.split(","))):
            name, sep, value = pair.partition("=")
            if not sep or not value.strip():
                raise ConfigError(
                    f"environment variable SEARCH_CONSOLE_PROPERTIES: {pair!r} must be "
                    "origin=property"
                )
            if name.strip().rstrip("/") == origin:
                return value.strip()
        return f"{origin}/"
