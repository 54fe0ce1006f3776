from __future__ import annotations

from pathlib import Path

import pytest

STACK_TEMPLATE = Path(__file__).parent / "stack" / "template.yaml"


@pytest.fixture
def stack_template() -> Path:
    return STACK_TEMPLATE
