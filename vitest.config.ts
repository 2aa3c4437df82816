import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: forks keep child-process and signal tests isolated from each other. Most files
    // wait on child processes and sockets, so two run at once (vitest's default is cores - 1).
    pool: "forks",
    maxWorkers: 2,
    // keycloak-setup starts Keycloak only when a file under test/oauth/ is in the run.
    globalSetup: ["test/global-setup.ts", "test/redis-setup.ts", "test/keycloak-setup.ts"],
  },
});
