import { describe, expect, it } from "vitest";
import type { InputRequests } from "../../src/core/input-requests.js";
import { inputResponseErrors } from "../../src/core/input-responses.js";

const requests: InputRequests = {
  name: {
    method: "elicitation/create",
    params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  },
  login: { method: "elicitation/create", params: { mode: "url", message: "Log in", url: "https://example.test/login" } },
  sample: { method: "sampling/createMessage", params: { messages: [] } },
  roots: { method: "roots/list" },
};

describe("inputResponseErrors", () => {
  it("accepts results that fit their requests, and ignores keys nobody asked", () => {
    expect(
      inputResponseErrors(requests, {
        name: { action: "accept", content: { name: "Ada" } },
        login: { action: "accept" },
        sample: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" },
        roots: { roots: [] },
        stray: { anything: true },
      }),
    ).toEqual([]);
    // Declining needs no content.
    expect(inputResponseErrors(requests, { name: { action: "decline" } })).toEqual([]);
  });

  it("points at what does not fit: the action, the content against requestedSchema, a sampling or roots result's fields", () => {
    expect(
      inputResponseErrors(requests, {
        name: { action: "accept", content: { name: 7 } },
        login: { action: "sure" },
        sample: { role: "assistant" },
        roots: { roots: "all" },
      }),
    ).toEqual([
      { pointer: "/inputResponses/name/content/name", message: "must be string" },
      { pointer: "/inputResponses/login/action", message: "must be accept, decline or cancel" },
      { pointer: "/inputResponses/sample/model", message: "must be a string" },
      { pointer: "/inputResponses/sample/content", message: "is required" },
      { pointer: "/inputResponses/roots/roots", message: "must be an array" },
    ]);
    expect(inputResponseErrors(requests, { name: { action: "accept" } })).toEqual([
      { pointer: "/inputResponses/name/content", message: "must be an object that the requestedSchema accepts" },
    ]);
  });
});
