/**
 * Every long-lived component (receiver, output, tracker, API listener) is a Service:
 * constructors only assign; I/O starts in start() and ends in stop(). stop() must be
 * idempotent and safe to call after a failed start().
 */
export interface Service {
  /** Also the name of its health component when it reports one (a ServiceGroup removes it at stop). */
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Stops services in reverse order, collecting failures instead of stopping at the first. */
export async function stopAll(services: readonly Service[]): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const service of [...services].reverse()) {
    try {
      await service.stop();
    } catch (err) {
      failures.push(err);
    }
  }
  return failures;
}
