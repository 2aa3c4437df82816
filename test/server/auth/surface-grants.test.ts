import { describe, expect, it } from "vitest";
import { ApiKeyAuth } from "../../../src/server/auth/api-keys.js";
import { Policies } from "../../../src/server/auth/policies.js";

const claims = (groups: string[]) => ({ sub: "u", groups: new Set(groups), scopes: new Set<string>() });
const bundles = { docs: { tools: ["docs_*"], resources: ["docs+file:///public/*"] }, plain: { tools: ["x_*"] } };

describe("surface grants of keys and policies", () => {
  it("a key without globs, nor a bundle with some, has none: the default applies", () => {
    const keys = new ApiKeyAuth([{ id: "k", key: "k-0123456789abcdef", tools: ["a_*"], bundles: ["plain"] }], bundles);
    expect(keys.callerById("k")?.surfaceGrants).toBeUndefined();
  });

  it("a key's own globs, and each granted bundle's, are grants of their own", () => {
    const keys = new ApiKeyAuth([{ id: "k", key: "k-0123456789abcdef", tools: ["a_*"], prompts: ["a_p*"], bundles: ["docs"] }], bundles);
    const [own, docs] = keys.callerById("k")?.surfaceGrants ?? [];
    expect(own?.tools("a_x")).toBe(true);
    expect(own?.resources).toBeUndefined();
    expect(own?.prompts?.("a_prompt")).toBe(true);
    expect(own?.prompts?.("b_prompt")).toBe(false);
    expect(docs?.tools("docs_search")).toBe(true);
    expect(docs?.resources?.("docs+file:///public/a/b.md")).toBe(true);
    expect(docs?.resources?.("docs+file:///private/b.md")).toBe(false);
  });

  it("a JWT caller has one grant per matching policy once any of them sets globs", () => {
    const policies = new Policies(
      [
        { id: "eng", groups: ["eng"], tools: ["gh_*"] },
        { id: "readers", groups: ["readers"], tools: [], resources: ["docs+*"] },
      ],
      bundles,
    );
    expect(policies.callerFor(claims(["eng"]), "t").surfaceGrants).toBeUndefined();
    const both = policies.callerFor(claims(["eng", "readers"]), "t").surfaceGrants ?? [];
    expect(both).toHaveLength(2);
    expect(both[0]?.tools("gh_issue")).toBe(true);
    expect(both[0]?.resources).toBeUndefined();
    expect(both[1]?.resources?.("docs+file:///a")).toBe(true);
  });
});
