"""What ``where`` makes of what it found: why a URL is not listed (or what its listing waits
for), the verdict, the lines it prints and its exit status.

Each reason is a code (the JSON's) and a sentence (the text's). A URL not listed has at least
one; the first is the verdict's. The lines print every value from the input or from AWS escaped
(``sitemap_updater.printable``), each on one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sitemap_updater.printable import printable
from sitemap_updater_local.console import command_line
from sitemap_updater_local.errors import EXIT_OK, EXIT_SKIPPED

#: The verdict's words for the first reason of a URL that is not listed.
SHORT: Final = {
    "not-on-a-site": "on none of the sites",
    "rejected": "rejected",
    "dead-lettered": "dead-lettered after failed receives",
    "never-received": "never received",
    "deleted": "deleted",
    "excluded": "excluded as unhealthy",
    "not-yet-rebuilt": "not yet rebuilt",
    "unexplained": "missing from its file although live",
    "not-in-build": "not in the build",
}


def _reason(code: str, text: str) -> dict[str, str]:
    return {"code": code, "text": text}


def judge_stack(found: dict[str, Any]) -> dict[str, Any]:
    """``found`` (``on_stack.collect``'s) with its ``reasons``, ``notes`` and ``verdict``."""
    item, rebuild, dead = found["item"], found["rebuild"], found["dead_letters"]
    state = None if item is None else item["state"]
    after = rebuild["written_after_checkpoint"]
    reasons, notes = [], []
    if found["site"] is None:
        sites = ", ".join(found["sites"])
        reasons.append(_reason("not-on-a-site", f"on none of the stack's sites ({sites})"))
    elif item is None:
        if dead["rejected"]:
            reasons.append(_reason("rejected", "rejected: ingest dead-lettered its change"))
        elif dead["failed"]:
            reasons.append(_reason("dead-lettered", "its change outlived its receives"))
        reasons.append(
            _reason(
                "never-received",
                "never received: the table holds no item of it (or its delete is older than "
                "the tombstones live)",
            )
        )
    elif state == "deleted":
        reasons.append(
            _reason(
                "deleted",
                f"deleted by a change of {item['change_at']} (its tombstone is kept until "
                f"{item['tombstone_until'] or 'unknown'})",
            )
        )
    elif state == "excluded":
        reasons.append(
            _reason(
                "excluded",
                f"excluded as unhealthy since {item['excluded_since'] or 'unknown'}: the "
                "observer's health checks failed (sitemap-updater coverage names the problem)",
            )
        )
    if found["listed"]:
        notes += _listed_notes(found, state, after)
    elif state == "live":
        reasons.append(_live_reason(found, after))
    found["reasons"], found["notes"] = ([] if found["listed"] else reasons), notes
    found["verdict"] = _verdict(found)
    return found


def _live_reason(found: Mapping[str, Any], after: bool | None) -> dict[str, str]:
    item, rebuild = found["item"], found["rebuild"]
    if rebuild["leaf_pending"]:
        return _reason(
            "not-yet-rebuilt",
            "not yet rebuilt: its file is a pending leaf, which the next runs rebuild",
        )
    if after or rebuild["checkpoint_at"] is None:
        return _reason(
            "not-yet-rebuilt",
            f"not yet rebuilt: written {item['written_at']}, after the rebuild's last checkpoint "
            f"({rebuild['checkpoint_at'] or 'none yet'})",
        )
    return _reason(
        "unexplained",
        f"live, written {item['written_at'] or '(no write time)'} before the rebuild's last "
        f"checkpoint ({rebuild['checkpoint_at']}), yet not in its file: a full rebuild "
        "writes the file again",
    )


def _listed_notes(found: Mapping[str, Any], state: str | None, after: bool | None) -> list[str]:
    item = found["item"]
    if state is None:
        return ["the table holds no item of it: the file is older than the table's content"]
    if state in {"deleted", "excluded"}:
        gone = "deleted" if state == "deleted" else "excluded as unhealthy"
        if after:
            return [f"{gone} since the last rebuild: the next one takes it out of its file"]
        return [f"{gone}, yet still in its file: a full rebuild writes the file again"]
    if after:
        return [f"a change written {item['written_at']} waits for the next rebuild"]
    return []


def judge_build(found: dict[str, Any]) -> dict[str, Any]:
    """``found`` (``on_build.collect``'s) with its ``reasons``, ``notes`` and ``verdict``."""
    reasons, notes = [], []
    if found["site"] is None:
        sites = ", ".join(found["sites"])
        reasons.append(_reason("not-on-a-site", f"on none of the sites given ({sites})"))
    elif found["listed"] and found["listed_in"] != found["file"]:
        notes.append(
            f"not in the section the rules place it in ({found['section']}): its change "
            "named its section, or the build was given other --section-rules"
        )
    elif not found["listed"]:
        reasons.append(
            _reason(
                "not-in-build",
                "not in the build: its input held no live change of it (none, a delete, or a "
                "rejected record, which build reports); a build keeps no table to tell which",
            )
        )
    found["reasons"], found["notes"] = reasons, notes
    found["verdict"] = _verdict(found)
    return found


def _verdict(found: Mapping[str, Any]) -> str:
    if found["listed"]:
        return f"listed in {found['listed_in']}"
    return f"not listed: {SHORT[found['reasons'][0]['code']]}"


def exit_status(found: Mapping[str, Any]) -> int:
    """0 for a listed URL, 1 for one that is not (the lines say why)."""
    return EXIT_OK if found["listed"] else EXIT_SKIPPED


def render(found: Mapping[str, Any]) -> list[str]:
    """The findings, one a line, and the verdict last."""
    given = "" if found["url"] == found["identity"] else f" (normalized from {found['url']})"
    lines = [f"url: {found['identity']}{given}"]
    if found["site"] is None:
        lines.append(f"site: none of {', '.join(found['sites'])}")
    else:
        lines.append(f"site: {found['site']}")
        how = "named by its change" if found["section_named"] else "placed by the section rules"
        lines.append(f"section: {found['section']} ({how})")
        lines.append(f"file: {_file_line(found)}")
    lines.append(f"listed: {_listed_line(found)}")
    if "item" in found:
        lines += _stack_lines(found)
    lines += [f"note: {note}" for note in found["notes"]]
    lines += [f"why: {reason['text']}" for reason in found["reasons"]]
    return [printable(line) for line in lines] + [command_line("where", found["verdict"])]


def _file_line(found: Mapping[str, Any]) -> str:
    shard = found["shard"]
    if "item" not in found:  # a build output
        if shard is None:
            return f"{found['file']} (its section has no file on this host)"
        return f"{found['file']} (shard {shard})"
    if shard is None:
        return f"{found['file']} (its section has no file yet)"
    listed = "in the published index" if found["file_published"] else "not in the published index"
    return f"{found['file']} (shard {shard}, {listed})"


def _listed_line(found: Mapping[str, Any]) -> str:
    if not found["listed"]:
        return "no"
    lastmod = found["lastmod"]
    where = "" if found["listed_in"] == found["file"] else f" in {found['listed_in']}"
    return f"yes{where}, " + (f"lastmod {lastmod}" if lastmod else "without lastmod")


def _stack_lines(found: Mapping[str, Any]) -> list[str]:
    item, rebuild, dead = found["item"], found["rebuild"], found["dead_letters"]
    if item is None:
        table = "no item"
    else:
        table = f"{item['state']}, changed {item['change_at']}, written {item['written_at']}"
    lines = [f"table: {table}"]
    pending = "; its file's leaf is pending" if rebuild["leaf_pending"] else ""
    lines.append(
        f"rebuild: last checkpoint {rebuild['checkpoint_at'] or 'none yet'}, last publish "
        f"{rebuild['published_at'] or 'none yet'}{pending}"
    )
    naming = dead["rejected"] + dead["failed"]
    lines.append(
        f"dead letters: {naming or 'none'} of the {dead['peeked']} peeked (of "
        f"{dead['messages']} in the queue) name it"
    )
    for letter in dead["newest"]:
        kind = "rejected" if letter["rejected"] else "dead-lettered"
        lines.append(f"{kind}: sent {letter['sent_at']}: {letter['reason']}")
    return lines
