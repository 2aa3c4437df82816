import type { Static } from "@sinclair/typebox";
import { Type } from "../http/typebox-lite.js";
import { StringEnum } from "../http/schemas/common.js";
import { Execution } from "../executions/schemas.js";

/**
 * Wire shapes of the operator console's own routes (console/api-routes.ts,
 * console/session-routes.ts), one TypeBox schema each; components of openapi/openapi.json.
 */

/** `POST /admin/session`: the credential an operator signs in with, once. */
export const SignIn = Type.Object(
  {
    credential: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: "An operator API key, or a bearer token (JWT) whose policies grant `operator`.",
    }),
  },
  { additionalProperties: false },
);

/** The answer to a sign-in: who signed in and until when (the session itself is the HttpOnly cookie). */
export const SessionInfo = Type.Object(
  {
    caller: Type.String({ description: "The caller id the session stands for." }),
    expiresAt: Type.String({ format: "date-time" }),
  },
  { $id: "ConsoleSession" },
);

/** Calls and failed calls of one tool since the start. */
const ToolCalls = Type.Object({
  tool: Type.String(),
  calls: Type.Integer(),
  errors: Type.Integer({ description: "Calls whose outcome was not `ok` (tool errors, rejections, timeouts…)." }),
});

/** `GET /admin/metrics`: calls and errors per tool, busiest first. */
export const ToolMetrics = Type.Object({ tools: Type.Array(ToolCalls) }, { $id: "ConsoleToolMetrics" });

/** One execution (or MCP task) as an operator sees it: with its owner. */
const OwnedExecution = Type.Object({
  owner: Type.String({ description: "The caller that owns it (`apiKey:<id>`, `jwt:<sub>`, or `anonymous`)." }),
  execution: Type.Ref(Execution),
});

/** `GET /admin/executions`: every owner's executions, newest first. */
export const OwnedExecutionList = Type.Object(
  {
    executions: Type.Array(OwnedExecution),
    next: Type.Optional(Type.String({ description: "Cursor of the next page; absent on the last one." })),
  },
  { $id: "ConsoleExecutionList" },
);

/** Query of `GET /admin/executions`. */
export const OwnedExecutionQuery = Type.Object(
  {
    state: Type.Optional(StringEnum(["active", "all"], { description: "`active` (the default): not finished yet." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, format: "int32" })),
    cursor: Type.Optional(Type.String({ pattern: "^[0-9]{1,16}$", maxLength: 16, description: "The `next` of the previous page." })),
  },
  { additionalProperties: false },
);

/** One audit line of the tail, as the audit sink wrote it (secrets already scrubbed). */
const AuditEntry = Type.Object({
  seq: Type.Integer({ description: "Increases by one per line since the start; the SSE `id`." }),
  line: Type.Record(Type.String(), Type.Unknown()),
});

/** `GET /admin/audit`: the most recent audit lines, oldest first. */
export const AuditTail = Type.Object(
  {
    enabled: Type.Boolean({ description: "False when no `audit:` is configured: there is nothing to tail." }),
    lines: Type.Array(AuditEntry),
  },
  { $id: "ConsoleAuditTail" },
);

/** One line of the audit tail. */
export type AuditEntryT = Static<typeof AuditEntry>;

/** The console's schemas, added to the server (components of the OpenAPI document). */
export const CONSOLE_SCHEMAS = [SessionInfo, ToolMetrics, OwnedExecutionList, AuditTail];
