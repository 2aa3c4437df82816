import { ProtocolError, SdkError, SdkErrorCode, type Transport } from "@modelcontextprotocol/client";

type Message = Parameters<NonNullable<Transport["onmessage"]>>[0];
type Extra = Parameters<NonNullable<Transport["onmessage"]>>[1];

/** Options of one raw request. */
export interface RawRequestOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

/**
 * JSON-RPC requests sent on a session's transport beside the SDK client, their answers taken
 * before the client sees them. The 2026 tasks extension needs it: the client's codec refuses a
 * `CreateTaskResult` (`resultType: "task"`) and has no `tasks/*` methods. Ids are strings of
 * our own, so they never meet the client's numeric ones.
 */
export class RawRequests {
  private next = 0;
  // Settles one request: with its response, or with an error (abort, timeout, closed session).
  private readonly waiting = new Map<string, (message: Message | Error) => void>();

  constructor(private readonly transport: Transport) {}

  /** Takes our responses before the client's handler: called after `client.connect`, which sets that handler. */
  install(): void {
    const transport = this.transport;
    const sdk = transport.onmessage;
    transport.onmessage = (message: Message, extra?: Extra) => {
      const id = (message as { id?: unknown }).id;
      const waiter = typeof id === "string" && !("method" in message) ? this.waiting.get(id) : undefined;
      if (waiter) return waiter(message);
      sdk?.(message, extra);
    };
  }

  /**
   * Sends `method` with `params` (the `_meta` envelope included: nothing is added) and resolves
   * with the raw result; a JSON-RPC error rejects as the SDK's ProtocolError. An abort or the
   * timeout stops the request as the SDK does: its stream is closed (2026 HTTP) or the server
   * gets notifications/cancelled.
   */
  request(method: string, params: Record<string, unknown>, opts: RawRequestOptions): Promise<Record<string, unknown>> {
    const id = `toolnexus-raw-${++this.next}`;
    const perRequest = (this.transport as { hasPerRequestStream?: boolean }).hasPerRequestStream === true;
    const stop = new AbortController();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const onAbort = () => settle(opts.signal?.reason instanceof Error ? opts.signal.reason : new Error("aborted"), true);
      const timer = setTimeout(
        () => settle(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: opts.timeoutMs }), true),
        opts.timeoutMs,
      );
      const settle = (outcome: Message | Error, stopIt = false) => {
        if (!this.waiting.delete(id)) return;
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        if (stopIt) this.stop(id, perRequest, stop);
        if (outcome instanceof Error) return reject(outcome);
        const m = outcome as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
        if (m.error) reject(new ProtocolError(m.error.code, m.error.message, m.error.data));
        else resolve(m.result ?? {});
      };
      this.waiting.set(id, settle);
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.transport
        .send({ jsonrpc: "2.0", id, method, params } as Message, { requestSignal: stop.signal })
        .catch((err: unknown) => settle(err instanceof Error ? err : new Error(String(err))));
    });
  }

  /** Fails every request in flight: the session closed. */
  closeAll(): void {
    for (const settle of [...this.waiting.values()]) settle(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
  }

  private stop(id: string, perRequest: boolean, stream: AbortController): void {
    if (perRequest) return stream.abort();
    void this.transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } } as Message).catch(() => {});
  }
}
