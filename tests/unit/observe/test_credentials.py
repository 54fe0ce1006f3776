"""The engines' credentials from Secrets Manager (moto): the forms accepted, and errors that
name the secret and the rule, never a credential's text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from sitemap_updater.observe.credentials import (
    CredentialsError,
    bing_api_key,
    engine_clients,
    service_account_info,
)
from sitemap_updater.observe.settings import ObserveConfig
from sitemap_updater.sections import SectionRules
from sitemap_updater_local.standins.keys import make_key

PRIVATE = "-----BEGIN PRIVATE KEY-----\nSECRET-KEY-MATERIAL\n-----END PRIVATE KEY-----\n"
KEY = {
    "type": "service_account",
    "client_email": "observer@project.iam.gserviceaccount.com",
    "private_key": PRIVATE,
    "token_uri": "https://oauth2.googleapis.com/token",
}


@pytest.fixture
def secrets() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="us-east-1")


def _stored(secrets: Any, text: str) -> str:
    return str(secrets.create_secret(Name=f"s{len(text)}", SecretString=text)["ARN"])


def test_the_key_file_as_stored_is_the_service_account_info(secrets: Any) -> None:
    assert service_account_info(secrets, _stored(secrets, json.dumps(KEY))) == KEY


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("not json SECRET-KEY-MATERIAL", "is not JSON"),
        (json.dumps({**KEY, "token_uri": None}), "needs client_email, private_key, token_uri"),
        (json.dumps([PRIVATE]), "needs client_email"),
    ],
)
def test_a_malformed_key_is_refused_without_its_text(secrets: Any, text: str, rule: str) -> None:
    arn = _stored(secrets, text)
    with pytest.raises(CredentialsError) as caught:
        service_account_info(secrets, arn)
    assert rule in str(caught.value) and arn in str(caught.value)
    assert "SECRET-KEY-MATERIAL" not in str(caught.value)


def test_a_missing_secret_names_its_arn_and_the_error_code(secrets: Any) -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:nowhere-AbCdEf"
    with pytest.raises(CredentialsError, match="nowhere-AbCdEf: cannot be read: "):
        bing_api_key(secrets, arn)


def test_the_bing_key_as_text_or_json(secrets: Any) -> None:
    assert bing_api_key(secrets, _stored(secrets, " k3y-0123\n")) == "k3y-0123"
    assert bing_api_key(secrets, _stored(secrets, json.dumps({"api_key": "k3y"}))) == "k3y"
    for bad in ('{"key": "k3y"}', "two words"):
        with pytest.raises(CredentialsError) as caught:
            bing_api_key(secrets, _stored(secrets, bad))
        assert "k3y" not in str(caught.value) and "words" not in str(caught.value)


def test_one_secret_can_hold_both_engines_keys(secrets: Any) -> None:
    arn = _stored(secrets, json.dumps({**KEY, "api_key": "k3y"}))
    assert service_account_info(secrets, arn) == KEY  # the Bing key stays out of Google's
    assert bing_api_key(secrets, arn) == "k3y"


def test_a_shared_secret_is_read_once_a_run(secrets: Any) -> None:
    key = make_key("https://oauth2.googleapis.com/token")
    arn = _stored(secrets, json.dumps({**key.info, "api_key": "k3y"}))
    config = ObserveConfig(
        state_table_name="state",
        bucket_name="bucket",
        url_table_name="urls",
        site_url="https://www.example.com",
        public_base_url="",
        section_rules=SectionRules.parse(""),
        search_console_secret_arn=arn,
        bing_secret_arn=arn,
    )
    reads: list[str] = []
    secrets.meta.events.register(
        "before-parameter-build.secrets-manager.GetSecretValue",
        lambda params, **_: reads.append(params["SecretId"]),
    )
    engines = engine_clients(config, secrets)
    assert engines.search_console is not None and engines.bing is not None
    assert reads == [arn]
