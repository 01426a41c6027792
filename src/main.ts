#!/usr/bin/env -S node --max-semi-space-size=16 --heap-growing-percent=50 --expose-gc
// The trading-exporter command; a Node.js older than package.json's engines is refused before anything else loads. The V8 flags (also in `npm start` and the
// image's ENTRYPOINT): a scrape's garbage dies in a fixed 16 MiB young generation, and the old one grows by half, not up to 4 times, since little outlives a
// scrape; `gc` is exposed for the one collection after start-up (command.ts).

import { refuseOlderNode } from "./util/node-engines.js";

refuseOlderNode("trading-exporter");
await import("./command.js");
