"""The real deployment files pass every static check (tests/deploy/checks.py)."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("yaml", reason="PyYAML parses the deployment files (test extra)")

from schemas.topics import murmur2_partition, queue_key
from streams.cli import COMMANDS
from streams.settings import Settings
from tests.deploy import checks

DOCS = [
    checks.COMPOSE,
    checks.DOCKERFILE,
    checks.PROMETHEUS,
    *checks.K8S.glob("*.yaml"),
    checks.DEPLOY / "README.md",
    checks.DEPLOY / "wavematch.toml",
    checks.ROOT / "docs" / "scaling.md",
    checks.ROOT / "docs" / "operations.md",
]


def compose_worker_settings() -> Settings:
    worker = checks.compose()["services"]["worker"]
    config = checks.compose_config_file(worker)
    assert config is not None
    return checks.settings_under(checks.service_env(worker), config)


def k8s_settings(tmp_path: Path, workload_kind: str = "Deployment") -> Settings:
    docs = checks.k8s_docs()
    workload = checks.find(docs, workload_kind)
    env = checks.container_env(workload, docs)
    text = checks.mounted_config(workload, docs, env["WAVEMATCH_CONFIG_FILE"])
    assert text is not None, f"{workload_kind}: nothing mounted at WAVEMATCH_CONFIG_FILE"
    config = tmp_path / f"{workload_kind}.toml"
    config.write_text(text)
    return checks.settings_under(env, config)


@pytest.mark.parametrize("path", checks.yaml_files(), ids=lambda p: p.name)
def test_every_yaml_file_parses_to_mappings(path: Path) -> None:
    docs = checks.load_docs(path)
    assert docs and all(isinstance(doc, dict) for doc in docs)


def test_kustomization_lists_every_manifest() -> None:
    listed = set(checks.load_docs(checks.K8S / "kustomization.yaml")[0]["resources"])
    present = {p.name for p in checks.K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == present


def test_every_manifest_has_kind_and_name_in_the_namespace() -> None:
    for doc in checks.k8s_docs():
        assert doc.get("apiVersion") and doc.get("kind") and doc["metadata"].get("name"), doc
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == "wavematch", doc["metadata"]


def test_every_image_is_pinned_to_an_exact_version() -> None:
    images = (
        checks.images_in(checks.compose())
        + checks.images_in(checks.k8s_docs())
        + checks.dockerfile_images(checks.DOCKERFILE.read_text())
    )
    assert len(images) >= 6  # kafka, prometheus, worker x2 (compose), worker + job, python
    assert checks.image_problems(images) == []


def test_our_image_tag_is_the_package_version() -> None:
    version = tomllib.loads((checks.ROOT / "pyproject.toml").read_text())["project"]["version"]
    ours = [
        image
        for image in checks.images_in(checks.compose()) + checks.images_in(checks.k8s_docs())
        if image.split(":")[0].endswith("wavematch")
    ]
    assert ours and set(ours) == {f"wavematch:{version}"}


def test_every_wavematch_variable_in_files_and_docs_is_real() -> None:
    names = set().union(*(checks.env_names_in_text(path.read_text()) for path in DOCS))
    assert "WAVEMATCH_BROKER_URL" in names  # the scan itself sees the files
    assert checks.env_problems(names) == []


def test_dockerfile() -> None:
    assert checks.dockerfile_problems(checks.DOCKERFILE.read_text()) == []


def test_the_entrypoint_command_exists() -> None:
    scripts = tomllib.loads((checks.ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["wavematch"] == "streams.cli:main"
    assert "worker" in COMMANDS


def test_worker_serves_the_paths_the_files_use() -> None:
    assert {checks.HEALTH_PATH, checks.METRICS_PATH} <= checks.worker_web_paths()
    assert checks.healthcheck_problems() == []


def test_compose() -> None:
    assert checks.compose_problems(checks.compose()) == []


def test_compose_workers_load_their_settings_and_agree_with_the_image() -> None:
    settings = compose_worker_settings()
    env = checks.dockerfile_env(checks.dockerfile_instructions(checks.DOCKERFILE.read_text()))
    assert settings.web_port == int(env["WAVEMATCH_WEB_PORT"])
    assert settings.web_host == "0.0.0.0"
    assert settings.web_access_problem() is None  # the token is wired
    assert settings.broker_url == "kafka://kafka:9092"
    assert not settings.is_embedded_broker
    kafka_env = checks.service_env(checks.compose()["services"]["kafka"])
    assert checks.session_bounds_problems(kafka_env, settings.session_timeout_ms) == []


def test_prometheus_scrapes_the_workers() -> None:
    doc = checks.load_docs(checks.PROMETHEUS)[0]
    services = set(checks.compose()["services"])
    assert checks.prometheus_problems(doc, services, compose_worker_settings().web_port) == []


def test_k8s_deployment(tmp_path: Path) -> None:
    web_port = k8s_settings(tmp_path).web_port
    deployment = checks.find(checks.k8s_docs(), "Deployment")
    assert checks.deployment_problems(deployment, web_port) == []


def test_k8s_selectors_and_ports() -> None:
    docs = checks.k8s_docs()
    assert checks.selector_problems(docs, checks.find(docs, "Deployment")) == []


def test_k8s_settings_load_for_the_worker_and_the_topic_job(tmp_path: Path) -> None:
    worker, job = k8s_settings(tmp_path, "Deployment"), k8s_settings(tmp_path, "Job")
    # The job creates the topics the workers will use; it serves no web views (no token).
    web = {"web_token", "web_token_file"}
    assert worker.model_dump(exclude=web) == job.model_dump(exclude=web)
    assert worker.web_host == "0.0.0.0"
    assert worker.web_access_problem() is None
    assert worker.replication_factor >= 3  # production: survive a broker loss


def test_k8s_topic_job_runs_the_same_command_as_compose() -> None:
    job = checks.container(checks.find(checks.k8s_docs(), "Job"))
    assert checks.topic_command_problems(job["command"]) == []
    assert job["command"] == checks.compose()["services"]["topics"]["entrypoint"]


def test_compose_replays_production_decisions(tmp_path: Path) -> None:
    # Same fingerprint and partitions: a production log replays identically under compose.
    production, local = k8s_settings(tmp_path), compose_worker_settings()
    assert production.config_fingerprint() == local.config_fingerprint()
    assert production.partitions == local.partitions


def test_the_key_spread_printed_in_the_scaling_guide_is_what_the_code_computes() -> None:
    text = (checks.ROOT / "docs" / "scaling.md").read_text()
    line = r"^\s*(\d+) partitions: (\d+) used, keys per used partition \[([\d, ]+)\]$"
    printed = re.findall(line, text, re.M)
    assert len(printed) == 3
    settings = compose_worker_settings()
    keys = [queue_key(q.name, r) for q in settings.queues for r in q.regions]
    for partitions, used, sizes in printed:
        spread = Counter(murmur2_partition(key, int(partitions)) for key in keys)
        assert (len(spread), sorted(spread.values(), reverse=True)) == (
            int(used),
            [int(size) for size in sizes.split(", ")],
        )
