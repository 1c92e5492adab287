import type { DestinationStream } from 'pino';

/** A batch goes out once it holds this many characters (about 250 request lines)… */
const BATCH_CHARS = 64 * 1024;
/** …or this long after its first line, whichever comes first. */
export const BATCH_MS = 50;

/**
 * Log lines gathered into one write per batch. Each asynchronous write to stdout is a round trip through libuv's
 * thread pool, which cost more CPU than the rest of a GET's log line; a batch pays it once for up to ~250 lines. A
 * line waits at most BATCH_MS. What is still gathered when the process exits goes to the stream then, before pino's
 * own flush at exit writes out what the stream holds.
 */
export class BatchedLines implements DestinationStream {
  private batch = '';
  private due: NodeJS.Timeout | undefined;
  private readonly stream: DestinationStream;

  constructor(open: () => DestinationStream) {
    // Listeners run in the order they were added: this one before the one pino adds as `open` makes the stream.
    process.on('exit', () => this.flush());
    this.stream = open();
  }

  write(line: string): void {
    this.batch += line;
    if (this.batch.length >= BATCH_CHARS) this.flush();
    else this.due ??= setTimeout(() => this.flush(), BATCH_MS).unref();
  }

  flush(): void {
    clearTimeout(this.due);
    this.due = undefined;
    if (this.batch === '') return;
    this.stream.write(this.batch);
    this.batch = '';
  }
}
