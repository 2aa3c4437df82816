/** Who may call: API keys, JWT callers and their policies, and the request hook. */
export { Authenticator } from "./authenticator.js";
export { ANONYMOUS, ownerKey, type Caller } from "./caller.js";
export { authenticateRequest, type SessionCredential } from "./hook.js";
export { insufficientScope } from "./protected-resource.js";
export { registerProtectedResource } from "./prm-routes.js";
