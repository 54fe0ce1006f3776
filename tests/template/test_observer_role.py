"""The observer's role reaches its own items and the published files only, and every call the
observer makes is one it grants.

The role's statements are read from template.yaml after SAM's transform. The calls are the
observer's own: it runs on the local deployment (stand-ins of the site and both engines, the
unhealthy URLs excluded and one restored), and every DynamoDB and S3 request its clients send is
recorded through botocore's ``provide-client-params`` event, the request's parameters as the
code gave them. moto does not evaluate IAM conditions, so each request is judged here against
the statements by :func:`allowed`: the actions and resources, and the condition operators the
role uses, as IAM evaluates them ("IAM JSON policy elements: Condition operators" and DynamoDB's
"Using IAM policy conditions for fine-grained access control"): ``dynamodb:LeadingKeys`` is the
request's partition key, ``dynamodb:Attributes`` every top-level attribute it names (its key, the
item, and every expression), ``dynamodb:ReturnValues`` its ReturnValues; a ``ForAllValues``
condition holds for every value, an ``IfExists`` one where the key is absent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatchcase
from typing import Any

import boto3
import pytest

from sitemap_updater.observe.exclusion import EXCLUDED_PK
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import observed_site
from sitemap_updater_local.standins.site import SiteAnswer
from tests.template.calls import iam_action
from tests.template.cfn import Resolver, Template, load_template, sam_transform

SITE = "https://www.example.com"
START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
OBSERVED = {
    "HealthChecksPerDay": "480",
    "ExcludeUnhealthy": "true",
    "ExcludeAfterFailures": "2",
}
#: the top-level attribute names an expression holds: #placeholders and plain names
_NAME = re.compile(r"#\w+|(?<![:\w#])[A-Za-z_]\w*")
#: the words of the expression syntax, which are not attribute names
_SYNTAX = {
    "SET", "REMOVE", "ADD", "DELETE", "AND", "OR", "NOT", "BETWEEN", "IN",
    "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains",
    "size", "if_not_exists", "list_append",
}  # fmt: skip
_EXPRESSIONS = (
    "UpdateExpression",
    "ConditionExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
)


@dataclass(frozen=True)
class Request:
    """One API request as IAM sees it: its action, resource and condition keys."""

    action: str
    resource: str
    keys: dict[str, list[str]]


def _names_in(params: dict[str, Any]) -> set[str]:
    aliases = params.get("ExpressionAttributeNames", {})
    found = set(params.get("Key", {})) | set(params.get("Item", {}))
    for field in _EXPRESSIONS:
        for token in _NAME.findall(params.get(field, "")):
            if token not in _SYNTAX:
                found.add(aliases.get(token, token))
    return found


def _partition_keys(params: dict[str, Any]) -> list[str]:
    for field in ("Key", "Item"):
        if field in params:
            return [params[field]["pk"]["S"]]
    aliases = params.get("ExpressionAttributeNames", {})
    values = params.get("ExpressionAttributeValues", {})
    for name, value in re.findall(r"(#?\w+)\s*=\s*(:\w+)", params["KeyConditionExpression"]):
        if aliases.get(name, name) == "pk":
            return [values[value]["S"]]
    raise AssertionError(f"no partition key in {params}")


def dynamodb_request(operation: str, params: dict[str, Any], tables: dict[str, str]) -> Request:
    keys = {
        "dynamodb:LeadingKeys": _partition_keys(params),
        "dynamodb:Attributes": sorted(_names_in(params)),
    }
    if "ReturnValues" in params:
        keys["dynamodb:ReturnValues"] = [params["ReturnValues"]]
    return Request(iam_action("dynamodb", operation), tables[params["TableName"]], keys)


def s3_request(operation: str, params: dict[str, Any], bucket: str) -> Request:
    assert params["Bucket"] == bucket
    return Request(iam_action("s3", operation), f"<Bucket.Arn>/{params['Key']}", {})


def _holds(operator: str, wanted: dict[str, Any], request: Request) -> bool:
    qualifier, _, test = operator.rpartition(":")
    match = {"StringEquals": lambda v, p: v == p, "StringLike": fnmatchcase}
    if_exists = test.endswith("IfExists")
    compare = match[test.removesuffix("IfExists")]
    for key, patterns in wanted.items():
        patterns = patterns if isinstance(patterns, list) else [patterns]
        values = request.keys.get(key)
        if values is None:
            if qualifier == "ForAllValues" or if_exists:
                continue  # IAM: an absent key satisfies both
            return False
        hits = [any(compare(v, p) for p in patterns) for v in values]
        if qualifier == "ForAllValues":
            if not all(hits):
                return False
        elif qualifier == "" and not (len(values) == 1 and hits[0]):
            return False
        elif qualifier not in {"", "ForAllValues"}:
            raise AssertionError(f"condition operator {operator} is not modelled here")
    return True


def _applies(statement: dict[str, Any], request: Request) -> bool:
    actions = (
        statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
    )
    resources = statement["Resource"]
    resources = resources if isinstance(resources, list) else [resources]
    return (
        request.action in actions
        and any(fnmatchcase(request.resource, r) for r in resources)
        and all(_holds(op, keys, request) for op, keys in statement.get("Condition", {}).items())
    )


def allowed(statements: list[dict[str, Any]], request: Request) -> bool:
    """What IAM answers: some Allow applies and no Deny does."""
    effects = {s["Effect"] for s in statements if _applies(s, request)}
    return "Allow" in effects and "Deny" not in effects


def observer_statements(parameters: dict[str, str]) -> list[dict[str, Any]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        cfn: Template = sam_transform(load_template(), {"SiteUrl": SITE, **parameters})
    role = cfn["Resources"]["ObserveFunction"]["Properties"]["Role"]["Fn::GetAtt"][0]
    written = [
        s
        for p in cfn["Resources"][role]["Properties"]["Policies"]
        for s in p["PolicyDocument"]["Statement"]
    ]
    return list(Resolver(cfn, {"SiteUrl": SITE, **parameters}).value(written))


@pytest.fixture(scope="module")
def statements() -> list[dict[str, Any]]:
    return observer_statements({})


# ---------------------------------------------------------------- what the role allows


def item(action: str, table: str, pk: str, *names: str, **extra: list[str]) -> Request:
    return Request(
        f"dynamodb:{action}",
        f"<{table}.Arn>",
        {"dynamodb:LeadingKeys": [pk], "dynamodb:Attributes": ["pk", "sk", *names], **extra},
    )


@pytest.mark.parametrize(
    "request_",
    [
        item("PutItem", "StateTable", "observe#figures", "data"),
        item("DeleteItem", "StateTable", f"{EXCLUDED_PK}{SITE}#pages"),
        item("Query", "StateTable", "observe#url#https://www.example.com#pages"),
        item("UpdateItem", "StateTable", "observe#budget", "used", "ttl"),
        item("GetItem", "StateTable", "meta"),
        item("Query", "StateTable", "hosts#0123456789abcdef"),
        item("Query", "StateTable", "tree#0123456789abcdef#www.example.de/"),
        item("UpdateItem", "Table", "u#a", "excl", "wt", "st"),
        Request("s3:GetObject", "<Bucket.Arn>/sitemap-pages-r.xml.gz", {}),
        Request("s3:GetObject", "<Bucket.Arn>/www.example.de/sitemap-articles-r01.xml.gz", {}),
    ],
)
def test_its_own_items_the_publish_record_the_mark_and_the_files_are_allowed(
    statements: list[dict[str, Any]], request_: Request
) -> None:
    assert allowed(statements, request_)


@pytest.mark.parametrize(
    "request_",
    [
        # the rebuild's lease, publish record and checkpoint: read at most, never written
        item("PutItem", "StateTable", "meta", "holder"),
        item("UpdateItem", "StateTable", "meta", "generation"),
        item("DeleteItem", "StateTable", "meta"),
        item("Query", "StateTable", "meta"),
        # the trees, the held marks and the retire ledger
        item("PutItem", "StateTable", "tree#0123456789abcdef#", "leaves"),
        item("DeleteItem", "StateTable", "hosts#0123456789abcdef"),
        item("Query", "StateTable", "held#0123456789abcdef"),
        item("DeleteItem", "StateTable", "retired"),
        # a URL item's other attributes, or all of them back
        item("UpdateItem", "Table", "u#a", "loc"),
        item("UpdateItem", "Table", "u#a", "excl", "ttl"),
        item("UpdateItem", "Table", "u#a", "excl", **{"dynamodb:ReturnValues": ["ALL_OLD"]}),
        item("PutItem", "Table", "u#a", "excl"),
        item("DeleteItem", "Table", "u#a"),
        item("GetItem", "Table", "u#a"),
        # a partition that is not a URL's
        item("UpdateItem", "Table", "u#ab", "excl"),
        item("UpdateItem", "StateTable", "u#a", "excl"),
        # the rebuild's private objects, and what is not a sitemap file
        Request("s3:GetObject", "<Bucket.Arn>/state/indexnow-pending.json.gz", {}),
        Request("s3:GetObject", "<Bucket.Arn>/state/sitemap-x", {}),
        Request("s3:GetObject", "<Bucket.Arn>/robots.txt", {}),
        Request("s3:PutObject", "<Bucket.Arn>/sitemap-pages-r.xml.gz", {}),
        Request("dynamodb:Scan", "<StateTable.Arn>", {}),
    ],
)
def test_the_rebuilds_items_other_attributes_and_private_objects_are_not(
    statements: list[dict[str, Any]], request_: Request
) -> None:
    assert not allowed(statements, request_)


# ---------------------------------------------------------------- what the observer does


@pytest.fixture(scope="module")
def observer_calls() -> Iterator[tuple[list[Request], list[dict[str, Any]]]]:
    """Every DynamoDB and S3 request of three observer runs (exclusions made, one undone), and
    the role's statements for the parameters they ran with."""
    clock = SimulatedClock(START)
    recorded: list[tuple[str, str, dict[str, Any]]] = []
    recording = False

    def record(params: dict[str, Any], model: Any, **_: Any) -> None:
        if recording:
            recorded.append((model.service_model.service_name, model.name, dict(params)))

    with observed_site(articles=6, clock=clock, parameters=OBSERVED) as site:
        dep = site.deployment
        dep.send(site.page_changes(START - timedelta(hours=1)))
        dep.drain()
        dep.rebuild_until_clean()
        session = boto3.DEFAULT_SESSION
        assert session is not None  # the deployment's, which the functions make clients from
        for service in ("dynamodb", "s3"):
            session.events.register(f"provide-client-params.{service}", record)
        recording = True
        for _ in range(2):  # the second run in a row finds the problems again: excluded
            dep.observe()
            clock.advance(3600)
        site.site.pages["/missing"] = SiteAnswer()  # healthy again: restored
        dep.observe()
        recording = False
        environment = dep.observe_function.environment
        tables = {
            environment["STATE_TABLE_NAME"]: "<StateTable.Arn>",
            environment["TABLE_NAME"]: "<Table.Arn>",
        }
        requests = [
            dynamodb_request(op, params, tables)
            if service == "dynamodb"
            else s3_request(op, params, environment["BUCKET_NAME"])
            for service, op, params in recorded
        ]
    yield requests, observer_statements(OBSERVED)


def test_every_call_the_observer_makes_is_one_its_role_allows(
    observer_calls: tuple[list[Request], list[dict[str, Any]]],
) -> None:
    requests, statements = observer_calls
    refused = [r for r in requests if not allowed(statements, r)]
    assert refused == []


def test_the_runs_wrote_exclusions_and_undid_one(
    observer_calls: tuple[list[Request], list[dict[str, Any]]],
) -> None:
    # what makes the comparison above cover every kind of call the role grants
    requests, _ = observer_calls
    made = {(r.action, r.resource) for r in requests}
    assert {
        ("dynamodb:GetItem", "<StateTable.Arn>"),
        ("dynamodb:PutItem", "<StateTable.Arn>"),
        ("dynamodb:DeleteItem", "<StateTable.Arn>"),
        ("dynamodb:Query", "<StateTable.Arn>"),
        ("dynamodb:UpdateItem", "<Table.Arn>"),
    } <= made
    assert any(r.action == "s3:GetObject" for r in requests)
    marks = [r for r in requests if r.resource == "<Table.Arn>"]
    assert marks and all(r.keys["dynamodb:LeadingKeys"][0].startswith("u#") for r in marks)
    assert all("excl" in r.keys["dynamodb:Attributes"] for r in marks)
    # an exclusion undone: its record in the state table deleted
    assert any(r.action == "dynamodb:DeleteItem" for r in requests)
