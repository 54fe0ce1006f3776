"""CloudFront invalidations through the handler: a new caller reference for every publish, the
same one for a retry of a publish, and the wildcard above the path limit."""

from __future__ import annotations

from typing import Any

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.store.spaces import shard_file_key
from tests.integration.rebuild.conftest import SITE, Aws, page


class InjectedCrashError(RuntimeError):
    pass


def sent_batches(aws: Aws) -> list[tuple[str, list[str]]]:
    """(caller reference, paths) of every CreateInvalidation the handler's client sends."""
    seen: list[tuple[str, list[str]]] = []

    def before(params: dict[str, Any], **_: Any) -> None:
        batch = params["InvalidationBatch"]
        seen.append((batch["CallerReference"], list(batch["Paths"]["Items"])))

    aws.handler_module._client("cloudfront").meta.events.register(
        "before-parameter-build.cloudfront.CreateInvalidation", before
    )
    return seen


def stored_references(aws: Aws) -> list[str]:
    """The caller references of the invalidations the distribution holds."""
    listing = aws.cloudfront.list_invalidations(DistributionId=aws.distribution_id)
    refs = []
    for summary in listing["InvalidationList"].get("Items", []):
        got = aws.cloudfront.get_invalidation(DistributionId=aws.distribution_id, Id=summary["Id"])
        refs.append(got["Invalidation"]["InvalidationBatch"]["CallerReference"])
    return refs


def crash_once(aws: Aws, event: str) -> list[bool]:
    """Raise InjectedCrashError from the first handler-client event ``event``."""
    fired: list[bool] = []

    def crash(**_: Any) -> None:
        if not fired:
            fired.append(True)
            raise InjectedCrashError(event)

    client = event.split(".")[1]
    aws.handler_module._client(client).meta.events.register(event, crash)
    return fired


AFTER_INVALIDATION = "after-call.cloudfront.CreateInvalidation"
AFTER_FIRST_PUT = "after-call.s3.PutObject"


def test_content_that_goes_a_b_a_is_invalidated_three_times(aws: Aws) -> None:
    a = Page(url=f"{SITE}/a", lastmod="2024-05-01")
    b = Page(url=f"{SITE}/a", lastmod="2024-05-01", priority=0.3)
    aws.upsert(a, Page(url=f"{SITE}/b", lastmod="2024-05-02"))
    aws.invoke()
    sent = sent_batches(aws)
    file_a = aws.object("sitemap-pages-r.xml.gz")["Body"].read()

    for entry in (b, a, b):
        aws.upsert(entry)
        assert aws.invoke()["objects_written"] == ["sitemap-pages-r.xml.gz"]

    assert aws.object("sitemap-pages-r.xml.gz")["Body"].read() != file_a
    assert [paths for _, paths in sent] == [["/sitemap-pages-r.xml.gz"]] * 3
    references = [reference for reference, _ in sent]
    # the third publish writes the bytes of the first, and still gets its own reference
    assert len(set(references)) == 3
    assert set(references) <= set(stored_references(aws))


def test_a_retry_after_a_crash_past_the_invalidation_repeats_its_reference(aws: Aws) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(4)))
    aws.invoke()
    sent = sent_batches(aws)
    fired = crash_once(aws, AFTER_INVALIDATION)
    aws.upsert(page(1, "2024-06-01"))  # a new lastmod: the shard file and the index change
    with pytest.raises(InjectedCrashError):
        aws.invoke()
    assert fired

    retry = aws.invoke()  # the record was not saved: the same publish is done again

    assert retry["complete"] is True
    assert len(sent) == 2
    (crashed_ref, crashed_paths), (retry_ref, retry_paths) = sent
    assert crashed_paths == retry_paths == ["/sitemap-pages-r.xml.gz", "/sitemap.xml"]
    assert retry_ref == crashed_ref
    aws.upsert(page(2, "2024-06-02"))
    aws.invoke()
    assert sent[-1][0] != crashed_ref  # the next publish is a new one


def test_a_retry_does_not_reuse_a_reference_when_a_crashed_run_wrote_since(aws: Aws) -> None:
    """B is sent, the run dies; a run writes A and dies right after (before it notes any
    invalidation); the run that publishes B again must not repeat B's first reference:
    CloudFront would ignore it and keep whatever it cached of A."""
    aws.upsert(*(page(i, "2024-05-01") for i in range(4)))
    aws.invoke()
    sent = sent_batches(aws)
    crash_once(aws, AFTER_INVALIDATION)
    aws.upsert(page(1, "2024-06-01"))
    with pytest.raises(InjectedCrashError):
        aws.invoke()
    content_b = aws.object("sitemap-pages-r.xml.gz")["Body"].read()
    crash_once(aws, AFTER_FIRST_PUT)
    aws.upsert(page(1, "2024-05-01"))
    with pytest.raises(InjectedCrashError):
        aws.invoke()
    assert aws.object("sitemap-pages-r.xml.gz")["Body"].read() != content_b  # A is in the bucket
    aws.upsert(page(1, "2024-06-01"))

    aws.invoke()

    assert aws.object("sitemap-pages-r.xml.gz")["Body"].read() == content_b
    first_b, again_b = sent[0], sent[-1]
    assert first_b[1] == again_b[1] == ["/sitemap-pages-r.xml.gz", "/sitemap.xml"]
    assert again_b[0] != first_b[0]


def test_above_the_path_limit_the_handler_sends_one_wildcard(
    aws: Aws, env: pytest.MonkeyPatch
) -> None:
    env.setenv("INVALIDATION_MAX_PATHS", "2")
    sent = sent_batches(aws)
    aws.upsert(*(page(i) for i in range(20)))  # cap 8: several shard files and the index

    report = aws.invoke()

    assert len(report["objects_written"]) > 2
    assert sent == [(sent[0][0], ["/sitemap*"])]
    assert report["invalidated_paths"] == ["/sitemap*"]
    assert len(stored_references(aws)) == 1


def test_at_the_path_limit_the_handler_sends_the_paths(aws: Aws, env: pytest.MonkeyPatch) -> None:
    aws.upsert(*(page(i) for i in range(20)))
    aws.invoke()
    changed = page(3, "2024-07-01")
    leaf = aws.leaf_of(changed.url)
    env.setenv("INVALIDATION_MAX_PATHS", "2")
    sent = sent_batches(aws)
    aws.upsert(changed)

    aws.invoke()

    assert [paths for _, paths in sent] == [["/" + shard_file_key(leaf), "/sitemap.xml"]]
