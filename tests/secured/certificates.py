"""A throw-away certificate authority for TLS tests: a CA, a broker certificate for
127.0.0.1/localhost and a client certificate, written as PEM files in the test's directory.

Generated in every run, so no private key is ever committed."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Authority:
    """PEM files: ``ca`` (the CA certificate), ``broker`` (key then certificate chain, as
    Kafka's PEM keystore wants), ``client_cert`` and ``client_key``."""

    ca: Path
    broker: Path
    client_cert: Path
    client_key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,  # Kafka's PEM keystore reads PKCS#8 only
        serialization.NoEncryption(),
    )


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    signer: ec.EllipticCurvePrivateKey,
    ca: bool = False,
    hosts: tuple[str, ...] = (),
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        ).add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    else:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()),
            critical=False,
        )
    if hosts:
        names: list[x509.GeneralName] = [x509.DNSName("localhost")]
        names += [x509.IPAddress(ipaddress.ip_address(host)) for host in hosts]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(signer, hashes.SHA256())


def make_authority(directory: Path, name: str = "wavematch-test-ca") -> Authority:
    """A new CA and the certificates it signs, under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _certificate(name, ca_key, _name(name), ca_key, ca=True)
    broker_key = ec.generate_private_key(ec.SECP256R1())
    broker_cert = _certificate("broker", broker_key, ca_cert.subject, ca_key, hosts=("127.0.0.1",))
    client_key = ec.generate_private_key(ec.SECP256R1())
    client_cert = _certificate("wavematch", client_key, ca_cert.subject, ca_key)
    pem = serialization.Encoding.PEM
    authority = Authority(
        directory / "ca.pem",
        directory / "broker.pem",
        directory / "client.pem",
        directory / "client.key",
    )
    authority.ca.write_bytes(ca_cert.public_bytes(pem))
    authority.broker.write_bytes(
        _key_pem(broker_key) + broker_cert.public_bytes(pem) + ca_cert.public_bytes(pem)
    )
    authority.client_cert.write_bytes(client_cert.public_bytes(pem))
    authority.client_key.write_bytes(_key_pem(client_key))
    return authority
