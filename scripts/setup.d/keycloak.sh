#!/usr/bin/env bash
# What test/keycloak-setup.ts needs to download and run Keycloak for the OAuth tests (test/oauth/):
# Maven (it fetches org.keycloak:keycloak-quarkus-dist into ~/.cache/toolnexus/keycloak once),
# unzip, and a Java 21 or later (this kind of machine ships a Temurin 25 JDK under /usr/lib/jvm).
set -euo pipefail
if ! command -v mvn >/dev/null 2>&1; then
  apt-get install -y maven || { apt-get update && apt-get install -y maven; }
fi
command -v unzip >/dev/null 2>&1 || { apt-get install -y unzip || { apt-get update && apt-get install -y unzip; }; }
for d in "${TOOLNEXUS_KEYCLOAK_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
  [ -n "$d" ] && [ -f "$d/release" ] || continue
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$d/release")
  [ "${major:-0}" -ge 21 ] && exit 0
done
echo "keycloak: no Java 21 or later found (set TOOLNEXUS_KEYCLOAK_JAVA_HOME)" >&2
exit 1
