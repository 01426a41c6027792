// A webhook receiver for Alertmanager that prints one line per alert and keeps the last notifications: the compose stack's pager.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One alert of a notification, as Alertmanager's webhook sends it. */
export interface WebhookAlert {
  status: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
}

/** One notification: Alertmanager's webhook payload, the request path it came to, and when it arrived. */
export interface Notification {
  path: string;
  receivedAt: number;
  receiver: string;
  status: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  alerts: WebhookAlert[];
  /** The whole payload as sent (it is Alertmanager's template data). */
  payload: Record<string, unknown>;
}

export interface RunningReceiver {
  url: string;
  /** Every notification received so far (at most `keep`), oldest first. */
  notifications(): Notification[];
  close(): Promise<void>;
}

export interface ReceiverOptions {
  host?: string;
  port?: number;
  /** Notifications kept for GET / and notifications(). */
  keep?: number;
  /** Where the one-line summaries go; nothing is printed without it. */
  print?: (line: string) => void;
}

const MAX_BODY_BYTES = 1 << 20;

function strings(value: unknown): Record<string, string> {
  if (value === null || typeof value !== "object") return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Reads a webhook payload; undefined when it is not one. */
export function parseNotification(path: string, body: unknown, receivedAt: number): Notification | undefined {
  if (body === null || typeof body !== "object" || !Array.isArray((body as { alerts?: unknown }).alerts)) return undefined;
  const b = body as Record<string, unknown>;
  const alerts = (b.alerts as unknown[]).map((a) => {
    const o = (a !== null && typeof a === "object" ? a : {}) as Record<string, unknown>;
    return {
      status: String(o.status ?? ""),
      labels: strings(o.labels),
      annotations: strings(o.annotations),
      startsAt: String(o.startsAt ?? ""),
      endsAt: String(o.endsAt ?? ""),
    };
  });
  return {
    path,
    receivedAt,
    receiver: String(b.receiver ?? ""),
    status: String(b.status ?? ""),
    groupLabels: strings(b.groupLabels),
    commonLabels: strings(b.commonLabels),
    alerts,
    payload: b,
  };
}

/** Control characters (a newline in a venue's market id, say) escaped, so one alert stays one line and cannot forge another. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** One line per alert: status, name, routing labels, then the summary and runbook (or when it resolved). */
export function describeAlert(receiver: string, alert: WebhookAlert): string {
  const { alertname = "?", ...labels } = alert.labels;
  const routing = ["severity", "account", "collateral_id", "instance", "job"].flatMap((k) => (labels[k] ? [`${k}=${labels[k]}`] : []));
  const head = [alert.status.toUpperCase(), alertname, ...routing, `receiver=${receiver}`].join(" ");
  if (alert.status === "resolved") return oneLine(`${head}: resolved at ${alert.endsAt}`);
  return oneLine(
    [`${head}:`, alert.annotations.summary, alert.annotations.runbook_url && `runbook=${alert.annotations.runbook_url}`].filter(Boolean).join(" "),
  );
}

/** The body as text, or undefined once it passes MAX_BODY_BYTES (the connection is then dropped). */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function reply(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export function startReceiver(options: ReceiverOptions = {}): Promise<RunningReceiver> {
  const keep = options.keep ?? 100;
  const received: Notification[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      if (req.method === "GET") return reply(res, 200, "application/json", `${JSON.stringify(received.slice().reverse(), null, 2)}\n`);
      if (req.method !== "POST") return reply(res, 405, "text/plain", "method not allowed\n");
      const text = await readBody(req);
      if (text === undefined) return reply(res, 413, "text/plain", "body too large\n");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return reply(res, 400, "text/plain", "body is not JSON\n");
      }
      const notification = parseNotification(path, body, Date.now());
      if (notification === undefined) return reply(res, 400, "text/plain", "not an Alertmanager webhook payload\n");
      received.push(notification);
      if (received.length > keep) received.splice(0, received.length - keep);
      for (const alert of notification.alerts) options.print?.(describeAlert(notification.receiver, alert));
      reply(res, 200, "text/plain", "ok\n");
    })().catch(() => {
      if (!res.headersSent) reply(res, 500, "text/plain", "internal error\n");
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(":") ? `[${address}]` : address;
      resolve({
        url: `http://${host}:${port}`,
        notifications: () => received.slice(),
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
