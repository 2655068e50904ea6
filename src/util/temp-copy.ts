// A copy of a stream (stdin, a pipe given by its path) in a new temporary file, for an input read more than once
// (a CSV is validated whole, then read again to send it and to write its row files).

/** Copies `input` to a new temporary file; `remove()` deletes it. On a failure or Ctrl-C (`signal`) nothing is left. */
export async function copyToTempFile(input: NodeJS.ReadableStream, opts: { prefix: string; signal?: AbortSignal }): Promise<{ path: string; remove: () => Promise<void> }> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), opts.prefix));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'stdin.csv');
  try {
    await pipeline(input, createWriteStream(path), ...(opts.signal ? [{ signal: opts.signal }] : []));
  } catch (err) {
    await remove().catch(() => undefined);
    opts.signal?.throwIfAborted();
    throw err;
  }
  return { path, remove };
}
