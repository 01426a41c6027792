import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most files wait on real servers (Prometheus, nginx, Chromium) rather than compute: two at a time on two cores.
    maxWorkers: 2,
  },
});
