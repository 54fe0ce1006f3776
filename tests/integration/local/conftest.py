from __future__ import annotations

from pathlib import Path

import pytest

STACK_TEMPLATE = Path(__file__).parent / "stack" / "template.yaml"


@pytest.fixture
def stack_template() -> Path:
    return STACK_TEMPLATE


@pytest.fixture
def moto_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and us-east-1 for clients made outside a local deployment, and no
    profile or endpoint of the machine's own."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
