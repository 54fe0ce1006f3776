"""The distribution's response headers: a policy of the stack's own that sends what the AWS-managed
SecurityHeadersPolicy sent, refuses framing, and carries the Content-Security-Policy the view
needs, the one ``sitemap-updater serve`` sends too (``sitemap_updater.view``)."""

from __future__ import annotations

from typing import Any

from sitemap_updater.view import CONTENT_SECURITY_POLICY, SECURITY_HEADERS
from tests.template.cfn import load_template

#: CloudFront's quota on a policy's Content-Security-Policy value ("Length of the content security
#: policy value in a response headers policy", CloudFront quotas).
MAX_CSP_LENGTH = 1783


def _policy() -> dict[str, Any]:
    resources = load_template()["Resources"]
    policy: dict[str, Any] = resources["ResponseHeadersPolicy"]["Properties"]
    return policy["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]


def test_the_distribution_sends_the_stacks_own_policy() -> None:
    distribution = load_template()["Resources"]["Distribution"]["Properties"]
    behaviour = distribution["DistributionConfig"]["DefaultCacheBehavior"]
    assert behaviour["ResponseHeadersPolicyId"] == {"Ref": "ResponseHeadersPolicy"}
    outputs = load_template()["Outputs"]
    assert outputs["ResponseHeadersPolicyId"]["Value"] == {"Ref": "ResponseHeadersPolicy"}


def test_the_policy_sends_the_views_csp_and_the_managed_policys_headers() -> None:
    policy = _policy()
    csp = policy["ContentSecurityPolicy"]["ContentSecurityPolicy"]
    assert csp == CONTENT_SECURITY_POLICY
    assert len(csp) <= MAX_CSP_LENGTH
    assert "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp
    sent = dict(SECURITY_HEADERS)
    assert policy["FrameOptions"]["FrameOption"] == sent["X-Frame-Options"] == "DENY"
    assert policy["ReferrerPolicy"]["ReferrerPolicy"] == sent["Referrer-Policy"]
    assert sent["X-Content-Type-Options"] == "nosniff" and "ContentTypeOptions" in policy
    # as the managed SecurityHeadersPolicy: a year of HSTS, the XSS filter in block mode
    assert policy["StrictTransportSecurity"]["AccessControlMaxAgeSec"] == 31536000
    assert policy["XSSProtection"] == {"Protection": True, "ModeBlock": True, "Override": True}
    # the bucket sends none of these: the policy's values are the ones a browser gets
    assert all(header["Override"] is True for header in policy.values())
