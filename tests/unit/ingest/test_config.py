"""The ingest settings come from the environment template.yaml sets; bad ones are named."""

from __future__ import annotations

import pytest

from sitemap_updater.config import ConfigError, IngestConfig

REQUIRED = {"TABLE_NAME": "t", "SITE_URL": "https://www.example.com", "DLQ_URL": "https://q/dlq"}


def test_tombstone_retention_defaults_to_14_days() -> None:
    config = IngestConfig.from_env(REQUIRED)
    assert (config.table_name, config.dlq_url, config.tombstone_ttl_days) == (
        "t",
        "https://q/dlq",
        14,
    )
    assert IngestConfig.from_env({**REQUIRED, "TOMBSTONE_TTL_DAYS": ""}).tombstone_ttl_days == 14


def test_tombstone_retention_is_configurable() -> None:
    config = IngestConfig.from_env({**REQUIRED, "TOMBSTONE_TTL_DAYS": "30"})
    assert config.tombstone_ttl_days == 30


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_a_missing_setting_is_named(name: str) -> None:
    env = {k: v for k, v in REQUIRED.items() if k != name}
    with pytest.raises(ConfigError, match=f"{name} is required"):
        IngestConfig.from_env(env)


@pytest.mark.parametrize(("raw", "rule"), [("seven", "not an integer"), ("0", "between 1 and")])
def test_a_malformed_retention_is_named_with_its_value(raw: str, rule: str) -> None:
    with pytest.raises(ConfigError, match=rf"TOMBSTONE_TTL_DAYS.*{raw}.*{rule}"):
        IngestConfig.from_env({**REQUIRED, "TOMBSTONE_TTL_DAYS": raw})


def test_alternates_any_host_defaults_to_false_and_is_read_as_a_flag() -> None:
    assert IngestConfig.from_env(REQUIRED).alternates_any_host is False
    on = IngestConfig.from_env({**REQUIRED, "ALTERNATES_ANY_HOST": "true"})
    assert on.alternates_any_host is True
    with pytest.raises(ConfigError, match=r"ALTERNATES_ANY_HOST='maybe' must be true or false"):
        IngestConfig.from_env({**REQUIRED, "ALTERNATES_ANY_HOST": "maybe"})


def test_site_url_may_list_several_origins_and_a_bad_list_is_named() -> None:
    listed = "https://www.example.com,https://www.example.de"
    assert IngestConfig.from_env({**REQUIRED, "SITE_URL": listed}).site_url == listed
    with pytest.raises(ConfigError, match=r"SITE_URL=.*entry 2 of 2 is empty"):
        IngestConfig.from_env({**REQUIRED, "SITE_URL": "https://www.example.com,"})
    with pytest.raises(ConfigError, match=r"SITE_URL=.*www.example.com is listed twice"):
        IngestConfig.from_env(
            {**REQUIRED, "SITE_URL": "https://www.example.com,http://www.example.com"}
        )
