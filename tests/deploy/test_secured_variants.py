"""The secured variants (docker-compose.secured.yml, deploy/k8s-secured) pass their static
checks, load as SASL_SSL settings for the worker, and each check fails on a broken copy."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("yaml", reason="PyYAML parses the deployment files (test extra)")

from tests.deploy import checks
from tests.deploy import secured_checks as secured

FILES = [
    secured.SECURED_COMPOSE,
    *sorted(secured.OVERLAY.glob("*.yaml")),
]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_file_parses_to_mappings(path: Path) -> None:
    docs = checks.load_docs(path)
    assert docs and all(isinstance(doc, dict) for doc in docs)


def test_images_are_pinned_and_variables_are_real() -> None:
    images = checks.images_in(secured.secured_compose())
    assert images and checks.image_problems(images) == []
    names = set().union(*(checks.env_names_in_text(p.read_text()) for p in FILES))
    assert "WAVEMATCH_SASL_PASSWORD_FILE" in names
    assert checks.env_problems(names) == []


def test_compose_secured_variant() -> None:
    assert secured.secured_compose_problems(checks.compose(), secured.secured_compose()) == []


def test_compose_secured_workers_load_sasl_ssl_settings(tmp_path: Path) -> None:
    worker = secured.secured_compose()["services"]["worker"]
    env = checks.service_env(worker)
    settings = secured.settings_with_files(env, checks.DEPLOY / "wavematch.toml", tmp_path)
    assert settings.security_protocol == "SASL_SSL"
    assert settings.sasl_password is not None
    assert settings.sasl_password.get_secret_value() == "secret"
    # Same decisions as the plain compose file: only the connection differs.
    plain = checks.settings_under(
        checks.service_env(checks.compose()["services"]["worker"]), checks.DEPLOY / "wavematch.toml"
    )
    assert settings.config_fingerprint() == plain.config_fingerprint()


def test_k8s_overlay() -> None:
    kustomization = secured.overlay()
    assert secured.overlay_problems(kustomization, secured.overlay_patches(kustomization)) == []


def test_k8s_overlay_workers_load_sasl_ssl_settings(tmp_path: Path) -> None:
    docs = checks.k8s_docs()
    workload = checks.find(docs, "Deployment")
    config = tmp_path / "wavematch.toml"
    text = checks.mounted_config(workload, docs, "/etc/wavematch/wavematch.toml")
    assert text is not None
    config.write_text(text)
    settings = secured.settings_with_files(secured.overlay_env(), config, tmp_path)
    assert settings.security_protocol == "SASL_SSL"
    assert settings.sasl_mechanism == "SCRAM-SHA-512"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_builds_the_overlay(tmp_path: Path) -> None:
    """`kubectl kustomize` (offline) renders it, with the Secret mounted in both workloads."""
    copy_root = tmp_path / "deploy"
    shutil.copytree(checks.K8S, copy_root / "k8s")
    shutil.copytree(secured.OVERLAY, copy_root / "k8s-secured")
    (copy_root / "k8s-secured" / "sasl-password.txt").write_text("secret")
    (copy_root / "k8s-secured" / "ca.pem").write_text("not read by kustomize")
    (copy_root / "k8s" / "web-token.txt").write_text("0123456789abcdef")
    built = subprocess.run(
        ["kubectl", "kustomize", str(copy_root / "k8s-secured")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert built.returncode == 0, built.stderr
    assert built.stdout.count("secretName: wavematch-kafka-") == 2
    assert built.stdout.count("secretName: wavematch-web-") == 1  # the worker's only
    assert "WAVEMATCH_SECURITY_PROTOCOL: SASL_SSL" in built.stdout


def broken_secured(edit: Any) -> list[str]:
    doc = copy.deepcopy(secured.secured_compose())
    edit(doc["services"])
    return secured.secured_compose_problems(checks.compose(), doc)


def test_compose_checks_catch_breakage() -> None:
    def mechanism(services: dict[str, Any]) -> None:
        for name in ("topics", "worker"):
            services[name]["environment"] = {
                **services[name]["environment"],
                "WAVEMATCH_SASL_MECHANISM": "SCRAM-SHA-256",
            }

    def plaintext_host(services: dict[str, Any]) -> None:
        env = services["kafka"]["environment"]
        env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"] = env[
            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"
        ].replace("HOST:SASL_SSL", "HOST:PLAINTEXT")

    def wrong_port(services: dict[str, Any]) -> None:
        services["worker"]["environment"] = {
            **services["worker"]["environment"],
            "WAVEMATCH_BROKER_URL": "kafka://kafka:9092",
        }

    def no_secret(services: dict[str, Any]) -> None:
        services["worker"]["secrets"] = []

    assert any("not enabled" in p for p in broken_secured(mechanism))
    assert any("published to the host in PLAINTEXT" in p for p in broken_secured(plaintext_host))
    assert any("not a SASL_SSL listener" in p for p in broken_secured(wrong_port))
    assert any("does not mount the secret" in p for p in broken_secured(no_secret))


def test_overlay_checks_catch_breakage() -> None:
    kustomization = secured.overlay()
    patches = secured.overlay_patches(kustomization)
    moved = copy.deepcopy(patches)
    for patch in moved:
        if patch["kind"] == "Job":
            patch["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] = (
                "/elsewhere"
            )
    assert any(
        p.startswith("Job: WAVEMATCH_SASL_PASSWORD_FILE")
        for p in secured.overlay_problems(kustomization, moved)
    )
    renamed = copy.deepcopy(kustomization)
    renamed["secretGenerator"][0]["files"] = ["password=sasl-password.txt", "ca.pem=ca.pem"]
    assert any("sasl-password" in p for p in secured.overlay_problems(renamed, patches))
