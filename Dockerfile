# syntax=docker/dockerfile:1
# toolnexus image: build with the full toolchain, ship only production dependencies.
# test/packaging/docker-install.test.ts replays the final stage's install without Docker
# and checks that its COPY lines name the same paths, so keep the COPY lines plain.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle.mjs ./scripts/
RUN npm run build

FROM ${NODE_IMAGE}
# tini is PID 1: it forwards SIGTERM to node (which drains) and reaps the stdio MCP
# servers and tool processes that would otherwise linger as zombies. No -g: signalling
# the whole group would kill MCP children before toolnexus has drained its calls.
# bubblewrap is the sandbox of the bash built-in (builtins.sandbox: auto uses it when the
# container allows user namespaces; docs/builtins.md says how).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini bubblewrap \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY openapi ./openapi
COPY examples ./examples

# The root filesystem may be read-only: everything that writes (npx caches for stdio MCP
# servers, HOME dotfiles) goes to /tmp, which must be a writable volume (tmpfs / emptyDir).
ENV HOME=/tmp \
    XDG_CACHE_HOME=/tmp/.cache \
    NPM_CONFIG_CACHE=/tmp/.npm \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    TOOLNEXUS_CONFIG=/etc/toolnexus \
    TOOLNEXUS_HOST=0.0.0.0 \
    TOOLNEXUS_PORT=8080

# The node image's "node" user, numerically so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080
VOLUME ["/tmp"]

# Slim images have no curl: Node's own fetch probes the liveness route (open even with auth).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TOOLNEXUS_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/bundle/cli.js"]
CMD ["serve"]
