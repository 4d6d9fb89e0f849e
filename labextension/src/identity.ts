/**
 * Who the page's person is, as the Jupyter server the page came from knows them: the
 * `username` of its `/api/me`, asked once per page (where the server made the identity up
 * for a shared token, a random 32-hex username beside "Anonymous Io", its readable
 * `display_name`, as the server's routes record it). JupyterLab and Notebook 7 pages carry the
 * server's base URL (and a token, where the page was opened with one) in their
 * `jupyter-config-data`; a page without it (another front end) has no identity to give.
 */

let asked: Promise<PagePerson | null> | null = null;
/** A server that does not answer in this time gives no name: a click never waits longer. */
const ASK_MS = 3000;

/** The page's person: the name an act records, and the display name shown beside it. */
export interface PagePerson {
  name: string;
  display: string | null;
}

/** The page's Jupyter user, or null where the page has none. */
export function pageUser(): Promise<PagePerson | null> {
  asked ??= ask().catch(() => null);
  return asked;
}

async function ask(): Promise<PagePerson | null> {
  const config = document.getElementById("jupyter-config-data")?.textContent;
  if (!config) return null;
  const data = JSON.parse(config) as { baseUrl?: unknown; token?: unknown };
  const base = new URL(typeof data.baseUrl === "string" ? data.baseUrl : "/", window.location.href);
  const headers: Record<string, string> = {};
  if (typeof data.token === "string" && data.token) headers.Authorization = `token ${data.token}`;
  const reply = await fetch(new URL("api/me", base), {
    credentials: "same-origin",
    headers,
    signal: AbortSignal.timeout(ASK_MS),
  });
  if (!reply.ok) return null;
  const me = (await reply.json()) as {
    identity?: { username?: unknown; display_name?: unknown; name?: unknown };
  };
  const identity = me.identity ?? {};
  const name = personName(identity);
  if (name === null) return null;
  const display = typeof identity.display_name === "string" ? identity.display_name : null;
  return { name, display: display && display !== name ? display : null };
}

/** The name a person's act records, from a Jupyter identity (see the module's comment). */
export function personName(identity: {
  username?: unknown;
  display_name?: unknown;
  name?: unknown;
}): string | null {
  const text = (value: unknown): string | null =>
    typeof value === "string" && value !== "" ? value : null;
  const username = text(identity.username);
  const display = text(identity.display_name) ?? text(identity.name);
  const madeUp =
    username !== null && /^[0-9a-f]{32}$/.test(username) && display?.startsWith("Anonymous ");
  return madeUp ? display : username;
}
