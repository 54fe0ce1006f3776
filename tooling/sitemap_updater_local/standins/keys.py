"""Service-account keys made on the spot for the local Search Console stand-in.

A key file from Google holds an RSA private key and the ``token_uri`` that exchanges a signed
assertion for an access token. These have the same fields; their ``token_uri`` points at the
stand-in, and the public half goes to the stand-in to check each assertion's signature. They
are made with ``cryptography`` (which google-auth needs anyway), once per process unless asked
for a fresh one, and never written to disk.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import cache
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

#: The e-mail every stand-in key is issued to, unless told otherwise.
CLIENT_EMAIL = "sitemap-updater@local-stand-in.iam.gserviceaccount.com"


@dataclass(frozen=True, slots=True)
class ServiceAccountKey:
    """``info``: the key file's JSON, as ``SearchConsole`` takes it; ``public_pem``: what
    checks its signatures."""

    info: dict[str, Any]
    public_pem: bytes

    @property
    def client_email(self) -> str:
        return str(self.info["client_email"])


@cache
def _process_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def make_key(
    token_uri: str, client_email: str = CLIENT_EMAIL, *, fresh: bool = False
) -> ServiceAccountKey:
    """A 2048-bit key for ``client_email`` whose tokens come from ``token_uri``: the process's
    own RSA key (making one takes a while), or with ``fresh`` a new one."""
    private = rsa.generate_private_key(65537, 2048) if fresh else _process_key()
    private_pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    info = {
        "type": "service_account",
        "project_id": "local-stand-in",
        "private_key_id": secrets.token_hex(20),
        "private_key": private_pem,
        "client_email": client_email,
        "client_id": str(secrets.randbelow(10**20)),
        "token_uri": token_uri,
        "universe_domain": "googleapis.com",
    }
    return ServiceAccountKey(info, public_pem)
