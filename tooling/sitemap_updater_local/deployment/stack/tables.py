"""The template's DynamoDB tables, created on any DynamoDB endpoint from their declarations.

The local deployment provisions its tables through :func:`create_table`; tests and benchmarks
that need a table alone (without the functions) call :func:`create_template_table`. So the key
schema, billing mode, indexes, TTL and stream of each table are written once, in template.yaml.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sitemap_updater_local.deployment.stack.template import TemplateError, read_body


def create_table(dynamodb: Any, name: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """Create table ``name`` as the resolved properties ``props`` declare it, with its TTL;
    returns the ``TableDescription``."""
    args: dict[str, Any] = {
        "TableName": name,
        "KeySchema": props["KeySchema"],
        "AttributeDefinitions": props["AttributeDefinitions"],
        "BillingMode": props.get("BillingMode", "PROVISIONED"),
    }
    if args["BillingMode"] == "PROVISIONED":
        args["ProvisionedThroughput"] = {
            k: int(v) for k, v in props.get("ProvisionedThroughput", {}).items()
        }
    for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if props.get(key):
            args[key] = props[key]
    stream = props.get("StreamSpecification")
    if stream:
        args["StreamSpecification"] = {"StreamEnabled": True, **stream}
    description: dict[str, Any] = dynamodb.create_table(**args)["TableDescription"]
    ttl = props.get("TimeToLiveSpecification")
    if ttl and str(ttl.get("Enabled")).lower() == "true":
        dynamodb.update_time_to_live(
            TableName=name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
        )
    return description


def table_properties(template: str | Path, logical_id: str) -> dict[str, Any]:
    """The declared properties of the template's table ``logical_id``.

    The table declarations hold no intrinsic function, so they are read as written (no
    parameter needs a value)."""
    resource = read_body(template).get("Resources", {}).get(logical_id)
    if resource is None or resource.get("Type") != "AWS::DynamoDB::Table":
        raise TemplateError(f"{logical_id!r} is not a DynamoDB table of {template}")
    properties: dict[str, Any] = resource.get("Properties", {})
    return properties


def create_template_table(
    dynamodb: Any, template: str | Path, logical_id: str, name: str
) -> dict[str, Any]:
    """Create the template's table ``logical_id`` under ``name``; returns its description."""
    return create_table(dynamodb, name, table_properties(template, logical_id))
