import { describe, expect, it } from "vitest";
import { pendingOf } from "../../src/core/input/pending.js";
import { createSealer } from "../../src/core/seal.js";
import {
  asInputRequests,
  inputRequestsOf,
  inputRequired,
  inputResponsesOf,
  openInputState,
  sealInputState,
  type InputRequests,
} from "../../src/core/input/requests.js";

const SECRET = "a-test-secret-of-enough-length-0123456789";
const requests: InputRequests = {
  user_name: { method: "elicitation/create", params: { message: "Your name?", requestedSchema: { type: "object" } } },
  roots: { method: "roots/list" },
};

describe("input requests", () => {
  it("builds the REST pending: kind of the first request, prompt from the messages, data.inputRequests, expiresAt", () => {
    const p = pendingOf(inputRequired("sealed-id", requests, Date.UTC(2026, 0, 1)));
    expect(p).toEqual({
      id: "sealed-id",
      kind: "elicitation",
      prompt: "Your name?\nThe client's roots are requested",
      data: { inputRequests: requests },
      expiresAt: "2026-01-01T00:00:00.000Z",
    });
    expect(p && inputRequestsOf(p)).toEqual(requests);
  });

  it("accepts only non-empty maps of elicitation, sampling and roots requests", () => {
    expect(asInputRequests({})).toBeUndefined();
    expect(asInputRequests([])).toBeUndefined();
    expect(asInputRequests({ a: { method: "tools/call" } })).toBeUndefined();
    expect(asInputRequests({ a: { method: "sampling/createMessage", params: {} } })).toBeDefined();
  });

  it("reads answer.data.inputResponses; a declined answer gives none; a malformed one is INVALID_REQUEST", () => {
    const inputResponses = { user_name: { action: "accept", content: { name: "Ada" } } };
    expect(inputResponsesOf({ id: "x", ok: true, data: { inputResponses } })).toEqual(inputResponses);
    expect(inputResponsesOf({ id: "x", ok: false })).toEqual({});
    expect(() => inputResponsesOf({ id: "x", ok: true })).toThrow(expect.objectContaining({ code: "INVALID_REQUEST" }));
    expect(() => inputResponsesOf({ id: "x", ok: true, data: { inputResponses: { a: 1 } } })).toThrow(
      expect.objectContaining({ code: "INVALID_REQUEST" }),
    );
  });

  it("opens a sealed state only for its tool and caller, and times out after expiresAt", () => {
    const sealer = createSealer(SECRET);
    const now = 1_000_000;
    const token = sealInputState(sealer, { tool: "t", caller: "alice", requestState: "s", round: 1, expiresAt: now + 1000 }, now);
    expect(openInputState(sealer, token, "t", "alice", now + 10)).toMatchObject({ requestState: "s", round: 1 });
    expect(() => openInputState(sealer, token, "other", "alice", now)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    expect(() => openInputState(sealer, token, "t", "bob", now)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    expect(() => openInputState(sealer, token, "t", "alice", now + 1001)).toThrow(expect.objectContaining({ code: "INPUT_TIMEOUT" }));
    expect(() => openInputState(createSealer(`${SECRET}-x`), token, "t", "alice", now)).toThrow(
      expect.objectContaining({ code: "INVALID_STATE" }),
    );
  });
});
