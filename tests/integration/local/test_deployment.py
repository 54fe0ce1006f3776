"""The local deployment against a small stand-in template with controllable handlers."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from sitemap_updater_local.deployment import LocalDeployment
from sitemap_updater_local.deployment.stack.template import TemplateError

SITE = "https://www.example.com"


def _ok(key: str) -> str:
    return json.dumps({"do": "ok", "key": key})


def _keys(dep: LocalDeployment) -> dict[str, int]:
    items = dep.dynamodb.scan(TableName=dep.table_name)["Items"]
    return {i["sk"]["S"]: int(i["receives"]["N"]) for i in items}


def test_resources_and_environment_come_from_the_template(stack_template: Path) -> None:
    with LocalDeployment(stack_template, SITE, parameters={"MaxReceiveCount": "7"}) as dep:
        table = dep.dynamodb.describe_table(TableName=dep.table_name)["Table"]
        assert {k["AttributeName"]: k["KeyType"] for k in table["KeySchema"]} == {
            "pk": "HASH",
            "sk": "RANGE",
        }
        ttl = dep.dynamodb.describe_time_to_live(TableName=dep.table_name)
        assert ttl["TimeToLiveDescription"]["AttributeName"] == "ttl"
        attrs = dep.sqs.get_queue_attributes(QueueUrl=dep.queue_url, AttributeNames=["All"])
        assert attrs["Attributes"]["VisibilityTimeout"] == "300"
        assert json.loads(attrs["Attributes"]["RedrivePolicy"])["maxReceiveCount"] == 7
        assert dep.max_receive_count == 7
        assert dep.batch_size == 4

        ingest_env = dep.ingest.environment
        assert ingest_env["TABLE_NAME"] == dep.table_name
        assert ingest_env["DLQ_URL"] == dep.dlq_url
        assert ingest_env["SITE_URL"] == SITE
        rebuild_env = dep.rebuild_function.environment
        assert rebuild_env["BUCKET_NAME"] == dep.bucket_name
        dist = dep.cloudfront.get_distribution(Id=rebuild_env["DISTRIBUTION_ID"])["Distribution"]
        assert rebuild_env["PUBLIC_BASE_URL"] == f"https://{dist['DomainName']}"
        assert rebuild_env["PUBLISH_ROBOTS_TXT"] == "false"
        origin = dist["DistributionConfig"]["Origins"]["Items"][0]
        assert origin["DomainName"].startswith(dep.bucket_name + ".s3.")
        assert dep.s3.head_bucket(Bucket=dep.bucket_name)


def test_condition_follows_a_parameter_override(stack_template: Path) -> None:
    with LocalDeployment(stack_template, SITE, parameters={"UseRobots": "true"}) as dep:
        assert dep.rebuild_function.environment["PUBLISH_ROBOTS_TXT"] == "true"


def test_bad_parameter_override_names_the_parameter_and_rule(stack_template: Path) -> None:
    before = dict(os.environ)
    with pytest.raises(TemplateError, match=r"NoSuchParam.*not declared"):
        LocalDeployment(stack_template, SITE, parameters={"NoSuchParam": "1"}).__enter__()
    with pytest.raises(TemplateError, match=r"UseRobots='maybe' must be one of"):
        LocalDeployment(stack_template, SITE, parameters={"UseRobots": "maybe"}).__enter__()
    assert dict(os.environ) == before  # a failed start undoes itself


def test_partial_batch_deletes_only_successes_and_redrives_after_max_receives(
    stack_template: Path,
) -> None:
    with LocalDeployment(stack_template, SITE) as dep:
        failing = json.dumps({"do": "fail", "n": 1})
        assert dep.send([_ok("a"), failing, _ok("b"), _ok("c")]) == []
        report = dep.drain()

        # the three successes were applied once and deleted after the first invocation
        assert _keys(dep) == {"a": 1, "b": 1, "c": 1}
        assert report.deleted == 3
        # the failure was received maxReceiveCount (3) times, then SQS moved it to the DLQ
        assert dep.ingest.invocations == 3
        assert report.retried == 3
        letters = dep.dead_letters()
        assert [d.body for d in letters] == [failing]
        assert letters[0].reason is None
        queue = dep.sqs.get_queue_attributes(QueueUrl=dep.queue_url, AttributeNames=["All"])
        assert queue["Attributes"]["ApproximateNumberOfMessages"] == "0"
        assert queue["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"
        # reading the DLQ does not consume it
        assert len(dep.dead_letters()) == 1


def test_an_exception_fails_the_whole_batch(stack_template: Path) -> None:
    with LocalDeployment(stack_template, SITE) as dep:
        dep.send([_ok("a"), json.dumps({"do": "raise"})])
        report = dep.drain()
        assert report.invocation_errors == ["RuntimeError: asked to raise"] * 3
        assert report.deleted == 0
        assert sorted(json.loads(d.body)["do"] for d in dep.dead_letters()) == ["ok", "raise"]
        # "a" was processed in every attempt: nothing of a failed invocation is deleted
        assert _keys(dep) == {"a": 3}


def test_records_are_in_lambda_shape_and_metrics_come_from_emf(stack_template: Path) -> None:
    with LocalDeployment(stack_template, SITE) as dep:
        dep.send([_ok("x"), json.dumps({"do": "reject", "why": "bad"})])
        seen: list[dict[str, object]] = []
        original = dep.mapping.invoke

        def spy(event: dict[str, object]) -> object:
            seen.append(event)
            return original(event)  # type: ignore[arg-type]

        dep.mapping.invoke = spy  # type: ignore[assignment]
        report = dep.drain()
        record = seen[0]["Records"][0]  # type: ignore[index]
        assert record["eventSource"] == "aws:sqs"
        assert record["eventSourceARN"] == dep.queue_arn
        assert record["awsRegion"] == "us-east-1"
        assert record["attributes"]["ApproximateReceiveCount"] == "1"
        assert int(record["attributes"]["SentTimestamp"]) > 0
        assert len(record["md5OfBody"]) == 32
        assert report.count("AcceptedRecords") == 1
        assert report.count("RejectedRecords") == 1
        [letter] = dep.dead_letters()
        assert letter.reason == "asked to"
        assert json.loads(letter.body) == {"do": "reject", "why": "bad"}


def test_rebuild_gets_a_schedule_event_and_a_shrinking_time_budget(
    stack_template: Path, tmp_path: Path
) -> None:
    with LocalDeployment(stack_template, SITE) as dep:
        dep.send([_ok("k1"), _ok("k2")])
        dep.drain()
        run = dep.rebuild(remaining_ms=5_000)
        assert run["source"] == "aws.events"
        assert run["full"] is False
        assert 0 < run["remaining_ms"] <= 5_000
        assert run["function_name"] == "sitemap-updater-local-Rebuild"
        assert dep.rebuild(full=True)["full"] is True
        assert len(dep.rebuild_until_clean()) == 1
        assert dep.invalidated_paths() == ["/keys.txt"] * 3
        [path] = dep.download(tmp_path)
        assert path == tmp_path / "keys.txt"
        assert path.read_text() == "k1\nk2"


def test_environment_is_restored_after_the_deployment(stack_template: Path) -> None:
    before = dict(os.environ)
    with LocalDeployment(stack_template, SITE) as dep:
        dep.send([_ok("a")])
        dep.drain()
        assert os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
        assert "TABLE_NAME" not in os.environ
    assert dict(os.environ) == before


def test_bodies_sqs_would_refuse_are_reported_and_the_rest_sent(stack_template: Path) -> None:
    big = json.dumps({"do": "ok", "key": "big", "pad": "x" * 262_144})
    with LocalDeployment(stack_template, SITE) as dep:
        failures = dep.send([_ok("a"), "", big, '{"do": "ok", "key": "\udcff"}', _ok("b")])
        assert [(f.code, f.body[:10]) for f in failures] == [
            ("MissingParameter", ""),
            ("InvalidParameterValue", big[:10]),
            ("InvalidMessageContents", '{"do": "ok'),
        ]
        assert "U+DCFF at offset 21" in failures[2].message
        dep.drain()
        assert _keys(dep) == {"a": 1, "b": 1}


def test_messages_sent_to_the_queue_itself_are_drained_through_it(stack_template: Path) -> None:
    with LocalDeployment(stack_template, SITE) as dep:
        failing = json.dumps({"do": "fail", "n": 2})
        dep.sqs.send_message_batch(
            QueueUrl=dep.queue_url,
            Entries=[{"Id": str(i), "MessageBody": b} for i, b in enumerate([_ok("q"), failing])],
        )
        report = dep.drain()
        assert _keys(dep) == {"q": 1}
        # moto's own redrive policy moved the failure after maxReceiveCount (3) receives
        assert report.retried == 3
        assert [d.body for d in dep.dead_letters()] == [failing]


def test_a_handed_message_and_a_queued_one_reach_the_function_in_the_same_shape(
    stack_template: Path,
) -> None:
    body = _ok("same")
    with LocalDeployment(stack_template, SITE) as dep:
        seen: list[dict[str, object]] = []
        original = dep.mapping.invoke

        def spy(event: dict[str, object]) -> object:
            seen.append(event)
            return original(event)  # type: ignore[arg-type]

        dep.mapping.invoke = spy  # type: ignore[assignment]
        dep.send([body])
        dep.drain()
        dep.sqs.send_message(QueueUrl=dep.queue_url, MessageBody=body)
        dep.drain()
    handed, queued = (event["Records"][0] for event in seen)  # type: ignore[index]
    assert handed.keys() == queued.keys()
    assert handed["attributes"].keys() == queued["attributes"].keys()
    for record in (handed, queued):
        assert record["body"] == body
        assert record["md5OfBody"] == hashlib.md5(body.encode()).hexdigest()
        assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert handed["messageId"] != queued["messageId"]
