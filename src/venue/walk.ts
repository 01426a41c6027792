// A venue body's list walked within bounds (util/json-walk.ts), its failures as VenueErrors naming the path.

import { JsonWalkError, type Walked, walkJson } from "../util/json-walk.js";
import { VenueError } from "./errors.js";

/** The reporter's name for items past the cap, with their count: they were not examined. */
export const OVER_CAP_FIELD = "over_cap";

/** Walks the body's list (`list` undefined: the top-level array), handing each item to `each`; items past the cap are reported as OVER_CAP_FIELD. */
export type ListWalk = (list: string | undefined, invalid: (field: string, count?: number) => void, each: (item: unknown) => void) => Promise<Walked>;

/** One parse of `body`, whatever the reader asks of it; a walk still going at the scrape's deadline stops as a timeout. */
export function bodyWalk(body: Buffer, url: URL, limits: { maxItems: number; signal: AbortSignal }): ListWalk {
  return async (list, invalid, each) => {
    try {
      const walked = await walkJson(body, { ...(list === undefined ? {} : { list }), maxItems: limits.maxItems, signal: limits.signal }, each);
      if (walked.overCap > 0) invalid(OVER_CAP_FIELD, walked.overCap);
      return walked;
    } catch (error) {
      if (!(error instanceof JsonWalkError)) throw error;
      const where = `GET ${url.pathname}`;
      if (error.reason === "aborted") throw new VenueError("timeout", `${where}: body not read before the scrape deadline`);
      if (error.reason === "depth" || error.reason === "size") throw new VenueError("invalid_schema", `${where}: body ${error.message}`);
      throw new VenueError("invalid_json", `${where}: body is not valid JSON (${body.length} bytes)`);
    }
  };
}
