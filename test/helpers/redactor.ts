// One redactor per test file, as the exporter keeps one per process, and the field readers through it.

import { Redactor } from "../../src/util/redact.js";
import { VenueFields } from "../../src/venue/fields.js";

export const redactor = new Redactor();
export const fields = new VenueFields(redactor);
