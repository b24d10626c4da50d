/**
 * Connecting to Redis: the owned client's settings (bounded failure time), where the server is (for messages),
 * turning ioredis errors into actionable sentences, and the `maxmemory-policy` check.
 */
import { Cluster, Redis } from "ioredis";

/** Where the server is, for error messages (`host:port`, or the startup nodes of a cluster). */
export type ServerAddress = string;

/** Settings of a client the checkpointer creates from a URL. */
export interface OwnedClientSettings {
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly maxRetriesPerRequest: number;
}

/** `host:port` of a `redis://` / `rediss://` URL. */
export function addressOfUrl(url: string): ServerAddress {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname === "" ? "127.0.0.1" : parsed.hostname}:${parsed.port === "" ? "6379" : parsed.port}`;
  } catch {
    return url;
  }
}

/** Where an application's client points. */
export function addressOfClient(client: Redis | Cluster): ServerAddress {
  if (client instanceof Cluster) {
    const nodes = (client as unknown as { startupNodes?: unknown[] }).startupNodes ?? [];
    const described = nodes.map((node) =>
      typeof node === "object" && node !== null
        ? `${String((node as { host?: unknown }).host ?? "127.0.0.1")}:${String((node as { port?: unknown }).port ?? 6379)}`
        : String(node),
    );
    return described.length === 0 ? "the Redis Cluster" : `the Redis Cluster at ${described.join(", ")}`;
  }
  const options = client.options;
  return options.path !== undefined && options.path !== null
    ? String(options.path)
    : `${options.host ?? "127.0.0.1"}:${options.port ?? 6379}`;
}

/**
 * A client with bounded failure times: a command waits through at most `maxRetriesPerRequest` reconnect attempts
 * (each bounded by `connectTimeoutMs`, with 100–500 ms pauses), and a command the server does not answer fails
 * after `commandTimeoutMs`. Commands issued while reconnecting are queued and sent after reconnecting; that replay
 * is safe because every write is fenced by the lease epoch and step writes are upserts. Auto-pipelining stays off:
 * a run's calls are sequential, and batching them per tick cost more CPU than it saved (measured on the bench chain).
 */
export function createOwnedClient(settings: OwnedClientSettings): Redis {
  return new Redis(settings.url, {
    lazyConnect: true,
    connectTimeout: settings.connectTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
    maxRetriesPerRequest: settings.maxRetriesPerRequest,
    retryStrategy: (times) => Math.min(times * 100, 500),
    connectionName: "graph-checkpoint",
  });
}

function fieldOf(error: unknown, field: string): unknown {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
}

/**
 * An actionable sentence for a connection-level ioredis error, or `undefined` for other errors. `lastError` is
 * the last error the client emitted (e.g. `ECONNREFUSED` while reconnecting), which names the real cause.
 */
export function describeRedisError(error: unknown, at: ServerAddress, lastError: unknown): string | undefined {
  const name = String(fieldOf(error, "name") ?? "");
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    lastError === undefined
      ? ""
      : ` (last connection error: ${String(fieldOf(lastError, "code") ?? "")}${
          fieldOf(lastError, "code") === undefined ? "" : " "
        }${lastError instanceof Error ? lastError.message : String(lastError)})`;
  if (name === "MaxRetriesPerRequestError" || /max retries per request/i.test(message)) {
    return (
      `cannot reach Redis at ${at}: the connection was lost and reconnecting failed${cause}. Is the server ` +
      "running and reachable? Set REDIS_URL or pass url (raise maxRetriesPerRequest / connectTimeoutMs for " +
      "unreliable networks)."
    );
  }
  if (/Command timed out/i.test(message)) {
    return (
      `Redis at ${at} did not answer within commandTimeoutMs${cause}. The server may be overloaded, paused or ` +
      "unreachable. A write that timed out may still have been applied; fenced writes keep that safe."
    );
  }
  if (
    /Connection is closed|Stream isn't writeable|connect ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENOTFOUND/i.test(message)
  ) {
    return `cannot reach Redis at ${at} (${message})${cause}. Is the server running? Set REDIS_URL or pass url.`;
  }
  if (/^NOAUTH|^WRONGPASS/.test(message)) {
    return `Redis at ${at} rejected the login (${message}). Check the user and password in the URL.`;
  }
  if (/^OOM/.test(message)) {
    return `Redis at ${at} is out of memory (${message}). Raise maxmemory or delete old workflows (ttlMs policy).`;
  }
  if (/^NOSCRIPT|^ERR unknown command/.test(message)) {
    return `Redis at ${at} refused a command (${message}). The checkpointer needs Redis >= 6.2 with Lua scripting (EVAL/EVALSHA).`;
  }
  return undefined;
}

/** Reads `maxmemory-policy` from `INFO memory` (allowed on managed Redis where `CONFIG` is disabled). */
export async function evictionPolicies(client: Redis | Cluster): Promise<string[]> {
  const nodes = await scanNodes(client);
  const policies: string[] = [];
  for (const node of nodes) {
    const info = await node.info("memory");
    const match = /^maxmemory_policy:(\S+)/m.exec(info);
    policies.push(match?.[1] ?? "unknown");
  }
  return policies;
}

/** The master nodes to `SCAN` (one for a standalone server). */
export async function scanNodes(client: Redis | Cluster): Promise<Redis[]> {
  if (!(client instanceof Cluster)) return [client];
  // The node list is only final once the cluster client has loaded the slot map: any command waits for that.
  if (client.status !== "ready") await client.ping();
  return client.nodes("master");
}
