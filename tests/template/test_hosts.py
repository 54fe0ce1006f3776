"""Several site hosts in template.yaml: who may read which keys, and who serves which host's files.

The first origin of ``SiteUrl`` is the primary host, whose files keep the bucket root; every other
host's files live under the key prefix ``<host>/``. The bucket policy grants each of those
prefixes, and the CloudFront Function (its JavaScript run here with node) maps a request on such a
host to its prefix; a property test checks that both read the same host out of every origin.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.template.cfn import Resolver, Template, load_template, sam_transform

PRIMARY = "https://www.example.com"
SITES = f"{PRIMARY},https://www.example.de,http://shop.example.fr:8080"
CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/abc-1"
BUCKET_ARN = "<Bucket.Arn>"
NODE = shutil.which("node")
MAX_ORIGINS = 10
SOURCE = load_template()


@pytest.fixture(scope="module")
def source() -> Template:
    return SOURCE


@pytest.fixture(scope="module")
def cfn(source: Template) -> Template:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        return sam_transform(source, {"SiteUrl": SITES})


def resolver(source: Template, sites: str = SITES, **overrides: str) -> Resolver:
    return Resolver(source, {"SiteUrl": sites, **overrides})


def rules_allow(source: Template, sites: str = SITES, **overrides: str) -> list[str]:
    """The AssertDescription of every rule assertion the parameters break (empty: deployable)."""
    values = resolver(source, sites, **overrides)
    broken = []
    for rule in source["Rules"].values():
        if "RuleCondition" in rule and not values.truth(rule["RuleCondition"]):
            continue
        broken += [
            a["AssertDescription"] for a in rule["Assertions"] if not values.truth(a["Assert"])
        ]
    return broken


def granted_keys(source: Template, sites: str, **overrides: str) -> set[str]:
    """The key patterns CloudFront may read (s3:GetObject), relative to the bucket."""
    policy = resolver(source, sites, **overrides).value(
        source["Resources"]["BucketPolicy"]["Properties"]["PolicyDocument"]
    )
    keys: set[str] = set()
    for statement in policy["Statement"]:
        if statement["Effect"] == "Allow" and statement["Action"] == "s3:GetObject":
            resources = statement["Resource"]
            for resource in resources if isinstance(resources, list) else [resources]:
                assert resource.startswith(BUCKET_ARN + "/"), resource
                keys.add(resource.removeprefix(BUCKET_ARN + "/"))
    return keys


def function_code(source: Template, sites: str) -> str:
    code = resolver(source, sites).value(
        source["Resources"]["HostRoutingFunction"]["Properties"]["FunctionCode"]
    )
    assert isinstance(code, str)
    return code


def run_function(code: str, requests: list[tuple[str | None, str]], tmp_path: Path) -> list[str]:
    """The URI `handler` passes on for each (Host header or None, URI), or the status code of
    the response it answers with itself, run by node."""
    assert NODE is not None, "node is needed to run the CloudFront Function"
    script = tmp_path / "function.js"
    script.write_text(
        code
        + "\nvar cases = JSON.parse(process.argv[2]);\n"
        + "console.log(JSON.stringify(cases.map(function (c) {\n"
        + "  var headers = c[0] === null ? {} : {host: {value: c[0]}};\n"
        + "  var out = handler({request: {uri: c[1], headers: headers}});\n"
        + "  return out.uri !== undefined ? out.uri : String(out.statusCode);\n"
        + "})));\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [NODE, str(script), json.dumps(requests)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    uris = json.loads(result.stdout)
    assert isinstance(uris, list)
    return [str(u) for u in uris]


# ---------------------------------------------------------------- SiteUrl


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (PRIMARY, True),
        (SITES, True),
        ("http://localhost:8080,http://127.0.0.1:8081", True),
        ("https://WWW.Example.com,https://www.example.de", True),  # the primary is never a key
        ("https://www.example.com,https://WWW.example.de", False),  # a key prefix: lower case
        ("https://www.example.com,", False),
        ("https://www.example.com, https://www.example.de", False),
        ("https://www.example.com,www.example.de", False),
        ("https://www.example.com,https://www.example.de/", False),
        (",".join(f"https://h{i}.example.com" for i in range(MAX_ORIGINS)), True),
        (",".join(f"https://h{i}.example.com" for i in range(MAX_ORIGINS + 1)), False),
    ],
)
def test_site_url_takes_a_list_of_origins(source: Template, value: str, ok: bool) -> None:
    spec = source["Parameters"]["SiteUrl"]
    assert spec["Type"] == "String"
    assert (re.fullmatch(spec["AllowedPattern"], value) is not None) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("", True),
        ("/p/=products,/blog/=articles", True),
        ("/=everything", True),
        ("/news/2026/=news-" + "x" * 27, True),
        ("/news/=" + "x" * 33, False),  # a section has at most 32 characters
        ("/p/=Products", False),
        ("p/=products", False),
        ("/p/=products,", False),
        ("/p/=products, /blog/=articles", False),
        ("/p/=", False),
    ],
)
def test_section_rules_pattern(source: Template, value: str, ok: bool) -> None:
    pattern = source["Parameters"]["SectionRules"]["AllowedPattern"]
    assert (re.fullmatch(pattern, value) is not None) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("", True),
        ("https://sitemaps.example.com", True),
        (SITES, True),  # SiteUrl itself: each host's files under that host
        ("https://sitemaps.example.com/files", False),
        ("https://www.example.com,", False),
    ],
)
def test_public_base_url_is_one_base_or_the_site_url_list(
    source: Template, value: str, ok: bool
) -> None:
    pattern = source["Parameters"]["PublicBaseUrl"]["AllowedPattern"]
    assert (re.fullmatch(pattern, value) is not None) is ok


# ---------------------------------------------------------------- environment


def environment(source: Template, function: str, **overrides: str) -> dict[str, Any]:
    values = resolver(source, SITES, **overrides)
    merged = {
        **source["Globals"]["Function"]["Environment"]["Variables"],
        **source["Resources"][f"{function}Function"]["Properties"]["Environment"]["Variables"],
    }
    return dict(values.value(merged))


def test_new_settings_reach_the_functions_that_read_them(source: Template, cfn: Template) -> None:
    defaults = {name: environment(source, name) for name in ("Ingest", "Rebuild")}
    assert defaults["Ingest"]["ALTERNATES_ANY_HOST"] == "false"
    assert defaults["Rebuild"]["ALTERNATES_ANY_HOST"] == "false"
    assert defaults["Rebuild"]["SECTION_RULES"] == ""
    assert defaults["Rebuild"]["STYLESHEET"] == "true"
    assert "SECTION_RULES" not in defaults["Ingest"] and "STYLESHEET" not in defaults["Ingest"]
    for name in ("Ingest", "Rebuild"):
        assert defaults[name]["SITE_URL"] == SITES  # the list, unchanged

    rules = "/p/=products,/blog/=articles"
    chosen = {"SectionRules": rules, "AlternatesAnyHost": "true", "Stylesheet": "false"}
    rebuild = environment(source, "Rebuild", **chosen)
    assert (rebuild["SECTION_RULES"], rebuild["STYLESHEET"]) == (rules, "false")
    assert (
        rebuild["ALTERNATES_ANY_HOST"]
        == environment(source, "Ingest", **chosen)["ALTERNATES_ANY_HOST"]
        == "true"
    )
    # SAM carries them into the deployed functions.
    carried = {
        "Ingest": {"ALTERNATES_ANY_HOST": "AlternatesAnyHost"},
        "Rebuild": {
            "ALTERNATES_ANY_HOST": "AlternatesAnyHost",
            "SECTION_RULES": "SectionRules",
            "STYLESHEET": "Stylesheet",
        },
    }
    for function, variables in carried.items():
        deployed = cfn["Resources"][f"{function}Function"]["Properties"]["Environment"]
        for variable, parameter in variables.items():
            assert deployed["Variables"][variable] == {"Ref": parameter}, (function, variable)


def test_the_url_stream_carries_old_and_new_images(cfn: Template) -> None:
    # A page that moves to another section must leave its old file: the old image names it.
    stream = cfn["Resources"]["Table"]["Properties"]["StreamSpecification"]
    assert stream == {"StreamViewType": "NEW_AND_OLD_IMAGES"}


# ---------------------------------------------------------------- the routing function


@pytest.mark.parametrize(
    ("sites", "several"),
    [
        (PRIMARY, False),
        ("http://localhost:8080", False),
        (SITES, True),
        (f"{PRIMARY},{PRIMARY}x", True),
    ],
)
def test_the_routing_function_exists_only_with_several_hosts(
    source: Template, cfn: Template, sites: str, several: bool
) -> None:
    assert cfn["Resources"]["HostRoutingFunction"]["Condition"] == "HasSeveralHosts"
    assert cfn["Outputs"]["HostRoutingFunctionArn"]["Condition"] == "HasSeveralHosts"
    assert resolver(source, sites).condition("HasSeveralHosts") is several
    props = cfn["Resources"]["HostRoutingFunction"]["Properties"]
    assert props["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    assert props["AutoPublish"] is True


def associations(source: Template, sites: str, **overrides: str) -> list[dict[str, Any]]:
    config = resolver(source, sites, **overrides).value(
        source["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    )
    return list(config["DefaultCacheBehavior"].get("FunctionAssociations", []))


def test_this_distribution_runs_the_function_only_under_the_site_hosts(source: Template) -> None:
    aliases = {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE}
    assert associations(source, SITES, **aliases) == [
        {"EventType": "viewer-request", "FunctionARN": "<HostRoutingFunction.FunctionARN>"}
    ]
    assert associations(source, SITES) == []  # setup 2: host h's files are under /<h>/
    assert associations(source, PRIMARY, **aliases) == []  # one host: nothing to route


def test_the_function_maps_each_other_host_to_its_prefix(source: Template, tmp_path: Path) -> None:
    code = function_code(source, SITES)
    requests: list[tuple[str | None, str]] = [
        ("www.example.com", "/sitemap.xml"),
        ("www.example.de", "/sitemap.xml"),
        ("www.example.de", "/sitemap-products-r01.xml.gz"),
        ("WWW.Example.DE:443", "/sitemap.xsl"),
        ("shop.example.fr", "/sitemap-indexnow-0123456789abcdef.txt"),
        ("www.example.org", "/sitemap.xml"),
        ("example.de", "/sitemap.xml"),
        (None, "/sitemap.xml"),
        ("www.example.com", "/www.example.de/sitemap.xml"),
        ("www.example.de", "/shop.example.fr/sitemap.xml"),
        ("www.example.com", "/www.example.org/sitemap.xml"),
    ]
    assert run_function(code, requests, tmp_path) == [
        "/sitemap.xml",  # the primary host keeps the root
        "/www.example.de/sitemap.xml",
        "/www.example.de/sitemap-products-r01.xml.gz",
        "/www.example.de/sitemap.xsl",
        "/shop.example.fr/sitemap-indexnow-0123456789abcdef.txt",
        "/sitemap.xml",  # a host off the list is left alone
        "/sitemap.xml",
        "/sitemap.xml",
        "404",  # another host's folder is never served under a host of its own
        "404",
        "/www.example.org/sitemap.xml",  # not a folder of the bucket's hosts
    ]


def test_the_function_compares_the_decoded_path_and_the_host_without_its_dot(
    source: Template, tmp_path: Path
) -> None:
    # S3 decodes the key, and DNS reads www.example.de. as www.example.de: so must the function.
    requests: list[tuple[str | None, str]] = [
        ("www.example.com", "/www.example%2Ede/sitemap.xml"),
        ("www.example.com", "/www%2eexample%2ede/sitemap.xml"),
        ("www.example.com", "/www.example.de%2Fsitemap.xml"),
        ("www.example.com", "/WWW.Example.DE/sitemap.xml"),
        ("www.example.com", "/%E0%A4%A/sitemap.xml"),  # not decodable: no key to serve
        ("www.example.de.", "/sitemap.xml"),
        ("WWW.EXAMPLE.DE.:443", "/sitemap-products-r01.xml.gz"),
        ("www.example.com.", "/sitemap.xml"),
        ("www.example.com", "/sitemap-%41.xml"),  # any other path is passed on as it came
    ]
    assert run_function(function_code(source, SITES), requests, tmp_path) == [
        "404",
        "404",
        "404",
        "404",
        "404",
        "/www.example.de/sitemap.xml",
        "/www.example.de/sitemap-products-r01.xml.gz",
        "/sitemap.xml",
        "/sitemap-%41.xml",
    ]


def test_the_cache_key_tells_hosts_apart_by_the_rewritten_path(
    source: Template, tmp_path: Path
) -> None:
    # The function runs at viewer request, before the cache lookup, so the path it writes is the
    # cache key. The Host header stays out of the key: an S3 origin does not support caching on it.
    for overrides in ({}, {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE}):
        policy = resolver(source, SITES, **overrides).value(
            source["Resources"]["CachePolicy"]["Properties"]["CachePolicyConfig"]
        )
        params = policy["ParametersInCacheKeyAndForwardedToOrigin"]
        assert params["HeadersConfig"] == {"HeaderBehavior": "none"}
    hosts = ["www.example.com", "www.example.de", "shop.example.fr"]
    uris = run_function(
        function_code(source, SITES), [(h, "/sitemap.xml") for h in hosts], tmp_path
    )
    assert len(set(uris)) == len(hosts)


# ---------------------------------------------------------------- who reads which keys

LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12)
HOST = st.lists(LABEL, min_size=2, max_size=4).map(".".join)


@st.composite
def origin_lists(draw: st.DrawFn) -> tuple[str, list[str]]:
    """(SiteUrl, host names of its origins), with schemes and ports of every kind."""
    hosts = draw(st.lists(HOST, min_size=1, max_size=MAX_ORIGINS, unique=True))
    origins = [
        draw(st.sampled_from(["http", "https"]))
        + "://"
        + host
        + draw(st.sampled_from(["", ":8080", ":1"]))
        for host in hosts
    ]
    return ",".join(origins), hosts


@settings(max_examples=25, deadline=None)
@given(origin_lists())
def test_each_other_host_may_be_read_exactly_under_its_prefix_where_the_function_maps_it(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, list[str]]
) -> None:
    sites, hosts = case
    assert re.fullmatch(SOURCE["Parameters"]["SiteUrl"]["AllowedPattern"], sites)
    # robots.txt: the root's alone, for this stack's distribution (the site keeps its own).
    expected = {"sitemap*", "robots.txt"} | {f"{h}/sitemap*" for h in hosts[1:]}
    assert granted_keys(SOURCE, sites) == expected
    if len(hosts) > 1:
        folders: list[tuple[str | None, str]] = [(hosts[0], f"/{h}/sitemap.xml") for h in hosts[1:]]
        uris = run_function(
            function_code(SOURCE, sites),
            [(h, "/sitemap.xml") for h in hosts] + folders,
            tmp_path_factory.mktemp("function"),
        )
        prefixed = [f"/{h}/sitemap.xml" for h in hosts[1:]]
        assert uris == ["/sitemap.xml", *prefixed] + ["404"] * len(folders)


def test_the_site_distribution_reads_the_same_keys_and_robots_txt_stays_this_ones(
    source: Template,
) -> None:
    policy = resolver(source, SITES, SiteDistributionId="E2SITEDIST123").value(
        source["Resources"]["BucketPolicy"]["Properties"]["PolicyDocument"]
    )
    by_sid = {s["Sid"]: s for s in policy["Statement"]}
    sitemaps = by_sid["AllowCloudFrontReadSitemapFiles"]
    assert len(sitemaps["Condition"]["StringEquals"]["AWS:SourceArn"]) == 2
    assert by_sid["AllowThisDistributionReadRobotsTxt"]["Resource"] == BUCKET_ARN + "/robots.txt"


# ---------------------------------------------------------------- where the index lists files


@pytest.mark.parametrize(
    ("overrides", "base", "index"),
    [
        # setup 1: each host's files on that host
        ({"SiteDistributionId": "E2SITEDIST123"}, SITES, f"{PRIMARY}/sitemap.xml"),
        (
            {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE},
            SITES,
            f"{PRIMARY}/sitemap.xml",
        ),
        # a distribution per host, each fetching /sitemap* from this stack's distribution
        ({"PublicBaseUrl": SITES}, SITES, f"{PRIMARY}/sitemap.xml"),
        # setup 2: one base, host h's files under <base>/<h>/
        ({}, "https://<Distribution.DomainName>", "https://<Distribution.DomainName>/sitemap.xml"),
        (
            {"DomainName": "sitemaps.example.com", "AcmCertificateArn": CERTIFICATE},
            "https://sitemaps.example.com",
            "https://sitemaps.example.com/sitemap.xml",
        ),
    ],
)
def test_public_base_url_and_index_with_several_hosts(
    source: Template, overrides: dict[str, str], base: str, index: str
) -> None:
    values = resolver(source, SITES, **overrides)
    assert rules_allow(source, SITES, **overrides) == []
    env = source["Resources"]["RebuildFunction"]["Properties"]["Environment"]["Variables"]
    assert values.value(env["PUBLIC_BASE_URL"]) == base
    assert values.value(source["Outputs"]["SitemapIndexUrl"]["Value"]) == index


def test_site_host_aliases_name_the_hosts_with_the_certificate(source: Template) -> None:
    overrides = {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE}
    sites = f"{PRIMARY},https://www.example.de,https://www.example.fr"
    config = resolver(source, sites, **overrides).value(
        source["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    )
    assert config["Aliases"] == ["www.example.com", "www.example.de", "www.example.fr"]
    assert config["ViewerCertificate"]["AcmCertificateArn"] == CERTIFICATE


def refusals(source: Template, sites: str, **overrides: str) -> list[str]:
    """The reasons CloudFormation gives for refusing these parameters outside its rules: each
    output that exists under them and looks up a key the ``Refused`` mapping lacks."""
    values = resolver(source, sites, **overrides)
    found = []
    for output in source["Outputs"].values():
        lookup = output["Value"].get("Fn::FindInMap") if isinstance(output["Value"], dict) else None
        if lookup is None or lookup[0] != "Refused":
            continue
        if "Condition" in output and not values.condition(output["Condition"]):
            continue
        name, group, reason = lookup
        assert reason not in source["Mappings"][name][group]
        found.append(reason)
    return found


ALIASES = {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE}


@pytest.mark.parametrize(
    ("sites", "overrides", "refused"),
    [
        (SITES, ALIASES, True),  # http://shop.example.fr:8080
        ("https://www.example.com:8443", ALIASES, True),
        ("https://www.example.com,https://www.example.de:443", ALIASES, True),
        (PRIMARY, ALIASES, False),
        ("https://www.example.com,https://www.example.de", ALIASES, False),
        (SITES, {}, False),  # setup 2 lists the files under the distribution's own domain
        (SITES, {"SiteDistributionId": "E2SITEDIST123"}, False),
        ("http://localhost:8080", {}, False),
    ],
)
def test_a_port_in_site_url_is_refused_where_the_hosts_are_aliases(
    source: Template, sites: str, overrides: dict[str, str], refused: bool
) -> None:
    # CloudFront refuses an alternate domain name with a port, after the stack began to create
    # resources; this refuses it first, with the reason.
    reasons = refusals(source, sites, **overrides)
    if refused:
        (reason,) = reasons
        assert "SiteHostAliases=true" in reason and "remove the port from SiteUrl" in reason
    else:
        assert reasons == []
    assert rules_allow(source, sites, **overrides) == []


@pytest.mark.parametrize(
    ("overrides", "refused"),
    [
        ({"SiteHostAliases": "true"}, "needs AcmCertificateArn"),
        (
            {
                "SiteHostAliases": "true",
                "AcmCertificateArn": CERTIFICATE,
                "DomainName": "sitemaps.example.com",
            },
            "leave DomainName",
        ),
        (
            {
                "SiteHostAliases": "true",
                "AcmCertificateArn": CERTIFICATE,
                "SiteDistributionId": "E2SITEDIST123",
            },
            "leave DomainName",
        ),
        (
            {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE, "PublicBaseUrl": PRIMARY},
            "leave DomainName",
        ),
        (
            {
                "SiteHostAliases": "true",
                "AcmCertificateArn": CERTIFICATE,
                "PublishRobotsTxt": "true",
            },
            "PublishRobotsTxt=true cannot",
        ),
        ({"IndexNowKey": "0123456789abcdef"}, "IndexNowKey needs"),
        ({"AcmCertificateArn": CERTIFICATE}, "must be set together"),
    ],
)
def test_rules_refuse_what_several_hosts_cannot_serve(
    source: Template, overrides: dict[str, str], refused: str
) -> None:
    broken = rules_allow(source, SITES, **overrides)
    assert any(refused in message for message in broken), broken


@pytest.mark.parametrize(
    "overrides",
    [
        {"SiteHostAliases": "true", "AcmCertificateArn": CERTIFICATE},
        {
            "SiteHostAliases": "true",
            "AcmCertificateArn": CERTIFICATE,
            "IndexNowKey": "0123456789abcdef",
        },
        {"SiteDistributionId": "E2SITEDIST123", "IndexNowKey": "0123456789abcdef"},
        {"PublicBaseUrl": SITES, "IndexNowKey": "0123456789abcdef"},
        {
            "PublishRobotsTxt": "true",
            "DomainName": "sitemaps.example.com",
            "AcmCertificateArn": CERTIFICATE,
        },
    ],
)
def test_rules_accept_the_documented_setups(source: Template, overrides: dict[str, str]) -> None:
    assert rules_allow(source, SITES, **overrides) == []
