/** Why a server could not listen, as a sentence that says what to do instead of a stack trace. */
export function listenProblem(
  error: Pick<NodeJS.ErrnoException, 'code' | 'message'>,
  host: string,
  port: number,
): string {
  if (error.code === 'EADDRINUSE')
    return `Port ${port} on ${host} is already in use: stop what uses it, or choose another port with PORT=${port === 65535 ? 3001 : port + 1}.`;
  if (error.code === 'EACCES')
    return `Port ${port} on ${host} needs privileges this process lacks: choose a port above 1023 with PORT.`;
  return `Could not listen on ${host}:${port} (${error.code ?? error.message}).`;
}
