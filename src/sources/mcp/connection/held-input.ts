import { ProtocolError, ProtocolErrorCode, type Client } from "@modelcontextprotocol/client";
import { INPUT_REPLY_KEY, type InputRequest, type InputRequests, type InputResponses } from "../../../core/input/requests.js";
import type { ToolContext } from "../../../core/types.js";

/**
 * The client capabilities a held call can honour: the questions a 2025 server may ask mid-call.
 * `roots` is not advertised: servers that see it list roots on their own schedule (server-everything
 * 350 ms after initialize), unrelated to any call, and on stdio nothing tells such a request from
 * one a call makes, so it would hold whichever call is in flight. (2026 servers ask for roots within
 * the call's own result, input_required, which reaches the caller.)
 */
export const HELD_INPUT_CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: {},
};

type Ask = NonNullable<ToolContext["onInputRequest"]>;

/**
 * Routes a 2025-era server's requests to the client (`elicitation/create`,
 * `sampling/createMessage`) to the call they belong to, whose caller answers
 * them while the call is held. The protocol does not say which call a request belongs to
 * (stdio has one stream; the SDK does not expose the HTTP stream a request came on), so one
 * is routed only when exactly one call is in flight on the session: with several, guessing
 * could show one caller's question to another, so the server is told the request cannot be
 * answered instead.
 */
export class HeldInput {
  private readonly calls = new Set<{ ask?: Ask }>();
  private next = 0;

  /** Takes over the client's handlers of the server-to-client requests a held call relays. */
  install(client: Client): void {
    client.setRequestHandler("elicitation/create", (req) => this.forward({ method: "elicitation/create", params: req.params }));
    client.setRequestHandler("sampling/createMessage", (req) => this.forward({ method: "sampling/createMessage", params: req.params }));
  }

  /** A call in flight until `close()`; `ask` reaches its caller (absent: nobody can answer). */
  open(ask: Ask | undefined): { close(): void } {
    const call = ask ? { ask } : {};
    this.calls.add(call);
    return { close: () => this.calls.delete(call) };
  }

  // The SDK checks each answer against the method's result schema before it goes back.
  private async forward(request: InputRequest): Promise<never> {
    const [call, more] = this.calls;
    if (!call || more) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        call ? "Several calls are in flight on this session: the request cannot be routed to one caller" : "No call is in flight to ask",
      );
    }
    if (!call.ask) throw new ProtocolError(ProtocolErrorCode.InternalError, "The caller of this call cannot answer input requests");
    const key = `${request.method.split("/")[0]}-${++this.next}`;
    const responses: InputResponses = await call.ask({ [key]: request } satisfies InputRequests);
    const response = responses[key];
    if (!response) throw new ProtocolError(ProtocolErrorCode.InternalError, "The caller gave no response to this request");
    const reply = response[INPUT_REPLY_KEY] as
      { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
    if (reply?.error) {
      const { code, message, data } = reply.error;
      throw new ProtocolError(
        typeof code === "number" ? code : ProtocolErrorCode.InternalError,
        typeof message === "string" ? message : "The client refused the request",
        data,
      );
    }
    if (reply) return reply.result as never;
    return response as never;
  }
}
