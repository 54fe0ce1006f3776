"""Each function's role grants exactly the AWS actions its code calls: none missing, none extra.

The calls are read from the code (tests/template/calls.py: the handler and every shared module
it imports), the grants from the roles SAM's offline transform generates. A new boto3 call in the
shared package therefore fails here, naming the action and the line that needs it, until the
template grants it; a grant whose last call was removed fails here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.template.calls import AmbiguousCall, Call, calls_in, calls_of, iam_action
from tests.template.cfn import ROOT, Template, load_template, resources_of_type, sam_transform

SITE = "https://www.example.com"
FUNCTIONS = sorted(resources_of_type(load_template(), "AWS::Serverless::Function"))


@pytest.fixture(scope="module")
def source() -> Template:
    return load_template()


@pytest.fixture(scope="module")
def cfn(source: Template) -> Template:
    with pytest.MonkeyPatch.context() as mp:
        # The translator reads the region from the default boto3 session.
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        return sam_transform(source, {"SiteUrl": SITE})


def handler_file(function: dict[str, Any]) -> Path:
    props = function["Properties"]
    module = props["Handler"].rsplit(".", 1)[0]
    return ROOT / props["CodeUri"] / (module.replace(".", "/") + ".py")


#: What Lambda itself does with a function's role, not the function's code: write its logs and
#: traces, and (for an SQS event source) poll the queue. A role of the template's own grants them
#: (the ingest function's); SAM's managed policies do for a role it generates (test_transform.py
#: asserts both).
LAMBDAS_OWN = {
    "logs:CreateLogStream",
    "logs:PutLogEvents",
    "xray:PutTraceSegments",
    "xray:PutTelemetryRecords",
    "sqs:ReceiveMessage",
    "sqs:DeleteMessage",
    "sqs:GetQueueAttributes",
}


#: What Lambda does with one function's role on its behalf: the rebuild's urgent event source
#: mapping polls the table's stream (ListStreams beside the calls its code makes too) and sends
#: the description of a batch it gave up on to its failure queue.
LAMBDAS_OWN_FOR = {"RebuildFunction": {"dynamodb:ListStreams", "sqs:SendMessage"}}


def granted_actions(cfn: Template, function_id: str) -> set[str]:
    """Actions the function's role allows through its own policies for its code: what Lambda
    does on the function's behalf (``LAMBDAS_OWN``) aside, as are SAM's managed policies."""
    role_id = cfn["Resources"][function_id]["Properties"]["Role"]["Fn::GetAtt"][0]
    actions: set[str] = set()
    for policy in cfn["Resources"][role_id]["Properties"].get("Policies", []):
        for written in policy["PolicyDocument"]["Statement"]:
            # a grant that exists under a condition (an engine's secret) counts as granted
            statement = written["Fn::If"][1] if "Fn::If" in written else written
            if statement["Effect"] == "Allow":
                action = statement["Action"]
                actions.update(action if isinstance(action, list) else [action])
    return actions - LAMBDAS_OWN - LAMBDAS_OWN_FOR.get(function_id, set())


@pytest.mark.parametrize("function_id", FUNCTIONS)
def test_granted_actions_are_exactly_the_called_ones(
    source: Template, cfn: Template, function_id: str
) -> None:
    calls = calls_of(handler_file(source["Resources"][function_id]))
    called = {call.action for call in calls}
    granted = granted_actions(cfn, function_id)
    missing = {
        action: sorted(call.where for call in calls if call.action == action)
        for action in sorted(called - granted)
    }
    extra = sorted(granted - called)
    assert not missing, f"{function_id} calls but is not granted (add to template.yaml): {missing}"
    assert not extra, f"{function_id} is granted but never calls (remove): {extra}"


def test_every_function_calls_aws(source: Template) -> None:
    # The scan finds the calls at all: an empty result would make the comparison vacuous.
    for function_id in FUNCTIONS:
        assert calls_of(handler_file(source["Resources"][function_id])), function_id


MODULE = """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient
    from mypy_boto3_s3.client import S3Client


def read(streams: "DynamoDBStreamsClient", s3: "S3Client") -> None:
    streams.describe_stream(StreamArn="x")
    streams.get_shard_iterator(StreamArn="x", ShardId="s", ShardIteratorType="LATEST")
    streams.get_records(ShardIterator="i")
    s3.get_object(Bucket="b", Key="state/k")
    s3.head_object(Bucket="b", Key="k")
    s3.get_paginator("list_objects_v2").paginate(Bucket="b")
    {}.get("not an AWS call")
"""


def test_calls_map_to_the_actions_that_authorize_them(tmp_path: Path) -> None:
    module = tmp_path / "reader.py"
    module.write_text(MODULE, encoding="utf-8")
    found = calls_in(module)
    assert {(c.operation, c.action) for c in found} == {
        ("DescribeStream", "dynamodb:DescribeStream"),
        ("GetShardIterator", "dynamodb:GetShardIterator"),
        ("GetRecords", "dynamodb:GetRecords"),
        ("GetObject", "s3:GetObject"),
        ("HeadObject", "s3:GetObject"),
        ("ListObjectsV2", "s3:ListBucket"),
    }
    assert all(isinstance(c, Call) and c.where.startswith(str(module)) for c in found)


@pytest.mark.parametrize(
    ("service", "operation", "action"),
    [
        ("dynamodb", "BatchGetItem", "dynamodb:BatchGetItem"),
        ("sqs", "SendMessageBatch", "sqs:SendMessage"),
        ("sqs", "SendMessage", "sqs:SendMessage"),
        ("cloudfront", "CreateInvalidation", "cloudfront:CreateInvalidation"),
    ],
)
def test_iam_action_names(service: str, operation: str, action: str) -> None:
    assert iam_action(service, operation) == action


def test_a_method_two_held_clients_share_is_refused(tmp_path: Path) -> None:
    module = tmp_path / "both.py"
    module.write_text(
        "import boto3\n"
        "table = boto3.client('dynamodb')\n"
        "topic = boto3.client('sns')\n"
        "topic.tag_resource(ResourceArn='a', Tags=[])\n",
        encoding="utf-8",
    )
    with pytest.raises(AmbiguousCall, match="tag_resource"):
        calls_in(module)
