// `npm run demo`: the built-in simulated venue plus the exporter pointed at it, once the Node.js release is known good.

import { refuseOlderNode } from "../src/util/node-engines.js";

refuseOlderNode("demo");
await import("./run-demo.js");
