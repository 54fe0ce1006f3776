"""``producer.client.ChangeSender`` against moto SQS: packing, retries, flush rules, threads.

The limits are checked on what reached the queue, measured here: a body's UTF-8 bytes against
the queue's ``MaximumMessageSize`` as template.yaml sets it, and its changes against what the
ingest judge accepts in one array body. Partial failures of ``SendMessageBatch`` are injected
with botocore's events (moto accepts every valid entry; see ``tests/helpers/sqs_faults.py``).
Time is an injected clock: no test waits for it to pass.
"""

from __future__ import annotations

import itertools
import json
import threading
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

from sitemap_updater.ingest.judge import judge_message
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.producer.checks import ChangeRejected, SendFailed
from sitemap_updater.producer.client import ChangeSender
from sitemap_updater.sites import Sites
from tests.helpers.sqs_faults import drain, inject_failures
from tests.template.cfn import load_template

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

SITE = "https://www.example.com"
START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUEUE_BYTES = int(load_template()["Resources"]["Queue"]["Properties"]["MaximumMessageSize"])


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _sender(sqs: SQSClient, url: str, **options: Any) -> ChangeSender:
    options.setdefault("max_age_seconds", 3600)
    return ChangeSender(url, site=SITE, sqs=sqs, sleep=lambda s: None, **options)


def _changes(bodies: list[str]) -> list[dict[str, Any]]:
    """Every change of the array bodies, judged as ingest judges each body."""
    found: list[dict[str, Any]] = []
    for body in bodies:
        now = datetime.now(UTC)
        judgement = judge_message(body, sent_at=now, sites=Sites.parse(SITE), now=now)
        assert judgement.kind == "array"
        assert not any(isinstance(j, Rejection) for j in judgement.items)
        found += json.loads(body)
    return found


def _calls(sqs: SQSClient) -> list[int]:
    """Entries of each SendMessageBatch call, as they are made."""
    calls: list[int] = []
    sqs.meta.events.register(
        "provide-client-params.sqs.SendMessageBatch",
        lambda params, **_: calls.append(len(params["Entries"])),
    )
    return calls


# -- packing ---------------------------------------------------------------------------------


def test_a_body_holds_at_most_what_one_array_body_may(sqs: SQSClient, queue_url: str) -> None:
    calls = _calls(sqs)
    with _sender(sqs, queue_url) as sender:
        for i in range(1234):
            sender.upsert(f"{SITE}/p/{i}", lastmod="2026-11-20")

    bodies = drain(sqs, queue_url)
    assert sorted(len(json.loads(b)) for b in bodies) == [234, 500, 500]
    assert sorted(c["url"] for c in _changes(bodies)) == sorted(
        f"{SITE}/p/{i}" for i in range(1234)
    )
    assert calls == [3]  # one SendMessageBatch call for the three bodies
    assert sender.stats.changes == 1234 and sender.stats.messages == 3


def test_bodies_are_filled_to_the_queue_size_in_utf8_bytes(sqs: SQSClient, queue_url: str) -> None:
    """Changes of about 5 KB with many two-byte characters: a count of characters would
    overfill a body, and a body is closed only when the next change would not fit."""
    images = [{"loc": f"https://cdn.example.com/é/{'ü' * 200}/{n}.jpg"} for n in range(20)]
    payloads: list[int] = []
    sqs.meta.events.register(
        "provide-client-params.sqs.SendMessageBatch",
        lambda params, **_: payloads.append(
            sum(len(e["MessageBody"].encode("utf-8")) for e in params["Entries"])
        ),
    )
    with _sender(sqs, queue_url) as sender:
        for i in range(200):
            sender.upsert(f"{SITE}/é/{i}", images=images)

    bodies = drain(sqs, queue_url)
    assert len(bodies) > 1
    assert max(len(b.encode("utf-8")) for b in bodies) <= QUEUE_BYTES
    by_first = {int(json.loads(b)[0]["url"].rsplit("/", 1)[1]): b for b in bodies}
    ordered = [by_first[n] for n in sorted(by_first)]
    counted_in_characters_would_fit = False
    for body, following in itertools.pairwise(ordered):
        first = json.dumps(json.loads(following)[0], ensure_ascii=False, separators=(",", ":"))
        # the next body's first change would not have fitted, its comma included
        assert len(body.encode("utf-8")) + 1 + len(first.encode("utf-8")) > QUEUE_BYTES
        counted_in_characters_would_fit |= len(body) + 1 + len(first) <= QUEUE_BYTES
    assert counted_in_characters_would_fit
    # about 1.7 MB in all: sent in several calls, each within the batch limit of the
    # SendMessageBatch API reference (1 MiB, the sum of the bodies' lengths)
    assert len(payloads) > 1 and max(payloads) <= 1_048_576
    assert len(_changes(bodies)) == 200


def test_a_change_larger_than_a_body_is_rejected_at_once(sqs: SQSClient, queue_url: str) -> None:
    huge = [{"loc": f"https://cdn.example.com/{'x' * 1900}/{n}.jpg"} for n in range(150)]
    with _sender(sqs, queue_url) as sender, pytest.raises(ChangeRejected) as caught:
        sender.upsert(f"{SITE}/big", images=huge)
    assert caught.value.field == "message"
    assert f"{QUEUE_BYTES:,} bytes" in caught.value.rule
    assert sender.buffered == 0 and drain(sqs, queue_url) == []


# -- checks ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "rule_part"),
    [
        ({"action": "upsert", "url": "https://other.example.org/a"}, "url", "must be on"),
        ({"action": "upsert", "url": f"{SITE}/a", "priority": "0.8"}, "priority", "number"),
        ({"action": "move", "url": f"{SITE}/a"}, "action", "upsert or delete"),
        ({"url": f"{SITE}/a"}, "action", "required"),
        ({"action": "upsert", "url": f"{SITE}/a", "lastmod": "2026-13-01"}, "lastmod", ""),
        ({"detail": {"action": "upsert", "url": f"{SITE}/a"}}, "message", "must be one change"),
        ({"action": "upsert", "url": f"{SITE}/a", "priority": float("nan")}, "message", "JSON"),
    ],
)
def test_a_change_ingest_would_reject_raises_with_field_value_and_rule(
    sqs: SQSClient, queue_url: str, change: dict[str, Any], field: str, rule_part: str
) -> None:
    with _sender(sqs, queue_url) as sender:
        sender.upsert(f"{SITE}/good")
        with pytest.raises(ChangeRejected) as caught:
            sender.add(change)
        assert caught.value.field == field and rule_part in caught.value.rule
        assert f"field {field} value" in str(caught.value)
        assert sender.buffered == 1  # the good change is kept, the bad one never buffered
    assert [c["url"] for c in _changes(drain(sqs, queue_url))] == [f"{SITE}/good"]


def test_changes_without_occurred_at_are_stamped_in_the_order_of_the_calls(
    sqs: SQSClient, queue_url: str
) -> None:
    clock = Clock()  # a clock that does not move: the stamps still grow
    with _sender(sqs, queue_url, clock=clock) as sender:
        sender.upsert(f"{SITE}/a", lastmod="2026-11-01")
        sender.upsert(f"{SITE}/a", lastmod="2026-11-02")
        sender.delete(f"{SITE}/a")
        sender.upsert(f"{SITE}/b", occurred_at="2026-11-19T00:00:00Z")

    stamps = [c["occurred_at"] for c in _changes(drain(sqs, queue_url))]
    assert stamps[:3] == sorted(stamps[:3]) and len(set(stamps[:3])) == 3
    assert stamps[0] == "2026-11-20T12:00:00.000000Z"
    assert stamps[3] == "2026-11-19T00:00:00Z"  # a producer's own occurred_at is kept


# -- retries ---------------------------------------------------------------------------------


def test_only_the_failed_entries_are_sent_again(sqs: SQSClient, queue_url: str) -> None:
    calls = _calls(sqs)
    first_urls: list[str] = []

    def verdict(body: str, call: int) -> Any:
        if call == 1 and json.loads(body)[0]["url"] == f"{SITE}/p/500":
            first_urls.append(json.loads(body)[0]["url"])
            return False, "InternalError", "try again"
        return None

    inject_failures(sqs, verdict)
    delays: list[float] = []
    with ChangeSender(
        queue_url, site=SITE, sqs=sqs, max_age_seconds=3600, sleep=delays.append
    ) as sender:
        for i in range(1200):
            sender.upsert(f"{SITE}/p/{i}")

    assert first_urls == [f"{SITE}/p/500"]
    assert calls == [3, 1]  # the second call holds the failed body only
    assert len(delays) == 1 and delays[0] > 0
    urls = [c["url"] for c in _changes(drain(sqs, queue_url))]
    assert sorted(urls) == sorted(f"{SITE}/p/{i}" for i in range(1200))  # each exactly once


def test_changes_never_sent_are_raised_with_the_error(sqs: SQSClient, queue_url: str) -> None:
    def verdict(body: str, call: int) -> Any:
        failing = json.loads(body)[0]["url"] == f"{SITE}/p/0"
        return (False, "InternalError", "down") if failing else None

    inject_failures(sqs, verdict)
    sender = _sender(sqs, queue_url, max_changes=10)
    for i in range(25):
        sender.upsert(f"{SITE}/p/{i}")
    with pytest.raises(SendFailed) as caught:
        sender.close()

    assert [c["url"] for c in caught.value.changes] == [f"{SITE}/p/{i}" for i in range(10)]
    assert {f.code for f in caught.value.failures} == {"InternalError"}
    arrived = [c["url"] for c in _changes(drain(sqs, queue_url))]
    assert sorted(arrived) == sorted(f"{SITE}/p/{i}" for i in range(10, 25))


def test_a_refused_call_raises_every_change_of_it(sqs: SQSClient) -> None:
    """The queue was never created: SQS refuses the whole call."""
    url = "https://sqs.us-east-1.amazonaws.com/123456789012/no-such-queue"
    sender = _sender(sqs, url)
    sender.upsert(f"{SITE}/a")
    sender.delete(f"{SITE}/b")
    with pytest.raises(SendFailed) as caught:
        sender.flush()
    assert [c["url"] for c in caught.value.changes] == [f"{SITE}/a", f"{SITE}/b"]
    assert "NonExistentQueue" in caught.value.failures[0].code
    sender.close()  # nothing left: closing raises nothing more


# -- flush rules -----------------------------------------------------------------------------


def test_the_buffer_is_sent_when_its_oldest_change_is_max_age_old(
    sqs: SQSClient, queue_url: str
) -> None:
    clock = Clock()
    sender = _sender(sqs, queue_url, clock=clock, max_age_seconds=10)
    sender.upsert(f"{SITE}/a")
    clock.advance(9.999)
    sender.upsert(f"{SITE}/b")
    assert sender.flush_if_due() is False
    assert drain(sqs, queue_url) == [] and sender.buffered == 2

    clock.advance(0.001)
    sender.upsert(f"{SITE}/c")  # the add that finds the oldest change due sends all three
    assert sender.buffered == 0
    assert [c["url"] for c in _changes(drain(sqs, queue_url))] == [
        f"{SITE}/a",
        f"{SITE}/b",
        f"{SITE}/c",
    ]

    sender.upsert(f"{SITE}/d")
    clock.advance(10)
    assert sender.flush_if_due() is True  # the same rule, without an add
    assert [c["url"] for c in _changes(drain(sqs, queue_url))] == [f"{SITE}/d"]
    sender.close()


def test_full_bodies_are_sent_as_soon_as_they_fill_one_call(sqs: SQSClient, queue_url: str) -> None:
    calls = _calls(sqs)
    sender = _sender(sqs, queue_url, max_changes=10)
    for i in range(100):  # ten full bodies, the last one still open to more changes
        sender.upsert(f"{SITE}/p/{i}")
    assert calls == [] and sender.buffered == 100
    sender.upsert(f"{SITE}/p/100")  # starts an eleventh body: the ten full ones fill a call
    assert calls == [10] and sender.buffered == 1
    sender.close()
    assert calls == [10, 1]
    assert len(_changes(drain(sqs, queue_url))) == 101


def test_the_background_thread_sends_a_due_buffer(sqs: SQSClient, queue_url: str) -> None:
    clock = Clock()
    sent = threading.Event()
    sqs.meta.events.register("after-call.sqs.SendMessageBatch", lambda **_: sent.set())
    sender = _sender(sqs, queue_url, clock=clock, max_age_seconds=0.01, background_flush=True)
    sender.upsert(f"{SITE}/a")
    assert sender.buffered == 1  # the clock has not moved: not due
    clock.advance(1)  # due now; the thread sends it on its next tick, with no add or flush
    assert sent.wait(timeout=30)
    assert [c["url"] for c in _changes(drain(sqs, queue_url))] == [f"{SITE}/a"]
    sender.close()


def test_a_failure_of_a_timed_flush_is_raised_by_the_next_call(
    sqs: SQSClient, queue_url: str
) -> None:
    """``flush_if_due`` is what the background thread calls: it keeps a failure for the
    producer's next call instead of raising it in a thread nobody watches."""
    clock = Clock()
    inject_failures(sqs, lambda body, call: (True, "InvalidMessageContents", "refused"))
    sender = _sender(sqs, queue_url, clock=clock, max_age_seconds=10)
    sender.upsert(f"{SITE}/a")
    clock.advance(10)
    assert sender.flush_if_due() is True  # tried, failed, nothing raised here
    with pytest.raises(SendFailed) as caught:
        sender.upsert(f"{SITE}/b")  # buffered, then the earlier failure is raised
    assert [c["url"] for c in caught.value.changes] == [f"{SITE}/a"]
    assert caught.value.failures[0].code == "InvalidMessageContents"
    assert sender.buffered == 1
    with pytest.raises(SendFailed) as caught:
        sender.close()
    assert [c["url"] for c in caught.value.changes] == [f"{SITE}/b"]


def test_closing_sends_the_rest_and_takes_no_more(sqs: SQSClient, queue_url: str) -> None:
    with _sender(sqs, queue_url) as sender:
        sender.upsert(f"{SITE}/a")
        assert drain(sqs, queue_url) == []
    assert [c["url"] for c in _changes(drain(sqs, queue_url))] == [f"{SITE}/a"]
    sender.close()  # a second close does nothing
    with pytest.raises(RuntimeError, match="closed"):
        sender.upsert(f"{SITE}/b")


def test_the_context_manager_sends_the_buffer_even_when_the_block_fails(
    sqs: SQSClient, queue_url: str
) -> None:
    with pytest.raises(KeyError), _sender(sqs, queue_url) as sender:
        sender.upsert(f"{SITE}/a")
        raise KeyError("the producer's own error")
    assert [c["url"] for c in _changes(drain(sqs, queue_url))] == [f"{SITE}/a"]


# -- threads ---------------------------------------------------------------------------------


def test_many_threads_adding_at_once_lose_and_repeat_nothing(
    sqs: SQSClient, queue_url: str
) -> None:
    threads, per_thread = 8, 400
    start = threading.Barrier(threads)
    errors: list[BaseException] = []
    sender = _sender(sqs, queue_url, max_changes=37)

    def produce(t: int) -> None:
        start.wait()
        try:
            for i in range(per_thread):
                sender.upsert(f"{SITE}/t{t}/{i}")
        except BaseException as exc:  # reported below, not lost with the thread
            errors.append(exc)

    workers = [threading.Thread(target=produce, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    sender.close()

    assert errors == []
    changes = _changes(drain(sqs, queue_url))
    urls = [c["url"] for c in changes]
    assert sorted(urls) == sorted(
        f"{SITE}/t{t}/{i}" for t in range(threads) for i in range(per_thread)
    )
    stamps = [c["occurred_at"] for c in changes]
    assert len(set(stamps)) == len(stamps)  # one instant per change, even across threads
    for t in range(threads):  # each thread's changes are stamped in the order it added them
        mine = sorted((c for c in changes if f"/t{t}/" in c["url"]), key=lambda c: c["occurred_at"])
        assert [int(c["url"].rsplit("/", 1)[1]) for c in mine] == list(range(per_thread))


def test_a_site_list_and_a_section_are_judged_as_ingest_judges_them(
    sqs: SQSClient, queue_url: str
) -> None:
    sites = f"{SITE},https://www.example.de"
    with ChangeSender(queue_url, site=sites, sqs=sqs, max_age_seconds=3600) as sender:
        sender.upsert(
            "https://www.example.de/schuhe/42",
            alternates=[{"hreflang": "en", "href": f"{SITE}/shoes/42"}],
            section="products",
        )
        with pytest.raises(ChangeRejected) as bad_section:
            sender.upsert(f"{SITE}/shoes/42", section="Products")
        with pytest.raises(ChangeRejected) as elsewhere:
            sender.upsert("https://www.example.fr/chaussures/42")

    assert (bad_section.value.field, bad_section.value.value) == ("section", "Products")
    assert elsewhere.value.field == "url"
    assert "www.example.de" in elsewhere.value.rule
    (body,) = drain(sqs, queue_url)
    (change,) = json.loads(body)
    assert (change["url"], change["section"]) == ("https://www.example.de/schuhe/42", "products")
