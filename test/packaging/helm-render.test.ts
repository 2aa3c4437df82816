import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { helm } from "../helpers/helm.js";

// The chart as Helm itself renders it (a real helm binary, see test/helpers/helm.ts), every
// rendered object validated against the Kubernetes API schemas of the kubernetes-models
// packages (offline; prometheus-operator's for the ServiceMonitor).

const root = path.resolve(import.meta.dirname, "../..");
const chart = path.join(root, "helm/toolnexus");
const allOptions = path.join(root, "test/fixtures/helm/all-options.yaml");

type Json = Record<string, unknown>;
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

/** The schema-checking model class of an apiVersion/kind; throws for a kind nobody validates. */
async function modelOf(apiVersion: string, kind: string): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const pkg = group === "monitoring.coreos.com" ? "@kubernetes-models/prometheus-operator" : "kubernetes-models";
  const mod = (await import(`${pkg}/${group ? `${group}/` : ""}${version}`)) as Record<string, new (data: unknown) => { validate(): void }>;
  const model = mod[kind];
  if (!model) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return model;
}

async function render(...args: string[]): Promise<K8sObject[]> {
  const out = await helm("template", "rel", chart, "--namespace", "tools", ...args);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject)
    .filter(Boolean);
}

/** Every object valid for its Kubernetes schema: returns the failures as "Kind/name: why". */
async function invalid(objects: K8sObject[]): Promise<string[]> {
  const failures: string[] = [];
  for (const o of objects) {
    const Model = await modelOf(o.apiVersion, o.kind);
    try {
      new Model(o).validate();
    } catch (err) {
      failures.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
    }
  }
  return failures;
}

/** Every key path of a values tree, down to leaves and to empty maps/lists. */
function keyPaths(obj: unknown, prefix = ""): string[] {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj) || Object.keys(obj).length === 0) return [prefix];
  return Object.entries(obj).flatMap(([k, v]) => keyPaths(v, prefix ? `${prefix}.${k}` : k));
}

describe("helm/toolnexus rendered by helm", () => {
  it("passes helm lint --strict, with the defaults and with every option set", async () => {
    expect(await helm("lint", "--strict", chart)).toContain("0 chart(s) failed");
    expect(await helm("lint", "--strict", chart, "-f", allOptions)).toContain("0 chart(s) failed");
  });

  it("renders valid Kubernetes objects with the default values", async () => {
    const objects = await render();
    expect(objects.map((o) => o.kind).sort()).toEqual(["ConfigMap", "Deployment", "PodDisruptionBudget", "Service", "ServiceAccount"]);
    expect(await invalid(objects)).toEqual([]);
  });

  it("renders valid Kubernetes objects with every option set, each template contributing", async () => {
    const objects = await render("-f", allOptions);
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "ConfigMap",
      "Deployment",
      "HorizontalPodAutoscaler",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Service",
      "ServiceAccount",
      "ServiceMonitor",
    ]);
    expect(await invalid(objects)).toEqual([]);
    const deployment = objects.find((o) => o.kind === "Deployment") as unknown as Json;
    expect(JSON.stringify(deployment)).toContain('"checksum/config"');
    expect(JSON.stringify(deployment)).not.toContain('"replicas"'); // the HPA owns the replica count
  });

  it("renders a release on an existing ConfigMap without a ConfigMap of its own", async () => {
    const objects = await render("--set", "config.existingConfigMap=team-config", "--set", "serviceAccount.create=false");
    expect(objects.map((o) => o.kind).sort()).toEqual(["Deployment", "PodDisruptionBudget", "Service"]);
    expect(JSON.stringify(objects)).toContain('"name":"team-config"');
    expect(await invalid(objects)).toEqual([]);
  });

  it("the all-options values file sets every option values.yaml has (add new options there too)", async () => {
    const defaults = keyPaths(parseYaml(await readFile(path.join(chart, "values.yaml"), "utf8")));
    const all = new Set(keyPaths(parseYaml(await readFile(allOptions, "utf8"))));
    const covered = (p: string) => [...all].some((a) => a === p || a.startsWith(`${p}.`));
    expect(defaults.filter((p) => !covered(p))).toEqual([]);
  });

  it("the schema check catches what Kubernetes would refuse", async () => {
    const [deployment] = (await render()).filter((o) => o.kind === "Deployment") as unknown as Json[];
    (deployment?.spec as Json).replicas = "two";
    expect(await invalid([deployment as unknown as K8sObject])).toEqual([expect.stringContaining("replicas must be integer")]);
    await expect(helm("template", "rel", chart, "--set", "service.port=http")).rejects.toThrow(/port/);
  });

  it("Chart.yaml's icon is icon.svg inlined", async () => {
    const meta = parseYaml(await readFile(path.join(chart, "Chart.yaml"), "utf8")) as { icon: string };
    const svg = await readFile(path.join(chart, "icon.svg"));
    expect(meta.icon).toBe(`data:image/svg+xml;base64,${svg.toString("base64")}`);
  });
});
