#!/usr/bin/env bash
# Resolve Apicurio Registry (the server) and Apicurio's Avro serde (the JVM reader) from
# Maven Central into a cache outside the repository (tests/registry/apicurio.py reads the
# same directory). Idempotent: a complete cache is kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's:.*<registry.version>\(.*\)</registry.version>.*:\1:p' "$here/pom.xml")"
cache="${WAVEMATCH_REGISTRY_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wavematch/apicurio-$version}"
if [ -f "$cache/.complete" ]; then
    exit 0
fi
for tool in java javac mvn; do
    command -v "$tool" >/dev/null 2>&1 || { echo "tests/registry/install.sh: $tool is not installed" >&2; exit 1; }
done
rm -rf "$cache"
mvn -q -B -f "$here/pom.xml" dependency:unpack -Dregistry.dir="$cache/app" \
    -Dproject.build.directory="$cache/build"
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$cache/serde"
rm -rf "$cache/build" "$here/target"
runner="$(find "$cache/app" -name "apicurio-registry-app-$version-runner.jar" | head -1)"
[ -n "$runner" ] || { echo "tests/registry/install.sh: no runner jar in $cache/app" >&2; exit 1; }
touch "$cache/.complete"
echo "Apicurio Registry $version in $cache"
