// The oldest Node.js release the exporter runs on: package.json's engines.node is `>=` it (a test holds them equal).

export const NODE_FLOOR = "22.19";

/** Whether `version` ("20.20.2") is older than NODE_FLOOR. */
export function belowFloor(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [floorMajor = 0, floorMinor = 0] = NODE_FLOOR.split(".").map(Number);
  return major < floorMajor || (major === floorMajor && minor < floorMinor);
}
