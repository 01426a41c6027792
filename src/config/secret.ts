// A credential that prints as <secret> however it is logged, stringified or inspected.

import { inspect } from "node:util";

export const REDACTED = "<secret>";

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The credential itself: call only where it is put on the wire. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
