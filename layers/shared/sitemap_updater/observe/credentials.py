"""The engines' credentials, read from Secrets Manager by ARN when a run needs them.

Only the secrets' ARNs are in the function's environment; their values stay in memory, in the
engine clients, and are never logged: an error names the ARN and the rule, never the value.

Both engines may share one secret (a secret costs the same a month whatever it holds): the
service account's JSON key with the Bing key added as its ``api_key`` field. Each ARN is read
once a run, and the Bing key is never handed to Google's library.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from sitemap_updater.observe.run.engines import Engines
from sitemap_updater.observe.settings import ObserveConfig

if TYPE_CHECKING:
    from mypy_boto3_secretsmanager.client import SecretsManagerClient


class CredentialsError(ValueError):
    """A secret that cannot be read or is not in the form its engine needs."""


def _secret_text(secrets: SecretsManagerClient, arn: str) -> str:
    try:
        answer = secrets.get_secret_value(SecretId=arn)
    except Exception as error:  # botocore's ClientError and its transport errors alike
        code = getattr(error, "response", {}).get("Error", {}).get("Code", type(error).__name__)
        raise CredentialsError(f"secret {arn}: cannot be read: {code}") from None
    text = answer.get("SecretString")
    if not isinstance(text, str) or not text.strip():
        raise CredentialsError(f"secret {arn}: SecretString is empty (store the key as text)")
    return text


#: the field of a JSON secret that holds the Bing key (alone, or beside a service account key)
BING_KEY_FIELD = "api_key"


def service_account_info(secrets: SecretsManagerClient, arn: str) -> dict[str, Any]:
    """The Google service account's JSON key stored in the secret ``arn``."""
    return _service_account(_secret_text(secrets, arn), arn)


def _service_account(text: str, arn: str) -> dict[str, Any]:
    try:
        info = json.loads(text)
    except json.JSONDecodeError:
        raise CredentialsError(
            f"secret {arn}: is not JSON (store the service account's key file as it is)"
        ) from None
    needed = ("client_email", "private_key", "token_uri")
    if not isinstance(info, dict) or any(not isinstance(info.get(k), str) for k in needed):
        raise CredentialsError(
            f"secret {arn}: a service account key needs {', '.join(needed)} "
            "(the JSON key file Google Cloud gives)"
        )
    return {name: value for name, value in info.items() if name != BING_KEY_FIELD}


def bing_api_key(secrets: SecretsManagerClient, arn: str) -> str:
    """The Bing Webmaster API key stored in the secret ``arn``: the key as plain text, or a
    JSON object with ``api_key`` (which may be the service account's key, shared)."""
    return _bing_key(_secret_text(secrets, arn), arn)


def _bing_key(text: str, arn: str) -> str:
    text = text.strip()
    if text.startswith("{"):
        try:
            key = json.loads(text).get(BING_KEY_FIELD)
        except (json.JSONDecodeError, AttributeError):
            key = None
        if not isinstance(key, str) or not key:
            raise CredentialsError(f"secret {arn}: a JSON secret needs a text field api_key")
        return key
    if any(char.isspace() for char in text):
        raise CredentialsError(f"secret {arn}: a Bing API key holds no white space")
    return text


def engine_clients(config: ObserveConfig, secrets: SecretsManagerClient) -> Engines:
    """The clients of the engines the settings turn on, signed in with their secrets."""
    # here: an engine's client and its auth library load only once a run needs them (the
    # observer's cold start)
    from sitemap_updater.engines.bing import BingWebmaster
    from sitemap_updater.engines.search_console import SearchConsole

    texts: dict[str, str] = {}

    def text_of(arn: str) -> str:
        if arn not in texts:
            texts[arn] = _secret_text(secrets, arn)
        return texts[arn]

    engines = Engines()
    if config.search_console_secret_arn:
        arn = config.search_console_secret_arn
        info = _service_account(text_of(arn), arn)
        roots = (
            {"api_root": config.search_console_api_root} if config.search_console_api_root else {}
        )
        engines.search_console = SearchConsole(
            info, deadline_seconds=config.deadline_seconds, **roots
        )
    if config.bing_secret_arn:
        key = _bing_key(text_of(config.bing_secret_arn), config.bing_secret_arn)
        roots = {"api_root": config.bing_api_root} if config.bing_api_root else {}
        engines.bing = BingWebmaster(key, deadline_seconds=config.deadline_seconds, **roots)
    return engines
