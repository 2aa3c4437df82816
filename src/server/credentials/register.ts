import type { FastifyInstance } from "fastify";
import type { Cluster, Redis } from "ioredis";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { ServiceState } from "../service/service-state.js";
import { oauthRoutes } from "./oauth-routes.js";
import { RedisVaultStore } from "./redis-vault-store.js";
import { credentialRoutes } from "./routes.js";
import { UserCredentials } from "./user-credentials.js";
import { Vault } from "./vault.js";
import { VaultCipher } from "./vault-cipher.js";
import { FileVaultStore, MemoryVaultStore, type VaultStore } from "./vault-store.js";

/**
 * Each caller's own upstream credentials (docs/user-credentials.md): the vault (Redis when
 * shared, else `vault.file`, else memory), the resolver the call pipeline asks, `/me/credentials`
 * and the login routes.
 */
export async function registerCredentials(
  app: FastifyInstance,
  { state, pipeline, redis }: { state: ServiceState; pipeline: CallPipeline; redis?: Redis | Cluster | undefined },
): Promise<void> {
  const { config } = state.loaded;
  const store: VaultStore = redis
    ? new RedisVaultStore(redis, config.redis?.namespace)
    : config.vault?.file
      ? new FileVaultStore(config.vault.file)
      : new MemoryVaultStore();
  const vault = new Vault(store, new VaultCipher(config.server.stateSecret));
  const users = new UserCredentials(
    vault,
    () => state.sealer,
    () => state.loaded.config.server.publicUrl,
  );
  pipeline.upstream.user = users;
  await app.register(credentialRoutes, { state, vault, users });
  await app.register(oauthRoutes, { state, vault, users });
}
