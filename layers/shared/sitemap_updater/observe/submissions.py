"""Submitting each host's index to the engines: once per index, retried in later runs.

The ledger holds one item per engine and index (``observe#submission`` /
``<engine>#<index URL>``) with the outcome of the last attempt. An index with a ``submitted``
item is never sent again; one that failed is tried again by the next run (one whose credentials
were refused, only after :data:`REFUSED_RETRY_SECONDS`, since retrying cannot help until
someone fixes them). A host added to ``SiteUrl`` has an index no item names, so it is submitted
by the first run after its index is published.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.engines.exceptions import CredentialsRefused, EngineError
from sitemap_updater.observe.records import partition_items

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

SUBMISSION_PK: Final = "observe#submission"
SUBMITTED: Final = "submitted"
FAILED: Final = "failed"
REFUSED: Final = "refused"
REFUSED_RETRY_SECONDS: Final = 6 * 3600


@dataclass(frozen=True, slots=True)
class Submission:
    """The outcome of the last attempt to submit ``index_url`` to ``engine``."""

    engine: str
    index_url: str
    state: str
    attempts: int
    last_attempt_at: int
    submitted_at: int | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Target:
    """One index to submit: where it is, and the site (or property) it belongs to."""

    index_url: str
    site_url: str


#: an engine's submit call: (site or property, index URL) -> None, raising EngineError
Submit = Callable[[str, str], None]


class SubmissionLedger:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def load(self) -> dict[tuple[str, str], Submission]:
        found: dict[tuple[str, str], Submission] = {}
        for item in partition_items(self._client, self._table, SUBMISSION_PK):
            engine, _, index_url = item["sk"]["S"].partition("#")
            found[(engine, index_url)] = Submission(
                engine=engine,
                index_url=index_url,
                state=item["state"]["S"],
                attempts=int(item["attempts"]["N"]),
                last_attempt_at=int(item["last_attempt_at"]["N"]),
                submitted_at=int(item["submitted_at"]["N"]) if "submitted_at" in item else None,
                reason=item["reason"]["S"] if "reason" in item else None,
            )
        return found

    def save(self, submission: Submission) -> None:
        item: dict[str, Any] = {
            "pk": {"S": SUBMISSION_PK},
            "sk": {"S": f"{submission.engine}#{submission.index_url}"},
            "state": {"S": submission.state},
            "attempts": {"N": str(submission.attempts)},
            "last_attempt_at": {"N": str(submission.last_attempt_at)},
        }
        if submission.submitted_at is not None:
            item["submitted_at"] = {"N": str(submission.submitted_at)}
        if submission.reason is not None:
            item["reason"] = {"S": submission.reason}
        self._client.put_item(TableName=self._table, Item=item)


def due(previous: Submission | None, now: int) -> bool:
    """Whether an index is to be (re)submitted now, given its last attempt."""
    if previous is None or previous.state == FAILED:
        return True
    if previous.state == REFUSED:
        return now - previous.last_attempt_at >= REFUSED_RETRY_SECONDS
    return False


def submit_all(
    ledger: SubmissionLedger,
    engine: str,
    submit: Submit,
    targets: Iterable[Target],
    now: int,
    on_call: Callable[[], bool] = lambda: True,
    *,
    redact: Callable[[str], str] = lambda text: text,
) -> list[Submission]:
    """Submit each target that is due; returns the attempts made, each recorded in the ledger
    with the failure's reason passed through ``redact``.

    ``on_call`` is asked before each call and may refuse it (the day's budget is spent): the
    target then waits for a later run."""
    known = ledger.load()
    made: list[Submission] = []
    for target in targets:
        previous = known.get((engine, target.index_url))
        if not due(previous, now) or not on_call():
            continue
        attempts = 1 + (previous.attempts if previous else 0)
        try:
            submit(target.site_url, target.index_url)
        except CredentialsRefused as error:
            reason = redact(str(error))
            outcome = Submission(engine, target.index_url, REFUSED, attempts, now, None, reason)
        except EngineError as error:
            reason = redact(str(error))
            outcome = Submission(engine, target.index_url, FAILED, attempts, now, None, reason)
        else:
            outcome = Submission(engine, target.index_url, SUBMITTED, attempts, now, now)
        ledger.save(outcome)
        made.append(outcome)
    return made
