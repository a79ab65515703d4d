/**
 * `policy SERVICE` lists kinds that need the same on one line ("• `name`, `tags`: 1 from …"). For
 * tests about one kind: that kind's line as if it stood alone ("• `name`: 1 from …"), with the
 * risky variants under it.
 */
export function kindLines(text: string, kind: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => kindsOfLine(line).includes(kind));
  if (start === -1) throw new Error(`no line for ${kind} in:\n${text}`);
  const line = lines[start] ?? '';
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((next) => !next.startsWith('      if it is'));
  return [`• \`${kind}\`${line.slice(line.indexOf(':'))}`, ...(end === -1 ? rest : rest.slice(0, end))];
}

/** The kinds a line of `policy SERVICE` names ("• `name`, `tags`: …" → name, tags). */
export function kindsOfLine(line: string): string[] {
  const head = /^• ((?:`[a-z-]+`(?:, )?)+):/u.exec(line)?.[1];
  return head === undefined ? [] : [...head.matchAll(/`([a-z-]+)`/gu)].map((match) => match[1] ?? '');
}
