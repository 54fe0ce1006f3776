"""The ingest settings come from the environment template.yaml sets; bad ones are named."""

from __future__ import annotations

import pytest

from sitemap_updater.config import ConfigError, IngestConfig

REQUIRED = {"TABLE_NAME": "t", "SITE_URL": "https://www.example.com", "DLQ_URL": "https://q/dlq"}


def test_tombstone_retention_defaults_to_7_days() -> None:
    config = IngestConfig.from_env(REQUIRED)
    assert (config.table_name, config.dlq_url, config.tombstone_ttl_days) == (
        "t",
        "https://q/dlq",
        7,
    )
    assert IngestConfig.from_env({**REQUIRED, "TOMBSTONE_TTL_DAYS": ""}).tombstone_ttl_days == 7


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
