import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ApiKeyAuth } from "../../../src/server/auth/api-keys.js";

const KEY = "api-key-0123456789abcdef";
const OTHER = "other-key-0123456789abcd";

describe("ApiKeyAuth", () => {
  const auth = new ApiKeyAuth([
    { id: "plain", key: KEY },
    { id: "hashed", sha256: createHash("sha256").update(OTHER).digest("hex") },
  ]);

  it("names the same caller for a key presented again (remembered once found valid), by key or by digest", () => {
    const first = auth.match(KEY);
    expect(first?.id).toBe("plain");
    expect(auth.match(KEY)).toBe(first);
    expect(auth.match(OTHER)?.id).toBe("hashed");
    expect(auth.match(OTHER)?.id).toBe("hashed");
  });

  it("refuses near misses of a remembered key", () => {
    auth.match(KEY);
    for (const wrong of [KEY.slice(0, -1), `${KEY}x`, ` ${KEY}`, KEY.toUpperCase(), ""]) expect(auth.match(wrong)).toBeUndefined();
  });

  it("remembers nothing across instances: a reload without the key refuses it", () => {
    expect(auth.match(KEY)?.id).toBe("plain");
    expect(new ApiKeyAuth([{ id: "hashed", sha256: createHash("sha256").update(OTHER).digest("hex") }]).match(KEY)).toBeUndefined();
  });
});
