import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { newId } from '../domain/ids.js';
import type { RateLimitOverride } from '../domain/plans.js';
import type { AccountStore } from '../ports/account-store.js';
import type { KeyStore } from '../ports/key-store.js';
import { type Config, type HttpTimeouts, loadConfig } from '../settings/config.js';
import { LazyChildLogger } from '../support/logger.js';
import type { Environments } from '../wiring/environments.js';
import { applyAccountPlan } from './account-plan.js';
import { registerAdmission } from './admission.js';
import { registerAuth } from './auth.js';
import { servingConstantsOnce } from './constant-answers.js';
import { registerCors } from './cors.js';
import { clientErrorHandler, frameworkError, registerErrorHandling } from './errors.js';
import { registerFraming } from './framing.js';
import { registerIdempotency } from './idempotency.js';
import { registerOpenApi } from './openapi.js';
import { registerRequestGate } from './request-gate.js';
import { registerRequestLog } from './request-log.js';
import { registerAssessmentLinkRoutes } from './routes/assessment-links.js';
import { registerAssessmentRoutes } from './routes/assessments.js';
import { type CareersCatalogue, noCareersCatalogue, registerCareerRoutes } from './routes/careers.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerEmbedRoutes } from './routes/embed.js';
import { registerEventRoutes } from './routes/events.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerHostedLinkRoutes } from './routes/hosted-link.js';
import { registerItemRoutes } from './routes/items.js';
import { type McpSettings, registerMcpRoute } from './routes/mcp.js';
import { registerProfileChartRoute } from './routes/profile-chart.js';
import { registerProfileRoutes } from './routes/profiles.js';
import { registerSituationalRoutes } from './routes/situational.js';
import { registerSubjectRoutes } from './routes/subjects.js';
import { registerUsageRoutes } from './routes/usage.js';
import { registerWebhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { registerStrictInput } from './strict-input.js';
import { validatorCompiler } from './validation.js';

export interface AppDependencies {
  logger: Logger;
  keys: KeyStore;
  envs: Environments;
  /** Per API key, the account's plan's figures (domain/plans.ts); those given here replace them (NATURE_RATE_LIMIT_*). */
  rateLimit?: RateLimitOverride;
  /** Writes under way at once before one more is answered 503 (admission.ts); NATURE_MAX_WRITES_IN_FLIGHT's default otherwise. */
  maxWritesInFlight?: number;
  /** Time for commands and for deriving `expired`; tests move it. */
  clock?: () => Date;
  /** The webhook settings, which the webhook guide quotes; their defaults otherwise. */
  webhooks?: Config['webhooks'];
  /** Whether an error means a backend does not answer now (environments.ts's backendUnavailable): answered 503. */
  unavailable: (error: unknown) => boolean;
  /** NATURE_PUBLIC_URL: the origin the docs, the OpenAPI document and problem types name; unset, the one each request came to. */
  publicUrl?: string | undefined;
  /** The MCP endpoint's settings; by default live keys are refused there. */
  mcp?: McpSettings;
  /** How long a client may take to send a request and keep a connection; their defaults otherwise. */
  timeouts?: HttpTimeouts;
  /** The account's store: the hosted assessment pages name the caller as its production-access application does. */
  accounts?: AccountStore;
  /** The careers catalogue served now (src/wiring/careers-source.ts); none: the careers routes answer 503 until one is imported. */
  careers?: CareersCatalogue;
}

const BODY_LIMIT_BYTES = 64 * 1024;

export async function buildApp({
  logger,
  keys,
  envs,
  rateLimit = {},
  maxWritesInFlight = loadConfig({}).maxWritesInFlight,
  clock = () => new Date(),
  webhooks = loadConfig({}).webhooks,
  unavailable,
  publicUrl,
  mcp = { liveKeys: false },
  timeouts = loadConfig({}).httpTimeouts,
  careers = noCareersCatalogue,
  accounts,
}: AppDependencies): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    // pino's Logger is a FastifyBaseLogger; typing the instance plainly keeps route modules generic-free.
    loggerInstance: logger as FastifyInstance['log'],
    genReqId: () => newId('req'),
    // request.log is made when a request logs a line of its own (logger.ts).
    childLoggerFactory: (parent, bindings, options) => new LazyChildLogger(parent as Logger, bindings, options),
    // One line per request (request-log.ts) instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Our own 503 while closing is problem+json (errors.ts); fastify's is not.
    return503OnClosing: false,
    frameworkErrors: frameworkError(publicUrl),
    clientErrorHandler: clientErrorHandler(logger, publicUrl),
    // An over-long id reaches its route and gets the same 404 as any unknown id (URLs are bounded by the header limit).
    routerOptions: { maxParamLength: 16 * 1024 },
    // Without them (fastify's default is 0, which switches off Node's own request timeout too) a client that trickles
    // its request holds a connection for as long as it likes. A request received whole is answered however long its
    // handler takes: only silence for connectionTimeout cuts it (the MCP endpoint answers in JSON, never a held stream).
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.connectionMs,
    http: {
      // A missing Host is answered by our own problem+json (framing.ts), not by Node's bare 400.
      requireHostHeader: false,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node checks the two above this often (30 s by default): a quarter of the shorter keeps each within 25 %.
      connectionsCheckingInterval: Math.max(250, Math.floor(timeouts.headersMs / 4)),
    },
  });
  // Bodies are JSON only: anything else is 415, so fastify's default text/plain parser goes.
  app.removeContentTypeParser('text/plain');
  registerFraming(app, publicUrl);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(servingConstantsOnce(serializerCompiler));
  // Before the routes: it learns the words of their paths, which the request log keeps as they are.
  registerRequestLog(app, logger, envs, clock);
  registerErrorHandling(app, unavailable, publicUrl);
  registerStrictInput(app);
  const plans = await applyAccountPlan(app, { accounts, logger, override: rateLimit, clock });
  const limit = plans.limiter;
  // The one onRequest hook (request-gate.ts); CORS registers its route list before the routes are declared.
  registerRequestGate(app, { limit, cors: registerCors(app), authenticate: registerAuth(app, keys, envs, limit, clock) });
  // Before the routes: it adds itself to each write route as it is declared.
  registerAdmission(app, maxWritesInFlight);
  registerIdempotency(app, clock);
  await registerOpenApi(app, webhooks, publicUrl);
  registerHealthRoutes(app, envs, keys);
  registerSubjectRoutes(app, clock);
  registerItemRoutes(app);
  registerAssessmentRoutes(app, clock);
  registerAssessmentLinkRoutes(app, { clock, keys, publicUrl });
  registerHostedLinkRoutes(app, { envs, accounts, clock });
  registerProfileRoutes(app);
  registerProfileChartRoute(app);
  registerWebhookEndpointRoutes(app, clock);
  registerEventRoutes(app);
  registerUsageRoutes(app, clock, plans);
  registerCareerRoutes(app, careers);
  registerSituationalRoutes(app, clock);
  registerDocsRoutes(app, webhooks, publicUrl);
  registerEmbedRoutes(app);
  registerMcpRoute(app, mcp, publicUrl);
  return app;
}
