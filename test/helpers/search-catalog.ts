import { readFileSync } from "node:fs";
import path from "node:path";
import type { Tool } from "../../src/core/types.js";

const dir = path.resolve(import.meta.dirname, "../fixtures/search");

/** One query of the search-quality fixture and the tool it should find. */
export interface SearchCase {
  q: string;
  expect: string;
}

/**
 * The search-quality catalog (test/fixtures/search/catalog.json): 300-odd tools modelled on
 * public MCP servers' tool lists (GitHub, filesystem, Slack, Jira, Postgres, Kubernetes, …),
 * served in process. Each answers with its own name.
 */
export function searchCatalog(): Tool[] {
  const { tools } = JSON.parse(readFileSync(path.join(dir, "catalog.json"), "utf8")) as { tools: Omit<Tool, "source" | "execute">[] };
  return tools.map((t) => ({ ...t, source: "native", execute: () => Promise.resolve({ output: `ran ${t.name}`, isError: false }) }));
}

/** The natural-language queries written beside the catalog, and those with a typo. */
export function searchCases(): { queries: SearchCase[]; typos: SearchCase[] } {
  return JSON.parse(readFileSync(path.join(dir, "queries.json"), "utf8")) as { queries: SearchCase[]; typos: SearchCase[] };
}
