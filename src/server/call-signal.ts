import type { FastifyReply } from "fastify";
import { ToolnexusError } from "../core/errors.js";

/** The abort signal of one call and how to run a tool under it. */
export interface CallSignal {
  signal: AbortSignal;
  /** Runs `fn`, settling as soon as the signal aborts (with the abort reason) even if `fn` ignores it. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  dispose(): void;
}

/**
 * One AbortSignal per call = client disconnect ∪ timeout ∪ shutdown (DESIGN §5). The reason
 * is a ToolnexusError saying which one fired. Disconnect is read from `reply.raw` "close"
 * without `writableEnded`: `request.raw` "close" also fires once a POST body has been read.
 */
export function callSignal(reply: FastifyReply, timeoutMs: number, shutdown: AbortSignal): CallSignal {
  const ac = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) ac.abort(new ToolnexusError("CLIENT_CLOSED", "The client closed the connection"));
  };
  const onShutdown = () => ac.abort(new ToolnexusError("NOT_READY", "The server is shutting down"));
  const timer = setTimeout(() => ac.abort(new ToolnexusError("TOOL_TIMEOUT", `The tool did not finish within ${timeoutMs} ms`)), timeoutMs);
  reply.raw.once("close", onClose);
  if (shutdown.aborted) onShutdown();
  else shutdown.addEventListener("abort", onShutdown, { once: true });

  const aborted = new Promise<never>((_, reject) => {
    ac.signal.addEventListener("abort", () => reject(ac.signal.reason), { once: true });
  });
  aborted.catch(() => {}); // observed through run(); never an unhandled rejection

  return {
    signal: ac.signal,
    async run(fn) {
      try {
        const result = await Promise.race([fn(), aborted]);
        // A tool that honoured the signal returns right after it fired: the abort still decides.
        if (ac.signal.aborted) throw ac.signal.reason;
        return result;
      } catch (err) {
        throw ac.signal.aborted ? ac.signal.reason : err;
      }
    },
    dispose() {
      clearTimeout(timer);
      reply.raw.off("close", onClose);
      shutdown.removeEventListener("abort", onShutdown);
    },
  };
}
