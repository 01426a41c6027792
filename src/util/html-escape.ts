// The one HTML escaping of text: the status page writes with it, and redaction checks what it would write.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** One code unit as the page writes it. */
export function escapeHtmlUnit(unit: string): string {
  return ENTITIES[unit] ?? unit;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, escapeHtmlUnit);
}
