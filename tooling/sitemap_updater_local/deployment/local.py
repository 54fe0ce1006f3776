"""The whole system on moto, in this process or on a moto server: :class:`LocalDeployment`."""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
from moto import mock_aws

from sitemap_updater_local.deployment.clock import scheduled_event
from sitemap_updater_local.deployment.event_source import (
    DrainReport,
    EventSourceMapping,
    HandedFeed,
    QueueFeed,
)
from sitemap_updater_local.deployment.faults import FaultPlan
from sitemap_updater_local.deployment.messages import (
    DeadLetter,
    RefusedBody,
    read_dead_letters,
    sqs_refusal,
)
from sitemap_updater_local.deployment.runtime import FunctionOutput, LocalFunction
from sitemap_updater_local.deployment.stack import roles
from sitemap_updater_local.deployment.stack.provision import (
    Stack,
    invalidations_of,
    provision,
    register,
)
from sitemap_updater_local.deployment.stack.template import (
    LOCAL_STACK_NAME,
    REGION,
    FunctionSpec,
    Template,
    read_body,
)
from sitemap_updater_local.deployment.stream_source import (
    StreamEventSourceMapping,
    StreamMappingSpec,
    StreamPoll,
    stream_mappings,
)

#: template.yaml of the repository this package lives in (tooling/sitemap_updater_local/...).
DEFAULT_TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"

#: The credentials and region every client of a deployment uses (moto accepts any).
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
}
#: The cyclic garbage collector's thresholds while a deployment runs (Python's are (700, 10, 10)).
#: moto keeps every item, message and stream record alive, so the default thresholds walk that
#: growing heap again and again (a tenth of a 100,000-message run); collecting the young
#: generation every 50,000 allocations and the older ones rarely keeps the garbage bounded and
#: the walks few. Restored when the deployment ends.
GC_THRESHOLDS = (50_000, 20, 100)
#: Removed while the deployment runs, so no real profile or endpoint can be used by accident
#: (``AWS_ENDPOINT_URL`` is set instead to a deployment's ``endpoint_url``).
_CLEARED = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ENDPOINT_URL", "AWS_CONFIG_FILE")


class LocalDeployment:
    """The template's resources on moto, its functions loaded from their files.

    Use as a context manager; see the module docstring of :mod:`sitemap_updater_local.deployment`.
    moto runs in this process (``mock_aws``) unless ``endpoint_url`` names a moto server: then
    every client, the functions' too, reaches it there (``AWS_ENDPOINT_URL``), as a Lambda
    function reaches AWS, and other processes can reach the same resources.
    """

    def __init__(
        self,
        template: str | Path = DEFAULT_TEMPLATE,
        site_url: str = "https://www.example.com",
        parameters: Mapping[str, str] | None = None,
        faults: FaultPlan | None = None,
        clock: Callable[[], float] | None = None,
        secrets: Mapping[str, str] | None = None,
        endpoint_url: str | None = None,
        stack_name: str = LOCAL_STACK_NAME,
        output: FunctionOutput | None = None,
    ) -> None:
        if faults is not None and endpoint_url is not None:
            raise ValueError("faults are injected into moto in this process, not a moto server")
        self.template_path = Path(template)
        self.endpoint_url = endpoint_url
        #: the stack's name (``AWS::StackName``; its resources' names start with it)
        self.stack_name = stack_name
        #: epoch seconds both functions see instead of the system clock (``SimulatedClock``)
        self.clock = clock
        self.site_url = site_url
        self.parameters = dict(parameters or {})
        self.faults = faults
        #: template parameter -> a secret's text: each is stored in the emulated Secrets
        #: Manager and the parameter set to its ARN (as an operator does before deploying); the
        #: same text in two parameters is one secret
        self.secrets = dict(secrets or {})
        #: what the functions print (their logs and metrics)
        self.output = FunctionOutput() if output is None else output
        self._mock: Any = None
        self._saved_env: dict[str, str | None] = {}
        self._saved_default_session: boto3.Session | None = None
        self._saved_gc_thresholds: tuple[int, int, int] | None = None
        self._started = False

    # --- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> LocalDeployment:
        self._saved_env = {n: os.environ.get(n) for n in (*FAKE_CREDENTIALS, *_CLEARED)}
        for name in _CLEARED:
            os.environ.pop(name, None)
        os.environ.update(FAKE_CREDENTIALS)
        if self.endpoint_url is not None:
            os.environ["AWS_ENDPOINT_URL"] = self.endpoint_url
        self._saved_default_session = boto3.DEFAULT_SESSION
        boto3.DEFAULT_SESSION = None
        if self.endpoint_url is None:
            self._mock = mock_aws()
            self._mock.start()  # puts None in boto3.DEFAULT_SESSION until it stops
        boto3.DEFAULT_SESSION = boto3.Session(region_name=REGION)
        self._saved_gc_thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        self._started = True
        try:
            self._provision()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._started:
            return
        self._started = False
        if self.faults is not None:
            self.faults.uninstall()
        if self._saved_gc_thresholds is not None:
            gc.set_threshold(*self._saved_gc_thresholds)
        if self._mock is not None:
            self._mock.stop()
            self._mock = None
        boto3.DEFAULT_SESSION = self._saved_default_session
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def _provision(self) -> None:
        # The emulator's own clients come from a session of their own: injected faults are
        # meant for the functions, not for the harness that inspects the results.
        session = boto3.Session(region_name=REGION)
        stored: dict[str, str] = {}  # the same text is one secret, its ARN in each parameter
        for parameter, text in self.secrets.items():
            if text not in stored:
                name = f"{parameter}-{len(self.parameters)}"
                made = session.client("secretsmanager").create_secret(Name=name, SecretString=text)
                stored[text] = made["ARN"]
            self.parameters[parameter] = stored[text]
        self.dynamodb = session.client("dynamodb")
        self.s3 = session.client("s3")
        self.sqs = session.client("sqs")
        self.cloudfront = session.client("cloudfront")
        self._streams = session.client("dynamodbstreams")
        site_param = roles.site_parameter(read_body(self.template_path))
        if site_param is not None and site_param not in self.parameters:
            self.parameters[site_param] = self.site_url
        self.template = Template.load(self.template_path, self.parameters, self.stack_name)
        self.stack: Stack = provision(
            self.template,
            {
                "dynamodb": self.dynamodb,
                "s3": self.s3,
                "sqs": self.sqs,
                "cloudfront": self.cloudfront,
            },
        )
        specs = self.template.functions()
        ingest_id, source = roles.sqs_source(specs)
        rebuild_id = roles.rebuild_function(specs)
        self.ingest = self._function(specs[ingest_id], site_param)
        self.rebuild_function = self._function(specs[rebuild_id], site_param)
        observer_id = roles.observer_function(specs)
        self.observe_function = (
            None if observer_id is None else self._function(specs[observer_id], site_param)
        )
        #: every function, by logical id
        self.functions = {
            f.spec.logical_id: f
            for f in (self.ingest, self.rebuild_function, self.observe_function)
            if f is not None
        }
        queue_arn = str(self.template.resolve(source["Queue"]))
        if queue_arn not in self.stack.queue_arns:
            raise ValueError(f"function {ingest_id}: SQS event Queue {queue_arn} is not a queue")
        self.queue_url = self.stack.queue_arns[queue_arn]
        self.queue_arn = queue_arn
        self.batch_size = int(self.template.resolve(source.get("BatchSize", 10)))
        self.dlq_url, self.max_receive_count = self._dead_letter_queue()
        self.table_name = self.ingest.environment.get("TABLE_NAME", "")
        self.bucket_name = self.rebuild_function.environment.get("BUCKET_NAME", "")
        self.distribution_id = self.rebuild_function.environment.get("DISTRIBUTION_ID", "")
        #: the messages :meth:`send` hands to the mapping, as SQS would deliver them
        self.handed = HandedFeed(self._dead_letter, self.max_receive_count)
        self.mapping = EventSourceMapping(
            feeds=(self.handed, QueueFeed(self.sqs, self.queue_url)),
            queue_arn=queue_arn,
            batch_size=self.batch_size,
            invoke=self._invoke_ingest,
        )
        #: the event source mappings on the table's stream (the urgent one), taken at LATEST now
        self.stream_mappings = [
            self._stream_mapping(spec) for spec in stream_mappings(self.template)
        ]
        if self.faults is not None:
            self.faults.install()

    def _stream_mapping(self, spec: StreamMappingSpec) -> StreamEventSourceMapping:
        by_name = {f.physical_name: f for f in self.functions.values()}
        if spec.function_name not in by_name:
            raise ValueError(f"{spec.logical_id}: FunctionName {spec.function_name} is no function")
        arn = spec.failure_queue_arn
        return StreamEventSourceMapping.wired(
            spec,
            self._streams,
            by_name[spec.function_name],
            (self.sqs, None if arn is None else self.stack.queue_arns[arn]),
            self.clock or time.time,
        )

    def _function(self, spec: FunctionSpec, site_param: str | None) -> LocalFunction:
        env = dict(spec.environment)
        if site_param is None and "SITE_URL" in env:
            env["SITE_URL"] = self.site_url
        name = str(self.template.resolve({"Ref": spec.logical_id}))
        return LocalFunction(
            spec=spec, environment=env, output=self.output, physical_name=name, clock=self.clock
        )

    def _dead_letter_queue(self) -> tuple[str, int | None]:
        attrs = self.sqs.get_queue_attributes(
            QueueUrl=self.queue_url, AttributeNames=["RedrivePolicy"]
        )["Attributes"]
        if "RedrivePolicy" in attrs:
            policy = json.loads(attrs["RedrivePolicy"])
            return self.stack.queue_arns[policy["deadLetterTargetArn"]], int(
                policy["maxReceiveCount"]
            )
        return self.ingest.environment.get("DLQ_URL", ""), None

    def register_stack(self) -> str:
        """Record the deployment as a CloudFormation stack of the emulated account
        (:func:`~sitemap_updater_local.deployment.stack.provision.register`); returns its name."""
        return register(self.template)

    # --- the event path ---------------------------------------------------------------------

    def send(self, bodies: Iterable[str]) -> list[RefusedBody]:
        """Send raw bodies as is to the ingest queue; returns what SQS would refuse.

        They are handed to the event source mapping in this process (``deployment.event_source``
        says why and how); a client that sends to :attr:`queue_url` itself reaches the same
        mapping through the queue.
        """
        accepted: list[str] = []
        refused: list[RefusedBody] = []
        for body in bodies:
            refusal = sqs_refusal(body)
            if refusal is None:
                accepted.append(body)
            else:
                refused.append(refusal)
        self.handed.hand(accepted)
        return refused

    def _dead_letter(self, body: str) -> None:
        """What SQS does with a message received ``maxReceiveCount`` times: into the DLQ."""
        self.sqs.send_message(QueueUrl=self.dlq_url, MessageBody=body)

    def _invoke_ingest(
        self, event: dict[str, Any]
    ) -> tuple[Any, BaseException | None, dict[str, float]]:
        inv = self.ingest.invoke(event)
        return inv.result, inv.error, inv.metrics

    def drain(self, progress: Callable[[int], None] | None = None) -> DrainReport:
        """Run the emulated event source mapping until no message is visible."""
        return self.mapping.drain(progress)

    def poll_streams(self) -> list[StreamPoll]:
        """One poll of each stream event source mapping: read the table's new stream records,
        keep those its filters match, and invoke its function once its batching window has
        passed by the deployment's clock (``deployment.stream_source``)."""
        return [mapping.poll() for mapping in self.stream_mappings]

    def rebuild(self, full: bool = False, remaining_ms: int | None = None) -> dict[str, Any]:
        """One rebuild invocation (scheduled event, or a full rebuild); the handler's report.

        The context reports ``remaining_ms`` left, by default the function's ``Timeout`` from
        the template, as Lambda does at the start of an invocation.

        An exception from the handler propagates, as a failed invocation.
        """
        moment = None if self.clock is None else datetime.fromtimestamp(self.clock(), UTC)
        event = {"full_rebuild": True} if full else scheduled_event(moment)
        inv = self.rebuild_function.invoke(event, remaining_ms)
        if inv.error is not None:
            raise inv.error
        if not isinstance(inv.result, dict):
            raise TypeError(f"rebuild handler returned {type(inv.result).__name__}, not a dict")
        return inv.result

    def rebuild_until_clean(
        self, max_runs: int = 20, remaining_ms: int | None = None
    ) -> list[dict[str, Any]]:
        """Scheduled rebuilds until one reports ``complete``; failed invocations are retried.

        Raises RuntimeError if ``max_runs`` runs do not get there.
        """
        runs: list[dict[str, Any]] = []
        last_error: BaseException | None = None
        for _ in range(max_runs):
            try:
                report = self.rebuild(remaining_ms=remaining_ms)
            except Exception as exc:  # a failed scheduled invocation; the next one retries
                last_error = exc
                continue
            runs.append(report)
            if report.get("complete"):
                return runs
        raise RuntimeError(
            f"rebuild not complete after {max_runs} runs "
            f"(last error: {last_error!r}, last report: {runs[-1] if runs else None})"
        )

    def observe(self, remaining_ms: int | None = None) -> dict[str, Any]:
        """One run of the observer (a scheduled event); its report. Raises its exception."""
        if self.observe_function is None:
            raise ValueError("the template has no observer function")
        moment = None if self.clock is None else datetime.fromtimestamp(self.clock(), UTC)
        inv = self.observe_function.invoke(scheduled_event(moment), remaining_ms)
        if inv.error is not None:
            raise inv.error
        if not isinstance(inv.result, dict):
            raise TypeError(f"observe handler returned {type(inv.result).__name__}, not a dict")
        return inv.result

    # --- inspection -------------------------------------------------------------------------

    def objects(self) -> dict[str, str]:
        """Every object key in the bucket with its ETag."""
        found: dict[str, str] = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket_name):
            for obj in page.get("Contents", []):
                found[obj["Key"]] = obj["ETag"]
        return found

    def download(self, out_dir: str | Path) -> list[Path]:
        """Write every bucket object into ``out_dir`` under its key; returns the paths."""
        root = Path(out_dir).resolve()
        written = []
        for key in sorted(self.objects()):
            target = (root / key).resolve()
            if not target.is_relative_to(root):
                raise ValueError(f"object key {key!r} would be written outside {root}")
            target.parent.mkdir(parents=True, exist_ok=True)
            body = self.s3.get_object(Bucket=self.bucket_name, Key=key)["Body"].read()
            target.write_bytes(body)
            written.append(target)
        return written

    def dead_letters(self) -> list[DeadLetter]:
        """Every message in the DLQ, read without consuming it (made visible again after)."""
        return read_dead_letters(self.sqs, self.dlq_url) if self.dlq_url else []

    def invalidations(self) -> list[tuple[str, list[str]]]:
        """Every CloudFront invalidation of the distribution: (id, paths), oldest first."""
        return invalidations_of(self.cloudfront, self.distribution_id)

    def invalidated_paths(self) -> list[str]:
        """Every path of every invalidation, oldest first."""
        return [p for _, paths in self.invalidations() for p in paths]
