#!/usr/bin/env node
// An example MCP server over stdio (2026-07-28, v2 SDK) serving the tasks extension
// (`io.modelcontextprotocol/tasks`) by hand, as the SDK has no server side for it: its tools
// run only as tasks, followed with tasks/get, answered with tasks/update and stopped with
// tasks/cancel. Served as `jobs_*` by examples/mcp-stdio/toolnexus.yaml (docs/input-and-tasks.md,
// "Upstream tasks"): `report` reports progress, `confirm` asks its caller, `quick` answers at once, `greet`
// asks first with an input_required result.
import { ProtocolError, Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const TASKS = "io.modelcontextprotocol/tasks";

// What happened to a task upstream (`cancelled <label>`, `answered <label>`): on stderr, which
// the gateway logs at debug, so a cancel that reached this server shows there.
function record(event) {
  process.stderr.write(`${event}\n`);
}

// One store per process: over stateless HTTP each request gets a fresh Server.
const tasks = new Map();
let nextId = 0;

const object = (properties, required = []) => ({ type: "object", properties, required });
const TOOLS = [
  {
    name: "report",
    description: "Runs only as a task: `steps` status messages `everyMs` apart, then a text result",
    inputSchema: object({ label: { type: "string" }, steps: { type: "integer" }, everyMs: { type: "integer" } }, ["label"]),
  },
  {
    name: "confirm",
    description: "Runs only as a task: asks the client to confirm (input_required) before it completes",
    inputSchema: object({ label: { type: "string" } }, ["label"]),
  },
  {
    name: "quick",
    description: "Answered at once, never a task",
    inputSchema: object({ label: { type: "string" } }, ["label"]),
  },
  {
    name: "greet",
    description: "Asks your name (an input_required result, never a task), then greets you",
    inputSchema: object({}),
  },
  {
    name: "broken",
    description: "Runs only as a task, which fails",
    inputSchema: object({}),
  },
];

const text = (t) => ({ resultType: "complete", content: [{ type: "text", text: t }] });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function view(t) {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = t;
  return { taskId, status, ...(statusMessage ? { statusMessage } : {}), createdAt, lastUpdatedAt, ttlMs: 60_000, pollIntervalMs: 30 };
}

function set(t, patch) {
  Object.assign(t, patch, { lastUpdatedAt: new Date().toISOString() });
}

function start(name, args) {
  const now = new Date().toISOString();
  const t = { taskId: `task-${++nextId}`, label: args.label ?? name, status: "working", createdAt: now, lastUpdatedAt: now };
  tasks.set(t.taskId, t);
  if (name === "report") {
    const steps = args.steps ?? 2;
    void (async () => {
      for (let i = 1; i <= steps; i++) {
        await sleep(args.everyMs ?? 40);
        if (t.status !== "working") return;
        if (i < steps) set(t, { statusMessage: `${t.label}: step ${i} of ${steps}` });
      }
      set(t, { status: "completed", statusMessage: undefined, result: text(`${t.label} done after ${steps} steps`) });
    })();
  } else if (name === "confirm") {
    set(t, {
      status: "input_required",
      inputRequests: {
        ok: {
          method: "elicitation/create",
          params: { mode: "form", message: `Go ahead with ${t.label}?`, requestedSchema: object({ go: { type: "boolean" } }, ["go"]) },
        },
      },
    });
  } else {
    set(t, { status: "failed", error: { code: -32603, message: "the job broke" } });
  }
  return t;
}

function detailed(t) {
  const v = view(t);
  if (t.status === "completed") return { ...v, result: t.result };
  if (t.status === "failed") return { ...v, error: t.error };
  if (t.status === "input_required") return { ...v, inputRequests: t.inputRequests };
  return v;
}

const taskParams = {
  "~standard": {
    version: 1,
    vendor: "fixture",
    validate: (value) =>
      typeof value?.taskId === "string" ? { value } : { issues: [{ message: "params.taskId must be a string" }] },
  },
};

const NAME_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };

// A plain call that needs its caller's answer first: an input_required result (no task), and
// the retry with the caller's inputResponses gets the greeting.
function greet(inputResponses) {
  const answer = inputResponses?.user_name;
  if (answer?.action === "accept" && typeof answer.content?.name === "string") return text(`Hello, ${answer.content.name}!`);
  if (answer) return text("Hello, whoever you are.");
  return {
    resultType: "input_required",
    inputRequests: { user_name: { method: "elicitation/create", params: { mode: "form", message: "What is your name?", requestedSchema: NAME_SCHEMA } } },
    requestState: "greet",
  };
}

function find(taskId) {
  const t = tasks.get(taskId);
  if (!t) throw new ProtocolError(-32602, `no task ${taskId}`);
  return t;
}

/** A fresh server of the tasks extension for one request (HTTP) or connection (stdio). */
function v2TaskServer(name = "v2-tasks") {
  const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: {}, extensions: { [TASKS]: {} } } });
  server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
  server.setRequestHandler("tools/call", async (req, ctx) => {
    if (req.params.name === "quick") return text(`${req.params.arguments?.label} at once`);
    if (req.params.name === "greet") return greet(ctx.mcpReq.inputResponses);
    const caps = ctx.mcpReq.envelope?.["io.modelcontextprotocol/clientCapabilities"];
    if (!caps?.extensions?.[TASKS]) throw new ProtocolError(-32021, "declare the tasks extension", { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    if (!TOOLS.some((t) => t.name === req.params.name)) throw new ProtocolError(-32602, `unknown tool ${req.params.name}`);
    return { resultType: "task", ...view(start(req.params.name, req.params.arguments ?? {})) };
  });
  server.setRequestHandler("tasks/get", { params: taskParams }, async (params) => detailed(find(params.taskId)));
  server.setRequestHandler("tasks/cancel", { params: taskParams }, async (params) => {
    const t = find(params.taskId);
    if (t.status === "working" || t.status === "input_required") {
      set(t, { status: "cancelled" });
      record(`cancelled ${t.label}`);
    }
    return {};
  });
  server.setRequestHandler("tasks/update", { params: taskParams }, async (params, ctx) => {
    const t = find(params.taskId);
    const answer = ctx.mcpReq.inputResponses?.ok;
    if (t.status !== "input_required" || !answer) return {};
    record(`answered ${t.label}`);
    const go = answer.action === "accept" && answer.content?.go === true;
    set(t, { status: "completed", inputRequests: undefined, result: text(go ? `${t.label} confirmed` : `${t.label} not confirmed`) });
    return {};
  });
  return server;
}

serveStdio(() => v2TaskServer("jobs-example"), { legacy: "reject" });
