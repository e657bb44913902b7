/**
 * Every setting comes from the environment (credentials from Firebase secrets, which arrive as env vars).
 * The README's configuration table lists each one.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  store: 'sqlite' | 'firestore';
  files: 'local' | 'gcs';
  filesBucket: string;
  tasks: 'local' | 'cloud';
  baseUrl: string;
  aliasUrl: string;
  directUrl: string;
  mcpUrl: string;
  /** Origins a browser may call /mcp from (others get 403); requests without Origin are not browsers and pass. */
  mcpAllowedOrigins: string[];
  /** Origins that get CORS on /v1, /api/v1 and /mcp (the dashboard's). */
  allowedOrigins: string[];
  filesUrl: string;
  /** Where createUploadUrl's capability URLs point: `PUT {uploadsUrl}/{fileId}/{token}`. */
  uploadsUrl: string;
  publicLinkBase: string;
  dashboardUrl: string;
  smtpUrl: string;
  mailFrom: string;
  /** The product's name in emails: `"<business> via <productName>" <address of MAIL_FROM>`. */
  productName: string;
  whatsappBaseUrl: string;
  whatsappApiVersion: string;
  whatsappToken: string;
  whatsappPhoneNumberId: string;
  /** Names of the approved WhatsApp templates; each has a URL button whose suffix is the link path. */
  whatsappTemplates: { paymentRequest: string; paymentPaid: string; paymentReady: string; lateInvoice: string; language: string };
  credentialsKey: string;
  geminiApiKey: string;
  geminiModel: string;
  geminiBaseUrl: string;
  /** Origin the browser returns to after a third-party consent: `{oauthReturnBase}/oauth/<provider>/callback`. */
  oauthReturnBase: string;
  /** Israel Tax Authority OAuth server (authorize and token live under it). */
  itaAuthUrl: string;
  /** Israel Tax Authority API gateway (invoice-information lives under it). */
  itaBaseUrl: string;
  itaClientId: string;
  itaClientSecret: string;
  itaScope: string;
  /** How long one call to the tax authority may take. */
  itaTimeoutMs: number;
  /** Slack (the chat tool): OAuth v2 consent page and Web API base (ends with `/`). */
  chatAuthUrl: string;
  chatBaseUrl: string;
  chatClientId: string;
  chatClientSecret: string;
  /** The mailbox provider (Gmail): OAuth endpoints and the Gmail API root. */
  mailboxAuthUrl: string;
  mailboxTokenUrl: string;
  mailboxBaseUrl: string;
  mailboxClientId: string;
  mailboxClientSecret: string;
  /** Mails of one import task in flight at once. */
  mailboxImportParallelism: number;
  /** How long mailboxImportStart waits for the import before answering it in progress. */
  mailboxImportWaitMs: number;
  /** First pause before a temporary Gmail failure (5xx, garbled or cut-off answer) is retried within a mail; doubles per try. */
  mailboxFetchRetryMs: number;
  /** Statement sources (issue 8): Stripe API root (cardproc), Mercury API root (usbank), Wise API roots (fxwallet). */
  cardprocBaseUrl: string;
  usbankBaseUrl: string;
  fxwalletBaseUrl: string;
  fxwalletSandboxBaseUrl: string;
  /** Cardcom API v11 roots (gateway): GATEWAY_BASE_URL, and GATEWAY_SANDBOX_BASE_URL for connections made with sandbox: true. */
  gatewayBaseUrl: string;
  gatewaySandboxBaseUrl: string;
  /** The freelance marketplace (Upwork, `market`): OAuth endpoints, the GraphQL endpoint and the API client. */
  marketAuthUrl: string;
  marketTokenUrl: string;
  marketBaseUrl: string;
  marketClientId: string;
  marketClientSecret: string;
  /**
   * Time limit of one call to each provider, ms (issue 20): `<NAME>_TIMEOUT_MS`, else PROVIDER_TIMEOUT_MS (20 s).
   * The tax authority's is itaTimeoutMs (ITA_TIMEOUT_MS).
   */
  providerTimeoutMs: { usbank: number; fxwallet: number; gateway: number; cardproc: number; market: number; chat: number; mailbox: number; whatsapp: number };
  quotas: Record<string, number>;
  /** Proxies in front of the service that append to X-Forwarded-For (Hosting and Google's front end: 2). */
  trustedProxyHops: number;
  /** Public page limits: requests per IP per minute, per link per minute, standing-link filings per day, files per payment. */
  pageLimits: { perIpPerMin: number; perLinkPerMin: number; filingsPerLinkPerDay: number; filesPerPayment: number };
  /** Requests per API key per minute (0: no limit). */
  rateLimitPerMin: number;
  /** Requests per user per minute, all their keys and dashboard sign-ins together (0: no limit). */
  rateLimitUserPerMin: number;
  /** Requests per business per minute, all its members together (0: no limit). */
  rateLimitBusinessPerMin: number;
  /** Delivery attempts before an outbox message that keeps failing ends `undelivered` (default: one more than the delays). */
  outboxMaxAttempts: number;
  /** Seconds before each retry of a message that failed for a passing reason; the last repeats (OUTBOX_RETRY_DELAYS). */
  outboxRetryDelaysS: number[];
  /** Connection, greeting and socket timeout of one SMTP delivery. */
  smtpTimeoutMs: number;
  /** Tasks of one kind (one queue: deliveries, syncs, import batches...) the local queue runs at once. */
  localQueueConcurrency: number;
  /** Of those, at most this many for one business (a provider hanging for one business leaves the rest free). */
  localQueuePerBusiness: number;
  /** Fail queries that no index in firestore.indexes.json serves (on in tests). */
  strictIndexes: boolean;
  /** Check every result against the operation's declared output schema (on in tests). */
  validateOutput: boolean;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

const positiveInt = (v: string | undefined, fallback: number) => (v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : fallback);

/** The origin of a URL setting (`undefined` when unset or not a URL). */
const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

/** Per-provider call time limits: `<NAME>_TIMEOUT_MS`, falling back to PROVIDER_TIMEOUT_MS, then 20 s. */
function providerTimeouts(env: NodeJS.ProcessEnv): Config['providerTimeoutMs'] {
  const base = positiveInt(env.PROVIDER_TIMEOUT_MS, 20_000);
  const of = (name: string) => positiveInt(env[`${name}_TIMEOUT_MS`], base);
  return { usbank: of('USBANK'), fxwallet: of('FXWALLET'), gateway: of('GATEWAY'), cardproc: of('CARDPROC'), market: of('MARKET'), chat: of('CHAT'), mailbox: of('MAILBOX'), whatsapp: of('WHATSAPP') };
}

/** `Name <address>` (or a bare address) split in two; the name may be quoted. */
export function mailbox(from: string): { name: string; address: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^<>\s]+)>\s*$/.exec(from);
  return m ? { name: m[1].trim(), address: m[2] } : { name: '', address: from.trim() };
}

// messages: outgoing messages a business's operations may send a day (issue 34, docs/decisions.md).
const DEFAULT_QUOTAS: Record<string, number> = { ai: 500, messages: 500 };

/** About a day of retries (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), as the webhook deliveries use. */
export const DEFAULT_OUTBOX_RETRY_DELAYS_S = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

const retryDelays = (env: NodeJS.ProcessEnv) => {
  const list = (env.OUTBOX_RETRY_DELAYS ?? '').split(',').map((v) => v.trim());
  return list.length && list.every((v) => /^\d+$/.test(v)) ? list.map(Number) : DEFAULT_OUTBOX_RETRY_DELAYS_S;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8787);
  const host = env.HOST ?? '127.0.0.1';
  const origin = env.PUBLIC_ORIGIN ?? `http://${host}:${port}`;
  const inFunctions = Boolean(env.K_SERVICE || env.FUNCTION_TARGET || env.FUNCTIONS_EMULATOR);
  // In the Functions emulator without a Firestore emulator, the functions run on the embedded store.
  const defaultStore = inFunctions && (env.FIRESTORE_EMULATOR_HOST || env.FUNCTIONS_EMULATOR !== 'true') ? 'firestore' : 'sqlite';
  const quotas = { ...DEFAULT_QUOTAS };
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith('QUOTA_') && v !== undefined && /^\d+$/.test(v)) quotas[k.slice(6).toLowerCase()] = Number(v);
  }
  return {
    port,
    host,
    dataDir: env.DATA_DIR ?? '.data',
    store: (env.STORE as Config['store']) ?? defaultStore,
    // The Storage emulator cannot run offline, so an emulated function keeps files local unless one is there.
    files: (env.FILES as Config['files']) ?? (defaultStore === 'firestore' && (env.FUNCTIONS_EMULATOR !== 'true' || env.FIREBASE_STORAGE_EMULATOR_HOST) ? 'gcs' : 'local'),
    filesBucket: env.FILES_BUCKET ?? '',
    tasks: (env.TASKS as Config['tasks']) ?? (inFunctions ? 'cloud' : 'local'),
    baseUrl: env.BASE_URL ?? `${origin}/v1`,
    aliasUrl: env.ALIAS_URL ?? `${origin}/api/v1`,
    directUrl: env.DIRECT_URL ?? `${origin}/v1`,
    mcpUrl: env.MCP_URL ?? `${origin}/mcp`,
    // A browser's Origin has no path: the default is the origin of each address the service is reached at.
    mcpAllowedOrigins: [
      ...new Set(
        (env.MCP_ALLOWED_ORIGINS?.split(',') ?? [origin, env.BASE_URL, env.ALIAS_URL, env.DIRECT_URL, env.MCP_URL, env.DASHBOARD_URL, ...(env.ALLOWED_ORIGINS?.split(',') ?? [])].map(originOf))
          .map((s) => s?.trim().replace(/\/+$/, ''))
          .filter((s): s is string => Boolean(s)),
      ),
    ],
    // CORS: the dashboard's origin unless configured.
    allowedOrigins: [
      ...new Set(
        (env.ALLOWED_ORIGINS?.split(',') ?? [env.DASHBOARD_URL ?? origin].map(originOf))
          .map((s) => s?.trim().replace(/\/+$/, ''))
          .filter((s): s is string => Boolean(s)),
      ),
    ],
    filesUrl: env.FILES_URL ?? `${origin}/files`,
    uploadsUrl: env.UPLOADS_URL ?? `${origin}/uploads`,
    publicLinkBase: env.PUBLIC_LINK_BASE ?? `${origin}/p`,
    dashboardUrl: env.DASHBOARD_URL ?? origin,
    smtpUrl: env.SMTP_URL ?? '',
    mailFrom: env.MAIL_FROM ?? 'Business Finance <no-reply@localhost>',
    productName: env.PRODUCT_NAME || mailbox(env.MAIL_FROM ?? '').name || 'Business Finance',
    whatsappBaseUrl: env.WHATSAPP_BASE_URL ?? 'https://graph.facebook.com',
    whatsappApiVersion: env.WHATSAPP_API_VERSION ?? 'v23.0',
    whatsappToken: env.WHATSAPP_TOKEN ?? '',
    whatsappPhoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID ?? '',
    whatsappTemplates: {
      paymentRequest: env.WHATSAPP_TEMPLATE_PAYMENT_REQUEST ?? 'payment_request',
      paymentPaid: env.WHATSAPP_TEMPLATE_PAYMENT_PAID ?? 'payment_paid',
      paymentReady: env.WHATSAPP_TEMPLATE_PAYMENT_READY ?? 'payment_ready',
      lateInvoice: env.WHATSAPP_TEMPLATE_LATE_INVOICE ?? 'late_invoice',
      language: env.WHATSAPP_TEMPLATE_LANGUAGE ?? 'he',
    },
    credentialsKey: env.CREDENTIALS_KEY ?? '',
    geminiApiKey: env.GEMINI_API_KEY ?? '',
    geminiModel: env.GEMINI_MODEL ?? 'gemini-2.5-flash',
    geminiBaseUrl: env.GEMINI_BASE_URL ?? '',
    oauthReturnBase: (env.OAUTH_RETURN_BASE || origin).replace(/\/+$/, ''),
    itaAuthUrl: env.ITA_AUTH_URL ?? 'https://openapi.taxes.gov.il/shaam/production/longtimetoken/oauth2',
    itaBaseUrl: env.ITA_BASE_URL ?? 'https://openapi.taxes.gov.il/shaam/production',
    itaClientId: env.ITA_CLIENT_ID ?? '',
    itaClientSecret: env.ITA_CLIENT_SECRET ?? '',
    itaScope: env.ITA_SCOPE ?? 'scope',
    itaTimeoutMs: positiveInt(env.ITA_TIMEOUT_MS, positiveInt(env.PROVIDER_TIMEOUT_MS, 20_000)),
    chatAuthUrl: env.CHAT_AUTH_URL || 'https://slack.com/oauth/v2/authorize',
    chatBaseUrl: (env.CHAT_BASE_URL || 'https://slack.com/api').replace(/\/+$/, '') + '/',
    chatClientId: env.CHAT_CLIENT_ID ?? '',
    chatClientSecret: env.CHAT_CLIENT_SECRET ?? '',
    mailboxAuthUrl: env.MAILBOX_AUTH_URL || 'https://accounts.google.com/o/oauth2/v2/auth',
    mailboxTokenUrl: env.MAILBOX_TOKEN_URL || 'https://oauth2.googleapis.com/token',
    mailboxBaseUrl: (env.MAILBOX_BASE_URL || 'https://gmail.googleapis.com').replace(/\/+$/, ''),
    mailboxClientId: env.MAILBOX_CLIENT_ID ?? '',
    mailboxClientSecret: env.MAILBOX_CLIENT_SECRET ?? '',
    mailboxImportParallelism: positiveInt(env.MAILBOX_IMPORT_PARALLELISM, 10),
    mailboxFetchRetryMs: env.MAILBOX_FETCH_RETRY_MS !== undefined && /^\d+$/.test(env.MAILBOX_FETCH_RETRY_MS) ? Math.min(Number(env.MAILBOX_FETCH_RETRY_MS), 10_000) : 500,
    mailboxImportWaitMs: env.MAILBOX_IMPORT_WAIT_MS !== undefined && /^\d+$/.test(env.MAILBOX_IMPORT_WAIT_MS) ? Math.min(Number(env.MAILBOX_IMPORT_WAIT_MS), 530_000) : 530_000,
    cardprocBaseUrl: (env.CARDPROC_BASE_URL || 'https://api.stripe.com').replace(/\/+$/, ''),
    usbankBaseUrl: (env.USBANK_BASE_URL || 'https://api.mercury.com/api/v1').replace(/\/+$/, ''),
    fxwalletBaseUrl: (env.FXWALLET_BASE_URL || 'https://api.wise.com').replace(/\/+$/, ''),
    fxwalletSandboxBaseUrl: (env.FXWALLET_SANDBOX_BASE_URL || 'https://api.wise-sandbox.com').replace(/\/+$/, ''),
    gatewayBaseUrl: (env.GATEWAY_BASE_URL || 'https://secure.cardcom.solutions/api/v11').replace(/\/+$/, ''),
    gatewaySandboxBaseUrl: (env.GATEWAY_SANDBOX_BASE_URL || 'https://secure.cardcom.solutions/api/v11').replace(/\/+$/, ''),
    marketAuthUrl: env.MARKET_AUTH_URL || 'https://www.upwork.com/ab/account-security/oauth2/authorize',
    marketTokenUrl: env.MARKET_TOKEN_URL || 'https://www.upwork.com/api/v3/oauth2/token',
    marketBaseUrl: env.MARKET_BASE_URL || 'https://api.upwork.com/graphql',
    marketClientId: env.MARKET_CLIENT_ID ?? '',
    marketClientSecret: env.MARKET_CLIENT_SECRET ?? '',
    providerTimeoutMs: providerTimeouts(env),
    quotas,
    trustedProxyHops: env.TRUSTED_PROXY_HOPS !== undefined && /^\d+$/.test(env.TRUSTED_PROXY_HOPS) ? Number(env.TRUSTED_PROXY_HOPS) : inFunctions ? 2 : 0,
    pageLimits: {
      perIpPerMin: positiveInt(env.PAGE_LIMIT_PER_IP_PER_MIN, 60),
      perLinkPerMin: positiveInt(env.PAGE_LIMIT_PER_LINK_PER_MIN, 20),
      filingsPerLinkPerDay: positiveInt(env.PAGE_LIMIT_FILINGS_PER_DAY, 50),
      filesPerPayment: positiveInt(env.PAGE_LIMIT_FILES_PER_PAYMENT, 10),
    },
    rateLimitPerMin: env.RATE_LIMIT_PER_MIN !== undefined && /^\d+$/.test(env.RATE_LIMIT_PER_MIN) ? Number(env.RATE_LIMIT_PER_MIN) : 600,
    rateLimitUserPerMin: env.RATE_LIMIT_USER_PER_MIN !== undefined && /^\d+$/.test(env.RATE_LIMIT_USER_PER_MIN) ? Number(env.RATE_LIMIT_USER_PER_MIN) : 1200,
    rateLimitBusinessPerMin: env.RATE_LIMIT_BUSINESS_PER_MIN !== undefined && /^\d+$/.test(env.RATE_LIMIT_BUSINESS_PER_MIN) ? Number(env.RATE_LIMIT_BUSINESS_PER_MIN) : 3000,
    outboxMaxAttempts: positiveInt(env.OUTBOX_MAX_ATTEMPTS, retryDelays(env).length + 1),
    outboxRetryDelaysS: retryDelays(env),
    smtpTimeoutMs: positiveInt(env.SMTP_TIMEOUT_MS, 20_000),
    localQueueConcurrency: positiveInt(env.LOCAL_QUEUE_CONCURRENCY, 4),
    localQueuePerBusiness: positiveInt(env.LOCAL_QUEUE_PER_BUSINESS, 2),
    strictIndexes: env.STRICT_INDEXES === '1',
    validateOutput: env.VALIDATE_OUTPUT === '1',
    logLevel: (env.LOG_LEVEL as Config['logLevel']) ?? 'info',
  };
}
