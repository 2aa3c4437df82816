import { ToolnexusError, type FieldError } from "../errors.js";
import { INPUT_REPLY_KEY, type InputRequests, type InputResponses, type InputState } from "./requests.js";
import type { JSONSchema } from "../types.js";
import { ArgsValidator } from "../checks/validate-args.js";

const validator = new ArgsValidator();
const ACTIONS = new Set(["accept", "decline", "cancel"]);

/** One content block of a sampling answer: its `type` says which (text, image, audio, a tool use or result). */
const SAMPLING_CONTENT = { type: "object", required: ["type"], properties: { type: { type: "string" } } };

/** The shape of a CreateMessageResult (a sampling answer): who speaks, what it said, which model said it. */
const CREATE_MESSAGE_RESULT: JSONSchema = {
  type: "object",
  required: ["role", "content", "model"],
  properties: {
    role: { enum: ["user", "assistant"] },
    content: { oneOf: [SAMPLING_CONTENT, { type: "array", items: SAMPLING_CONTENT }] },
    model: { type: "string" },
    stopReason: { type: "string" },
  },
};

/** The shape of a ListRootsResult (a roots answer): each root a URI, with an optional name. */
const LIST_ROOTS_RESULT: JSONSchema = {
  type: "object",
  required: ["roots"],
  properties: {
    roots: {
      type: "array",
      items: { type: "object", required: ["uri"], properties: { uri: { type: "string" }, name: { type: "string" } } },
    },
  },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const RESULT_SHAPES: Record<string, JSONSchema | undefined> = {
  "sampling/createMessage": CREATE_MESSAGE_RESULT,
  "roots/list": LIST_ROOTS_RESULT,
};

/**
 * What is wrong with `responses` as answers to `requests` (only the keys both have), as field
 * errors under `/inputResponses/<key>`: an ElicitResult needs an action, and an accepted form
 * elicitation content that its `requestedSchema` accepts; a CreateMessageResult a role, a
 * content and a model; a ListRootsResult its roots. Empty when every answer fits its request,
 * so a bad answer is refused before it reaches the call.
 */
export function inputResponseErrors(requests: InputRequests, responses: InputResponses): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, response] of Object.entries(responses)) {
    const request = requests[key];
    if (!request) continue;
    const at = `/inputResponses/${escape(key)}`;
    if (!isObject(response)) {
      errors.push({ pointer: at, message: "must be an object" });
      continue;
    }
    // A 2025 /mcp client's verbatim reply: the upstream that asked checks it.
    if (Object.hasOwn(response, INPUT_REPLY_KEY)) continue;
    if (request.method === "elicitation/create") {
      if (typeof response.action !== "string" || !ACTIONS.has(response.action)) {
        errors.push({ pointer: `${at}/action`, message: "must be accept, decline or cancel" });
        continue;
      }
      const schema = (request.params as Record<string, unknown> | undefined)?.requestedSchema;
      if (response.action !== "accept" || !isObject(schema)) continue;
      if (!isObject(response.content)) {
        errors.push({ pointer: `${at}/content`, message: "must be an object that the requestedSchema accepts" });
        continue;
      }
      for (const e of validator.validate(schema as JSONSchema, response.content)) {
        errors.push({ pointer: `${at}/content${e.pointer}`, message: e.message });
      }
    } else {
      const shape = RESULT_SHAPES[request.method];
      if (!shape) continue;
      // One error per place: a content that is neither a block nor a list would say so three times.
      const byPointer = new Map(validator.validate(shape, response).map((e) => [e.pointer, e.message]));
      for (const [pointer, message] of byPointer) errors.push({ pointer: `${at}${pointer}`, message });
    }
  }
  return errors;
}

/**
 * INVALID_INPUT_RESPONSES (422) unless `responses` answers `requests`: no answer to a request
 * that was not made, every answer fitting its request (see {@link inputResponseErrors}) and,
 * unless `partial`, every request answered. Run before anything reaches the call or the
 * upstream, on every transport.
 */
export function checkInputResponses(requests: InputRequests, responses: InputResponses, partial = false): void {
  const asked = Object.keys(requests);
  const missing = partial ? [] : asked.filter((k) => !Object.hasOwn(responses, k));
  const stray = Object.keys(responses).filter((k) => !Object.hasOwn(requests, k));
  if (missing.length || stray.length) {
    throw new ToolnexusError("INVALID_INPUT_RESPONSES", `inputResponses must answer exactly the inputRequests (${asked.join(", ")})`, {
      errors: [
        ...missing.map((k) => ({ pointer: `/inputResponses/${escape(k)}`, message: "is missing" })),
        ...stray.map((k) => ({ pointer: `/inputResponses/${escape(k)}`, message: "answers no input request" })),
      ],
    });
  }
  const errors = inputResponseErrors(requests, responses);
  if (errors.length) throw new ToolnexusError("INVALID_INPUT_RESPONSES", "inputResponses do not answer what was requested", { errors });
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

// The `requestedSchema` of each form elicitation of `requests`, by request id (sealed with them); undefined when none has one.
function formsOf(requests: InputRequests): Record<string, unknown> | undefined {
  const forms = Object.entries(requests).flatMap(([key, r]) => {
    const schema = (r.params as { requestedSchema?: unknown } | undefined)?.requestedSchema;
    return r.method === "elicitation/create" && isObject(schema) ? [[key, schema] as const] : [];
  });
  return forms.length ? Object.fromEntries(forms) : undefined;
}

/** What a sealed state keeps of `requests` to check their answers: each one's method, each form's schema. */
export function askedOf(requests: InputRequests): { asked: Record<string, string>; forms?: Record<string, unknown> } {
  const forms = formsOf(requests);
  return { asked: Object.fromEntries(Object.entries(requests).map(([k, r]) => [k, r.method])), ...(forms ? { forms } : {}) };
}

/**
 * `responses`, once they answer exactly what a sealed state says was asked (`asked`, `forms`),
 * each fitting its request: INVALID_INPUT_RESPONSES otherwise, so nothing reaches the call or
 * the upstream. A state that does not say what was asked is not checked here.
 */
export function checkAgainstState(state: InputState, responses: InputResponses): InputResponses {
  if (!state.asked) return responses;
  const requests: InputRequests = {};
  for (const [key, method] of Object.entries(state.asked)) {
    const schema = state.forms?.[key];
    requests[key] = { method, ...(schema !== undefined ? { params: { requestedSchema: schema } } : {}) } as InputRequests[string];
  }
  checkInputResponses(requests, responses);
  return responses;
}
