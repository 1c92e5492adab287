import { isIPv6 } from 'node:net';

/** Where a person at this machine opens the server: its HOST, or localhost when it listens on every interface. */
export function localUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : isIPv6(host) ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** A word as a POSIX shell reads it back unchanged. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * The one human line `npm start` prints on a terminal: where the server is, its docs and, while no key exists,
 * the command that mints a sandbox key able to follow the getting-started guide. `dataDir` is given when it is
 * not the command's own default (./data), so the key lands where this server reads it.
 */
export function startLine(url: string, hasKeys: boolean, dataDir?: string): string {
  const line = `Nature Profile API listening on ${url} — docs at ${url}/docs`;
  if (hasKeys) return line;
  const where = dataDir === undefined ? '' : ` --data-dir ${shellWord(dataDir)}`;
  return `${line} — no API key yet: npx nature keys create --env test --type sk --scope nature:read --scope nature:write --name dev${where}`;
}
