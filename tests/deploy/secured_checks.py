"""Static checks of the secured variants (docker-compose.secured.yml, deploy/k8s-secured):
each returns a list of problems (empty = fine), so a test can feed it a broken copy.

The settings check loads the real settings model with the variants' environment, the
mounted secret and CA paths replaced by files of the test's own."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from streams.settings import Settings
from tests.deploy import checks

SECURED_COMPOSE = checks.ROOT / "docker-compose.secured.yml"
OVERLAY = checks.DEPLOY / "k8s-secured"
CLIENTS = ("topics", "worker")
FILE_SETTINGS = ("WAVEMATCH_SASL_PASSWORD_FILE", "WAVEMATCH_SSL_CAFILE")


def secured_compose() -> dict[str, Any]:
    return dict(checks.load_docs(SECURED_COMPOSE)[0])


def overlay() -> dict[str, Any]:
    return dict(checks.load_docs(OVERLAY / "kustomization.yaml")[0])


def overlay_patches(kustomization: dict[str, Any]) -> list[dict[str, Any]]:
    return [checks.load_docs(OVERLAY / p["path"])[0] for p in kustomization.get("patches", [])]


def settings_with_files(env: dict[str, str], config: Path, tmp_path: Path) -> Settings:
    """The settings of a container with ``env``; the secret and CA files are the test's."""
    from tests.secured.certificates import make_authority

    replaced = dict(env)
    password = tmp_path / "sasl-password"
    password.write_text("secret\n")
    if "WAVEMATCH_SASL_PASSWORD_FILE" in env:
        replaced["WAVEMATCH_SASL_PASSWORD_FILE"] = str(password)
    if "WAVEMATCH_SSL_CAFILE" in env:
        replaced["WAVEMATCH_SSL_CAFILE"] = str(make_authority(tmp_path / "tls").ca)
    return checks.settings_under(replaced, config)


def listeners(kafka_env: dict[str, str]) -> dict[str, tuple[str, int]]:
    """Listener name -> (security protocol, port), from the broker's environment."""
    protocols = dict(
        item.split(":") for item in kafka_env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(",")
    )
    found = {}
    for item in kafka_env["KAFKA_LISTENERS"].split(","):
        name, _, address = item.partition("://")
        found[name] = (protocols.get(name, "?"), int(address.rsplit(":", 1)[1]))
    return found


def secured_compose_problems(base: dict[str, Any], secured: dict[str, Any]) -> list[str]:
    """The overrides make every client SASL_SSL with the broker's own mechanism and port."""
    services = secured.get("services", {})
    problems = [f"service {name} missing" for name in (*CLIENTS, "kafka") if name not in services]
    if problems:
        return problems
    kafka_env = {**checks.service_env(base["services"]["kafka"])}
    kafka_env.update(checks.service_env(services["kafka"]))
    envs = {name: checks.service_env(services[name]) for name in CLIENTS}
    if envs["topics"] != envs["worker"]:
        problems.append("topics and worker connect differently")
    env = envs["worker"]
    by_name = listeners(kafka_env)
    port = int(env.get("WAVEMATCH_BROKER_URL", ":0").rsplit(":", 1)[1])
    protocol = env.get("WAVEMATCH_SECURITY_PROTOCOL")
    on_port = [name for name, (_, p) in by_name.items() if p == port]
    if not on_port or by_name[on_port[0]][0] != protocol:
        problems.append(f"WAVEMATCH_BROKER_URL: port {port} is not a {protocol} listener")
    published = {str(p).split(":")[-1] for p in base["services"]["kafka"].get("ports", [])}
    for name, (listener_protocol, listener_port) in by_name.items():
        if str(listener_port) in published and listener_protocol == "PLAINTEXT":
            problems.append(f"kafka: listener {name} is published to the host in PLAINTEXT")
    mechanism = env.get("WAVEMATCH_SASL_MECHANISM", "")
    if mechanism not in kafka_env.get("KAFKA_SASL_ENABLED_MECHANISMS", "").split(","):
        problems.append(f"WAVEMATCH_SASL_MECHANISM: {mechanism} is not enabled on the broker")
    for name, (listener_protocol, _) in by_name.items():
        jaas = f"KAFKA_LISTENER_NAME_{name}_{mechanism.replace('-', '___')}_SASL_JAAS_CONFIG"
        if listener_protocol.startswith("SASL_") and jaas not in kafka_env:
            problems.append(f"kafka: listener {name} has no JAAS config for {mechanism}")
    declared = set(secured.get("secrets", {}))
    password_file = env.get("WAVEMATCH_SASL_PASSWORD_FILE", "")
    secret = PurePosixPath(password_file).name
    if not password_file.startswith("/run/secrets/") or secret not in declared:
        problems.append("WAVEMATCH_SASL_PASSWORD_FILE: not a declared Docker secret")
    for name in CLIENTS:
        if secret not in services[name].get("secrets", []):
            problems.append(f"{name}: does not mount the secret {secret}")
    user = services.get("kafka-user", {})
    command = " ".join(user.get("entrypoint", []))
    if f"--entity-name {env.get('WAVEMATCH_SASL_USERNAME')} " not in command or (
        f"{mechanism}=[password=$$(cat /run/secrets/{secret})]" not in command
    ):
        problems.append("kafka-user: does not create the workers' SCRAM user from the secret")
    return problems


def overlay_problems(kustomization: dict[str, Any], patches: list[dict[str, Any]]) -> list[str]:
    """Both workloads mount the generated Secret where the settings read its two files."""
    problems = []
    if "../k8s" not in kustomization.get("resources", []):
        problems.append("kustomization: does not build on ../k8s")
    generated = {g["name"]: g for g in kustomization.get("secretGenerator", [])}
    keys = {name: {f.split("=", 1)[0] for f in g.get("files", [])} for name, g in generated.items()}
    env = next(
        (p.get("data", {}) for p in patches if p.get("kind") == "ConfigMap"),
        {},
    )
    base = checks.k8s_docs()
    for kind, container_name in (("Deployment", "worker"), ("Job", "topics")):
        patch = next((p for p in patches if p.get("kind") == kind), None)
        if patch is None:
            problems.append(f"{kind}: no patch mounts the credentials")
            continue
        if checks.container(checks.find(base, kind))["name"] != container_name:
            problems.append(f"{kind}: the base has no container {container_name}")
        spec = patch["spec"]["template"]["spec"]
        volumes = {v["name"]: v.get("secret", {}).get("secretName") for v in spec["volumes"]}
        [patched] = [c for c in spec["containers"] if c["name"] == container_name] or [{}]
        for setting in FILE_SETTINGS:
            path = PurePosixPath(env.get(setting, "/"))
            mounts = [
                m
                for m in patched.get("volumeMounts", [])
                if path.parent == PurePosixPath(m["mountPath"])
            ]
            secret = volumes.get(mounts[0]["name"]) if mounts else None
            if secret not in keys or path.name not in keys[secret]:
                problems.append(f"{kind}: {setting} {path} is not a key of a mounted Secret")
    return problems


def overlay_env() -> dict[str, str]:
    """wavematch-env as the overlay makes it: the base's, with the patch's keys."""
    base = checks.find(checks.k8s_docs(), "ConfigMap", "wavematch-env")["data"]
    patch = next(p for p in overlay_patches(overlay()) if p.get("kind") == "ConfigMap")
    return {**{k: str(v) for k, v in base.items()}, **{k: str(v) for k, v in patch["data"].items()}}
