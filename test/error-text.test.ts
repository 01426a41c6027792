// A library's message never becomes ours: what a thrown error shows is a fixed text and its code or class.

import { describe, expect, it } from "vitest";
import { runEndpoint } from "../src/scrape/runner.js";
import { libraryErrorText } from "../src/util/error-text.js";
import { VenueError } from "../src/venue/errors.js";

const LEAKY = 'Headers.set: "sk_live_x\nsecondline" is an invalid header value.';

describe("libraryErrorText", () => {
  it("shows the code, else the class name, never the message", () => {
    expect(libraryErrorText(Object.assign(new Error(LEAKY), { code: "ECONNREFUSED" }), "connection failed")).toBe("connection failed (ECONNREFUSED)");
    expect(libraryErrorText(new TypeError(LEAKY), "unexpected failure")).toBe("unexpected failure (TypeError)");
    // A code or name that is not a plain identifier is not shown either.
    expect(libraryErrorText({ code: "sk_live x", name: "a\nb" }, "failed")).toBe("failed (unknown error)");
    expect(libraryErrorText("a string thrown", "failed")).toBe("failed (unknown error)");
  });
});

describe("runEndpoint", () => {
  it("reports a non-venue error in fixed words, and a VenueError's own message as it is", async () => {
    const bug = await runEndpoint("account_info", "a", () => Promise.reject(new TypeError(LEAKY)));
    expect(bug.outcome).toMatchObject({ ok: false, reason: "internal", message: "account_info: unexpected failure (TypeError)" });
    expect(bug.outcome.message).not.toContain("sk_live");
    const venue = await runEndpoint("markets", undefined, () => Promise.reject(new VenueError("http_5xx", "GET /v1/public/markets: HTTP 503")));
    expect(venue.outcome).toMatchObject({ ok: false, reason: "http_5xx", message: "GET /v1/public/markets: HTTP 503" });
  });
});
