"""events/: the hand-invocable samples exist and have the exact shape Lambda delivers."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.utilities.parser.models import EventBridgeModel, SqsModel

from tests.template.cfn import ROOT, load_template

EVENTS = ROOT / "events"

# One sample per path worth invoking by hand: upsert, delete, array body, EventBridge-wrapped
# body, poison record (ingest); the scheduled run and the full-rebuild request (rebuild).
REQUIRED = [
    "ingest-upsert.json",
    "ingest-delete.json",
    "ingest-array.json",
    "ingest-eventbridge.json",
    "ingest-poison.json",
    "rebuild-scheduled.json",
    "rebuild-full.json",
]


def load(name: str) -> Any:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))


def sample_files() -> list[Path]:
    return sorted(EVENTS.glob("*.json"))


def bodies(name: str) -> list[str]:
    return [str(r.body) for r in SqsModel.model_validate(load(name)).Records]


def test_every_required_sample_exists() -> None:
    missing = [name for name in REQUIRED if not (EVENTS / name).is_file()]
    assert missing == []


def test_every_file_in_events_is_a_json_object_for_a_known_handler() -> None:
    assert sample_files()
    for path in sample_files():
        assert path.name.startswith(("ingest-", "rebuild-")), path.name
        assert isinstance(json.loads(path.read_text(encoding="utf-8")), dict), path.name


@pytest.mark.parametrize(
    "path", [p for p in sample_files() if p.name.startswith("ingest-")], ids=lambda p: p.name
)
def test_ingest_samples_are_sqs_events_as_lambda_sends_them(path: Path) -> None:
    event = SqsModel.model_validate(load(path.name))
    assert event.Records
    ids = [r.messageId for r in event.Records]
    assert len(set(ids)) == len(ids)
    for record in event.Records:
        assert record.eventSource == "aws:sqs"
        assert isinstance(record.body, str)
        assert record.md5OfBody == hashlib.md5(record.body.encode("utf-8")).hexdigest()
        assert int(record.attributes.ApproximateReceiveCount) >= 1
        assert str(record.eventSourceARN).startswith(f"arn:aws:sqs:{record.awsRegion}:")


def test_ingest_samples_cover_each_body_form() -> None:
    (upsert,) = [json.loads(b) for b in bodies("ingest-upsert.json")]
    assert upsert["action"] == "upsert"
    (delete,) = [json.loads(b) for b in bodies("ingest-delete.json")]
    assert delete["action"] == "delete"
    (array,) = [json.loads(b) for b in bodies("ingest-array.json")]
    assert isinstance(array, list) and len(array) > 1
    (wrapped,) = [json.loads(b) for b in bodies("ingest-eventbridge.json")]
    EventBridgeModel.model_validate(wrapped)
    assert wrapped["detail"]["action"] in {"upsert", "delete"}


def test_eventbridge_sample_is_what_the_optional_rule_forwards() -> None:
    (body,) = bodies("ingest-eventbridge.json")
    event = EventBridgeModel.model_validate_json(body)
    params = load_template()["Parameters"]
    # The rule matches detail-type by default; the source is the producer's, set at deploy.
    assert event.detail_type == params["EventDetailType"]["Default"]
    assert event.source


def test_rebuild_samples_are_a_schedule_tick_and_a_full_rebuild_request() -> None:
    tick = EventBridgeModel.model_validate(load("rebuild-scheduled.json"))
    assert (tick.source, tick.detail_type) == ("aws.events", "Scheduled Event")
    assert "full_rebuild" not in load("rebuild-scheduled.json")
    assert load("rebuild-full.json") == {"full_rebuild": True}
