"""Static checks of the deployment files: each returns a list of problems (empty = fine).

No container engine or cluster runs here, so the files are checked against the code they
deploy: the real settings model, the worker's real endpoints and command line, the real
topic-creation function. Every check is a function of parsed data, so the tests can feed
it a broken copy and watch it fail.
"""

from __future__ import annotations

import ast
import base64
import binascii
import os
import re
import shlex
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from streams.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
PROMETHEUS = DEPLOY / "prometheus.yml"
HEALTH_PATH = "/health"
#: What the image's HEALTHCHECK and the Kubernetes probes run: an HTTP probe cannot send
#: a token kept in a Secret, which a non-loopback bind requires (docs/adr/0172).
HEALTHCHECK_ARGV = ["python", "-m", "streams.healthcheck"]
HEALTHCHECK_MODULE = ROOT / "streams" / "healthcheck.py"
WEB_TOKEN_VARIABLES = ("WAVEMATCH_WEB_TOKEN", "WAVEMATCH_WEB_TOKEN_FILE")
METRICS_PATH = "/metrics"
#: An exact release: major.minor.patch, optionally a variant suffix ("3.11.11-slim-bookworm").
EXACT_TAG = re.compile(r"^v?\d+\.\d+\.\d+([-.+][\w.-]+)?$")
ENV_NAME = re.compile(r"\bWAVEMATCH_[A-Z0-9_]*[A-Z0-9]\b")
MIN_GRACE_S = 30


# --- loading -------------------------------------------------------------------------


def yaml_files() -> list[Path]:
    return [COMPOSE, PROMETHEUS, *sorted(K8S.glob("*.yaml")), *sorted(K8S.glob("*.yml"))]


def load_docs(path: Path) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def compose() -> dict[str, Any]:
    return dict(yaml.safe_load(COMPOSE.read_text()))


def k8s_docs() -> list[dict[str, Any]]:
    return [
        doc
        for path in sorted(K8S.glob("*.yaml"))
        if path.name != "kustomization.yaml"
        for doc in load_docs(path)
    ]


def find(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    hits = [
        d
        for d in docs
        if d.get("kind") == kind and (name is None or d.get("metadata", {}).get("name") == name)
    ]
    assert len(hits) == 1, f"expected one {kind} {name or ''}, found {len(hits)}"
    return hits[0]


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined, comments dropped."""
    joined = re.sub(
        r"\\\n",
        " ",
        "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")),
    )
    return [
        (
            line.split(None, 1)[0].upper(),
            line.split(None, 1)[1].strip() if " " in line.strip() else "",
        )
        for line in joined.splitlines()
        if line.strip()
    ]


# --- what the code defines ------------------------------------------------------------


def known_env_names() -> set[str]:
    """Every WAVEMATCH_* variable the code reads: Settings fields plus names in streams/."""
    names = {f"WAVEMATCH_{field.upper()}" for field in Settings.model_fields}
    for path in (ROOT / "streams").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"WAVEMATCH_[A-Z0-9_]+", node.value)
            ):
                names.add(node.value)
    names.discard("WAVEMATCH_")
    return names


def worker_web_paths() -> set[str]:
    """The paths the worker serves, read from its app module (pages and the metrics sensor)."""
    source = (ROOT / "streams" / "worker" / "app.py").read_text()
    return set(re.findall(r'@app\.page\("(/[^"]*)"\)', source)) | set(
        re.findall(r'setup_prometheus_sensors\([^)]*pattern="(/[^"]*)"', source)
    )


@contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """Exactly ``env`` as the WAVEMATCH_* environment (nothing inherited from this shell)."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("WAVEMATCH_")}
    for key in saved:
        del os.environ[key]
    os.environ.update(env)
    try:
        yield
    finally:
        for key in env:
            os.environ.pop(key, None)
        os.environ.update(saved)


def settings_under(env: dict[str, str], config_file: Path) -> Settings:
    """The settings a container with ``env`` gets, its config file being ``config_file``;
    a mounted web token file is replaced by one of the test's."""
    replaced = {k: v for k, v in env.items() if k != "WAVEMATCH_CONFIG_FILE"}
    with tempfile.TemporaryDirectory() as scratch:
        if "WAVEMATCH_WEB_TOKEN_FILE" in replaced:
            token = Path(scratch) / "web-token"
            token.write_text("0123456789abcdef0123456789abcdef")
            replaced["WAVEMATCH_WEB_TOKEN_FILE"] = str(token)
        with environment(replaced):
            return load_settings(config_file)


# --- generic checks --------------------------------------------------------------------


def images_in(node: Any) -> list[str]:
    """Every value of an ``image`` key, at any depth."""
    if isinstance(node, dict):
        found = [str(v) for k, v in node.items() if k == "image" and isinstance(v, str)]
        return found + [image for v in node.values() for image in images_in(v)]
    if isinstance(node, list):
        return [image for item in node for image in images_in(item)]
    return []


def dockerfile_images(text: str) -> list[str]:
    stages: set[str] = set()
    images = []
    for instruction, args in dockerfile_instructions(text):
        if instruction == "FROM":
            parts = args.split()
            if parts[0] not in stages:
                images.append(parts[0])
            if len(parts) == 3 and parts[1].upper() == "AS":
                stages.add(parts[2])
    return images


def image_problems(images: list[str]) -> list[str]:
    problems = []
    for image in images:
        if "@sha256:" in image:
            continue
        # A colon before the last slash belongs to a registry port, not to a tag.
        tag = image.rpartition(":")[2] if ":" in image.rsplit("/", 1)[-1] else ""
        if not tag:
            problems.append(f"image {image}: no tag")
        elif not EXACT_TAG.match(tag):
            problems.append(f"image {image}: tag {tag!r} is not an exact version")
    return problems


def env_problems(names: set[str]) -> list[str]:
    known = known_env_names()
    return [f"{name}: not a setting the code reads" for name in sorted(names - known)]


def env_names_in_text(text: str) -> set[str]:
    return set(ENV_NAME.findall(text))


def duration_s(value: str | int) -> float:
    """A compose duration like "60s", "1m30s" or a bare number of seconds."""
    if isinstance(value, int):
        return float(value)
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", value)
    assert parts and "".join(n + u for n, u in parts) == value, f"bad duration {value!r}"
    return sum(float(n) * units[u] for n, u in parts)


#: The one-shot topic command of compose and the Kubernetes Job.
TOPIC_COMMAND = ["wavematch", "topics", "create"]


def topic_command_problems(argv: list[str]) -> list[str]:
    """The one-shot topic command is `wavematch topics create`, a command the CLI has."""
    from streams.cli import COMMANDS

    if argv != TOPIC_COMMAND:
        return [f"topic command {argv!r}: expected {TOPIC_COMMAND!r}"]
    if argv[1] not in COMMANDS:
        return [f"topic command: the CLI has no {argv[1]!r} command"]
    return []


# --- Dockerfile ------------------------------------------------------------------------


def dockerfile_problems(text: str) -> list[str]:
    instructions = dockerfile_instructions(text)
    last_from = max(i for i, (ins, _) in enumerate(instructions) if ins == "FROM")
    final = instructions[last_from:]
    problems = []
    base = final[0][1].split()[0]
    if not re.match(r"^python:3\.11\.\d+-slim", base):
        problems.append(f"final stage FROM {base}: expected python:3.11.x-slim")
    entrypoints = [args for ins, args in final if ins == "ENTRYPOINT"]
    if not entrypoints or yaml.safe_load(entrypoints[-1]) != ["wavematch", "worker"]:
        problems.append(
            f'ENTRYPOINT {entrypoints[-1:]}: expected exec form ["wavematch", "worker"]'
        )
    users = [args.split(":")[0] for ins, args in final if ins == "USER"]
    if not users or users[-1] in ("root", "0"):
        problems.append("the final stage runs as root (no USER, or USER root)")
    env = dockerfile_env(final)
    port = env.get("WAVEMATCH_WEB_PORT")
    exposed = [args.split("/")[0] for ins, args in final if ins == "EXPOSE"]
    if port is None or exposed != [port]:
        problems.append(f"EXPOSE {exposed} does not match WAVEMATCH_WEB_PORT={port}")
    if env.get("WAVEMATCH_WEB_HOST") != "0.0.0.0":
        problems.append("WAVEMATCH_WEB_HOST is not 0.0.0.0: probes could not reach /health")
    checks = [args for ins, args in final if ins == "HEALTHCHECK"]
    command = re.search(r"\bCMD (.+)$", checks[-1]) if checks else None
    if command is None or command.group(1).split() != HEALTHCHECK_ARGV:
        problems.append(f"HEALTHCHECK does not run {' '.join(HEALTHCHECK_ARGV)}")
    return problems


def healthcheck_problems() -> list[str]:
    """The probe module asks /health on WAVEMATCH_WEB_PORT and sends the web token."""
    source = HEALTHCHECK_MODULE.read_text()
    problems = []
    if f'HEALTH_PATH = "{HEALTH_PATH}"' not in source or "WAVEMATCH_WEB_PORT" not in source:
        problems.append(f"streams/healthcheck.py does not ask {HEALTH_PATH} on WAVEMATCH_WEB_PORT")
    if "WAVEMATCH_WEB_TOKEN_FILE" not in source or "Authorization" not in source:
        problems.append("streams/healthcheck.py does not send the web token")
    return problems


def dockerfile_env(instructions: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction, args in instructions:
        if instruction == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(args) if "=" in item)
    return env


# --- docker-compose.yml --------------------------------------------------------------


def service_env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def compose_config_file(service: dict[str, Any]) -> Path | None:
    """The host file mounted where the service's WAVEMATCH_CONFIG_FILE points."""
    target = service_env(service).get("WAVEMATCH_CONFIG_FILE")
    for volume in service.get("volumes", []):
        source, _, rest = str(volume).partition(":")
        if rest.split(":")[0] == target:
            return (ROOT / source).resolve()
    return None


def compose_problems(doc: dict[str, Any]) -> list[str]:
    services = doc.get("services", {})
    problems = [
        f"service {name} missing"
        for name in ("kafka", "topics", "worker", "prometheus")
        if name not in services
    ]
    if problems:
        return problems
    kafka_env = service_env(services["kafka"])
    if set(kafka_env.get("KAFKA_PROCESS_ROLES", "").split(",")) != {"broker", "controller"}:
        problems.append("kafka: not a KRaft combined broker/controller")
    try:
        cluster_id = kafka_env["CLUSTER_ID"]
        if len(base64.urlsafe_b64decode(cluster_id + "==")) != 16 or len(cluster_id) != 22:
            problems.append(f"kafka: CLUSTER_ID {cluster_id} is not a base64 Kafka Uuid")
    except (KeyError, binascii.Error, ValueError):
        problems.append("kafka: CLUSTER_ID missing or not base64")
    if kafka_env.get("KAFKA_AUTO_CREATE_TOPICS_ENABLE") != "false":
        problems.append("kafka: topic auto-creation is on (wrong partition counts)")
    if "healthcheck" not in services["kafka"]:
        problems.append("kafka: no healthcheck, so `topics` cannot wait for it")
    topics = services["topics"]
    problems += topic_command_problems(list(topics.get("entrypoint", [])))
    if topics.get("depends_on", {}).get("kafka", {}).get("condition") != "service_healthy":
        problems.append("topics: does not wait for a healthy kafka")
    worker = services["worker"]
    replicas = worker.get("deploy", {}).get("replicas", 1)
    if replicas < 2:
        problems.append(f"worker: {replicas} replica(s), expected >= 2")
    if (
        worker.get("depends_on", {}).get("topics", {}).get("condition")
        != "service_completed_successfully"
    ):
        problems.append("worker: does not wait for the topics service to succeed")
    if duration_s(worker.get("stop_grace_period", "10s")) < MIN_GRACE_S:
        problems.append(f"worker: stop_grace_period under {MIN_GRACE_S} s cuts the clean leave")
    if worker.get("entrypoint") is not None or worker.get("command") is not None:
        problems.append("worker: overrides the image's `wavematch worker` entrypoint")
    problems += compose_token_problems(doc)
    for name in ("topics", "worker"):
        path = compose_config_file(services[name])
        if path is None or not path.is_file():
            problems.append(f"{name}: WAVEMATCH_CONFIG_FILE is not a mounted repository file")
    return problems


def session_bounds_problems(kafka_env: dict[str, str], session_timeout_ms: int) -> list[str]:
    low = int(kafka_env.get("KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS", 6000))
    high = int(kafka_env.get("KAFKA_GROUP_MAX_SESSION_TIMEOUT_MS", 1_800_000))
    if not low <= session_timeout_ms <= high:
        return [f"session_timeout_ms={session_timeout_ms} is outside the broker's [{low}, {high}]"]
    return []


def compose_token_problems(doc: dict[str, Any]) -> list[str]:
    """The workers bind 0.0.0.0: their token file is a declared secret mounted in them
    and in Prometheus (which sends it)."""
    services, declared = doc["services"], set(doc.get("secrets") or {})
    path = service_env(services["worker"]).get("WAVEMATCH_WEB_TOKEN_FILE", "")
    secret = PurePosixPath(path).name
    if not path.startswith("/run/secrets/") or secret not in declared:
        return ["worker: WAVEMATCH_WEB_TOKEN_FILE is not a declared Docker secret"]
    return [
        f"{name}: does not mount the secret {secret}"
        for name in ("worker", "prometheus")
        if secret not in services[name].get("secrets", [])
    ]


def prometheus_problems(doc: dict[str, Any], services: set[str], web_port: int) -> list[str]:
    jobs = doc.get("scrape_configs", [])
    if not jobs:
        return ["prometheus: no scrape_configs"]
    problems = []
    for job in jobs:
        name = job.get("job_name")
        authorization = job.get("authorization", {})
        if authorization.get("type", "Bearer") != "Bearer" or not authorization.get(
            "credentials_file", ""
        ).startswith("/run/secrets/"):
            problems.append(f"prometheus job {name}: sends no web token from a secret")
        if job.get("metrics_path", "/metrics") != METRICS_PATH:
            problems.append(f"prometheus job {name}: metrics_path is not {METRICS_PATH}")
        targets = [
            (host, str(sd.get("port")))
            for sd in job.get("dns_sd_configs", [])
            for host in sd.get("names", [])
        ]
        targets += [
            tuple(t.rsplit(":", 1))
            for sc in job.get("static_configs", [])
            for t in sc.get("targets", [])
        ]
        if not targets:
            problems.append(f"prometheus job {name}: no targets")
        for host, port in targets:
            if host not in services:
                problems.append(f"prometheus job {name}: {host} is not a compose service")
            if port != str(web_port):
                problems.append(
                    f"prometheus job {name}: port {port} is not the web port {web_port}"
                )
    return problems


# --- Kubernetes ------------------------------------------------------------------------


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    return dict(workload["spec"]["template"]["spec"])


def container(workload: dict[str, Any]) -> dict[str, Any]:
    containers = pod_spec(workload)["containers"]
    assert len(containers) == 1, "one container per pod"
    return dict(containers[0])


def container_env(workload: dict[str, Any], docs: list[dict[str, Any]]) -> dict[str, str]:
    """The container's environment: envFrom ConfigMaps, then explicit env (which wins)."""
    env: dict[str, str] = {}
    spec = container(workload)
    for source in spec.get("envFrom", []):
        ref = source["configMapRef"]["name"]
        env.update({k: str(v) for k, v in find(docs, "ConfigMap", ref)["data"].items()})
    env.update({e["name"]: str(e["value"]) for e in spec.get("env", []) if "value" in e})
    return env


def mounted_config(workload: dict[str, Any], docs: list[dict[str, Any]], path: str) -> str | None:
    """The text of the ConfigMap key mounted at ``path`` in the workload's container."""
    volumes = {v["name"]: v for v in pod_spec(workload).get("volumes", [])}
    for mount in container(workload).get("volumeMounts", []):
        relative = (
            PurePosixPath(path).relative_to(mount["mountPath"])
            if PurePosixPath(path).is_relative_to(mount["mountPath"])
            else None
        )
        config_map = volumes.get(mount["name"], {}).get("configMap")
        if relative is not None and config_map:
            return find(docs, "ConfigMap", config_map["name"])["data"].get(str(relative))
    return None


def port_of(workload: dict[str, Any], port: int | str) -> int | None:
    if isinstance(port, int):
        return port
    named = {p.get("name"): p["containerPort"] for p in container(workload).get("ports", [])}
    return named.get(port)


def deployment_problems(deployment: dict[str, Any], web_port: int) -> list[str]:
    problems = []
    if deployment["spec"].get("replicas", 1) < 2:
        problems.append(
            f"Deployment: {deployment['spec'].get('replicas', 1)} replica(s), expected >= 2"
        )
    spec = container(deployment)
    if spec.get("command") or spec.get("args"):
        problems.append("Deployment: overrides the image's `wavematch worker` entrypoint")
    if web_port not in [p["containerPort"] for p in spec.get("ports", [])]:
        problems.append(f"Deployment: web port {web_port} is not a containerPort")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = (spec.get(probe, {}).get("exec") or {}).get("command")
        if probe != "startupProbe" and command is None:
            problems.append(f"Deployment: no {probe}")
        elif command is not None and command != HEALTHCHECK_ARGV:
            problems.append(f"Deployment: {probe} runs {command}, not {' '.join(HEALTHCHECK_ARGV)}")
    problems += deployment_token_problems(deployment)
    if "requests" not in spec.get("resources", {}) or "limits" not in spec.get("resources", {}):
        problems.append("Deployment: resources need requests and limits")
    grace = pod_spec(deployment).get("terminationGracePeriodSeconds", 30)
    if grace < MIN_GRACE_S:
        problems.append(f"Deployment: terminationGracePeriodSeconds {grace} < {MIN_GRACE_S}")
    annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    if (
        annotations.get("prometheus.io/port") != str(web_port)
        or annotations.get("prometheus.io/path") != METRICS_PATH
    ):
        problems.append(
            f"Deployment: prometheus.io annotations do not point at the web port's {METRICS_PATH}"
        )
    return problems


def deployment_token_problems(deployment: dict[str, Any]) -> list[str]:
    """The pod binds 0.0.0.0: WAVEMATCH_WEB_TOKEN_FILE lies in a mounted Secret."""
    spec = container(deployment)
    env = {e["name"]: e.get("value") for e in spec.get("env", [])}
    path = PurePosixPath(str(env.get("WAVEMATCH_WEB_TOKEN_FILE")))
    volumes = {v["name"]: v for v in pod_spec(deployment).get("volumes", [])}
    for mount in spec.get("volumeMounts", []):
        mounted = volumes.get(mount["name"], {})
        if path.parent == PurePosixPath(mount["mountPath"]) and "secret" in mounted:
            return []
    return ["Deployment: WAVEMATCH_WEB_TOKEN_FILE is not in a mounted Secret"]


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def selector_problems(docs: list[dict[str, Any]], deployment: dict[str, Any]) -> list[str]:
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    problems = []
    if not selects(deployment["spec"]["selector"]["matchLabels"], labels):
        problems.append("Deployment: selector does not match its own pods")
    pdb = find(docs, "PodDisruptionBudget")
    if not selects(pdb["spec"]["selector"]["matchLabels"], labels):
        problems.append("PodDisruptionBudget: selector does not match the worker pods")
    if "maxUnavailable" not in pdb["spec"] and "minAvailable" not in pdb["spec"]:
        problems.append("PodDisruptionBudget: neither maxUnavailable nor minAvailable")
    service = find(docs, "Service")
    if not selects(service["spec"]["selector"], labels):
        problems.append("Service: selector does not match the worker pods")
    for port in service["spec"]["ports"]:
        if port_of(deployment, port.get("targetPort", port["port"])) is None:
            problems.append(f"Service: targetPort {port.get('targetPort')} is not a pod port")
    return problems
