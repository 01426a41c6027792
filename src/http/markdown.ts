// A small Markdown-to-HTML renderer for the runbooks: headings, paragraphs, lists, tables, code; everything escaped.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Inline markup: `code`, **bold**, [text](url) with an http(s), relative or #fragment URL; the rest escaped. */
export function renderInline(text: string): string {
  const out: string[] = [];
  // Code spans first, so nothing inside them is read as markup.
  const pieces = text.split(/(`[^`]*`)/);
  for (const piece of pieces) {
    if (piece.length >= 2 && piece.startsWith("`") && piece.endsWith("`")) {
      out.push(`<code>${escapeHtml(piece.slice(1, -1))}</code>`);
      continue;
    }
    let html = escapeHtml(piece);
    html = html.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
    html = html.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label: string, url: string) =>
      /^(https?:\/\/|\.{0,2}\/|#)|^[\w.-]+(#[\w-]*)?$/.test(url) ? `<a href="${url}">${label}</a>` : whole,
    );
    out.push(html);
  }
  return out.join("");
}

function tableRow(line: string, cell: "th" | "td"): string {
  const cells = line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|");
  return `<tr>${cells.map((c) => `<${cell}>${renderInline(c.trim())}</${cell}>`).join("")}</tr>`;
}

/** Block structure, line by line: fenced code, #-headings, |-tables, "- " lists, blank-line separated paragraphs. */
export function renderMarkdown(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const html: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) html.push(`<p>${renderInline(paragraph.join(" "))}</p>`);
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = /^```\s*([\w-]*)\s*$/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ""); i++) code.push(lines[i] ?? "");
      const lang = fence[1] ? ` class="language-${fence[1]}"` : "";
      html.push(`<pre><code${lang}>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]?.length ?? 1;
      html.push(`<h${level}>${renderInline(heading[2] ?? "")}</h${level}>`);
      continue;
    }
    if (line.startsWith("|")) {
      flush();
      const rows: string[] = [];
      const header = line;
      const hasRule = /^\|?[\s:|-]+\|?$/.test(lines[i + 1] ?? "") && (lines[i + 1] ?? "").includes("-");
      if (hasRule) i++;
      rows.push(tableRow(header, hasRule ? "th" : "td"));
      while ((lines[i + 1] ?? "").startsWith("|")) rows.push(tableRow(lines[++i] ?? "", "td"));
      html.push(`<table>${rows.join("")}</table>`);
      continue;
    }
    if (/^[-*] /.test(line)) {
      flush();
      const items: string[] = [line.slice(2)];
      for (; i + 1 < lines.length; i++) {
        const next = lines[i + 1] ?? "";
        if (/^[-*] /.test(next)) items.push(next.slice(2));
        else if (/^\s{2,}\S/.test(next)) items[items.length - 1] += ` ${next.trim()}`;
        else break;
      }
      html.push(`<ul>${items.map((item) => `<li>${renderInline(item)}</li>`).join("")}</ul>`);
      continue;
    }
    if (line.trim() === "") flush();
    else paragraph.push(line.trim());
  }
  flush();
  return html.join("\n");
}
