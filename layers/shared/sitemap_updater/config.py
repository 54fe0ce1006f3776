"""Settings read from the environment variables that template.yaml sets (docs/architecture.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from sitemap_updater.protocol.errors import InvalidUrlError, SitemapError
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_NEWS_WINDOW_HOURS, MAX_URLS
from sitemap_updater.sections import (
    DEFAULT_MAX_SECTIONS_PER_HOST,
    MAX_SECTIONS_PER_HOST,
    SectionRules,
)
from sitemap_updater.sites import Sites, media_hosts_of

#: The default shard cap and byte cap of a file: a margin under the protocol's 50,000 URLs and
#: 50 MiB, so that a shard can grow between splits. template.yaml sets the same values (its
#: ``MaxUrlsPerSitemap`` default and the rebuild's ``MAX_BYTES_PER_SITEMAP``; a template test
#: holds them equal), and ``build`` takes them as its defaults.
DEFAULT_MAX_URLS_PER_SITEMAP = 40_000
DEFAULT_MAX_BYTES_PER_SITEMAP = 45 * 1024 * 1024


class ConfigError(ValueError):
    """A required environment variable is missing or malformed."""


def _get(env: Mapping[str, str], name: str, default: str | None = None) -> str:
    value = env.get(name, default)
    if value is None or value == "":
        if default is not None:
            return default
        raise ConfigError(f"environment variable {name} is required but not set")
    return value


def _int(env: Mapping[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = _get(env, name, str(default))
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"environment variable {name}={raw!r} is not an integer") from None
    if not lo <= value <= hi:
        raise ConfigError(f"environment variable {name}={value} must be between {lo} and {hi}")
    return value


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = _get(env, name, "true" if default else "false").strip().lower()
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"environment variable {name}={raw!r} must be true or false")


@dataclass(frozen=True, slots=True)
class IngestConfig:
    table_name: str
    #: one origin or a comma-separated list of them, the first the primary (``sites.Sites``)
    site_url: str
    dlq_url: str
    tombstone_ttl_days: int = 14
    #: hosts images and videos may live on besides the site's own (``None``: any host)
    media_hosts: frozenset[str] | None = None
    #: whether hreflang alternates may point to any host, not only the listed sites
    alternates_any_host: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> IngestConfig:
        e = os.environ if env is None else env
        raw_hosts = e.get("MEDIA_HOSTS", "*")  # empty is a value: the site's own host alone
        try:
            media_hosts = media_hosts_of(raw_hosts)
        except InvalidUrlError as exc:
            raise ConfigError(f"environment variable MEDIA_HOSTS={raw_hosts!r}: {exc}") from None
        site_url = _site_list(e)
        return cls(
            table_name=_get(e, "TABLE_NAME"),
            site_url=site_url,
            dlq_url=_get(e, "DLQ_URL"),
            tombstone_ttl_days=_int(e, "TOMBSTONE_TTL_DAYS", 14, 1, 3650),
            media_hosts=media_hosts,
            alternates_any_host=_bool(e, "ALTERNATES_ANY_HOST", False),
        )


@dataclass(frozen=True, slots=True)
class RebuildConfig:
    table_name: str
    site_url: str
    bucket_name: str
    public_base_url: str
    distribution_id: str = ""
    max_urls_per_sitemap: int = DEFAULT_MAX_URLS_PER_SITEMAP
    max_bytes_per_sitemap: int = DEFAULT_MAX_BYTES_PER_SITEMAP
    #: most files one index lists (the protocol's 50,000): past it a host's index is cut in two
    max_files_per_index: int = MAX_URLS
    retire_grace_seconds: int = 86_400
    publish_robots_txt: bool = False
    lease_seconds: int = 960
    time_budget_margin_seconds: int = 60
    invalidation_max_paths: int = 1000
    full_rebuild_segments: int = 8
    #: the table's DynamoDB Stream (the change feed the incremental run reads)
    stream_arn: str = ""
    #: the rebuild's own table (lease, shard map, publish record, checkpoint, retired files);
    #: kept apart from the URL table so that its writes never enter the URL table's stream
    state_table_name: str = ""
    #: most stream records one incremental run reads; the rest waits for the next run
    feed_max_records: int = 200_000
    #: IndexNow key; empty turns IndexNow off (docs/indexnow.md)
    indexnow_key: str = ""
    #: where IndexNow submissions go
    indexnow_endpoint: str = field(default_factory=lambda: _default_indexnow_endpoint())
    #: how long after its publication_date an article stays in the news files (Google: 2 days)
    news_window_hours: int = MAX_NEWS_WINDOW_HOURS
    #: ordered path-prefix rules that place a URL without a section of its own
    section_rules: SectionRules = field(default_factory=SectionRules)
    #: most sections a host has: past it, a change's section is placed as if it named none
    max_sections_per_host: int = DEFAULT_MAX_SECTIONS_PER_HOST
    #: whether hreflang alternates may point to any host, not only to a listed one
    alternates_any_host: bool = False
    #: every index and urlset names ``sitemap.xsl``, published beside the index, so that a
    #: browser shows the files as tables (``protocol.stylesheet``)
    stylesheet: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RebuildConfig:
        e = os.environ if env is None else env
        site = _site_list(e)
        return cls(
            table_name=_get(e, "TABLE_NAME"),
            site_url=site,
            bucket_name=_get(e, "BUCKET_NAME"),
            public_base_url=_get(e, "PUBLIC_BASE_URL", site),
            distribution_id=e.get("DISTRIBUTION_ID", ""),
            max_urls_per_sitemap=_int(
                e, "MAX_URLS_PER_SITEMAP", DEFAULT_MAX_URLS_PER_SITEMAP, 1, MAX_URLS
            ),
            max_bytes_per_sitemap=_int(
                e, "MAX_BYTES_PER_SITEMAP", DEFAULT_MAX_BYTES_PER_SITEMAP, 1024, MAX_BYTES
            ),
            max_files_per_index=_int(e, "MAX_FILES_PER_INDEX", MAX_URLS, 1, MAX_URLS),
            retire_grace_seconds=_int(e, "RETIRE_GRACE_SECONDS", 86_400, 0, 30 * 86_400),
            publish_robots_txt=_bool(e, "PUBLISH_ROBOTS_TXT", False),
            lease_seconds=_int(e, "LEASE_SECONDS", 960, 1, 86_400),
            time_budget_margin_seconds=_int(e, "TIME_BUDGET_MARGIN_SECONDS", 60, 0, 900),
            invalidation_max_paths=_int(e, "INVALIDATION_MAX_PATHS", 1000, 1, 3000),
            full_rebuild_segments=_int(e, "FULL_REBUILD_SEGMENTS", 8, 1, 64),
            stream_arn=_get(e, "TABLE_STREAM_ARN"),
            state_table_name=_get(e, "STATE_TABLE_NAME", _get(e, "TABLE_NAME")),
            feed_max_records=_int(e, "FEED_MAX_RECORDS", 200_000, 1_000, 10_000_000),
            indexnow_key=_indexnow_key(e),
            indexnow_endpoint=_indexnow_endpoint(e),
            news_window_hours=_int(
                e, "NEWS_WINDOW_HOURS", MAX_NEWS_WINDOW_HOURS, 1, MAX_NEWS_WINDOW_HOURS
            ),
            section_rules=_section_rules(e),
            max_sections_per_host=_int(
                e,
                "MAX_SECTIONS_PER_HOST",
                DEFAULT_MAX_SECTIONS_PER_HOST,
                1,
                MAX_SECTIONS_PER_HOST,
            ),
            alternates_any_host=_bool(e, "ALTERNATES_ANY_HOST", False),
            stylesheet=_bool(e, "STYLESHEET", True),
        )


def _site_list(env: Mapping[str, str]) -> str:
    """``SITE_URL``: one origin or a comma-separated list, checked here so that a bad one
    stops the function at start with a clear line."""
    site_url = _get(env, "SITE_URL")
    try:
        Sites.parse(site_url)
    except InvalidUrlError as exc:
        raise ConfigError(f"environment variable SITE_URL={site_url!r}: {exc}") from None
    return site_url


def _section_rules(env: Mapping[str, str]) -> SectionRules:
    try:
        return SectionRules.parse(env.get("SECTION_RULES", ""))
    except SitemapError as error:
        raise ConfigError(f"environment variable {error}") from None


def _default_indexnow_endpoint() -> str:
    # here: the ingest function reads no IndexNow setting, and its cold start loads none
    from sitemap_updater.indexnow import DEFAULT_ENDPOINT

    return DEFAULT_ENDPOINT


def _indexnow_key(env: Mapping[str, str]) -> str:
    # here: the ingest function reads no IndexNow setting, and its cold start loads none
    from sitemap_updater.indexnow import IndexNowConfigError, check_key

    key = env.get("INDEXNOW_KEY", "")
    try:
        return check_key(key) if key else ""
    except IndexNowConfigError as error:
        raise ConfigError(f"environment variable {error}") from None


def _indexnow_endpoint(env: Mapping[str, str]) -> str:
    # here: the ingest function reads no IndexNow setting, and its cold start loads none
    from sitemap_updater.indexnow import IndexNowConfigError, check_endpoint

    endpoint = _get(env, "INDEXNOW_ENDPOINT", _default_indexnow_endpoint())
    try:
        return check_endpoint(endpoint)
    except IndexNowConfigError as error:
        raise ConfigError(f"environment variable {error}") from None
