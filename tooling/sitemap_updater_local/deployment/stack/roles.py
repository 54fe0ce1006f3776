"""Which of the template's functions plays which part: ingest (the one an SQS queue feeds), the
rebuild and the observer (the scheduled ones, told apart by the observer's settings), and the
parameter ``SITE_URL`` is taken from."""

from __future__ import annotations

from typing import Any

from sitemap_updater_local.deployment.stack.template import FunctionSpec


def site_parameter(body: dict[str, Any]) -> str | None:
    """The parameter that SITE_URL is taken from, if it is a plain ``!Ref`` of one."""
    glob = body.get("Globals", {}).get("Function", {}).get("Environment", {})
    candidates = [glob.get("Variables", {}).get("SITE_URL")]
    for res in body.get("Resources", {}).values():
        if res.get("Type") == "AWS::Serverless::Function":
            env = res.get("Properties", {}).get("Environment", {}).get("Variables", {})
            candidates.append(env.get("SITE_URL"))
    params = body.get("Parameters", {})
    for value in candidates:
        if isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in params:
            return str(value["Ref"])
    return None


def sqs_source(specs: dict[str, FunctionSpec]) -> tuple[str, dict[str, Any]]:
    """The ingest function (the one with an SQS event) and that event's properties."""
    for lid, spec in specs.items():
        for event in spec.events.values():
            if event.get("Type") == "SQS":
                return lid, dict(event.get("Properties", {}))
    raise ValueError("template has no function with an SQS event (the ingest function)")


#: what sets the observer apart from the rebuild, the other scheduled function
_OBSERVER_VARIABLE = "OBSERVE_INTERVAL_MINUTES"


def _is_scheduled(spec: FunctionSpec) -> bool:
    return any(e.get("Type") in {"Schedule", "ScheduleV2"} for e in spec.events.values())


def rebuild_function(specs: dict[str, FunctionSpec]) -> str:
    """The rebuild: the scheduled function without the observer's settings."""
    for lid, spec in specs.items():
        if _is_scheduled(spec) and _OBSERVER_VARIABLE not in spec.environment:
            return lid
    raise ValueError("template has no function with a Schedule event (the rebuild function)")


def observer_function(specs: dict[str, FunctionSpec]) -> str | None:
    """The observer: the scheduled function with the observer's settings (None: none)."""
    for lid, spec in specs.items():
        if _is_scheduled(spec) and _OBSERVER_VARIABLE in spec.environment:
            return lid
    return None
