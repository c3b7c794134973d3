"""Each static check fails on a broken copy of the real file: none of them is vacuous."""

from __future__ import annotations

import copy
from typing import Any

import pytest

pytest.importorskip("yaml", reason="PyYAML parses the deployment files (test extra)")

from tests.deploy import checks

WEB_PORT = 6066


def broken_compose(edit: Any) -> list[str]:
    doc = copy.deepcopy(checks.compose())
    edit(doc["services"])
    return checks.compose_problems(doc)


def broken_deployment(edit: Any) -> list[str]:
    deployment = copy.deepcopy(checks.find(checks.k8s_docs(), "Deployment"))
    edit(deployment["spec"], deployment["spec"]["template"]["spec"]["containers"][0])
    return checks.deployment_problems(deployment, WEB_PORT)


def replace_in_dockerfile(old: str, new: str) -> list[str]:
    text = checks.DOCKERFILE.read_text()
    assert old in text
    return checks.dockerfile_problems(text.replace(old, new))


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        ("apache/kafka", "no tag"),
        ("apache/kafka:latest", "not an exact version"),
        ("prom/prometheus:v2", "not an exact version"),
        ("python:3.11-slim", "not an exact version"),
        ("localhost:5000/wavematch", "no tag"),
    ],
)
def test_unpinned_images_are_caught(image: str, reason: str) -> None:
    [problem] = checks.image_problems([image])
    assert reason in problem


def test_pinned_forms_pass() -> None:
    assert (
        checks.image_problems(
            [
                "apache/kafka:3.9.0",
                "localhost:5000/wavematch:0.1.0",
                "python:3.11.11-slim-bookworm",
                "prom/prometheus@sha256:" + "a" * 64,
            ]
        )
        == []
    )


def test_dockerfile_images_skip_build_stages() -> None:
    text = "FROM python:3.11.11-slim AS build\nFROM build\nFROM busybox:latest\n"
    assert checks.dockerfile_images(text) == ["python:3.11.11-slim", "busybox:latest"]


def test_invented_variables_are_caught() -> None:
    assert checks.env_problems({"WAVEMATCH_BROKER_URL", "WAVEMATCH_BROKERS"}) == [
        "WAVEMATCH_BROKERS: not a setting the code reads"
    ]
    assert "WAVEMATCH_CONFIG_FILE" in checks.known_env_names()  # read by streams/settings.py


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ('ENTRYPOINT ["wavematch", "worker"]', 'ENTRYPOINT ["wavematch", "up"]', "ENTRYPOINT"),
        ('ENTRYPOINT ["wavematch", "worker"]', "ENTRYPOINT wavematch worker", "ENTRYPOINT"),
        ("USER 10001:10001", "USER root", "root"),
        ("EXPOSE 6066", "EXPOSE 8080", "EXPOSE"),
        ("WAVEMATCH_WEB_HOST=0.0.0.0", "WAVEMATCH_WEB_HOST=127.0.0.1", "0.0.0.0"),
        ("CMD python -m streams.healthcheck", "CMD curl -f http://127.0.0.1:6066/", "HEALTHCHECK"),
        ("FROM python:3.11.11-slim-bookworm\n", "FROM python:3.12.8-slim-bookworm\n", "3.11"),
    ],
)
def test_dockerfile_breakage_is_caught(old: str, new: str, reason: str) -> None:
    problems = replace_in_dockerfile(old, new)
    assert any(reason in problem for problem in problems), problems


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for key in parents:
        doc = doc[key]
    doc[last] = value


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        ("worker.deploy.replicas", 1, "replica"),
        ("worker.stop_grace_period", "10s", "stop_grace_period"),
        ("worker.command", ["wavematch", "up"], "entrypoint"),
        ("worker.depends_on", {"kafka": {"condition": "service_started"}}, "topics service"),
        ("worker.volumes", [], "WAVEMATCH_CONFIG_FILE"),
        ("worker.secrets", [], "does not mount the secret"),
        ("prometheus.secrets", [], "prometheus: does not mount"),
        ("worker.environment.WAVEMATCH_WEB_TOKEN_FILE", "/etc/token", "WEB_TOKEN_FILE"),
        ("kafka.environment.KAFKA_PROCESS_ROLES", "broker", "KRaft"),
        ("kafka.environment.CLUSTER_ID", "wavematch-compose-kraft1", "CLUSTER_ID"),
        ("kafka.environment.KAFKA_AUTO_CREATE_TOPICS_ENABLE", "true", "auto-creation"),
        ("topics.depends_on", {"kafka": {"condition": "service_started"}}, "healthy"),
        (
            "topics.entrypoint",
            ["python", "-c", "from streams.topics import create_topics"],
            "expected",
        ),
        ("topics.entrypoint", ["wavematch", "topics", "check"], "expected"),
        ("topics.entrypoint", ["wavematch", "topics"], "expected"),
    ],
)
def test_compose_breakage_is_caught(path: str, value: Any, reason: str) -> None:
    problems = broken_compose(lambda services: set_path(services, path, value))
    assert any(reason in problem for problem in problems), problems


def test_compose_missing_service_is_caught() -> None:
    assert broken_compose(lambda services: services.pop("prometheus")) == [
        "service prometheus missing"
    ]


def test_session_timeout_outside_broker_bounds_is_caught() -> None:
    assert checks.session_bounds_problems({}, 5_000)
    assert checks.session_bounds_problems({"KAFKA_GROUP_MAX_SESSION_TIMEOUT_MS": "8000"}, 10_000)
    assert checks.session_bounds_problems({}, 10_000) == []


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda doc: doc["scrape_configs"][0].update(metrics_path="/prometheus"), "metrics_path"),
        (lambda doc: doc["scrape_configs"][0]["dns_sd_configs"][0].update(port=6067), "web port"),
        (
            lambda doc: doc["scrape_configs"][0]["dns_sd_configs"][0].update(names=["workers"]),
            "not a compose service",
        ),
        (lambda doc: doc["scrape_configs"][0].pop("dns_sd_configs"), "no targets"),
        (lambda doc: doc["scrape_configs"][0].pop("authorization"), "no web token"),
        (
            lambda doc: doc["scrape_configs"][0].update(
                static_configs=[{"targets": ["worker:9999"]}]
            ),
            "web port",
        ),
    ],
)
def test_prometheus_breakage_is_caught(edit: Any, reason: str) -> None:
    doc = copy.deepcopy(checks.load_docs(checks.PROMETHEUS)[0])
    edit(doc)
    problems = checks.prometheus_problems(doc, {"worker", "kafka"}, WEB_PORT)
    assert any(reason in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda spec, c: spec.update(replicas=1), "replica"),
        (
            lambda spec, c: c["readinessProbe"].update(
                exec=None, httpGet={"path": "/health", "port": "web"}
            ),
            "no readinessProbe",
        ),
        (lambda spec, c: c["livenessProbe"]["exec"].update(command=["true"]), "livenessProbe"),
        (lambda spec, c: c["startupProbe"]["exec"]["command"].pop(), "startupProbe"),
        (lambda spec, c: c.pop("env"), "WAVEMATCH_WEB_TOKEN_FILE"),
        (
            lambda spec, c: c["volumeMounts"].pop(),
            "WAVEMATCH_WEB_TOKEN_FILE is not in a mounted Secret",
        ),
        (lambda spec, c: c.pop("livenessProbe"), "no livenessProbe"),
        (lambda spec, c: c["ports"][0].update(containerPort=8080), "containerPort"),
        (lambda spec, c: c.update(args=["--web-port", "7000"]), "entrypoint"),
        (lambda spec, c: c["resources"].pop("limits"), "resources"),
        (
            lambda spec, c: spec["template"]["spec"].update(terminationGracePeriodSeconds=5),
            "terminationGracePeriodSeconds",
        ),
        (
            lambda spec, c: spec["template"]["metadata"]["annotations"].update(
                {"prometheus.io/path": "/health"}
            ),
            "prometheus.io",
        ),
    ],
)
def test_deployment_breakage_is_caught(edit: Any, reason: str) -> None:
    problems = broken_deployment(edit)
    assert any(reason in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("kind", "edit", "reason"),
    [
        (
            "PodDisruptionBudget",
            lambda d: d["spec"]["selector"]["matchLabels"].update(
                {"app.kubernetes.io/component": "topics"}
            ),
            "PodDisruptionBudget",
        ),
        ("PodDisruptionBudget", lambda d: d["spec"].pop("maxUnavailable"), "neither"),
        ("Service", lambda d: d["spec"].update(selector={}), "Service: selector"),
        ("Service", lambda d: d["spec"]["ports"][0].update(targetPort="http"), "targetPort"),
    ],
)
def test_selector_breakage_is_caught(kind: str, edit: Any, reason: str) -> None:
    docs = copy.deepcopy(checks.k8s_docs())
    edit(checks.find(docs, kind))
    problems = checks.selector_problems(docs, checks.find(docs, "Deployment"))
    assert any(reason in problem for problem in problems), problems


def test_config_mount_mismatch_is_caught() -> None:
    docs = checks.k8s_docs()
    deployment = checks.find(docs, "Deployment")
    assert checks.mounted_config(deployment, docs, "/etc/wavematch/wavematch.toml")
    assert checks.mounted_config(deployment, docs, "/etc/wavematch/other.toml") is None
    assert checks.mounted_config(deployment, docs, "/etc/other/wavematch.toml") is None
