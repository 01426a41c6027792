// The runbook pages' stylesheet, served beside them so a `default-src 'self'` policy allows it (an inline <style> it refuses).

/** The stylesheet's name, relative to the runbook pages' folder (/runbooks/): no alert name has a dot. */
export const RUNBOOK_CSS_NAME = "runbook.css";

export const RUNBOOK_CSS = `body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1b1b; }
pre { background: #f4f4f4; padding: 0.75rem; overflow-x: auto; border-radius: 4px; }
code { font-size: 0.95em; }
:not(pre) > code { background: #f4f4f4; padding: 0 0.2em; border-radius: 3px; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
td, th { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; }
th { background: #f4f4f4; }
`;
