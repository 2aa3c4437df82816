/** Who may call: API keys, JWT callers and their policies, and the request hook (DESIGN §4, §12). */
export { ApiKeyAuth } from "./api-keys.js";
export { Authenticator } from "./authenticator.js";
export { ANONYMOUS, ownerKey, type Caller, type CallerKind } from "./caller.js";
export { authenticateRequest } from "./hook.js";
export { Policies, claimsOf, type Claims } from "./policies.js";
