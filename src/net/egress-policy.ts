import { BlockList, isIP } from "node:net";
import type { EgressConfig } from "../config/schema/server.js";

/** The outcome of checking one resolved destination against the policy. */
export interface EgressDecision {
  allowed: boolean;
  /** Why it was refused (or which allow rule let it through a default block). */
  reason?: string;
}

/**
 * Addresses refused unless an allow rule names them: link-local (where every cloud's
 * metadata service lives, 169.254.169.254 and AWS's 169.254.170.2 included) and the
 * metadata endpoints outside it (AWS IPv6, Alibaba).
 */
const DEFAULT_BLOCKED_CIDRS: readonly [string, number, "ipv4" | "ipv6", string][] = [
  ["169.254.0.0", 16, "ipv4", "link-local address"],
  ["fe80::", 10, "ipv6", "link-local address"],
  ["fd00:ec2::254", 128, "ipv6", "cloud metadata address"],
  ["100.100.100.200", 32, "ipv4", "cloud metadata address"],
];

/** Host names of cloud metadata services, refused whatever they resolve to. */
const DEFAULT_BLOCKED_HOSTS: readonly string[] = [
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.tencentyun.com",
];

/** One parsed `egress.allow` / `egress.deny` list. */
class RuleSet {
  private readonly blocks = new BlockList();
  private hasAddressRules = false;
  private readonly hosts = new Set<string>();
  private readonly suffixes: string[] = [];
  private any = false;

  constructor(entries: readonly string[], label: string) {
    entries.forEach((raw, i) => {
      const entry = raw.trim().toLowerCase();
      if (!this.add(entry)) throw new Error(`${label}[${i}]: "${raw}" is not a CIDR, an IP address or a host name`);
    });
  }

  private add(entry: string): boolean {
    if (entry === "*") return (this.any = true);
    const slash = entry.indexOf("/");
    if (slash >= 0) {
      const raw = entry.slice(0, slash);
      const ip = normalizeIp(raw);
      // An IPv4-mapped or -compatible prefix (::ffff:0:0/96) is the IPv4 prefix it embeds.
      const embedded = isIP(raw.replace(/^\[|\]$/g, "")) === 6 && isIP(ip) === 4 ? 96 : 0;
      const bits = Number(entry.slice(slash + 1)) - embedded;
      const family = isIP(ip);
      if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) return false;
      this.blocks.addSubnet(ip, bits, family === 4 ? "ipv4" : "ipv6");
      return (this.hasAddressRules = true);
    }
    const ip = normalizeIp(entry);
    if (isIP(ip)) {
      this.blocks.addAddress(ip, isIP(ip) === 4 ? "ipv4" : "ipv6");
      return (this.hasAddressRules = true);
    }
    // "*.corp.example" and ".corp.example" both mean every subdomain of corp.example.
    const suffix = entry.startsWith("*.") ? entry.slice(1) : entry.startsWith(".") ? entry : undefined;
    const name = normalizeHost(suffix ?? entry);
    if (!/^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) return false;
    if (suffix) this.suffixes.push(name);
    else this.hosts.add(name);
    return true;
  }

  /** True when a rule names this host (or is `*`). */
  matchesHost(host: string): boolean {
    return this.any || this.hosts.has(host) || this.suffixes.some((s) => host.endsWith(s));
  }

  /** True when a rule names this host or covers this address. */
  matches(host: string, address: string): boolean {
    return this.matchesHost(host) || (this.hasAddressRules && matchesAddress(this.blocks, address));
  }
}

const defaultBlocks = new Map<string, BlockList>();
for (const [ip, bits, family, reason] of DEFAULT_BLOCKED_CIDRS) {
  const list = defaultBlocks.get(reason) ?? new BlockList();
  list.addSubnet(ip, bits, family);
  defaultBlocks.set(reason, list);
}

/**
 * The pure egress decision: `allow` rules win over `deny` rules, which win over the default
 * blocks. Allow-over-deny is what makes "deny 10.0.0.0/8, allow the one service we call"
 * and "deny *, allow a list" work.
 */
export class EgressPolicy {
  private readonly allow: RuleSet;
  private readonly deny: RuleSet;

  /** Throws when an entry is neither a CIDR, an IP nor a host name (naming the entry). */
  constructor(config: EgressConfig = {}) {
    this.allow = new RuleSet(config.allow ?? [], "egress.allow");
    this.deny = new RuleSet(config.deny ?? [], "egress.deny");
  }

  /**
   * Decides on the name alone, before resolving: a refusal for a denied or metadata host
   * name, `undefined` when only the resolved addresses can tell.
   */
  decideHost(host: string): EgressDecision | undefined {
    const h = normalizeHost(host);
    if (this.allow.matchesHost(h)) return undefined;
    if (this.deny.matchesHost(h)) return { allowed: false, reason: "denied by egress.deny" };
    if (DEFAULT_BLOCKED_HOSTS.includes(h)) return { allowed: false, reason: "cloud metadata host" };
    return undefined;
  }

  /** Decides for a request to `host` that resolved to `address` (an IP literal host is its own address). */
  decide(host: string, address: string): EgressDecision {
    const h = normalizeHost(host);
    const a = normalizeIp(address);
    if (isIP(a) === 0) return { allowed: false, reason: `"${address}" is not an IP address` };
    // The address as written and the address it reaches: a rule naming either applies.
    const reached = reachedAddress(a);
    const forms = reached === a ? [a] : [a, reached];
    if (forms.some((x) => this.allow.matches(h, x))) return { allowed: true };
    if (forms.some((x) => this.deny.matches(h, x))) return { allowed: false, reason: "denied by egress.deny" };
    if (DEFAULT_BLOCKED_HOSTS.includes(h)) return { allowed: false, reason: "cloud metadata host" };
    for (const [reason, list] of defaultBlocks) {
      if (forms.some((x) => matchesAddress(list, x))) return { allowed: false, reason };
    }
    return { allowed: true };
  }
}

/** Lower-case, without brackets or a trailing dot: the form host rules are compared in. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/**
 * The form rules are compared in: an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible
 * (`::a.b.c.d`) IPv6 address becomes its IPv4 form, so IPv4 rules apply to it; any other
 * IPv6 address is written the one canonical way (`0:0::0:1` is `::1`).
 */
export function normalizeIp(address: string): string {
  const a = normalizeHost(address);
  if (isIP(a) !== 6) return a;
  let canonical: string;
  try {
    // The URL parser writes an IPv6 address compressed, lower-case, with an embedded IPv4 in hex.
    canonical = new URL(`http://[${a}]/`).hostname.slice(1, -1);
  } catch {
    return a; // a zone id (fe80::1%eth0) is no URL host; BlockList still reads the address
  }
  const v4 = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (v4?.[1] && v4[2]) {
    const hi = parseInt(v4[1], 16);
    const lo = parseInt(v4[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return canonical;
}

/**
 * Where a connect to a normalized address really goes. Linux sends a connect to the
 * unspecified address (0.0.0.0, and the rest of 0.0.0.0/8, which is no destination
 * elsewhere; `::`) to the local host, so a rule about loopback must cover it too.
 */
function reachedAddress(address: string): string {
  if (address === "::") return "::1";
  if (isIP(address) === 4 && address.startsWith("0.")) return "127.0.0.1";
  return address;
}

function matchesAddress(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 4 ? "ipv4" : "ipv6");
}
