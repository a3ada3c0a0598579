/**
 * Work cut into steps, run one step per turn of the event loop, the jobs in turn (round robin): the
 * status output's snapshots (status-client.ts). However many clients connect at once, one turn of
 * the loop does one slice of one snapshot, so the receivers' reads and ACKs wait at most that long.
 */

/** One step of a job: 'more' to be run again, 'done', or 'wait' (the job adds itself back later). */
export type Step = () => 'more' | 'done' | 'wait';

export class Slicer {
  private readonly jobs: Step[] = [];
  private scheduled = false;

  /** Adds a job (or one that waited); its first step runs on a later turn. */
  add(step: Step): void {
    this.jobs.push(step);
    this.schedule();
  }

  /** Jobs waiting for their turn. */
  get pending(): number {
    return this.jobs.length;
  }

  private schedule(): void {
    if (this.scheduled || this.jobs.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    this.scheduled = false;
    const step = this.jobs.shift();
    if (step && step() === 'more') this.jobs.push(step);
    this.schedule();
  }
}
