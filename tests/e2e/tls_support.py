"""Certificates for the TLS tests, made by the `openssl` command: a certificate authority and a
server certificate it signed for the names given."""

from __future__ import annotations

import subprocess
from pathlib import Path


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certificates(directory: Path, names: str = "DNS:localhost") -> dict[str, Path]:
    """`ca` (the authority's certificate), `cert` and `key` (the server's, for `names`, a
    subjectAltName list such as `DNS:localhost,IP:127.0.0.1`)."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=Sluice Test CA", cwd=directory)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost",
            cwd=directory)
    (directory / "san.ext").write_text(
        f"subjectAltName={names}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
            "-days", "2", "-extfile", "san.ext", cwd=directory)
    return {"ca": directory / "ca.pem", "cert": directory / "server.pem", "key": directory / "server.key", "dir": directory}
