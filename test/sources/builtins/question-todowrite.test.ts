import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingOf } from "../../../src/core/input/pending.js";
import { makeBuiltins, type Builtins } from "./helpers.js";

let b: Builtins;
beforeAll(async () => {
  b = await makeBuiltins();
});
afterAll(() => b.close());

const questions = [
  { question: "Which database?", header: "DB", options: ["postgres", "sqlite", "mysql"] },
  { question: "Anything else?" },
  { question: "Pick none", options: [] },
];

describe("question", () => {
  it("suspends with a question request; the prompt is rendered byte-exact", async () => {
    const r = await b.run("question", { questions });
    expect(r.isError).toBe(true);
    const req = pendingOf(r);
    expect(req).toMatchObject({
      kind: "question",
      prompt: "Which database? (options: postgres, sqlite, mysql)\nAnything else?\nPick none",
      data: { questions },
    });
    expect(typeof req?.id).toBe("string");
    expect(r.output).toBe(req?.prompt);
  });

  it("on the resumed call returns the answer's data as JSON", async () => {
    const data = { answers: ["sqlite", "no"] };
    const r = await b.run("question", { questions }, { answer: { id: "q1", ok: true, data } });
    expect(r).toEqual({ output: JSON.stringify(data), isError: false });
    expect(await b.run("question", { questions }, { answer: { id: "q1", ok: true } })).toEqual({ output: "{}", isError: false });
  });

  it("a declined answer is an error naming the question", async () => {
    const r = await b.run("question", { questions: [{ question: "Deploy?" }] }, { answer: { id: "q1", ok: false, reason: "expired" } });
    expect(r).toEqual({ output: "declined: Deploy?", isError: true, metadata: { reason: "expired" } });
  });

  it("an empty question list is an error", async () => {
    expect(await b.run("question", { questions: [] })).toMatchObject({
      isError: true,
      output: "question: questions must be a non-empty array",
    });
  });
});

describe("todowrite", () => {
  it("echoes the list rendered, statelessly", async () => {
    const todos = [
      { id: "1", text: "write tests", completed: true },
      { id: "2", text: "ship", completed: false },
    ];
    const r = await b.run("todowrite", { todos });
    expect(r.output).toBe("[x] write tests\n[ ] ship");
    expect(r.metadata).toMatchObject({ todos, completed: 1, total: 2 });
    expect((await b.run("todowrite", { todos: [] })).output).toBe("(no todos)");
  });
});
