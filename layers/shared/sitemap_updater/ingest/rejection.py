"""What the judge says of a change it refuses: a :class:`Rejection`, naming the field, the
value and the rule, read from what msgspec's decoder said where the structs refused a value."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Final

import msgspec

from sitemap_updater.page.model import EventBridgeEvent, SentChange

PATH: Final = re.compile(r" - at `\$(.*)`$")
_INDEX: Final = re.compile(r"\[(\d+)\]")
#: An element of a list named in a rule (``alternates[0] names it already``).
ELEMENT: Final = re.compile(r"\b[a-z_]+\[\d+\]")
_MISSING_FIELD: Final = re.compile(r"Object missing required field `([^`]+)`")
_EXPECTED: Final = re.compile(r"Expected `([^`]+)`(?:, got `([^`]+)`)?(.*)")
_KINDS: Final = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


#: The value of a rejection for a field that is absent.
MISSING: Final = _Missing()


class Rejection(msgspec.Struct, frozen=True, gc=False):
    """Why a message, or one change of an array message, can never be applied: ``index`` is the
    change's place in an array (``None``: the message, or its one change), ``raw`` the change as
    sent."""

    index: int | None
    field: str
    value: object
    rule: str
    raw: object = None


# -- what the decoder said -------------------------------------------------------------------


def json_rule(text: str, message: str) -> str:
    """The rule a text that is not JSON breaks, at the line and column of msgspec's byte offset."""
    reason = message.removeprefix("JSON is malformed: ")
    found = re.search(r" \(byte (\d+)\)$", reason)
    if found is None:
        return f"must be JSON ({reason[:1].lower()}{reason[1:]})"
    head = text.encode("utf-8")[: int(found[1])].decode("utf-8", "replace")
    line, column = head.count("\n") + 1, len(head) - head.rfind("\n")
    return f"must be JSON ({reason[: found.start()]} at line {line} column {column})"


def _value_at(obj: object, path: Iterable[str | int]) -> object:
    for step in path:
        try:
            obj = obj[step]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return obj


def steps_of(path: str) -> list[str | int]:
    """``.alternates[0].href`` as ``["alternates", 0, "href"]``."""
    steps: list[str | int] = []
    for part in filter(None, path.split(".")):
        name, *indexes = _INDEX.split(part)
        if name:
            steps.append(name)
        steps += [int(i) for i in indexes if i]
    return steps


def _field(steps: list[str | int]) -> str:
    text = ""
    for step in steps:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def _rule(message: str) -> str:
    """A decoder's message as the rule a value breaks."""
    expected = _EXPECTED.fullmatch(message)
    if expected is None:
        if message.startswith("Invalid value"):
            return "must be one of the values the contract lists"
        return message[0].lower() + message[1:]
    kinds, got, bound = expected.groups()
    if got is not None:
        names = [_KINDS.get(kind.strip(), kind.strip()) for kind in kinds.split("|")]
        names = [name for name in names if name != "null"] or names
        return f"must be {' or '.join(names)} (not {_KINDS.get(got, got)})"
    bound = bound.strip()
    for sign, words in ((">=", "at least"), ("<=", "at most")):
        if f"of length {sign}" in bound:
            count = bound.rsplit(" ", 1)[1]
            unit = "character" if kinds == "str" else "item"
            return f"must have {words} {count} {unit}{'' if count == '1' else 's'}"
        if bound.startswith(sign):
            return f"must be {words} {bound[len(sign) :].strip()}"
    return f"must be {_KINDS.get(kinds, kinds)} {bound}".strip()


def rejection_of(
    error: msgspec.ValidationError, raw: object, index: int | None, prefix: str
) -> Rejection:
    """The rejection of a value the typed decoder refused: its field, its value, its rule."""
    message = str(error)
    located = PATH.search(message)
    steps = steps_of(located[1]) if located else []
    message = message[: located.start()] if located else message
    missing = _MISSING_FIELD.fullmatch(message)
    if missing is not None:
        return Rejection(index, prefix + _field([*steps, missing[1]]), MISSING, "is required", raw)
    field = _field(steps) or "change"
    value = _value_at(raw, steps)
    if steps and steps[-1] == "action":
        return Rejection(index, prefix + field, value, "must be upsert or delete", raw)
    choices = _choices(_declared(), steps) if message.startswith("Invalid enum value") else []
    rule = f"must be one of {', '.join(choices)}" if choices else _rule(message)
    return Rejection(index, prefix + field, value, rule, raw)


@cache
def _declared() -> tuple[msgspec.inspect.Type, ...]:
    """The declarations a decoder's path starts from (read once a rejection needs them)."""
    return msgspec.inspect.multi_type_info([SentChange, EventBridgeEvent])


def _choices(kinds: Iterable[msgspec.inspect.Type], steps: list[str | int]) -> list[str]:
    """The values of the ``Literal`` that one of ``kinds`` declares at ``steps`` (none: no
    literal is declared there)."""
    inspect = msgspec.inspect
    for kind in kinds:
        while isinstance(kind, inspect.Metadata):
            kind = kind.type
        if isinstance(kind, inspect.UnionType):
            found = _choices(kind.types, steps)
        elif not steps:
            found = [str(v) for v in kind.values] if isinstance(kind, inspect.LiteralType) else []
        elif isinstance(kind, inspect.StructType):
            found = _choices([f.type for f in kind.fields if f.encode_name == steps[0]], steps[1:])
        elif isinstance(kind, inspect.ListType | inspect.VarTupleType):
            found = _choices([kind.item_type], steps[1:]) if isinstance(steps[0], int) else []
        else:
            found = []
        if found:
            return found
    return []
