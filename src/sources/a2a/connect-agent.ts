import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { fetchCard, type RawCard } from "./agent-card.js";

/** An agent whose card was read and whose protocol version and transport were chosen. */
export interface ConnectedAgent {
  card: RawCard;
  client: Client;
  /** The A2A version spoken: "1.0", or "0.3" for a legacy agent. */
  protocolVersion: string;
  /** "JSONRPC" or "HTTP+JSON". */
  transport: string;
}

/**
 * Reads the card and builds an @a2a-js/sdk client for it. Version negotiation is the SDK's:
 * it prefers an interface declaring protocolVersion 1.0 and speaks `SendMessage`/`GetTask`/
 * `CancelTask` with `A2A-Version: 1.0`; an interface (or a whole v0.3-shaped card) declaring
 * 0.3 gets the v0.3 wire — `message/send`/`tasks/get`/`tasks/cancel`. JSON-RPC is preferred,
 * HTTP+JSON is used when that is all the agent offers.
 */
export async function connectAgent(cardUrl: string, fetchImpl: typeof fetch, cardTimeoutMs: number): Promise<ConnectedAgent> {
  const card = await fetchCard(cardUrl, fetchImpl, cardTimeoutMs);
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat }), new RestTransportFactory({ fetchImpl, legacyCompat })],
    preferredTransports: ["JSONRPC", "HTTP+JSON"],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    clientConfig: { polling: true },
  });
  let client: Client;
  try {
    client = await factory.createFromAgentCard(card as never);
  } catch (err) {
    throw new Error(`agent card cannot be used: ${(err as Error).message}`, { cause: err });
  }
  return { card, client, protocolVersion: client.protocolVersion, transport: client.transport.protocolName };
}
