import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchCases, searchCatalog } from "../../helpers/search-catalog.js";
import { startServer, type TestServer } from "../../helpers/server.js";

// GET /tools?q=: ranked search over the caller's own tools, on a fixed catalog of 300-odd
// real-looking tools and the natural-language queries written beside it.

const ADMIN = "admin-key-0123456789abcdef";
const GITHUB = "github-key-0123456789abcdef";
const admin = { authorization: `Bearer ${ADMIN}` };
const github = { authorization: `Bearer ${GITHUB}` };
let s: TestServer;

beforeAll(async () => {
  s = await startServer({
    tools: searchCatalog(),
    config: {
      bundles: { k8s: { tools: ["k8s_*"] } },
      auth: {
        apiKeys: [
          { id: "admin", key: ADMIN, operator: true },
          { id: "github", key: GITHUB, tools: ["github_*"] },
        ],
      },
    },
  });
});
afterAll(async () => {
  await s?.close();
});

async function search(query: string, headers: Record<string, string> = admin): Promise<string[]> {
  const res = await fetch(`${s.url}/tools?${query}`, { headers });
  expect(res.status, query).toBe(200);
  return ((await res.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
}

const q = (text: string, more = "") => `q=${encodeURIComponent(text)}${more}`;

describe("GET /tools?q=", () => {
  it("finds the expected tool in the top 5 for at least nine queries in ten", async () => {
    const { queries } = searchCases();
    expect(queries.length).toBeGreaterThanOrEqual(30);
    const misses: string[] = [];
    for (const c of queries) {
      const top = await search(q(c.q, "&limit=5"));
      expect(top.length).toBeLessThanOrEqual(5);
      if (!top.includes(c.expect)) misses.push(`${c.q} → ${top.join(", ")} (expected ${c.expect})`);
    }
    expect(misses.length, misses.join("\n")).toBeLessThanOrEqual(Math.floor(queries.length / 10));
  });

  it("tolerates typos", async () => {
    for (const c of searchCases().typos) expect((await search(q(c.q, "&limit=5"))).slice(0, 5), c.q).toContain(c.expect);
  });

  it("ranks the best match first, and a prefix matches", async () => {
    expect((await search(q("merge the PR with squash")))[0]).toBe("github_merge_pull_request");
    expect(await search(q("kubern", "&limit=3"))).toEqual(expect.arrayContaining([expect.stringMatching(/^k8s_/)]));
  });

  it("finds a tool by a parameter name that is in no tool's name or description", async () => {
    expect((await search(q("granularity")))[0]).toBe("aws_cost_explorer_get_cost");
    expect((await search(q("urgency")))[0]).toBe("pagerduty_create_incident");
  });

  it("never answers a tool outside the caller's policy or bundle", async () => {
    // The admin finds Jira's and GitLab's issue tools; the GitHub-only key finds GitHub's alone.
    expect(await search(q("create an issue"))).toEqual(expect.arrayContaining(["jira_create_issue", "gitlab_create_issue"]));
    for (const c of searchCases().queries) {
      for (const name of await search(q(c.q, "&limit=100"), github)) expect(name, c.q).toMatch(/^github_/);
    }
    for (const name of await search(q("show the logs", "&bundle=k8s&limit=100"))) expect(name).toMatch(/^k8s_/);
    // A bundle narrows the caller's own tools: the GitHub-only key sees none of k8s.
    expect(await search(q("show the logs", "&bundle=k8s"), github)).toEqual([]);
  });

  it("bounds the results with ?limit= (default 20) and combines with ?format= and ?source=", async () => {
    expect((await search(q("list"))).length).toBe(20);
    expect((await search(q("list", "&limit=3"))).length).toBe(3);
    const res = await fetch(`${s.url}/tools?${q("refund a payment", "&format=openai&limit=1")}`, { headers: admin });
    expect(await res.json()).toEqual({
      tools: [{ type: "function", function: expect.objectContaining({ name: "stripe_create_refund" }) }],
    });
    expect(await search(q("refund a payment", "&source=mcp"))).toEqual([]);
    expect(await search(q("refund a payment", "&source=native&limit=1"))).toEqual(["stripe_create_refund"]);
  });

  it("searches regex and query-syntax characters as text", async () => {
    expect(await search(q("(.*)[a-z]+\\ ^$ | AND OR NOT * ~2 field:value"))).toEqual(expect.any(Array));
    expect(await search(q("***"))).toEqual([]);
    expect((await search(q("pod_logs!!")))[0]).toBe("k8s_get_pod_logs");
  });

  it("answers one clear 400 for an empty or overlong query and a bad ?limit=", async () => {
    const bad = async (query: string) => {
      const res = await fetch(`${s.url}/tools?${query}`, { headers: admin });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code, query).toBe("INVALID_REQUEST");
      return body.detail;
    };
    expect(await bad("q=")).toContain("?q= is empty");
    expect(await bad("q=%20%20")).toContain("?q= is empty");
    expect(await bad(q("x".repeat(10_000)))).toBe("?q= is 10000 characters long: at most 500.");
    expect(await bad(q("pods", "&limit=0"))).toContain("is not a number from 1 to 100");
    expect(await bad(q("pods", "&limit=1000"))).toContain("is not a number from 1 to 100");
    expect(await bad(q("pods", "&limit=abc"))).toContain("is not a number from 1 to 100");
    expect(await bad("limit=5")).toContain("?limit= bounds a search: give ?q= too");
    expect(await bad("q=a&q=b")).toContain("more than once");
  });
});
