import { describe, expect, it } from "vitest";
import { buildHttpRequest, defaultInputSchema, placeholders } from "../../../src/sources/http/build-request.js";
import type { OutboundRequest } from "../../../src/sources/http/send-request.js";

const req = (r: OutboundRequest | string): OutboundRequest => {
  if (typeof r === "string") throw new Error(r);
  return r;
};

describe("buildHttpRequest", () => {
  it("URL-encodes placeholders and removes them from the body", () => {
    const r = req(
      buildHttpRequest({ name: "t", method: "post", url: "http://h/users/{id}/notes/{tag}" }, { id: "a b/c", tag: 7, text: "hi" }),
    );
    expect(r.method).toBe("POST");
    expect(r.url.href).toBe("http://h/users/a%20b%2Fc/notes/7");
    expect(JSON.parse(r.body ?? "")).toEqual({ text: "hi" });
    expect(r.headers["content-type"]).toBe("application/json");
  });

  it("sends query names in the query string, arrays repeated", () => {
    const r = req(
      buildHttpRequest(
        { name: "t", method: "DELETE", url: "http://h/x?fixed=1", query: ["q", "tags", "absent"] },
        { q: "a&b", tags: ["x", "y"], keep: true },
      ),
    );
    expect(r.url.search).toBe("?fixed=1&q=a%26b&tags=x&tags=y");
    expect(JSON.parse(r.body ?? "")).toEqual({ keep: true });
  });

  it("puts leftover arguments of a GET in the query string, with no body", () => {
    const r = req(buildHttpRequest({ name: "t", method: "GET", url: "http://h/s" }, { page: 2, q: "é" }));
    expect(r.url.search).toBe("?page=2&q=%C3%A9");
    expect(r.body).toBeUndefined();
  });

  it("form and raw bodies, and a declared content-type is kept", () => {
    const f = req(buildHttpRequest({ name: "t", method: "POST", url: "http://h/f", body: "form" }, { a: "1 2", b: ["x", "y"] }));
    expect(f.body).toBe("a=1+2&b=x&b=y");
    expect(f.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const raw = req(
      buildHttpRequest(
        { name: "t", method: "PUT", url: "http://h/r", body: "raw", headers: { "Content-Type": "text/csv" } },
        { body: "a,b\n1,2" },
      ),
    );
    expect(raw.body).toBe("a,b\n1,2");
    expect(raw.headers).toEqual({ "Content-Type": "text/csv" });
  });

  it("reports a missing placeholder as a model-facing message", () => {
    expect(buildHttpRequest({ name: "t", method: "GET", url: "http://h/{a}/{b}" }, { a: 1 })).toBe("missing argument for the URL: b");
  });

  it("sends no body when nothing is left", () => {
    expect(req(buildHttpRequest({ name: "t", method: "POST", url: "http://h/{id}" }, { id: 1 })).body).toBeUndefined();
  });
});

describe("defaultInputSchema", () => {
  it("is built from placeholders (required) and query names", () => {
    expect(placeholders("http://h/{a}/{b}/{a}")).toEqual(["a", "b"]);
    expect(defaultInputSchema({ method: "GET", url: "http://h/{a}", query: ["q"] })).toEqual({
      type: "object",
      properties: {
        a: { type: "string", description: "Fills {a} in the URL." },
        q: { type: "string", description: "Sent in the query string." },
      },
      required: ["a"],
    });
    expect(defaultInputSchema({ method: "POST", url: "http://h/", body: "raw" })).toEqual({
      type: "object",
      properties: { body: { type: "string", description: "The request body, sent as is." } },
    });
  });
});
