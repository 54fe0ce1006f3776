"""The template's schedules: each function's ``Schedule`` events, as EventBridge runs them.

An event's ``Schedule`` expression must be a ``rate(VALUE UNIT)``; a ``cron(...)`` expression is
refused with the event that holds it (the local deployment runs no calendar). A disabled event
(``Enabled: false``) is left out. An event's ``Input`` is the JSON EventBridge delivers instead
of the scheduled event (the reconciling full rebuild's ``{"full_rebuild": true}``).

Rate expressions, as EventBridge reads them
(https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html#rate-based): a
positive whole VALUE and a UNIT of ``minute``, ``hour`` or ``day``, singular for 1 and plural
otherwise (``rate(1 minute)``, ``rate(5 minutes)``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from sitemap_updater_local.deployment.stack.template import Template, TemplateError

_RATE: Final = re.compile(r"rate\((?P<value>[1-9][0-9]*) (?P<unit>minute|hour|day)(?P<s>s?)\)")
_SECONDS: Final = {"minute": 60, "hour": 3_600, "day": 86_400}


@dataclass(frozen=True, slots=True)
class Scheduled:
    """One schedule of one function."""

    function: str
    event: str
    expression: str
    seconds: int
    #: what the schedule delivers: its ``Input``, or None for the scheduled event itself
    payload: dict[str, Any] | None


def rate_seconds(expression: str, where: str) -> int:
    """The period of a ``rate()`` expression, in seconds; ``where`` names it in an error."""
    match = _RATE.fullmatch(expression.strip())
    if match is None:
        raise TemplateError(
            f"{where}: schedule {expression!r} is not run locally: only rate(VALUE UNIT) "
            "expressions are (minute, hour or day)"
        )
    value = int(match["value"])
    if (value == 1) == bool(match["s"]):
        unit = match["unit"] + ("" if value == 1 else "s")
        raise TemplateError(f"{where}: schedule {expression!r} must say rate({value} {unit})")
    return value * _SECONDS[match["unit"]]


def schedules(template: Template) -> list[Scheduled]:
    """Every enabled ``Schedule`` event of the template's functions, in template order."""
    found: list[Scheduled] = []
    for function, spec in template.functions().items():
        for name, event in spec.events.items():
            if event.get("Type") not in {"Schedule", "ScheduleV2"}:
                continue
            where = f"function {function}, event {name}"
            props = event.get("Properties", {})
            if str(template.resolve(props.get("Enabled", True))).lower() == "false":
                continue
            key = "Schedule" if event["Type"] == "Schedule" else "ScheduleExpression"
            expression = str(template.resolve(props.get(key, "")))
            raw = props.get("Input")
            payload = None if raw is None else json.loads(str(template.resolve(raw)))
            found.append(
                Scheduled(function, name, expression, rate_seconds(expression, where), payload)
            )
    return found
