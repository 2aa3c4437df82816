import { pending } from "../../../core/input/pending.js";
import { builtinTool, BuiltinError, fail, ok } from "../common/tool.js";

interface Question {
  question: string;
  header?: string;
  options?: string[];
  multiple?: boolean;
}

/**
 * The prompt of a question suspension, byte-exact: each question's text in
 * order, " (options: a, b, c)" appended when it has options, joined by "\n". `header` is not
 * rendered; it stays in `data.questions`.
 */
function renderQuestions(questions: readonly Question[]): string {
  return questions
    .map((q) => (q.options && q.options.length > 0 ? `${q.question} (options: ${q.options.join(", ")})` : q.question))
    .join("\n");
}

/**
 * `question`: asks the human. The first call suspends with a `question` request; the caller
 * executes again with `answer`, and the answer's data is the result. Stateless: nothing is
 * kept between the two calls.
 */
export function questionTool() {
  return builtinTool({
    name: "question",
    description:
      'Ask the user one or more questions. The call suspends with a pending request of kind "question"; ' +
      "the caller answers out of band and the answer is returned. Never use it to collect passwords, keys or tokens.",
    inputSchema: {
      type: "object",
      properties: {
        questions: {
          type: "array",
          description: "Questions to ask",
          items: {
            type: "object",
            properties: {
              question: { type: "string" },
              header: { type: "string" },
              options: { type: "array", items: { type: "string" } },
              multiple: { type: "boolean" },
            },
            required: ["question"],
          },
        },
      },
      required: ["questions"],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const questions = parseQuestions(args.questions);
      const prompt = renderQuestions(questions);
      const answer = ctx.answer;
      if (answer) {
        if (!answer.ok) return fail(`declined: ${prompt}`, answer.reason ? { reason: answer.reason } : undefined);
        return ok(JSON.stringify(answer.data ?? {}));
      }
      return pending({ kind: "question", prompt, data: { questions: args.questions as unknown[] } });
    },
  });
}

function parseQuestions(v: unknown): Question[] {
  if (!Array.isArray(v) || v.length === 0) throw new BuiltinError("questions must be a non-empty array");
  return v.map((q, i) => {
    const item = q as Partial<Question> | null;
    if (typeof item !== "object" || item === null || typeof item.question !== "string") {
      throw new BuiltinError(`questions[${i}].question must be a string`);
    }
    const options = Array.isArray(item.options) ? item.options.map(String) : undefined;
    return { question: item.question, ...(options ? { options } : {}) };
  });
}
