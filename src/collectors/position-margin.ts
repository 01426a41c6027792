// Per position, the initial margin and the share of the size limit its market's tiered settings imply.

import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";
import { addSample, gauge, metricName, type Family } from "../metrics/family.js";
import type { Market } from "../venue/snapshot.js";
import { initialMarginRequirement, LIMIT_SETTINGS, MARGIN_SETTINGS, sizeLimitRatio, unusableSettings } from "./implied-margin.js";
import { eachPosition, LABELS } from "./positions.js";

function collect(scrape: ScrapeResult): Family[] {
  const requirement = gauge(
    metricName("position", "initial_margin_requirement"),
    "Initial margin the market's tiered settings imply for the position (|size| × average execution price × IMF(size)), in units of the collateral asset.",
    LABELS,
  );
  const limit = gauge(metricName("position", "size_limit_ratio"), "Position size as a ratio of the market's maxPositionSize (1 is at the limit).", LABELS);
  const missing = gauge(
    metricName("position", "margin_input_missing"),
    "1 for each input the position's implied margin or size-limit series lack, so they are absent: a market setting missing, zero or negative, or the market not in the market list (input market).",
    [...LABELS, "input"],
  );
  const byId = new Map<string, Market>();
  for (const m of scrape.markets?.markets ?? []) byId.set(m.id, m); // ids are unique: the parser drops and counts a repeat
  eachPosition(scrape, (labels, p) => {
    const market = p.marketId === undefined ? undefined : byId.get(p.marketId);
    addSample(requirement, labels, initialMarginRequirement(p, market));
    addSample(limit, labels, sizeLimitRatio(p, market));
    // Without a market list at all, trading_scrape_success{endpoint="markets"} (on the venue's target) already says why.
    if (scrape.markets?.markets === undefined) return;
    const lacking = market === undefined ? ["market"] : unusableSettings(market, [...MARGIN_SETTINGS, ...LIMIT_SETTINGS]);
    for (const input of lacking) addSample(missing, [...labels, input], 1);
  });
  return [requirement, limit, missing];
}

export const positionMargin: Collector = { collect, givesWay: 5 };
