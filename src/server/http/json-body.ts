import type { FastifyInstance } from "fastify";
import { parse } from "secure-json-parse";
import { ToolnexusError } from "../../core/errors.js";

const POISON = /forbidden prototype property/;

/** True for the error this parser gives a body that is not JSON (`/mcp` answers it with JSON-RPC's Parse error). */
export function isBodyParseError(err: unknown): boolean {
  return err instanceof ToolnexusError && err.cause instanceof SyntaxError;
}

/**
 * The JSON body parser, replacing Fastify's so a refusal says what was refused: a syntax
 * error names the fault, and a `__proto__` or `constructor.prototype` key (refused, as by
 * Fastify, to prevent prototype poisoning) is reported as such rather than as "not JSON".
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      done(
        new ToolnexusError("INVALID_REQUEST", "The body is empty but Content-Type is application/json", {
          cause: new SyntaxError("empty body"),
        }),
        undefined,
      );
      return;
    }
    try {
      done(null, parse(text, { protoAction: "error", constructorAction: "error" }));
    } catch (err) {
      const detail = POISON.test((err as Error).message)
        ? 'The body has a "__proto__" or "constructor" key holding a prototype; such keys are refused to prevent prototype poisoning'
        : `The body is not valid JSON: ${(err as Error).message}`;
      // A prototype key is valid JSON that we refuse; only a syntax error is a parse error.
      done(new ToolnexusError("INVALID_REQUEST", detail, POISON.test((err as Error).message) ? {} : { cause: err }), undefined);
    }
  });
}
