"""The docs say what the tool does and prints: every option of each command in its synopsis in
``docs/cli.md``, the exit codes as ``errors`` defines them, the README's count of the demo's
events, and the messages ``docs/troubleshooting.md`` quotes, each produced here or found in the
code that writes it."""

from __future__ import annotations

import argparse
import importlib
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemap_updater.ingest.dlq import reason_line
from sitemap_updater.ingest.judge import judge_message
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.sites import Sites
from sitemap_updater_local import cli, demo_changes, errors
from sitemap_updater_local.commands import demo

ROOT = Path(__file__).resolve().parents[2]
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
TROUBLESHOOTING = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
SITE = "https://www.example.com"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    importlib.import_module(f"sitemap_updater_local.commands.{command}").add_arguments(parser)
    return parser


def _synopsis(command: str) -> str:
    """The code span a bullet of docs/cli.md opens with: ``- `COMMAND ...```."""
    found = re.search(rf"^- `({command}\b[^`]*)`", CLI_DOC, re.M)
    assert found is not None, f"docs/cli.md has no bullet opening with `{command} ...`"
    return _one_line(found[1])


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_every_option_is_in_the_synopsis_with_its_value(command: str) -> None:
    synopsis = _synopsis(command)
    words = set(re.findall(r"[\w.-]+", synopsis))
    shown = set(re.findall(r"--[\w-]+", synopsis))
    options: set[str] = set()
    for action in _parser(command)._actions:
        if action.help == argparse.SUPPRESS or action.dest == "help":
            continue
        metavar = str(action.metavar or action.dest.upper())
        if not action.option_strings:
            assert metavar in words or f"{metavar}..." in words, (command, metavar)
            continue
        option = action.option_strings[0]
        options.add(option)
        if action.nargs != 0:  # an option that takes a value names it as --help does
            assert re.search(rf"{option} {re.escape(metavar)}(?:\.\.\.)?(?![\w.])", synopsis), (
                command,
                option,
                metavar,
            )
    assert shown == options, (
        command,
        "only in the docs:",
        shown - options,
        "only in the code:",
        options - shown,
    )


def test_the_exit_codes_are_documented_in_one_table_as_errors_defines_them() -> None:
    section = CLI_DOC.split("## Exit status", 1)[1]
    documented = {int(n) for n in re.findall(r"^\| (\d+) \|", section, re.M)}
    defined = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    assert documented == defined
    assert len(re.findall(r"^## Exit status$", CLI_DOC, re.M)) == 1


def test_an_unknown_command_exits_2_as_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bogus"]) == 2
    assert capsys.readouterr().err.startswith("sitemap-updater: unknown command 'bogus'")
    assert "an unknown command" in CLI_DOC.split("## Exit status", 1)[1].split("| 2 |")[1]


def test_the_readme_counts_the_events_the_demo_sends() -> None:
    readme = _one_line((ROOT / "README.md").read_text(encoding="utf-8"))
    found = re.search(
        r"`make demo` sends ([\d,]+) page changes on two hosts \(([\d,]+) pages, ([\d,]+) of them "
        r"with a twin on the second host, [^)]*\), (\d+) news articles and a page with a video",
        readme,
    )
    assert found is not None
    events, pages, twins, articles = (int(n.replace(",", "")) for n in found.groups())
    made = demo_changes.make_pages(demo.DEFAULT_URLS, demo.SITE)
    twin_pages = demo_changes.twins(made, demo.SITE, demo.TWIN_SITE)
    sent = demo_changes.initial_events(made, demo.SITE, demo.TWIN_SITE)
    sent += demo_changes.initial_events(twin_pages, demo.SITE, demo.TWIN_SITE)
    assert (events, pages, twins) == (len(sent), len(made), len(twin_pages))
    assert articles == len(demo_changes.news_events(demo.SITE, datetime.now(UTC)))


def _reason(body: object) -> str:
    now = datetime.now(UTC)
    text = body if isinstance(body, str) else json.dumps(body)
    judgement = judge_message(text, sent_at=now, sites=Sites.parse(SITE), now=now)
    return reason_line([j for j in judgement.items if isinstance(j, Rejection)])


def _upsert(**fields: object) -> dict[str, object]:
    return {"action": "upsert", "url": f"{SITE}/x", **fields}


#: Messages whose reasons troubleshooting.md quotes in its code blocks.
REJECTED = [
    '{"action": "upsert", "url": ',
    _upsert(url="https://elsewhere.example.org/x"),
    _upsert(priority="high"),
    {"url": f"{SITE}/x"},
    _upsert(
        alternates=[
            {"hreflang": "en", "href": f"{SITE}/x"},
            {"hreflang": "EN", "href": f"{SITE}/y"},
        ]
    ),
    _upsert(lastmod="0001-01-01"),
]


def test_the_quoted_dead_letter_reasons_are_what_ingest_writes() -> None:
    section = TROUBLESHOOTING.split("## Sending changes", 1)[1].split("\n## ", 1)[0]
    quoted = [
        line for lang, body in FENCE.findall(section) if not lang for line in body.splitlines()
    ]
    assert sorted(quoted) == sorted(_reason(body) for body in REJECTED)


def test_the_quoted_blank_and_bidi_rules_are_what_ingest_writes() -> None:
    text = _one_line(TROUBLESHOOTING)
    blank, bidi = re.findall(
        r'is refused with "([^"]+)", and one holding a bidi control with "([^"]+)"', text
    )[0]
    video = {"thumbnail_loc": f"{SITE}/t.jpg", "description": "d", "content_loc": f"{SITE}/v.mp4"}
    assert blank in _reason(_upsert(videos=[{**video, "title": "\u200b"}]))
    assert bidi in _reason(_upsert(videos=[{**video, "title": "\u202eevil"}]))


def test_the_quoted_item_size_rule_is_what_ingest_writes() -> None:
    rule = re.search(r'A reason about `page` with "([^"]+)"', _one_line(TROUBLESHOOTING))
    assert rule is not None
    images = [{"loc": f"{SITE}/images/{i:04d}-{'x' * 500}.jpg"} for i in range(1000)]
    reason = _reason(_upsert(images=images))
    assert reason.startswith("field page value ") and rule[1] in reason


def test_the_quoted_warning_is_what_backfill_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = re.search(r"`(feed\.xml:12: warning: [^`]+)`", TROUBLESHOOTING)
    assert found is not None
    video = (
        "<video:video><video:thumbnail_loc>https://www.example.com/t.jpg</video:thumbnail_loc>"
        "<video:title>\u202eevil</video:title><video:description>d</video:description>"
        "<video:content_loc>https://www.example.com/v.mp4</video:content_loc></video:video>"
    )
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        '        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">\n'
    )
    feed = head + "\n" * 8 + f"<url><loc>{SITE}/v</loc>{video}</url>\n</urlset>\n"
    (tmp_path / "feed.xml").write_text(feed, encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    assert cli.main(["backfill", "--from", "feed.xml", "--out", "out.jsonl", "--no-progress"]) == 0

    assert _one_line(found[1]) in capsys.readouterr().err.splitlines()


def _write_news_sitemap(path: Path) -> None:
    """A sitemap whose one article (line 4) has the News language ``en-US``."""
    news = (
        "<news:news><news:publication><news:name>Daily</news:name>"
        "<news:language>en-US</news:language></news:publication>"
        "<news:publication_date>2026-11-27</news:publication_date>"
        "<news:title>T</news:title></news:news>"
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        '        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
        f"<url><loc>{SITE}/n</loc>{news}</url>\n</urlset>\n",
        encoding="utf-8",
    )


def test_the_quoted_field_and_language_warnings_are_what_backfill_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    block = TROUBLESHOOTING.split("**Other `warning:` lines", 1)[1]
    [(_, body)] = FENCE.findall(block)[:1]
    quoted = body.splitlines()
    rows = "".join(f"{SITE}/p{i},2026-11-0{i}\n" for i in range(1, 6))
    (tmp_path / "export.csv").write_text(f"url,lastmod\n{rows}{SITE}/p6,27/11/2026\n")
    _write_news_sitemap(tmp_path / "news.xml")
    monkeypatch.chdir(tmp_path)
    printed: list[str] = []
    for source in ("export.csv", "news.xml"):
        args = ["backfill", "--from", source, "--out", f"{source}.jsonl", "--no-progress"]
        assert cli.main(args) == 0
        printed += capsys.readouterr().err.splitlines()

    assert [line for line in quoted if line not in printed] == []


def test_the_quoted_ending_lines_are_what_the_commands_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _one_line(TROUBLESHOOTING)
    quoted = re.findall(r'"(sitemap-updater \w+: [^"]+)"', text)
    assert len(quoted) == 2
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    changes = tmp_path / "changes.jsonl"
    changes.write_text(json.dumps({"action": "delete", "url": f"{SITE}/a"}) + "\n")
    (tmp_path / "empty.xml").write_bytes(b"")
    printed = []
    for args in (
        ["send", "--queue-url", "http://127.0.0.1:1/q", str(changes), "--no-progress"],
        ["validate", str(tmp_path / "empty.xml")],
    ):
        cli.main(args)
        printed += capsys.readouterr().err.splitlines()
    assert set(quoted) <= set(printed)


#: Quoted text that is not this project's: other tools' messages, and names.
OTHERS = {
    "Binary validation failed for python",  # SAM CLI
    "The bucket you tried to delete is not empty",  # S3
    "Concurrent executions",  # a quota's name in Service Quotas
    "Before the first deploy",  # a heading of deploy.md
    "$PWD/.venv/bin:$PATH",  # a command
}
SOURCES = [ROOT / "template.yaml", ROOT / "Makefile"] + [
    path
    for folder in ("layers/shared/sitemap_updater", "functions", "tooling")
    for path in (ROOT / folder).rglob("*.py")
]


def test_every_other_quoted_message_is_written_by_the_code() -> None:
    """A quote (``...`` marks what varies) the tests above do not produce is in the code that
    writes it, word for word; so is each message of the template's rules table."""
    prose = _one_line(FENCE.sub("", TROUBLESHOOTING))
    quoted = [
        q
        for q in re.findall(r'"([^"]{12,})"', prose)
        if not q.startswith(("http", "sitemap-updater "))
    ]
    table = re.findall(r"^\| ([A-Z][^|]+\.) \|", TROUBLESHOOTING, re.M)
    assert len(table) == 3
    code = _one_line("\n".join(path.read_text(encoding="utf-8") for path in SOURCES))
    code = re.sub(r'" f?"', "", code)  # adjacent string literals are one message
    tested = ("must not be empty or blank", "must not contain bidi", "must fit in one table item")
    missing = [
        message
        for message in quoted + table
        if message not in OTHERS
        and not message.startswith(tested)
        and not all(part.strip() in code for part in message.split("...") if part.strip())
    ]
    assert missing == []
