"""Test certificates for TLS receivers, written by a child process: `python -m tests.support.certificates DIR NAME...`.

Made apart from the test worker on purpose. cryptography looks up `datetime.datetime` once, on first use, and keeps
it; a worker that first used cryptography under freezegun (which swaps `datetime.datetime` for its FakeDatetime) would
refuse every real datetime afterwards ("'datetime' object is not an instance of 'FakeDatetime'")."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def make_certificates(directory: Path, names: list[str]) -> None:
    """Writes into `directory` a CA (ca.key, ca.pem), a certificate signed by it for each name (NAME.key, NAME.pem),
    and a second CA that signed nothing (stranger-ca.pem); runs in a child process (see the module's note)."""
    subprocess.run([sys.executable, "-m", "tests.support.certificates", str(directory), *names], cwd=ROOT, check=True, timeout=60)


def _write(directory: Path, stem: str, names: list[str], issuer: tuple[Any, Any] | None) -> tuple[Any, Any]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0] if names else f"test CA {stem}")])
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer[1].subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key((issuer[0] if issuer else key).public_key()), critical=False)
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
    else:
        builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True)
    certificate = builder.sign(issuer[0] if issuer else key, hashes.SHA256())
    (directory / f"{stem}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (directory / f"{stem}.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key, certificate


def main(argv: list[str]) -> None:
    directory, names = Path(argv[0]), argv[1:]
    directory.mkdir(parents=True, exist_ok=True)
    ca = _write(directory, "ca", [], None)
    for name in names:
        _write(directory, name, [name], ca)
    _write(directory, "stranger-ca", [], None)


if __name__ == "__main__":
    main(sys.argv[1:])
