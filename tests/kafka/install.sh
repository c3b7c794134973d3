#!/usr/bin/env bash
# Resolve Apache Kafka's jars from Maven Central into a cache outside the repository
# (tests/kafka/broker.py reads the same directory). Idempotent: a complete cache is kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
jars="${WAVEMATCH_KAFKA_JARS:-${XDG_CACHE_HOME:-$HOME/.cache}/wavematch/kafka-$version/jars}"
if [ -f "$jars/.complete" ]; then
    exit 0
fi
for tool in java mvn; do
    command -v "$tool" >/dev/null 2>&1 || { echo "tests/kafka/install.sh: $tool is not installed" >&2; exit 1; }
done
rm -rf "$jars"
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$jars"
touch "$jars/.complete"
echo "Apache Kafka $version jars in $jars"
