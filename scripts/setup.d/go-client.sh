#!/usr/bin/env bash
# oapi-codegen, the Go client generator of scripts/tests.d/go-client.sh, at the version that
# clients/go/go.mod pins for its runtime. Idempotent: skipped when that version is installed.
set -euo pipefail
VERSION=v2.8.2
command -v go >/dev/null 2>&1 || { apt-get install -y golang-go || { apt-get update && apt-get install -y golang-go; }; }
BIN="$(go env GOPATH)/bin/oapi-codegen"
if [ -x "$BIN" ] && "$BIN" -version 2>/dev/null | grep -q "$VERSION"; then exit 0; fi
go install "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$VERSION"
