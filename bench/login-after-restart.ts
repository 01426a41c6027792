// The login flood right after a restart: 59 addresses with new wrong passwords and one correct client start together.

import { Agent, request } from "node:http";

/** Flooding clients, each from its own loopback address (all of 127.0.0.0/8 is loopback on Linux). */
export const FLOOD_ADDRESSES = 59;
const CORRECT_ADDRESS = "127.0.1.1";
/**
 * One run per entry: where the correct client's first request is sent among the flooders' first ones
 * (0 = before them all, 59 = after them all), or "1 s late", once the flood has run for a second.
 */
const STARTS: ReadonlyArray<number | "1 s late"> = [0, 15, 30, 45, FLOOD_ADDRESSES, "1 s late"];
const LATE_MS = 1_000;
/** A run that has not let the correct client in by then is reported as such (the naive peer's answers take ever longer). */
const GIVE_UP_MS = 20_000;

export interface Peer {
  url: string;
  close(): Promise<void>;
}

export interface RestartRow {
  peer: string;
  start: string;
  firstSuccessMs: number;
  /** Not let in within GIVE_UP_MS: firstSuccessMs is only a lower bound. */
  gaveUp: boolean;
  tooManyRequests: number;
  floodRequests: number;
}

interface Reply {
  status: number;
  retryAfterMs: number;
}

function send(url: URL, agent: Agent, localAddress: string, authorization: string): Promise<Reply> {
  return new Promise((resolve) => {
    request(url, { agent, localAddress, headers: { authorization } }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfterMs: 1000 * (Number(res.headers["retry-after"]) || 1) }));
      res.on("error", () => resolve({ status: 0, retryAfterMs: 1000 }));
    })
      .on("error", () => resolve({ status: 0, retryAfterMs: 1000 }))
      .end();
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Like pause, but never keeps the benchmark alive once everything else is done. */
const deadline = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref());

/** Logs in until let in, honouring Retry-After (1 s) after a 429 as a polite client does; the time and the 429s. */
async function correctClient(url: URL, authorization: string): Promise<{ ms: number; tooManyRequests: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const started = performance.now();
  let tooManyRequests = 0;
  try {
    while (performance.now() - started < GIVE_UP_MS) {
      const reply = await Promise.race([send(url, agent, CORRECT_ADDRESS, authorization), deadline(started + GIVE_UP_MS - performance.now())]);
      if (reply === undefined) break;
      if (reply.status === 200) return { ms: performance.now() - started, tooManyRequests };
      if (reply.status === 429) tooManyRequests++;
      await pause(reply.retryAfterMs);
    }
    return { ms: Number.POSITIVE_INFINITY, tooManyRequests };
  } finally {
    agent.destroy();
  }
}

/** One fresh peer per run, the flood and the correct client starting in the order `STARTS` gives. */
export async function afterRestart(
  peer: string,
  startPeer: () => Promise<Peer>,
  credentials: { user: string; password: string; basic(user: string, password: string): string },
): Promise<RestartRow[]> {
  const rows: RestartRow[] = [];
  for (const start of STARTS) {
    const running = await startPeer();
    const url = new URL("metrics", running.url);
    let stop = false;
    let floodRequests = 0;
    const flooder = async (i: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const user = i % 2 === 0 ? credentials.user : `mallory${i}`;
      while (!stop) {
        await send(url, agent, `127.0.0.${2 + i}`, credentials.basic(user, `guess-${i}-${floodRequests++}`));
      }
      agent.destroy();
    };
    const flood: Array<Promise<void>> = [];
    let correct: Promise<{ ms: number; tooManyRequests: number }> | undefined;
    const authorization = credentials.basic(credentials.user, credentials.password);
    for (let i = 0; i <= FLOOD_ADDRESSES; i++) {
      if (i === start) correct = correctClient(url, authorization);
      if (i < FLOOD_ADDRESSES) flood.push(flooder(i));
    }
    correct ??= pause(LATE_MS).then(() => correctClient(url, authorization));
    const { ms, tooManyRequests } = await correct;
    stop = true;
    // Closed first: the naive peer's last answers to the flood could take many seconds.
    await running.close();
    await Promise.all(flood);
    const row = {
      peer,
      start: typeof start === "number" ? `after ${start} of ${FLOOD_ADDRESSES}` : start,
      firstSuccessMs: Math.round(Math.min(ms, GIVE_UP_MS)),
      gaveUp: !Number.isFinite(ms),
      tooManyRequests,
      floodRequests,
    };
    console.error(`${peer}, correct client ${row.start}: let in after ${row.gaveUp ? "more than " : ""}${row.firstSuccessMs} ms, ${tooManyRequests} × 429`);
    rows.push(row);
  }
  return rows;
}

export function printRestartTable(rows: readonly RestartRow[]): void {
  console.log(`\nRight after a restart: ${FLOOD_ADDRESSES} addresses send new wrong passwords from the first moment; one correct client logs in`);
  console.log("(its first request sent after that many of the flooders' first requests, or 1 s into the flood; after a 429 it waits Retry-After):");
  console.log("| peer | correct client starts | first success ms | 429s it saw | wrong-password requests answered |");
  console.log("|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.peer} | ${r.start} | ${r.gaveUp ? "> " : ""}${r.firstSuccessMs} | ${r.tooManyRequests} | ${r.floodRequests} |`);
  console.log("Goal: the first success within 1000 ms.");
}
