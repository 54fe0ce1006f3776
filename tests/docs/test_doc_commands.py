"""Every command the README and the docs pages show is run here, or named with what runs it.

The README is the product's front door and `docs/` its reference: a command in them that does not
work is a bug. AWS commands run against a local moto server; `sitemap-updater` commands run in a
scratch directory holding the input files the pages name. Python samples are files under
`docs/examples/`, shown verbatim on their page and run here against moto.
"""

from __future__ import annotations

import gzip
import http.server
import io
import json
import os
import re
import runpy
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.index import render_index
from sitemap_updater_local.validation.document import validate_document, validate_path
from tests.helpers.files import urlset_file
from tests.helpers.interrupt import default_interrupt

ROOT = Path(__file__).resolve().parents[2]
#: The pages whose commands and samples are run: the README first, then docs/ in name order.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXTS = {page: page.read_text(encoding="utf-8") for page in PAGES}
BIN = Path(sys.executable).parent
SITE = "https://www.example.com"
FENCE = re.compile(r"^(?:<!-- example: (\S+) -->\n)?```(\w*)\n(.*?)^```", re.S | re.M)
EXAMPLES = ROOT / "docs" / "examples"
STACK_NAME = "sitemap-updater"

#: Commands that cannot run without an AWS account or that another test already runs.
RUN_ELSEWHERE = {
    'PATH="$PWD/.venv/bin:$PATH" sam build': "tests/template/test_build.py runs sam build",
    'PATH="$PWD/.venv/bin:$PATH" sam deploy --guided': "needs an AWS account",
    'PATH="$PWD/.venv/bin:$PATH" sam deploy': "needs an AWS account",
    (
        "aws lambda get-layer-version-by-arn --region us-east-1 --arn arn:aws:lambda:us-east-1:"
        "017000801446:layer:AWSLambdaPowertoolsPythonV3-python312-arm64:27 --query Description "
        "--output text"
    ): "needs an AWS account: the AWS-managed layer is published in AWS alone",
    'PATH="$PWD/.venv/bin:$PATH" sam delete --stack-name sitemap-updater': "needs an AWS account",
    "make test": "CI runs it (.ci/run)",
    ".venv/bin/python benchmarks/cost_model.py": (
        "tests/docs/test_benchmarks.py runs it at a tiny size; make bench runs it in full"
    ),
    ".venv/bin/python benchmarks/bench_view.py": (
        "tests/docs/test_benchmarks.py runs it at a tiny size; make bench runs it in full"
    ),
    ".venv/bin/python benchmarks/capacity.py": (
        "tests/docs/test_benchmarks.py runs it at a tiny size; make bench runs it in full"
    ),
    ".venv/bin/python benchmarks/capacity.py --cap 50000": (
        "tests/docs/test_benchmarks.py runs it with --cap at a tiny size"
    ),
    ".venv/bin/python benchmarks/capacity.py --space www.example.de/products/": (
        "tests/docs/test_benchmarks.py runs it with --space at a tiny size"
    ),
    ".venv/bin/python benchmarks/cost_model.py --json": (
        "tests/docs/test_benchmarks.py runs it with --json at a tiny size"
    ),
    (
        ".venv/bin/python benchmarks/cost_model.py --sizes 1000000:100000 --no-sections "
        "--schedule 'rate(3 minutes)'"
    ): "tests/docs/test_benchmarks.py runs it with --schedule at a tiny size",
    (
        ".venv/bin/python benchmarks/cost_model.py --sizes 1000000:100000 --no-sections "
        "--reconcile 'rate(1 day)'"
    ): "tests/docs/test_benchmarks.py runs it with --reconcile at a tiny size",
    (
        ".venv/bin/python benchmarks/cost_model.py --sizes 1000000:100000 --no-sections "
        "--no-observer --urgent-share 0.0001"
    ): "tests/docs/test_benchmarks.py runs it with --urgent-share at a tiny size",
    "git add pyproject.toml uv.lock requirements-uv.txt layers/shared/requirements.txt": (
        "the developer's own commit; tests/template/test_layer_requirements.py checks the files"
    ),
    ".venv/bin/pre-commit install": "writes the hooks of the developer's own clone",
    ".venv/bin/pre-commit run --all-files": (
        "its hooks are ruff, ruff format and mypy, which make test runs (make lint, make typecheck)"
    ),
    ".venv/bin/pytest tests/unit -q": "make test runs these tests",
    ".venv/bin/pytest tests/unit -q --cov --cov-fail-under=0": "make test runs them with --cov",
    "source local.env": (
        "tests/docs/test_local_deployment.py sources it beside a running sitemap-updater local"
    ),
}
#: The fields of a service account's JSON key file, as docs/search-engines.md stores it.
SERVICE_ACCOUNT_FORM = {
    "type": "service_account",
    "client_email": "sitemap-updater@example-project.iam.gserviceaccount.com",
    "private_key": "-----BEGIN PRIVATE KEY-----\n(the key)\n-----END PRIVATE KEY-----\n",
    "token_uri": "https://oauth2.googleapis.com/token",
}
#: What a make variable of a docs command must reach, by variable: the text the dry run prints.
MAKE_VARIABLES = {"ARGS": "sitemap-updater demo {}", "LOCK_ARGS": "uv lock {}"}


@dataclass(frozen=True)
class Block:
    page: Path
    lang: str
    body: str
    example: str  # the file the marker before the block names, or ""


def all_blocks() -> list[Block]:
    return [
        Block(page, lang, body, example)
        for page in PAGES
        for example, lang, body in FENCE.findall(TEXTS[page])
    ]


def blocks(lang: str) -> list[str]:
    return [block.body for block in all_blocks() if block.lang == lang]


def commands() -> list[str]:
    """Each command once, in the order the pages show them."""
    found: list[str] = []
    for body in blocks("bash"):
        for raw in body.replace("\\\n", " ").splitlines():
            line = raw.split("  #")[0].strip()
            if line and not line.startswith("#") and line not in found:
                found.append(line)
    return found


@dataclass
class Stack:
    endpoint: str
    env: dict[str, str]
    queue_url: str
    dlq_url: str
    outputs: dict[str, str]  # the stack outputs, by output key

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )


@pytest.fixture(scope="module")
def stack(served_sitemaps: tuple[str, set[str]]) -> Iterator[Stack]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    config = json.dumps({"lambda": {"use_docker": False}}).encode()
    urllib.request.urlopen(
        urllib.request.Request(endpoint + "/moto-api/config", data=config, method="POST")
    )
    creds = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }
    session = boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    sqs = session.client("sqs", endpoint_url=endpoint)
    dlq_url = sqs.create_queue(QueueName="sitemap-dlq")["QueueUrl"]
    queue_url = sqs.create_queue(QueueName="sitemap-ingest")["QueueUrl"]

    def arn(url: str) -> str:
        attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        return str(attrs["Attributes"]["QueueArn"])

    iam = session.client("iam", endpoint_url=endpoint)
    role = iam.create_role(RoleName="rebuild", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as z:
        z.writestr("app.py", "def lambda_handler(event, context):\n    return event\n")
    function = session.client("lambda", endpoint_url=endpoint).create_function(
        FunctionName="sitemap-rebuild",
        Runtime="python3.12",
        Role=role,
        Handler="app.lambda_handler",
        Code={"ZipFile": code.getvalue()},
    )
    s3 = session.client("s3", endpoint_url=endpoint)
    s3.create_bucket(Bucket="sitemap-bucket")
    s3.put_bucket_versioning(Bucket="sitemap-bucket", VersioningConfiguration={"Status": "Enabled"})
    _url_table(session.client("dynamodb", endpoint_url=endpoint))
    session.client("dynamodb", endpoint_url=endpoint).create_table(
        TableName="sitemap-state",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    base, _ = served_sitemaps
    outputs = {
        "QueueUrl": queue_url,
        "QueueArn": arn(queue_url),
        "DeadLetterQueueUrl": dlq_url,
        "RebuildFunctionName": function["FunctionName"],
        "BucketName": "sitemap-bucket",
        "TableName": "sitemap-urls",
        "StateTableName": "sitemap-state",
        "SiteUrl": SITE,
        "SitemapIndexUrl": f"{base}/published/sitemap_index.xml",
    }
    # a stack whose outputs name the resources above, for `aws cloudformation describe-stacks`
    template = {
        "Resources": {"Placeholder": {"Type": "AWS::SQS::Queue"}},
        "Outputs": {key: {"Value": value} for key, value in outputs.items()},
    }
    session.client("cloudformation", endpoint_url=endpoint).create_stack(
        StackName=STACK_NAME, TemplateBody=json.dumps(template)
    )
    env = {
        **os.environ,
        **creds,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "QUEUE_URL": queue_url,
        "QUEUE_ARN": outputs["QueueArn"],
        "DLQ_URL": dlq_url,
        "DLQ_ARN": arn(dlq_url),
        "REBUILD_FUNCTION": function["FunctionName"],
        "BUCKET": outputs["BucketName"],
        "TABLE_NAME": outputs["TableName"],
        "SITEMAP_INDEX_URL": outputs["SitemapIndexUrl"],
    }
    yield Stack(endpoint, env, queue_url, dlq_url, outputs)
    server.stop()


def _url_table(dynamodb: Any) -> None:
    """The URL table, keyed as template.yaml keys it (``pk``, ``sk``), unless it exists."""
    if "sitemap-urls" in dynamodb.list_tables()["TableNames"]:
        return
    dynamodb.create_table(
        TableName="sitemap-urls",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )


def _publish_sample_site(stack: Stack) -> None:
    """Put a small published site into the bucket, twice (two versions), and a deleted key."""
    s3 = stack.client("s3")
    with tempfile.TemporaryDirectory() as tmp:
        _write_old_sitemaps(Path(tmp), SITE)
        for _ in range(2):
            for path in Path(tmp).iterdir():
                s3.put_object(Bucket="sitemap-bucket", Key=path.name, Body=path.read_bytes())
    s3.put_object(Bucket="sitemap-bucket", Key="state/indexnow-pending.json.gz", Body=b"{}")
    s3.put_object(Bucket="sitemap-bucket", Key="sitemap-retired.xml.gz", Body=b"gone")
    s3.delete_object(Bucket="sitemap-bucket", Key="sitemap-retired.xml.gz")


def _write_old_sitemaps(directory: Path, child_base: str, page_base: str = SITE) -> set[str]:
    """An existing site's sitemaps: an index and two gzipped children, listing pages under
    ``page_base``."""
    directory.mkdir(parents=True, exist_ok=True)
    urls: set[str] = set()
    children = []
    for n in (1, 2):
        entries = [
            Page(url=f"{page_base}/old/{n}/{i}", lastmod="2026-01-0" + str(n)) for i in range(5)
        ]
        urls |= {e.url for e in entries}
        (directory / f"sitemap-{n}.xml.gz").write_bytes(urlset_file(entries))
        children.append((f"{child_base}/sitemap-{n}.xml.gz", "2026-01-0" + str(n)))
    index, _ = render_index(children)
    (directory / "sitemap_index.xml").write_bytes(index)
    return urls


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("readme")
    _write_old_sitemaps(work / "old-sitemaps", SITE)
    # the credentials docs/search-engines.md stores in Secrets Manager (their form, not a key)
    (work / "service-account.json").write_text(json.dumps(SERVICE_ACCOUNT_FORM))
    (work / "bing-api-key.txt").write_text("0123456789abcdef0123456789abcdef")
    both = {**SERVICE_ACCOUNT_FORM, "api_key": "0123456789abcdef0123456789abcdef"}
    (work / "search-engine-keys.json").write_text(json.dumps(both))
    # commands are shown as run from the repository root
    shutil.copytree(ROOT / "events", work / "events")
    shutil.copytree(EXAMPLES, work / "docs" / "examples")
    return work


@pytest.fixture(scope="module")
def served_sitemaps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, set[str]]]:
    """The README's `https://www.example.com/sitemap_index.xml`, served on 127.0.0.1."""
    root = tmp_path_factory.mktemp("served")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    urls = _write_old_sitemaps(root, base)
    # a deployed stack's index, whose pages are on the origin that serves it
    _write_old_sitemaps(root / "published", f"{base}/published", page_base=f"{base}/published")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base, urls
    server.shutdown()


def _run(
    command: str, stack: Stack, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=stack.env if env is None else env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _queued_bodies(stack: Stack, url: str) -> list[str]:
    sqs = stack.client("sqs")
    bodies = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return bodies
        for message in got:
            bodies.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def _object_versions(stack: Stack) -> list[str]:
    listed = stack.client("s3").list_object_versions(Bucket="sitemap-bucket")
    return [v["Key"] for v in listed.get("Versions", []) + listed.get("DeleteMarkers", [])]


def test_every_doc_command_is_known() -> None:
    """A command added to the README or a docs page must be added to this test too."""
    handled = ("make ", "sitemap-updater ", "aws ", "export ", "curl ", ".venv/bin/python docs/")
    unknown = [c for c in commands() if c not in RUN_ELSEWHERE and not c.startswith(handled)]
    assert unknown == []
    assert len(commands()) >= 15


def test_make_targets_exist_and_pass_arguments() -> None:
    for command in (c for c in commands() if c.startswith("make ")):
        dry = subprocess.run(
            ["make", "-n", *shlex.split(command)[1:]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert dry.returncode == 0, (command, dry.stderr)
        for word in shlex.split(command)[2:]:
            name, _, value = word.partition("=")
            assert MAKE_VARIABLES[name].format(value) in dry.stdout, command


def test_python_samples_are_the_example_files_verbatim() -> None:
    """Each `python` block is an example file, shown whole; each example file is shown."""
    python = [block for block in all_blocks() if block.lang == "python"]
    assert python
    for block in python:
        assert block.example, f"{block.page.name}: a python block without its example file"
        source = (block.page.parent / block.example).read_text(encoding="utf-8")
        assert block.body == source, f"{block.page.name} differs from {block.example}"
    shown = {(block.page.parent / block.example).resolve() for block in python}
    assert shown == {path.resolve() for path in EXAMPLES.glob("*.py")}


def test_every_example_input_is_used_by_a_command_of_the_pages() -> None:
    """The inputs under ``docs/examples/`` are the ones the pages' commands read, and each
    input a command reads from there is shipped."""
    named = {
        word
        for command in commands()
        for word in shlex.split(command)
        if word.startswith("docs/examples/") and not word.endswith(".py")
    }
    shipped = {
        f"docs/examples/{path.name}"
        for path in EXAMPLES.iterdir()
        if path.is_file() and path.suffix != ".py"
    }
    assert named == shipped


def _run_example(name: str, stack: Stack, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Run ``docs/examples/NAME`` against the stack, as a producer with its variables set
    would; returns the SQS operations it called."""
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION"):
        monkeypatch.setenv(key, stack.env[key])
    monkeypatch.setenv("AWS_ENDPOINT_URL", stack.endpoint)
    monkeypatch.setenv("QUEUE_URL", stack.queue_url)
    boto3.setup_default_session()
    calls: list[str] = []
    boto3.DEFAULT_SESSION.events.register(  # type: ignore[union-attr]
        "before-call.sqs", lambda model, **_: calls.append(model.name)
    )
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return set(calls)


def test_python_producer_example_sends_to_the_queue(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    called = _run_example("send_changes.py", stack, monkeypatch)
    bodies = _queued_bodies(stack, stack.queue_url)
    assert json.loads(bodies[0])["url"] == f"{SITE}/shoes/42"
    assert len(json.loads(bodies[1])) == 500
    # the producer's IAM policy on the producers page grants what the example calls
    policy = next(json.loads(body) for body in blocks("json") if '"Statement"' in body)
    (statement,) = policy["Statement"]
    assert statement["Action"] == "sqs:SendMessage"
    # SendMessageBatch is authorized by sqs:SendMessage (SQS has no batch permission)
    assert {f"sqs:{name.removesuffix('Batch')}" for name in called} == {statement["Action"]}


def test_python_producer_client_example_sends_checked_array_messages(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    called = _run_example("producer_client.py", stack, monkeypatch)
    changes = [c for body in _queued_bodies(stack, stack.queue_url) for c in json.loads(body)]
    assert len(changes) == 1002
    assert {c["url"] for c in changes if c["action"] == "delete"} == {f"{SITE}/shoes/41"}
    assert 'not sent: field priority value "high" rejected' in capsys.readouterr().out
    assert called == {"SendMessageBatch"}  # authorized by sqs:SendMessage


def test_empty_bucket_example_removes_every_version(stack: Stack) -> None:
    _publish_sample_site(stack)
    assert _object_versions(stack)
    (command,) = [c for c in commands() if c.startswith(".venv/bin/python docs/examples/")]
    local = command.replace(".venv/bin/python", shlex.quote(sys.executable), 1)
    done = _run(local, stack, ROOT)
    assert done.returncode == 0, done.stderr
    assert _object_versions(stack) == []
    # an empty, versioned bucket is one CloudFormation can delete
    stack.client("s3").delete_bucket(Bucket="sitemap-bucket")
    stack.client("s3").create_bucket(Bucket="sitemap-bucket")


def test_stack_outputs_become_the_variables_the_pages_use(stack: Stack, workspace: Path) -> None:
    exports = [c for c in commands() if c.startswith("export ")]
    names = [c.split()[1].split("=", 1)[0] for c in exports]
    script = "\n".join(["set -e", *exports, *(f'echo "{name}=${name}"' for name in names)])
    # the variables start unset: only the pages' commands set them
    env = {k: v for k, v in stack.env.items() if k not in names}
    done = _run(script, stack, workspace, env)
    assert done.returncode == 0, done.stderr
    got = dict(line.split("=", 1) for line in done.stdout.splitlines())
    assert got == {name: stack.env[name] for name in names}
    # every variable the pages' commands use is set from an output (or by the user)
    used = set(re.findall(r"\$\{?([A-Z_]+)", "\n".join(commands())))
    assert used - {"PWD", "PATH"} <= set(names)


def test_aws_cli_commands(stack: Stack, workspace: Path) -> None:
    aws = [c for c in commands() if c.startswith("aws ") and c not in RUN_ELSEWHERE]
    assert {c.split()[2] for c in aws} >= {"send-message", "receive-message", "invoke"}
    for command in aws:
        if command.startswith("aws sqs receive-message"):
            _queued_bodies(stack, stack.dlq_url)
            stack.client("sqs").send_message(
                QueueUrl=stack.dlq_url,
                MessageBody="not json",
                MessageAttributes={"reason": {"DataType": "String", "StringValue": "field body"}},
            )
        if command.startswith("aws s3 sync"):
            _publish_sample_site(stack)
        # the CLI's SQS customization ignores AWS_ENDPOINT_URL, so name the endpoint
        extra = f" --endpoint-url {stack.endpoint}" if command.startswith("aws sqs") else ""
        done = _run(command + extra, stack, workspace)
        assert done.returncode == 0, (command, done.stderr)
        if command.startswith("aws sqs send-message"):
            (body,) = _queued_bodies(stack, stack.queue_url)
            sent = shlex.split(command)[shlex.split(command).index("--message-body") + 1]
            assert json.loads(body) == json.loads(sent)
            assert json.loads(body)["action"] in {"upsert", "delete"}
        elif command.startswith("aws sqs receive-message"):
            (message,) = json.loads(done.stdout)["Messages"]
            assert message["MessageAttributes"]["reason"]["StringValue"] == "field body"
            # the page only reads it: deleted here, or it comes back to the dead-letter queue
            # once its visibility timeout ends, in the middle of a later test's redrive
            stack.client("sqs").delete_message(
                QueueUrl=stack.dlq_url, ReceiptHandle=message["ReceiptHandle"]
            )
        elif command.startswith("aws lambda invoke"):
            assert (workspace / "out.json").exists()
            payload_file = re.search(r"fileb://(\S+)", command)
            assert payload_file, command
            payload = json.loads((ROOT / payload_file.group(1)).read_text())
            if "rebuild-full" in command:
                assert payload == {"full_rebuild": True}
            assert json.loads((workspace / "out.json").read_text()) == payload
        elif command.startswith("aws s3 sync"):
            target = workspace / shlex.split(command)[4]
            assert sorted(p.name for p in target.iterdir()) == [
                "sitemap-1.xml.gz",
                "sitemap-2.xml.gz",
                "sitemap_index.xml",
            ]
        elif command.startswith("aws secretsmanager create-secret"):
            name = shlex.split(command)[shlex.split(command).index("--name") + 1]
            secret = stack.client("secretsmanager").get_secret_value(SecretId=name)
            assert done.stdout.strip() == secret["ARN"]  # the ARN the parameter takes
            source = re.search(r"file://(\S+)", command)
            assert source, command
            assert secret["SecretString"] == (workspace / source.group(1)).read_text()
        elif command.startswith("aws dynamodb delete-table"):
            tables = stack.client("dynamodb").list_tables()["TableNames"]
            assert stack.outputs["TableName"] not in tables


def test_curl_fetches_the_index(stack: Stack, workspace: Path) -> None:
    curl = [c for c in commands() if c.startswith("curl ")]
    assert curl
    for command in curl:
        done = _run(command, stack, workspace)
        assert done.returncode == 0, (command, done.stderr)
        assert "<sitemapindex" in done.stdout


def test_xml_samples_are_valid_sitemaps() -> None:
    samples = blocks("xml")
    assert {b"<sitemapindex" in s.encode() for s in samples} == {True, False}
    for n, sample in enumerate(samples):
        report = validate_document(sample.encode(), source=f"xml sample {n}")
        assert report.problems == [], sample[:200]


def _check_simulate(command: str, done: Any, workspace: Path) -> None:
    """What each ``simulate`` command of the pages must have done."""
    if "--indexnow-key" in command:
        # the first publish sends nothing; wave2 changes p/0 and deletes p/1 (and its line that
        # is not JSON is rejected: exit status 1)
        assert done.returncode == 1, done.stderr
        report = json.loads((workspace / "sim-indexnow" / "report.json").read_text())
        sent = [sorted(w["indexnow_submitted"]) for w in report["waves"]]
        assert sent == [[], [f"{SITE}/p/0", f"{SITE}/p/1"]]
    elif "--section-rules" in command:
        # two hosts: the second's files under its own folder, each index valid for its host
        assert done.returncode == 0, done.stderr
        other = "https://www.example.de"
        for out, origin in (("sim-hosts", SITE), ("sim-hosts/www.example.de", other)):
            reports = validate_path(workspace / out, base_url=origin)
            assert [line for r in reports for line in r.problems] == [], out
            assert (workspace / out / "sitemap.xml").is_file()
    elif "wave2.jsonl" in command:
        # wave2 holds one line that is not JSON: it is reported, and the run exits 1 as build
        # does for a rejected record
        assert done.returncode == 1, done.stderr
        assert "1 message(s) rejected (see above)" in done.stderr
        report = json.loads((workspace / "sim-out" / "report.json").read_text())
        assert [len(w["rejected"]) for w in report["waves"]] == [0, 1]
    else:
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])


def _status_of(command: str) -> int:
    """The exit status a command of the pages (other than ``simulate``) ends with: 0, or 1 for
    ``validate`` of the example file with problems (tests/docs/test_validate_docs.py checks what
    it prints) and for ``where`` on the pages' stack, which has not received the URL."""
    if command.startswith("sitemap-updater validate") and "broken" in command:
        return 1
    return 1 if command.startswith("sitemap-updater where") and "--stack-name" in command else 0


def _check_where(command: str, done: Any) -> None:
    """``where`` names the URL's file on a build output; on the pages' stack, whose table the
    pages' ``aws dynamodb delete-table`` emptied, it finds no item of it."""
    last = done.stdout.splitlines()[-1]
    if "--stack-name" in command:
        assert last == "sitemap-updater where: not listed: never received", done.stdout
    else:
        assert last.startswith("sitemap-updater where: listed in sitemap-"), done.stdout


def _check_serve(command: str, stack: Stack, workspace: Path) -> None:
    """A ``serve`` command of the pages, on a free port: each host's view answers at the address
    it prints, and Ctrl-C stops it with status 0."""
    serve = subprocess.Popen(
        ["bash", "-c", f"exec {command} --port 0"],
        cwd=workspace,
        env=stack.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_interrupt,  # stopped with Ctrl-C
    )
    assert serve.stdout is not None
    try:
        first = serve.stdout.readline()
        assert first.startswith("Serving "), (command, first)
        directory = workspace / shlex.split(command)[2]
        hosts = [p for p in (directory, *directory.iterdir()) if (p / "sitemap.xml").is_file()]
        for _ in hosts:
            view = serve.stdout.readline().split(": ", 1)[1].strip()
            assert view.startswith("http://127.0.0.1:") and view.endswith("/sitemap.html")
            with urllib.request.urlopen(view) as answer:
                assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    finally:
        serve.send_signal(signal.SIGINT)
        _, err = serve.communicate(timeout=60)
    assert serve.returncode == 0 and err == "sitemap-updater serve: stopped\n", (command, err)


def _check_local(command: str, stack: Stack, workspace: Path) -> None:
    """A ``local`` command of the pages: it starts, prints the variables of its stack (and
    writes them to its ``--env-file``), and Ctrl-C stops it with one line and status 0.
    tests/docs/test_local_deployment.py runs the other commands against it."""
    env = {k: v for k, v in stack.env.items() if not k.startswith("AWS_")}
    local = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_interrupt,  # stopped with Ctrl-C
    )
    assert local.stdout is not None
    try:
        printed: list[str] = []
        while not printed or not printed[-1].startswith("export TABLE_NAME="):
            line = local.stdout.readline()
            assert line, (command, printed, local.poll())
            printed.append(line.rstrip("\n"))
    finally:
        local.send_signal(signal.SIGINT)
        _, err = local.communicate(timeout=120)
    assert local.returncode == 0 and err == "sitemap-updater local: stopped\n", (command, err)
    exports = [line for line in printed if line.startswith("export ")]
    assert "export STACK_NAME=sitemap-updater" in exports
    env_file = shlex.split(command)[shlex.split(command).index("--env-file") + 1]
    assert (workspace / env_file).read_text().splitlines() == exports


def _check_stack_view(command: str, done: Any) -> None:
    """``status`` names the stack; ``coverage`` says no observer has run in it; ``where`` is
    checked by :func:`_check_where`."""
    if command.startswith("sitemap-updater where"):
        _check_where(command, done)
        return
    as_json = json.loads(done.stdout) if "--json" in command else None
    if command.startswith("sitemap-updater status"):
        assert STACK_NAME in (done.stdout if as_json is None else as_json["stack"])
    elif as_json is not None:
        assert as_json == {"stack": STACK_NAME, "hosts": []}
    else:
        assert "the observer has not run" in done.stdout


def test_sitemap_updater_commands(
    stack: Stack, workspace: Path, served_sitemaps: tuple[str, set[str]]
) -> None:
    base, served_urls = served_sitemaps
    ran = []
    sqs = stack.client("sqs")
    _url_table(stack.client("dynamodb"))  # for `where`, after the pages' `delete-table`
    for command in (c for c in commands() if c.startswith("sitemap-updater ")):
        if command.startswith("sitemap-updater redrive"):
            # a message the redrive policy dead-lettered waits in the DLQ
            _queued_bodies(stack, stack.dlq_url)
            sqs.send_message(QueueUrl=stack.dlq_url, MessageBody='{"redriven": true}')
        if command == "sitemap-updater validate smoke-test":
            # the files the deploy page's `aws s3 sync` downloads from the bucket
            _publish_sample_site(stack)
            (sync,) = [c for c in commands() if c.startswith("aws s3 sync")]
            assert _run(sync, stack, workspace).returncode == 0
        verb = shlex.split(command)[1]
        if verb in {"serve", "local"}:  # run until stopped: started, read, stopped by Ctrl-C
            (_check_serve if verb == "serve" else _check_local)(command, stack, workspace)
            ran.append(verb)
            continue
        # the pages' example site is served locally; nothing leaves the machine
        local = command.replace(f"{SITE}/sitemap_index.xml", f"{base}/sitemap_index.xml")
        done = _run(local, stack, workspace)
        ran.append(verb)
        if verb == "simulate":
            _check_simulate(command, done, workspace)
        else:
            wanted = _status_of(command)
            assert done.returncode == wanted, (command, done.stdout[-2000:], done.stderr[-2000:])
        if verb == "backfill" and "--queue-url" in command:
            bodies = _queued_bodies(stack, stack.queue_url)
            sent = {json.loads(b)["url"] for b in bodies}
            assert sent == served_urls
        if verb == "backfill" and "--out" in command:
            lines = (workspace / "changes.jsonl").read_text().splitlines()
            assert len(lines) == 10
        if verb == "send":
            assert len(_queued_bodies(stack, stack.queue_url)) > 0
        if verb == "redrive":
            assert _queued_bodies(stack, stack.queue_url) == ['{"redriven": true}']
            assert _queued_bodies(stack, stack.dlq_url) == []
        if verb in {"status", "coverage", "where"}:
            _check_stack_view(command, done)
    assert {"demo", "simulate", "validate", "build", "send", "backfill", "redrive", "serve"} <= set(
        ran
    )
    assert "status" in ran and "coverage" in ran and "local" in ran and "where" in ran
    index = (workspace / "static-out" / "sitemap.xml").read_bytes()
    assert b"<sitemapindex" in index
    demo_index = Path("/tmp/sitemap-demo/sitemap.xml")
    assert demo_index.exists()
    with gzip.open(next((workspace / "sim-out").glob("sitemap-*.xml.gz"))) as f:
        assert b"<urlset" in f.read()
    # every file the pages' build and simulate commands wrote passes the project's validator
    for out in ("static-out", "sim-out", "sim-faults", "static-hosts"):
        reports = validate_path(workspace / out, base_url=SITE)
        assert len(reports) >= 2, out
        assert [line for r in reports for line in r.problems] == [], out
    # the second host of the build with two sites: its own index, here of its home file
    other = workspace / "static-hosts" / "www.example.de"
    reports = validate_path(other, base_url="https://www.example.de")
    assert [r.source for r in reports] == [
        str(other / n) for n in ("sitemap-home.xml.gz", "sitemap.xml")
    ]
    assert [line for r in reports for line in r.problems] == []
    assert (workspace / "static-hosts" / "sitemap-catalog-r.xml.gz").exists()


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", FENCE.sub("", text), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_links_between_pages_resolve() -> None:
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", TEXTS[page])):
            if target.startswith(("http://", "https://")):
                continue
            file, _, anchor = target.partition("#")
            linked = (page.parent / file).resolve() if file else page
            assert linked.exists(), (page.name, target)
            if anchor:
                assert anchor in _anchors(linked.read_text(encoding="utf-8")), (page.name, target)
