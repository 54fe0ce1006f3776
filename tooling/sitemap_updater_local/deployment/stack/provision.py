"""Create the template's stateful resources on moto with boto3, and bind their physical values.

moto cannot apply the SAM transform, so the resources are created here from the template's own
properties: the table (keys, indexes, billing mode, TTL, stream), the queues (visibility timeout,
retention, redrive policy with its ``maxReceiveCount``), the buckets and the CloudFront
distributions. Every other resource (roles, policies, alarms, the origin access control, ...) has
no local counterpart; it is bound to a placeholder so that references to it still resolve.
Resources are created in dependency order: a resource waits until everything it refers to exists.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import boto3

from sitemap_updater_local.deployment.stack.tables import create_table
from sitemap_updater_local.deployment.stack.template import (
    ACCOUNT_ID,
    REGION,
    Template,
    TemplateError,
)

Clients = dict[str, Any]


@dataclass
class Stack:
    """Physical names of what was created, by logical id."""

    tables: dict[str, str] = field(default_factory=dict)
    queues: dict[str, str] = field(default_factory=dict)  # logical id -> queue URL
    queue_arns: dict[str, str] = field(default_factory=dict)  # ARN -> queue URL
    buckets: dict[str, str] = field(default_factory=dict)
    distributions: dict[str, str] = field(default_factory=dict)


def _name(tpl: Template, logical_id: str, explicit: Any, lower: bool = False) -> str:
    name = str(explicit) if explicit else f"{tpl.stack_name}-{logical_id}"
    return name.lower() if lower else name


def _create_table(tpl: Template, lid: str, props: dict[str, Any], c: Clients, st: Stack) -> None:
    name = _name(tpl, lid, props.get("TableName"))
    desc = create_table(c["dynamodb"], name, props)
    st.tables[lid] = name
    attrs = {"Arn": desc["TableArn"]}
    if "LatestStreamArn" in desc:
        attrs["StreamArn"] = desc["LatestStreamArn"]
    tpl.bind(lid, name, **attrs)


_QUEUE_ATTRIBUTES = (
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "MaximumMessageSize",
    "ReceiveMessageWaitTimeSeconds",
    "FifoQueue",
    "ContentBasedDeduplication",
)


def _create_queue(tpl: Template, lid: str, props: dict[str, Any], c: Clients, st: Stack) -> None:
    fifo = str(props.get("FifoQueue", "false")).lower() == "true"
    name = _name(tpl, lid, props.get("QueueName"))
    if fifo and not name.endswith(".fifo"):
        name += ".fifo"
    attributes = {k: _text(props[k]) for k in _QUEUE_ATTRIBUTES if k in props}
    redrive = props.get("RedrivePolicy")
    if redrive:
        attributes["RedrivePolicy"] = json.dumps(
            {
                "deadLetterTargetArn": redrive["deadLetterTargetArn"],
                "maxReceiveCount": int(redrive["maxReceiveCount"]),
            }
        )
    url = c["sqs"].create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:{name}"
    st.queues[lid] = url
    st.queue_arns[arn] = url
    tpl.bind(lid, url, Arn=arn, QueueName=name, QueueUrl=url)


def _create_bucket(tpl: Template, lid: str, props: dict[str, Any], c: Clients, st: Stack) -> None:
    name = _name(tpl, lid, props.get("BucketName"), lower=True)
    c["s3"].create_bucket(Bucket=name)
    versioning = props.get("VersioningConfiguration", {}).get("Status")
    if versioning:
        c["s3"].put_bucket_versioning(
            Bucket=name, VersioningConfiguration={"Status": str(versioning)}
        )
    st.buckets[lid] = name
    tpl.bind(
        lid,
        name,
        Arn=f"arn:aws:s3:::{name}",
        DomainName=f"{name}.s3.amazonaws.com",
        RegionalDomainName=f"{name}.s3.{REGION}.amazonaws.com",
        DualStackDomainName=f"{name}.s3.dualstack.{REGION}.amazonaws.com",
        WebsiteURL=f"http://{name}.s3-website-{REGION}.amazonaws.com",
    )


def _create_distribution(
    tpl: Template, lid: str, props: dict[str, Any], c: Clients, st: Stack
) -> None:
    config = props.get("DistributionConfig", {})
    origins = [
        {
            "Id": str(o.get("Id", f"origin{i}")),
            "DomainName": str(o["DomainName"]),
            "S3OriginConfig": {"OriginAccessIdentity": ""},
        }
        for i, o in enumerate(config.get("Origins", []))
    ]
    if not origins:
        raise TemplateError(f"distribution {lid}: DistributionConfig.Origins is empty")
    behavior = config.get("DefaultCacheBehavior", {})
    cache_behavior: dict[str, Any] = {
        "TargetOriginId": str(behavior.get("TargetOriginId", origins[0]["Id"])),
        "ViewerProtocolPolicy": str(behavior.get("ViewerProtocolPolicy", "redirect-to-https")),
    }
    if behavior.get("CachePolicyId"):
        cache_behavior["CachePolicyId"] = str(behavior["CachePolicyId"])
    else:
        cache_behavior["ForwardedValues"] = {"QueryString": False, "Cookies": {"Forward": "none"}}
        cache_behavior["MinTTL"] = 0
    if "Compress" in behavior:
        cache_behavior["Compress"] = _text(behavior["Compress"]) == "true"
    if behavior.get("AllowedMethods"):
        allowed = [str(m) for m in behavior["AllowedMethods"]]
        cached = [str(m) for m in behavior.get("CachedMethods") or ["GET", "HEAD"]]
        cache_behavior["AllowedMethods"] = {
            "Quantity": len(allowed),
            "Items": allowed,
            "CachedMethods": {"Quantity": len(cached), "Items": cached},
        }
    if behavior.get("ResponseHeadersPolicyId"):
        cache_behavior["ResponseHeadersPolicyId"] = str(behavior["ResponseHeadersPolicyId"])
    # CloudFormation's property names where they differ from the API's (IPV6Enabled).
    settings: dict[str, Any] = {
        key: str(config[key]) for key in ("PriceClass", "HttpVersion") if key in config
    }
    if "IPV6Enabled" in config:
        settings["IsIPV6Enabled"] = _text(config["IPV6Enabled"]) == "true"
    aliases = [str(a) for a in config.get("Aliases") or []]
    if aliases:
        settings["Aliases"] = {"Quantity": len(aliases), "Items": aliases}
    dist = c["cloudfront"].create_distribution(
        DistributionConfig={
            "CallerReference": f"{tpl.stack_name}-{lid}",
            "Comment": str(config.get("Comment", "")),
            "Enabled": True,
            "DefaultRootObject": str(config.get("DefaultRootObject", "")),
            "Origins": {"Quantity": len(origins), "Items": origins},
            "DefaultCacheBehavior": cache_behavior,
            **settings,
        }
    )["Distribution"]
    st.distributions[lid] = dist["Id"]
    tpl.bind(lid, dist["Id"], Id=dist["Id"], DomainName=dist["DomainName"])


Creator = Callable[[Template, str, dict[str, Any], Clients, Stack], None]
CREATORS: dict[str, Creator] = {
    "AWS::DynamoDB::Table": _create_table,
    "AWS::SQS::Queue": _create_queue,
    "AWS::S3::Bucket": _create_bucket,
    "AWS::CloudFront::Distribution": _create_distribution,
}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def provision(tpl: Template, clients: Clients) -> Stack:
    """Create every supported resource of ``tpl`` in dependency order; bind the rest."""
    stack = Stack()
    pending: dict[str, str] = {}
    for lid, res in tpl.body.get("Resources", {}).items():
        rtype = str(res.get("Type", ""))
        cond = res.get("Condition")
        if cond is not None and not tpl.condition(cond):
            continue
        if rtype in CREATORS:
            pending[lid] = rtype
        elif rtype == "AWS::Serverless::Function":
            name = str(res.get("Properties", {}).get("FunctionName") or f"{tpl.stack_name}-{lid}")
            tpl.bind(lid, name, Arn=f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{name}")
        else:
            tpl.bind_placeholder(lid)
    while pending:
        progressed = False
        errors = {}
        for lid, rtype in list(pending.items()):
            try:
                props = tpl.properties(lid)
            except TemplateError as exc:  # refers to something not created yet
                errors[lid] = str(exc)
                continue
            CREATORS[rtype](tpl, lid, props, clients, stack)
            del pending[lid]
            progressed = True
        if not progressed:
            first = sorted(errors)[0]
            raise TemplateError(f"resource {first} cannot be created locally: {errors[first]}")
    return stack


def register(template: Template) -> str:
    """Record a deployment of ``template`` as a CloudFormation stack of the emulated account,
    named after the template's stack, whose outputs are the template's ``Outputs`` as resolved
    here (one that needs a value the local deployment lacks is left out), so that a client
    finding a stack by name (``sitemap-updater status``) finds this one; returns the name."""
    outputs: dict[str, str] = {}
    for key, spec in template.body.get("Outputs", {}).items():
        if "Condition" in spec and not template.condition(spec["Condition"]):
            continue
        try:
            value = template.resolve(spec["Value"])
        except TemplateError:
            continue
        if value is not None:
            outputs[key] = str(value)
    body = {
        "Resources": {"Stack": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
        "Outputs": {key: {"Value": value} for key, value in outputs.items()},
    }
    cloudformation = boto3.Session(region_name=REGION).client("cloudformation")
    with warnings.catch_warnings():  # moto creates nothing for the handle, and says so
        warnings.filterwarnings("ignore", "Tried to parse AWS::CloudFormation::WaitCondition")
        cloudformation.create_stack(StackName=template.stack_name, TemplateBody=json.dumps(body))
    return template.stack_name


def invalidations_of(cloudfront: Any, distribution_id: str | None) -> list[tuple[str, list[str]]]:
    """Every CloudFront invalidation of the distribution: (id, paths), oldest first."""
    if not distribution_id:
        return []
    items = []
    paginator = cloudfront.get_paginator("list_invalidations")
    for page in paginator.paginate(DistributionId=distribution_id):
        items += page.get("InvalidationList", {}).get("Items", [])
    items.sort(key=lambda i: i["CreateTime"])
    out = []
    for item in items:
        batch = cloudfront.get_invalidation(DistributionId=distribution_id, Id=item["Id"])[
            "Invalidation"
        ]["InvalidationBatch"]
        out.append((item["Id"], list(batch["Paths"].get("Items", []))))
    return out
