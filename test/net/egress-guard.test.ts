import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { EgressGuard, EgressRefusedError, findEgressRefusal } from "../../src/net/egress-guard.js";
import { networkErrorReason } from "../../src/net/network-error.js";

let server: Server;
let hits = 0;
let port = 0;

beforeAll(async () => {
  // Listens on 127.0.0.2 so a deny rule can single it out without touching 127.0.0.1.
  server = createServer((_req, res) => {
    hits++;
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.2", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function get(guard: EgressGuard, url: string): Promise<string> {
  const d = guard.dispatcher();
  try {
    const res = await request(url, { dispatcher: d });
    return await res.body.text();
  } finally {
    await d.close();
  }
}

describe("EgressGuard dispatcher", () => {
  it("lets an allowed address through", async () => {
    expect(await get(new EgressGuard(), `http://127.0.0.2:${port}/`)).toBe("ok");
  });

  it("refuses an IP literal denied by a rule, without connecting", async () => {
    const before = hits;
    const err = await get(new EgressGuard({ deny: ["127.0.0.2"] }), `http://127.0.0.2:${port}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect((err as Error).message).toBe("egress to 127.0.0.2 refused: denied by egress.deny");
    expect(networkErrorReason(err)).toBe("egress to 127.0.0.2 refused: denied by egress.deny");
    expect(hits).toBe(before);
  });

  it("refuses a host name whose resolved address is denied (checked in the connect lookup)", async () => {
    const srv = createServer((_q, r) => r.end("local"));
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const p = (srv.address() as AddressInfo).port;
    try {
      const err = await get(new EgressGuard({ deny: ["127.0.0.0/8", "::1"] }), `http://localhost:${p}/`).catch((e: unknown) => e);
      expect(findEgressRefusal(err)?.message).toMatch(/^egress to localhost \((127\.0\.0\.1|::1)\) refused: denied by egress\.deny$/);
      // The allow rule names the host: it overrides the address deny.
      expect(await get(new EgressGuard({ deny: ["127.0.0.0/8", "::1"], allow: ["localhost"] }), `http://localhost:${p}/`)).toBe("local");
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });

  it("refuses a metadata host name without resolving it", async () => {
    const err = await get(new EgressGuard(), "http://metadata.google.internal/computeMetadata/v1/").catch((e: unknown) => e);
    expect(findEgressRefusal(err)?.reason).toBe("cloud metadata host");
  });

  it("guards fetch too (refusal in the cause chain)", async () => {
    const guard = new EgressGuard({ deny: ["127.0.0.2"] });
    try {
      const err = await guard.fetch(`http://127.0.0.2:${port}/`).catch((e: unknown) => e);
      expect(findEgressRefusal(err)).toBeInstanceOf(EgressRefusedError);
      const ok = new EgressGuard();
      expect(await (await ok.fetch(`http://127.0.0.2:${port}/`)).text()).toBe("ok");
      await ok.close();
    } finally {
      await guard.close();
    }
  });
});

describe("EgressGuard.lookup", () => {
  it("hands back only the addresses it checked", async () => {
    const guard = new EgressGuard();
    const out = await new Promise<unknown>((resolve, reject) =>
      guard.lookup("localhost", { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))),
    );
    expect(Array.isArray(out)).toBe(true);
    for (const a of out as { address: string }[]) expect(guard.decide("localhost", a.address).allowed).toBe(true);
  });
});
