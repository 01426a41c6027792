// The large profile's simulated venue with the exporter and the naive peer pointed at it: started
// the same way by every part of the benchmark that compares them, and stopped as one.

import type { VenueTarget } from "./bound.js";
import { benchNodeArgs, type ExporterProcess, startExporterProcess } from "./exporter-process.js";
import { type PeerProcess, startPeerProcess } from "./peer-process.js";
import { ACTIVE_LIMIT, BASE_ENV, HISTORY_LIMIT, KEY } from "./shared.js";
import { type SimulatorProcess, startSimulatorProcess } from "./simulator-process.js";

export const COLLATERALS = ["USDC", "USDT", "BTC"];

/** The simulator's flags for the large profile; `moving`: every private answer differs from the last. */
export const largeVenueArgs = (moving: boolean): string[] => ["--profile", "large", "--tick-ms", "0", "--api-key", KEY, ...(moving ? ["--moving"] : [])];

export interface LargeVenue {
  venue: SimulatorProcess;
  /** The same requests for the floor and the bound. */
  target: VenueTarget;
  exporter: ExporterProcess;
  peer: PeerProcess;
  close(): Promise<void>;
}

/** `moving`: every private answer differs from the last (the simulator's `--moving`). If one fails to start, those started are stopped. */
export async function startLargeVenue(moving: boolean): Promise<LargeVenue> {
  const venue = await startSimulatorProcess(largeVenueArgs(moving));
  const target: VenueTarget = { venue: venue.url, key: KEY, collaterals: COLLATERALS, activeLimit: ACTIVE_LIMIT, historyLimit: HISTORY_LIMIT };
  let exporter: ExporterProcess | undefined;
  try {
    exporter = await startExporterProcess({ ...BASE_ENV, TRADING_BASE_URL: venue.url, TRADING_COLLATERAL_IDS: COLLATERALS.join(",") }, benchNodeArgs());
    const peer = await startPeerProcess({
      PEER_VENUE: venue.url,
      PEER_KEY: KEY,
      PEER_COLLATERALS: COLLATERALS.join(","),
      PEER_ACTIVE_LIMIT: String(ACTIVE_LIMIT),
      PEER_HISTORY_LIMIT: String(HISTORY_LIMIT),
    });
    const started = exporter;
    return {
      venue,
      target,
      exporter: started,
      peer,
      async close() {
        await peer.close();
        await started.close();
        await venue.close();
      },
    };
  } catch (error) {
    await exporter?.close();
    await venue.close();
    throw error;
  }
}
