// The oldest Node.js release the exporter runs on: package.json's engines.node is `>=` it (a test holds them equal).

export const NODE_FLOOR = "22.19";

export function belowFloor(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [floorMajor = 0, floorMinor = 0] = NODE_FLOOR.split(".").map(Number);
  return major < floorMajor || (major === floorMajor && minor < floorMinor);
}

/** Called before any other import: the dependencies (undici) need the floor and would fail with a library's stack trace. */
export function refuseOlderNode(command: string): void {
  if (!belowFloor(process.versions.node)) return;
  process.stderr.write(`${command}: Node.js ${process.version} is older than this release supports (>=${NODE_FLOOR}); run it on Node.js 24 LTS\n`);
  process.exit(1);
}
