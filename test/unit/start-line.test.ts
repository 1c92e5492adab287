import { describe, expect, it } from 'vitest';
import { localUrl, startLine } from '../../src/server/start-line.js';

describe('the line npm start prints on a terminal', () => {
  const mint = 'npx nature keys create --env test --type sk --scope nature:read --scope nature:write --name dev';

  it('says where the server and its docs are, and while no key exists how to mint one', () => {
    expect(startLine('http://127.0.0.1:8080', false)).toBe(
      `Nature Profile API listening on http://127.0.0.1:8080 — docs at http://127.0.0.1:8080/docs — no API key yet: ${mint}`,
    );
    expect(startLine('http://127.0.0.1:9000', true)).toBe(
      'Nature Profile API listening on http://127.0.0.1:9000 — docs at http://127.0.0.1:9000/docs',
    );
  });

  it('names a data directory other than ./data, quoted for the shell where it must be', () => {
    expect(startLine('http://127.0.0.1:8080', false, '/srv/nature')).toMatch(/ --name dev --data-dir \/srv\/nature$/);
    expect(startLine('http://127.0.0.1:8080', false, "/home/o'neil/my data")).toMatch(/ --data-dir '\/home\/o'\\''neil\/my data'$/);
    expect(startLine('http://127.0.0.1:8080', true, '/srv/nature')).not.toContain('--data-dir');
  });

  it('opens a server listening on every interface at localhost, and an IPv6 address in brackets', () => {
    expect(localUrl('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
    expect(localUrl('0.0.0.0', 8080)).toBe('http://localhost:8080');
    expect(localUrl('::', 3000)).toBe('http://localhost:3000');
    expect(localUrl('::1', 3000)).toBe('http://[::1]:3000');
    expect(localUrl('nature.internal', 3000)).toBe('http://nature.internal:3000');
  });
});
