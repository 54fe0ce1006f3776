"""Benchmark: the import of each handler against a minimal Powertools SQS handler's, cold.

    .venv/bin/python benchmarks/bench_cold_start.py              # 15 rounds, tracing on and off
    .venv/bin/python benchmarks/bench_cold_start.py --rounds 3 --tracing off

A cold start imports the handler's module in a fresh interpreter. Each import here is timed in a
new ``python -S -E`` process whose ``sys.path`` holds only what Lambda gives the function: the
function's folder, the shared layer (``layers/shared``), and one folder of links to the packages
that the Lambda runtime provides (boto3 and botocore), that the AWS-managed Powertools layer
provides (Powertools, pydantic, the X-Ray SDK) and that the shared layer's requirements install
(``layers/shared/requirements.txt``), each with what it requires. Nothing else of the development
environment (moto, awscrt, pyOpenSSL ...) can be found, as on Lambda.

The peer is the smallest handler Powertools' documentation shows for an SQS batch: Logger,
Metrics and Tracer, a ``BatchProcessor`` and ``process_partial_response``. The runs alternate
(minimal, the minimal one with ``import boto3``, ingest, rebuild, observe) for ``--rounds``
rounds; the best and the median of each are printed. Each handler is compared with both
baselines, by its difference in ms and the ratio, and how far that is from the target: with the
minimal handler as it is, and with the minimal handler importing boto3, which every handler
that calls AWS needs (the line between them says how much of the difference is not boto3's
import). The target: each handler at most 50 ms more than the baseline, on the best of the
rounds. Each comparison is printed twice: on the wall clock, and on the CPU time of the
importing process, which a machine shared with other work disturbs far less (an import is one
thread that reads files the page cache holds, so on an idle machine the two agree).

The handlers create their boto3 clients on their first invocation, not when they load, and the
observer imports an engine's client library (google-auth) only when it makes that engine's
client. So that this is not left out of the figures, the same process then does that first use
(:data:`FIRST_USE`), and the import plus first use is printed too, with what the first use
alone cost.

Both tracing settings of the template's ``Tracing`` parameter are measured: ``on`` is Lambda with
active tracing (``LAMBDA_TASK_ROOT`` set, so Powertools' Tracer patches the AWS SDK), ``off`` sets
``POWERTOOLS_TRACE_DISABLED=true`` as the template does for ``Tracing=PassThrough``. Each line
also says whether the X-Ray SDK and the AWS SDK were imported. The machine may be shared: the load
average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYER = ROOT / "layers" / "shared"
TARGET_MS = 50.0

#: What the python3.12 runtime ships (the AWS SDK) and what the AWS-managed Powertools layer
#: ships beside Powertools; their own requirements are added by :func:`closure`.
PROVIDED = ("boto3", "aws-lambda-powertools", "pydantic", "aws-xray-sdk")

MINIMAL_HANDLER = """\
from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

processor = BatchProcessor(event_type=EventType.SQS)
tracer = Tracer()
logger = Logger()
metrics = Metrics()


@tracer.capture_method
def record_handler(record: SQSRecord) -> None:
    logger.info(record.body)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
"""

#: The same handler importing boto3 as well, as every handler that calls AWS does: what the
#: AWS SDK adds, to tell it apart from this project's own modules.
WITH_BOTO3_HANDLER = "import boto3  # noqa: F401\n" + MINIMAL_HANDLER

#: The two baselines, as the RATIO lines name them.
BASELINES = {"minimal": "minimal", "+boto3": "minimal+boto3"}

#: What a handler's first invocation does before its own work, beyond the import: the boto3
#: clients it creates on first use (and keeps for warm starts), and for the observer the engines'
#: modules it imports when Search Console or Bing is turned on. Timed apart, so that what a
#: handler leaves to its first invocation is not lost from the figures.
FIRST_USE = {
    "ingest": "app._service()",
    "rebuild": "for name in ('dynamodb', 's3', 'dynamodbstreams'): app._client(name)",
    "observe": (
        "for name in ('dynamodb', 's3', 'secretsmanager'): app._client(name)\n"
        "import sitemap_updater.engines.search_console, sitemap_updater.engines.bing"
    ),
}

#: Run in the fresh interpreter: the path as Lambda's, then the timed import and first use.
CHILD = """\
import sys, time
sys.path[:0] = {path!r}
exec(compile({preload!r}, "baseline", "exec"), {{"__name__": "baseline"}})
start, cpu = time.perf_counter(), time.process_time()
import app
took, cpu = time.perf_counter() - start, time.process_time() - cpu
seen = lambda name: name in sys.modules
pulled = [int(seen(name)) for name in ("aws_xray_sdk", "botocore", "boto3")]
start, first_cpu = time.perf_counter(), time.process_time()
{first_use}
first, first_cpu = time.perf_counter() - start, time.process_time() - first_cpu
print(took, cpu, first, first_cpu, *pulled)
"""


def layer_requirements() -> list[str]:
    """The distributions ``layers/shared/requirements.txt`` installs into the shared layer."""
    text = (LAYER / "requirements.txt").read_text(encoding="utf-8")
    return re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", text, flags=re.MULTILINE)


def closure(names: list[str]) -> list[metadata.Distribution]:
    """The installed distributions ``names`` and what they require (extras left out)."""
    found: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a requirement for another Python version or platform
        found[name] = dist
        for requirement in dist.requires or ():
            if "extra ==" not in requirement:
                todo.append(re.match(r"[A-Za-z0-9._-]+", requirement)[0])  # type: ignore[index]
    return list(found.values())


def top_level(dist: metadata.Distribution) -> set[str]:
    """The names a distribution puts at the top of site-packages (packages and modules)."""
    names = set()
    for file in dist.files or ():
        first = file.parts[0]
        if first in ("..", "__pycache__") or first.endswith((".dist-info", ".pth")):
            continue
        if len(file.parts) > 1 or first.endswith((".py", ".so", ".pyd")):
            names.add(first)
    return names


def provided_site_packages(into: Path) -> list[str]:
    """Links in ``into`` to what the runtime and the layers provide; their distribution names."""
    dists = closure([*PROVIDED, *layer_requirements()])
    for dist in dists:
        base = Path(str(dist.locate_file("")))
        for name in top_level(dist):
            link = into / name
            if not link.exists() and (base / name).exists():
                link.symlink_to(base / name)
    return sorted(dist.metadata["Name"] for dist in dists)


def environment(tracing: bool) -> dict[str, str]:
    """A Lambda function's environment, with the variables template.yaml sets for both."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_LAMBDA_FUNCTION_NAME": "sitemap-updater-cold-start",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
        "LAMBDA_TASK_ROOT": "/var/task",
        "LAMBDA_RUNTIME_DIR": "/var/runtime",
        "_X_AMZN_TRACE_ID": "Root=1-00000000-000000000000000000000000;Parent=0;Sampled=1",
        "TABLE_NAME": "sitemap-updater-Table",
        "SITE_URL": "https://www.example.com",
        "ALTERNATES_ANY_HOST": "false",
        "POWERTOOLS_SERVICE_NAME": "sitemap-updater",
        "POWERTOOLS_METRICS_NAMESPACE": "SitemapUpdater",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "POWERTOOLS_TRACE_DISABLED": "false" if tracing else "true",
        "DLQ_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/dlq",
        "BUCKET_NAME": "sitemap-updater-bucket",
    }
    return env


def import_once(
    name: str, folder: Path, site: Path, env: dict[str, str], preload: str = ""
) -> tuple[float, float, float, float, str]:
    """Seconds (wall and CPU) to import ``app`` from ``folder`` in a fresh interpreter, then to
    do its :data:`FIRST_USE`, and what the import pulled. With ``preload``, that source runs
    first, untimed, and there is no first use."""
    first_use = "pass" if preload else FIRST_USE.get(name, "pass")
    path = [str(folder), str(LAYER), str(site)]
    code = CHILD.format(path=path, preload=preload, first_use=first_use)
    done = subprocess.run(
        [sys.executable, "-S", "-E", "-c", code],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"import of {folder / 'app.py'} failed:\n{done.stderr[-2000:]}")
    took, cpu, first, first_cpu, *seen = done.stdout.split()
    names = ("X-Ray SDK", "botocore", "boto3")
    pairs = zip(names, seen, strict=True)
    pulled = (f"{name} {'yes' if flag == '1' else 'no'}" for name, flag in pairs)
    return float(took), float(cpu), float(first), float(first_cpu), ", ".join(pulled)


def measure(targets: dict[str, Path], site: Path, tracing: bool, rounds: int) -> None:
    env = environment(tracing)
    clocks: dict[str, dict[str, list[float]]] = {"wall": {}, "CPU": {}}
    #: import plus first use, per round (wall and CPU)
    whole: dict[str, dict[str, list[float]]] = {"wall": {}, "CPU": {}}
    #: the handler's import in a process that has already loaded the minimal handler with boto3
    on_top: dict[str, dict[str, list[float]]] = {"wall": {}, "CPU": {}}
    pulled: dict[str, str] = {}
    for _ in range(rounds):
        for name, folder in targets.items():
            took, cpu, first, first_cpu, pulled[name] = import_once(name, folder, site, env)
            clocks["wall"].setdefault(name, []).append(took * 1000)
            clocks["CPU"].setdefault(name, []).append(cpu * 1000)
            whole["wall"].setdefault(name, []).append((took + first) * 1000)
            whole["CPU"].setdefault(name, []).append((cpu + first_cpu) * 1000)
        for name in FIRST_USE:
            took, cpu, *_ = import_once(name, targets[name], site, env, WITH_BOTO3_HANDLER)
            on_top["wall"].setdefault(name, []).append(took * 1000)
            on_top["CPU"].setdefault(name, []).append(cpu * 1000)
    label = "on" if tracing else "off"
    print(f"tracing {label}, {rounds} rounds, load average {load()}:")
    times, cpu_times = clocks["wall"], clocks["CPU"]
    for name in targets:
        best, median = min(times[name]), statistics.median(times[name])
        print(
            f"  import {name:<8} best {best:7.1f} ms, median {median:7.1f} ms, best CPU "
            f"{min(cpu_times[name]):7.1f} ms ({pulled[name]})"
        )
    for name in FIRST_USE:
        print(
            f"  import + first use {name:<8} best {min(whole['wall'][name]):7.1f} ms, best CPU "
            f"{min(whole['CPU'][name]):7.1f} ms (first use alone, CPU: "
            f"{min(whole['CPU'][name]) - min(cpu_times[name]):+.1f} ms)"
        )
    for clock, measured in clocks.items():
        compare(measured, label, clock)
    for name in FIRST_USE:
        own_cpu = on_top["CPU"][name]
        best = min(own_cpu)
        verdict = "met" if best <= TARGET_MS else f"NOT met: {best - TARGET_MS:.1f} ms over"
        print(
            f"BEYOND {name}, tracing {label}: its import after the minimal handler with boto3 "
            f"in one process: best CPU {best:.1f} ms, median CPU "
            f"{statistics.median(own_cpu):.1f} ms, best wall {min(on_top['wall'][name]):.1f} "
            f"ms (target <= +{TARGET_MS:.0f} ms: {verdict})"
        )


def compare(times: dict[str, list[float]], label: str, clock: str) -> None:
    """Each handler against the minimal one, and against the minimal one with boto3, on one
    clock, and each against the target."""
    base_best = min(times["minimal"])
    sdk = min(times["+boto3"]) - base_best
    print(f"  boto3's import on the minimal handler ({clock}): {sdk:+.1f} ms (best against best)")
    for name in FIRST_USE:
        extra = ratio(times, name, "minimal", f"tracing {label} ({clock})")
        print(f"  {name}: beyond boto3's import: {extra - sdk:+.1f} ms")
        ratio(times, name, "+boto3", f"tracing {label} ({clock})")


def ratio(times: dict[str, list[float]], name: str, base: str, setting: str) -> float:
    """Print the RATIO line of ``name`` against ``base``; its difference in ms, best to best."""
    best, median = min(times[name]), statistics.median(times[name])
    base_best, base_median = min(times[base]), statistics.median(times[base])
    extra = best - base_best
    verdict = "met" if extra <= TARGET_MS else f"NOT met: {extra - TARGET_MS:.1f} ms over"
    print(
        f"RATIO {name} / {BASELINES[base]}, {setting}: "
        f"best {best / base_best:.2f} ({extra:+.1f} ms), median {median / base_median:.2f} "
        f"({median - base_median:+.1f} ms) (target <= +{TARGET_MS:.0f} ms: {verdict})"
    )
    return extra


def load() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:  # pragma: no cover - a platform without it
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds (15)")
    parser.add_argument(
        "--tracing", choices=("on", "off", "both"), default="both", help="which setting (both)"
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cold-start-") as work:
        site, minimal = Path(work, "site-packages"), Path(work, "minimal")
        site.mkdir()
        minimal.mkdir()
        (minimal / "app.py").write_text(MINIMAL_HANDLER, encoding="utf-8")
        with_boto3 = Path(work, "with-boto3")
        with_boto3.mkdir()
        (with_boto3 / "app.py").write_text(WITH_BOTO3_HANDLER, encoding="utf-8")
        names = provided_site_packages(site)
        print(f"provided: {', '.join(names)}")
        targets = {
            "minimal": minimal,
            "+boto3": with_boto3,
            "ingest": ROOT / "functions" / "ingest",
            "rebuild": ROOT / "functions" / "rebuild",
            "observe": ROOT / "functions" / "observe",
        }
        settings = {"on": (True,), "off": (False,), "both": (True, False)}[options.tracing]
        for tracing in settings:
            measure(targets, site, tracing, options.rounds)


if __name__ == "__main__":
    main()
