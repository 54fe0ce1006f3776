"""The AWS API calls a function's code can make, read from the source (no AWS, no import).

A function's code path is its handler module and every module of the shared package it imports,
directly or through other modules (imports under ``if TYPE_CHECKING:`` are types only and are not
followed). In each module:

- the *clients* are the services it names through a boto3 type stub import
  (``from mypy_boto3_dynamodb.client import DynamoDBClient``) or a ``boto3.client("sqs")`` call;
- a *call* is any ``<expr>.<method>(...)`` whose method is an operation of one of those services
  in botocore's own service model (``put_item`` is DynamoDB ``PutItem``), and
  ``<expr>.get_paginator("<method>")`` counts as ``<method>``.

`iam_action` turns an operation into the IAM action that authorizes it: the service's IAM prefix
and, almost always, the operation's own name. The few operations authorized by another action are
listed in `ACTION_OF`, each from the service's "Actions, resources, and condition keys" page
(https://docs.aws.amazon.com/service-authorization/latest/reference/).

Code that Powertools runs makes no AWS call of its own here: logs and metrics go to stdout (EMF),
traces to the X-Ray daemon, and the SQS event source mapping deletes the messages, not the code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import botocore.session
from botocore import xform_name

from tests.template.cfn import ROOT

PACKAGE = "sitemap_updater"
PACKAGE_ROOT = ROOT / "layers" / "shared"
STUB_PREFIX = "mypy_boto3_"

#: botocore service name -> IAM service prefix, where they differ. DynamoDB Streams is
#: authorized under dynamodb: (dynamodb:DescribeStream, GetShardIterator, GetRecords).
PREFIX_OF = {"dynamodbstreams": "dynamodb"}

#: (botocore service, operation) -> IAM action name, where it is not the operation's own name.
ACTION_OF = {
    ("s3", "ListObjectsV2"): "ListBucket",  # S3: ListObjectsV2 needs s3:ListBucket
    ("s3", "ListObjects"): "ListBucket",
    ("s3", "HeadObject"): "GetObject",  # S3: HeadObject needs s3:GetObject
    ("sqs", "SendMessageBatch"): "SendMessage",  # SQS: batch actions use the single ones
    ("sqs", "DeleteMessageBatch"): "DeleteMessage",
    ("sqs", "ChangeMessageVisibilityBatch"): "ChangeMessageVisibility",
}


@dataclass(frozen=True, order=True)
class Call:
    """One AWS API operation called from the code, and where."""

    service: str  # botocore service name, e.g. "dynamodb"
    operation: str  # API operation name, e.g. "PutItem"
    where: str  # path:line of the call

    @property
    def action(self) -> str:
        return iam_action(self.service, self.operation)


class AmbiguousCall(Exception):
    """A method name that is an operation of more than one client the module holds."""


def iam_action(service: str, operation: str) -> str:
    prefix = PREFIX_OF.get(service, service)
    return f"{prefix}:{ACTION_OF.get((service, operation), operation)}"


@cache
def operations(service: str) -> dict[str, str]:
    """boto3 method name -> API operation name, for one service, from botocore's model."""
    model = botocore.session.get_session().get_service_model(service)
    return {xform_name(op): op for op in model.operation_names}


def module_file(name: str) -> Path | None:
    """The source file of a module of the shared package, or None for any other module."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    base = PACKAGE_ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.Module, path: Path) -> Iterator[str]:
    """Module names imported at run time (not under ``if TYPE_CHECKING:``)."""
    package = _module_name(path) if path.is_relative_to(PACKAGE_ROOT) else ""
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]

    def visit(nodes: list[ast.stmt]) -> Iterator[str]:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from visit(node.orelse)
            elif isinstance(node, ast.Import):
                yield from (alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    anchor = parts[: len(parts) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                yield base
                # `from pkg import name` may import the submodule pkg.name.
                yield from (f"{base}.{alias.name}" for alias in node.names)
            else:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        yield from visit([child])
                    elif isinstance(child, ast.excepthandler):
                        yield from visit(child.body)

    yield from visit(tree.body)


def code_path(handler: Path) -> list[Path]:
    """The handler file and every shared-package module it reaches through imports."""
    seen: dict[Path, None] = {handler: None}
    queue = [handler]
    while queue:
        path = queue.pop()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in _runtime_imports(tree, path):
            found = module_file(name)
            if found is not None and found not in seen:
                seen[found] = None
                queue.append(found)
                # Importing pkg.mod runs pkg/__init__.py first.
                parent = name.rpartition(".")[0]
                while parent:
                    init = module_file(parent)
                    if init is not None and init not in seen:
                        seen[init] = None
                        queue.append(init)
                    parent = parent.rpartition(".")[0]
    return sorted(seen)


def client_services(tree: ast.Module) -> set[str]:
    """Services whose clients the module names (type stub imports, boto3.client literals)."""
    services: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(STUB_PREFIX):
            stub = (node.module or "")[len(STUB_PREFIX) :].split(".")[0]
            services.add(stub.replace("_", "-"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "client"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "boto3"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            services.add(node.args[0].value)
    return services


def calls_in(path: Path) -> set[Call]:
    """The AWS operations one module calls on the clients it holds."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    services = client_services(tree)
    where_prefix = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    found: set[Call] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method = node.func.attr
        if (
            method == "get_paginator"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            method = node.args[0].value
        owners = sorted(s for s in services if method in operations(s))
        if len(owners) > 1:
            raise AmbiguousCall(
                f"{where_prefix}:{node.lineno}: {method}() is an operation of {owners}; "
                "keep clients of these services in separate modules"
            )
        if owners:
            (service,) = owners
            found.add(Call(service, operations(service)[method], f"{where_prefix}:{node.lineno}"))
    return found


def calls_of(handler: Path) -> set[Call]:
    """Every AWS operation the handler's code path calls."""
    return {call for path in code_path(handler) for call in calls_in(path)}
