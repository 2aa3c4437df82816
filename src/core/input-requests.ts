/**
 * Input requests as MCP 2026-07-28 carries them (an `input_required` result): the server's
 * questions to the client, keyed by a server-chosen id. A request is the bare
 * `{ method, params }` of the demoted client request; a response is the bare result
 * (an ElicitResult, a CreateMessageResult, a ListRootsResult), keyed by the same id.
 */
export type InputRequest =
  | { method: "elicitation/create"; params: Record<string, unknown> }
  | { method: "sampling/createMessage"; params: Record<string, unknown> }
  | { method: "roots/list"; params?: Record<string, unknown> };

/** The `inputRequests` map of an `input_required` result. */
export type InputRequests = Record<string, InputRequest>;

/** The `inputResponses` map of the retry: each value is the bare result answering one request. */
export type InputResponses = Record<string, Record<string, unknown>>;
