import { describe, expect, it } from "vitest";
import type { InputRequests } from "../../src/core/input/requests.js";
import type { ToolnexusError } from "../../src/core/errors.js";
import { checkInputResponses, inputResponseErrors } from "../../src/core/input/responses.js";

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
      { pointer: "/inputResponses/sample/content", message: "is required" },
      { pointer: "/inputResponses/sample/model", message: "is required" },
      { pointer: "/inputResponses/roots/roots", message: "must be array" },
    ]);
    expect(inputResponseErrors(requests, { name: { action: "accept" } })).toEqual([
      { pointer: "/inputResponses/name/content", message: "must be an object that the requestedSchema accepts" },
    ]);
  });

  it("holds a sampling answer to a CreateMessageResult's shape and a roots answer to a ListRootsResult's", () => {
    const errors = inputResponseErrors(requests, {
      sample: { role: "system", content: [{ type: "text", text: "a" }, { text: "no type" }], model: 3 },
      roots: { roots: [{ uri: "file:///a" }, { name: "no uri" }] },
    });
    expect(errors.map((e) => e.pointer)).toEqual(
      expect.arrayContaining([
        "/inputResponses/sample/role",
        "/inputResponses/sample/model",
        "/inputResponses/sample/content",
        "/inputResponses/roots/roots/1/uri",
      ]),
    );
    // Content as one block or as several blocks: both are a CreateMessageResult.
    expect(
      inputResponseErrors(requests, {
        sample: { role: "assistant", content: [{ type: "text", text: "a" }], model: "m", stopReason: "endTurn" },
      }),
    ).toEqual([]);
  });
});

describe("checkInputResponses", () => {
  it("refuses with 422 INVALID_INPUT_RESPONSES an answer to a request never made, a missing answer, and one that does not fit", () => {
    const one: InputRequests = { name: requests.name! };
    const fail = (responses: Record<string, unknown>, partial = false) => {
      try {
        checkInputResponses(one, responses as never, partial);
        return undefined;
      } catch (err) {
        return err as ToolnexusError;
      }
    };
    expect(fail({ name: { action: "accept", content: { name: "Ada" } } })).toBeUndefined();
    expect(fail({ name: { action: "cancel" } })).toBeUndefined();
    expect(fail({}, true)).toBeUndefined();
    expect(fail({ name: { action: "decline" }, never: { action: "accept" } })).toMatchObject({
      code: "INVALID_INPUT_RESPONSES",
      status: 422,
      errors: [{ pointer: "/inputResponses/never", message: "answers no input request" }],
    });
    expect(fail({})).toMatchObject({
      code: "INVALID_INPUT_RESPONSES",
      errors: [{ pointer: "/inputResponses/name", message: "is missing" }],
    });
    expect(fail({ name: { action: "accept", content: {} } })).toMatchObject({
      code: "INVALID_INPUT_RESPONSES",
      errors: [{ pointer: "/inputResponses/name/content/name", message: "is required" }],
    });
  });
});
