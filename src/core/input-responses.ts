import type { FieldError } from "./errors.js";
import { INPUT_REPLY_KEY, type InputRequests, type InputResponses } from "./input-requests.js";
import type { JSONSchema } from "./types.js";
import { ArgsValidator } from "./validate-args.js";

const validator = new ArgsValidator();
const ACTIONS = new Set(["accept", "decline", "cancel"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

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
    const at = `/inputResponses/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
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
    } else if (request.method === "sampling/createMessage") {
      if (typeof response.role !== "string") errors.push({ pointer: `${at}/role`, message: "must be a string" });
      if (typeof response.model !== "string") errors.push({ pointer: `${at}/model`, message: "must be a string" });
      if (typeof response.content !== "object" || response.content === null)
        errors.push({ pointer: `${at}/content`, message: "is required" });
    } else if (!Array.isArray(response.roots)) {
      errors.push({ pointer: `${at}/roots`, message: "must be an array" });
    }
  }
  return errors;
}
