// Follows the rest of a JSON array's items without building them, checking their grammar and counting
// them: the items past the cap, which the walker must read to the end of the body but never keeps.

import { TokenType } from "@streamparser/json";

/** What the next token may be. */
enum Expect {
  Value,
  ValueOrEnd,
  Key,
  KeyOrEnd,
  Colon,
  CommaOrEnd,
}

export type SkipStep = "more" | "end" | "error";

const isScalar = (t: TokenType): boolean =>
  t === TokenType.STRING || t === TokenType.NUMBER || t === TokenType.TRUE || t === TokenType.FALSE || t === TokenType.NULL;

/** The rest of an array from inside it: its items counted, its closing `]` the end. */
export class SkippedItems {
  /** Containers open, the array itself first. */
  readonly #open: TokenType[] = [TokenType.LEFT_BRACKET];
  #expect: Expect;
  /** Items of the array seen. */
  count = 0;

  /** `afterItem`: the array already had an item (a comma or the end comes next); else it is just opened. */
  constructor(afterItem: boolean) {
    this.#expect = afterItem ? Expect.CommaOrEnd : Expect.ValueOrEnd;
  }

  /** Containers open below the array. */
  get depth(): number {
    return this.#open.length - 1;
  }

  /** Takes the next token: "end" for the array's own `]` (not consumed), "error" on a token JSON forbids there. */
  feed(token: TokenType): SkipStep {
    switch (this.#expect) {
      case Expect.Value:
      case Expect.ValueOrEnd:
        if (this.#expect === Expect.ValueOrEnd && token === TokenType.RIGHT_BRACKET) return this.#close(token);
        if (this.#open.length === 1) this.count++;
        if (isScalar(token)) {
          this.#expect = Expect.CommaOrEnd;
          return "more";
        }
        if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
          this.#open.push(token);
          this.#expect = token === TokenType.LEFT_BRACE ? Expect.KeyOrEnd : Expect.ValueOrEnd;
          return "more";
        }
        return "error";
      case Expect.KeyOrEnd:
        if (token === TokenType.RIGHT_BRACE) return this.#close(token);
        return this.#key(token);
      case Expect.Key:
        return this.#key(token);
      case Expect.Colon:
        if (token !== TokenType.COLON) return "error";
        this.#expect = Expect.Value;
        return "more";
      case Expect.CommaOrEnd:
        if (token === TokenType.COMMA) {
          this.#expect = this.#open[this.#open.length - 1] === TokenType.LEFT_BRACE ? Expect.Key : Expect.Value;
          return "more";
        }
        return this.#close(token);
    }
  }

  #key(token: TokenType): SkipStep {
    if (token !== TokenType.STRING) return "error";
    this.#expect = Expect.Colon;
    return "more";
  }

  #close(token: TokenType): SkipStep {
    const last = this.#open[this.#open.length - 1];
    const matches =
      (last === TokenType.LEFT_BRACE && token === TokenType.RIGHT_BRACE) || (last === TokenType.LEFT_BRACKET && token === TokenType.RIGHT_BRACKET);
    if (!matches) return "error";
    if (this.#open.length === 1) return "end";
    this.#open.pop();
    this.#expect = Expect.CommaOrEnd;
    return "more";
  }
}
