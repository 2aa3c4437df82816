import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { DestinationStream, LoggerOptions } from "pino";
import { createToolkit, toLoadedConfig, type ToolnexusConfigInput } from "../create-toolkit.js";
import type { LoadedConfig } from "../config/load.js";
import type { Toolkit } from "../core/toolkit.js";
import type { Tool } from "../core/types.js";
import { Authenticator, registerProtectedResource, type SessionCredential } from "./auth/index.js";
import { CallPipeline } from "./calls/call-pipeline.js";
import { installErrorHandler } from "./http/error-handler.js";
import { fastifyOptions } from "./http/fastify-options.js";
import { installProtocolGuards } from "./http/protocol-errors.js";
import { installJsonBodyParser } from "./http/json-body.js";
import { HostGuard } from "./http/host-guard.js";
import { RouteMethods } from "./http/route-methods.js";
import { DeclaredPolicies } from "./http/route-policy.js";
import { createAudit } from "./governance/audit.js";
import { narrowViewsToBundles, registerBundles } from "./governance/bundles.js";
import { pinRoutes } from "./governance/pin-routes.js";
import { startPinning } from "./governance/pinning.js";
import { registerExecutions } from "./executions/register.js";
import { registerConsole } from "./console/register.js";
import { registerCredentials } from "./credentials/register.js";
import { ConsoleSessions } from "./console/session.js";
import { ConfigReloader } from "./service/config-reloader.js";
import { installRequestHooks } from "./service/request-hooks.js";
import { installShutdown } from "./service/shutdown.js";
import { pinTickShape } from "./service/tick-shape.js";
import { SecretScrubber, serviceLogger } from "./observability/logger.js";
import "./auth/request-caller.js";
import { registerLimits } from "./calls/limits.js";
import { Metrics } from "./observability/metrics.js";
import { executeRoute } from "./calls/execute-route.js";
import { lazyCatalog, type McpConnector } from "./mcp/lazy-catalog.js";
import { mcpEndpoint } from "./mcp/transport/http-endpoint.js";
import { discoveryOf } from "./mcp/discovery.js";
import { eventsChannel, McpEvents, type EventsRedis } from "./mcp/events.js";
import type { connectRedis, RedisClient } from "./redis/connect-redis.js";
import type { RedisConfig } from "../config/schema/index.js";
import { metricsRoute } from "./observability/metrics-route.js";
import { metaRoutes } from "./service/meta-routes.js";
import { openapiRoute } from "./openapi/openapi-route.js";
import { registerPortal } from "./openapi/portal.js";
import { registerSurfaceRoutes } from "./surface/routes.js";
import { skillsRoutes } from "./catalog/skills-routes.js";
import { toolRoutes } from "./catalog/tools-route.js";
import { CatalogViews } from "./catalog/view.js";
import { SHARED_SCHEMAS } from "./http/schemas.js";
import { ServiceState } from "./service/service-state.js";
import { registerSwagger } from "./openapi/swagger.js";
import { ToolDocuments } from "./openapi/tool-documents.js";
import { startTelemetry } from "./observability/telemetry.js";
import { traceRequests } from "./observability/trace-requests.js";
import type { Services } from "./services.js";
import { resourceEventsRoute, type ResourceEventsDeps } from "./mcp/surface/events-route.js";

/** Options of {@link buildServer}. */
export interface BuildServerOptions {
  /** A config path, a config object, or a loaded config. Default: an empty config. */
  config?: string | ToolnexusConfigInput | LoadedConfig;
  /** Use this toolkit (or the one this promise gives) instead of building one from the config. */
  toolkit?: Toolkit | Promise<Toolkit>;
  /** Extra tools when the toolkit is built from the config. */
  tools?: Tool[];
  /** A pino logger, pino options, or false for silence. Default: pino at the config's logLevel. */
  logger?: FastifyBaseLogger | LoggerOptions | false;
  /** Where log lines go when the logger is built here (default stdout). Secrets are scrubbed first. */
  logDestination?: DestinationStream;
  /** Where `audit: { sink: stdout }` lines go (default stdout; `toolnexus mcp` uses stderr). Secrets are scrubbed first. */
  auditDestination?: DestinationStream;
  /** Watch the config file and reload on change (needs a config file). Default false. */
  watch?: boolean;
  /** Allow command and file built-ins without API keys, on reload too (`--insecure`). */
  insecure?: boolean;
}

/** The Fastify instance with the service state attached. */
export type ToolnexusServer = FastifyInstance & {
  toolnexus: {
    state: ServiceState;
    loaded: LoadedConfig;
    /** Settles when the toolkit is built (or failed to build). */
    ready: Promise<void>;
    /** Readiness 503, stop accepting, wait up to `shutdownGraceMs`, abort the rest, close sources. */
    shutdown(): Promise<void>;
    /** Reloads the config file now (SIGHUP). Resolves true when the new config is in service. */
    reload(): Promise<boolean>;
    /** The execute pipeline every transport (REST, SSE, /mcp, executions) runs calls through. */
    pipeline: CallPipeline;
    /** What the routes declare (http/route-policy.ts), for documents built outside a request. */
    policies: DeclaredPolicies;
    /** The catalog as an MCP server: `/mcp` and `toolnexus mcp` (stdio) serve it. */
    mcp: McpConnector;
  };
};

/**
 * Builds the REST service. The config is loaded (and a bad one rejected) before this
 * resolves; the sources are built in the background so /healthz answers at once and
 * /readyz turns 200 when they are loaded.
 */
export async function buildServer(opts: BuildServerOptions = {}): Promise<ToolnexusServer> {
  void pinTickShape();
  const loaded = await toLoadedConfig(opts.config ?? {});
  const { server } = loaded.config;
  const scrubber = new SecretScrubber(loaded.secrets);
  const scrub = (text: string) => scrubber.scrub(text);
  const logger = serviceLogger(opts.logger, server.logLevel, scrubber, opts.logDestination);
  // Off (and the OpenTelemetry SDK not even loaded) unless an OTLP endpoint is configured.
  const telemetry = await startTelemetry(loaded.config, logger);

  const app = Fastify(fastifyOptions(server, logger, scrub)).withTypeProvider<TypeBoxTypeProvider>();
  // Fastify is given no logger (fastify-options.ts says why): the service's is app.log, which
  // plugins and Fastify's own lines (listening, client errors) use.
  app.log = logger;

  const state = new ServiceState(loaded, await Authenticator.create(loaded.config, logger));
  const metrics = new Metrics(state);
  const audit = createAudit(state, scrub, logger, opts.auditDestination);
  // The operator console's sessions: the auth hook takes their cookie on the routes that say so.
  const sessions = new ConsoleSessions(() => state.sealer);
  if (audit) app.addHook("onClose", async () => audit.close());
  // Before anything else connects: a pin store unusable in block mode stops the start here.
  const pins = await startPinning(app, state, metrics, logger);
  const policies = installHttpBasics(app, state, telemetry, scrub, sessions.credential);
  narrowViewsToBundles(app, state); // before the routes it applies to

  await registerSwagger(app);
  // Shared state of several replicas: rate-limit counters and executions.
  // ioredis (and BullMQ, in registerExecutions) load only with `redis:`: ~100 ms and ~20 MB otherwise.
  const redisConfig = loaded.config.redis;
  const redisModule = redisConfig ? await import("./redis/connect-redis.js") : undefined;
  const redis = redisConfig ? redisModule?.connectRedis(redisConfig, logger) : undefined;
  // One view of the catalog per caller for GET /tools, the per-tool documents and /mcp.
  const views = new CatalogViews(state);
  const shared: Omit<Services, "executions"> = {
    ...{ state, scrub, log: logger, metrics, sessions, pins, policies, views, redis },
    ...(audit ? { audit } : {}),
    ...(redis && redisModule ? { redisHealth: () => redisModule.redisHealth(redis) } : {}),
    // A tool's output may echo a secret it was configured with (a URL, a header): never return it.
    pipeline: new CallPipeline(state, metrics, (r) => scrubber.scrubResult(r), audit),
    documents: new ToolDocuments(app, state, views, policies, scrub),
    heartbeatMs: () => state.loaded.config.server.heartbeatMs,
  };
  await registerLimits(app, shared);
  await app.register(pinRoutes, shared);
  await app.register(metaRoutes, shared);
  await app.register(skillsRoutes, shared);
  await app.register(metricsRoute, shared);
  await registerProtectedResource(app, shared);
  await app.register(toolRoutes, shared);
  const services: Services = { ...shared, executions: await registerExecutions(app, shared) };
  const { pipeline, executions } = services;
  await registerCredentials(app, services); // each caller's upstream credentials
  await registerConsole(app, services);
  await app.register(executeRoute, services);
  await app.register(openapiRoute, services);
  await registerPortal(app, { ...services, surface: await registerSurfaceRoutes(app, services) });
  const mcp = mcpCatalog(services, redisModule?.connectRedis, redisConfig);
  if (server.mcp.enabled)
    await app.register(mcpEndpoint, {
      catalog: mcp,
      path: server.mcp.path,
      scrub,
      discovery: () => discoveryOf(state.loaded.config.server.mcp),
    });
  await registerBundles(app, { ...services, mcp });
  await app.register(resourceEventsRoute, resourceEvents(mcp, services));

  // Ready once the sources are loaded and Redis, when shared, was reached or found unreachable.
  const redisTried = Promise.all([redis && redisModule?.firstAttempt(redis), executions.connected]);
  const ready = loadSources(opts, loaded, state, scrubber, logger, redisTried);

  const reloader = configReloader(opts, loaded, state, logger, scrubber);
  if (reloader && opts.watch) void ready.then(() => reloader.start());

  const shutdown = installShutdown(app, state, { mcp, reloader, ready, redis, telemetry, executions }, server.shutdownGraceMs);
  const reload = async () => (reloader ? reloader.reload() : false);
  return Object.assign(app, {
    toolnexus: { state, loaded, ready, shutdown, reload, pipeline, policies, mcp },
  }) as unknown as ToolnexusServer;
}

/**
 * What every route relies on, before any is registered: declared policies, shared schemas,
 * the error mapping, the body parser, the protocol guards and the request hooks.
 */
function installHttpBasics(
  app: FastifyInstance,
  state: ServiceState,
  telemetry: Awaited<ReturnType<typeof startTelemetry>>,
  scrub: (text: string) => string,
  sessions: SessionCredential,
): DeclaredPolicies {
  // The address really bound (the CLI's --host wins over server.host); the config's before listen (inject).
  const hostGuard = new HostGuard(() => {
    const address = app.server.address();
    return typeof address === "object" && address ? address.address : state.loaded.config.server.host;
  });
  // Each route declares its policy in its config (http/route-policy.ts); the hooks read it.
  const policies = new DeclaredPolicies(app);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  installErrorHandler(app, scrub, new RouteMethods(app));
  installJsonBodyParser(app);
  installProtocolGuards(app);
  app.decorateRequest("caller", null as never);
  // First of the hooks: a request refused by auth or the Host guard gets its server span too.
  if (telemetry) traceRequests(app, telemetry);
  // Callback-style hooks: these run on every request, and an async hook costs a promise each.
  installRequestHooks(app, state, hostGuard, scrub, sessions);
  return policies;
}

/** The catalog as an MCP server (`/mcp`, bundles, stdio), over the services the routes share. */
function mcpCatalog(services: Services, connect: typeof connectRedis | undefined, redisConfig: RedisConfig | undefined): McpConnector {
  const { state, views, pipeline, scrub, log, redis, executions } = services;
  // Catalog changes reach subscriptions/listen streams on every replica when Redis is shared.
  const events = mcpEvents(log, redis, connect, redisConfig);
  const onError = (err: Error) => log.debug({ err: err.message }, "mcp protocol error");
  return lazyCatalog(state, views, pipeline, scrub, events, onError, executions.store, executions.promotion);
}

/** The change events subscriptions/listen hears: over Redis, on every replica, when Redis is shared. */
function mcpEvents(
  logger: FastifyBaseLogger,
  redis: RedisClient | undefined,
  connect: typeof connectRedis | undefined,
  redisConfig: RedisConfig | undefined,
): McpEvents {
  return new McpEvents(
    redis && connect && redisConfig
      ? mcpEventsRedis(redis, redisConfig.namespace, () => connect(redisConfig, logger, { blocking: true, name: "mcp-events" }))
      : undefined,
    (err) => logger.debug({ err: err.message }, "mcp events"),
  );
}

/** What `GET /resources/events` needs: the catalog's surface (loaded on its first request), the change events, the subscriptions. */
function resourceEvents(mcp: McpConnector, { heartbeatMs }: Services): ResourceEventsDeps {
  return {
    methods: async () => (await mcp.catalog()).surface,
    events: mcp.events,
    subscriptions: mcp.subscriptions,
    heartbeatMs,
  };
}

/** Reloads the config file on request (and on change with `watch`); none without a file. */
function configReloader(
  opts: BuildServerOptions,
  loaded: LoadedConfig,
  state: ServiceState,
  logger: FastifyBaseLogger,
  scrubber: SecretScrubber,
): ConfigReloader | undefined {
  return loaded.file
    ? new ConfigReloader({
        file: loaded.file,
        state,
        logger,
        tools: opts.tools ?? [],
        onSecrets: (s) => scrubber.set(s),
        insecure: opts.insecure ?? false,
      })
    : undefined;
}

/** The Fastify instance buildServer composes (the helpers below only add hooks to it). */

/** Loads the sources in the background; the service is ready once they are loaded and Redis was tried. */
function loadSources(
  opts: BuildServerOptions,
  loaded: LoadedConfig,
  state: ServiceState,
  scrubber: SecretScrubber,
  logger: FastifyBaseLogger,
  redisTried: Promise<unknown>,
): Promise<void> {
  return (opts.toolkit ? Promise.resolve(opts.toolkit) : createToolkit(loaded, { tools: opts.tools ?? [], logger }))
    .then(async (tk) => {
      await redisTried;
      // Sources may add secrets while building (values expanded in an mcpConfig file).
      scrubber.set(state.loaded.secrets);
      // Shut down while still loading: nothing will serve this toolkit, close what it started.
      if (state.draining) await tk.close();
      else state.setToolkit(tk);
    })
    .catch((err: Error) => {
      state.loadError = err.message;
      logger.error({ err: err.message }, "tool sources could not be loaded");
    });
}

// Publishing goes over the shared command connection; listening needs a connection of its own.
function mcpEventsRedis(redis: RedisClient, namespace: string | undefined, subscriber: () => RedisClient): EventsRedis {
  return { channel: eventsChannel(namespace), publish: (channel, message) => redis.publish(channel, message), subscriber };
}
