/**
 * Links to a service's page in the ClickHouse Cloud console (CONSOLE_URL): where people go next
 * from a message that names a service. The link is built from checked parts only, so that neither
 * the base (configuration) nor the id (the API's answer) can break out of Slack's `<url|label>`.
 */

/** The console's base URL, e.g. https://console.clickhouse.cloud; undefined: no links. */
export type ConsoleBase = string | undefined;

export const DEFAULT_CONSOLE_URL = 'https://console.clickhouse.cloud';

/** Service ids are UUIDs: letters, digits and hyphens; anything else is not linked. */
const SERVICE_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * A base a link can be built on: http(s), with a host, and none of the characters that end or
 * split Slack's link syntax (`<`, `>`, `|`) nor spaces; a query or fragment would swallow the path.
 */
export function consoleBaseProblem(text: string): string | undefined {
  const sentence = `must be the http(s) address of the ClickHouse Cloud console (${DEFAULT_CONSOLE_URL}), or off for no links`;
  if (/[\s<>|]/u.test(text)) return sentence;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return sentence;
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || parsed.hostname === '') return sentence;
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '')
    return `${sentence}: without a query, a fragment or credentials`;
  return undefined;
}

/** The service's page, or undefined when links are off or the id (or base) is not safe to link. */
export function servicePageUrl(base: ConsoleBase, id: string): string | undefined {
  if (base === undefined || !SERVICE_ID.test(id) || consoleBaseProblem(base) !== undefined) return undefined;
  return `${base.replace(/\/+$/u, '')}/services/${id}`;
}
