import type { LoadedConfig } from "../../config/load.js";
import type { Source } from "../../core/source.js";
import { HttpSource } from "./http-source.js";
import { sharedHttpClient } from "./shared-client.js";

/** One source per `http:` declaration, all sharing one guarded connection pool. */
export function httpSources(loaded: LoadedConfig): Source[] {
  const client = sharedHttpClient(loaded, loaded.config.egress);
  return (loaded.config.http ?? []).map((cfg) => new HttpSource(cfg, client, loaded.secrets));
}

export { httpTool, type HttpToolDeps } from "./http-tool.js";
export { sendRequest, type OutboundRequest, type InboundResponse } from "./send-request.js";
