/** `scheme://user:password@host…` with the user and password removed: what a message or log may show of a backend URL. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
}

/** The host (or comma-separated hosts, with ports) of a backend URL, without scheme, credentials, path or options. */
export function urlHosts(url: string): string {
  return withoutCredentials(url)
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split(/[/?#]/)[0]!;
}

/** The password (or token) in a backend URL, percent-decoded, if it has one: to be scrubbed from drivers' messages. */
export function urlSecrets(url: string): string[] {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  if (userinfo === undefined) return [];
  const parts = userinfo.split(':').filter((part) => part.length > 0);
  return parts.flatMap((part) => {
    try {
      return [part, decodeURIComponent(part)];
    } catch {
      return [part];
    }
  });
}
