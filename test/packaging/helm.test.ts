import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../src/config/load.js";

// Static checks of the chart's sources: the values schema, templates reading values that do not
// exist, YAML around the template actions, and the chart's operational promises. What Helm
// itself renders, and its validity for Kubernetes, is test/packaging/helm-render.test.ts.

const root = path.resolve(import.meta.dirname, "../..");
const chart = path.join(root, "helm/toolnexus");

type Json = Record<string, unknown>;
const read = (rel: string) => readFile(path.join(chart, rel), "utf8");

/** Every `.Values.a.b` path a template reads, as ["a", "b"]. */
function valuesPaths(template: string): string[][] {
  return [...template.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => (m[1] ?? "").slice(1).split("."));
}

/** The template with action-only lines dropped and inline actions replaced by a scalar: what YAML structure is left. */
function skeleton(template: string): string {
  return template
    .split("\n")
    .filter((line) => !/^\s*(\{\{.*?\}\}\s*)+$/.test(line))
    .map((line) => line.replace(/\{\{.*?\}\}/g, "x"))
    .join("\n");
}

function at(obj: unknown, keys: string[]): { found: boolean; value: unknown } {
  let cur: unknown = obj;
  for (const k of keys) {
    if (typeof cur !== "object" || cur === null || !(k in cur)) return { found: false, value: undefined };
    cur = (cur as Json)[k];
  }
  return { found: true, value: cur };
}

describe("helm/toolnexus chart", async () => {
  const values = parseYaml(await read("values.yaml")) as Json;
  const schema = JSON.parse(await read("values.schema.json")) as Json;
  const files = (await readdir(path.join(chart, "templates"))).sort();
  const templates = Object.fromEntries(await Promise.all(files.map(async (f) => [f, await read(`templates/${f}`)] as const)));
  const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
  const variant = (patch: (v: Json) => void): Json => {
    const v = structuredClone(values);
    patch(v);
    return v;
  };

  it("values.yaml validates against values.schema.json (draft-07)", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
  });

  it("the schema rejects typos and wrong types", () => {
    const bad: [string, Json][] = [
      [
        "unknown top-level key",
        variant((v) => {
          v.replicas = 3;
        }),
      ],
      [
        "port as a string",
        variant((v) => {
          (v.service as Json).port = "80";
        }),
      ],
      [
        "secret ref without key",
        variant((v) => {
          (v.secrets as Json).env = { GITHUB_TOKEN: { secret: "tokens" } };
        }),
      ],
      [
        "ConfigMap file name with a slash",
        variant((v) => {
          (v.config as Json).files = { "plugins/a.mjs": "export default []" };
        }),
      ],
      [
        "probe without httpGet",
        variant((v) => {
          v.livenessProbe = { periodSeconds: 5 };
        }),
      ],
    ];
    for (const [what, v] of bad) expect(validate(v), what).toBe(false);
    expect(
      validate(
        variant((v) => {
          (v.config as Json).toolnexus = "plugins: []\n";
        }),
      ),
    ).toBe(true);
  });

  it("every .Values path a template reads exists in values.yaml, and every top-level value is used", () => {
    const used = Object.values(templates).flatMap(valuesPaths);
    expect(used.length).toBeGreaterThan(40);
    const missing = used.filter((p) => !at(values, p).found).map((p) => p.join("."));
    expect([...new Set(missing)]).toEqual([]);
    const top = new Set(used.map((p) => p[0]));
    expect(Object.keys(values).filter((k) => !top.has(k))).toEqual([]);
  });

  it("each manifest template keeps valid YAML around its actions, with the expected kind", () => {
    const kinds: Record<string, string> = {
      "configmap.yaml": "ConfigMap",
      "deployment.yaml": "Deployment",
      "hpa.yaml": "HorizontalPodAutoscaler",
      "networkpolicy.yaml": "NetworkPolicy",
      "pdb.yaml": "PodDisruptionBudget",
      "service.yaml": "Service",
      "serviceaccount.yaml": "ServiceAccount",
      "servicemonitor.yaml": "ServiceMonitor",
    };
    expect(files.filter((f) => f.endsWith(".yaml"))).toEqual(Object.keys(kinds).sort());
    expect(files).toEqual(expect.arrayContaining(["NOTES.txt", "_helpers.tpl"]));
    for (const [file, text] of Object.entries(templates)) {
      // Every block action is closed, and actions never span lines (comments aside).
      const opened = text.match(/\{\{-?\s*(if|with|range|define)\b/g)?.length ?? 0;
      expect(text.match(/\{\{-?\s*end\s*-?\}\}/g)?.length ?? 0, file).toBe(opened);
      const code = text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, "");
      for (const line of code.split("\n")) expect(line.split("{{").length, `${file}: ${line}`).toBe(line.split("}}").length);
    }
    for (const [file, kind] of Object.entries(kinds)) {
      const docs = parseAllDocuments(skeleton(templates[file] ?? ""), { uniqueKeys: false });
      const list = Array.isArray(docs) ? docs : [docs];
      expect(list, file).toHaveLength(1);
      expect(list[0]?.errors.map((e) => e.message) ?? [], file).toEqual([]);
      expect(list[0]?.toJS(), file).toMatchObject({ apiVersion: expect.any(String), kind, metadata: { name: "x" } });
    }
  });

  it("the Deployment runs the image as designed: config mount, writable /tmp, container env, probes", () => {
    const deployment = parseYaml(skeleton(templates["deployment.yaml"] ?? ""), { uniqueKeys: false }) as Json;
    const pod = at(deployment, ["spec", "template", "spec"]).value as Json;
    const container = (pod.containers as Json[])[0] as Json;
    expect(container.volumeMounts).toEqual(
      expect.arrayContaining([
        { name: "config", mountPath: "/etc/toolnexus", readOnly: true },
        { name: "tmp", mountPath: "/tmp" },
      ]),
    );
    expect(
      (container.volumeMounts as Json[]).some((m) => "subPath" in m),
      "subPath mounts miss ConfigMap updates",
    ).toBe(false);
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: "TOOLNEXUS_CONFIG", value: "/etc/toolnexus" },
        { name: "TOOLNEXUS_HOST", value: "0.0.0.0" },
      ]),
    );
    expect(templates["deployment.yaml"]).toMatch(/secretKeyRef:/);
    expect(templates["deployment.yaml"]).toMatch(/- secretRef:/);
    expect(templates["deployment.yaml"]).toMatch(/checksum\/config: .*sha256sum/);
    expect(at(values, ["livenessProbe", "httpGet", "path"]).value).toBe("/healthz");
    expect(at(values, ["readinessProbe", "httpGet", "path"]).value).toBe("/readyz");
    expect(at(values, ["config", "checksumAnnotation"]).value, "hot reload is the default").toBe(false);
  });

  it("defaults are hardened: non-root as the image's user, read-only root, no capabilities", async () => {
    const uid = /^USER\s+(\d+)/m.exec(await readFile(path.join(root, "Dockerfile"), "utf8"))?.[1];
    expect(values.podSecurityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: Number(uid),
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(values.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(at(values, ["serviceAccount", "automountToken"]).value).toBe(false);
  });

  it("the termination grace period outlasts the preStop sleep plus the drain", () => {
    const graceMs = Number(at(values, ["config", "toolnexus", "server", "shutdownGraceMs"]).value);
    const preStopMs = Number(at(values, ["lifecycle", "preStopSleepSeconds"]).value) * 1000;
    expect(graceMs).toBeGreaterThan(0);
    expect(Number(values.terminationGracePeriodSeconds) * 1000).toBeGreaterThan(preStopMs + graceMs);
    // And the chart refuses a release that breaks this rather than letting the kubelet SIGKILL mid-drain.
    expect(templates["_helpers.tpl"]).toMatch(/fail \(printf "terminationGracePeriodSeconds/);
  });

  it("the default config is a valid toolnexus config that finds the image's example plugins", async () => {
    // The image's WORKDIR is /app and holds this repository's examples/.
    const text = JSON.stringify(at(values, ["config", "toolnexus"]).value).replaceAll("/app/", `${root}/`);
    const loaded = await normalizeConfig(JSON.parse(text), { baseDir: "/etc/toolnexus", env: {} });
    const files = (await readdir(path.join(root, "examples/config/plugins"))).filter((f) => f.endsWith(".mjs"));
    expect(files.length).toBeGreaterThan(0);
    expect(loaded.config.plugins).toHaveLength(files.length);
  });

  it("Chart.yaml tracks the package version", async () => {
    const meta = parseYaml(await read("Chart.yaml")) as Json;
    const { version } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { version: string };
    expect(meta).toMatchObject({ apiVersion: "v2", name: "toolnexus", appVersion: version });
  });
});
