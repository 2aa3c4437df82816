import { describe, expect, it } from "vitest";
import { EgressPolicy, normalizeIp } from "../../src/net/egress-policy.js";

describe("EgressPolicy defaults", () => {
  const p = new EgressPolicy();

  it.each([
    ["169.254.169.254", "link-local address"],
    ["169.254.170.2", "link-local address"],
    ["fe80::1", "link-local address"],
    ["fd00:ec2::254", "cloud metadata address"],
    ["100.100.100.200", "cloud metadata address"],
    ["::ffff:169.254.169.254", "link-local address"],
    ["::ffff:a9fe:a9fe", "link-local address"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(p.decide("some.host", address)).toEqual({ allowed: false, reason });
  });

  it.each(["127.0.0.1", "::1", "10.1.2.3", "192.168.1.10", "172.16.0.1", "fd12::1", "93.184.215.14"])(
    "allows %s (private ranges are the point)",
    (address) => {
      expect(p.decide("svc.internal", address)).toEqual({ allowed: true });
    },
  );

  it("refuses metadata host names before resolving them", () => {
    expect(p.decideHost("metadata.google.internal")).toEqual({ allowed: false, reason: "cloud metadata host" });
    expect(p.decideHost("METADATA.google.internal.")).toEqual({ allowed: false, reason: "cloud metadata host" });
    expect(p.decide("metadata.google.internal", "10.0.0.5").allowed).toBe(false);
    expect(p.decideHost("api.example.com")).toBeUndefined();
  });

  it("refuses something that is not an address", () => {
    expect(p.decide("x", "not-an-ip").allowed).toBe(false);
  });
});

describe("EgressPolicy rules", () => {
  it("deny takes CIDRs, addresses and host names (exact and subdomains)", () => {
    const p = new EgressPolicy({ deny: ["10.0.0.0/8", "127.0.0.2", "db.corp", "*.secret.corp", "fc00::/7"] });
    expect(p.decide("a", "10.9.8.7")).toEqual({ allowed: false, reason: "denied by egress.deny" });
    expect(p.decide("a", "127.0.0.2").allowed).toBe(false);
    expect(p.decide("a", "127.0.0.1").allowed).toBe(true);
    expect(p.decide("db.corp", "192.168.0.1").allowed).toBe(false);
    expect(p.decideHost("x.secret.corp")?.allowed).toBe(false);
    expect(p.decideHost("secret.corp")).toBeUndefined();
    expect(p.decide("a", "fd00::1").allowed).toBe(false);
    expect(p.decide("a", "::ffff:10.0.0.1").allowed).toBe(false);
  });

  it("allow overrides deny and the default blocks", () => {
    const p = new EgressPolicy({ deny: ["10.0.0.0/8"], allow: ["10.1.2.3", "169.254.169.254", "metadata.google.internal"] });
    expect(p.decide("a", "10.1.2.3").allowed).toBe(true);
    expect(p.decide("a", "10.1.2.4").allowed).toBe(false);
    expect(p.decide("a", "169.254.169.254").allowed).toBe(true);
    expect(p.decide("a", "169.254.169.253").allowed).toBe(false);
    expect(p.decideHost("metadata.google.internal")).toBeUndefined();
    expect(p.decide("metadata.google.internal", "169.254.169.254").allowed).toBe(true);
  });

  it("deny * plus an allow list is an allowlist", () => {
    const p = new EgressPolicy({ deny: ["*"], allow: ["api.partner.com", "10.20.0.0/16"] });
    expect(p.decide("api.partner.com", "203.0.113.9").allowed).toBe(true);
    expect(p.decide("svc", "10.20.1.1").allowed).toBe(true);
    expect(p.decide("other.com", "203.0.113.9").allowed).toBe(false);
  });

  it("rejects entries that are not rules, naming them", () => {
    expect(() => new EgressPolicy({ deny: ["10.0.0.0/33"] })).toThrow('egress.deny[0]: "10.0.0.0/33"');
    expect(() => new EgressPolicy({ allow: ["ok.com", "http://x/"] })).toThrow("egress.allow[1]");
  });

  it("normalizes IPv4-mapped addresses", () => {
    expect(normalizeIp("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeIp("[::FFFF:7f00:2]")).toBe("127.0.0.2");
    expect(normalizeIp("fe80::1")).toBe("fe80::1");
  });

  it("normalizes IPv4-compatible addresses and spells IPv6 one way", () => {
    expect(normalizeIp("::127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeIp("::ffff:0.0.0.0")).toBe("0.0.0.0");
    expect(normalizeIp("0:0::0:1")).toBe("::1");
    expect(normalizeIp("0::0")).toBe("::");
    expect(normalizeIp("fe80::1%eth0")).toBe("fe80::1%eth0");
  });

  it("an unspecified or IPv4-mapped address counts as the loopback it reaches", () => {
    const p = new EgressPolicy({ deny: ["127.0.0.0/8", "::1"] });
    for (const a of ["0.0.0.0", "0.1.2.3", "::", "::ffff:0.0.0.0", "::ffff:127.0.0.1", "::ffff:7f00:1", "::127.0.0.1", "0:0:0:0:0:0:0:0"]) {
      expect(p.decide(a, a), a).toEqual({ allowed: false, reason: "denied by egress.deny" });
    }
    // A name that resolves to one of them is refused the same way.
    expect(p.decide("evil.example", "0.0.0.0").allowed).toBe(false);
    expect(p.decide("evil.example", "::").allowed).toBe(false);
    // A rule naming the unspecified range itself still applies, and an allow for loopback covers it.
    expect(new EgressPolicy({ deny: ["0.0.0.0/8"] }).decide("0.0.0.0", "0.0.0.0").allowed).toBe(false);
    expect(new EgressPolicy({ deny: ["*"], allow: ["127.0.0.1"] }).decide("0.0.0.0", "0.0.0.0").allowed).toBe(true);
    expect(new EgressPolicy().decide("0.0.0.0", "0.0.0.0").allowed).toBe(true);
  });

  it("reads an IPv4-mapped CIDR as the IPv4 prefix it embeds", () => {
    const p = new EgressPolicy({ deny: ["::ffff:127.0.0.0/104"] });
    expect(p.decide("127.9.9.9", "127.9.9.9").allowed).toBe(false);
    expect(p.decide("10.0.0.1", "10.0.0.1").allowed).toBe(true);
  });
});
