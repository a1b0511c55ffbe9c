/**
 * Open console live streams (the tRPC `live.changes` subscription), per process. Each holds a
 * socket, a notifier watch and memory for as long as its tab lives, and a cookie can open any
 * number: past `perSession` streams of one session or `perPerson` of one person, the oldest
 * are closed first (a tab that lost its stream was most likely closed or asleep long ago).
 */
export class LiveStreams {
  /** Open streams by person, oldest first. */
  private readonly open = new Map<string, { sessionId: string; stop: AbortController }[]>();

  constructor(
    readonly perSession: number,
    readonly perPerson: number,
  ) {}

  /**
   * Counts a new stream of the person's session in; closes the oldest ones over a cap. The
   * stream ends when `signal` (the request's) aborts or it is closed here: it must call
   * `release` when it ends.
   */
  admit(personId: string, sessionId: string, signal?: AbortSignal) {
    const stop = new AbortController();
    const entry = { sessionId, stop };
    const streams = this.open.get(personId) ?? [];
    streams.push(entry);
    this.open.set(personId, streams);
    const ofSession = streams.filter((s) => s.sessionId === sessionId);
    for (const old of ofSession.slice(0, Math.max(0, ofSession.length - this.perSession)))
      old.stop.abort();
    const left = streams.filter((s) => !s.stop.signal.aborted);
    for (const old of left.slice(0, Math.max(0, left.length - this.perPerson))) old.stop.abort();
    return {
      signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
      release: () => {
        const now = this.open.get(personId)?.filter((s) => s !== entry) ?? [];
        if (now.length > 0) this.open.set(personId, now);
        else this.open.delete(personId);
      },
    };
  }

  /** How many streams the person has open (for tests and metrics). */
  count(personId: string): number {
    return this.open.get(personId)?.filter((s) => !s.stop.signal.aborted).length ?? 0;
  }
}

/** This process's streams: 10 per session (tabs of one browser), 20 per person (devices). */
export const liveStreams = new LiveStreams(10, 20);
