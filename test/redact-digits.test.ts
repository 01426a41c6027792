// Venue text of digits alone (order ids) passes the redactor like any other: left as it is while no secret is in it,
// a short secret of digits or a 12-digit run of a longer one found in it.

import { describe, expect, it } from "vitest";
import { fields, redactor } from "./helpers/redactor.js";

describe("digits in venue text", () => {
  it("are left as they are while no secret reads as a number", () => {
    redactor.hold(["alpha-beta-gamma-delta-key"]);
    expect(fields.id("100000000260")).toBe("100000000260");
    expect(fields.id(100000000260)).toBe("100000000260");
  });

  it("hold a short secret of digits", () => {
    redactor.hold(["55667788"]);
    expect(fields.id("1155667788")).toBe("11<secret>");
    expect(fields.id(1155667788)).toBe("11<secret>");
  });

  it("hold a 12-digit run of a longer secret", () => {
    redactor.hold(["zz-111122223333-zz"]);
    expect(fields.id("9111122223333")).toBe("9<secret>");
  });
});
