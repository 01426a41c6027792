// Venue text of digits alone (order ids) passes the redactor like any other: left as it is while no secret is in it,
// a short secret of digits or a 12-digit run of a longer one found in it.

import { describe, expect, it } from "vitest";
import { addSecrets } from "../src/util/redact.js";
import { readId } from "../src/venue/fields.js";

describe("digits in venue text", () => {
  it("are left as they are while no secret reads as a number", () => {
    addSecrets(["alpha-beta-gamma-delta-key"]);
    expect(readId("100000000260")).toBe("100000000260");
    expect(readId(100000000260)).toBe("100000000260");
  });

  it("hold a short secret of digits", () => {
    addSecrets(["55667788"]);
    expect(readId("1155667788")).toBe("11<secret>");
    expect(readId(1155667788)).toBe("11<secret>");
  });

  it("hold a 12-digit run of a longer secret", () => {
    addSecrets(["zz-111122223333-zz"]);
    expect(readId("9111122223333")).toBe("9<secret>");
  });
});
